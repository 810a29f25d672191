#!/bin/sh
# pyro_auth.sh: the uploader's credentials, against a stand-in that wants them.
#
# Basic auth from a password file (--pyroscope-user, --pyroscope-password-file),
# a bearer token from a file (--pyroscope-token-file) and a tenant
# (YING_PYROSCOPE_TENANT, sent as X-Scope-OrgID) are each accepted by a
# stand-in that refuses (401) requests without them; the secrets are on no
# command line and in no environment of `ying run` or the program
# (/proc/PID/cmdline, /proc/PID/environ).  A wrong password: the program
# runs on, /debug/prof counts the failures (4xx: not retried) and names the
# 401 in last_error.
. "$YING_SRCDIR/tests/integration/pyro_lib.sh"

(umask 077; printf 'pw-Secret-4711\n' >"$T/pw"; printf 'tok-Secret-0815\n' >"$T/tok";
    printf 'not-the-password\n' >"$T/wrong")
P="$PROGS/agent_grow"

# secret_free WHAT PID SECRET: SECRET is in neither cmdline nor environ of PID.
secret_free() {
	if [ ! -r "/proc/$2/environ" ]; then
		ok 1 "$1: /proc/$2 readable"
		return
	fi
	tr '\0' '\n' <"/proc/$2/environ" >"$T/environ"
	tr '\0' ' ' <"/proc/$2/cmdline" >"$T/cmdline"
	! grep -q -- "$3" "$T/environ" "$T/cmdline"
	ok $? "$1: the secret is in neither /proc/$2/cmdline nor environ"
}

# run_with NAME ARGS...: ying run --pyroscope on stand-in NAME; sets run_pid
run_with() {
	rw_n=$1
	shift
	eval "rw_u=\$${rw_n}_URL"
	ying run --sample 14 --report-dir "$T/rep-$rw_n" --pyroscope "$rw_u" --service auth \
	    --pyroscope-interval 1 "$@" -- "$P" 1 4 100 60000 >"$T/out-$rw_n" 2>"$T/err-$rw_n" &
	run_pid=$!
	bg_pids="$bg_pids $run_pid"
}
stop_run() {
	kill -TERM "$run_pid" 2>/dev/null
	wait "$run_pid" 2>/dev/null
}

standin_start b --basic-user alice --basic-password-file "$T/pw"
run_with b --pyroscope-user alice --pyroscope-password-file "$T/pw"
wait_uploads b 2 30
ok $? "basic auth from a password file: uploads accepted" || diag "$T/err-b" "$b_DIR/requests.log"
is "$(up b 1 'd["headers"]["Authorization-Scheme"]')" Basic "... sent as Basic"
child=$(cmd_pid "$run_pid" "${P##*/}")
secret_free "ying run" "$run_pid" pw-Secret-4711
secret_free "the program" "$child" pw-Secret-4711
stop_run

standin_start k --bearer-file "$T/tok"
run_with k --pyroscope-token-file "$T/tok"
wait_uploads k 2 30
ok $? "bearer token from a file: uploads accepted" || diag "$T/err-k" "$k_DIR/requests.log"
is "$(up k 1 'd["headers"]["Authorization-Scheme"]')" Bearer "... sent as Bearer"
child=$(cmd_pid "$run_pid" "${P##*/}")
secret_free "ying run" "$run_pid" tok-Secret-0815
secret_free "the program" "$child" tok-Secret-0815
stop_run

standin_start o --tenant team-a
YING_PYROSCOPE_TENANT=team-a run_with o
wait_uploads o 2 30
ok $? "YING_PYROSCOPE_TENANT: uploads accepted by a multi-tenant server" || diag "$T/err-o" "$o_DIR/requests.log"
is "$(up o 1 'd["headers"]["X-Scope-OrgID"]')" team-a "... with X-Scope-OrgID: team-a"
stop_run

# A wrong password: refused, counted, the program unharmed.
standin_start w --basic-user alice --basic-password-file "$T/pw"
hp=$(free_port)
run_with w --http "127.0.0.1:$hp" --pyroscope-user alice --pyroscope-password-file "$T/wrong"
wait_for 30 sh -c "grep -c ' 401 ' '$w_DIR/requests.log' | grep -q '^[3-9]'"
ok $? "a wrong password: the server answers 401 (3 times)" || diag "$T/err-w" "$w_DIR/requests.log"
is "$(uploads w)" 0 "... nothing accepted"
na=$(grep -c ' 401 ' "$w_DIR/requests.log")
prof_json "http://127.0.0.1:$hp"
nb=$(grep -c ' 401 ' "$w_DIR/requests.log")
ok $? "... the program still serves /debug/prof"
is "$(pj 'int(d["pyroscope"]["failed"] >= 2 and d["pyroscope"]["sent"] == 0)')" 1 \
    "... failures counted, none sent" || diag "$T/prof.json"
pj 'd["pyroscope"]["last_error"]' | grep -q 401
ok $? "... last_error names the 401: $(pj 'd["pyroscope"]["last_error"]')"
# one request per failed profile: the 401s the server had answered just
# before and after reading the counters bracket "failed" (one in flight)
is "$(pj 'int('"$na"' - 1 <= d["pyroscope"]["failed"] <= '"$nb"' and d["pyroscope"]["retried"] == 0)')" 1 \
    "... a 401 is not retried: one request per failed profile ($na..$nb 401s)" || diag "$T/prof.json" "$w_DIR/requests.log" "$T/err-w"
kill -0 "$run_pid" 2>/dev/null
ok $? "... the program runs on"
stop_run

plan_done
