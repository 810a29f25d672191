#!/bin/sh
# http_peer.sh: another local user gets nothing by default (issue 22,
# item 2).  Without a token the endpoint serves only the program's own
# user and root; every other uid gets 403 with a one-line reason on every
# endpoint, before routing.  Other users come from setpriv (no account is
# added): nobody (65534) and daemon (1).
#
# 1. ying run as root: every route of the router (read from GET /, with
#    each of its methods; HEAD once) and an unknown path are 403 for nobody,
#    naming its uid; root is served on each; nobody's
#    POST /debug/prof/sample?lg=0 and POST /debug/heap/recent?max=-1
#    change nothing.
# 2. The program itself runs as nobody: nobody and root are served, daemon
#    is refused.
# 3. With a token the token decides (nobody with it: 200; without: 401).
# 4. --http-open, and YING_HTTP_OPEN=1 for the agent alone (LD_PRELOAD):
#    nobody is served, with a warning; the agent alone without it refuses.
# The Unix-domain socket (--http unix:PATH): http_unix.sh.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
. "$YING_SRCDIR/tests/integration/peer_lib.sh"

# serve ERR [PREFIX...] -- [RUN OPTIONS...]: PREFIX ying run --http
# 127.0.0.1:0 OPTIONS -- sleep 60 in the background (rp, in bg_pids); hp
# the endpoint's port once announced ("" if not).
serve() {
	_e=$1
	shift
	_pre=""
	while [ "$1" != -- ]; do
		_pre="$_pre $1"
		shift
	done
	shift
	# a fresh file: a reused one may still show the previous server's port
	# to the wait below before the new one has truncated it
	rm -f "$_e"
	$_pre timeout 60 "$YING" run --http 127.0.0.1:0 "$@" -- sleep 60 >/dev/null 2>"$_e" &
	rp=$!
	bg_pids="$bg_pids $rp"
	wait_for 30 grep -q 'HTTP on http://127.0.0.1:[0-9]*/' "$_e"
	hp=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$_e" | head -n 1)
}

# --- 1. the program runs as root ------------------------------------------------
serve "$T/err" --
[ -n "$hp" ]
ok $? "ying run --http 127.0.0.1:0 (as root) announces its endpoint" || diag "$T/err"
B="http://127.0.0.1:$hp"
curl -s --max-time 30 "$B/debug/" | sed -n \
    's|^<tr><td>\([^<]*\)</td><td>\(<a href="[^"]*">\)\{0,1\}\(/[^<]*\)<.*|\3 \1|p' \
    | tr -d ',' >"$T/routes"
n=$(wc -l <"$T/routes")
[ "$n" -ge 15 ] && grep -q '^/debug/heap GET HEAD$' "$T/routes" &&
    grep -q '^/debug/prof/sample POST$' "$T/routes"
ok $? "root reads the router's $n routes from GET /debug/" || diag "$T/routes"
lg0=$(curl -s "$B/debug/prof" | sed -n 's/.*"lg_sample":\([0-9]*\).*/\1/p')
max0=$(curl -s "$B/debug/heap/recent" | sed -n 's/.*"recent_alloc_max":\(-\{0,1\}[0-9]*\).*/\1/p')

while read -r path methods; do
	for m in $methods; do
		[ "$m" = HEAD ] && continue     # GET's route; one HEAD below
		st=$(hit nobody "$m" "$B$path")
		is "$st" 403 "nobody: $m $path is 403" &&
		    grep -q "^forbidden: the connection from 127.0.0.1:[0-9]* belongs to uid 65534, and without a token this endpoint serves only its own user (uid 0) and root; set a token (YING_HTTP_TOKEN_FILE, ying run --token-file) or serve every local user (YING_HTTP_OPEN=1, ying run --http-open)$" "$T/body"
		ok $? "... with the one-line reason" || diag "$T/body"
	done
	case $methods in
	*GET*) st=$(hit root GET "$B$path") ;;
	*) st=$(hit root "${methods%% *}" "$B$path") ;;
	esac
	[ "$st" != 403 ] && [ "$st" != 000 ] && [ "$st" != 401 ]
	ok $? "root is served on $path (status $st)" || diag "$T/body"
done <"$T/routes"
is "$(hit nobody HEAD "$B/debug/heap")" 403 "nobody: HEAD /debug/heap is 403"
is "$(hit nobody GET "$B/no/such/path")" 403 "nobody: an unknown path is 403, not 404"
is "$(hit nobody PUT "$B/debug/heap")" 403 "nobody: a wrong method is 403, not 405"
is "$(hit daemon GET "$B/debug/heap")" 403 "daemon (uid 1): GET /debug/heap is 403"
grep -q "belongs to uid 1," "$T/body"
ok $? "... naming uid 1" || diag "$T/body"
hit nobody POST "$B/debug/prof/sample?lg=0" >/dev/null
hit nobody POST "$B/debug/heap/recent?max=-1" >/dev/null
lg1=$(curl -s "$B/debug/prof" | sed -n 's/.*"lg_sample":\([0-9]*\).*/\1/p')
max1=$(curl -s "$B/debug/heap/recent" | sed -n 's/.*"recent_alloc_max":\(-\{0,1\}[0-9]*\).*/\1/p')
[ -n "$lg0" ] && [ "$lg1" = "$lg0" ]
ok $? "nobody's POST /debug/prof/sample?lg=0 left the sampling rate alone ($lg0 -> $lg1)"
[ -n "$max0" ] && [ "$max1" = "$max0" ]
ok $? "nobody's POST /debug/heap/recent?max=-1 left the record count alone ($max0 -> $max1)"
unserve

# --- 2. the program runs as nobody ----------------------------------------------
serve "$T/err" $NOBODY --
[ -n "$hp" ]
ok $? "ying run as nobody announces its endpoint" || diag "$T/err"
B="http://127.0.0.1:$hp"
is "$(hit nobody GET "$B/debug/prof")" 200 "program as nobody: nobody is served"
is "$(hit nobody GET "$B/debug/heap")" 200 "... its heap dump too"
is "$(hit root GET "$B/debug/prof")" 200 "... root is served"
is "$(hit daemon GET "$B/debug/prof")" 403 "... daemon (uid 1) is 403"
grep -q "belongs to uid 1, and without a token this endpoint serves only its own user (uid 65534) and root" "$T/body"
ok $? "... naming both uids" || diag "$T/body"
unserve

# --- 3. a token decides ---------------------------------------------------------
printf 'peer-t0ken\n' >"$T/tok"
chmod 600 "$T/tok"
serve "$T/err" -- --token-file "$T/tok"
B="http://127.0.0.1:$hp"
is "$(hit nobody GET "$B/debug/prof" -H 'Authorization: Bearer peer-t0ken')" 200 \
    "with a token: nobody with it is served"
is "$(hit nobody GET "$B/debug/prof")" 401 "... nobody without it: 401"
is "$(hit root GET "$B/debug/prof")" 401 "... root without it: 401"
unserve

# --- 4. open mode ---------------------------------------------------------------
serve "$T/err" -- --http-open
B="http://127.0.0.1:$hp"
is "$(hit nobody GET "$B/debug/prof")" 200 "--http-open: nobody is served"
is "$(hit daemon POST "$B/debug/heap/snapshot?name=d")" 200 "... daemon too (POST)"
grep -q "^ying-agent: pid [0-9]*: warning: YING_HTTP_OPEN is set: every local user can read the heap" "$T/err"
ok $? "... and the agent warns" || diag "$T/err"
unserve
# the agent alone
agent_alone() {
	env "$@" MALLOC_CONF=prof:true LD_PRELOAD="$JEMALLOC:$AGENT" YING_HTTP=127.0.0.1:0 \
	    timeout 60 sleep 60 >/dev/null 2>"$T/err" &
	rp=$!
	bg_pids="$bg_pids $rp"
	# 60 s: a sanitizer build on a loaded machine starts slowly (the CI's
	# gcc ASan run once had no endpoint after 30 s)
	wait_for 60 grep -q 'HTTP on http://127.0.0.1:[0-9]*/' "$T/err"
	hp=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/err" | head -n 1)
	[ -n "$hp" ] || diag "$T/err"
}
agent_alone YING_HTTP_OPEN=1
is "$(hit nobody GET "http://127.0.0.1:$hp/debug/prof")" 200 "agent alone, YING_HTTP_OPEN=1: nobody is served"
unserve
agent_alone YING_HTTP_OPEN=0
is "$(hit nobody GET "http://127.0.0.1:$hp/debug/prof")" 403 "agent alone, YING_HTTP_OPEN=0: nobody is 403"
unserve

plan_done
