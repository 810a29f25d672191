#!/bin/bash
# recent_stall.sh [BUILD [LG [N]]]: what GET /debug/heap/recent costs a
# real service (issue 22).  redis-server (Debian's, links jemalloc 5.3)
# runs under `BUILD/ying run --http 127.0.0.1:0 --sample LG` (LG default
# 12), twice: once after POST /debug/heap/recent?max=-1, once after
# ?max=10000.  Each time redis-benchmark sends N SETs (default 100000) of
# 1000 bytes over 1000 keys (so redis' own data stays small and what grows
# is jemalloc's record), then GET /debug/heap/recent runs while a client
# PINGs redis every millisecond and redis-benchmark sends SETs.  Printed
# per case: the POST's status, redis' RSS before and after the SETs, the
# records in the capture, the GET's time, the longest PING and the SET/s
# while the GET ran.  redis' serverCron calls mallctl("epoch") every
# 100 ms, which waits for jemalloc's prof_recent_dump mutex: the longest
# PING is how long redis stood still.  Uses only 127.0.0.1 and a mktemp
# directory.
set -u
B=$(cd "${1:-build}" && pwd)
LG=${2:-12}
N=${3:-100000}
T=$(mktemp -d /tmp/ying-recent-stall.XXXXXX)
trap 'kill $(cat "$T"/pids 2>/dev/null) 2>/dev/null; rm -rf "$T"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
rss() { awk '/^VmRSS:/{print $2}' "/proc/$1/status"; }

cat >"$T/probe.py" <<'PY'
import socket, sys, time
port, stop = int(sys.argv[1]), sys.argv[2]
s = socket.create_connection(("127.0.0.1", port))
worst, n = 0.0, 0
import os
open(stop + ".ready", "w").close()
while not os.path.exists(stop):
    t0 = time.monotonic()
    s.sendall(b"PING\r\n")
    buf = b""
    while not buf.endswith(b"\r\n"):
        buf += s.recv(64)
    worst = max(worst, time.monotonic() - t0)
    n += 1
    time.sleep(0.001)
print("pings=%d longest_ping_ms=%.0f" % (n, worst * 1e3))
PY

run_case() {
	local max=$1 port hp p rpid code r0 r1 t0 t1 recs
	port=$(free_port)
	mkdir -p "$T/redis.$max"
	"$B/ying" run --http 127.0.0.1:0 --sample "$LG" -- redis-server --bind 127.0.0.1 \
	    --port "$port" --save '' --appendonly no --dir "$T/redis.$max" --daemonize no \
	    >"$T/out.$max" 2>"$T/err.$max" &
	p=$!
	echo "$p" >>"$T/pids"
	for _ in $(seq 100); do
		grep -q 'HTTP on' "$T/err.$max" && redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break
		sleep 0.1
	done
	hp=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/err.$max" | head -n 1)
	rpid=$(redis-cli -p "$port" info server | tr -d '\r' | sed -n 's/^process_id://p')
	code=$(curl -s -o "$T/post" -w '%{http_code}' -X POST "http://127.0.0.1:$hp/debug/heap/recent?max=$max")
	r0=$(rss "$rpid")
	redis-benchmark -q -p "$port" -t set -n "$N" -d 1000 -r 1000 >/dev/null 2>&1
	r1=$(rss "$rpid")
	rm -f "$T/stop"
	python3 "$T/probe.py" "$port" "$T/stop" >"$T/probe.$max" &
	local pp=$!
	for _ in $(seq 100); do [ -e "$T/stop.ready" ] && break; sleep 0.1; done
	rm -f "$T/stop.ready"
	redis-benchmark -q -p "$port" -t set -n 1000000 -d 1000 -r 1000 >"$T/bench.$max" 2>&1 &
	local bp=$!
	sleep 0.5
	t0=$(date +%s.%N)
	curl -s -m 120 -o "$T/rec.$max" "http://127.0.0.1:$hp/debug/heap/recent"
	t1=$(date +%s.%N)
	sleep 0.3
	touch "$T/stop"
	wait "$pp"
	# SET/s while the GET ran: redis-benchmark's running average when stopped
	kill "$bp" 2>/dev/null
	wait "$bp" 2>/dev/null
	recs=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["jemalloc"]["recent_alloc"]))' "$T/rec.$max" 2>/dev/null || echo "none ($(head -c 120 "$T/rec.$max"))")
	printf 'max=%s: POST %s; rss %s -> %s kB after %s SETs; capture %s records, %s bytes; GET %.2f s; %s; SET/s during: %s\n' \
	    "$max" "$code" "$r0" "$r1" "$N" "$recs" "$(stat -c %s "$T/rec.$max")" \
	    "$(echo "$t1 - $t0" | bc)" "$(cat "$T/probe.$max")" \
	    "$(tr '\r' '\n' <"$T/bench.$max" | grep 'rps=' | tail -n 1 | sed 's/.*rps=[0-9.]* (overall: \([0-9.]*\)) avg_msec=[0-9.]* (overall: \([0-9.]*\)).*/\1 SET\/s, mean \2 ms/')"
	redis-cli -p "$port" shutdown nosave >/dev/null 2>&1
	wait "$p" 2>/dev/null
}
echo "# $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $B, lg $LG"
run_case -1
run_case 10000
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
