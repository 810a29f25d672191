#!/bin/sh
# dwarf.sh: symbolization with DWARF: a -g C++ program whose 1,500 functions
# live in one 10 MB unit (bench/gen_dwarf_cpp.py), dumped at
# lg_prof_sample:0 (~7,500 stacks, ~9,000 distinct addresses); `ying top` vs
# `jeprof --text` (addr2line), alternating.  Writes $OUT/dwarf.md.
# Environment: YING, OUT, SRCDIR as for stacks.sh; RUNS (default 5).
set -eu
BENCH=dwarf
. "$SRCDIR/bench/lib.sh"
RUNS=${RUNS:-5}

python3 "$SRCDIR/bench/gen_dwarf_cpp.py" 1500 "$OUT/dwarf.cc"
c++ -g -O1 -o "$OUT/dwarf_prog" "$OUT/dwarf.cc" -ljemalloc
D="$OUT/dwarf.heap"
MALLOC_CONF=prof:true,lg_prof_sample:0 "$OUT/dwarf_prog" "$D"
yt=$("$YING" top --json -n 1 "$D" | python3 -c 'import json, sys; print(int(json.load(sys.stdin)["total"]))')
jt=$(jeprof --text --show_bytes "$OUT/dwarf_prog" "$D" 2>/dev/null | sed -n 's/^Total: \([0-9]*\) B/\1/p')
echo "dwarf: $(grep -c '^@' "$D") stacks; totals: ying $yt, jeprof $jt"
[ "$yt" = "$jt" ] || { echo "dwarf: totals differ" >&2; exit 1; }
: >"$OUT/$BENCH.times"
i=0
while [ "$i" -lt "$RUNS" ]; do
	measure ying "$YING" top "$D"
	measure jeprof jeprof --text --show_bytes "$OUT/dwarf_prog" "$D"
	i=$((i + 1))
done
{
	echo "### DWARF symbolization: one 10 MB C++ unit, $(grep -c '^@' "$D") stacks"
	echo
	echo "Machine: $(machine). Command: \`scripts/bench.sh dwarf\` (RUNS=$RUNS, alternating). Both print Total $yt B."
	echo
	echo "| tool | median wall | min | max | peak RSS |"
	echo "|---|---|---|---|---|"
	set -- $(stats ying)
	echo "| ying top | $1 s | $2 s | $3 s | $(( $4 / 1024 )) MiB |"
	set -- $(stats jeprof)
	echo "| jeprof --text | $1 s | $2 s | $3 s | $(( $4 / 1024 )) MiB |"
} >"$OUT/dwarf.md"
cat "$OUT/dwarf.md"
