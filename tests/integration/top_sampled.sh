#!/bin/sh
# top_sampled.sh: `ying top` at jemalloc's default sampling rate (one sample
# per ~512 KiB) on tests/programs/top_sampled.  Each function's estimate must
# lie within a statistical tolerance of the truth (about 4 standard
# deviations of the sampling error, computed in the comments below); the
# totals must be within half a unit per stack of the real jeprof's (ying
# rounds each stack's estimate once) and ying-jeprof's must equal jeprof's
# for all four sample indices: that checks the unsampling arithmetic
# (AdjustSamples) exactly, not statistically.
. "$YING_SRCDIR/tests/integration/top_lib.sh"

P="$PROGS/top_sampled"
D="$T/sampled.heap"
run_prog prof:true,prof_accum:true "$P" "$D"
ok $? "top_sampled writes a dump at the default rate"
head -n 1 "$D" | grep -q '^heap_v2/524288$'
ok $? "dump header shows the default period 524288"

for idx in inuse_space inuse_objects alloc_space alloc_objects; do
	ying top --json --sample-index "$idx" "$D" >"$T/$idx.json" 2>"$T/err"
	ok $? "ying top --sample-index $idx exits 0" || diag "$T/err"
	yt=$(jq_py "$T/$idx.json" 'd["total"]')
	jt=$(jeprof_total "$P" "$D" "--$idx")
	# each stack's estimate is rounded once: within half a unit per stack
	near_jeprof "$yt" "$jt" "$D"
	ok $? "$idx: total ($yt) is within half a unit per stack of jeprof's Total ($jt)"
	# the unsampling arithmetic to the byte: ying-jeprof sums jeprof's
	# unrounded estimates
	yjt=$("$YING_BUILDDIR/ying-jeprof" --text --show_bytes "--$idx" "$P" "$D" 2>/dev/null |
	    sed -n 's/^Total: \([0-9-]*\) .*/\1/p' | head -n 1)
	is "$yjt" "$jt" "$idx: ying-jeprof's Total equals jeprof's"
	is "$(jq_py "$T/$idx.json" 'names(2)')" "$(jeprof_top 2 "$P" "$D" "--$idx")" \
	    "$idx: same top two functions as jeprof"
done

# within REL TRUTH EXPR: |EXPR - TRUTH| <= REL * TRUTH on inuse_space.
within() {
	r=$(jq_py "$T/$4.json" "abs($3 - $2) <= $1 * $2")
	v=$(jq_py "$T/$4.json" "$3")
	is "$r" 1 "$4: $3 = $v within $(python3 -c "print(int($1 * 100))")% of $2"
}
# 64 x 1 MiB: each sampled with p = 1 - e^-2 = 0.865; relative sd
# sqrt((1-p)/(p n)) = 4.9 %.
within 0.20 67108864 'flat("big_blocks")' inuse_space
within 0.20 64 'flat("big_blocks")' inuse_objects
# 32768 x 1 KiB = 32 MiB: ~64 samples; relative sd 12.5 %.
within 0.50 33554432 'flat("small_blocks")' inuse_space
within 0.50 32768 'flat("small_blocks")' inuse_objects
# 16384 x 4 KiB allocated and freed = 64 MiB: ~128 samples; relative sd 8.9 %.
within 0.40 67108864 'flat("churn_blocks")' alloc_space
is "$(jq_py "$T/inuse_space.json" 'flat("churn_blocks")')" 0 "churn_blocks holds nothing at dump time"

plan_done
