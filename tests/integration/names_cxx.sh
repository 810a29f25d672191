#!/bin/sh
# names_cxx.sh: short function names on a real C++ program
# (tests/programs/names_cxx.cc, compiled here with the system c++): `ying
# top` (text and JSON), yingdiff (text and JSON), folded stacks, the flame
# graph (short label, full name on hover), the call graph and the growth
# report print `cache_blob`, `make_many`, `run_lambda::{lambda#1}::operator()`
# as jeprof and go tool pprof do; --full-names prints the whole
# signatures; the overloads store(int)/store(double) and the instances
# Box<Apple>::get/Box<Pear>::get stay apart and tell themselves apart, and
# the diff matches `store(int)` across a BASE that has one `store` and a NOW
# that has two; pprof keeps the full name and the mangled one; ying-jeprof
# prints what jeprof prints.
. "$YING_SRCDIR/tests/integration/top_lib.sh"
need c++ pkg-config go

YINGDIFF="$YING_BUILDDIR/yingdiff"
P="$T/names_cxx"
c++ -g -O0 -fno-omit-frame-pointer -o "$P" "$YING_SRCDIR/tests/programs/names_cxx.cc" \
    $(pkg-config --cflags --libs jemalloc) 2>"$T/cc.err"
ok $? "build names_cxx with the system c++" || diag "$T/cc.err"
MALLOC_CONF=prof:true,lg_prof_sample:0 timeout 60 "$P" "$T/base.heap" "$T/now.heap" \
    >"$T/prog.out" 2>&1 </dev/null
ok $? "names_cxx writes BASE and NOW" || diag "$T/prog.out"

# the function column of text tables: what follows the five value columns
names_of() {
	sed -n 's/^ *[-+0-9.]* [KMG]*i*B *[0-9.]*% *[0-9.]*% *[-+0-9.]* [KMG]*i*B *[0-9.]*%  //p' "$1" |
	    sed 's/ ([^()]*:[0-9]*)$//'
}

# --- ying top ------------------------------------------------------------
ying top -n 0 "$T/now.heap" >"$T/top.txt" 2>"$T/err"
ok $? "ying top" || diag "$T/err"
names_of "$T/top.txt" >"$T/top.names"
for n in cache_blob make_many app::Registry::remember 'run_lambda::{lambda#1}::operator()' \
    '(anonymous namespace)::hidden' 'Sink::operator<<' round; do
	grep -qxF "$n" "$T/top.names"
	ok $? "top: $n" || diag "$T/top.names"
done
grep -qxF 'store(int)' "$T/top.names" && grep -qxF 'store(double)' "$T/top.names"
ok $? "top: the overloads stay two rows and print their parameters" || diag "$T/top.names"
grep -qxF 'Box<Apple>::get' "$T/top.names" && grep -qxF 'Box<Pear>::get' "$T/top.names"
ok $? "top: the template instances stay two rows and print their arguments" || diag "$T/top.names"
! grep -q 'unsigned long\|basic_string\|(int) const\|Widget\*' "$T/top.txt"
ok $? "top: no parameter list, template argument or return type otherwise" || diag "$T/top.txt"
ying top -n 0 "$T/base.heap" | names_of /dev/stdin >"$T/btop.names"
grep -qxF store "$T/btop.names" && ! grep -q 'store(' "$T/btop.names"
ok $? "top of BASE (one store): plain store" || diag "$T/btop.names"

ying top --full-names -n 0 "$T/now.heap" >"$T/topf.txt" 2>"$T/err"
ok $? "ying top --full-names" || diag "$T/err"
for n in 'cache_blob(unsigned long)' 'Widget\* make_many<Widget>(int)' \
    'run_lambda()::{lambda(int)#1}::operator()(int) const' \
    'app::Registry::remember(std::__cxx11::basic_string<char' 'Box<Apple>::get()'; do
	grep -q "  $n" "$T/topf.txt"
	ok $? "top --full-names: $n" || diag "$T/topf.txt"
done

ying top --json -n 0 "$T/now.heap" >"$T/top.json" 2>"$T/err"
is "$(jq_py "$T/top.json" '[(r["function"], r["full_name"]) for r in rows if r["function"] in ("cache_blob", "store(int)", "Box<Pear>::get")]')" \
    "[('Box<Pear>::get', 'Box<Pear>::get()'), ('store(int)', 'store(int)'), ('cache_blob', 'cache_blob(unsigned long)')]" \
    "top --json: function is the short name, full_name the whole one"
is "$(jq_py "$T/top.json" '[int(r["flat"]) for r in rows if r["function"] in ("store(int)", "store(double)", "Box<Apple>::get", "Box<Pear>::get")]')" \
    "[409600, 358400, 256000, 153600]" "top --json: the four rows keep their own bytes"
ying top --json --full-names "$T/now.heap" >"$T/topf.json"
is "$(jq_py "$T/topf.json" 'fn("cache_blob")["function"]')" "cache_blob(unsigned long)" \
    "top --json --full-names: function is the whole name"

# --- yingdiff ------------------------------------------------------------
timeout 60 "$YINGDIFF" "$T/base.heap" "$T/now.heap" >"$T/diff.txt" 2>"$T/err"
ok $? "yingdiff BASE NOW" || diag "$T/err"
grep -Eq '^ +\+125\.0 KiB +125\.0 KiB +250\.0 KiB .* store\(int\) \(' "$T/diff.txt"
ok $? "diff: store(int) matched across BASE (one store) and NOW (two)" || diag "$T/diff.txt"
grep -Eq '^ +\+150\.0 KiB +0 B +150\.0 KiB .* store\(double\) \(' "$T/diff.txt"
ok $? "diff: store(double) is new (0 in BASE)" || diag "$T/diff.txt"
grep -q ' cache_blob (names_cxx.cc:' "$T/diff.txt" && grep -q ' Box<Apple>::get (' "$T/diff.txt" &&
    ! grep -q 'unsigned long' "$T/diff.txt"
ok $? "diff: short names" || diag "$T/diff.txt"
timeout 60 "$YINGDIFF" --full-names "$T/base.heap" "$T/now.heap" >"$T/difff.txt" 2>&1
grep -q ' cache_blob(unsigned long) (names_cxx.cc:' "$T/difff.txt"
ok $? "diff --full-names: whole names" || diag "$T/difff.txt"
timeout 60 "$YINGDIFF" --json "$T/base.heap" "$T/now.heap" >"$T/diff.json" 2>&1
is "$(jq_py "$T/diff.json" '[(r["function"], r["full_name"], int(r["base"]), int(r["now"])) for r in rows if r["function"].startswith("store")]')" \
    "[('store(double)', 'store(double)', 0, 153600), ('store(int)', 'store(int)', 128000, 256000)]" \
    "diff --json: store(int) matched, store(double) new, function and full_name"

# --- folded, flame graph, call graph -----------------------------------------
ying folded "$T/now.heap" >"$T/folded" 2>"$T/err"
ok $? "ying folded" || diag "$T/err"
grep -q ';round;cache_blob 204800$' "$T/folded" && grep -q ';round;store(int) 256000$' "$T/folded" &&
    grep -q ';round;run_lambda;run_lambda::{lambda#1}::operator() 716800$' "$T/folded" &&
    ! grep -q 'unsigned long' "$T/folded"
ok $? "folded: short names, the overloads apart" || diag "$T/folded"
ying folded --full-names "$T/now.heap" | grep -q ';round(bool);cache_blob(unsigned long) 204800$'
ok $? "folded --full-names: whole names"

ying flamegraph --width 6000 -o "$T/now.svg" "$T/now.heap" 2>"$T/err"
ok $? "ying flamegraph" || diag "$T/err"
grep -q '<g><title>cache_blob(unsigned long)$' "$T/now.svg"
ok $? "svg: the hover text has the full name" || diag "$T/err"
grep -q '<text [^>]*>cache_blob</text>' "$T/now.svg" &&
    grep -q '<text [^>]*>Box&lt;Apple&gt;::get</text>' "$T/now.svg"
ok $? "svg: the label is the short name" || grep 'cache_blob\|Apple' "$T/now.svg" | head -n 4 | sed 's/^/# /'

ying callgraph -o "$T/now.dot" "$T/now.heap" 2>"$T/err"
ok $? "ying callgraph" || diag "$T/err"
grep -q 'label="cache_blob\\n' "$T/now.dot" && ! grep -q 'unsigned long' "$T/now.dot"
ok $? "callgraph: short labels" || grep cache_blob "$T/now.dot" | sed 's/^/# /'

# --- pprof keeps the full name and the mangled one -----------------------------
ying pprof -o "$T/now.pb.gz" "$T/now.heap" 2>"$T/err"
ok $? "ying pprof" || diag "$T/err"
HOME="$T" GOFLAGS=-mod=mod timeout 120 go tool pprof -top -nodecount=100 "$T/now.pb.gz" >"$T/go.txt" 2>"$T/go.err"
grep -q ' cache_blob(unsigned long)$' "$T/go.txt" && grep -q ' Box<Apple>::get()$' "$T/go.txt"
ok $? "go tool pprof -top: the full names" || { diag "$T/go.txt"; diag "$T/go.err"; }
HOME="$T" timeout 120 go tool pprof -raw "$T/now.pb.gz" 2>/dev/null | grep -q ' cache_blob(unsigned long) .*names_cxx.cc:[0-9]* s=0(_Z10cache_blobm)$'
ok $? "go tool pprof -raw: name and system_name (the mangled _Z10cache_blobm)"

# --- ying-jeprof prints jeprof's names -------------------------------------
"$YING_BUILDDIR/ying-jeprof" --text --show_bytes "$P" "$T/now.heap" >"$T/yj.txt" 2>"$T/err"
ok $? "ying-jeprof --text" || diag "$T/err"
jeprof_text "$P" "$T/now.heap" >"$T/j.txt"
for n in cache_blob make_many app::Registry::remember; do
	grep -q " $n\$" "$T/yj.txt" && grep -q " $n\$" "$T/j.txt"
	ok $? "ying-jeprof and jeprof: $n" || { diag "$T/yj.txt"; diag "$T/j.txt"; }
done

# --- the growth report -------------------------------------------------------
D="$T/r"
timeout 60 "$YING" run -q --report-dir "$D" --interval 1 --floor 1MiB --sample 0 -- "$P" --hold 3 \
    >"$T/run.out" 2>&1
ok $? "ying run names_cxx --hold 3" || diag "$T/run.out"
R=$(ls "$D"/*.report 2>/dev/null | tail -n 1)
test -n "$R" && grep -q ' cache_blob (names_cxx.cc:' "$R" &&
    grep -q '^ *run_lambda::{lambda#1}::operator() (names_cxx.cc:' "$R" &&
    grep -q ' store(int) (names_cxx.cc:' "$R" && ! grep -q 'unsigned long\|(int) const' "$R"
ok $? "the growth report: short names, the overloads apart" || { ls -la "$D" | sed 's/^/# /'; test -n "$R" && diag "$R"; }
timeout 60 "$YING" run -q --full-names --report-dir "$T/rf" --interval 1 --floor 1MiB --sample 0 \
    -- "$P" --hold 3 >"$T/runf.out" 2>&1
R=$(ls "$T/rf"/*.report 2>/dev/null | tail -n 1)
test -n "$R" && grep -q ' cache_blob(unsigned long) (names_cxx.cc:' "$R"
ok $? "ying run --full-names (YING_REPORT_FULL_NAMES=1): whole names in the report" ||
    { diag "$T/runf.out"; test -n "$R" && diag "$R"; }

plan_done
