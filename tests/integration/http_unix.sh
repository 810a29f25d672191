#!/bin/sh
# http_unix.sh: the endpoint on a Unix-domain socket (issue 22, item 2),
# `ying run --http unix:PATH` and YING_HTTP=unix:PATH.
#
# The socket file is 0600 and the program's user's; curl --unix-socket is
# served; nobody (setpriv, no account added) cannot connect, and once the
# file is made 0666 is refused by SO_PEERCRED with a reason naming its
# uid; a second server on the path, or a regular file there, is refused
# (the file kept); the file is removed at exit (by the agent at a normal
# exit, by ying run after a death by signal); a stale socket is replaced;
# a relative path is made absolute.  The uid rules over TCP: http_peer.sh.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
. "$YING_SRCDIR/tests/integration/peer_lib.sh"

U=$(mktemp -d "${TMPDIR:-/tmp}/ying-unix-sock.XXXXXX")
trap 'al_cleanup; rm -rf "$U"' EXIT

chmod 711 "$U"
timeout 60 "$YING" run --http "unix:$U/s" -- sleep 60 >/dev/null 2>"$T/err" &
rp=$!
bg_pids="$bg_pids $rp"
wait_for 30 grep -q "HTTP on unix:$U/s\$" "$T/err"
ok $? "--http unix:PATH announces the socket" || diag "$T/err"
is "$(stat -c '%F %a %u' "$U/s")" "socket 600 0" "... a socket, mode 600, of the program's user"
is "$(hit root GET http://localhost/debug/prof --unix-socket "$U/s")" 200 \
    "... curl --unix-socket is served"
is "$(hit root GET http://localhost/debug/heap --unix-socket "$U/s")" 200 "... the heap too"
$NOBODY curl -s --max-time 10 -o /dev/null --unix-socket "$U/s" http://localhost/debug/prof
is "$?" 7 "... nobody cannot even connect (curl exit 7)"
chmod 666 "$U/s"
is "$(hit nobody GET http://localhost/debug/prof --unix-socket "$U/s")" 403 \
    "... made 0666: nobody connects and is refused (SO_PEERCRED)"
grep -q "^forbidden: the connection from a Unix-domain socket belongs to uid 65534" "$T/body"
ok $? "... naming its uid" || diag "$T/body"
ying run --http "unix:$U/s" -- true >/dev/null 2>"$T/err2"
is "$?" 1 "a second ying run on the same socket: exit 1"
grep -q "cannot listen on unix:$U/s: a server is listening on it" "$T/err2"
ok $? "... saying so" || diag "$T/err2"
unserve
wait_for 10 test ! -e "$U/s"
ok $? "the program killed by SIGTERM: ying run removes the socket file"

# the agent alone: it removes the file itself at a normal exit; a program
# killed outright leaves a stale socket, which the next one replaces
agent_unix() {
	rm -f "$T/ready"
	env MALLOC_CONF=prof:true LD_PRELOAD="$JEMALLOC:$AGENT" YING_HTTP="unix:$U/a" \
	    timeout 60 "$@" >/dev/null 2>"$T/err" &
	rp=$!
	bg_pids="$bg_pids $rp"
	wait_for 30 grep -q "HTTP on unix:$U/a\$" "$T/err"
}
agent_unix "$PROGS/agent_exit" --wait "$T/ready"
ok $? "agent alone, YING_HTTP=unix:PATH announces it" || diag "$T/err"
wait_for 10 test -s "$T/ready"
kill -TERM "$rp"
wait "$rp"
is "$?" 3 "... the program exits normally on SIGTERM (status 3)"
[ ! -e "$U/a" ]
ok $? "... and the agent removed the socket file"
# the agent in sleep itself, not under timeout: a process forked by timeout
# could still hold a copy of the socket when timeout is killed (a child not
# yet run since the fork), and the socket would not be stale
rm -f "$T/ready"
env MALLOC_CONF=prof:true LD_PRELOAD="$JEMALLOC:$AGENT" YING_HTTP="unix:$U/a" \
    sleep 60 >/dev/null 2>"$T/err" &
rp=$!
bg_pids="$bg_pids $rp"
wait_for 30 grep -q "HTTP on unix:$U/a\$" "$T/err"
kill -KILL "$rp"
wait "$rp" 2>/dev/null
[ -S "$U/a" ]
ok $? "a program killed by SIGKILL leaves a stale socket"
timeout 60 "$YING" run --http "unix:$U/a" -- sleep 60 >/dev/null 2>"$T/err" &
rp=$!
bg_pids="$bg_pids $rp"
wait_for 30 grep -q "HTTP on unix:$U/a\$" "$T/err"
ok $? "... which ying run replaces" || diag "$T/err"
is "$(hit root GET http://localhost/debug/prof --unix-socket "$U/a")" 200 "... and serves"
unserve

printf 'keep' >"$U/f"
ying run --http "unix:$U/f" -- true >/dev/null 2>"$T/err2"
is "$?" 2 "--http unix:PATH where a regular file is: exit 2"
grep -q "$U/f exists and is not a socket (not replaced)" "$T/err2"
ok $? "... naming it" || diag "$T/err2"
is "$(cat "$U/f")" keep "... and the file is kept"

(cd "$U" && ying run --http unix:rel -- true >/dev/null 2>"$T/err")
grep -q "HTTP on unix:$U/rel\$" "$T/err"
ok $? "a relative unix:PATH is made absolute" || diag "$T/err"

# A program that closes every descriptor >= 3 (issue 22, item 1): the
# endpoint sees its listening socket gone, makes its socket file again on
# the same path (the old file is still its own) and says so once.
C="$T/closefds"
mkdir -p "$C"
timeout 90 "$YING" run --http "unix:$U/c" -- "$PROGS/agent_closefds" range "$C" \
    >/dev/null 2>"$C/err" &
rp=$!
bg_pids="$bg_pids $rp"
wait_for 30 grep -q "HTTP on unix:$U/c\$" "$C/err"
is "$(hit root GET http://localhost/debug/prof --unix-socket "$U/c")" 200 \
    "closing program: served on its Unix socket before the closure"
: >"$C/go"
wait_for 20 test -s "$C/closed"
ok $? "... the program closed its descriptors" || diag "$C/err"
wait_for 15 sh -c "[ \"\$(curl -s -m 5 -o /dev/null -w '%{http_code}' --unix-socket '$U/c' \
    http://localhost/debug/prof)\" = 200 ]"
ok $? "... the endpoint answers again on the same socket path" || diag "$C/err"
is "$(grep -c "closed the endpoint's listening socket; listening again on $U/c\$" "$C/err")" 1 \
    "... and said so in one line" || diag "$C/err"
is "$(stat -c '%F %a' "$U/c")" "socket 600" "... the new file a socket, mode 600"
: >"$C/done"
wait "$rp"
is "$?" 42 "... ying run exits with the program's own status" || diag "$C/err"
wait_for 10 test ! -e "$U/c"
ok $? "... and the socket file is removed at exit"

plan_done
