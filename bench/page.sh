#!/bin/sh
# page.sh: the live page's speed in Debian's chromium, by the browser's own
# clocks (performance marks, PerformanceObserver long tasks): time to usable
# for a heap of 10,000 stacks and the flame graph of 262,144 stacks.
#
#   bench/page.sh [BUILD_DIR]    env: RUNS (default 11), STACKS
#                                ("10000 262144")
#
# For each N in STACKS: a program made by bench/page_stacks.sh with A x B = N
# distinct stacks main -> a_I -> b_J -> malloc(64) (A = B = sqrt(N): 100 x
# 100, 512 x 512), distinct by function name too, so the flame graph (merged
# by name) has N leaves (a program of many stacks through the same
# functions, like tests/programs/http_stacks, merges into a few frames).  It
# runs under `ying run --sample 0 --http 127.0.0.1:0` (every allocation
# sampled, so the dump has N stacks); once it prints "ready",
# tests/browser/bench.mjs opens the page RUNS times in fresh tabs, a second
# apart (the endpoint paces back-to-back dumps; one warm-up first, not
# counted: the first dump symbolizes) and
# prints each run's timings and their medians: usable (the "ying-usable"
# mark: chart, table and flame graph drawn, since navigation start), the
# tree's fetch, parse and layout, the first flame draw and a redraw, the
# longest long task, the tree's nodes and the frames drawn.  Side by side,
# the same heap's SVG flame graph (GET /debug/heap/flamegraph) opened in
# the same browser RUNS times: its load time and longest long task.  For
# the 10,000-stack heap also 2 x RUNS alternating runs with and without
# GET /'s Link header that preloads the tree (bench.mjs --ab), and 2 x RUNS
# alternating with a trivial page served by Node in the same browser
# (bench.mjs --floor): what any page costs this browser on this machine;
# and RUNS loads in one warm tab (bench.mjs --warm: opened again, reloaded).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
RUNS=${RUNS:-11}
STACKS=${STACKS:-"10000 262144"}
YING_BUILDDIR=$BUILD
YING_SRCDIR=$ROOT
export YING_BUILDDIR YING_SRCDIR
T=$(mktemp -d "${TMPDIR:-/tmp}/ying-bench-page.XXXXXX")
p=""
trap '[ -n "$p" ] && kill "$p" 2>/dev/null; rm -rf "$T"' EXIT
ok() { [ "$1" = 0 ] || { echo "page.sh: $2" >&2; exit 1; }; }
diag() { cat "$1" >&2; }
. "$ROOT/tests/integration/browser_lib.sh"
browser_setup || { cat "$T/npm.log" >&2; exit 1; }
echo "# $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1); $(chromium --version 2>/dev/null)"
for n in $STACKS; do
	a=$(awk -v n="$n" 'BEGIN { a = int(sqrt(n)); while (n % a) a--; print a }')
	sh "$ROOT/bench/page_stacks.sh" "$a" $((n / a)) "$T/stacks$n"
	"$BUILD/ying" run --sample 0 --http 127.0.0.1:0 -- "$T/stacks$n" >"$T/out" 2>"$T/err" &
	p=$!
	i=0
	until grep -q '^ready' "$T/out" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 600 ] || { echo "page.sh: the $n-stack program is not ready" >&2; cat "$T/err" >&2; exit 1; }
		sleep 0.1
	done
	port=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/err" | head -n 1)
	# a gap past the endpoint's pacing (3x the last dump's cost): 1 s, 8 s
	# for 262,144 stacks (a 2 s dump here)
	gap=1000
	[ "$n" -le 50000 ] || gap=8000
	(cd "$BROWSER_DIR" && node bench.mjs --base "http://127.0.0.1:$port" --runs 1 --gap "$gap" \
	    --label warm-up) >/dev/null
	(cd "$BROWSER_DIR" && node bench.mjs --base "http://127.0.0.1:$port" --runs "$RUNS" \
	    --gap "$gap" --label "$n stacks") |
	    tee "$T/runs" | tail -n 1
	# side by side: the page with and without GET /'s preload of the tree
	# (alternating runs; both through a route, which costs both arms time)
	if [ "$n" -le 50000 ]; then
		(cd "$BROWSER_DIR" && node bench.mjs --base "http://127.0.0.1:$port" --runs $((2 * RUNS)) \
		    --gap "$gap" --ab 1 --label "$n stacks") | tail -n 2
		(cd "$BROWSER_DIR" && node bench.mjs --base "http://127.0.0.1:$port" --runs $((2 * RUNS)) \
		    --gap "$gap" --floor 1 --label "$n stacks") | tail -n 2
		(cd "$BROWSER_DIR" && node bench.mjs --base "http://127.0.0.1:$port" --runs "$RUNS" \
		    --gap "$gap" --warm 1 --label "$n stacks, warm tab") | tail -n 1
	fi
	# side by side: the same heap's static SVG flame graph in the same browser
	(cd "$BROWSER_DIR" && node bench.mjs --base "http://127.0.0.1:$port" --runs "$RUNS" \
	    --gap "$gap" --svg 1 --label "$n stacks, SVG") | tail -n 1
	kill "$p"
	wait "$p" 2>/dev/null || true
	p=""
done
