#!/bin/sh
# run_token.sh: the HTTP token never on a command line nor in an inherited
# environment (issue 13, finding 4).
#
# `ying run --http --token-file FILE` under a python3 program that runs
# `env` through subprocess: the token is in neither ying run's nor the
# program's /proc/PID/cmdline, the program's /proc/PID/environ holds no
# YING_HTTP_TOKEN (nor the token) once the agent is up, the grandchild's
# environment has neither, and the endpoint wants it (401 without, 200
# with).  `--token T` still works but warns and points to --token-file, and
# its YING_HTTP_TOKEN is erased from the program's environment too.  The
# agent alone (LD_PRELOAD, YING_HTTP_TOKEN_FILE or YING_HTTP_TOKEN): the
# same, the file wins over the variable, a bad file makes it inert naming
# the variable.  A program exec'd after the agent erased YING_HTTP_TOKEN
# refuses to serve without a token; with the file it serves with it.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need curl

TOK=tok-Secret-5309
(umask 077; printf '%s\n' "$TOK" >"$T/tok"; printf 'tok-Other-1234\n' >"$T/other")
PY=$(python3 -c 'import sys; print(sys.executable)')
# The program: its pid into ready (after the grandchild's env), then it
# waits until "stop" exists (at most 60 s).
SCRIPT='
import os, subprocess, sys, time
d = sys.argv[1]
with open(os.path.join(d, "gc.env"), "wb") as f:
    subprocess.run(["env"], stdout=f, check=True)
with open(os.path.join(d, "ready.tmp"), "w") as f:
    f.write(str(os.getpid()))
os.rename(os.path.join(d, "ready.tmp"), os.path.join(d, "ready"))
for _ in range(600):
    if os.path.exists(os.path.join(d, "stop")):
        break
    time.sleep(0.1)
'

# no_secret WHAT FILE: the token is not in FILE (NULs read as newlines).
no_secret() {
	tr '\0' '\n' <"$2" >"$T/plain"
	! grep -q -- "$TOK" "$T/plain"
	ok $? "$1: no token" || diag "$T/plain"
}
# code URL [CURL ARGS...]: the HTTP status of a GET.
code() {
	_u=$1
	shift
	curl -s -o /dev/null --max-time 10 -w '%{http_code}' "$@" "$_u"
}
# port_of ERRFILE: the port the agent said it serves on.
port_of() {
	sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$1" | head -n 1
}
# start_run NAME ARGS...: ying run ARGS -- python3 SCRIPT $T/NAME in the
# background; waits for the program; sets run_pid, prog_pid, port.
start_run() {
	sr_d="$T/$1"
	shift
	mkdir -p "$sr_d"
	ying run --sample 16 --http 127.0.0.1:0 "$@" -- "$PY" -c "$SCRIPT" "$sr_d" \
	    >"$sr_d.out" 2>"$sr_d.err" &
	run_pid=$!
	bg_pids="$bg_pids $run_pid"
	wait_for 30 test -f "$sr_d/ready"
	ok $? "$(basename "$sr_d"): the program is up" || diag "$sr_d.err"
	prog_pid=$(cat "$sr_d/ready" 2>/dev/null)
	port=$(port_of "$sr_d.err")
}
stop_run() {
	: >"$sr_d/stop"
	wait "$run_pid"
	is "$?" 0 "$(basename "$sr_d"): ying run exits 0 with the program"
}

# ---- ying run --token-file
start_run tf --token-file "$T/tok"
no_secret "--token-file: ying run's cmdline" "/proc/$run_pid/cmdline"
no_secret "--token-file: the program's cmdline" "/proc/$prog_pid/cmdline"
no_secret "--token-file: the program's environ" "/proc/$prog_pid/environ"
tr '\0' '\n' <"/proc/$prog_pid/environ" | grep -q '^YING_HTTP_TOKEN='
ok $((! $?)) "--token-file: no YING_HTTP_TOKEN in the program's environ"
no_secret "--token-file: the grandchild's env" "$T/tf/gc.env"
! grep -q '^YING_HTTP_TOKEN=' "$T/tf/gc.env"
ok $? "--token-file: no YING_HTTP_TOKEN in the grandchild's env" || diag "$T/tf/gc.env"
! grep -q 'warning' "$T/tf.err"
ok $? "--token-file (mode 600): no warning" || diag "$T/tf.err"
is "$(code "http://127.0.0.1:$port/debug/prof")" 401 "--token-file: no token: 401"
is "$(code "http://127.0.0.1:$port/debug/prof" -H "Authorization: Bearer tok-Other-1234")" 401 \
    "--token-file: a wrong token: 401"
is "$(code "http://127.0.0.1:$port/debug/prof" -H "Authorization: Bearer $TOK")" 200 \
    "--token-file: the token: 200"
stop_run

# ---- ying run --token T: still works, warns; the environment is scrubbed
start_run tt --token "$TOK"
grep -q "warning: --token puts the token on the command line.*--token-file FILE" "$T/tt.err"
ok $? "--token: a warning points to --token-file" || diag "$T/tt.err"
no_secret "--token: the program's environ (erased in place)" "/proc/$prog_pid/environ"
no_secret "--token: the grandchild's env" "$T/tt/gc.env"
is "$(code "http://127.0.0.1:$port/debug/prof")" 401 "--token: no token: 401"
is "$(code "http://127.0.0.1:$port/debug/prof" -H "Authorization: Bearer $TOK")" 200 \
    "--token: the token: 200"
stop_run

# ---- bad uses stop ying run before CMD
ying run --http 127.0.0.1:0 --token-file "$T/nothere" -- true 2>"$T/e1"
is "$?" 1 "--token-file missing: exit 1"
grep -q -- "--token-file .*nothere: cannot open" "$T/e1"
ok $? "... names the file" || diag "$T/e1"
: >"$T/empty"
ying run --http 127.0.0.1:0 --token-file "$T/empty" -- true 2>"$T/e2"
is "$?" 1 "--token-file empty: exit 1"
ying run --token-file "$T/tok" -- true 2>"$T/e3"
is "$?" 2 "--token-file without --http: exit 2"
ying run --http 127.0.0.1:0 --token x --token-file "$T/tok" -- true 2>"$T/e4"
is "$?" 2 "--token and --token-file: exit 2"
cp "$T/tok" "$T/tok644"
chmod 644 "$T/tok644"
ying run --http 127.0.0.1:0 --token-file "$T/tok644" -- true 2>"$T/e5"
is "$?" 0 "--token-file readable by others: runs"
grep -q "warning: --token-file .*tok644 can be read by other users" "$T/e5"
ok $? "... with a warning" || diag "$T/e5"

# ---- the agent alone: LD_PRELOAD + YING_HTTP_TOKEN_FILE
# agent_start NAME VARS...: python3 SCRIPT $T/NAME under the agent with VARS.
# (timeout runs env, which gets no agent: LD_PRELOAD is for what env execs)
agent_start() {
	sr_d="$T/$1"
	shift
	mkdir -p "$sr_d"
	timeout 90 env MALLOC_CONF=prof:true LD_PRELOAD="$JEMALLOC:$AGENT" \
	    YING_HTTP=127.0.0.1:0 "$@" "$PY" -c "$SCRIPT" "$sr_d" >"$sr_d.out" 2>"$sr_d.err" &
	run_pid=$!
	bg_pids="$bg_pids $run_pid"
	wait_for 30 test -f "$sr_d/ready"
	ok $? "$(basename "$sr_d"): the program is up" || diag "$sr_d.err"
	prog_pid=$(cat "$sr_d/ready" 2>/dev/null)
	port=$(port_of "$sr_d.err")
}
agent_start af YING_HTTP_TOKEN_FILE="$T/tok"
no_secret "agent, YING_HTTP_TOKEN_FILE: the environ" "/proc/$prog_pid/environ"
no_secret "agent, YING_HTTP_TOKEN_FILE: the grandchild's env" "$T/af/gc.env"
is "$(code "http://127.0.0.1:$port/debug/prof")" 401 "agent, YING_HTTP_TOKEN_FILE: no token: 401"
is "$(code "http://127.0.0.1:$port/debug/prof" -H "Authorization: Bearer $TOK")" 200 \
    "agent, YING_HTTP_TOKEN_FILE: the token: 200"
stop_run

agent_start av YING_HTTP_TOKEN="$TOK"
no_secret "agent, YING_HTTP_TOKEN: erased from /proc/PID/environ" "/proc/$prog_pid/environ"
! grep -q '^YING_HTTP_TOKEN=' "$T/av/gc.env"
ok $? "agent, YING_HTTP_TOKEN: the grandchild does not inherit it" || diag "$T/av/gc.env"
is "$(code "http://127.0.0.1:$port/debug/prof" -H "Authorization: Bearer $TOK")" 200 \
    "agent, YING_HTTP_TOKEN: the token: 200"
stop_run

# both: the file wins
agent_start ab YING_HTTP_TOKEN_FILE="$T/tok" YING_HTTP_TOKEN=tok-Other-1234
is "$(code "http://127.0.0.1:$port/debug/prof" -H "Authorization: Bearer $TOK")" 200 \
    "agent, both set: the file's token: 200"
is "$(code "http://127.0.0.1:$port/debug/prof" -H "Authorization: Bearer tok-Other-1234")" 401 \
    "agent, both set: the variable's token: 401"
! grep -q 'tok-Other-1234' "$T/ab/gc.env"
ok $? "agent, both set: the variable is erased as well" || diag "$T/ab/gc.env"
stop_run

# a bad file: inert, naming the variable; the program runs unchanged
timeout 30 env MALLOC_CONF=prof:true LD_PRELOAD="$JEMALLOC:$AGENT" YING_HTTP=127.0.0.1:0 \
    YING_HTTP_TOKEN_FILE="$T/empty" true 2>"$T/e6"
is "$?" 0 "agent, empty YING_HTTP_TOKEN_FILE: the program runs"
grep -q "ying-agent: inert in pid [0-9]* (true): YING_HTTP_TOKEN_FILE=.*empty: the first line is empty" "$T/e6"
ok $? "... the agent is inert and says why" || diag "$T/e6"
# inert for the token file: the other secrets are erased all the same
timeout 30 env MALLOC_CONF=prof:true LD_PRELOAD="$JEMALLOC:$AGENT" YING_HTTP=127.0.0.1:0 \
    YING_HTTP_TOKEN_FILE="$T/empty" YING_HTTP_TOKEN="$TOK" YING_PYROSCOPE_PASSWORD=pw-Secret-77 \
    sh -c env >"$T/env9" 2>"$T/e9"
! grep -q -e "$TOK" -e pw-Secret-77 "$T/env9"
ok $? "agent inert for a bad token file: YING_HTTP_TOKEN and YING_PYROSCOPE_PASSWORD still erased" || diag "$T/env9"

# An exec after the variable was erased: no endpoint without its token.
timeout 30 env MALLOC_CONF=prof:true LD_PRELOAD="$JEMALLOC:$AGENT" YING_HTTP=127.0.0.1:0 \
    YING_HTTP_TOKEN="$TOK" sh -c 'exec true' 2>"$T/e7"
grep -q "ying-agent: inert in pid [0-9]* (true): YING_HTTP_TOKEN was erased" "$T/e7"
ok $? "exec after YING_HTTP_TOKEN was erased: the new image refuses to serve without it" || diag "$T/e7"
timeout 30 env MALLOC_CONF=prof:true LD_PRELOAD="$JEMALLOC:$AGENT" YING_HTTP=127.0.0.1:0 \
    YING_HTTP_TOKEN_FILE="$T/tok" sh -c 'sleep 1; exec sleep 1' 2>"$T/e8"
grep -q "(sh): heap profiling on.*HTTP on" "$T/e8" &&
    grep -q "(sleep): heap profiling on.*HTTP on" "$T/e8"
ok $? "exec with YING_HTTP_TOKEN_FILE: both images serve (the file is read again)" || diag "$T/e8"

plan_done
