#!/bin/sh
# diff_noise.sh: the long version of tests/integration/diff_noise.sh (issue
# 28, item 1): how often yingdiff's 95 % intervals hold the true growth of
# a real program, over RUNS runs of tests/programs/diff_noise (48 call
# sites x 1 MiB between two dumps at lg_prof_sample 14, 8 more sites that
# grow a kept heap), then the unit simulation's figures.
#
#   bench/diff_noise.sh [BUILD_DIR]     env: RUNS (default 500)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
RUNS=${RUNS:-500}
[ -x "$BUILD/tests/programs/diff_noise" ] || make -C "$BUILD" tests/programs/diff_noise >/dev/null
[ -x "$BUILD/tests/unit/test_diff_noise" ] || make -C "$BUILD" tests/unit/test_diff_noise >/dev/null
echo "real program, $RUNS runs:"
RUNS=$RUNS YING_BUILDDIR=$BUILD YING_SRCDIR=$ROOT sh "$ROOT/tests/integration/diff_noise.sh" |
    grep -E '^# |^not ok'
echo "simulation (tests/unit/test_diff_noise):"
"$BUILD/tests/unit/test_diff_noise" | grep -E '^# |^not ok'
