#!/bin/sh
# rust_run.sh: `ying run` on an unmodified Rust release binary.
#
# tests/rust/svc (rustsvc) is what `cargo build --release` makes of a
# service using jemalloc through jemalloc-sys (static, prefix _rjem_,
# profiling on) with debug = 1: nothing exported to .dynsym, no code for
# ying.  Under `ying run -v --http 127.0.0.1:0 --report-dir D --interval 1
# --floor 5MiB --heaps=one` (the program's own heap only: the default
# --heaps=all, which also preloads libjemalloc for C code, is
# heaps_rust.sh's) it keeps 8 MiB more per step in Cache::leak_entry (1 MiB
# entries) for 8 steps, then runs until SIGTERM.  ying run must set
# _RJEM_MALLOC_CONF and preload no second jemalloc; the agent must find
# the static _rjem_mallctl and serve HTTP; /debug/heap and /debug/pprof/heap
# answer; `ying top` on the dump names rustsvc::Cache::leak_entry with its
# file:line on top, with jeprof's total for the same dump and binary;
# top, folded, the flame graph, pprof (`name` demangled, `system_name` the
# mangled symbol), yingdiff and the growth reports hold no raw _ZN/_R name
# nor ::h<hash>; go tool pprof reads both pprof files; SIGTERM ends it
# with status 0.
. "$YING_SRCDIR/tests/integration/rust_lib.sh"

B="$RS/rustsvc"
L=$(svc_line RUSTSVC_LEAK_LINE)
FN='rustsvc::Cache::leak_entry'

nm -D "$B" 2>/dev/null | grep -q 'mallctl'
ok $((! $?)) "rustsvc exports no mallctl to .dynsym (no -rdynamic)"
nm "$B" | grep -q ' _rjem_mallctl$'
ok $? "... its .symtab holds the static _rjem_mallctl"

D="$T/reports"
start_svc "$T/out" "$T/err" run -v --http 127.0.0.1:0 --report-dir "$D" --interval 1 \
    --floor 5MiB --heaps=one -- "$B" 8 8 700 -1
hp=$(http_port "$T/err")
ok $? "the agent serves HTTP inside the Rust service (port $hp)" || diag "$T/err"
grep -q '^ying run: _RJEM_MALLOC_CONF=prof:true,prof_active:false$' "$T/err"
ok $? "ying run sets _RJEM_MALLOC_CONF for the _rjem_ jemalloc" || diag "$T/err"
grep -q 'brings its own jemalloc' "$T/err"
ok $? "... and preloads no second jemalloc" || diag "$T/err"
grep -q '^ying-agent: pid [0-9]* (rustsvc): heap profiling on' "$T/err"
ok $? "the agent is on in rustsvc" || diag "$T/err"
pid=$(sed -n 's/^ying-agent: pid \([0-9]*\) (rustsvc).*/\1/p' "$T/err" | head -n 1)
if [ -n "$pid" ] && [ -r "/proc/$pid/maps" ]; then
	grep -c 'libjemalloc' "/proc/$pid/maps" >"$T/nmaps"
	is "$(cat "$T/nmaps")" 0 "no libjemalloc.so mapped in rustsvc (pid $pid)"
else
	ok 1 "rustsvc's pid from the agent's line ($pid)"
fi

wait_for 30 grep -q '^step 1:' "$T/out"
fetch "$hp" debug/heap "$T/base.heap"
ok $? "/debug/heap after step 1: 200"
wait_for 60 grep -q '^step 8:' "$T/out"
ok $? "rustsvc went through its 8 steps" || diag "$T/out"
fetch "$hp" debug/heap "$T/now.heap"
ok $? "/debug/heap after step 8: 200"
head -n 1 "$T/now.heap" | grep -q '^heap_v2/'
ok $? "... a heap_v2 dump" || diag "$T/now.heap"
fetch "$hp" debug/pprof/heap "$T/http.pb.gz"
ok $? "/debug/pprof/heap: 200"
fetch "$hp" 'debug/heap?format=text' "$T/http.txt"
ok $? "/debug/heap?format=text: 200"
grep -q "$FN" "$T/http.txt"
ok $? "... names $FN" || diag "$T/http.txt"

# ying top: the leaking method, with file:line, on top; jeprof's total
ying top "$T/now.heap" >"$T/top.txt" 2>"$T/top.err"
ok $? "ying top reads the dump" || diag "$T/top.err"
sed 's/^/# /' "$T/top.txt" | head -n 14
ying top --json "$T/now.heap" >"$T/top.json" 2>>"$T/top.err"
# (leading frames inlined from the alloc crate, vec![] -> RawVec ->
# alloc::alloc::alloc, are allocator frames: the method is the top row)
python3 - "$T/top.json" "$FN" "$L" <<'PY2'
import json, sys
d = json.load(open(sys.argv[1]))
r = [r for r in d["rows"] if r["function"] == sys.argv[2]][0]
assert (r.get("file") or "").endswith("main.rs") and r.get("line") == int(sys.argv[3]), r
assert r["cum"] >= 0.9 * d["total"], (r, d["total"])
PY2
ok $? "ying top: $FN (main.rs:$L) holds the heap (cum)" || diag "$T/top.txt"
grep -Eq "  $FN \\((src/)?main\\.rs:$L\\)\$" "$T/top.txt"
ok $? "... printed as '$FN (main.rs:$L)'" || diag "$T/top.txt"
python3 - "$T/top.json" "$FN" <<'PY2'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["rows"][0]
assert r["function"] == sys.argv[2] and r["flat"] >= 0.9 * d["total"], r
PY2
ok $? "... and is the top row, flat (allocator frames trimmed)" || diag "$T/top.txt"
yt=$(python3 -c 'import json, sys, math; print(math.trunc(json.load(open(sys.argv[1]))["total"]))' "$T/top.json")
jt=$(jeprof_total "$B" "$T/now.heap")
near_jeprof "$yt" "$jt" "$T/now.heap"
ok $? "ying top total ($yt) = jeprof --text total ($jt) for the same dump and binary, within half a byte per stack" || diag "$T/jeprof.err"
total_mib=$((yt >> 20))
[ "$total_mib" -ge 50 ] && [ "$total_mib" -le 80 ]
ok $? "the total is about the 64 MiB kept (got $total_mib MiB)"

# every output demangled
ying folded "$T/now.heap" >"$T/now.folded" 2>"$T/folded.err"
ok $? "ying folded" || diag "$T/folded.err"
grep -Eq "rustsvc::main;$FN[; ]" "$T/now.folded"
ok $? "folded: ...;rustsvc::main;$FN..." || diag "$T/now.folded"
grep -Eq "std::sys_common::backtrace::__rust_begin_short_backtrace;core::ops::function::FnOnce::call_once(\\[inline\\])?;rustsvc::main;" "$T/now.folded"
ok $? "folded: the inlined core::ops::function::FnOnce::call_once (line tables have inline frames)" ||
    diag "$T/now.folded"
ying flamegraph "$T/now.heap" -o "$T/now.svg" 2>"$T/svg.err"
ok $? "ying flamegraph" || diag "$T/svg.err"
grep -q "$FN" "$T/now.svg"
ok $? "the SVG names $FN"
ying pprof "$T/now.heap" -o "$T/cli.pb.gz" 2>"$T/pprof.err"
ok $? "ying pprof" || diag "$T/pprof.err"
pprof_funcs "$T/cli.pb.gz" >"$T/cli.funcs"
awk -F'\t' -v fn="$FN" '$1 == fn && $2 ~ /^_ZN.*leak_entry.*17h[0-9a-f]+E$/ && $3 ~ /main\.rs$/' \
    "$T/cli.funcs" | grep -q .
ok $? "pprof: name $FN, system_name the mangled _ZN...leak_entry...17h<hash>E, filename main.rs" ||
    diag "$T/cli.funcs"
pprof_funcs "$T/http.pb.gz" >"$T/http.funcs"
awk -F'\t' -v fn="$FN" '$1 == fn && $2 ~ /^_ZN/' "$T/http.funcs" | grep -q .
ok $? "/debug/pprof/heap (symbolized in the process): the same name and system_name" ||
    diag "$T/http.funcs"
cut -f1 "$T/cli.funcs" "$T/http.funcs" >"$T/pprof.names"
ying diff --cum "$T/base.heap" "$T/now.heap" >"$T/diff.txt" 2>"$T/diff.err"
ok $? "ying diff --cum base now" || diag "$T/diff.err"
grep -q "+.*$FN" "$T/diff.txt"
ok $? "yingdiff: $FN grew" || diag "$T/diff.txt"
is "$(raw_names "$T/top.txt" "$T/http.txt" "$T/now.folded" "$T/now.svg" "$T/pprof.names" \
    "$T/diff.txt" | tr '\n' ' ')" "" \
    "no raw _ZN/_R name nor ::h<hash> in top, /debug/heap?format=text, folded, SVG, pprof names, yingdiff"

for f in cli http; do
	timeout 120 go tool pprof -top "$T/$f.pb.gz" >"$T/go-$f.txt" 2>"$T/go.err"
	ok $? "go tool pprof -top reads the $f pprof" || diag "$T/go.err"
	grep -q "$FN" "$T/go-$f.txt"
	ok $? "... and shows $FN" || diag "$T/go-$f.txt"
done

# growth reports
wait_for 30 count_reports "$D" 2
ok $? "growth reports were written" || diag "$T/err"
last=$(report_sets "$D" | tail -n 1)
R="$D/$last.report"
sed -n '/^#1 /,/^#2 /p' "$R" | grep -q "^ *$FN (\\(src/\\)\\?main\\.rs:$L)"
ok $? "the newest report's biggest stack goes through $FN (main.rs:$L)" || diag "$R"
is "$(raw_names "$R" "$D/$last.svg" | tr '\n' ' ')" "" "no raw Rust name in the .report and .svg"
ying top --json "$D/$last.heap" >"$T/rtop.json" 2>"$T/rtop.err"
python3 -c 'import json, sys; assert sys.argv[2] in [r["function"] for r in json.load(open(sys.argv[1]))["rows"]]' \
    "$T/rtop.json" "$FN"
ok $? "the report's .heap: ying top names $FN" || diag "$T/rtop.err"

kill -TERM "$svc_pid"
wait "$svc_pid"
is "$?" 0 "SIGTERM: rustsvc stops cleanly, ying run exits 0"
grep -q '^rustsvc: 64 entries' "$T/out"
ok $? "rustsvc's last line passes through" || diag "$T/out"

plan_done
