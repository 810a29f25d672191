#!/usr/bin/env python3
"""jeprof_symproxy.py UPSTREAM: "the binaries are on another machine".

A small HTTP server on 127.0.0.1 (a free port, printed as "port N") in
front of ying's real endpoint UPSTREAM (http://127.0.0.1:PORT): it serves
jeprof's remote protocol by forwarding every request (GET /pprof/heap,
/pprof/cmdline, GET and POST /pprof/symbol) to UPSTREAM and returning its
answer unchanged, except that in /pprof/heap the file paths of
MAPPED_LIBRARIES are moved under /nonexistent-remote-host, so a client on
this machine cannot read the program's files and must name its addresses
through /pprof/symbol, as jeprof does against a remote server.  Used by
tests/integration/jeprof_compat_remote.sh; ends when killed.
"""
import http.server
import re
import sys
import urllib.error
import urllib.request

UPSTREAM = sys.argv[1].rstrip("/")
FORWARD = ("/pprof/heap", "/pprof/symbol", "/pprof/cmdline")


def move_paths(body):
    head, sep, maps = body.partition(b"\nMAPPED_LIBRARIES:\n")
    if not sep:
        return body
    maps = re.sub(rb"(?m)^(\S+ \S+ \S+ \S+ \S+\s+)(/)", rb"\1/nonexistent-remote-host/", maps)
    return head + sep + maps


class Proxy(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def forward(self, data=None):
        path = self.path.split("?")[0]
        if path not in FORWARD:
            self.send_error(404)
            return
        req = urllib.request.Request(UPSTREAM + self.path, data=data)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                status, body = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, body = e.code, e.read()
        if path == "/pprof/heap" and status == 200:
            body = move_paths(body)
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self):
        self.forward()

    def do_HEAD(self):
        self.forward()

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        self.forward(self.rfile.read(n))


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
print("port %d" % server.server_address[1], flush=True)
server.serve_forever()
