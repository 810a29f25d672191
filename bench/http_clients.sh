#!/bin/sh
# http_clients.sh: what 64 clients asking for the heap at once, and 60
# readers that never read, cost the host (issue 22; the short assertions are
# tests/integration/http_dumps.sh).
#
#   bench/http_clients.sh [BUILD_DIR [SECONDS]]     (default: build, 30)
#   env: OUT (default bench/out), REQUESTS per redis-benchmark run (200000),
#        STACKS (40000), STACKS_PROG (default build/tests/programs/http_stacks
#        of this checkout: the program does not depend on ying, so a build of
#        older code can be measured with it)
#
# 1. redis-server under `ying run --http 127.0.0.1:0`; three
#    redis-benchmark SET runs (-n REQUESTS -c 50 -P 16 -r 1000000 -d 256)
#    without clients; then tests/integration/http_clients.py keeps 64 clients
#    on the dump endpoints (/debug/heap, /debug/pprof/heap, /pprof/heap,
#    text, flame graph; a fresh connection per request; polite: they wait
#    Retry-After) for SECONDS while redis-benchmark runs back to back.
#    Then the same clients for SECONDS without redis-benchmark: redis' CPU
#    (utime+stime / wall) is then the endpoint's cost alone.  Recorded: SET/s
#    without and with the clients (medians) and their ratio, redis' CPU,
#    requests answered 2xx / 429 / 503 and closed without an answer.
# 2. tests/programs/http_stacks STACKS under `ying run --sample 0` (a dump
#    of ~13 MB at 40000 stacks); 60 readers that read the status line of
#    /debug/heap and nothing more, one every 0.1 s, for SECONDS; recorded:
#    the growth of its RSS and how many readers hold a 200 answer.
# Results in OUT/http_clients.results.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
SECS=${2:-30}
REQUESTS=${REQUESTS:-200000}
STACKS=${STACKS:-40000}
STACKS_PROG=${STACKS_PROG:-$ROOT/build/tests/programs/http_stacks}
OUT=${OUT:-$ROOT/bench/out}
BENCH=http_clients
YING="$BUILD/ying"
CLIENTS="$ROOT/tests/integration/http_clients.py"
. "$ROOT/bench/lib.sh"
redis_setup redis-server redis-benchmark redis-cli curl python3
[ -x "$STACKS_PROG" ] || { echo "$BENCH: $STACKS_PROG not built" >&2; exit 1; }
sp=""
trap '[ -n "$sp" ] && kill "$sp" 2>/dev/null; redis_cleanup' EXIT

set_rps() {
	${CLI:-} redis-benchmark -p "$port" -n "$REQUESTS" -c 50 -P 16 -r 1000000 -d 256 \
	    -t set --csv 2>/dev/null | awk -F'"' '$2 == "SET" { print $4 }'
}
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
endpoint() {
	_i=0
	until grep -q 'HTTP on http' "$1"; do
		_i=$((_i + 1))
		[ $_i -lt 300 ] || { echo "$BENCH: no endpoint" >&2; cat "$1" >&2; exit 1; }
		sleep 0.1
	done
	sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$1" | head -n 1
}

redis_start ying "$YING" run --http 127.0.0.1:0 --report-dir "$W/reports" --
hp=$(endpoint "$W/ying.log")
curl -s -m 60 -o /dev/null "http://127.0.0.1:$hp/debug/pprof/heap"
: >"$W/idle"
for r in 1 2 3; do set_rps >>"$W/idle"; done
python3 "$CLIENTS" clients --url "http://127.0.0.1:$hp" --pid "$rpid" --clients 64 \
    --seconds "$SECS" >"$W/loaded_clients" &
lp=$!
: >"$W/loaded"
sleep 1
end=$(($(date +%s) + SECS - 3))
while [ "$(date +%s)" -lt "$end" ]; do set_rps >>"$W/loaded"; done
wait "$lp"
python3 "$CLIENTS" clients --url "http://127.0.0.1:$hp" --pid "$rpid" --clients 64 \
    --seconds "$SECS" >"$W/alone_clients"
alive=$(redis-cli -p "$port" ping 2>/dev/null || echo dead)
redis_stop

"$YING" run --http 127.0.0.1:0 --sample 0 --report-dir "$W/reports2" -- \
    "$STACKS_PROG" "$STACKS" >"$W/stacks.out" 2>"$W/stacks.log" &
sp=$!
shp=$(endpoint "$W/stacks.log")
_i=0
until grep -q '^ready' "$W/stacks.out"; do
	_i=$((_i + 1)); [ $_i -lt 600 ] || { echo "$BENCH: http_stacks not ready" >&2; exit 1; }
	sleep 0.1
done
spid=$(pgrep -P "$sp" | head -n 1)
dump_bytes=$(curl -s -m 120 "http://127.0.0.1:$shp/debug/heap" | wc -c)
python3 "$CLIENTS" stall --url "http://127.0.0.1:$shp" --pid "$spid" --readers 60 \
    --interval 0.1 --seconds "$SECS" >"$W/stall"
kill "$sp"
wait "$sp" 2>/dev/null || true
sp=""

idle=$(median <"$W/idle")
loaded=$(median <"$W/loaded")
{
	echo "# bench/http_clients.sh $BUILD $SECS s, $(date -u +%Y-%m-%dT%H:%MZ), $(machine), load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "redis_set_rps_idle_runs $(tr '\n' ' ' <"$W/idle")"
	echo "redis_set_rps_loaded_runs $(tr '\n' ' ' <"$W/loaded")"
	echo "redis_set_rps_idle_median $idle"
	echo "redis_set_rps_loaded_median $loaded"
	echo "ratio_loaded_idle $(awk -v a="$loaded" -v b="$idle" 'BEGIN { printf "%.3f", a / b }')"
	echo "redis_alive $alive"
	sed 's/^/with_benchmark: /' "$W/loaded_clients"
	sed 's/^/clients_alone: /' "$W/alone_clients"
	echo "stall: stacks=$STACKS dump_bytes=$dump_bytes"
	sed 's/^/stall: /' "$W/stall"
} >"$RES"
cat "$RES"
