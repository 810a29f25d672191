#!/bin/sh
# agent_inert.sh: libying-agent.so preloaded where it cannot work must
# print exactly one line on stderr and change nothing else: the program's
# output and exit status stay the same.  Cases: no jemalloc at all (a glibc
# program), jemalloc without prof:true, nothing configured, a bad variable.
# YING_AGENT_PID naming another process keeps it silent.  With jemalloc and
# prof:true it is active, and ying_agent_status (its only export) says so.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"

P="$PROGS/agent_exit"
"$P" 5 >"$T/plain.out" 2>"$T/plain.err"
plain_rc=$?
is "$plain_rc" 5 "agent_exit 5 exits 5 on its own"

# inert CASE ENV...: run agent_exit 5 with the agent and ENV; check output,
# status and one stderr line; leave stderr in $T/err.
inert() {
	_what=$1
	shift
	timeout 30 env "$@" LD_PRELOAD="$AGENT${EXTRA_PRELOAD:+:$EXTRA_PRELOAD}" "$P" 5 \
	    >"$T/out" 2>"$T/err"
	is "$?" 5 "$_what: exit status unchanged"
	is "$(cat "$T/out")" "$(cat "$T/plain.out")" "$_what: stdout unchanged"
	is "$(wc -l <"$T/err" | tr -d ' ')" 1 "$_what: exactly one line on stderr" || diag "$T/err"
	grep -q '^ying-agent: inert in pid [0-9]* (agent_exit): ' "$T/err"
	ok $? "$_what: the line says the agent is inert, in which process" || diag "$T/err"
}

EXTRA_PRELOAD= inert "no jemalloc" YING_HTTP=127.0.0.1:0 YING_REPORT_DIR="$T/r"
grep -q 'no jemalloc in this process.*LD_PRELOAD' "$T/err"
ok $? "no jemalloc: the line names the cause and the fix" || diag "$T/err"
EXTRA_PRELOAD= inert "no jemalloc, dump signal" YING_DUMP_SIGNAL=USR2
EXTRA_PRELOAD="$JEMALLOC" inert "jemalloc without prof:true" YING_REPORT_DIR="$T/r"
grep -q 'MALLOC_CONF=prof:true' "$T/err"
ok $? "prof off: the line says MALLOC_CONF=prof:true" || diag "$T/err"
EXTRA_PRELOAD="$JEMALLOC" inert "nothing configured" MALLOC_CONF=prof:true
grep -q 'nothing to do' "$T/err"
ok $? "nothing configured: says so" || diag "$T/err"
EXTRA_PRELOAD="$JEMALLOC" inert "bad YING_REPORT_PCT" MALLOC_CONF=prof:true \
    YING_REPORT_DIR="$T/r" YING_REPORT_PCT=ten
grep -q 'YING_REPORT_PCT=ten' "$T/err"
ok $? "bad variable: the line names it" || diag "$T/err"
EXTRA_PRELOAD="$JEMALLOC" inert "bad YING_DUMP_SIGNAL" MALLOC_CONF=prof:true YING_DUMP_SIGNAL=KILL
for s in TERM PIPE RTMIN+9223372036854775807; do
	EXTRA_PRELOAD="$JEMALLOC" inert "YING_DUMP_SIGNAL=$s" MALLOC_CONF=prof:true \
	    YING_DUMP_SIGNAL=$s
	grep -q "YING_DUMP_SIGNAL=$s: .*cannot\|YING_DUMP_SIGNAL=$s: .*signal" "$T/err"
	ok $? "YING_DUMP_SIGNAL=$s: the line names it" || diag "$T/err"
done
[ ! -e "$T/r" ]
ok $? "an inert agent creates no report directory"

timeout 30 env LD_PRELOAD="$AGENT" YING_AGENT_PID=1 YING_HTTP=127.0.0.1:0 "$P" 5 \
    >"$T/out" 2>"$T/err"
is "$?" 5 "YING_AGENT_PID of another process: status unchanged"
is "$(cat "$T/err")" "" "... and not a word on stderr"

# Active: the status function is the only export and says "active".
nm -D --defined-only "$AGENT" | awk '$2 == "T" { print $3 }' >"$T/exports"
is "$(cat "$T/exports")" "ying_agent_status" "the agent exports only ying_agent_status"
readelf -d "$AGENT" | grep NEEDED | grep -q jemalloc
is "$?" 1 "the agent does not link jemalloc (never a second one)"
PY=$(python3 -c 'import sys; print(sys.executable)')
timeout 30 env LD_PRELOAD="$JEMALLOC:$AGENT" MALLOC_CONF=prof:true \
    YING_REPORT_DIR="$T/active" YING_QUIET=1 "$PY" -c '
import ctypes, time
f = ctypes.CDLL(None).ying_agent_status
f.restype = ctypes.c_char_p
for _ in range(50):
    s = f().decode()
    if not s.startswith("starting"):
        break
    time.sleep(0.1)
print(s)' >"$T/status" 2>"$T/status.err"
is "$?" 0 "python with the agent exits 0"
grep -q '^active: growth reports in .*/active' "$T/status"
ok $? "ying_agent_status says active, with the report directory" || diag "$T/status"
is "$(cat "$T/status.err")" "" "YING_QUIET=1: nothing on stderr"

plan_done
