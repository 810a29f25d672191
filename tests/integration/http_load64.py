#!/usr/bin/env python3
"""http_load64.py: 64 concurrent connections against a ying HTTP endpoint.

    http_load64.py --url http://127.0.0.1:PORT --pid PID --seconds S
                   [--token T] [--threads 64] [--out FILE]

Standard library only.  The endpoints are read from the index page ("/debug/",
the route table), so a new endpoint is loaded without editing this file.
Of the --threads connections at any time, three quarters are well-behaved
clients that cycle through every endpoint (GET, and POST/DELETE where the
route takes them, with the right token); the rest misbehave in turn: a slow
client (one byte a second), a huge URL (100 KB), huge headers (200 KB), a
huge POST body (announced 64 MiB; streamed 4 MiB chunked), a wrong token,
a foreign Host, a cross-origin POST.  A sampler reads the server process's
RSS and open descriptors (/proc/PID) every second.

Writes key=value lines (to --out, or stdout): requests per kind and status,
good answers per second and the longest run of seconds without one, RSS and
descriptor samples (min, max, last), the set of endpoints answered 2xx, and
unexpected answers (a well-behaved request answered neither 2xx nor a
documented refusal such as 503 busy).  The caller asserts on them.
"""
import argparse
import http.client
import os
import re
import socket
import sys
import threading
import time
import urllib.parse

# 404 until the growth runner has checked the heap once (ying-http(7))
NO_HISTORY = "/debug/heap/leaks"

BUSY = {429, 503, 507}     # rate limit / dump in flight, paced, over the cap / growth slots / snapshot budget


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--token", default=None)
    ap.add_argument("--threads", type=int, default=64)
    ap.add_argument("--out", default=None)
    return ap.parse_args()


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.kinds = {}            # (kind, status) -> count
        self.good_per_sec = {}     # int second -> count
        self.ok_paths = set()
        self.unexpected = []       # first few, for the log
        self.n_unexpected = 0
        self.refused = set()       # misuse kinds that got their own refusal

    def add(self, kind, status, good=False, path=None, note=None):
        with self.lock:
            self.kinds[(kind, status)] = self.kinds.get((kind, status), 0) + 1
            if good:
                s = int(time.monotonic())
                self.good_per_sec[s] = self.good_per_sec.get(s, 0) + 1
                if path:
                    self.ok_paths.add(path)
            if note:
                self.n_unexpected += 1
                if len(self.unexpected) < 20:
                    self.unexpected.append(note)


def routes(host, port, token):
    """(methods, path) of every route on the index page."""
    c = http.client.HTTPConnection(host, port, timeout=30)
    h = {"Authorization": "Bearer " + token} if token else {}
    c.request("GET", "/debug/", headers=h)
    r = c.getresponse()
    body = r.read().decode("utf-8", "replace")
    c.close()
    if r.status != 200:
        sys.exit("http_load64: GET /debug/ answered %d" % r.status)
    out = []
    for m in re.finditer(r"<tr><td>([A-Z, ]+)</td><td>(?:<a href=\"[^\"]*\">)?([^<]+)", body):
        out.append(([x.strip() for x in m.group(1).split(",")], m.group(2)))
    if len(out) < 5:
        sys.exit("http_load64: the index lists only %d routes" % len(out))
    return out


def plan(rts, symaddr):
    """The well-behaved requests: (method, target, body) for every route."""
    reqs = []
    for methods, path in rts:
        if "GET" in methods:
            if path != "/debug/heap/diff":      # needs ?base= (else 400)
                reqs.append(("GET", path, None))
            if path == "/debug/heap":
                for f in ("pprof", "folded", "svg", "text", "json"):
                    reqs.append(("GET", path + "?format=" + f, None))
            if path == "/debug/pprof/heap":
                reqs.append(("GET", path + "?seconds=1", None))
            if path == "/debug/heap/diff":
                reqs.append(("GET", path + "?base=load0&format=text", None))
        if "HEAD" in methods and path == "/debug/prof":
            reqs.append(("HEAD", path, None))
        if "POST" in methods:
            if path == "/debug/heap/snapshot":
                reqs.append(("POST", path + "?name=load0", None))
                reqs.append(("POST", path + "?name=load1", None))
            elif path == "/debug/prof/active":
                reqs.append(("POST", path + "?on=1", None))
            elif path == "/debug/prof/sample":
                reqs.append(("POST", path + "?lg=19", None))
            elif path == "/pprof/symbol":
                reqs.append(("POST", path, symaddr.encode()))
            elif path == "/debug/pprof/symbol":
                reqs.append(("POST", path, symaddr.encode()))
            elif path == "/debug/heap/recent":
                reqs.append(("POST", path + "?max=64", None))
            else:
                reqs.append(("POST", path, None))
        if "DELETE" in methods and path == "/debug/heap/snapshot":
            reqs.append(("DELETE", path + "?name=load1", None))
    return reqs


def good_client(args, host, port, reqs, stats, stop, idx):
    h = {"Authorization": "Bearer " + args.token} if args.token else {}
    i = idx
    conn = None
    while not stop.is_set():
        method, target, body = reqs[i % len(reqs)]
        i += 1
        path = target.split("?")[0]
        hh = dict(h)
        if body is not None:
            hh["Content-Type"] = "text/plain"
        st = None
        # a kept-alive connection the server has closed meanwhile is
        # retried once on a fresh one, as every HTTP client does
        for attempt in (0, 1):
            reused = conn is not None
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(host, port, timeout=60)
                conn.request(method, target, body=body, headers=hh)
                r = conn.getresponse()
                rb = r.read()
                st = r.status
                if r.getheader("Connection", "").lower() == "close":
                    conn.close()
                    conn = None
                break
            except (OSError, http.client.HTTPException) as e:
                if conn is not None:
                    conn.close()
                conn = None
                if reused and attempt == 0:
                    continue
                stats.add("good", "error", note="%s %s: %s" % (method, target, e))
                break
        if st is None:
            continue
        if 200 <= st < 300:
            stats.add("good", st, good=True, path=path)
        elif st in BUSY or (st == 404 and ("base=" in target or method == "DELETE" or
                                           path == NO_HISTORY)):
            stats.add("good", st)
        else:
            stats.add("good", st, note="%s %s: %d %s" % (
                method, target, st, rb[:200].decode("utf-8", "replace").strip()))
    if conn is not None:
        conn.close()


def raw(host, port, data, timeout=15, drip=0.0, stop=None):
    """Send data (bytes) on a fresh connection, one byte per `drip` seconds
    when drip > 0 (until stop is set); returns the status code, or
    'closed' / 'timeout' / 'stopped'."""
    s = socket.create_connection((host, port), timeout=timeout)
    try:
        if drip > 0:
            for b in data:
                s.sendall(bytes([b]))
                if stop.wait(drip):
                    return "stopped"
        else:
            s.sendall(data)
        buf = b""
        while b"\r\n" not in buf:
            chunk = s.recv(4096)
            if not chunk:
                break
            buf += chunk
    except socket.timeout:
        return "timeout"
    except OSError:
        return "closed"
    finally:
        s.close()
    m = re.match(rb"HTTP/1\.[01] (\d{3})", buf)
    return int(m.group(1)) if m else "closed"


MISUSE = ["slow", "huge_url", "huge_headers", "huge_body", "chunked_body",
          "wrong_token", "foreign_host", "foreign_origin"]


def bad_client(args, host, port, stats, stop, idx):
    auth = "Authorization: Bearer %s\r\n" % args.token if args.token else ""
    hp = "%s:%d" % (host, port)
    kinds = MISUSE
    i = idx
    while not stop.is_set():
        kind = kinds[i % len(kinds)]
        i += 1
        try:
            if kind == "slow":       # a short request at one byte a second
                st = raw(host, port, ("GET /debug/prof HTTP/1.1\r\nHost: %s\r\n%s\r\n" %
                         (hp, auth)).encode()[:24], timeout=40, drip=1.0, stop=stop)
                want = ("timeout", "closed", "stopped")
            elif kind == "huge_url":
                st = raw(host, port, ("GET /debug/heap?x=%s HTTP/1.1\r\nHost: %s\r\n%s\r\n" %
                         ("a" * 100000, hp, auth)).encode())
                want = (414, 431, 400, 413, "closed")
            elif kind == "huge_headers":
                st = raw(host, port, ("GET /debug/prof HTTP/1.1\r\nHost: %s\r\n%sX-Pad: %s\r\n\r\n" %
                         (hp, auth, "b" * 200000)).encode())
                want = (431, 400, 413, "closed")
            elif kind == "huge_body":
                st = raw(host, port, ("POST /pprof/symbol HTTP/1.1\r\nHost: %s\r\n%s"
                         "Content-Length: 67108864\r\n\r\n" % (hp, auth)).encode() +
                         b"0x1+" * 4096)
                want = (413, "closed")
            elif kind == "chunked_body":
                head = ("POST /pprof/symbol HTTP/1.1\r\nHost: %s\r\n%s"
                        "Transfer-Encoding: chunked\r\n\r\n" % (hp, auth)).encode()
                chunk = b"%x\r\n" % 65536 + b"0x1+" * 16384 + b"\r\n"
                st = raw(host, port, head + chunk * 64 + b"0\r\n\r\n", timeout=30)
                want = (413, "closed")
            elif kind == "wrong_token":
                st = raw(host, port, ("GET /debug/heap HTTP/1.1\r\nHost: %s\r\n"
                         "Authorization: Bearer wrong-%d\r\nConnection: close\r\n\r\n" %
                         (hp, i)).encode())
                want = (401,) if args.token else (200,)
            elif kind == "foreign_host":
                st = raw(host, port, ("GET /pprof/cmdline HTTP/1.1\r\nHost: evil.example:%d\r\n"
                         "%sConnection: close\r\n\r\n" % (port, auth)).encode())
                want = (403,)
            else:
                st = raw(host, port, ("POST /debug/prof/sample?lg=0 HTTP/1.1\r\nHost: %s\r\n"
                         "%sOrigin: http://evil.example\r\nContent-Type: text/plain\r\n"
                         "Content-Length: 1\r\nConnection: close\r\n\r\nx" % (hp, auth)).encode())
                want = (403,)
        except OSError as e:
            st = "closed"
            if kind in ("wrong_token", "foreign_host", "foreign_origin"):
                stats.add("bad_" + kind, "error", note="%s: %s" % (kind, e))
                continue
        if st in want:
            stats.add("bad_" + kind, st)
            stats.refused.add(kind)
        elif st == 503:
            # every slot busy: the overload answer (Retry-After, close) comes
            # before the request is read, so it changes and shows nothing;
            # each kind must still get its own refusal at other times
            stats.add("bad_" + kind, st)
        else:
            stats.add("bad_" + kind, st, note="%s: %s (expected %s)" % (kind, st, want))


def sampler(pid, stop, rss, fds):
    while not stop.is_set():
        try:
            with open("/proc/%d/status" % pid) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        rss.append(int(line.split()[1]))
            fds.append(len(os.listdir("/proc/%d/fd" % pid)))
        except OSError:
            rss.append(-1)
            fds.append(-1)
        stop.wait(1.0)


def main():
    args = parse_args()
    u = urllib.parse.urlsplit(args.url)
    host, port = u.hostname, u.port
    rts = routes(host, port, args.token)
    # an address inside the server's own text, for the symbol POSTs
    symaddr = "0x%x" % (int(open("/proc/%d/maps" % args.pid).readline().split("-")[0], 16) + 0x100)
    reqs = plan(rts, symaddr)
    stats = Stats()
    stop = threading.Event()
    rss, fds = [], []
    nbad = max(1, args.threads // 4)
    threads = [threading.Thread(target=sampler, args=(args.pid, stop, rss, fds), daemon=True)]
    for k in range(args.threads - nbad):
        threads.append(threading.Thread(target=good_client, daemon=True,
                                        args=(args, host, port, reqs, stats, stop, k * 7)))
    for k in range(nbad):
        threads.append(threading.Thread(target=bad_client, daemon=True,
                                        args=(args, host, port, stats, stop, k)))
    t0 = time.monotonic()
    for t in threads:
        t.start()
    time.sleep(args.seconds)
    stop.set()
    for t in threads:
        t.join(timeout=90)
    t1 = time.monotonic()
    alive = sum(t.is_alive() for t in threads)

    first, last = int(t0), int(t0 + args.seconds)
    per_sec = [stats.good_per_sec.get(s, 0) for s in range(first, last)]
    gap = run = 0
    for n in per_sec:
        run = run + 1 if n == 0 else 0
        gap = max(gap, run)
    paths = sorted(p for _, p in rts)
    # the leak history has no point before the runner's first heap check
    # (2 s here): 404 is its answer until then, 2xx after
    missing = [p for p in paths if p not in stats.ok_paths]
    good = sum(v for (k, s), v in stats.kinds.items() if k == "good" and s != "error" and 200 <= s < 300)
    unexpected = stats.n_unexpected
    lines = []
    lines.append("seconds=%.1f" % (t1 - t0))
    lines.append("threads=%d bad_threads=%d threads_stuck=%d" % (args.threads, nbad, alive))
    lines.append("routes=%d" % len(paths))
    lines.append("requests=%d" % sum(stats.kinds.values()))
    lines.append("good_2xx=%d" % good)
    lines.append("good_per_sec_min=%d good_per_sec_median=%d" % (
        min(per_sec) if per_sec else 0, sorted(per_sec)[len(per_sec) // 2] if per_sec else 0))
    lines.append("longest_gap_s=%d" % gap)
    lines.append("endpoints_missing=%s" % (",".join(missing) or "none"))
    lines.append("unexpected=%d" % unexpected)
    lines.append("misuse_unrefused=%s" % (",".join(k for k in MISUSE if k not in stats.refused)
                                          or "none"))
    lines.append("rss_kb_first=%d rss_kb_max=%d rss_kb_last=%d" % (
        rss[0] if rss else -1, max(rss) if rss else -1, rss[-1] if rss else -1))
    lines.append("fds_first=%d fds_max=%d fds_last=%d" % (
        fds[0] if fds else -1, max(fds) if fds else -1, fds[-1] if fds else -1))
    for (k, s), v in sorted(stats.kinds.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        lines.append("kind %s %s %d" % (k, s, v))
    for n in stats.unexpected:
        lines.append("note %s" % n)
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
