#!/bin/sh
# run_http_fail.sh: a bad or busy --http address fails fast.
#
# `ying run --http` listens on the address before starting the program: a
# malformed address or port and an unresolvable host exit 2, a busy port
# exits 1, each with a message naming the address and the reason, and the
# program never runs.  Inside the program, YING_HTTP_REQUIRED=1 (set by
# `ying run --http`, or by hand with LD_PRELOAD) makes the agent stop the
# program with status 1 before main when it cannot listen; without it, a
# plain LD_PRELOAD agent stays inert and the program runs as before.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"

P="$PROGS/agent_exit"

# A listener that holds a port for the whole test (killed at exit).
python3 -c '
import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True)
time.sleep(300)
' >"$T/port" &
bg_pids="$bg_pids $!"
wait_for 20 test -s "$T/port"
busy=$(cat "$T/port")

# fails CODE WHAT ADDR PATTERN: ying run --http ADDR exits CODE, says
# PATTERN, and the program (which prints "agent_exit") never ran.
fails() {
	ying run --http "$3" -- "$P" 0 >"$T/out" 2>"$T/err"
	is "$?" "$1" "$2: exit $1"
	grep -Eq "$4" "$T/err"
	ok $? "... says so: $4" || diag "$T/err"
	[ ! -s "$T/out" ]
	ok $? "... and the program did not run" || diag "$T/out"
}
fails 1 "busy port" "127.0.0.1:$busy" \
    "^ying run: --http 127.0.0.1:$busy: cannot listen on 127.0.0.1:$busy: Address already in use"
fails 2 "port out of range" "127.0.0.1:70000" \
    "^ying run: --http 127.0.0.1:70000: bad port in bind address"
fails 2 "no port" "127.0.0.1:" "^ying run: --http 127.0.0.1:: bad port"
fails 2 "unresolvable host" "no-such-host.invalid:8080" \
    "^ying run: --http no-such-host.invalid:8080: cannot resolve bind address"
ying run --http 127.0.0.1:0 --token 'a b' -- "$P" 0 >"$T/out" 2>"$T/err"
is "$?" 2 "a token with a space: exit 2"

# The agent's own check (the port taken between ying run's check and the
# program's start is the same situation): YING_HTTP_REQUIRED=1.
YING_HTTP="127.0.0.1:$busy" YING_HTTP_REQUIRED=1 MALLOC_CONF=prof:true \
    LD_PRELOAD="$JEMALLOC:$AGENT" "$P" 0 >"$T/out" 2>"$T/err"
is "$?" 1 "YING_HTTP_REQUIRED=1 and a busy port: the agent ends the program, status 1"
grep -q "^ying-agent: pid [0-9]*: HTTP endpoint on 127.0.0.1:$busy not started: cannot listen on 127.0.0.1:$busy: Address already in use; YING_HTTP_REQUIRED is set: stopping the program" "$T/err"
ok $? "... with one clear line" || diag "$T/err"
[ ! -s "$T/out" ]
ok $? "... before main ran" || diag "$T/out"
YING_HTTP="127.0.0.1:$busy" YING_HTTP_REQUIRED=1 MALLOC_CONF=prof:false \
    LD_PRELOAD="$JEMALLOC:$AGENT" "$P" 0 >"$T/out" 2>"$T/err"
is "$?" 1 "YING_HTTP_REQUIRED=1 and the profiler off: status 1, the program does not run"
[ ! -s "$T/out" ]
ok $? "... main did not run" || diag "$T/out"
YING_HTTP="127.0.0.1:$busy" MALLOC_CONF=prof:true \
    LD_PRELOAD="$JEMALLOC:$AGENT" "$PROGS/agent_grow" 1 1 100 3000 >"$T/out" 2>"$T/err"
is "$?" 0 "without YING_HTTP_REQUIRED the program runs as before"
grep -q '^step 1' "$T/out"
ok $? "... main ran" || diag "$T/out"
grep -q "HTTP endpoint on 127.0.0.1:$busy not started" "$T/err"
ok $? "... and the agent says the endpoint did not start" || diag "$T/err"

# A good address still works, and the program's status comes through.
ying run --http 127.0.0.1:0 -- "$P" 4 >"$T/out" 2>"$T/err"
is "$?" 4 "--http 127.0.0.1:0: the program runs, its status comes back"
grep -q 'HTTP on http://127.0.0.1:[0-9]*/' "$T/err"
ok $? "... with the endpoint announced" || diag "$T/err"

# The pre-check uses plain sockets (ying_http_check): ying itself does not
# link libmicrohttpd and its TLS stack, only the agent does.
need readelf
readelf -d "$YING" >"$T/dyn" 2>&1
grep -q NEEDED "$T/dyn" && ! grep -q 'libmicrohttpd\|libgnutls' "$T/dyn"
ok $? "ying does not link libmicrohttpd or gnutls" || diag "$T/dyn"

plan_done
