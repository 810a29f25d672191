#!/bin/sh
# page_ab.sh: versions of the live page side by side on one heap, in one
# browser, alternating (tests/browser/ab.mjs), so that a change to the page
# is measured against what it replaces on the same noisy machine.
#
#   bench/page_ab.sh [BUILD_DIR] REV REV...    env: RUNS (default 11),
#                                              STACKS (default 10000)
#
# Each REV is a git revision of this checkout (its src/live/page/ files are
# taken with `git show`) or "work" (the working tree's).  The heap: a
# program from bench/page_stacks.sh with STACKS distinct stacks under
# `ying run --sample 0 --http 127.0.0.1:0` (BUILD_DIR's ying; the data
# endpoints are the build's, only the page's four files differ).  After one
# warm-up load (the first dump symbolizes), RUNS runs; each opens every
# version once in a fresh tab, a second apart.  Prints one JSON line per
# version: its median time to usable ("ying-usable", ms since navigation
# start) and every run's; then bench.mjs --floor's two lines for the
# build's own page against a trivial page (the machine's floor).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD="$ROOT/build"
if [ $# -gt 0 ] && [ -d "$1" ]; then BUILD=$1; shift; fi
BUILD=$(cd "$BUILD" && pwd)
[ $# -ge 1 ] || { echo "usage: bench/page_ab.sh [BUILD_DIR] REV REV..." >&2; exit 2; }
RUNS=${RUNS:-11}
STACKS=${STACKS:-10000}
YING_BUILDDIR=$BUILD
YING_SRCDIR=$ROOT
export YING_BUILDDIR YING_SRCDIR
T=$(mktemp -d "${TMPDIR:-/tmp}/ying-bench-page-ab.XXXXXX")
p=""
trap '[ -n "$p" ] && kill "$p" 2>/dev/null; rm -rf "$T"' EXIT
ok() { [ "$1" = 0 ] || { echo "page_ab.sh: $2" >&2; exit 1; }; }
diag() { cat "$1" >&2; }
. "$ROOT/tests/integration/browser_lib.sh"
browser_setup || { cat "$T/npm.log" >&2; exit 1; }
arms=""
k=0
for rev in "$@"; do
	k=$((k + 1))
	d="$T/$k-$(printf '%s' "$rev" | tr -c 'A-Za-z0-9._-' _)"
	mkdir -p "$d"
	for f in index.html app.js flame.js app.css; do
		if [ "$rev" = work ]; then
			cp "$ROOT/src/live/page/$f" "$d/$f"
		else
			git -C "$ROOT" show "$rev:src/live/page/$f" >"$d/$f" ||
			    { echo "page_ab.sh: $rev has no src/live/page/$f" >&2; exit 1; }
		fi
	done
	arms="$arms${arms:+,}$d"
done
echo "# $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1); $(chromium --version 2>/dev/null)"
a=$(awk -v n="$STACKS" 'BEGIN { a = int(sqrt(n)); while (n % a) a--; print a }')
sh "$ROOT/bench/page_stacks.sh" "$a" $((STACKS / a)) "$T/stacks"
"$BUILD/ying" run --sample 0 --http 127.0.0.1:0 -- "$T/stacks" >"$T/out" 2>"$T/err" &
p=$!
i=0
until grep -q '^ready' "$T/out" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 600 ] || { echo "page_ab.sh: the program is not ready" >&2; cat "$T/err" >&2; exit 1; }
	sleep 0.1
done
port=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/err" | head -n 1)
base="http://127.0.0.1:$port"
(cd "$BROWSER_DIR" && node bench.mjs --base "$base" --runs 1 --label warm-up) >/dev/null
(cd "$BROWSER_DIR" && node ab.mjs --base "$base" --runs "$RUNS" --arms "$arms") |
    sed "s|$T/[0-9]*-||"
(cd "$BROWSER_DIR" && node bench.mjs --base "$base" --runs $((2 * RUNS)) --floor 1 \
    --label "$STACKS stacks") | tail -n 2
kill "$p"
wait "$p" 2>/dev/null || true
p=""
