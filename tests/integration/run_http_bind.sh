#!/bin/sh
# run_http_bind.sh: a non-loopback endpoint needs a token (issue 13,
# finding 2), and the allowed Host names reach the agent.
#
# `ying run --http 0.0.0.0:0` without --token exits 2 naming the address
# and the way out, before the program runs; with --token, or with
# --http-insecure (which prints a warning), the program runs.  The agent
# alone (LD_PRELOAD, YING_HTTP=0.0.0.0:0) leaves the endpoint off with one
# line and the program runs as before; YING_HTTP_INSECURE=1 serves it with
# a warning.  `ying run --http-allow-host NAME` (repeatable) makes the
# agent answer Host: NAME and nothing else foreign (403).
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need curl

P="$PROGS/agent_exit"

ying run --http 0.0.0.0:0 -- "$P" 0 >"$T/out" 2>"$T/err"
is "$?" 2 "--http 0.0.0.0:0 without a token: exit 2"
grep -q "^ying run: --http 0.0.0.0:0: refusing to serve on 0.0.0.0:0 without a token: 0.0.0.0 is not a loopback address.*set a token, or allow it explicitly (insecure: YING_HTTP_INSECURE=1, ying run --http-insecure)" "$T/err"
ok $? "... one line naming the address and the way out" || diag "$T/err"
[ ! -s "$T/out" ]
ok $? "... and the program did not run" || diag "$T/out"
ying run --http "[::]:0" -- "$P" 0 >"$T/out" 2>"$T/err"
is "$?" 2 "--http [::]:0 without a token: exit 2"

ying run --http 0.0.0.0:0 --token s3cret -- "$P" 4 >"$T/out" 2>"$T/err"
is "$?" 4 "--http 0.0.0.0:0 --token T: the program runs"
grep -q 'HTTP on http://0.0.0.0:[0-9]*/' "$T/err"
ok $? "... with the endpoint announced" || diag "$T/err"
YING_HTTP_TOKEN=s3cret ying run --http 0.0.0.0:0 -- "$P" 4 >"$T/out" 2>"$T/err"
is "$?" 4 "... a token from YING_HTTP_TOKEN counts too"

ying run --http 0.0.0.0:0 --http-insecure -- "$P" 4 >"$T/out" 2>"$T/err"
is "$?" 4 "--http 0.0.0.0:0 --http-insecure: the program runs"
grep -q "^ying run: warning: --http-insecure: the endpoint on 0.0.0.0:0 takes no token" "$T/err"
ok $? "... ying run warns" || diag "$T/err"
grep -q "^ying-agent: pid [0-9]*: warning: YING_HTTP_INSECURE is set: the endpoint on 0.0.0.0:0 takes no token" "$T/err"
ok $? "... and so does the agent" || diag "$T/err"
ying run --http-insecure -- "$P" 0 >"$T/out" 2>"$T/err"
is "$?" 2 "--http-insecure without --http: exit 2"

# The agent alone.  The agent brings its endpoint up on a thread of its
# own, after the constructor; a program that exits at once may end before
# it (then nothing is said, by design).  So the program waits for SIGTERM
# (agent_exit --wait: exits 3) until the agent has spoken.
# agent_alone OUT ERR VAR=VALUE...: the agent alone in agent_exit --wait,
# stopped with SIGTERM once ERR holds a line about the endpoint; $? its
# exit status.
agent_alone() {
	_o=$1 _e=$2
	shift 2
	rm -f "$T/ready"
	env "$@" MALLOC_CONF=prof:true LD_PRELOAD="$JEMALLOC:$AGENT" \
	    "$P" --wait "$T/ready" >"$_o" 2>"$_e" &
	_p=$!
	wait_for 30 grep -q 'HTTP endpoint on .* not started\|HTTP on http' "$_e"
	wait_for 10 test -s "$T/ready"
	kill -TERM "$_p" 2>/dev/null
	wait "$_p"
}
agent_alone "$T/out" "$T/err" YING_HTTP=0.0.0.0:0
is "$?" 3 "agent, YING_HTTP=0.0.0.0:0 without a token: the program runs as before"
grep -q "^ying-agent: pid [0-9]*: HTTP endpoint on 0.0.0.0:0 not started: refusing to serve on 0.0.0.0:0 without a token" "$T/err"
ok $? "... and the agent says why the endpoint is off" || diag "$T/err"
agent_alone "$T/out" "$T/err" YING_HTTP=0.0.0.0:0 YING_HTTP_INSECURE=1
is "$?" 3 "agent, YING_HTTP_INSECURE=1: the program runs"
grep -q "HTTP on http://0.0.0.0:[0-9]*/" "$T/err" &&
    grep -q "warning: YING_HTTP_INSECURE is set" "$T/err"
ok $? "... the endpoint is up, with a warning" || diag "$T/err"

# --http-allow-host reaches the agent
port=$(free_port)
ying run --http "127.0.0.1:$port" --http-allow-host prof.internal \
    --http-allow-host "a.example,b.example" -- "$PROGS/agent_grow" 1 1 100 20000 \
    >"$T/out" 2>"$T/err" &
rp=$!
bg_pids="$bg_pids $rp"
wait_for 30 curl -sf -o /dev/null "http://127.0.0.1:$port/debug/prof"
ok $? "the endpoint of ying run --http-allow-host answers" || diag "$T/err"
code() { curl -s -o /dev/null -w '%{http_code}' -H "Host: $1" "http://127.0.0.1:$port/pprof/cmdline"; }
is "$(code "prof.internal:$port")" 200 "Host: prof.internal is served"
is "$(code b.example)" 200 "Host: b.example (second name of a comma list) is served"
is "$(code evil.example)" 403 "Host: evil.example is 403"
kill "$rp" 2>/dev/null
wait "$rp" 2>/dev/null

plan_done
