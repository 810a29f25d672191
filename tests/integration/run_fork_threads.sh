#!/bin/sh
# run_fork_threads.sh: a forked child stays single-threaded until it is
# known to outlive its parent (issue 22, item 4).
#
# agent_forker under `ying run --http 127.0.0.1:0` forks child A and waits
# for it, then forks child B and exits (tests/programs/agent_forker.c):
#   - A has one thread right after the fork and still one after 300 ms of
#     allocating (its parent lives: no watcher thread);
#   - unshare(CLONE_NEWUSER) succeeds in A (EINVAL in a multithreaded
#     process);
#   - A, once it has lived a second with its parent alive (known to be
#     long-lived), has the watcher thread (and has left jemalloc's slow
#     path);
#   - B, allocating with its parent alive, has one thread too;
#   - once the parent exited, B is taken over: one "following daemonized
#     pid B" line, `ying run` names B as the daemon, B has the agent's
#     threads and serves the endpoint on the port first announced.
# Then a survivor whose parent exits only after it has lived 1.5 s: the
# watcher thread it got at 1 s takes it over.  Then the fallback: with jemalloc's four hook slots taken (giant_hooks4.c
# preloaded after the agent) a forked child gets the watcher thread at
# once, as before, and the survivor is still taken over.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need curl cc

val() {
	cat "$T/d/$1" 2>/dev/null
}

mkdir -p "$T/d"
ying run --http 127.0.0.1:0 -- "$PROGS/agent_forker" "$T/d" >"$T/out" 2>"$T/err"
is "$?" 0 "ying run exits 0 with the first process"
wait_for 10 test -s "$T/d/b"
bp=$(val b)
[ -n "$bp" ] && bg_pids="$bg_pids $bp"
hp=$(sed -n 's|.*(agent_forker): heap profiling on.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/err" | head -n 1)
[ -n "$hp" ]
ok $? "the agent announced its endpoint (port $hp)" || diag "$T/err"

is "$(val a0)" 1 "child A: one thread right after fork"
is "$(val a1)" 1 "child A: one thread after 300 ms of allocating, its parent alive"
is "$(val a_unshare)" ok "child A: unshare(CLONE_NEWUSER) succeeds"
is "$(val b0)" 1 "child B: one thread while its parent lives"
is "$(val a2)" 2 "child A: the watcher thread once it has lived a second"

[ -n "$bp" ] && [ "$(val b1)" -gt 1 ]
ok $? "child B outlived its parent and was taken over ($(val b1) threads)" || diag "$T/err"
grep -q "daemonized: pid $bp keeps running; its agent: HTTP on http://127.0.0.1:$hp/" "$T/err"
ok $? "ying run names B ($bp) as the daemon, on the same port" || diag "$T/err"
is "$(grep -c 'following daemonized pid' "$T/err")" 1 "exactly one take-over"
is "$(curl -s -o /dev/null --max-time 10 -w '%{http_code}' "http://127.0.0.1:$hp/debug/prof")" 200 \
    "B serves the endpoint"
: >"$T/d/stop"
wait_for 20 sh -c "! kill -0 $bp 2>/dev/null"
ok $? "B exits when told"

# ---- the parent exits after the child has lived 1.5 s --------------------------
mkdir -p "$T/l"
ying run --http 127.0.0.1:0 -- "$PROGS/agent_forker" "$T/l" 1500 >"$T/lout" 2>"$T/lerr"
is "$?" 0 "long-lived child: ying run exits 0 with the first process"
wait_for 10 test -s "$T/l/b"
bp=$(cat "$T/l/b" 2>/dev/null)
[ -n "$bp" ] && bg_pids="$bg_pids $bp"
is "$(cat "$T/l/b0")" 2 "... the child had the watcher thread before its parent exited"
grep -q "daemonized: pid $bp keeps running; its agent: HTTP on http" "$T/lerr"
ok $? "... and the watcher took it over ($bp)" || diag "$T/lerr"
: >"$T/l/stop"
wait_for 20 sh -c "! kill -0 $bp 2>/dev/null"
ok $? "... and it exits when told"

# ---- no hook slot left: the watcher thread at once --------------------------
cc -shared -fPIC -O1 -o "$T/hooks4.so" "$YING_SRCDIR/tests/programs/giant_hooks4.c" -ldl
ok $? "built the object that takes the four hook slots"
mkdir -p "$T/h"
timeout 60 env LD_PRELOAD="$JEMALLOC $AGENT $T/hooks4.so" MALLOC_CONF=prof:true \
    YING_HTTP=127.0.0.1:0 "$PROGS/agent_forker" "$T/h" >"$T/hout" 2>"$T/herr"
is "$?" 0 "hooks taken: the first process exits 0"
wait_for 10 test -s "$T/h/b"
bp=$(cat "$T/h/b" 2>/dev/null)
[ -n "$bp" ] && bg_pids="$bg_pids $bp"
grep -q '^giant_hooks4: 4 hook slots taken' "$T/herr"
ok $? "... the four slots were taken first" || diag "$T/herr"
is "$(cat "$T/h/a0")" 2 "hooks taken: child A has the watcher thread (no hook to wait with)"
wait_for 10 grep -q "following daemonized pid $bp (agent_forker;" "$T/herr"
ok $? "hooks taken: the survivor ($bp) is still taken over" || diag "$T/herr"
: >"$T/h/stop"
wait_for 20 sh -c "! kill -0 $bp 2>/dev/null"
ok $? "... and exits when told"

plan_done
