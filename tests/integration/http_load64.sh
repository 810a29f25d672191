#!/bin/sh
# http_load64.sh: the HTTP endpoint of a real service under load and misuse
# (issue 13, standing proof; the short variant of bench/http_load.sh).
#
# redis-server runs under `ying run --http 127.0.0.1:0 --token T` while
# redis-benchmark runs; tests/integration/http_load64.py keeps 64
# connections busy for LOAD_SECONDS (default 15) against every endpoint of
# the index page, with slow clients (a byte a second), a huge URL, huge
# headers, huge bodies, wrong tokens, a foreign Host and cross-origin POSTs.
# Asserted: redis and the endpoint are alive at the end, answers kept
# coming (no second without a 2xx for more than 3 s), every endpoint was
# answered 2xx, every misuse got its refusal (nothing unexpected), the
# sample rate was not changed by the cross-origin POSTs, redis-benchmark
# completed, RSS and descriptors stayed bounded and the descriptors came
# back once the load stopped.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need redis-server redis-benchmark redis-cli curl python3
LOAD_SECONDS=${LOAD_SECONDS:-15}

# --giant and --recent-max: /debug/heap/giant and /debug/heap/recent answer
# 2xx too (without them the first is 404, the second keeps no records).
# --interval 2: the growth runner checks the heap every 2 s during the load,
# so its dumps race the endpoint's, /debug/heap/leaks has a history to
# answer from, and /debug/memory reads smaps while redis and the runner
# change their mappings (a torn read once gave it a 500).
redis_under_ying_http --token s3cret --giant 1G --recent-max 64 --interval 2
rpid=$(redis-cli -p "$port" info server | tr -d '\r' | sed -n 's/^process_id://p')
auth="Authorization: Bearer s3cret"
lg0=$(curl -s -m 10 -H "$auth" "http://127.0.0.1:$hp/debug/prof" | sed -n 's/.*"lg_sample":\([0-9]*\).*/\1/p')
# The symbolizer keeps the modules it opened (and their descriptors): warm
# it before taking the baseline.
for u in /debug/pprof/heap /debug/pprof/heap /pprof/symbol /debug/heap/flamegraph; do
	curl -s -m 60 -H "$auth" -o /dev/null "http://127.0.0.1:$hp$u"
done
sleep 0.5
fd0=$(ls "/proc/$rpid/fd" | wc -l)

# redis-benchmark for the whole load
(
	end=$(($(date +%s) + LOAD_SECONDS))
	while [ "$(date +%s)" -lt "$end" ]; do
		timeout 120 redis-benchmark -q -p "$port" -n 20000 -c 20 -t set,get,lpush \
		    >>"$T/bench" 2>&1 || { echo "redis-benchmark failed: $?" >>"$T/bench.fail"; break; }
	done
) &
b=$!
bg_pids="$bg_pids $b"

timeout $((LOAD_SECONDS + 120)) python3 "$YING_SRCDIR/tests/integration/http_load64.py" \
    --url "http://127.0.0.1:$hp" --pid "$rpid" --seconds "$LOAD_SECONDS" \
    --token s3cret --out "$T/load" 2>"$T/load.err"
ok $? "the load client ran for $LOAD_SECONDS s" || diag "$T/load.err"
sed 's/^/# /' "$T/load"
v() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" "$T/load" | head -n 1; }
wait "$b"
[ ! -e "$T/bench.fail" ] && grep -q 'requests per second' "$T/bench"
ok $? "redis-benchmark completed every run during the load" || diag "$T/bench"

is "$(v threads_stuck)" 0 "no client thread hung"
check_le() { [ "$1" -le "$2" ]; ok $? "$3 ($1 <= $2)"; }
check_le "$(v longest_gap_s)" 3 "answers kept coming: longest run of seconds without a 2xx"
is "$(v endpoints_missing)" none "every endpoint of the index was answered 2xx"
is "$(v unexpected)" 0 "no unexpected answer (a misuse answered 503 when every slot was busy)" || grep '^note' "$T/load" | head -5 | sed 's/^/# /'
is "$(v misuse_unrefused)" none "every kind of misuse got its own refusal at least once"
for k in wrong_token foreign_host foreign_origin huge_url huge_headers huge_body chunked_body slow; do
	grep -q "^kind bad_$k " "$T/load"
	ok $? "misuse $k was tried"
done
check_le "$(v rss_kb_max)" $(( $(v rss_kb_first) + 300 * 1024 )) "redis RSS stayed bounded (kB; snapshots may pin 256 MiB)"
# each connection is two descriptors (its socket and the epoll descriptor of
# the libmicrohttpd daemon serving it alone), up to 64 + CONN_SLACK (32) of them
check_le "$(v fds_max)" $((fd0 + 2 * (64 + 32) + 16)) "redis descriptors stayed bounded"

# alive, answering, unchanged
is "$(timeout 5 redis-cli -p "$port" ping)" PONG "redis is alive"
code=$(curl -s -m 30 -H "$auth" -o "$T/prof" -w '%{http_code}' "http://127.0.0.1:$hp/debug/prof")
is "$code" 200 "the endpoint answers after the load"
grep -q "\"lg_sample\":$lg0," "$T/prof"
ok $? "the sample rate is still $lg0 (cross-origin POSTs changed nothing)" || diag "$T/prof"
fd_now() { ls "/proc/$rpid/fd" | wc -l; }
wait_for 40 sh -c "[ \$(ls /proc/$rpid/fd | wc -l) -le $((fd0 + 2)) ]"
ok $? "descriptors back to the warm baseline $fd0 once the load stopped (now $(fd_now))"
kill -TERM "$p"
wait "$p"
is "$?" 0 "redis shuts down cleanly under ying run"
plan_done
