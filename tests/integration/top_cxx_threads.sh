#!/bin/sh
# top_cxx_threads.sh: `ying top` on a C++ program allocating with new and
# new[] (the callers must be named, not operator new; jeprof misnames these
# frames `malloc_usable_size` on Debian), and on a program whose thread is
# named through mallctl("thread.prof.name") with spaces and a tab.
. "$YING_SRCDIR/tests/integration/top_lib.sh"

# C++: operator new is an allocator frame and is trimmed.
P="$PROGS/top_cxx"
D="$T/cxx.heap"
run_prog prof:true,lg_prof_sample:0 "$P" "$D"
ok $? "top_cxx writes a dump"
ying top --json "$D" >"$T/cxx.json" 2>"$T/err"
ok $? "ying top --json on the C++ dump exits 0" || diag "$T/err"
is "$(jq_py "$T/cxx.json" 'flat("make_widgets")')" 128000 "make_widgets: 1000 x new Widget (128 bytes, more than libstdc++'s 80 KiB pool)"
is "$(jq_py "$T/cxx.json" 'flat("make_buffers")')" 409600 "make_buffers: 100 x new char[4096]"
is "$(jq_py "$T/cxx.json" 'names(2)')" "make_buffers make_widgets" "the two callers are the top functions"
is "$(jq_py "$T/cxx.json" '[r["function"] for r in rows if r["flat"] > 0 and ("operator new" in r["function"] or r["function"] in ("malloc_usable_size", "malloc"))]')" "[]" \
    "no flat bytes are charged to operator new or jemalloc"
yt=$(jq_py "$T/cxx.json" 'd["total"]')
jt=$(jeprof_total "$P" "$D")
near_jeprof "$yt" "$jt" "$D"
ok $? "C++ total ($yt) equals jeprof's Total ($jt), within half a byte per stack"
ying top --lines --json "$D" >"$T/cxx-lines.json" 2>"$T/err"
is "$(jq_py "$T/cxx-lines.json" 'fn("make_widgets")["file"].endswith("top_cxx.cc")')" 1 "--lines: make_widgets is in top_cxx.cc"

# Thread names with spaces and a tab on the header lines.
P="$PROGS/top_threads"
D="$T/threads.heap"
run_prog prof:true,lg_prof_sample:0 "$P" "$D"
ok $? "top_threads writes a dump"
grep -q "$(printf '] worker with spaces\tand a tab$')" "$D"
ok $? "the dump carries the thread name with spaces and a tab" || diag "$D"
ying top --json "$D" >"$T/threads.json" 2>"$T/err"
ok $? "ying top parses the dump with the named thread" || diag "$T/err"
is "$(jq_py "$T/threads.json" 'flat("worker_alloc")')" 819200 "worker_alloc: 100 x 8192 bytes"
is "$(jq_py "$T/threads.json" 'flat("main_alloc")')" 102400 "main_alloc: 50 x 2048 bytes"
yt=$(jq_py "$T/threads.json" 'd["total"]')
jt=$(jeprof_total "$P" "$D")
near_jeprof "$yt" "$jt" "$D"
ok $? "threads total ($yt) equals jeprof's Total ($jt), within half a byte per stack"
is "$(jq_py "$T/threads.json" 'names(2)')" "$(jeprof_top 2 "$P" "$D")" "same top two functions as jeprof"

plan_done
