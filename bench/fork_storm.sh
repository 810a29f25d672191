#!/bin/sh
# fork_storm.sh: what the agent costs a program that forks many short
# children (issue 25, item 5: a fork storm costs the parent nothing
# measurable).
#
#   bench/fork_storm.sh [BUILD_DIR]      (default: build)
#   env: ROUNDS (default 7), N children per run (default 2000), MODES
#        (default "exit alloc"), OUT (default bench/out)
#
# bench/fork_storm.c forks N children back to back (each waited for) and
# prints the wall and CPU microseconds per child (CPU: the whole parent,
# the agent's threads included, plus the children).  MODE exit: the child
# calls _exit(0); alloc: it allocates and frees a little first (through
# the agent's fork hook).  Four configurations, the same jemalloc
# (pkg-config's libjemalloc.so.2) with MALLOC_CONF=prof:true in each:
#
#   none     LD_PRELOAD=jemalloc (no agent)
#   agent    LD_PRELOAD=jemalloc:agent, no endpoint, no report directory
#   http     ... YING_HTTP=127.0.0.1:0
#   reports  ... YING_REPORT_DIR=a temporary directory
#
# Each round runs every configuration once per mode, in an order rotated
# from round to round; the tables give the median over the rounds and
# each configuration's ratio to none.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
ROUNDS=${ROUNDS:-7}
N=${N:-2000}
MODES=${MODES:-exit alloc}
OUT=${OUT:-$ROOT/bench/out}
JEMALLOC=$(pkg-config --variable=libdir jemalloc)/libjemalloc.so.2
AGENT=$BUILD/.libs/libying-agent.so
[ -f "$AGENT" ] || { echo "fork_storm: no $AGENT (build first)" >&2; exit 1; }
mkdir -p "$OUT"
W=$(mktemp -d "${TMPDIR:-/tmp}/ying-fork-storm.XXXXXX")
trap 'rm -rf "$W"' EXIT
cc -O2 -o "$W/fork_storm" "$ROOT/bench/fork_storm.c"
RES="$OUT/fork_storm.results"
: >"$RES"
echo "fork_storm: $BUILD ($(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?')); $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); load before: $(cut -d' ' -f1-3 /proc/loadavg)"

one() {
	case "$1" in
	none) env LD_PRELOAD="$JEMALLOC" MALLOC_CONF=prof:true "$W/fork_storm" "$N" "$2" ;;
	agent) env LD_PRELOAD="$JEMALLOC:$AGENT" MALLOC_CONF=prof:true YING_QUIET=1 \
	    "$W/fork_storm" "$N" "$2" ;;
	http) env LD_PRELOAD="$JEMALLOC:$AGENT" MALLOC_CONF=prof:true YING_QUIET=1 \
	    YING_HTTP=127.0.0.1:0 "$W/fork_storm" "$N" "$2" ;;
	reports) rm -rf "$W/rep"; mkdir -m 700 "$W/rep"
	    env LD_PRELOAD="$JEMALLOC:$AGENT" MALLOC_CONF=prof:true YING_QUIET=1 \
	    YING_REPORT_DIR="$W/rep" "$W/fork_storm" "$N" "$2" ;;
	esac
}

CFGS="none agent http reports"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	case $((r % 4)) in
	0) order="none agent http reports" ;;
	1) order="agent http reports none" ;;
	2) order="http reports none agent" ;;
	*) order="reports none agent http" ;;
	esac
	for m in $MODES; do
		for cfg in $order; do
			v=$(one "$cfg" "$m")
			echo "$r $m $cfg $v" >>"$RES"
		done
	done
	r=$((r + 1))
done
echo "fork_storm: load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$RES" "$N" "$MODES" "$CFGS" <<'PY'
import collections, statistics, sys
v = collections.defaultdict(list)
for line in open(sys.argv[1]):
    r, m, cfg, wall, cpu = line.split()
    v[(m, cfg, "cpu")].append(float(cpu))
    v[(m, cfg, "wall")].append(float(wall))
modes, cfgs = sys.argv[3].split(), sys.argv[4].split()
for what in ("wall", "cpu"):
    print("fork storm, %s children per run: %s us per child, median over the runs"
          % (sys.argv[2], what))
    print("%-6s" % "mode" + "".join("%10s" % c for c in cfgs)
          + "".join("%12s" % (c + "/none") for c in cfgs[1:]))
    for m in modes:
        md = {c: statistics.median(v[(m, c, what)]) for c in cfgs}
        print("%-6s" % m + "".join("%10.1f" % md[c] for c in cfgs)
              + "".join("%12.3f" % (md[c] / md["none"]) for c in cfgs[1:]))
PY
