#!/bin/sh
# formats.sh: the writers and yingdiff on the 200,000-stack dump of
# bench/gen_stacks.c: `ying pprof`, `ying flamegraph`, `ying folded` (vs
# `jeprof --collapsed`), `ying callgraph` (vs `jeprof --dot`), and
# `yingdiff` of two such dumps (vs `jeprof --base`).  Runs alternate;
# medians.  Checks that the diff totals and the call graphs' Totals agree
# with jeprof's first.  Writes $OUT/formats.md.
# Environment: YING, OUT, SRCDIR as for stacks.sh; RUNS (default 5),
# JRUNS (jeprof runs, default 3: each takes tens of seconds); ONLY (a
# space-separated list of the table's labels: measure only those, e.g.
# ONLY="callgraph jdot").
set -eu
BENCH=formats
. "$SRCDIR/bench/lib.sh"
RUNS=${RUNS:-5}
JRUNS=${JRUNS:-3}
YINGDIFF=$(dirname "$YING")/yingdiff
ONLY=${ONLY:-}
# want LABEL: LABEL is measured (all of them unless ONLY names some).
want() {
	[ -z "$ONLY" ] || case " $ONLY " in *" $1 "*) true ;; *) false ;; esac
}

# A dump older than the program is remade: ying (rightly) refuses to
# symbolize with a binary modified after the dump was taken.
[ "$OUT/gen_stacks" -nt "$SRCDIR/bench/gen_stacks.c" ] ||
	cc -g -O0 -Wall -o "$OUT/gen_stacks" "$SRCDIR/bench/gen_stacks.c" -ljemalloc
A="$OUT/stacks200k.heap"
B="$OUT/stacks250k.heap"
[ -s "$A" ] && [ "$A" -nt "$OUT/gen_stacks" ] ||
	MALLOC_CONF=prof:true,lg_prof_sample:0 "$OUT/gen_stacks" 200000 "$A"
[ -s "$B" ] && [ "$B" -nt "$OUT/gen_stacks" ] ||
	MALLOC_CONF=prof:true,lg_prof_sample:0 "$OUT/gen_stacks" 250000 "$B"
echo "formats: $(grep -c '^@' "$A") and $(grep -c '^@' "$B") stacks"

if want yingdiff || want jbase; then
yd=$("$YINGDIFF" --json "$A" "$B" | python3 -c 'import json,sys; print(int(json.load(sys.stdin)["delta"]))')
jd=$(jeprof --text --show_bytes --base="$A" "$OUT/gen_stacks" "$B" 2>/dev/null | sed -n 's/^Total: \(-*[0-9]*\) B/\1/p')
echo "formats: diff totals: yingdiff $yd, jeprof --base $jd"
[ "$yd" = "$jd" ] || { echo "formats: diff totals differ" >&2; exit 1; }
fi
if want callgraph || want jdot; then
yt=$("$YING" callgraph --show-bytes "$A" | sed -n 's/.*\\lTotal B: \(-*[0-9]*\)\\l.*/\1/p')
jt=$(jeprof --dot --show_bytes "$OUT/gen_stacks" "$A" 2>/dev/null | sed -n 's/.*\\lTotal B: \(-*[0-9]*\)\\l.*/\1/p')
echo "formats: call graph Totals: ying callgraph $yt, jeprof --dot $jt"
[ -n "$yt" ] && [ "$yt" = "$jt" ] || { echo "formats: call graph Totals differ" >&2; exit 1; }
fi

: >"$OUT/$BENCH.times"
i=0
while [ "$i" -lt "$RUNS" ]; do
	want pprof && measure pprof "$YING" pprof "$A" -o "$OUT/f.pb.gz"
	want svg && measure svg "$YING" flamegraph "$A" -o "$OUT/f.svg"
	want folded && measure folded "$YING" folded "$A"
	want callgraph && measure callgraph "$YING" callgraph "$A" -o "$OUT/f.dot"
	want yingdiff && measure yingdiff "$YINGDIFF" "$A" "$B"
	if [ "$i" -lt "$JRUNS" ]; then
		want jcollapsed && measure jcollapsed jeprof --collapsed "$OUT/gen_stacks" "$A"
		want jdot && measure jdot jeprof --dot "$OUT/gen_stacks" "$A"
		want jbase && measure jbase jeprof --text --show_bytes --base="$A" "$OUT/gen_stacks" "$B"
	fi
	i=$((i + 1))
	echo "formats: run $i/$RUNS done"
done
{
	echo "### Writers and yingdiff on the 200,000-stack dump"
	echo
	echo "Machine: $(machine). Command: \`scripts/bench.sh formats\` (RUNS=$RUNS, JRUNS=$JRUNS, alternating)."
	want yingdiff && echo "yingdiff and jeprof --base both print a delta of $yd B."
	want callgraph && echo "ying callgraph and jeprof --dot both print a Total of $yt B."
	echo
	echo "| command | median wall | min | max | peak RSS |"
	echo "|---|---|---|---|---|"
	for l in pprof svg folded jcollapsed callgraph jdot yingdiff jbase; do
		want $l || continue
		set -- $(stats $l)
		case $l in
		pprof) n="ying pprof DUMP -o f.pb.gz ($(stat -c %s "$OUT/f.pb.gz") B)" ;;
		svg) n="ying flamegraph DUMP -o f.svg ($(stat -c %s "$OUT/f.svg") B)" ;;
		folded) n="ying folded DUMP" ;;
		jcollapsed) n="jeprof --collapsed gen_stacks DUMP" ;;
		callgraph) n="ying callgraph DUMP -o f.dot ($(stat -c %s "$OUT/f.dot") B)" ;;
		jdot) n="jeprof --dot gen_stacks DUMP" ;;
		yingdiff) n="yingdiff BASE NOW" ;;
		jbase) n="jeprof --text --base=BASE gen_stacks NOW" ;;
		esac
		echo "| $n | $1 s | $2 s | $3 s | $(( $4 / 1024 )) MiB |"
	done
} >"$OUT/formats.md"
cat "$OUT/formats.md"
