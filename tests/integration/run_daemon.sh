#!/bin/sh
# run_daemon.sh: `ying run` follows a daemonizing program.
#
# The agent's threads do not survive fork(); the process that keeps running
# must end up with the endpoint and the reports.  Checked on the real
# redis-server (--daemonize yes: one fork) and on agent_daemon (a double
# fork with setsid):
#   - ying run exits with the first process's status (0) and says the
#     program daemonized, naming the daemon's pid and its endpoint;
#   - the endpoint answers on the port first announced, from the daemon's
#     pid (the pid in /debug/heap's attachment name), with its heap;
#   - the dump signal writes a report set from the daemon into the report dir;
#   - a forked child of the daemon (redis BGSAVE, agent_daemon's 3-second
#     child) never holds the listening socket and never takes over;
#   - a child that execs is no second head: its agent waits to be a member
#     of the family (YING_AGENT_PID, YING_FAMILY_HEAD name another pid);
#   - exactly one "following daemonized pid" line; the daemon's shutdown
#     frees the port;
#   - a BGSAVE child that lives a second (rdb-key-save-delay) is short-lived:
#     never listed in /debug/processes, and it leaves no @ying. socket and
#     no report subdirectory behind (issue 25).
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
. "$YING_SRCDIR/tests/integration/fork_lib.sh"
need redis-server redis-cli curl ss

# holders PORT: the pids holding a listening socket on 127.0.0.1:PORT.
holders() {
	ss -Hltnp "sport = :$1" | grep -o 'pid=[0-9]*' | sed 's/pid=//' | sort -u
}
# heap_pid PORT: the pid named by /debug/heap's attachment file name.
heap_pid() {
	curl -s -m 20 -D "$T/hdr" -o "$T/heap" "http://127.0.0.1:$1/debug/heap" &&
	    sed -n 's/.*filename="[^"]*\.\([0-9][0-9]*\)\.[0-9TZ]*\.heap".*/\1/p' "$T/hdr"
}

# ---- redis-server --daemonize yes ----------------------------------------
rp=$(free_port)
mkdir -p "$T/redis"
ying run --http 127.0.0.1:0 --dump-signal USR2 --interval 0 --report-dir "$T/rr" -- \
    redis-server --bind 127.0.0.1 --port "$rp" --save '' --appendonly no \
    --dir "$T/redis" --daemonize yes --pidfile "$T/redis/redis.pid" \
    --logfile "$T/redis/redis.log" >"$T/r.out" 2>"$T/r.err"
is "$?" 0 "redis-server --daemonize yes: ying run exits 0 with the first process"
wait_for 10 test -s "$T/redis/redis.pid"
dp=$(cat "$T/redis/redis.pid" 2>/dev/null)
bg_pids="$bg_pids $dp"
hp=$(sed -n 's|.*pid [0-9]* (redis-server): heap profiling on.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/r.err" | head -n 1)
[ -n "$hp" ] && [ -n "$dp" ]
ok $? "the endpoint was announced (port $hp), the daemon is pid $dp" || diag "$T/r.err"
grep -q "redis-server (pid [0-9]*) exited with status 0, but it daemonized: pid $dp keeps running; its agent: HTTP on http://127.0.0.1:$hp/" "$T/r.err"
ok $? "ying run says the program daemonized, names the daemon and its endpoint" || diag "$T/r.err"
is "$(heap_pid "$hp")" "$dp" "/debug/heap on the announced port is served by the daemon"
head -n 1 "$T/heap" | grep -q '^heap_v2/'
ok $? "... a heap_v2 dump" || diag "$T/heap"
is "$(holders "$hp")" "$dp" "only the daemon listens on the port"
timeout 10 redis-cli -p "$rp" set k v >/dev/null
timeout 10 redis-cli -p "$rp" bgsave >"$T/bgsave" 2>&1
grep -q 'Background saving started' "$T/bgsave"
ok $? "redis-cli bgsave forks a child" || diag "$T/bgsave"
sleep 0.8
is "$(holders "$hp")" "$dp" "during and after BGSAVE only the daemon listens"
is "$(heap_pid "$hp")" "$dp" "the BGSAVE child did not take over the endpoint"
# a BGSAVE child that lives about 1.2 s, under the 3 s of "long"
timeout 10 redis-cli -p "$rp" config set rdb-key-save-delay 200000 >/dev/null
for k in 1 2 3 4 5 6; do timeout 10 redis-cli -p "$rp" set "k$k" v >/dev/null; done
timeout 10 redis-cli -p "$rp" bgsave >"$T/bgsave" 2>&1
sleep 0.5
bc=$(pgrep -P "$dp" | head -n 1)
[ -n "$bc" ]
ok $? "a slow BGSAVE: its child ($bc) runs" || diag "$T/bgsave"
is "$(procs_pids | tr '\n' ' ')" "$dp " "... /debug/processes lists the daemon only" || diag "$T/procs.json"
wait_for 10 sh -c "[ -z \"\$(pgrep -P $dp)\" ]"
ok $? "... the BGSAVE child is done"
ying_sockets | while read -r q; do
	[ "$q" = "$bc" ] && echo "$q"
	[ -d "/proc/$q" ] || echo "$q"
done >"$T/left"
[ ! -s "$T/left" ]
ok $? "... it left no @ying. socket behind" || diag "$T/left"
is "$(procs_pids | tr '\n' ' ')" "$dp " "... /debug/processes still lists the daemon only" || diag "$T/procs.json"
is "$(find "$T/rr" -mindepth 1 -type d 2>/dev/null)" "" "... and no report subdirectory"
timeout 10 redis-cli -p "$rp" config set rdb-key-save-delay 0 >/dev/null
kill -USR2 "$dp"
wait_for 30 has_report "$T/rr"
ok $? "SIGUSR2 to the daemon: a report set in the report dir" || diag "$T/r.err"
grep -q 'redis' "$T/rr"/*.report 2>/dev/null
ok $? "... of redis' heap" || diag "$T/rr"/*.report
timeout 10 redis-cli -p "$rp" shutdown nosave >/dev/null 2>&1
wait_for 20 sh -c "! kill -0 $dp 2>/dev/null || grep -q Z /proc/$dp/stat"
ok $? "redis-cli shutdown: the daemon exits"
wait_for 10 sh -c "[ -z \"\$(ss -Hltn 'sport = :$hp')\" ]"
ok $? "... and the port is free again"

# ---- a double fork (agent_daemon) -----------------------------------------
mkdir -p "$T/d"
ying run --http 127.0.0.1:0 --report-dir "$T/dr" --dump-signal USR2 --interval 0 -- \
    "$PROGS/agent_daemon" "$T/d" >"$T/d.out" 2>"$T/d.err"
is "$?" 0 "double fork: ying run exits 0 with the first process"
wait_for 10 test -s "$T/d/pid"
gp=$(cat "$T/d/pid" 2>/dev/null)
bg_pids="$bg_pids $gp"
hp=$(sed -n 's|.*(agent_daemon): heap profiling on.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/d.err" | head -n 1)
grep -q "daemonized: pid $gp keeps running; its agent: HTTP on http://127.0.0.1:$hp/" "$T/d.err"
ok $? "ying run names the grandchild ($gp) as the daemon" || diag "$T/d.err"
is "$(heap_pid "$hp")" "$gp" "the grandchild serves the announced port"
ying top "$T/heap" >"$T/d.top" 2>&1
grep -q 'agent_daemon_hold' "$T/d.top"
ok $? "... with its own heap (agent_daemon_hold)" || diag "$T/d.top"
wait_for 5 sh -c "grep -c 'following daemonized pid' '$T/d.err' | grep -qx 1"
ok $? "exactly one process took over" || diag "$T/d.err"
grep -q "following daemonized pid $gp (agent_daemon; pid [0-9]* that forked it exited)" "$T/d.err"
ok $? "... the grandchild, and it says so" || diag "$T/d.err"
touch "$T/d/fork"
wait_for 10 test -s "$T/d/child"
cp=$(cat "$T/d/child" 2>/dev/null)
sleep 0.5
[ -n "$cp" ] && kill -0 "$cp" 2>/dev/null
ok $? "the daemon forked a child ($cp) that is still running"
is "$(holders "$hp")" "$gp" "the forked child does not hold the listening socket"
wait_for 10 sh -c "! kill -0 $cp 2>/dev/null || grep -q Z /proc/$cp/stat"
is "$(heap_pid "$hp")" "$gp" "after the child exited the daemon still serves"
touch "$T/d/exec"
wait_for 10 test -s "$T/d/exec.out"
grep -q "^off: an image exec'd in the family; a member once it has lived" "$T/d/exec.out"
ok $? "a child that execs is no second head (a member once it lives on)" || diag "$T/d/exec.out"
kill -USR2 "$gp"
wait_for 30 has_report "$T/dr"
ok $? "SIGUSR2 to the daemon: a report set" || diag "$T/d.err"
grep -q 'agent_daemon_hold' "$T/dr"/*.report 2>/dev/null
ok $? "... naming the daemon's allocation" || diag "$T/dr"/*.report
touch "$T/d/stop"
wait_for 20 sh -c "! kill -0 $gp 2>/dev/null || grep -q Z /proc/$gp/stat"
ok $? "the daemon exits when told"
is "$(grep -c 'following daemonized pid' "$T/d.err")" 1 "still exactly one take-over"

plan_done
