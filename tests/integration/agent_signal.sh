#!/bin/sh
# agent_signal.sh: YING_DUMP_SIGNAL / `ying run --dump-signal`.
#
# With --interval 0 the runner writes nothing on its own; each SIGUSR2 sent
# to `ying run` is passed on to the program, whose agent handler only pokes
# the runner, which writes a report set saying "requested" (two signals,
# two sets with distinct names).  Without --report-dir the sets go to
# $TMPDIR/ying-<pid>-XXXXXX (mkdtemp).  A forked child of the program is inert: SIGUSR2 has
# its default action back there (it dies of it) and causes no report.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"

D="$T/sig"
"$YING" run -q --dump-signal USR2 --interval 0 --report-dir "$D" --sample 14 -- \
    "$PROGS/agent_grow" 1 30 100 60000 >"$T/out" 2>"$T/err" &
p=$!
bg_pids="$bg_pids $p"
wait_for 20 grep -q '^step 1' "$T/out"
ok $? "the program grew" || diag "$T/err"
sleep 1
is "$(report_sets "$D")" "" "no report without a signal (interval 0)"
kill -USR2 "$p"
wait_for 20 count_reports "$D" 1
ok $? "SIGUSR2 to ying run: a report set appears" || diag "$T/err"
kill -USR2 "$p"
wait_for 20 count_reports "$D" 2
ok $? "a second SIGUSR2: a second set" || diag "$T/err"
is "$(report_sets "$D" | wc -l | tr -d ' ')" 2 "two sets with distinct names"
last=$(report_sets "$D" | tail -n 1)
grep -q '^trigger    requested' "$D/$last.report"
ok $? "the report says it was requested" || diag "$D/$last.report"
m=$(mb_of "$last")
[ "$m" -ge 27 ] && [ "$m" -le 33 ]
ok $? "its size is the program's 30 MiB (got $m)"
kill -TERM "$p"
wait "$p"
is "$?" 143 "SIGTERM ends the program (no handler): 143"

# no --report-dir: a private directory in $TMPDIR
mkdir -p "$T/tmp"
TMPDIR="$T/tmp" "$YING" run --dump-signal SIGUSR2 -- "$PROGS/agent_grow" 1 30 100 60000 \
    >"$T/out2" 2>"$T/err2" &
p=$!
bg_pids="$bg_pids $p"
wait_for 20 grep -q 'on request only' "$T/err2"
ok $? "the agent says where the reports go" || diag "$T/err2"
wait_for 20 grep -q '^step 1' "$T/out2"
kill -USR2 "$p"
wait_for 20 sh -c "ls '$T'/tmp/ying-*/*.report"
ok $? "the report set appears in \$TMPDIR/ying-<pid>-XXXXXX" || ls -lR "$T/tmp" | sed 's/^/# /'
is "$(stat -c %a "$T"/tmp/ying-* 2>/dev/null)" 700 "... a 0700 directory"
ls -d "$T"/tmp/ying-* | grep -Eq '/ying-[0-9]+-[A-Za-z0-9]{6}$'
ok $? "... with an unpredictable name (mkdtemp), not ying-<pid>" || ls "$T/tmp" | sed 's/^/# /'
kill -TERM "$p"
wait "$p"

# a forked child is inert
PY=$(python3 -c 'import sys; print(sys.executable)')
D3="$T/fork"
ying run -q --dump-signal USR2 --interval 0 --report-dir "$D3" -- "$PY" -c '
import os, signal, time
pid = os.fork()
if pid == 0:
    os.kill(os.getpid(), signal.SIGUSR2)
    time.sleep(2)
    os._exit(0)
_, st = os.waitpid(pid, 0)
print("child", os.WTERMSIG(st) if os.WIFSIGNALED(st) else "exit %d" % os.WEXITSTATUS(st))
d = os.environ["YING_REPORT_DIR"]
time.sleep(1.5)
print("reports after the child", sum(f.endswith(".report") for f in os.listdir(d)))
os.kill(os.getpid(), signal.SIGUSR2)
for _ in range(200):
    time.sleep(0.1)
    if any(f.endswith(".report") for f in os.listdir(d)):
        break
time.sleep(0.5)
print("parent done")
' >"$T/out3" 2>"$T/err3"
is "$?" 0 "the forking program exits 0"
is "$(head -n 1 "$T/out3")" "child 12" \
    "in the forked child SIGUSR2 has its default action (killed by 12)"
is "$(sed -n 2p "$T/out3")" "reports after the child 0" "the child's SIGUSR2 made no report"
is "$(report_sets "$D3" | wc -l | tr -d ' ')" 1 "the parent's SIGUSR2 made one"

# A dump signal while the program exits never changes its exit status
# (issue 13, finding 7): the agent's destructor used to restore the default
# action (death: 140) and then wait for the runner, and `ying run` used to
# unblock the signals it forwards once the program was gone.  agent_exit
# --wait exits 3 on SIGTERM; USR2 is sent to ying run in a tight loop around
# that exit, 8 times.
P="$PROGS/agent_exit"
st_all=""
for i in 1 2 3 4 5 6 7 8; do
	rm -f "$T/ready$i"
	"$YING" run -q --dump-signal USR2 --interval 0 --report-dir "$T/late$i" -- \
	    "$P" --wait "$T/ready$i" >"$T/late.out" 2>"$T/late.err" &
	p=$!
	bg_pids="$bg_pids $p"
	wait_for 20 test -s "$T/ready$i" || echo "# run $i: the program never got ready"
	( while kill -USR2 "$p" 2>/dev/null; do :; done ) &
	k=$!
	sleep 0.3
	kill -TERM "$p"
	wait "$p"
	st_all="$st_all $?"
	kill "$k" 2>/dev/null
	wait "$k" 2>/dev/null
done
is "$st_all" " 3 3 3 3 3 3 3 3" "USR2 storms while the program exits: its own status 3, 8 runs of 8"

plan_done
