#!/usr/bin/env python3
"""http_clients.py: many clients asking a ying HTTP endpoint for the heap.

    http_clients.py clients --url http://127.0.0.1:PORT --pid PID
                    [--clients 64] [--seconds S] [--paths P,P,...] [--impolite] [--token T]
    http_clients.py stall --url http://127.0.0.1:PORT --pid PID
                    [--readers 60] [--seconds S] [--path P] [--interval I] [--token T]

Standard library only.  `clients`: --clients threads, each sending GET
requests (one fresh connection per request, as scrapers do) in turn to the
--paths (default the dump endpoints) for --seconds; a 429 or 503 is an
answer, and the client waits its Retry-After (at most 2 s) as a polite one
does (--impolite: asks again at once).  A request whose connection was closed or reset before a status line
came is "closed": never acceptable.  `stall`: --readers sockets each send
one GET of --path (one every --interval seconds), read the status line
and nothing more (after a 429 or 503 they wait Retry-After and ask again);
the server process's RSS (/proc/PID) is sampled every 0.25 s for --seconds.

Prints key=value lines: for clients, requests, answered, closed, per status
counts, seconds, the server's CPU over the run (utime+stime / wall, in
cores); for stall, rss_kb_before, rss_kb_max, rss_kb_growth, how many
readers hold a 200 answer, and the statuses they were answered.
"""
import argparse
import os
import re
import socket
import sys
import threading
import time
import urllib.parse

DUMPS = ["/debug/heap", "/debug/pprof/heap", "/pprof/heap", "/debug/heap?format=text",
         "/debug/heap/flamegraph"]


def cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])      # utime, stime


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def request_bytes(host, port, path, token, close=True):
    h = "GET %s HTTP/1.1\r\nHost: %s:%d\r\n" % (path, host, port)
    if token:
        h += "Authorization: Bearer %s\r\n" % token
    if close:
        h += "Connection: close\r\n"
    return (h + "\r\n").encode()


def one(host, port, path, token, timeout=60):
    """(status or 'closed', retry_after, body bytes)."""
    s = socket.create_connection((host, port), timeout=timeout)
    try:
        s.sendall(request_bytes(host, port, path, token))
        buf = b""
        while True:
            chunk = s.recv(1 << 16)
            if not chunk:
                break
            buf += chunk
    except (ConnectionResetError, BrokenPipeError):
        return "closed", 0, 0
    except socket.timeout:
        return "timeout", 0, 0
    finally:
        s.close()
    m = re.match(rb"HTTP/1\.[01] (\d{3})", buf)
    if not m:
        return "closed", 0, 0
    ra = re.search(rb"\r\nRetry-After: *(\d+)", buf.split(b"\r\n\r\n", 1)[0], re.I)
    head, _, body = buf.partition(b"\r\n\r\n")
    return int(m.group(1)), int(ra.group(1)) if ra else 0, len(body)


def clients(args, host, port):
    paths = args.paths.split(",") if args.paths else DUMPS
    stop = threading.Event()
    lock = threading.Lock()
    counts = {}

    def client(k):
        i = k
        while not stop.is_set():
            path = paths[i % len(paths)]
            i += 1
            try:
                st, ra, _ = one(host, port, path, args.token)
            except OSError:
                st, ra = "closed", 0
            with lock:
                counts[st] = counts.get(st, 0) + 1
            if st in (429, 503) and not args.impolite:
                stop.wait(min(max(ra, 0.2), 2.0))

    c0, t0 = cpu_ticks(args.pid), time.monotonic()
    ts = [threading.Thread(target=client, args=(k,), daemon=True) for k in range(args.clients)]
    for t in ts:
        t.start()
    time.sleep(args.seconds)
    stop.set()
    for t in ts:
        t.join(timeout=90)
    t1, c1 = time.monotonic(), cpu_ticks(args.pid)
    n = sum(counts.values())
    closed = counts.get("closed", 0) + counts.get("timeout", 0)
    print("clients=%d seconds=%.1f threads_stuck=%d" % (args.clients, t1 - t0,
          sum(t.is_alive() for t in ts)))
    print("requests=%d answered=%d closed=%d closed_pct=%.2f" % (
        n, n - closed, closed, 100.0 * closed / n if n else 0))
    print("ok_2xx=%d status_429=%d status_503=%d other=%d" % (
        sum(v for s, v in counts.items() if isinstance(s, int) and 200 <= s < 300),
        counts.get(429, 0), counts.get(503, 0),
        sum(v for s, v in counts.items() if isinstance(s, int) and not (200 <= s < 300)
            and s not in (429, 503))))
    print("server_cpu_cores=%.3f" % ((c1 - c0) / os.sysconf("SC_CLK_TCK") / (t1 - t0)))
    for s, v in sorted(counts.items(), key=lambda kv: str(kv[0])):
        print("status %s %d" % (s, v))


def stall(args, host, port):
    """Readers that read the status line of their answer and nothing more;
    a 429 or 503 makes one wait its Retry-After (at most 1 s) and ask again,
    until it holds a 200 or --seconds are over."""
    before = rss_kb(args.pid)
    lock = threading.Lock()
    held, counts = [], {}
    stop = threading.Event()

    def reader(k):
        stop.wait(k * args.interval)
        while not stop.is_set():
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)   # before connect: a small window
            s.settimeout(30)
            try:
                s.connect((host, port))
                s.sendall(request_bytes(host, port, args.path, args.token, close=False))
                head = s.recv(64)
                m = re.match(rb"HTTP/1\.[01] (\d{3})", head)
                st = int(m.group(1)) if m else "closed"
            except socket.timeout:
                st = "timeout"
            except OSError:
                st = "closed"
            ra = re.search(rb"Retry-After: *(\d+)", head) if isinstance(st, int) else None
            with lock:
                counts[st] = counts.get(st, 0) + 1
                if st == 200:
                    held.append(s)
                    return
            s.close()
            if st not in (429, 503):
                return
            stop.wait(min(int(ra.group(1)) if ra else 1, 1))

    ts = [threading.Thread(target=reader, args=(k,), daemon=True) for k in range(args.readers)]
    for t in ts:
        t.start()
    peak = before
    t0 = time.monotonic()
    end = t0 + args.seconds
    while time.monotonic() < end:
        peak = max(peak, rss_kb(args.pid))
        time.sleep(0.25)
    stop.set()
    for t in ts:
        t.join(timeout=40)
    peak = max(peak, rss_kb(args.pid))
    print("readers=%d seconds=%.1f holding_200=%d" % (args.readers, time.monotonic() - t0, len(held)))
    print("rss_kb_before=%d rss_kb_max=%d rss_kb_growth=%d" % (before, peak, peak - before))
    print("answers_200=%d answers_429=%d answers_503=%d other=%d" % (
        counts.get(200, 0), counts.get(429, 0), counts.get(503, 0),
        sum(v for s, v in counts.items() if s not in (200, 429, 503))))
    for s in held:
        s.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("clients", "stall"))
    ap.add_argument("--url", required=True)
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--token", default=None)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--clients", type=int, default=64)
    ap.add_argument("--paths", default=None)
    ap.add_argument("--readers", type=int, default=60)
    ap.add_argument("--path", default="/debug/heap")
    ap.add_argument("--interval", type=float, default=0.1)
    ap.add_argument("--impolite", action="store_true",
                    help="clients: ask again at once after a 429 or 503")
    args = ap.parse_args()
    u = urllib.parse.urlsplit(args.url)
    (clients if args.mode == "clients" else stall)(args, u.hostname, u.port)


if __name__ == "__main__":
    main()
