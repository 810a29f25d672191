#!/bin/sh
# http_load.sh: the HTTP endpoint of a real service under 64 connections of
# load and misuse (issue 13, standing proof).
#
#   bench/http_load.sh [BUILD_DIR [SECONDS]]     (default: build, 60)
#   env: OUT (default bench/out), REQUESTS per redis-benchmark run (200000)
#
# redis-server runs under `ying run --http 127.0.0.1:0 --token T`.  First
# three redis-benchmark runs without load (the same arguments as
# bench/agent_cost.sh: -c 50 -P 16 -r 1000000 -d 256 -t set,get,lpush,lpop);
# then tests/integration/http_load64.py keeps 64 connections on every
# endpoint for SECONDS (slow clients, huge URL/headers/bodies, wrong tokens,
# foreign Host, cross-origin POSTs among them) while redis-benchmark runs
# back to back.  Results (OUT/http_load.results): the throughput ratio
# loaded/unloaded (medians of the runs, geometric mean over the four
# tests), the load client's summary (answers per second, longest gap,
# unexpected answers), redis' RSS and descriptors sampled every second, and
# whether redis and the endpoint are alive at the end.  redis' own data
# grows with every redis-benchmark run (-r 1000000 keys, lists), so its RSS
# rises with or without ying.  Exits 1 when an
# invariant fails (the same ones tests/integration/http_load64.sh asserts).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
SECONDS_LOAD=${2:-60}
REQUESTS=${REQUESTS:-200000}
OUT=${OUT:-$ROOT/bench/out}
BENCH=http_load
YING="$BUILD/ying"
for t in redis-server redis-benchmark redis-cli curl python3; do
	command -v "$t" >/dev/null || { echo "http_load: $t is missing" >&2; exit 1; }
done
[ -x "$YING" ] || { echo "http_load: $YING not built" >&2; exit 1; }
mkdir -p "$OUT"
. "$ROOT/bench/lib.sh"
W=$(mktemp -d "${TMPDIR:-/tmp}/ying-http-load.XXXXXX")
server=""
cleanup() {
	[ -n "$server" ] && kill -9 "$server" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT
RES="$OUT/http_load.results"

redis_start ying "$YING" run --http 127.0.0.1:0 --token s3cret --report-dir "$W/reports" --
i=0
until grep -q 'HTTP on http' "$W/ying.log"; do
	i=$((i + 1))
	[ $i -lt 300 ] || { echo "http_load: no endpoint" >&2; cat "$W/ying.log" >&2; exit 1; }
	sleep 0.1
done
hp=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$W/ying.log" | head -n 1)
auth="Authorization: Bearer s3cret"
for u in /debug/pprof/heap /debug/pprof/heap /pprof/symbol; do
	curl -s -m 60 -H "$auth" -o /dev/null "http://127.0.0.1:$hp$u"
done

# bench: one redis-benchmark run; prints the geometric mean of its tests' rps
bench() {
	redis_bench "$REQUESTS" "$W/bench.csv"
	geomean "$W/bench.csv"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

: >"$W/idle"
for r in 1 2 3; do bench >>"$W/idle"; done
fd0=$(ls "/proc/$rpid/fd" | wc -l)
rss0=$(awk '/^VmRSS:/ { print $2 }' "/proc/$rpid/status")

python3 "$ROOT/tests/integration/http_load64.py" --url "http://127.0.0.1:$hp" \
    --pid "$rpid" --seconds "$SECONDS_LOAD" --token s3cret --out "$W/load" &
lp=$!
: >"$W/loaded"
sleep 2
end=$(($(date +%s) + SECONDS_LOAD - 4))
while [ "$(date +%s)" -lt "$end" ]; do bench >>"$W/loaded"; done
wait "$lp"

alive_redis=$(redis-cli -p "$port" ping 2>/dev/null || echo dead)
alive_http=$(curl -s -m 30 -H "$auth" -o /dev/null -w '%{http_code}' "http://127.0.0.1:$hp/debug/prof")
sleep 3
fd1=$(ls "/proc/$rpid/fd" | wc -l)
idle=$(median <"$W/idle")
loaded=$(median <"$W/loaded")
v() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" "$W/load" | head -n 1; }
{
	echo "# bench/http_load.sh $SECONDS_LOAD s, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'))"
	echo "redis_rps_idle_runs $(tr '\n' ' ' <"$W/idle")"
	echo "redis_rps_loaded_runs $(tr '\n' ' ' <"$W/loaded")"
	echo "redis_rps_idle_median $idle"
	echo "redis_rps_loaded_median $loaded"
	echo "ratio_loaded_idle $(awk -v a="$loaded" -v b="$idle" 'BEGIN { printf "%.3f", a / b }')"
	echo "redis_rss_kb_before_load $rss0"
	echo "redis_fds_before_load $fd0 after_load_plus_3s $fd1"
	echo "alive_redis $alive_redis alive_http $alive_http"
	cat "$W/load"
} >"$RES"
cat "$RES"
fail=0
[ "$alive_redis" = PONG ] || { echo "http_load: redis is not alive" >&2; fail=1; }
[ "$alive_http" = 200 ] || { echo "http_load: the endpoint does not answer ($alive_http)" >&2; fail=1; }
[ "$(v longest_gap_s)" -le 3 ] || { echo "http_load: answers stopped for $(v longest_gap_s) s" >&2; fail=1; }
[ "$(v unexpected)" = 0 ] || { echo "http_load: unexpected answers" >&2; fail=1; }
[ "$(v endpoints_missing)" = none ] || { echo "http_load: endpoints never answered" >&2; fail=1; }
[ "$(v threads_stuck)" = 0 ] || { echo "http_load: client threads hung" >&2; fail=1; }
# 64 + 16 endpoint connections, redis-benchmark's 50 clients, 16 to spare
[ "$(v fds_max)" -le $((fd0 + 64 + 16 + 50 + 16)) ] || { echo "http_load: descriptors grew" >&2; fail=1; }
[ "$fd1" -le $((fd0 + 2)) ] || { echo "http_load: descriptors not back ($fd1 > $fd0)" >&2; fail=1; }
[ "$(v rss_kb_max)" -le $((rss0 + 300 * 1024)) ] || { echo "http_load: RSS grew" >&2; fail=1; }
redis_stop
exit $fail
