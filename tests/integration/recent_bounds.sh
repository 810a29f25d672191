#!/bin/bash
# recent_bounds.sh: the recent-allocation record cannot harm its host
# (issue 22, item 3).
#
# redis-server runs under `ying run --http 127.0.0.1:0 --sample 10
# --recent-max 10000`.  POST /debug/heap/recent?max=10001, ?max=10000000,
# an overflowing max and ?max=-1 (jemalloc's "unlimited") are 400s
# naming the range 0..10000, and change nothing: after 400000 pipelined
# SETs over 1000 keys (redis' own data stays small; at one sample per KiB
# the record would take ~300000 entries) redis' RSS has grown by less than
# 16 MiB, and the capture holds at most 10000 records.  While
# GET /debug/heap/recent runs, a client PINGs redis every millisecond: the
# longest PING stays under 1 s (redis' serverCron calls mallctl("epoch"),
# which waits for the mutex jemalloc holds during the whole dump: with an
# unbounded record it waited 8 s here).  The edge max=10000 is accepted.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need redis-server redis-benchmark redis-cli curl python3

# (--floor 1G: no growth report, whose heap dump would hold jemalloc's
# prof_dump mutex, which mallctl("epoch") waits for too, during this test)
redis_under_ying_http --sample 10 --recent-max 10000 --floor 1G
B="http://127.0.0.1:$hp"
rpid=$(timeout 10 redis-cli -p "$port" info server | tr -d '\r' | sed -n 's/^process_id://p')
rss() { awk '/^VmRSS:/{print $2}' "/proc/$rpid/status"; }

# -1 last: were it accepted, the record would be unbounded from here on
for bad in 10001 10000000 99999999999999999999 -1; do
	code=$(curl -s -m 30 -o "$T/b" -w '%{http_code}' -X POST "$B/debug/heap/recent?max=$bad")
	is "$code" 400 "POST /debug/heap/recent?max=$bad is 400"
	grep -q "max=$bad.*0\.\.10000" "$T/b"
	ok $? "... naming the parameter and the range 0..10000" || diag "$T/b"
done

r0=$(rss)
timeout 120 redis-benchmark -q -p "$port" -t set -n 400000 -P 16 -d 1000 -r 1000 >"$T/bench" 2>&1
ok $? "400000 pipelined SETs of 1000 bytes over 1000 keys" || diag "$T/bench"
r1=$(rss)
[ $((r1 - r0)) -lt 16384 ]
ok $? "redis' RSS grew by less than 16 MiB ($r0 -> $r1 kB): the record stayed bounded"

cat >"$T/probe.py" <<'PY'
import os, socket, sys, time
port, stop = int(sys.argv[1]), sys.argv[2]
s = socket.create_connection(("127.0.0.1", port))
s.settimeout(60)
open(stop + ".ready", "w").close()
worst, n = 0.0, 0
while not os.path.exists(stop):
    t0 = time.monotonic()
    s.sendall(b"PING\r\n")
    buf = b""
    while not buf.endswith(b"\r\n"):
        buf += s.recv(64)
    worst = max(worst, time.monotonic() - t0)
    n += 1
    time.sleep(0.001)
print("%d %d" % (n, worst * 1e3))
PY
python3 "$T/probe.py" "$port" "$T/stop" >"$T/probe" 2>"$T/probe.err" &
pp=$!
bg_pids="$bg_pids $pp"
wait_for 30 test -e "$T/stop.ready"
code=$(curl -s -m 60 -o "$T/rec.json" -w '%{http_code} %{time_total}' "$B/debug/heap/recent")
sleep 0.3
touch "$T/stop"
wait "$pp"
is "${code% *}" 200 "GET /debug/heap/recent while a client PINGs redis (${code#* } s)"
n=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["jemalloc"]["recent_alloc"]))' "$T/rec.json" 2>&1)
[ "$n" -ge 5000 ] 2>/dev/null && [ "$n" -le 10000 ]
ok $? "the capture holds a full record: 5000 to 10000 entries ($n)"
read -r pings worst <"$T/probe"
[ "${pings:-0}" -gt 0 ] && [ "${worst:-99999}" -lt 1000 ]
ok $? "redis never stood still for 1 s during the dump (longest PING ${worst:-?} ms of ${pings:-0})" ||
    diag "$T/probe.err"

code=$(curl -s -m 30 -o "$T/b" -w '%{http_code}' -X POST "$B/debug/heap/recent?max=10000")
is "$code" 200 "POST ?max=10000 (the upper edge) is 200"
is "$(cat "$T/b")" '{"recent_alloc_max":10000,"previous":10000}' "... and the refused POSTs changed nothing"
is "$(timeout 10 redis-cli -p "$port" ping)" PONG "redis still answers"
plan_done
