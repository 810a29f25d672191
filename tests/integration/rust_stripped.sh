#!/bin/sh
# rust_stripped.sh: `ying run` on a stripped Rust release binary.
#
# rustsvc-stripped is rustsvc (static _rjem_ jemalloc, nothing in .dynsym)
# after `strip`: no .symtab, so nobody can call its jemalloc.  ying run
# must not preload a second jemalloc (the program has its own) and the
# agent must say, in one line, that this binary is stripped and what to
# do; the program runs unchanged (output, status 0) and no report
# directory appears; with --http (endpoint required) it is stopped before
# main with the same reason.  The unstripped rustsvc, same run, is
# profiled.
. "$YING_SRCDIR/tests/integration/rust_lib.sh"

S="$RS/rustsvc-stripped"
readelf -S "$S" | grep -q '\.symtab'
ok $((! $?)) "rustsvc-stripped has no .symtab"
"$S" 2 2 100 0 >"$T/plain.out" 2>&1
is "$?" 0 "it runs on its own"

ying run -v --report-dir "$T/r" -- "$S" 2 2 100 0 >"$T/out" 2>"$T/err"
is "$?" 0 "ying run: the program's status (0)"
sed 's/^/# /' "$T/err"
grep -q "^ying-agent: inert in pid [0-9]* (rustsvc-stripped): .*$S.* is stripped" "$T/err"
ok $? "the agent says the binary is stripped, naming it" || diag "$T/err"
grep -c '^ying-agent:' "$T/err" >"$T/n"
is "$(cat "$T/n")" 1 "... in one line"
grep -q 'brings its own jemalloc' "$T/err"
ok $? "ying run preloads no second jemalloc" || diag "$T/err"
is "$(cat "$T/out")" "$(cat "$T/plain.out")" "the program's output is unchanged"
[ -z "$(ls -A "$T/r" 2>/dev/null)" ]
ok $? "no report (ying run makes the report directory before CMD starts)"
# With --http, ying run asks the agent to require its endpoint: a program
# the agent cannot profile is stopped before main rather than run without
# it (see run_http_fail.sh), with the same reason.
ying run --http 127.0.0.1:0 --report-dir "$T/r" -- "$S" 2 2 100 0 >"$T/out2" 2>"$T/err2"
is "$?" 1 "with --http: stopped, status 1"
is "$(cat "$T/out2")" "" "... before main"
grep -q 'HTTP endpoint on 127.0.0.1:0 not started: .* is stripped' "$T/err2"
ok $? "... saying the binary is stripped" || diag "$T/err2"

ying run --report-dir "$T/r2" --interval 1 --floor 1MiB -- "$RS/rustsvc" 3 4 800 1500 \
    >"$T/out3" 2>"$T/err3"
is "$?" 0 "the unstripped rustsvc under the same ying run: status 0"
grep -q '(rustsvc): heap profiling on' "$T/err3"
ok $? "... profiled" || diag "$T/err3"
has_report "$T/r2"
ok $? "... with growth reports" || diag "$T/err3"

plan_done
