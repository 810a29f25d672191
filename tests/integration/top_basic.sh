#!/bin/sh
# top_basic.sh: `ying top` on a real program with known allocation sites
# (tests/programs/top_basic.c) profiled at lg_prof_sample:0, where every
# allocation is sampled and the numbers are exact.  Checks flat/cum values
# per function and per line, every sample index, and the real jeprof as the
# oracle: its Total equals ying's total (truncated as jeprof prints it) and
# both name the same top three functions.
. "$YING_SRCDIR/tests/integration/top_lib.sh"

SRC="$YING_SRCDIR/tests/programs/top_basic.c"
P="$PROGS/top_basic"
D="$T/basic.heap"
run_prog prof:true,lg_prof_sample:0,prof_accum:true "$P" "$D"
ok $? "top_basic writes a dump at lg_prof_sample:0 with prof_accum"
head -n 1 "$D" | grep -q '^heap_v2/1$'
ok $? "dump header says every allocation is sampled (heap_v2/1)"

J="$T/inuse_space.json"
ying top --json "$D" >"$J" 2>"$T/err"
ok $? "ying top --json exits 0" || diag "$T/err"
is "$(jq_py "$J" 'd["unit"] + " " + d["sample_index"]')" "bytes inuse_space" "unit and sample index of the default report"
is "$(jq_py "$J" 'flat("leak_a")')" 4096000 "leak_a: flat 1000 x 4096 bytes"
is "$(jq_py "$J" 'cum("leak_a")')" 4096000 "leak_a: cum equals flat"
is "$(jq_py "$J" 'flat("leak_b")')" 307200 "leak_b: flat 300 x 1024 bytes"
is "$(jq_py "$J" 'flat("via_b")')" 0 "via_b (leak_b's caller) has no flat bytes"
is "$(jq_py "$J" 'cum("via_b")')" 307200 "via_b: cum is leak_b's bytes"
is "$(jq_py "$J" 'flat("leak_c")')" 204800 "leak_c: calloc trimmed, flat 400 x 512 bytes"
is "$(jq_py "$J" 'flat("churn")')" 0 "churn freed everything: nothing in use"
is "$(jq_py "$J" 'cum("main") >= 4096000 + 307200 + 204800')" 1 "main's cum covers the three leaks"
is "$(jq_py "$J" 'all(r["cum"] >= r["flat"] >= 0 for r in rows)')" 1 "every row has 0 <= flat <= cum"
is "$(jq_py "$J" 'all(rows[i]["flat"] >= rows[i+1]["flat"] for i in range(len(rows)-1))')" 1 "rows are sorted by flat"
is "$(jq_py "$J" 'not any(r["function"] in ("malloc", "calloc", "je_malloc_default", "prof_backtrace_impl") for r in rows)')" 1 \
    "no allocator or jemalloc frame is reported"
is "$(jq_py "$J" 'fn("leak_a")["file"].endswith("top_basic.c")')" 1 "leak_a's file is top_basic.c"

# The exact value of each sample index and jeprof's Total for it.
for idx in inuse_space inuse_objects alloc_space alloc_objects; do
	ying top --json --sample-index "$idx" "$D" >"$T/$idx.json" 2>"$T/err"
	ok $? "ying top --sample-index $idx exits 0" || diag "$T/err"
	yt=$(jq_py "$T/$idx.json" 'd["total"]')
	jt=$(jeprof_total "$P" "$D" "--$idx")
	near_jeprof "$yt" "$jt" "$D"
	ok $? "$idx: total ($yt) equals jeprof's Total ($jt), within half a unit per stack"
	is "$(jq_py "$T/$idx.json" 'names(3)')" "$(jeprof_top 3 "$P" "$D" "--$idx")" \
	    "$idx: same top three functions as jeprof"
done
is "$(jq_py "$T/inuse_objects.json" 'd["unit"]')" objects "inuse_objects unit is objects"
is "$(jq_py "$T/inuse_objects.json" 'flat("leak_a")')" 1000 "inuse_objects: leak_a 1000 objects"
is "$(jq_py "$T/inuse_objects.json" 'flat("leak_c")')" 400 "inuse_objects: leak_c 400 objects"
is "$(jq_py "$T/alloc_space.json" 'flat("churn")')" 1024000 "alloc_space: churn allocated 2000 x 512 bytes"
is "$(jq_py "$T/alloc_space.json" 'flat("leak_a")')" 4096000 "alloc_space: leak_a 4096000 bytes"
is "$(jq_py "$T/alloc_objects.json" 'flat("churn")')" 2000 "alloc_objects: churn 2000 objects"

# Per line: leak_a's bytes sit on its malloc line, as jeprof --lines says.
ying top --lines --json "$D" >"$T/lines.json" 2>"$T/err"
ok $? "ying top --lines --json exits 0" || diag "$T/err"
la=$(line_of "$SRC" '/\* @leak_a \*/')
is "$(jq_py "$T/lines.json" 'fn("leak_a")["line"]')" "$la" "--lines: leak_a's row is the malloc line $la"
is "$(jq_py "$T/lines.json" 'fn("leak_a")["flat"]')" 4096000 "--lines: that line holds 4096000 bytes"
lc=$(line_of "$SRC" '/\* @leak_c \*/')
is "$(jq_py "$T/lines.json" 'fn("leak_c")["line"]')" "$lc" "--lines: leak_c's row is the calloc line $lc"
jl=$(jeprof_text "$P" "$D" --lines | awk '$6 == "leak_a" { print $7; exit }' | sed 's/.*://')
is "$jl" "$la" "jeprof --lines agrees on leak_a's line"

# Human output: the total first, then the functions.
ying top "$D" >"$T/human.txt" 2>"$T/err"
ok $? "ying top (text) exits 0" || diag "$T/err"
total=$(jq_py "$J" 'd["total"]')
mb=$(python3 -c 'import sys; print("%.1f" % (float(sys.argv[1]) / 1048576))' "$total")
head -n 1 "$T/human.txt" | grep -Eiq "total.*($total|$mb)"
ok $? "text output starts with a line showing the total ($total B = $mb MB)" || diag "$T/human.txt"
grep -q 'leak_a' "$T/human.txt" && grep -q 'leak_b' "$T/human.txt" && grep -q 'leak_c' "$T/human.txt"
ok $? "text output names leak_a, leak_b and leak_c" || diag "$T/human.txt"
ying top --lines "$D" >"$T/human-lines.txt" 2>"$T/err"
grep 'leak_a' "$T/human-lines.txt" | grep -q "top_basic.c:$la"
ok $? "text --lines shows top_basic.c:$la for leak_a" || diag "$T/human-lines.txt"

plan_done
