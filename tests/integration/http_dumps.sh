#!/bin/bash
# http_dumps.sh: many clients asking for the heap cannot harm the host
# (issue 22; the long measurement is bench/http_clients.sh).
#
# 1. redis-server under `ying run --http` with redis-benchmark running; 64
#    clients (tests/integration/http_clients.py, a fresh connection per
#    request, asking again at once after a 429 or 503) on the dump
#    endpoints for CLIENT_SECONDS (5): no request is left without an answer
#    (before: 2.5 % of them had their connection closed), dumps were shared
#    (/debug/prof counts coalesced answers), the per-address rate limit
#    answered 429 with Retry-After, redis is alive.
# 2. tests/programs/http_stacks (20000 stacks: a ~7 MB dump) under
#    `ying run --sample 0`; 60 readers that read the status line of
#    /debug/heap and nothing more (after a 429/503 they ask again): every one
#    holds a 200 answer and the host's RSS grew by at most 4 dumps (before:
#    one copy per reader that got an answer).
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need redis-server redis-benchmark redis-cli curl python3
CLIENT_SECONDS=${CLIENT_SECONDS:-5}
CLIENTS="$YING_SRCDIR/tests/integration/http_clients.py"
STACKS_PROG=${STACKS_PROG:-$PROGS/http_stacks}
v() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" "$2" | head -n 1; }
check_le() { [ "$1" -le "$2" ]; ok $? "$3 ($1 <= $2)"; }

# ---- 1. 64 clients on redis under load -------------------------------------------
redis_under_ying_http --token s3cret
rpid=$(redis-cli -p "$port" info server | tr -d '\r' | sed -n 's/^process_id://p')
(
	end=$(($(date +%s) + CLIENT_SECONDS))
	while [ "$(date +%s)" -lt "$end" ]; do
		timeout 60 redis-benchmark -q -p "$port" -n 20000 -c 20 -t set >>"$T/bench" 2>&1 || break
	done
) &
b=$!
bg_pids="$bg_pids $b"
timeout $((CLIENT_SECONDS + 100)) python3 "$CLIENTS" clients --url "http://127.0.0.1:$hp" \
    --pid "$rpid" --token s3cret --clients 64 --seconds "$CLIENT_SECONDS" --impolite \
    >"$T/clients" 2>"$T/clients.err"
ok $? "64 clients asked for dumps for $CLIENT_SECONDS s" || diag "$T/clients.err"
sed 's/^/# /' "$T/clients"
wait "$b"
is "$(v threads_stuck "$T/clients")" 0 "no client hung"
is "$(v closed "$T/clients")" 0 "no request left without an answer (closed or reset: $(v closed_pct "$T/clients") %)"
[ "$(v ok_2xx "$T/clients")" -gt 0 ]
ok $? "dumps were served ($(v ok_2xx "$T/clients") 2xx)"
[ "$(v status_429 "$T/clients")" -gt 0 ]
ok $? "the per-address rate limit answered 429 ($(v status_429 "$T/clients"))"
curl -s -m 30 -D "$T/h429" -o /dev/null -H "Authorization: Bearer s3cret" \
    "http://127.0.0.1:$hp/pprof/heap"
if grep -q '^HTTP/1.1 429' "$T/h429"; then
	grep -qi '^Retry-After: [1-9]' "$T/h429"
	ok $? "a 429 carries Retry-After" || diag "$T/h429"
else
	# the bucket refilled meanwhile: empty it with one quick burst
	python3 - "$hp" >"$T/burst" <<'PY'
import socket, sys
port = int(sys.argv[1])
for _ in range(100):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.sendall(b"GET /pprof/heap HTTP/1.1\r\nHost: 127.0.0.1\r\n"
              b"Authorization: Bearer s3cret\r\nConnection: close\r\n\r\n")
    buf = b""
    while True:
        c = s.recv(65536)
        if not c:
            break
        buf += c
    s.close()
    head = buf.split(b"\r\n\r\n", 1)[0].decode("latin-1")
    if head.startswith("HTTP/1.1 429"):
        print(head)
        break
PY
	grep -qi '^Retry-After: [1-9]' "$T/burst"
	ok $? "a 429 carries Retry-After" || diag "$T/burst"
fi
curl -s -m 30 -H "Authorization: Bearer s3cret" -o "$T/prof" "http://127.0.0.1:$hp/debug/prof"
coal=$(sed -n 's/.*"coalesced":\([0-9]*\).*/\1/p' "$T/prof")
[ "${coal:-0}" -gt 0 ]
ok $? "concurrent requests shared dumps (coalesced: ${coal:-none})" || diag "$T/prof"
grep -q 'requests per second' "$T/bench"
ok $? "redis-benchmark ran during the load" || diag "$T/bench"
is "$(timeout 5 redis-cli -p "$port" ping)" PONG "redis is alive"
kill -TERM "$p"
wait "$p"
is "$?" 0 "redis shuts down cleanly under ying run"

# ---- 2. 60 readers that never read ----------------------------------------------
"$YING" run --http 127.0.0.1:0 --sample 0 --report-dir "$T/reports2" -- \
    "$STACKS_PROG" 20000 >"$T/stacks.out" 2>"$T/stacks.err" &
sp=$!
bg_pids="$bg_pids $sp"
wait_for 60 grep -q '^ready' "$T/stacks.out"
ok $? "http_stacks made its stacks" || diag "$T/stacks.err"
shp=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/stacks.err" | head -n 1)
spid=$(pgrep -P "$sp" | head -n 1)
dump=$(curl -s --retry 3 -m 60 "http://127.0.0.1:$shp/debug/heap" | wc -c)
[ "$dump" -gt $((4 * 1024 * 1024)) ]
ok $? "the dump is big ($dump bytes)"
timeout 100 python3 "$CLIENTS" stall --url "http://127.0.0.1:$shp" --pid "$spid" \
    --readers 60 --interval 0.01 --seconds 6 >"$T/stall" 2>"$T/stall.err"
ok $? "60 readers that never read held their answers for 6 s" || diag "$T/stall.err"
sed 's/^/# /' "$T/stall"
is "$(v holding_200 "$T/stall")" 60 "every reader was answered 200"
check_le "$(v rss_kb_growth "$T/stall")" $((4 * dump / 1024)) \
    "the host's RSS grew by at most 4 dumps for 60 readers (kB)"
code=$(curl -s -m 30 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$shp/debug/prof")
is "$code" 200 "the endpoint answers once the readers are gone"
kill -TERM "$sp"
wait "$sp"
is "$?" 0 "http_stacks shuts down cleanly under ying run"
plan_done
