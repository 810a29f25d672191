#!/bin/sh
# agent_cost.sh: what the ying agent costs a real service.
#
#   bench/agent_cost.sh [BUILD_DIR]      (default: build)
#   env: ROUNDS (default 7), REQUESTS per test (default 200000), OUT
#        (default bench/out), PIN=1 (redis on CPU 0, redis-benchmark on
#        CPU 1, with taskset)
#
# redis-server (Debian's, linked with jemalloc) is driven by
# `redis-benchmark -n REQUESTS -c 50 -P 16 -r 1000000 -d 256 -t
# set,get,lpush,lpop` in four configurations:
#
#   none       no profiling
#   prof       MALLOC_CONF=prof:true (jemalloc's own sampling, 1 per 512 KiB)
#   ying       ying run --http 127.0.0.1:0 --report-dir DIR (agent, HTTP
#              endpoint and growth runner, default rate and interval)
#   heaptrack  heaptrack redis-server (traces every allocation)
#
# A run's throughput is the geometric mean of the four tests' requests per
# second; its cost is the CPU time redis used (all threads, the agent's
# included; /proc/PID/task/*/schedstat), which other load on the machine
# disturbs much less.  For `ying` the CPU time of the agent's own threads
# (ying-*, MHD-*) is measured exactly, as a share of redis' CPU time.  Each round runs every configuration once, in an order rotated
# from round to round (so drift and warm-up are shared), and computes
# ratios within the round; the table gives the medians over the rounds.  The
# goal: ying/prof >= 0.99 (the agent adds <= 1 % to jemalloc's sampling).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
ROUNDS=${ROUNDS:-7}
REQUESTS=${REQUESTS:-200000}
OUT=${OUT:-$ROOT/bench/out}
YING="$BUILD/ying"
BENCH=agent_cost
. "$ROOT/bench/lib.sh"
redis_setup redis-server redis-benchmark redis-cli heaptrack python3

# run CONFIG: start redis under CONFIG, benchmark it, stop it; prints the
# geometric mean of the tests' requests per second, redis' CPU ms and the
# agent's threads' CPU ms.  (redis_start and the rest: bench/lib.sh)
run() {
	rm -rf "$W/reports"
	case "$cfg" in
	none) redis_start none $SRV ;;
	prof) redis_start prof $SRV env MALLOC_CONF=prof:true ;;
	ying) redis_start ying $SRV "$YING" run -q --http 127.0.0.1:0 --report-dir "$W/reports" -- ;;
	heaptrack) redis_start heaptrack $SRV heaptrack -o "$W/ht" ;;
	esac
	redis_bench "$REQUESTS" "$W/bench.csv"
	# redis' own CPU time, all its threads (the agent's included), in ms
	# from the scheduler's nanosecond counters: less sensitive to other load
	# on the machine than throughput
	cpu=$(redis_thread_ms '*')
	# the agent's own threads (ying-runner, ying-agent, MHD-*): exact
	agent=$(awk -v a="$(redis_thread_ms 'ying-*')" -v b="$(redis_thread_ms 'MHD-*')" \
	    'BEGIN { printf "%.3f", a + b }')
	redis_stop
	rm -f "$W"/ht*
	geomean "$W/bench.csv" "$cpu" "$agent"
}

CONFIGS="none prof ying heaptrack"
r=1
while [ $r -le "$ROUNDS" ]; do
	for cfg in $(rotated "$r" $CONFIGS); do
		v=$(run)
		echo "$r $cfg $v" >>"$RES"
		echo "round $r: $cfg $v (req/s, redis CPU ms, agent threads CPU ms)" >&2
	done
	r=$((r + 1))
done

python3 - "$RES" "$REQUESTS" "$ROUNDS" <<'PY'
import collections, statistics, sys
rounds = collections.defaultdict(dict)
cpu = collections.defaultdict(dict)
agent = []
for line in open(sys.argv[1]):
    r, cfg, v, c, a = line.split()
    rounds[int(r)][cfg] = float(v)
    cpu[int(r)][cfg] = float(c)
    if cfg == "ying":
        agent.append(float(a) / float(c))
def med(cfg, base, src=rounds):
    return statistics.median(d[cfg] / d[base] for d in src.values())
print("redis-benchmark -n %s -c 50 -P 16 -r 1000000 -d 256 -t set,get,lpush,lpop; "
      "%s rounds, alternating; geometric mean of req/s per run" % (sys.argv[2], sys.argv[3]))
print("%-10s %13s %9s %9s   %15s %9s %9s" % ("config", "median req/s", "vs none",
      "vs prof", "redis CPU ms", "vs none", "vs prof"))
for cfg in ("none", "prof", "ying", "heaptrack"):
    vals = [d[cfg] for d in rounds.values()]
    cv = [d[cfg] for d in cpu.values()]
    print("%-10s %13.0f %8.3fx %8.3fx   %15.0f %8.3fx %8.3fx" % (cfg,
          statistics.median(vals), med(cfg, "none"), med(cfg, "prof"),
          statistics.median(cv), med(cfg, "none", cpu), med(cfg, "prof", cpu)))
tp = sorted(d["ying"] / d["prof"] for d in rounds.values())
cp = sorted(d["ying"] / d["prof"] for d in cpu.values())
print("ying vs prof (the agent on top of jemalloc's sampling): throughput x%.3f "
      "(rounds %.3f..%.3f), redis CPU x%.3f (rounds %.3f..%.3f); goal: "
      "throughput >= x0.990" % (med("ying", "prof"), tp[0], tp[-1],
      med("ying", "prof", cpu), cp[0], cp[-1]))
print("the agent's own threads used %.4f %% of redis' CPU time (median; max %.4f %%)"
      % (100 * statistics.median(agent), 100 * max(agent)))
PY
