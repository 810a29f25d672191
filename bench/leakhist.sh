#!/bin/sh
# leakhist.sh: what the agent's leak history (src/lib/leaks_hist.c) adds to
# each heap check of the growth runner, beside the parse of the dump that
# the check pays anyway.
#
#   bench/leakhist.sh [BUILD_DIR]    env: RUNS (default 11), STACKS (lists
#                                    of distinct stacks, "10000 262144")
#
# bench/gen_stacks.c makes a heap with STACKS distinct stacks (every
# allocation sampled); bench/leakhist_micro.c, linked with the built
# libying, fills a history with 255 points of that dump, then RUNS times,
# alternating in one process: parse the dump, account it.  Prints the
# medians, their ratio and the history's size.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
RUNS=${RUNS:-11}
STACKS=${STACKS:-"10000 262144"}
[ -e "$BUILD/.libs/libying.so" ] || { echo "leakhist.sh: no $BUILD/.libs/libying.so (make in $BUILD)" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/ying-bench-leakhist.XXXXXX")
trap 'rm -rf "$W"' EXIT
cc -g -O0 -Wall -o "$W/gen_stacks" "$ROOT/bench/gen_stacks.c" -ljemalloc
cc -O2 -Wall -I"$ROOT/include" -o "$W/micro" "$ROOT/bench/leakhist_micro.c" \
    -L"$BUILD/.libs" -lying -Wl,-rpath,"$BUILD/.libs"
for n in $STACKS; do
	MALLOC_CONF=prof:true,lg_prof_sample:0 "$W/gen_stacks" "$n" "$W/s.heap" 0
	"$W/micro" "$W/s.heap" "$RUNS" >"$W/out"
	python3 - "$W/out" "$n" <<'PY'
import statistics, sys
runs, info = [], None
for line in open(sys.argv[1]):
    w = line.split()
    if w[0] == "run":
        runs.append((float(w[1]), float(w[2])))
    elif w[0] == "info":
        info = [int(x) for x in w[1:]]
parse = statistics.median(r[0] for r in runs)
add = statistics.median(r[1] for r in runs)
ratio = statistics.median(r[1] / r[0] for r in runs)
print("%s stacks, %d runs: parse %.2f ms, history add %.2f ms (median of per-run "
      "ratios %.3f); history %d points, %d stacks tracked, %.0f KiB" % (
          sys.argv[2], len(runs), parse * 1e3, add * 1e3, ratio, info[0], info[1],
          info[2] / 1024))
PY
done
