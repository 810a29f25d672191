#!/bin/sh
# rust_example.sh: examples/rust, the Rust service that embeds libying.
#
# ying-rust-example is built by cargo against the build tree's libying
# (tests/rust/build.sh); it hands its static _rjem_mallctl to libying with
# ying_ctl_use and starts the growth reports and the HTTP endpoint in two
# lines of main.  Started directly (no ying run, no agent, no environment
# but YING_REPORT_INTERVAL/YING_REPORT_FLOOR), it must announce both,
# serve /debug/pprof/heap (go tool pprof names its leaking
# SessionStore::remember, demangled, the mangled symbol as system_name)
# and /debug/heap (ying top names it, with main.rs:LINE), and write growth
# reports whose biggest stack starts there.
. "$YING_SRCDIR/tests/integration/rust_lib.sh"

E="$RS/ying-rust-example"
FN='ying_rust_example::SessionStore::remember'
L=$(grep -n EXAMPLE_LEAK_LINE "$YING_SRCDIR/examples/rust/src/main.rs" | head -n 1 | cut -d: -f1)

ldd "$E" >"$T/ldd" 2>&1
grep -q "libying\.so.* => $YING_BUILDDIR/\.libs/libying\.so" "$T/ldd"
ok $? "the example links the build tree's libying" || diag "$T/ldd"
grep -q 'libying-agent' "$T/ldd"
ok $((! $?)) "... and not the agent"

# In an --enable-sanitize(=address) build libying.so is ASan-instrumented:
# its runtime must come first, so it is preloaded into the (uninstrumented)
# Rust program.  The program's own heap is jemalloc's, unseen by ASan, so
# its leak check would see libying's objects as unreferenced: off.
asan_env=
if [ "${YING_SANITIZE:-no}" = address ]; then
	asan_env="LD_PRELOAD=$(gcc -print-file-name=libasan.so) ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0"
fi
D="$T/reports"
env $asan_env YING_REPORT_INTERVAL=1 YING_REPORT_FLOOR=4MiB timeout 120 "$E" 127.0.0.1:0 "$D" 60 \
    >"$T/out" 2>"$T/err" &
ep=$!
bg_pids="$bg_pids $ep"
hp=$(http_port "$T/err")
ok $? "the example announces its HTTP endpoint (port $hp)" || diag "$T/err"
grep -q "^ying: growth reports in $D\$" "$T/err"
ok $? "... and its growth reports" || diag "$T/err"
wait_for 60 count_reports "$D" 2
ok $? "growth reports appear" || diag "$T/err"

fetch "$hp" debug/pprof/heap "$T/heap.pb.gz"
ok $? "/debug/pprof/heap: 200"
timeout 120 go tool pprof -top "$T/heap.pb.gz" >"$T/go.txt" 2>"$T/go.err"
ok $? "go tool pprof -top reads it" || diag "$T/go.err"
grep -q "$FN" "$T/go.txt"
ok $? "... and names $FN" || diag "$T/go.txt"
pprof_funcs "$T/heap.pb.gz" >"$T/funcs"
awk -F'\t' -v fn="$FN" '$1 == fn && $2 ~ /^_ZN.*SessionStore.*remember/' "$T/funcs" | grep -q .
ok $? "pprof: name $FN, system_name the mangled symbol" || diag "$T/funcs"
fetch "$hp" debug/heap "$T/now.heap"
ok $? "/debug/heap: 200"
ying top --json "$T/now.heap" >"$T/top.json" 2>"$T/top.err"
python3 - "$T/top.json" "$FN" "$L" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = [r for r in d["rows"] if r["function"] == sys.argv[2]][0]
assert (r.get("file") or "").endswith("main.rs") and r.get("line") == int(sys.argv[3]), r
assert r["cum"] >= 0.9 * d["total"], (r, d["total"])
PY
ok $? "ying top on /debug/heap: $FN (main.rs:$L) holds the heap" || diag "$T/top.err"
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["rows"][0]["function"] == sys.argv[2]' \
    "$T/top.json" "$FN"
ok $? "... as the top row (allocator frames trimmed)"

last=$(report_sets "$D" | tail -n 1)
sed -n '/^#1 /,/^#2 /p' "$D/$last.report" | grep -q "^ *$FN (\\(src/\\)\\?main\\.rs:$L)"
ok $? "the newest report's biggest stack goes through $FN (main.rs:$L)" || diag "$D/$last.report"
grep -q "$FN" "$D/$last.svg"
ok $? "... and its flame graph names it"
is "$(raw_names "$D/$last.report" "$D/$last.svg" "$T/go.txt" | tr '\n' ' ')" "" \
    "no raw Rust name in the report, the SVG, go tool pprof's view"

kill -0 "$ep" 2>/dev/null
ok $? "the example is still serving"
kill -TERM "$ep"
wait "$ep"
is "$?" 143 "SIGTERM ends it (default action)"

plan_done
