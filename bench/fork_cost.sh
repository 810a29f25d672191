#!/bin/sh
# fork_cost.sh: what the agent costs a program's fork round trips, before
# and after forked children stayed single-threaded (issue 22, item 4).
#
#   bench/fork_cost.sh BEFORE_BUILD [AFTER_BUILD]   (default after: build)
#   env: ROUNDS (default 7), N round trips per run (default 200), MODES
#        (default "exit alloc exec"), OUT (default bench/out)
#
# bench/fork_micro.c does N fork round trips one at a time and prints the
# median wall and CPU microseconds of one (CPU: the parent's and the
# child's, all its threads; the figure that a loaded machine's waits for a
# core do not blur) (MODE exit: the child calls _exit(0);
# alloc: it allocates and frees 64 bytes first; exec: it execs /bin/true
# without LD_PRELOAD).  Three configurations:
#
#   none    LD_PRELOAD=libjemalloc.so.2 MALLOC_CONF=prof:true (no agent)
#   before  BEFORE_BUILD/ying run -q --http 127.0.0.1:0 (every child got
#           the watcher thread at the fork)
#   after   AFTER_BUILD/ying run -q --http 127.0.0.1:0 (a child installs a
#           jemalloc hook and stays single-threaded)
#
# Each round runs every configuration once per mode, in an order rotated
# from round to round; the tables give, per mode and configuration, the
# median over the rounds of each run's median round trip (CPU, then wall),
# and after/before.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BEFORE=$(cd "${1:?usage: fork_cost.sh BEFORE_BUILD [AFTER_BUILD]}" && pwd)
AFTER=$(cd "${2:-$ROOT/build}" && pwd)
ROUNDS=${ROUNDS:-7}
N=${N:-200}
MODES=${MODES:-exit alloc exec}
OUT=${OUT:-$ROOT/bench/out}
JEMALLOC=$(pkg-config --variable=libdir jemalloc)/libjemalloc.so.2
mkdir -p "$OUT"
W=$(mktemp -d "${TMPDIR:-/tmp}/ying-fork-cost.XXXXXX")
trap 'rm -rf "$W"' EXIT
cc -O2 -o "$W/fork_micro" "$ROOT/bench/fork_micro.c"
RES="$OUT/fork_cost.results"
: >"$RES"
echo "fork_cost: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); load before: $(cut -d' ' -f1-3 /proc/loadavg)"

one() {
	case "$1" in
	none) LD_PRELOAD=$JEMALLOC MALLOC_CONF=prof:true "$W/fork_micro" "$N" "$2" ;;
	before) timeout 600 "$BEFORE/ying" run -q --http 127.0.0.1:0 -- "$W/fork_micro" "$N" "$2" ;;
	after) timeout 600 "$AFTER/ying" run -q --http 127.0.0.1:0 -- "$W/fork_micro" "$N" "$2" ;;
	esac
}

r=1
while [ "$r" -le "$ROUNDS" ]; do
	case $((r % 3)) in
	0) order="none before after" ;;
	1) order="before after none" ;;
	*) order="after none before" ;;
	esac
	for m in $MODES; do
		for cfg in $order; do
			v=$(one "$cfg" "$m")
			echo "$r $m $cfg $v" >>"$RES"
		done
	done
	r=$((r + 1))
done
echo "fork_cost: load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$RES" "$N" "$MODES" <<'PY'
import collections, statistics, sys
v = collections.defaultdict(list)
for line in open(sys.argv[1]):
    r, m, cfg, wall, cpu = line.split()
    v[(m, cfg, "cpu")].append(float(cpu))
    v[(m, cfg, "wall")].append(float(wall))
modes = sys.argv[3].split()
for what in ("cpu", "wall"):
    print("fork round trips, %s per run: %s us, median over the runs of each run's median"
          % (sys.argv[2], what))
    print("%-6s %10s %10s %10s %14s" % ("mode", "none", "before", "after", "after/before"))
    for m in modes:
        md = {c: statistics.median(v[(m, c, what)]) for c in ("none", "before", "after")}
        print("%-6s %10.1f %10.1f %10.1f %13.2fx" % (m, md["none"], md["before"],
              md["after"], md["after"] / md["before"]))
for m in modes:
    for c in ("none", "before", "after"):
        print("# %s %s cpu: %s" % (m, c, " ".join("%.1f" % x for x in v[(m, c, "cpu")])))
PY
