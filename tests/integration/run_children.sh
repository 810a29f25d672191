#!/bin/sh
# run_children.sh: the processes of a pre-forking program are profiled
# each (issue 25, item 1): agent_workers forks two workers that live on,
# ten short children and one child that execs a new image.
#   - default (YING_CHILDREN unset = long): each worker and the exec'd
#     image, once they have lived 3 s, write growth reports into a
#     subdirectory of the report dir named after them (PROGRAM.PID), naming
#     their own allocating function; the head's reports stay in the report
#     dir; the short children leave no subdirectory; the dump signal sent
#     to a worker writes that worker's report set; each member says it is
#     profiled in one line;
#   - YING_CHILDREN=none: nothing but the head's reports;
#   - YING_CHILDREN=all: the short children are profiled too;
#   - YING_CHILDREN=long:1 takes a worker after a second, and a bad value
#     is refused naming the variable.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"

P="$PROGS/agent_workers"

# start DIR REPORTS ENV...: agent_workers under ying run in the background
start() {
	d=$1 r=$2
	shift 2
	mkdir -p "$d"
	env "$@" "$YING" run --report-dir "$r" --interval 1 --floor 0 \
	    --dump-signal USR2 "$P" "$d" 2 10 1 >"$d.out" 2>"$d.err" &
	run_pid=$!
	bg_pids="$bg_pids $run_pid"
}
finish() {
	touch "$1/stop"
	wait_for 30 test -s "$1/done"
	wait "$run_pid" 2>/dev/null
}
subdirs() {
	(cd "$1" && for s in *; do [ -d "$s" ] && echo "$s"; done) 2>/dev/null | sort
}
has_set() {
	ls "$1"/*.report >/dev/null 2>&1
}

# ---- default: long-lived children and the exec'd image --------------------
start "$T/a" "$T/ar" YING_QUIET=
wait_for 20 sh -c "test -s '$T/a/w0' && test -s '$T/a/w1' && test -s '$T/a/e'"
ok $? "two workers and the exec'd image run" || diag "$T/a.err"
w0=$(cat "$T/a/w0" 2>/dev/null) w1=$(cat "$T/a/w1" 2>/dev/null) e=$(cat "$T/a/e" 2>/dev/null)
wait_for 20 sh -c "ls '$T/ar/agent_workers.$w0'/*.report && ls '$T/ar/agent_workers.$w1'/*.report && ls '$T/ar/agent_workers.$e'/*.report" >/dev/null 2>&1
ok $? "each worker and the exec'd image writes reports into its own subdirectory" ||
    { ls -lR "$T/ar"; diag "$T/a.err"; }
grep -l worker_fill "$T/ar/agent_workers.$w1"/*.report >/dev/null 2>&1
ok $? "... a worker's report names worker_fill" || diag "$T/a.err"
grep -l exec_fill "$T/ar/agent_workers.$e"/*.report >/dev/null 2>&1
ok $? "... the exec'd image's report names exec_fill" || diag "$T/a.err"
has_set "$T/ar" && grep -l head_setup "$T/ar"/*.report >/dev/null 2>&1
ok $? "the head's reports stay in the report dir, naming head_setup"
is "$(subdirs "$T/ar" | wc -l | tr -d ' ')" 3 "no subdirectory for the ten short children" ||
    subdirs "$T/ar" >&2
grep -q "ying-agent: pid $w0 (agent_workers), forked from pid [0-9]*, profiled: .*growth reports in $T/ar/agent_workers.$w0" "$T/a.err"
ok $? "the worker says it is profiled and where its reports go" || diag "$T/a.err"
n0=$(ls "$T/ar/agent_workers.$w0"/*.report 2>/dev/null | wc -l)
kill -USR2 "$w0"
wait_for 10 sh -c "[ \$(ls '$T/ar/agent_workers.$w0'/*.report 2>/dev/null | wc -l) -gt $n0 ]"
ok $? "the dump signal sent to a worker writes that worker's report set"
finish "$T/a"

# ---- none: only the head --------------------------------------------------
start "$T/n" "$T/nr" YING_CHILDREN=none
wait_for 20 sh -c "test -s '$T/n/w0' && test -s '$T/n/w1' && test -s '$T/n/e'"
sleep 4
has_set "$T/nr"
ok $? "YING_CHILDREN=none: the head writes reports"
is "$(subdirs "$T/nr" | wc -l | tr -d ' ')" 0 "... and no child does" || subdirs "$T/nr" >&2
finish "$T/n"

# ---- all: the short children too ------------------------------------------
start "$T/l" "$T/lr" YING_CHILDREN=all
wait_for 20 sh -c "test -s '$T/l/w0' && test -s '$T/l/w1'"
wait_for 10 sh -c "[ \$(cd '$T/lr' && ls -d */ 2>/dev/null | wc -l) -ge 8 ]"
ok $? "YING_CHILDREN=all: the short children are profiled too ($(subdirs "$T/lr" | wc -l) subdirectories)" ||
    { subdirs "$T/lr"; diag "$T/l.err"; }
finish "$T/l"

# ---- long:1 and a bad value ------------------------------------------------
start "$T/o" "$T/or" YING_CHILDREN=long:1
wait_for 20 test -s "$T/o/w0"
w0=$(cat "$T/o/w0" 2>/dev/null)
# the worker writes its pid after about 1 s; the watcher looks once a
# second: a member within a second more (under the default 3 s, 2 s more)
wait_for 1 test -d "$T/or/agent_workers.$w0"
ok $? "YING_CHILDREN=long:1: a worker is a member within a second of writing its pid (at 1 s)"
finish "$T/o"
YING_CHILDREN=sometimes "$YING" run --report-dir "$T/br" "$P" "$T/b" 0 >"$T/b.out" 2>"$T/b.err"
rc=$?
mkdir -p "$T/b"
test "$rc" -ne 0 && grep -q "YING_CHILDREN" "$T/b.err"
ok $? "YING_CHILDREN=sometimes is refused naming the variable (exit $rc)" || diag "$T/b.err"
# ---- the head exits: one orphaned worker takes over --------------------------
mkdir -p "$T/h"
hp=$(free_port)
AW_HEAD_EXIT=1 "$YING" run --http "127.0.0.1:$hp" --report-dir "$T/hr" --interval 1 \
    --floor 0 "$P" "$T/h" 2 >"$T/h.out" 2>"$T/h.err" &
run_pid=$!
bg_pids="$bg_pids $run_pid"
wait_for 20 sh -c "test -s '$T/h/w0' && test -s '$T/h/w1'"
w0=$(cat "$T/h/w0" 2>/dev/null) w1=$(cat "$T/h/w1" 2>/dev/null)
bg_pids="$bg_pids $w0 $w1"
wait_for 10 sh -c "test -d '$T/hr/agent_workers.$w0' && test -d '$T/hr/agent_workers.$w1'"
ok $? "both workers are members"
touch "$T/h/headexit"
wait "$run_pid"
is "$?" 0 "the head exits 0, ying run with it"
is "$(grep -c 'following daemonized pid' "$T/h.err")" 1 "exactly one orphaned worker takes the family over" ||
    diag "$T/h.err"
np=$(sed -n 's/.*following daemonized pid \([0-9]*\).*/\1/p' "$T/h.err" | head -1)
test "$np" = "$w0" || test "$np" = "$w1"
ok $? "... a worker ($np)"
curl -sf --max-time 10 -o "$T/h.heap" -D "$T/h.hdr" "http://127.0.0.1:$hp/debug/heap"
ok $? "... and serves the endpoint on the same port" || diag "$T/h.err"
grep -qi "filename=.*$np" "$T/h.hdr"
ok $? "... as itself (pid $np in the dump's name)" || diag "$T/h.hdr"
touch "$T/h/stop"
wait_for 20 sh -c "! kill -0 $w0 2>/dev/null && ! kill -0 $w1 2>/dev/null"
ok $? "the workers exit when told"

plan_done
