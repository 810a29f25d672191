#!/bin/sh
# history.sh: what the live page's data costs the agent (issue 29: "the
# agent's cost of keeping the history is nothing measurable"; "a
# 262,144-stack heap's tree in well under a second").
#
#   bench/history.sh [BUILD_DIR]      (default: build)
#   env: RUNS (default 7), ROUNDS (default 7), REQUESTS per redis run
#        (default 300000), SAMPLES (default 20000), OUT (default bench/out)
#
# 1. One sample of the history (bench/history_micro.c, linked with the
#    build's static libying-live objects): /proc/self/statm, an epoch and
#    five stats.* reads, the copy into the rings; SAMPLES samples, RUNS
#    times, the median of the per-run means.
# 2. The endpoint's listener thread (ying-http, which samples) on an idle
#    endpoint: its CPU time (/proc/PID/task/TID/schedstat) over 20 s of
#    redis-server under `ying run --http 127.0.0.1:0` (from 5 s after the
#    start), with the history and with YING_HISTORY=0 (no sample),
#    alternating, RUNS times.
# 3. A real program's throughput with and without the history: redis-server
#    under `ying run --http 127.0.0.1:0` driven by `redis-benchmark -n
#    REQUESTS -c 50 -P 16 -r 1000000 -d 256 -t set,get,lpush,lpop` (the
#    geometric mean of the four tests' req/s) and redis' CPU time (all its
#    threads), the two configurations alternating in rotated order for
#    ROUNDS rounds; the ratio within each round, the median over rounds.
# 4. format=tree on 262,144-stack heaps (bench/tree_micro.c, libying.so):
#    bench/gen_stacks.c's (stacks that differ by call site: they merge into
#    a few nodes) and bench/gen_names.c's (every stack its own path of
#    function names: 528,458 nodes, the worst case), against the top table
#    (format=json) and the SVG flame graph of the same heap, and the diff
#    tree of two such heaps; RUNS runs, medians, and the JSON's size.
# Writes $OUT/history.md.  Never part of `make check`.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
RUNS=${RUNS:-7}
ROUNDS=${ROUNDS:-7}
REQUESTS=${REQUESTS:-300000}
SAMPLES=${SAMPLES:-20000}
OUT=${OUT:-$ROOT/bench/out}
YING="$BUILD/ying"
BENCH=history
. "$ROOT/bench/lib.sh"
redis_setup redis-server redis-benchmark redis-cli python3 pkg-config cc
L="$BUILD/.libs"
[ -e "$L/libying.so" ] && [ -e "$L/libying_live_core.a" ] ||
	{ echo "history.sh: no $L/libying.so or libying_live_core.a (make in $BUILD)" >&2; exit 1; }
MD="$OUT/history.md"
{
	echo "# bench/history.sh, $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "machine: $(machine); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$MD"

# ---- 1. one sample
cc -O2 -Wall -o "$W/history_micro" "$ROOT/bench/history_micro.c" "$L/libying_live_core.a" \
    "$L/libying_core.a" "$L/libying_live_pb.a" "$L/libying_pb.a" \
    $(pkg-config --libs libmicrohttpd libprotobuf-c zlib libdw) -ljemalloc -lpthread -ldl -lm
: >"$W/micro"
i=0
while [ "$i" -lt "$RUNS" ]; do
	MALLOC_CONF=prof:true "$W/history_micro" "$SAMPLES" 100000 >>"$W/micro"
	i=$((i + 1))
done
python3 - "$W/micro" "$SAMPLES" "$RUNS" >>"$MD" <<'PY'
import statistics, sys
ns = [float(l.split()[1]) for l in open(sys.argv[1]) if l.startswith("sample ")]
cols = [l.split()[1] for l in open(sys.argv[1]) if l.startswith("columns ")][0]
print("\n1. one sample (history_micro %s samples, %s runs; %s known columns, one heap):"
      " median %.1f us (runs %.1f..%.1f us); once a second: %.4f %% of a core"
      % (sys.argv[2], sys.argv[3], cols, statistics.median(ns) / 1e3, min(ns) / 1e3,
         max(ns) / 1e3, statistics.median(ns) / 1e9 * 100))
PY

# ---- 2. the listener thread, idle endpoint, 20 s
# (from 5 s after the start: the first sample finds the heaps, once)
idle() {
	redis_start "idle-$1" $SRV env ${2:+YING_HISTORY=0} "$YING" run -q --http 127.0.0.1:0 --
	sleep 5
	_a=$(redis_thread_ms 'ying-http')
	sleep 20
	_b=$(redis_thread_ms 'ying-http')
	redis_stop
	awk -v a="$_a" -v b="$_b" 'BEGIN { printf "%.3f", b - a }'
}
: >"$W/idle"
i=0
while [ "$i" -lt "$RUNS" ]; do
	echo "on $(idle on '')" >>"$W/idle"
	echo "off $(idle off 1)" >>"$W/idle"
	i=$((i + 1))
done
python3 - "$W/idle" "$RUNS" >>"$MD" <<'PY'
import statistics, sys
v = {"on": [], "off": []}
for l in open(sys.argv[1]):
    k, ms = l.split()
    v[k].append(float(ms))
on, off = statistics.median(v["on"]), statistics.median(v["off"])
print("\n2. the listener thread (ying-http) over 20 s of an idle endpoint, %s runs each, "
      "alternating: with the history %.3f ms (%.1f us a second), YING_HISTORY=0 %.3f ms; "
      "the difference %.1f us a second" % (sys.argv[2], on, on / 20 * 1e3, off,
      (on - off) / 20 * 1e3))
PY

# ---- 3. redis throughput, with and without
run() {
	case "$cfg" in
	hist) redis_start hist $SRV "$YING" run -q --http 127.0.0.1:0 -- ;;
	nohist) redis_start nohist $SRV env YING_HISTORY=0 "$YING" run -q --http 127.0.0.1:0 -- ;;
	esac
	redis_bench "$REQUESTS" "$W/bench.csv"
	cpu=$(redis_thread_ms '*')
	http=$(redis_thread_ms 'ying-http')
	redis_stop
	geomean "$W/bench.csv" "$cpu" "$http"
}
r=1
while [ $r -le "$ROUNDS" ]; do
	for cfg in $(rotated "$r" hist nohist); do
		v=$(run)
		echo "$r $cfg $v" >>"$RES"
		echo "round $r: $cfg $v (req/s, redis CPU ms, ying-http CPU ms)" >&2
	done
	r=$((r + 1))
done
python3 - "$RES" "$REQUESTS" "$ROUNDS" >>"$MD" <<'PY'
import collections, statistics, sys
rps, cpu = collections.defaultdict(dict), collections.defaultdict(dict)
for line in open(sys.argv[1]):
    r, cfg, v, c, h = line.split()
    rps[int(r)][cfg], cpu[int(r)][cfg] = float(v), float(c)
tp = sorted(d["hist"] / d["nohist"] for d in rps.values())
cp = sorted(d["hist"] / d["nohist"] for d in cpu.values())
print("\n3. redis-benchmark -n %s -c 50 -P 16 -r 1000000 -d 256 -t set,get,lpush,lpop "
      "under ying run --http, %s rounds alternating:" % (sys.argv[2], sys.argv[3]))
print("   median req/s with the history %.0f, YING_HISTORY=0 %.0f; with/without: "
      "throughput x%.3f (rounds %.3f..%.3f), redis CPU x%.3f (rounds %.3f..%.3f)"
      % (statistics.median(d["hist"] for d in rps.values()),
         statistics.median(d["nohist"] for d in rps.values()),
         statistics.median(tp), tp[0], tp[-1], statistics.median(cp), cp[0], cp[-1]))
PY

# ---- 4. format=tree on 262,144 stacks
cc -g -O0 -Wall -o "$W/gen_stacks" "$ROOT/bench/gen_stacks.c" -ljemalloc
cc -g -O0 -Wall -o "$W/gen_names" "$ROOT/bench/gen_names.c" -ljemalloc
cc -O2 -Wall -I"$ROOT/include" -o "$W/tree_micro" "$ROOT/bench/tree_micro.c" \
    -L"$L" -lying -Wl,-rpath,"$L"
for g in gen_stacks gen_names; do
	MALLOC_CONF=prof:true,lg_prof_sample:0 "$W/$g" 262144 "$W/$g.1.heap"
	MALLOC_CONF=prof:true,lg_prof_sample:0 "$W/$g" 262144 "$W/$g.2.heap"
	TREE_OUT="$W/$g.tree.json" "$W/tree_micro" "$W/$g.1.heap" "$W/$g.2.heap" "$RUNS" \
	    >"$W/$g.tree"
	python3 - "$W/$g.tree" "$W/$g.tree.json" "$g" "$(grep -c '^@' "$W/$g.1.heap")" \
	    "$RUNS" >>"$MD" <<'PY'
import json, statistics, sys, time
runs = [[float(x) for x in l.split()[1:]] for l in open(sys.argv[1]) if l.startswith("run ")]
size = [int(x) for x in open(sys.argv[1]).read().split("size ")[1].split()]
t0 = time.perf_counter()
d = json.load(open(sys.argv[2]))
parse = time.perf_counter() - t0
med = [statistics.median(r[k] for r in runs) * 1e3 for k in range(4)]
print("\n4. %s, %s stacks, %d tree nodes, %s runs (medians): tree %.0f ms (%.1f MB), "
      "top JSON %.0f ms (%.1f KB), SVG %.0f ms (%.1f KB), diff tree of two %.0f ms "
      "(%.1f MB); Python's json.load of the tree %.0f ms"
      % (sys.argv[3], sys.argv[4], len(d["nodes"]) // len(d["fields"]), sys.argv[5],
         med[0], size[0] / 1e6, med[1], size[1] / 1e3, med[2], size[2] / 1e3, med[3],
         size[3] / 1e6, parse * 1e3))
PY
	rm -f "$W/$g.1.heap" "$W/$g.2.heap"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$MD"
cat "$MD"
