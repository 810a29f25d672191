#!/bin/sh
# giant_cost.sh: what the giant-allocation hook (YING_GIANT, ying run
# --giant) costs a real service.
#
#   bench/giant_cost.sh [BUILD_DIR]      (default: build)
#   env: ROUNDS (default 7), REQUESTS per test (default 200000), GIANT
#        (threshold, default 64M), OUT (default bench/out), PIN=1 (redis
#        on CPU 0, redis-benchmark on CPU 1, with taskset)
#
# redis-server (Debian's, linked with jemalloc) is driven by
# `redis-benchmark -n REQUESTS -c 50 -P 16 -r 1000000 -d 256 -t
# set,get,lpush,lpop` (bench/lib.sh) in three configurations:
#
#   prof    MALLOC_CONF=prof:true (jemalloc's own sampling, 1 per 512 KiB)
#   agent   ying run --http 127.0.0.1:0 (the agent, no hook)
#   giant   ying run --http 127.0.0.1:0 --giant 64M (the agent and the
#           allocation hook: every malloc/free of every thread leaves
#           jemalloc's fast path and calls the hook, which compares the
#           size and returns)
#
# A run's throughput is the geometric mean of the four tests' requests per
# second; its cost is the CPU time redis used (all threads, from
# /proc/PID/task/*/schedstat).  Each round runs every configuration once, in
# an order rotated from round to round, and computes ratios within the
# round; the table gives the medians over the rounds.  giant/prof is the
# price of --giant over plain prof:true, giant/agent the hook's own.
#
# Then the same three configurations on bench/giant_micro.c (one thread,
# malloc(64)+free in a loop, MICRO pairs, default 20000000), ROUNDS
# alternating runs each: ns per pair, medians; that is where the cost of
# leaving jemalloc's fast path shows without redis' own work around it.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
ROUNDS=${ROUNDS:-7}
REQUESTS=${REQUESTS:-200000}
MICRO=${MICRO:-20000000}
GIANT=${GIANT:-64M}
OUT=${OUT:-$ROOT/bench/out}
YING="$BUILD/ying"
BENCH=giant_cost
. "$ROOT/bench/lib.sh"
redis_setup redis-server redis-benchmark redis-cli python3 cc

# run: start redis under $cfg, benchmark it, stop it; prints the geometric
# mean of the tests' requests per second and redis' CPU ms.
run() {
	case "$cfg" in
	prof) redis_start prof $SRV env MALLOC_CONF=prof:true ;;
	agent) redis_start agent $SRV "$YING" run --http 127.0.0.1:0 -- ;;
	giant) redis_start giant $SRV "$YING" run --http 127.0.0.1:0 --giant "$GIANT" -- ;;
	esac
	if [ "$cfg" = giant ] && ! grep -q "giant allocations from" "$W/giant.log"; then
		echo "giant_cost: the hook is not installed in redis:" >&2
		cat "$W/giant.log" >&2
		exit 1
	fi
	redis_bench "$REQUESTS" "$W/bench.csv"
	cpu=$(redis_thread_ms '*')
	redis_stop
	geomean "$W/bench.csv" "$cpu"
}

CONFIGS="prof agent giant"
r=1
while [ $r -le "$ROUNDS" ]; do
	for cfg in $(rotated "$r" $CONFIGS); do
		v=$(run)
		echo "$r $cfg $v" >>"$RES"
		echo "round $r: $cfg $v (req/s, redis CPU ms)" >&2
	done
	r=$((r + 1))
done

python3 - "$RES" "$REQUESTS" "$ROUNDS" "$GIANT" <<'PY'
import collections, statistics, sys
rounds = collections.defaultdict(dict)
cpu = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    r, cfg, v, c = line.split()
    rounds[int(r)][cfg] = float(v)
    cpu[int(r)][cfg] = float(c)
def med(cfg, base, src=rounds):
    return statistics.median(d[cfg] / d[base] for d in src.values())
print("redis-benchmark -n %s -c 50 -P 16 -r 1000000 -d 256 -t set,get,lpush,lpop; "
      "%s rounds, alternating; geometric mean of req/s per run; --giant %s"
      % (sys.argv[2], sys.argv[3], sys.argv[4]))
print("%-8s %13s %9s %9s   %13s %9s %9s" % ("config", "median req/s", "vs prof",
      "vs agent", "redis CPU ms", "vs prof", "vs agent"))
for cfg in ("prof", "agent", "giant"):
    print("%-8s %13.0f %8.3fx %8.3fx   %13.0f %8.3fx %8.3fx" % (cfg,
          statistics.median(d[cfg] for d in rounds.values()), med(cfg, "prof"),
          med(cfg, "agent"), statistics.median(d[cfg] for d in cpu.values()),
          med(cfg, "prof", cpu), med(cfg, "agent", cpu)))
tp = sorted(d["giant"] / d["prof"] for d in rounds.values())
cp = sorted(d["giant"] / d["prof"] for d in cpu.values())
print("giant vs prof: throughput x%.3f (rounds %.3f..%.3f), redis CPU x%.3f "
      "(rounds %.3f..%.3f)" % (med("giant", "prof"), tp[0], tp[-1],
      med("giant", "prof", cpu), cp[0], cp[-1]))
PY

# ---- the micro benchmark ---------------------------------------------------
cc -O2 -o "$W/giant_micro" "$ROOT/bench/giant_micro.c"
MRES="$OUT/giant_micro.results"
: >"$MRES"
r=1
while [ $r -le "$ROUNDS" ]; do
	for cfg in prof agent giant; do
		case "$cfg" in
		prof) v=$(MALLOC_CONF=prof:true LD_PRELOAD=$(pkg-config --variable=libdir jemalloc)/libjemalloc.so.2 \
		    "$W/giant_micro" "$MICRO") ;;
		agent) v=$("$YING" run -q --http 127.0.0.1:0 -- "$W/giant_micro" "$MICRO") ;;
		giant) v=$("$YING" run -q --http 127.0.0.1:0 --giant "$GIANT" -- "$W/giant_micro" "$MICRO") ;;
		esac
		echo "$r $cfg $v" >>"$MRES"
	done
	r=$((r + 1))
done
python3 - "$MRES" "$MICRO" <<'PY'
import collections, statistics, sys
v = collections.defaultdict(list)
for line in open(sys.argv[1]):
    r, cfg, ns = line.split()
    v[cfg].append(float(ns))
print("giant_micro: malloc(64)+free, %s pairs, one thread; median ns per pair (runs)" % sys.argv[2])
for cfg in ("prof", "agent", "giant"):
    print("%-8s %7.2f ns  (%s)" % (cfg, statistics.median(v[cfg]),
          " ".join("%.2f" % x for x in v[cfg])))
PY
