#!/bin/sh
# agent_stop.sh: the agent's stop at exit is safe and bounded.
#
# 1. A dump signal handled across the stop: a shim (agent_late_signal.c,
#    preloaded after the agent) sends SIGUSR2 to a thread of the program at
#    exit and holds the agent's handler there until the agent's destructor
#    has stopped (and freed) the runner, then lets it go on.  Under
#    valgrind's memcheck (jemalloc's malloc replaced by valgrind's, so a
#    freed runner is seen as such) the handler must read no freed memory:
#    it pokes libying's static trigger slots, never the runner.  Before the
#    fix the handler read the freed runner (4 invalid reads).
# 2. A Pyroscope server that accepts and never answers stalls the
#    uploader's flush at exit: the program still exits at once with its
#    own status, and after the agent's destructor no thread of the agent
#    (libmicrohttpd's, the uploader's, the stopper) is left (the shim lists
#    them).  Before the fix the destructor gave up after 2 s with the
#    uploader (10 s flush) and the HTTP endpoint still running.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"

need valgrind cc objcopy

cc -shared -fPIC -O1 -o "$T/late.so" "$YING_SRCDIR/tests/programs/agent_late_signal.c" \
    -ldl -lpthread
ok $? "the late-signal shim builds"
mkdir -p "$T/rep"
# copies without debug info: Debian 12's valgrind cannot read clang's DWARF 5
# (DW_FORM_addrx) and stops (the clang UBSan CI build); memcheck needs none
cp "$AGENT" "$T/agent.so" && cp "$PROGS/agent_exit" "$T/agent_exit" &&
    objcopy --strip-debug "$T/agent.so" && objcopy --strip-debug "$T/agent_exit" &&
    objcopy --strip-debug "$T/late.so"
ok $? "copies of the agent and the program without debug info (for valgrind)"
timeout 240 valgrind -q --trace-children=yes --soname-synonyms=somalloc='*jemalloc*' \
    --log-file="$T/vg.log" env LD_PRELOAD="$JEMALLOC $T/agent.so $T/late.so" \
    MALLOC_CONF=prof:true YING_DUMP_SIGNAL=USR2 YING_REPORT_DIR="$T/rep" \
    YING_REPORT_INTERVAL=0 YING_QUIET=1 LATE_SIGNAL=1 "$T/agent_exit" 0 \
    >"$T/out" 2>"$T/err"
is "$?" 0 "the program exits 0 under valgrind" || diag "$T/vg.log"
grep -q "handler resumed after the agent's stop" "$T/err"
ok $? "the dump signal's handler ran across the agent's stop" || diag "$T/err"
is "$(grep -c 'Invalid \(read\|write\)' "$T/vg.log")" 0 \
    "the handler touches no freed memory (memcheck)" || diag "$T/vg.log"


# 2. a stalled Pyroscope server at exit
cat >"$T/stall.py" <<'PY'
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(16)
open(sys.argv[1] + ".tmp", "w").write("%d\n" % s.getsockname()[1])
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
conns = []
end = time.time() + 90
s.settimeout(1)
while time.time() < end:
    try:
        c, _ = s.accept()
    except socket.timeout:
        continue
    conns.append(c)          # never read, never answered
    with open(sys.argv[2], "a") as f:
        f.write("accepted\n")
PY
python3 "$T/stall.py" "$T/port" "$T/accepted" &
bg_pids="$bg_pids $!"
wait_for 20 test -s "$T/port"
ok $? "the stalling server listens" || exit 1
sport=$(cat "$T/port")
hport=$(free_port)
env LD_PRELOAD="$JEMALLOC $AGENT $T/late.so" MALLOC_CONF=prof:true \
    YING_HTTP="127.0.0.1:$hport" YING_PYROSCOPE_URL="http://127.0.0.1:$sport" \
    YING_PYROSCOPE_INTERVAL=0.2 YING_QUIET=1 \
    "$PROGS/agent_exit" --wait "$T/ready" >"$T/out2" 2>"$T/err2" &
p=$!
bg_pids="$bg_pids $p"
wait_for 20 test -s "$T/ready"
ok $? "the program runs" || diag "$T/err2"
wait_for 20 test -s "$T/accepted"
ok $? "an upload is stalled in the server" || diag "$T/err2"
sleep 0.3
t0=$(date +%s%N)
kill -TERM "$p"
wait "$p"
st=$?
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
is "$st" 3 "the program's own exit status (3 after SIGTERM)"
[ "$ms" -lt 2500 ]
ok $? "it exits within 2.5 s of SIGTERM (took $ms ms)"
is "$(grep 'late-signal: threads left' "$T/err2")" "late-signal: threads left: none" \
    "no thread of the agent runs after its destructor" || diag "$T/err2"

plan_done
