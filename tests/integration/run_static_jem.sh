#!/bin/sh
# run_static_jem.sh: `ying run` and the agent on a jemalloc that dlsym
# cannot see: C programs built here with Debian's libjemalloc.a linked
# statically and not exported (mallctl only in .symtab, as _rjem_mallctl is
# in a Rust release binary), a PIE and a non-PIE one.  The agent finds
# mallctl in the program's .symtab: a report set on the dump signal names
# the leaking C function; `ying run -v` and the agent's own -v line name
# the same symbol, table and file; no libjemalloc is preloaded.  A stripped
# copy leaves the agent inert with the exact "stripped" message and the
# program's output and exit status unchanged.  A glibc program gets
# libjemalloc preloaded, and the agent names that file.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need cc strip nm readelf realpath

SRC="$YING_SRCDIR/tests/programs/static_jem.c"
JEMA=$(pkg-config --variable=libdir jemalloc)/libjemalloc.a
CFL="-g -O0 -fno-omit-frame-pointer -fno-inline"
cc $CFL -fPIE -pie -o "$T/sj_pie" "$SRC" "$JEMA" -lpthread -lm -ldl
ok $? "build a PIE with a static jemalloc"
cc $CFL -fno-pie -no-pie -o "$T/sj_nopie" "$SRC" "$JEMA" -lpthread -lm -ldl
ok $? "build a non-PIE one"
strip -o "$T/sj_strip" "$T/sj_pie"
ok $? "strip a copy"
is "$(readelf -h "$T/sj_pie" | awk '/Type:/ { print $2 }')" DYN "sj_pie is ET_DYN"
is "$(readelf -h "$T/sj_nopie" | awk '/Type:/ { print $2 }')" EXEC "sj_nopie is ET_EXEC"
for p in sj_pie sj_nopie sj_strip; do
	is "$(nm -D "$T/$p" | grep -c mallctl)" 0 "$p does not export mallctl"
done
nm "$T/sj_pie" | grep -q ' T mallctl$'
ok $? "sj_pie has mallctl in .symtab"
nm "$T/sj_strip" 2>&1 | grep -q 'no symbols'
ok $? "sj_strip has no symbols"

# active NAME: under ying run, a report set on SIGUSR2 names static_jem_leak.
active() {
	_p=$1
	_d="$T/r_$_p"
	"$YING" run -v --dump-signal USR2 --interval 0 --report-dir "$_d" -- \
	    "$T/$_p" 24 60 >"$T/$_p.out" 2>"$T/$_p.err" &
	_pid=$!
	bg_pids="$bg_pids $_pid"
	wait_for 20 grep -q '^grown 24' "$T/$_p.out"
	ok $? "$_p: grew" || diag "$T/$_p.err"
	grep -q "^ying-agent: pid [0-9]* ($_p): heap profiling on" "$T/$_p.err"
	ok $? "$_p: the agent is active" || diag "$T/$_p.err"
	kill -USR2 "$_pid"
	wait_for 30 count_reports "$_d" 1
	ok $? "$_p: SIGUSR2: a report set" || diag "$T/$_p.err"
	_base=$(report_sets "$_d" | head -n 1)
	grep -q 'static_jem_leak' "$_d/$_base.report"
	ok $? "$_p: the report names the leaking function" || diag "$_d/$_base.report"
	_m=$(mb_of "$_base")
	[ -n "$_m" ] && [ "$_m" -ge 20 ] && [ "$_m" -le 28 ]
	ok $? "$_p: its size is the program's 24 MiB (got $_m)"
	ying top -n 1 "$_d/$_base.heap" >"$T/$_p.top" 2>&1
	sed -n 3p "$T/$_p.top" | grep -q 'static_jem_leak (static_jem.c:'
	ok $? "$_p: ying top on its dump: static_jem_leak on top, with its line" ||
	    diag "$T/$_p.top"
	# one decision: ying run -v and the agent name the same jemalloc
	_run=$(sed -n 's/^ying run: \(jemalloc: .*\)$/\1/p' "$T/$_p.err")
	_agent=$(sed -n "s/^ying-agent: pid [0-9]* ($_p): \(jemalloc: .*\)\$/\1/p" "$T/$_p.err")
	is "$_run" "jemalloc: mallctl (.symtab of $(realpath "$T/$_p"))" \
	    "$_p: ying run -v: mallctl in the program's .symtab"
	is "$_agent" "$_run" "$_p: the agent says the same"
	grep '^ying run: LD_PRELOAD=' "$T/$_p.err" | grep -q libjemalloc
	ok $(( ! $? )) "$_p: no libjemalloc preloaded" || diag "$T/$_p.err"
	kill -TERM "$_pid"
	wait "$_pid"
	is "$?" 143 "$_p: SIGTERM ends it (143)"
}
active sj_pie
active sj_nopie

# stripped: inert, with the message; output and status unchanged
"$T/sj_strip" 3 0 >"$T/plain.out" 2>"$T/plain.err"
is "$?" 7 "sj_strip exits 7 on its own"
"$YING" run -v --dump-signal USR2 --interval 0 --report-dir "$T/r_strip" -- \
    "$T/sj_strip" 3 0 >"$T/strip.out" 2>"$T/strip.err"
is "$?" 7 "under ying run: exit status still 7"
is "$(cat "$T/strip.out")" "$(cat "$T/plain.out")" "... stdout unchanged"
real=$(realpath "$T/sj_strip")
is "$(grep '^ying-agent:' "$T/strip.err" | sed 's/pid [0-9]*/pid N/')" \
    "ying-agent: inert in pid N (sj_strip): no jemalloc reachable in this process: none of mallctl, _rjem_mallctl, je_mallctl is visible to dlsym, and $real (which links jemalloc statically) is stripped: no .symtab; build with symbols (Rust: strip = false) or pass mallctl with ying_ctl_use()" \
    "the agent's one line: the program is stripped, and what to do"
is "$(sed -n 's/^ying run: \(jemalloc: .*\)$/\1/p' "$T/strip.err")" \
    "jemalloc: linked statically into $real, which is stripped: no .symtab (the agent cannot call it; build with symbols)" \
    "ying run -v sees the same: a stripped static jemalloc"
grep '^ying run: LD_PRELOAD=' "$T/strip.err" | grep -q libjemalloc
ok $(( ! $? )) "no second jemalloc preloaded into it" || diag "$T/strip.err"
[ -z "$(ls -A "$T/r_strip" 2>/dev/null)" ]
ok $? "no report (ying run makes the report directory before CMD starts)"

# a glibc program: libjemalloc preloaded, and the agent talks to that one
"$YING" run -v --report-dir "$T/r_grow" -- "$PROGS/agent_grow" 1 2 100 0 \
    >"$T/grow.out" 2>"$T/grow.err"
is "$?" 0 "agent_grow under ying run exits 0"
jem=$(sed -n 's/^ying run: jemalloc: none in .*; preloading \(.*\)$/\1/p' "$T/grow.err")
test -n "$jem"
ok $? "ying run -v: no jemalloc in it, preloading one" || diag "$T/grow.err"
is "$(sed -n 's/^ying-agent: pid [0-9]* (agent_grow): \(jemalloc: .*\)$/\1/p' "$T/grow.err")" \
    "jemalloc: mallctl (.dynsym of $(realpath "$jem"))" \
    "the agent found mallctl in the preloaded file"

plan_done
