# servers_lib.sh: helpers for the tests that run Debian's own servers under
# `ying run` (run_postgres.sh, run_nginx.sh, run_squid.sh, run_sqlite.sh,
# run_memcached.sh).  Not a test itself.  The binaries have no debug
# symbols (Debian's dbgsym archive is not used): only their exported
# functions have names, static ones are module+0xOFFSET.
#
# Gives, besides agent_lib.sh's helpers:
#   as_user CMD...      run CMD as an unprivileged user when the test runs as
#                       root (postgres and squid refuse root or drop to
#                       another user): `nobody`, through setpriv; $T is
#                       handed to that user first (every time: files made
#                       since are the test's).  Otherwise CMD as is.
#   serve_under_ying OUT CMD...  `ying run --sample LG --http 127.0.0.1:0 --
#                       CMD` (as_user) in the background, stdin from
#                       $SERVE_IN (default /dev/null), LG $SERVE_SAMPLE
#                       (default 14: one sample per 16 KiB), stdout in OUT,
#                       stderr in $T/err; one result (the endpoint is
#                       announced); sets p (ying run's pid) and hp (port).
#   heap_now FILE       GET /debug/heap into FILE; one result.
#   top_rows HEAP N     the first N rows of `ying top --json` as
#                       "FUNCTION<TAB>FLAT-BYTES<TAB>PERCENT" lines.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need curl

as_user() {
	if [ "$(id -u)" = 0 ]; then
		chown -R nobody:nogroup "$T"
		setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
	else
		"$@"
	fi
}
if [ "$(id -u)" = 0 ]; then
	need setpriv
	getent group nogroup >/dev/null || missing "group 'nogroup'"
fi

serve_under_ying() {
	_out=$1
	shift
	# (a simple command in the background, so $! is ying run itself)
	if [ "$(id -u)" = 0 ]; then
		chown -R nobody:nogroup "$T"
		setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
		    "$YING" run --sample "${SERVE_SAMPLE:-14}" --http 127.0.0.1:0 -- "$@" \
		    <"${SERVE_IN:-/dev/null}" >"$_out" 2>"$T/err" &
	else
		"$YING" run --sample "${SERVE_SAMPLE:-14}" --http 127.0.0.1:0 -- "$@" \
		    <"${SERVE_IN:-/dev/null}" >"$_out" 2>"$T/err" &
	fi
	p=$!
	bg_pids="$bg_pids $p"
	wait_for 30 grep -q 'HTTP on http://127.0.0.1:[0-9]*/' "$T/err"
	ok $? "the agent announces its HTTP endpoint inside $(basename "$1")" || diag "$T/err"
	hp=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/err" | head -n 1)
}

heap_now() {
	curl -s --retry 3 -m 60 -o "$1" "http://127.0.0.1:$hp/debug/heap"
	head -n 1 "$1" 2>/dev/null | grep -q '^heap_v2/'
	ok $? "/debug/heap: a heap_v2 dump" || diag "$T/err"
}

top_rows() {
	[ -s "$1" ] || return 0
	ying top --json "$1" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
for r in d["rows"][:int(sys.argv[1])]:
    print("%s\t%d\t%.1f" % (r["function"], r["flat"], 100.0 * r["flat"] / (d["total"] or 1)))
' "$2"
}

# stop_under_ying NAME: SIGTERM to ying run ($p), which passes it on; one
# result: it and the server NAME ended (0, or the signal's 143).
stop_under_ying() {
	kill -TERM "$p"
	wait "$p"
	st=$?
	[ "$st" -eq 0 ] || [ "$st" -eq 143 ]
	ok $? "SIGTERM to ying run: $1 stops (status $st)"
}

# top_first DUMP: its 5 top rows in $T/top (shown as comments); sets first
# (the top row's function) and pct (its share, whole percent).
top_first() {
	top_rows "$1" 5 >"$T/top"
	show_top "$T/top"
	first=$(head -n 1 "$T/top" | cut -f 1)
	pct=$(head -n 1 "$T/top" | cut -f 3 | cut -d. -f 1)
}

# show_top FILE: the rows as TAP comments.
show_top() {
	sed 's/^/# /' "$1"
}
