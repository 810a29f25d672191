#!/usr/bin/env python3
"""flame_cdp.py: check an SVG flame graph in headless chromium.

Drives the real browser over the DevTools protocol on a pipe
(--remote-debugging-pipe: JSON messages separated by NUL bytes on file
descriptors 3 and 4), with nothing but the Python standard library.  It opens
the SVG, then behaves like a person: hovers a frame, clicks it, clicks
"Reset zoom", presses Ctrl-F and types a regular expression into the prompt.
Each check prints one line, "PASS what" or "FAIL what: why", for the calling
shell script to number as TAP.  Exit status: 0 when every check passed.

usage: flame_cdp.py SVG --frame NAME --search REGEX [--screenshot PNG]
                    [--zoom-shot PNG] [--load-limit SECONDS]
"""
import argparse
import base64
import fcntl
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time

HIGHLIGHT = '#e01ee0'
failures = 0


def check(cond, what, why=''):
    global failures
    if cond:
        print('PASS ' + what)
    else:
        failures += 1
        print('FAIL ' + what + (': ' + why if why else ''))
    sys.stdout.flush()
    return cond


class Browser:
    """One headless chromium and one DevTools session on a page."""

    def __init__(self, chromium, log):
        self.profile = tempfile.mkdtemp(prefix='ying-chromium-')
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()

        def child_fds():
            a = fcntl.fcntl(to_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        argv = [chromium, '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
                '--no-first-run', '--disable-background-networking',
                '--disable-component-update', '--disable-sync', '--hide-scrollbars',
                '--mute-audio', '--user-data-dir=' + self.profile,
                '--remote-debugging-pipe', 'about:blank']
        # chromium makes its singleton socket $TMPDIR/org.chromium.Chromium.
        # XXXXXX/SingletonSocket and exits ("Socket path too long") when that
        # passes 107 bytes; make check's scratch TMPDIR lies deep in the build
        # tree.  So chromium runs in TMPDIR with TMPDIR=. (a short relative
        # socket path, in the same directory).
        env = dict(os.environ, TMPDIR='.')
        # its own process group, so that a hung browser and its helper
        # processes can be ended together (and only they)
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                     preexec_fn=child_fds, pass_fds=(3, 4),
                                     start_new_session=True, cwd=tempfile.gettempdir(),
                                     env=env)
        os.close(to_r)
        os.close(from_w)
        self.w, self.r = to_w, from_r
        self.buf = b''
        self.msgs = []
        self.next_id = 0
        self.session = None

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {'id': self.next_id, 'method': method, 'params': params or {}}
        if session and self.session:
            msg['sessionId'] = self.session
        data = json.dumps(msg).encode() + b'\0'
        while data:
            n = os.write(self.w, data)
            data = data[n:]
        return self.next_id

    def pump(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError('no answer from chromium')
        ready, _, _ = select.select([self.r], [], [], left)
        if not ready:
            raise TimeoutError('no answer from chromium')
        chunk = os.read(self.r, 1 << 20)
        if not chunk:
            raise EOFError('chromium closed the pipe')
        self.buf += chunk
        while b'\0' in self.buf:
            raw, self.buf = self.buf.split(b'\0', 1)
            self.msgs.append(json.loads(raw))

    def wait(self, pred, timeout=20):
        deadline = time.monotonic() + timeout
        while True:
            for i, m in enumerate(self.msgs):
                if pred(m):
                    return self.msgs.pop(i)
            self.pump(deadline)

    def result(self, mid, timeout=20):
        m = self.wait(lambda x: x.get('id') == mid, timeout)
        if 'error' in m:
            raise RuntimeError('%s' % m['error'])
        return m.get('result', {})

    def call(self, method, params=None, session=True, timeout=20):
        return self.result(self.send(method, params, session), timeout)

    def event(self, name, timeout=20):
        return self.wait(lambda x: x.get('method') == name, timeout)

    def events(self, name):
        got = [m for m in self.msgs if m.get('method') == name]
        self.msgs = [m for m in self.msgs if m.get('method') != name]
        return got

    def eval(self, expr):
        r = self.call('Runtime.evaluate', {'expression': expr, 'returnByValue': True})
        if 'exceptionDetails' in r:
            raise RuntimeError('page script failed: %s' % r['exceptionDetails'])
        return r['result'].get('value')

    def mouse(self, kind, x, y, buttons=0, clicks=0):
        p = {'type': kind, 'x': x, 'y': y, 'button': 'left' if kind != 'mouseMoved' else 'none',
             'buttons': buttons, 'clickCount': clicks}
        self.call('Input.dispatchMouseEvent', p)

    def click(self, x, y):
        self.mouse('mouseMoved', x, y)
        self.mouse('mousePressed', x, y, 1, 1)
        self.mouse('mouseReleased', x, y, 0, 1)

    def close(self):
        try:
            self.send('Browser.close', session=False)
            self.proc.wait(timeout=10)
        except Exception:
            pass
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
            self.proc.wait()
        os.close(self.w)
        os.close(self.r)
        subprocess.call(['rm', '-rf', self.profile])


# Page-side helpers: find a frame by function name, read its geometry.
HELPERS = r"""
window.__t = {
  frames: function () { return Array.prototype.slice.call(document.querySelectorAll('#frames > g')); },
  name: function (g) { return g.children[0].textContent.split('\n')[0]; },
  find: function (name) {
    var all = this.frames();
    for (var i = 0; i < all.length; i++)
      if (this.name(all[i]) === name && all[i].style.display !== 'none') return all[i];
    return null;
  },
  geom: function (name) {
    var g = this.find(name);
    if (!g) return null;
    var r = g.children[1], b = r.getBoundingClientRect();
    return { x: +r.getAttribute('x'), w: +r.getAttribute('width'),
             cx: b.x + b.width / 2, cy: b.y + b.height / 2, fill: r.getAttribute('fill') };
  },
  center: function (id) {
    var b = document.getElementById(id).getBoundingClientRect();
    return { cx: b.x + b.width / 2, cy: b.y + b.height / 2 };
  }
};
true
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('svg')
    ap.add_argument('--frame', required=True, help='function name of a frame to hover and click')
    ap.add_argument('--search', required=True, help='regular expression to search for')
    ap.add_argument('--screenshot')
    ap.add_argument('--zoom-shot')
    ap.add_argument('--load-limit', type=float, default=10.0)
    ap.add_argument('--chromium', default='/usr/bin/chromium')
    ap.add_argument('--log', default=os.devnull)
    a = ap.parse_args()

    svg = os.path.abspath(a.svg)
    with open(svg, 'rb') as f:
        text = f.read().decode('utf-8')
    nframes = text.count('<g><title>')
    head = text[:2000]
    width = int(head.split('width="', 1)[1].split('"', 1)[0])
    height = int(head.split('height="', 1)[1].split('"', 1)[0])

    log = open(a.log, 'ab')
    b = Browser(a.chromium, log)
    try:
        target = b.call('Target.createTarget', {'url': 'about:blank'}, session=False)['targetId']
        b.session = b.call('Target.attachToTarget', {'targetId': target, 'flatten': True},
                           session=False)['sessionId']
        b.call('Page.enable')
        b.call('Runtime.enable')
        b.call('Emulation.setDeviceMetricsOverride', {'width': width, 'height': min(height, 4000),
                                                      'deviceScaleFactor': 1, 'mobile': False})
        t0 = time.monotonic()
        b.call('Page.navigate', {'url': 'file://' + svg})
        b.event('Page.loadEventFired', timeout=60)
        load = time.monotonic() - t0
        # a layout pass, so that the time includes drawing the frames
        b.eval('document.documentElement.getBoundingClientRect().width')
        load = time.monotonic() - t0
        check(load <= a.load_limit, 'loads in %.2f s (limit %.1f s, %d frames, %.1f MB)'
              % (load, a.load_limit, nframes, len(text) / 1e6))

        check(b.eval('document.documentElement.localName') == 'svg' and
              b.eval("document.getElementsByTagName('parsererror').length") == 0,
              'chromium parses the file as SVG')
        shown = b.eval("document.querySelectorAll('#frames > g').length")
        check(shown == nframes and nframes > 0, 'all %d frames are in the DOM' % nframes,
              'DOM has %s' % shown)
        exc = b.events('Runtime.exceptionThrown')
        check(not exc and b.eval("document.querySelector('#frames > g').__yi === 0"),
              'the embedded script ran without errors', '%s' % exc[:1])
        b.eval(HELPERS)
        total_w = b.eval("+document.querySelector('#frames > g > rect').getAttribute('width')")

        if a.screenshot:
            shot = b.call('Page.captureScreenshot', {'format': 'png'})['data']
            with open(a.screenshot, 'wb') as f:
                f.write(base64.b64decode(shot))
            check(os.path.getsize(a.screenshot) > 5000, 'screenshot written to ' + a.screenshot)

        g = b.eval('__t.geom(%s)' % json.dumps(a.frame))
        if not check(g is not None, 'a frame named %s is drawn' % a.frame):
            return
        b.mouse('mouseMoved', g['cx'], g['cy'])
        details = b.eval("document.getElementById('details').textContent")
        check(a.frame in details and '%' in details and ('B' in details or 'object' in details),
              'hovering shows function, size and share in the details line', details)
        title = b.eval('__t.find(%s).children[0].textContent' % json.dumps(a.frame))
        check('%' in title and '\n' in title, 'the frame has a <title> tooltip', title)

        check(g['w'] < total_w - 1, 'before zoom the frame is narrower than the graph',
              '%s vs %s' % (g['w'], total_w))
        b.click(g['cx'], g['cy'])
        z = b.eval('__t.geom(%s)' % json.dumps(a.frame))
        check(z is not None and abs(z['w'] - total_w) < 0.02 and abs(z['x'] - 10) < 0.02,
              'clicking the frame zooms it to the full width', '%s' % z)
        hidden = b.eval("__t.frames().filter(function (g) { return g.style.display === 'none'; }).length")
        check(hidden > 0, 'zoom hides frames outside the clicked subtree (%s hidden)' % hidden)
        unzoom_shown = b.eval("!document.getElementById('unzoom').classList.contains('hide')")
        check(unzoom_shown, '"Reset zoom" appears after zooming')
        if a.zoom_shot:
            shot = b.call('Page.captureScreenshot', {'format': 'png'})['data']
            with open(a.zoom_shot, 'wb') as f:
                f.write(base64.b64decode(shot))

        u = b.eval("__t.center('unzoom')")
        b.click(u['cx'], u['cy'])
        r = b.eval('__t.geom(%s)' % json.dumps(a.frame))
        hidden = b.eval("__t.frames().filter(function (g) { return g.style.display === 'none'; }).length")
        check(r is not None and abs(r['w'] - g['w']) < 0.02 and hidden == 0,
              '"Reset zoom" restores the original layout', '%s' % r)

        # Ctrl-F opens a prompt; answer it like a user would.
        b.mouse('mouseMoved', 2, 2)
        key = {'type': 'rawKeyDown', 'modifiers': 2, 'key': 'f', 'code': 'KeyF',
               'windowsVirtualKeyCode': 70, 'nativeVirtualKeyCode': 70}
        kid = b.send('Input.dispatchKeyEvent', key)
        dlg = b.event('Page.javascriptDialogOpening')
        check(dlg['params'].get('type') == 'prompt', 'Ctrl-F opens a search prompt',
              '%s' % dlg['params'])
        b.call('Page.handleJavaScriptDialog', {'accept': True, 'promptText': a.search})
        b.result(kid)
        b.call('Input.dispatchKeyEvent', {'type': 'keyUp', 'modifiers': 2, 'key': 'f',
                                          'code': 'KeyF', 'windowsVirtualKeyCode': 70})
        res = b.eval("""(function () {
            var re = new RegExp(%s), hit = 0, miss = 0, wrong = 0;
            __t.frames().forEach(function (g) {
              var m = re.test(__t.name(g)), f = g.children[1].getAttribute('fill');
              if (m && f === '%s') hit++; else if (m) miss++; else if (f === '%s') wrong++;
            });
            return { hit: hit, miss: miss, wrong: wrong,
                     matched: document.getElementById('matched').textContent };
          })()""" % (json.dumps(a.search), HIGHLIGHT, HIGHLIGHT))
        check(res['hit'] > 0 and res['miss'] == 0 and res['wrong'] == 0,
              'search highlights exactly the matching frames (%d)' % res['hit'], '%s' % res)
        check(res['matched'].startswith('Matched') and '%' in res['matched'],
              'search shows the matched share of the total: ' + res['matched'], res['matched'])
        s = b.eval("__t.center('search')")
        b.click(s['cx'], s['cy'])
        left = b.eval("__t.frames().filter(function (g) { return g.children[1].getAttribute('fill') === '%s'; }).length"
                      % HIGHLIGHT)
        check(left == 0, '"Reset search" clears the highlight')
        exc = b.events('Runtime.exceptionThrown')
        check(not exc, 'no script errors during the session', '%s' % exc[:1])
    except Exception as e:  # a hang or a protocol error is a failure, not a crash
        check(False, 'browser session', repr(e))
    finally:
        b.close()
        log.close()


if __name__ == '__main__':
    main()
    sys.exit(1 if failures else 0)
