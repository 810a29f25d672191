#!/bin/sh
# real_closefds.sh: a real server we did not write that closes every
# descriptor >= 3 after the agent is up is not harmed (issue 22, item 1).
#
# OpenSSH's sshd calls closefrom() early in main(), after the agent's
# constructor has started its endpoint, its runner and their descriptors.
# Under `ying run --http --report-dir --dump-signal USR2`:
#   - the endpoint notices its listening socket is gone, listens again on
#     the same port and says so once; it answers /debug/pprof/heap;
#   - sshd's idle CPU stays near zero (a thread polling a closed
#     descriptor spun a core: ~7 s of CPU in 10 s on 7596975);
#   - sshd still serves (ssh-keyscan gets its host key);
#   - the dump signal still writes a report set;
#   - SIGTERM ends it with the status sshd has without ying (7596975:
#     134, libmicrohttpd's "failed to signal quiesce" abort).
# sshd runs in the foreground (-D -e) on 127.0.0.1 and a free port with a
# host key made here and no configuration file (-f /dev/null).
# scripts/deps.sh installs openssh-server and makes its /run/sshd.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need ssh-keygen ssh-keyscan curl
SSHD=/usr/sbin/sshd
[ -x "$SSHD" ] || { echo "not ok 1 - no $SSHD (scripts/deps.sh installs openssh-server)"; echo "1..1"; exit 1; }
[ -d /run/sshd ] || { echo "not ok 1 - no /run/sshd, sshd's privilege separation directory (scripts/deps.sh makes it)"; echo "1..1"; exit 1; }

ssh-keygen -q -t ed25519 -N '' -f "$T/hostkey" || { echo "not ok 1 - ssh-keygen failed"; echo "1..1"; exit 1; }
# cpu PID: utime + stime of the whole process, in clock ticks.
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# The status sshd ends with on SIGTERM, without ying.
p=$(free_port)
"$SSHD" -D -e -f /dev/null -p "$p" -h "$T/hostkey" -o ListenAddress=127.0.0.1 \
    -o PidFile=none 2>"$T/plain.err" &
sp=$!
bg_pids="$bg_pids $sp"
wait_for 20 grep -q "Server listening on 127.0.0.1 port $p" "$T/plain.err"
ok $? "sshd alone listens on port $p" || diag "$T/plain.err"
kill -TERM "$sp"
wait "$sp"
want=$?

p=$(free_port)
mkdir "$T/rep"
(
	exec timeout 120 "$YING" run --http 127.0.0.1:0 --report-dir "$T/rep" --dump-signal USR2 \
	    --interval 0 -- "$SSHD" -D -e -f /dev/null -p "$p" -h "$T/hostkey" \
	    -o ListenAddress=127.0.0.1 -o PidFile=none >"$T/out" 2>"$T/err"
) &
rp=$!
bg_pids="$bg_pids $rp"
wait_for 30 grep -q "Server listening on 127.0.0.1 port $p" "$T/err"
ok $? "sshd under ying run listens on port $p" || diag "$T/err"
pid=$(sed -n 's/^ying-agent: pid \([0-9]*\) (sshd).*/\1/p' "$T/err" | head -n 1)
port=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/err" | head -n 1)
wait_for 15 grep -q "closed the endpoint's listening socket; listening again on port $port\$" "$T/err"
ok $? "the agent saw sshd close its listening socket and listened again on port $port" ||
    diag "$T/err"
wait_for 15 sh -c "[ \"\$(curl -s -m 5 -o /dev/null -w '%{http_code}' \
    http://127.0.0.1:$port/debug/pprof/heap)\" = 200 ]"
ok $? "... GET /debug/pprof/heap answers 200 after the closure" || diag "$T/err"
is "$(grep -c "listening again on port" "$T/err")" 1 "... said in one line"
a=$(cpu "$pid")
sleep 3
b=$(cpu "$pid")
ticks=$((b - a))
[ "$ticks" -le 30 ]
ok $? "sshd's idle CPU over 3 s: $ticks ticks (<= 30, 0.3 s)"
timeout 20 ssh-keyscan -T 10 -t ed25519 -p "$p" 127.0.0.1 >"$T/keyscan" 2>"$T/keyscan.err"
grep -q "^\[127.0.0.1\]:$p ssh-ed25519 " "$T/keyscan"
ok $? "sshd still serves: ssh-keyscan gets its host key" || diag "$T/keyscan.err"
kill -USR2 "$pid"
wait_for 30 has_report "$T/rep"
ok $? "the dump signal still writes a report set" || diag "$T/err"
kill -TERM "$pid"
wait "$rp"
is "$?" "$want" "SIGTERM: ying run exits with sshd's own status ($want)" || diag "$T/err"
grep -q 'failed to signal\|Fatal error' "$T/err"
is "$?" 1 "nothing aborted" || diag "$T/err"
plan_done
