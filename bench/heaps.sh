#!/bin/sh
# heaps.sh: what profiling the second heap of a Rust service costs (issue
# 26, item 5): tests/rust/ffi's rustffi (a _rjem_ Rust heap, a C library
# leaking 3000 B a request through malloc; built by tests/rust/build.sh,
# i.e. by any Rust test) serving REQUESTS requests under `ying run
# --heaps=one` (the C side on glibc's malloc, unprofiled) and under the
# default --heaps=all (libjemalloc preloaded and profiled for it),
# alternating, ROUNDS rounds: the wall time from start to its "ready" line
# (its Rust heap made and every request served).  Prints medians and the
# ratio.
#
#   bench/heaps.sh [BUILD_DIR]     env: ROUNDS (default 5), REQUESTS (200000)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
ROUNDS=${ROUNDS:-5}
REQUESTS=${REQUESTS:-200000}
P=$BUILD/tests/rust-build/bin/rustffi
[ -x "$P" ] || { echo "heaps.sh: no $P (make rust-build in $BUILD)" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/ying-bench-heaps.XXXXXX")
trap 'rm -rf "$W"' EXIT
one() {   # one MODE: seconds to "ready"
	d="$W/$1.$2"
	mkdir -p "$d"
	t0=$(date +%s.%N)
	"$BUILD/ying" run -q --heaps="$1" --report-dir "$d/r" -- "$P" "$d" "$REQUESTS" 64 \
	    >"$d/out" 2>"$d/err" &
	pid=$!
	while ! grep -qx ready "$d/out" 2>/dev/null; do sleep 0.02; done
	t1=$(date +%s.%N)
	touch "$d/stop"
	wait "$pid" || true
	echo "$t1 - $t0" | bc
}
for r in $(seq 1 "$ROUNDS"); do
	echo "one $(one one "$r")" >>"$W/t"
	echo "all $(one all "$r")" >>"$W/t"
done
python3 - "$W/t" "$REQUESTS" <<'PY'
import statistics, sys
t = {}
for line in open(sys.argv[1]):
    k, v = line.split()
    t.setdefault(k, []).append(float(v))
one, all_ = statistics.median(t["one"]), statistics.median(t["all"])
print("rustffi, %s requests: --heaps=one median %.3f s (%s), --heaps=all median %.3f s (%s), ratio %.2f"
      % (sys.argv[2], one, " ".join("%.3f" % x for x in t["one"]), all_,
         " ".join("%.3f" % x for x in t["all"]), all_ / one))
PY
