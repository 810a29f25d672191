#!/usr/bin/env python3
"""hostile_http.py: a hostile HTTP server for ying's clients (issue 22).

    python3 hostile_http.py DIR

Listens on 127.0.0.1 (a free port, written to DIR/port once listening) and
answers every request by its path (the query is ignored); the request line
of each is appended to DIR/requests.log.  After each answer ends (finished,
or the client closed the connection), DIR/sent.log gets "PATH BYTES" with
the body bytes written.

  /redirect   302 whose Location carries terminal escapes (ESC ] 0 ; ...
              BEL, ESC [ 2 J, ESC [ 31 m)
  /status     a status line and an error body with terminal escapes
  /endless    200 with no Content-Length, a body of zeros until the client
              goes (Connection: close)
  /chunked    the same, Transfer-Encoding: chunked
  /biglen     200 claiming Content-Length: 100 GiB, then zeros as /endless
  anything else (a POST from the uploader, say) as /endless, after reading
              the request body
"""
import os
import socket
import sys
import threading

ESC = b"\x1b"
EVIL = ESC + b"]0;owned" + b"\x07" + ESC + b"[2J" + ESC + b"[31m"
BLOCK = b"\0" * 65536


def read_request(f):
    line = f.readline(65536)
    if not line:
        return None, None, {}
    hdrs = {}
    while True:
        h = f.readline(65536)
        if h in (b"\r\n", b"\n", b""):
            break
        k, _, v = h.decode("latin-1").partition(":")
        hdrs[k.strip().lower()] = v.strip()
    parts = line.decode("latin-1").split()
    return line, parts[1] if len(parts) > 1 else "/", hdrs


def serve(conn, d):
    sent = 0
    path = "?"
    try:
        f = conn.makefile("rb")
        line, path, hdrs = read_request(f)
        if line is None:
            return
        with open(os.path.join(d, "requests.log"), "ab") as log:
            log.write(line)
        n = int(hdrs.get("content-length", "0") or 0)
        while n > 0:
            got = f.read(min(n, 65536))
            if not got:
                break
            n -= len(got)
        path = path.split("?")[0]
        if path == "/redirect":
            conn.sendall(b"HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1/" + EVIL +
                         b"x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        if path == "/status":
            body = b"boom " + EVIL + b" here\n"
            conn.sendall(b"HTTP/1.1 500 Bad " + EVIL + b"\r\nContent-Type: text/" + EVIL +
                         b"\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) +
                         body)
            return
        chunked = path == "/chunked"
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
        if chunked:
            head += b"Transfer-Encoding: chunked\r\n"
        elif path == "/biglen":
            head += b"Content-Length: %d\r\n" % (100 << 30)
        conn.sendall(head + b"Connection: close\r\n\r\n")
        piece = (b"%x\r\n" % len(BLOCK) + BLOCK + b"\r\n") if chunked else BLOCK
        while True:
            conn.sendall(piece)
            sent += len(BLOCK)
    except OSError:
        pass
    finally:
        try:
            conn.close()
        except OSError:
            pass
        with open(os.path.join(d, "sent.log"), "a") as log:
            log.write("%s %d\n" % (path, sent))


def main():
    d = sys.argv[1]
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    with open(os.path.join(d, "port.tmp"), "w") as f:
        f.write("%d\n" % s.getsockname()[1])
    os.rename(os.path.join(d, "port.tmp"), os.path.join(d, "port"))
    while True:
        conn, _ = s.accept()
        threading.Thread(target=serve, args=(conn, d), daemon=True).start()


if __name__ == "__main__":
    main()
