#!/bin/sh
# run_exit.sh: `ying run` as a transparent wrapper.
#
# The program's output and exit status come through unchanged; death by a
# signal becomes 128+N; signals sent to `ying run` (USR1, HUP, TERM) reach
# the program, which may handle them (agent_exit --wait exits 3 on TERM);
# MALLOC_CONF is merged (user keys kept, prof:true forced, prof_active:false
# unless the user set it, --sample and
# --accum win); LD_PRELOAD gets jemalloc only when the program does not
# link it (redis-server does), plus the agent, before the user's own
# entries; YING_AGENT_PID names the child; usage errors exit 2, a missing
# command 127.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need redis-server

P="$PROGS/agent_exit"
D="$T/r"

"$P" 7 >"$T/plain.out" 2>&1
ying run -q --report-dir "$D" -- "$P" 7 >"$T/out" 2>"$T/err"
is "$?" 7 "exit status 7 passes through"
is "$(cat "$T/out")" "$(cat "$T/plain.out")" "stdout is the program's, unchanged"
is "$(cat "$T/err")" "" "nothing else on stderr with -q"
ying run -q --report-dir "$D" -- "$P" 0 >/dev/null 2>&1
is "$?" 0 "exit status 0"
ying run -q --report-dir "$D" -- "$P" --raise 15 >/dev/null 2>&1
is "$?" 143 "death by SIGTERM -> 143"
ying run -q --report-dir "$D" -- "$P" --raise 10 >/dev/null 2>&1
is "$?" 138 "death by SIGUSR1 -> 138"

# wait_child SIG: start agent_exit --wait under ying run, send SIG to ying
# run once the program is ready, print ying run's exit status.
wait_child() {
	rm -f "$T/ready"
	"$YING" run -q --report-dir "$D" -- "$P" --wait "$T/ready" >"$T/wait.out" 2>&1 &
	_p=$!
	bg_pids="$bg_pids $_p"
	if ! wait_for 20 test -s "$T/ready"; then
		echo "# the program never got ready"
		kill -9 "$_p"
	fi
	kill -s "$1" "$_p"
	# bounded: a signal that was not passed on (or not acted on) must fail
	# this check with what the processes were doing, not hang the suite
	# (it did once: the suite ran under nohup, which agent_exit inherited
	# as SIGHUP ignored; agent_exit now resets HUP and USR1 itself)
	if ! wait_for 30 sh -c '! kill -0 "$1" 2>/dev/null' sh "$_p"; then
		for _c in $(pgrep -P "$_p"); do
			echo "# ying run $_p still waits; its program $_c: $(tr '\0' ' ' </proc/$_c/cmdline)" >&2
			grep -E '^(State|SigPnd|ShdPnd|SigBlk|SigIgn|SigCgt)' "/proc/$_c/status" | sed 's/^/#   /' >&2
		done
		grep -E '^(State|SigPnd|ShdPnd|SigBlk|SigIgn|SigCgt)' "/proc/$_p/status" | sed 's/^/#   ying run: /' >&2
		kill -9 "$_p" $(pgrep -P "$_p") 2>/dev/null
	fi
	wait "$_p"
	echo "$?"
}
is "$(wait_child USR1)" 138 "SIGUSR1 sent to ying run kills the program -> 138"
is "$(wait_child HUP)" 129 "SIGHUP is passed on -> 129"
is "$(wait_child TERM)" 3 "SIGTERM is passed on; the program handles it and exits 3"
grep -q '^got SIGTERM$' "$T/wait.out"
ok $? "the program's handler ran" || diag "$T/wait.out"

# Environment given to the program.
MALLOC_CONF="lg_prof_sample:10,narenas:2,prof:false" ying run -q --report-dir "$D" -- \
    sh -c 'echo "$MALLOC_CONF"' >"$T/conf" 2>&1
is "$(cat "$T/conf")" "lg_prof_sample:10,narenas:2,prof:true,prof_active:false" \
    "MALLOC_CONF: the user's keys kept, prof:true forced, sampling starts inactive"
MALLOC_CONF="lg_prof_sample:10,narenas:2" ying run -q --report-dir "$D" --sample 17 --accum -- \
    sh -c 'echo "$MALLOC_CONF"' >"$T/conf" 2>&1
is "$(cat "$T/conf")" "narenas:2,prof:true,prof_active:false,lg_prof_sample:17,prof_accum:true" \
    "MALLOC_CONF: --sample and --accum override the user's keys"
MALLOC_CONF="prof_active:true" ying run -q --report-dir "$D" -- \
    sh -c 'echo "$MALLOC_CONF ${YING_PROF_ACTIVATE:-unset}"' >"$T/conf" 2>&1
is "$(cat "$T/conf")" "prof_active:true,prof:true unset" \
    "MALLOC_CONF: the user's prof_active wins; the agent does not activate"
# A static program (Debian's ldconfig is static-pie): no agent can be
# preloaded to turn sampling on, so it is not started inactive.
ying run -v --report-dir "$D" -- /sbin/ldconfig --version >"$T/out" 2>"$T/err"
grep -q '^ying run: MALLOC_CONF=prof:true$' "$T/err"
ok $? "a static program: MALLOC_CONF=prof:true without prof_active:false" || diag "$T/err"
# (ASAN_OPTIONS: in a sanitizer build, ying itself must accept a preload.)
ASAN_OPTIONS=verify_asan_link_order=0 LD_PRELOAD=/lib/x86_64-linux-gnu/libm.so.6 \
    ying run -q --report-dir "$D" -- \
    sh -c 'echo "$LD_PRELOAD"' >"$T/pre" 2>&1
is "$(cat "$T/pre")" "$JEMALLOC:$AGENT:/lib/x86_64-linux-gnu/libm.so.6" \
    "LD_PRELOAD: jemalloc (sh does not link it), the agent, then the user's"
ying run -q --report-dir "$D" -- sh -c 'echo "$YING_AGENT_PID $$ $YING_REPORT_DIR"' >"$T/pid" 2>&1
set -- $(cat "$T/pid")
[ "$#" -eq 3 ] && [ "$1" = "$2" ] && [ "$3" = "$D" ]
ok $? "YING_AGENT_PID is the program's pid; YING_REPORT_DIR set" || diag "$T/pid"
ying run -v --http 127.0.0.1:0 -- redis-server --version >"$T/redis.out" 2>"$T/redis.err"
is "$?" 0 "redis-server --version under ying run"
grep -q "brings its own jemalloc" "$T/redis.err"
ok $? "redis-server links jemalloc: it is not preloaded a second time" || diag "$T/redis.err"
grep '^ying run: LD_PRELOAD=' "$T/redis.err" | grep -q libjemalloc
is "$?" 1 "... LD_PRELOAD holds only the agent"
grep -q 'Redis server v=' "$T/redis.out"
ok $? "redis' own output passes through" || diag "$T/redis.out"

# Errors.
ying run -q --report-dir "$D" -- /nonexistent/program >"$T/out" 2>"$T/err"
is "$?" 127 "a missing command exits 127"
grep -q 'command not found' "$T/err"
ok $? "... and says so" || diag "$T/err"
ying run --report-dir "$D" >"$T/out" 2>"$T/err"
is "$?" 2 "no command is a usage error"
ying run --report-dir "$D" --sample 99 -- "$P" 0 >"$T/out" 2>"$T/err"
is "$?" 2 "--sample 99 is a usage error"
ying run --report-dir "$D" --dump-signal KILL -- "$P" 0 >"$T/out" 2>"$T/err"
is "$?" 2 "--dump-signal KILL is a usage error"
grep -q 'SIGKILL cannot be used' "$T/err"
ok $? "... and says why" || diag "$T/err"
ying run --report-dir "$D" --floor lots -- "$P" 0 >"$T/out" 2>"$T/err"
is "$?" 2 "--floor lots is a usage error"
ying run --report-dir "$D" --floor 1e300T -- "$P" 0 >"$T/out" 2>"$T/err"
is "$?" 2 "--floor 1e300T (absurd) is a usage error, not an inert agent"
grep -q "floor 1e300T: expected a size from 0 to 1e+18 bytes .*(too large)" "$T/err"
ok $? "... and says why" || diag "$T/err"
for s in TERM INT PIPE XFSZ HUP; do
	ying run --report-dir "$D" --dump-signal $s -- "$P" 0 >"$T/out" 2>"$T/err"
	is "$?" 2 "--dump-signal $s is a usage error (it would change what $s does)"
	grep -q "SIG$s cannot be used to request dumps" "$T/err"
	ok $? "... and says why" || diag "$T/err"
done
YING_AGENT_LIB=/nonexistent.so ying run --report-dir "$D" -- "$P" 0 >"$T/out" 2>"$T/err"
is "$?" 1 "a missing agent library is an error"

plan_done
