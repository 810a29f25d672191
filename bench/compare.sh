#!/bin/sh
# compare.sh: two ying builds side by side on the same input, alternating.
#
#   bench/compare.sh OLD_YING NEW_YING DUMP [RUNS] [-- ARGS...]
#
# Runs `YING ARGS DUMP` (ARGS default: top) RUNS times (default 7) for each
# binary, alternating old/new so that machine noise hits both alike, output to
# /dev/null, and prints wall-time and peak-RSS medians and the new/old ratio.
# Used for "same or better speed" checks before and after a change (the
# commands and results go to docs/benchmarks.md).  Needs GNU time.
set -eu
[ $# -ge 3 ] || { echo "usage: bench/compare.sh OLD_YING NEW_YING DUMP [RUNS] [-- ARGS...]" >&2; exit 2; }
old=$1 new=$2 dump=$3
shift 3
runs=7
if [ $# -gt 0 ] && [ "$1" != "--" ]; then runs=$1; shift; fi
[ $# -gt 0 ] && [ "$1" = "--" ] && shift
[ $# -gt 0 ] || set -- top
command -v /usr/bin/time >/dev/null || { echo "compare.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ying-compare.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
i=0
while [ "$i" -lt "$runs" ]; do
	for which in old new; do
		eval bin=\$$which
		/usr/bin/time -f '%e %M' -o "$tmp/t" "$bin" "$@" "$dump" >/dev/null 2>"$tmp/err" ||
		    { echo "compare.sh: $bin $* $dump failed:" >&2; cat "$tmp/err" >&2; exit 1; }
		cat "$tmp/t" >>"$tmp/$which"
	done
	i=$((i + 1))
done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ot=$(cut -d' ' -f1 "$tmp/old" | median) nt=$(cut -d' ' -f1 "$tmp/new" | median)
om=$(cut -d' ' -f2 "$tmp/old" | median) nm=$(cut -d' ' -f2 "$tmp/new" | median)
printf '%s: ying %s, %d alternating runs each\n' "$(basename "$dump")" "$*" "$runs"
printf '  old %s: median %.3f s, peak RSS %.1f MiB\n' "$old" "$ot" "$(echo "$om" | awk '{ print $1 / 1024 }')"
printf '  new %s: median %.3f s, peak RSS %.1f MiB\n' "$new" "$nt" "$(echo "$nm" | awk '{ print $1 / 1024 }')"
awk -v a="$ot" -v b="$nt" -v c="$om" -v d="$nm" 'BEGIN { printf "  new/old: time x%.2f, RSS x%.2f\n", (a > 0 ? b / a : 0), (c > 0 ? d / c : 0) }'
