#!/bin/sh
# stacks.sh: `ying top` vs `jeprof --text` on a dump with 200,000 distinct
# stacks taken from a real program (bench/gen_stacks.c at lg_prof_sample:0).
# Runs alternate ying / jeprof RUNS times; reports median wall time, peak RSS
# (/usr/bin/time) and the ratios, and checks both print the same total.
# Environment: YING (the ying binary), OUT (bench/out), RUNS (default 5),
# SRCDIR (the source tree).  Writes $OUT/stacks.md.
set -eu
BENCH=stacks
. "$SRCDIR/bench/lib.sh"
RUNS=${RUNS:-5}
N=200000

cc -g -O0 -Wall -o "$OUT/gen_stacks" "$SRCDIR/bench/gen_stacks.c" -ljemalloc
D="$OUT/stacks200k.heap"
rm -f "$D"
MALLOC_CONF=prof:true,lg_prof_sample:0 "$OUT/gen_stacks" "$N" "$D"
nstacks=$(grep -c '^@' "$D")
size=$(stat -c %s "$D")
echo "stacks: $D: $nstacks stacks, $size bytes"
[ "$nstacks" -ge "$N" ] || { echo "stacks: expected >= $N stacks" >&2; exit 1; }

# Same answer first (and a warm page cache).
yt=$("$YING" top --json -n 1 "$D" | python3 -c 'import json, sys; print(int(json.load(sys.stdin)["total"]))')
jt=$(jeprof --text --show_bytes "$OUT/gen_stacks" "$D" 2>/dev/null | sed -n 's/^Total: \([0-9]*\) B/\1/p')
echo "stacks: totals: ying $yt, jeprof $jt"
[ "$yt" = "$jt" ] || { echo "stacks: totals differ" >&2; exit 1; }

: >"$OUT/$BENCH.times"
i=0
while [ "$i" -lt "$RUNS" ]; do
	measure ying "$YING" top "$D"
	measure jeprof jeprof --text --show_bytes "$OUT/gen_stacks" "$D"
	i=$((i + 1))
	echo "stacks: run $i/$RUNS: $(tail -n 2 "$OUT/$BENCH.times" | tr '\n' ' ')"
done
set -- $(stats ying)
y_med=$1 y_min=$2 y_max=$3 y_rss=$4
set -- $(stats jeprof)
j_med=$1 j_min=$2 j_max=$3 j_rss=$4
python3 - "$OUT/stacks.md" <<PY
import sys
size = $size
y_rss, j_rss = $y_rss * 1024, $j_rss * 1024
with open(sys.argv[1], "w") as f:
    f.write("""### 200,000 distinct stacks ($nstacks stacks, %.1f MB dump)

Machine: $(machine).
Command: \`scripts/bench.sh stacks\` (RUNS=$RUNS, alternating; \`$YING top DUMP\` vs
\`jeprof --text --show_bytes gen_stacks DUMP\`, output to /dev/null). Both print Total $yt B.

| tool | median wall | min | max | peak RSS | RSS / dump size |
|---|---|---|---|---|---|
| ying top | $y_med s | $y_min s | $y_max s | %.1f MB | %.2f |
| jeprof --text | $j_med s | $j_min s | $j_max s | %.1f MB | %.2f |

ying is **%.1f×** faster (median); goal: ying ≤ 0.5 s and RSS ≤ 3× the dump size.
""" % (size / 1e6, y_rss / 1e6, y_rss / size, j_rss / 1e6, j_rss / size, $j_med / max($y_med, 0.005)))
PY
cat "$OUT/stacks.md"
