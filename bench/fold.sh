#!/bin/sh
# fold.sh: what folding a profile to Grafana Pyroscope's limits costs
# (ying_profile_fold: 16,000 samples, 2 MiB), beside writing the pprof of
# the same profile.
#
#   bench/fold.sh [BUILD_DIR]     env: RUNS (default 7), STACKS (262144),
#                                 EXTRA (frames added to every stack, 0),
#                                 MAX_SAMPLES (16000), MAX_BYTES (2097152)
#
# bench/gen_stacks.c makes a heap with STACKS distinct stacks (every
# allocation sampled); bench/fold_micro.c, linked with the built libying,
# reads and symbolizes its dump once, then RUNS times: the gzipped pprof
# (what an uploader sends), the uncompressed one, the fold, and the gzipped
# pprof of the folded profile, each timed in-process.  Prints the medians
# (and every run), the fold's result, and the ratios fold / gzipped write
# and (fold + write of the folded) / gzipped write of the whole profile, of
# the medians and as the median of each run's own ratio.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
RUNS=${RUNS:-7}
STACKS=${STACKS:-262144}
EXTRA=${EXTRA:-0}
MAX_SAMPLES=${MAX_SAMPLES:-16000}
MAX_BYTES=${MAX_BYTES:-2097152}
[ -e "$BUILD/.libs/libying.so" ] || { echo "fold.sh: no $BUILD/.libs/libying.so (make in $BUILD)" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/ying-bench-fold.XXXXXX")
trap 'rm -rf "$W"' EXIT
cc -g -O0 -Wall -o "$W/gen_stacks" "$ROOT/bench/gen_stacks.c" -ljemalloc
cc -O2 -Wall -I"$ROOT/include" -o "$W/fold_micro" "$ROOT/bench/fold_micro.c" \
    -L"$BUILD/.libs" -lying -Wl,-rpath,"$BUILD/.libs"
MALLOC_CONF=prof:true,lg_prof_sample:0 "$W/gen_stacks" "$STACKS" "$W/s.heap" "$EXTRA"
"$W/fold_micro" "$W/s.heap" "$RUNS" "$MAX_SAMPLES" "$MAX_BYTES" >"$W/out"
python3 - "$W/out" "$STACKS" "$EXTRA" "$MAX_SAMPLES" "$MAX_BYTES" <<'PY'
import statistics, sys
runs, res = [], {}
for line in open(sys.argv[1]):
    w = line.split()
    if w[0] == "run":
        runs.append([float(x) for x in w[1:]])
    elif w[0] == "result":
        res = dict(zip(w[1::2], w[2::2]))
cols = list(zip(*runs))
med = [statistics.median(c) for c in cols]
names = ["write pprof (gzip)", "write pprof (plain)", "ying_profile_fold", "write folded (gzip)"]
print("%s stacks (gen_stacks, EXTRA %s), limits %s samples / %s bytes, %d runs:"
      % (res["stacks"], sys.argv[3], sys.argv[4], sys.argv[5], len(runs)))
for n, m, c in zip(names, med, cols):
    print("  %-22s median %.3f s  (%s)" % (n, m, " ".join("%.3f" % x for x in c)))
print("  pprof %s B gzipped, %s B plain; folded: %s samples, %s B plain, %s B gzipped,"
      % (res["pprof_gz"], res["pprof_plain"], res["samples_out"], res["bytes_out"], res["folded_gz"]))
print("  %s stacks folded at depth %s (%.1f%% of inuse_space)"
      % (res["stacks_folded"], res["depth"], 100 * float(res["share"])))
print("  fold / write (gzip): %.2f; (fold + write folded) / write (gzip): %.2f"
      % (med[2] / med[0], (med[2] + med[3]) / med[0]))
# each run's own ratio (the four timings of a run are back to back, so a
# machine shared with others slows them alike)
print("  per run, median: fold / write (gzip) %.2f, (fold + write folded) / write (gzip) %.2f"
      % (statistics.median(r[2] / r[0] for r in runs),
         statistics.median((r[2] + r[3]) / r[0] for r in runs)))
PY
