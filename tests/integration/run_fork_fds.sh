#!/bin/sh
# run_fork_fds.sh: a forked child never keeps the endpoint's or the
# runner's descriptors (issue 13, finding 6).
#
# A python3 program under `ying run --http --report-dir` forks.  Right
# after the fork the child holds none of the parent's ying descriptors:
# the listening socket, libmicrohttpd's eventfd, the runner's pipe
# (compared by socket/pipe inode and eventfd-id; only ying run's own
# YING_RUN_FD pipe stays, close-on-exec).  The child then execs `sleep`:
# the new image holds none of them either, not even YING_RUN_FD.  The
# parent exits: the port is no longer in LISTEN, and a client is refused
# at once instead of hanging.  Second case, the documented fork following:
# a child that stays (no exec) outlives its parent and serves on the same
# port with descriptors of its own, none of the parent's.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need curl

PY=$(python3 -c 'import sys; print(sys.executable)')
# The program: waits for "go", forks; the child writes "child" and, in
# mode exec, execs sleep once "exec" exists; the parent writes "parent"
# and exits once "release" exists.  (Each wait at most 60 s.)
SCRIPT='
import os, sys, time
d, mode = sys.argv[1], sys.argv[2]
def wait(name):
    for _ in range(600):
        if os.path.exists(os.path.join(d, name)):
            return
        time.sleep(0.1)
def put(name):
    with open(os.path.join(d, name + ".tmp"), "w") as f:
        f.write(str(os.getpid()))
    os.rename(os.path.join(d, name + ".tmp"), os.path.join(d, name))
wait("go")
if os.fork() == 0:
    put("child")
    if mode == "exec":
        wait("exec")
        os.execvp("sleep", ["sleep", "60"])
    wait("end")
    os._exit(0)
put("parent")
wait("release")
'
# fds.py PID [FD...]: one line per descriptor above 2 of PID that is a
# socket, a pipe or an eventfd ("socket:[INO]", "pipe:[INO]",
# "eventfd:ID"), leaving out the FDs given.
cat >"$T/fds.py" <<'PYEOF'
import os, sys
pid, skip = sys.argv[1], set(sys.argv[2:])
for fd in sorted(os.listdir("/proc/%s/fd" % pid), key=int):
    if int(fd) <= 2 or fd in skip:
        continue
    try:
        t = os.readlink("/proc/%s/fd/%s" % (pid, fd))
    except OSError:
        continue
    if t.startswith("socket:") or t.startswith("pipe:"):
        print(t)
    elif t == "anon_inode:[eventfd]":
        info = open("/proc/%s/fdinfo/%s" % (pid, fd)).read()
        ids = [l.split()[1] for l in info.splitlines() if l.startswith("eventfd-id:")]
        print("eventfd:" + (ids[0] if ids else "fd" + fd))
PYEOF
fds() {
	python3 "$T/fds.py" "$@" | sort -u
}
# run_fd PID: the YING_RUN_FD in PID's environment.
run_fd() {
	tr '\0' '\n' <"/proc/$1/environ" | sed -n 's/^YING_RUN_FD=//p'
}
# sink_fd PID: the YING_RUN_SINK in PID's environment (ying run's report
# keeper: inherited on purpose by every process of CMD, issue 25).
sink_fd() {
	tr '\0' '\n' <"/proc/$1/environ" | sed -n 's/^YING_RUN_SINK=//p'
}
port_of() {
	sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$1" | head -n 1
}
# listening PORT: some socket listens on 127.0.0.1:PORT (/proc/net/tcp).
listening() {
	python3 - "$1" <<'PYEOF'
import sys
port = "%04X" % int(sys.argv[1])
for line in open("/proc/net/tcp").read().splitlines()[1:]:
    f = line.split()
    if f[1].endswith(":" + port) and f[3] == "0A":
        sys.exit(0)
sys.exit(1)
PYEOF
}
# start NAME MODE: ying run the program in the background, wait for the
# agent, fork; sets D, run_pid, port, parent, child, pset (the parent's ying
# descriptors, YING_RUN_FD and YING_RUN_SINK left out).
start() {
	D="$T/$1"
	mkdir -p "$D"
	ying run --sample 16 --http 127.0.0.1:0 --report-dir "$D/rep" -- \
	    "$PY" -c "$SCRIPT" "$D" "$2" >"$D.out" 2>"$D.err" &
	run_pid=$!
	bg_pids="$bg_pids $run_pid"
	wait_for 30 grep -q "HTTP on http" "$D.err"
	port=$(port_of "$D.err")
	: >"$D/go"
	wait_for 30 test -f "$D/child" -a -f "$D/parent"
	ok $? "$1: the program forked" || diag "$D.err"
	parent=$(cat "$D/parent")
	child=$(cat "$D/child")
	bg_pids="$bg_pids $child"
	# (less what this test was given by whoever started it)
	fds "$parent" "$(run_fd "$parent")" $(sink_fd "$parent") | comm -23 - "$T/outer" >"$D/pset"
	grep -q '^socket:' "$D/pset" && grep -q '^eventfd:' "$D/pset" &&
	    [ "$(grep -c '^pipe:' "$D/pset")" -ge 1 ]
	ok $? "$1: the parent holds ying's socket, eventfd and pipe" || diag "$D/pset"
}
# none_of WHAT PID [FD...]: PID holds none of the parent's ying descriptors.
none_of() {
	_w=$1
	_p=$2
	shift 2
	fds "$_p" "$@" | comm -23 - "$T/outer" >"$D/cset"
	comm -12 "$D/pset" "$D/cset" >"$D/common"
	[ ! -s "$D/common" ]
	ok $? "$_w: none of the parent's ying descriptors" || diag "$D/common" "$D/pset"
}

fds $$ >"$T/outer"

# ---- fork, then exec
start fe exec
none_of "forked child" "$child"
: >"$D/exec"
wait_for 30 grep -qx sleep "/proc/$child/comm"
ok $? "the child exec'd sleep"
rf=$(run_fd "$parent")
ls -l "/proc/$child/fd" | sed 's/^/# /'
[ ! -e "/proc/$child/fd/$rf" ] || [ "$(readlink "/proc/$child/fd/$rf")" != "$(readlink "/proc/$parent/fd/$rf")" ]
ok $? "exec'd image: YING_RUN_FD was not inherited (close-on-exec in a forked child)"
none_of "exec'd image" "$child"
: >"$D/release"
wait "$run_pid"
is "$?" 0 "the parent exits 0, ying run with it"
kill -0 "$child" 2>/dev/null
ok $? "the exec'd child still runs"
! listening "$port"
ok $? "port $port is no longer in LISTEN" || sed 's/^/# /' /proc/net/tcp
t0=$(date +%s)
curl -s -o /dev/null --max-time 3 "http://127.0.0.1:$port/debug/prof"
c=$?
t1=$(date +%s)
is "$c" 7 "a client is refused (curl: couldn't connect), not left hanging"
[ $((t1 - t0)) -lt 3 ]
ok $? "... at once ($((t1 - t0)) s)"
kill "$child" 2>/dev/null

# ---- fork following: the child stays and outlives its parent
start ff stay
none_of "forked child (stays)" "$child"
: >"$D/release"
wait "$run_pid"
is "$?" 0 "the parent exits 0, ying run with it"
grep -q "following daemonized pid $child" "$D.err"
ok $? "the survivor took the agent over" || diag "$D.err"
is "$(curl -s -o /dev/null --max-time 10 -w '%{http_code}' "http://127.0.0.1:$port/debug/prof")" 200 \
    "the survivor serves on the same port"
fds "$child" | comm -23 - "$T/outer" >"$D/sset"
# (eventfd ids are reused once freed: the survivor's own may have the
# parent's number, so eventfds are counted, not compared)
is "$(grep -c '^eventfd:' "$D/sset")" 1 "... with one eventfd (its own server's)"
grep -v '^eventfd:' "$D/pset" >"$D/pset2"
grep -v '^eventfd:' "$D/sset" >"$D/sset2"
comm -12 "$D/pset2" "$D/sset2" >"$D/common"
[ ! -s "$D/common" ] && grep -q '^socket:' "$D/sset2"
ok $? "... a socket of its own and none of the parent's sockets or pipes" || diag "$D/common" "$D/sset"
: >"$D/end"
wait_for 10 sh -c "! kill -0 $child 2>/dev/null"
ok $? "the survivor exits"

plan_done
