#!/bin/sh
# fetch_hostile.sh: ying's HTTP clients against a hostile server (issue 22,
# item 7).  tests/integration/hostile_http.py on 127.0.0.1 answers with a
# redirect and a status line full of terminal escapes, an endless body
# (plain and chunked) and a Content-Length of 100 GiB.
#  - `ying top URL`: no ESC byte reaches stderr (the Location is escaped,
#    \x1b shown); under YING_MAX_MEMORY=64M an endless or chunked answer is
#    cut once it passes half the budget (exit 1, the URL and the budget
#    named, a bounded peak RSS, well under 64 MiB sent), a Content-Length
#    over it is refused before the body is read.
#  - `ying upload` (the uploader the agent's --pyroscope uses too): an
#    endless 200 answer or a 100 GiB Content-Length is read up to 64 KiB,
#    then the transfer stops; the upload counts as delivered (exit 0) at
#    once, instead of reading until the 10 s timeout and retrying.
. "$YING_SRCDIR/tests/integration/top_lib.sh"
need /usr/bin/time

SLACK=0
[ "${YING_SANITIZE:-no}" = address ] && SLACK=$((320 * 1024))
ESC=$(printf '\033')

mkdir "$T/srv"
python3 "$YING_SRCDIR/tests/integration/hostile_http.py" "$T/srv" 2>"$T/srv.err" &
srv=$!
cleanup_hooks="kill $srv 2>/dev/null;"
for _ in $(seq 1 100); do
	[ -s "$T/srv/port" ] && break
	sleep 0.1
done
P=$(cat "$T/srv/port" 2>/dev/null)
[ -n "$P" ]
ok $? "the hostile server listens on 127.0.0.1" || { diag "$T/srv.err"; plan_done; }
U="http://127.0.0.1:$P"

# run ARGS: ying ARGS (at most 30 s); status in RC, peak RSS (KiB) in RSS,
# wall seconds in SECS, stderr in $T/err.
run() {
	timeout 30 /usr/bin/time -f '%M %e' -o "$T/time" "$YING" "$@" >"$T/out" 2>"$T/err"
	RC=$?
	RSS=$(tail -n 1 "$T/time" | cut -d' ' -f1)
	case "$RSS" in ""|*[!0-9]*) RSS=999999999 ;; esac  # killed: no figure
	SECS=$(tail -n 1 "$T/time" | cut -d' ' -f2)
	case "$SECS" in ""|*[!0-9.]*) SECS=999 ;; esac
}
# sent PATH: the body bytes the server wrote on its last answer for PATH
# (waits up to 5 s for that answer to end).
sent() {
	for _ in $(seq 1 50); do
		grep -q "^$1 " "$T/srv/sent.log" 2>/dev/null && break
		sleep 0.1
	done
	awk -v p="$1" '$1 == p { n = $2 } END { print n + 0 }' "$T/srv/sent.log" 2>/dev/null
}
no_esc() {
	! grep -q "$ESC" "$T/err"
}

# ---- server text reaches stderr escaped --------------------------------------
run top "$U/redirect"
is "$RC" 1 "a redirect: exit 1"
no_esc
ok $? "... no ESC byte on stderr" || diag "$T/err"
grep -qF "$U/redirect: HTTP 302: redirected to http://127.0.0.1/\\x1b]0;owned\\x07\\x1b[2J\\x1b[31mx (not followed" "$T/err"
ok $? "... the Location is named, escaped" || diag "$T/err"

run top "$U/status"
is "$RC" 1 "a 500 with escapes in the status line, type and body: exit 1"
no_esc
ok $? "... no ESC byte on stderr" || diag "$T/err"
grep -q "$U/status: HTTP 500: boom" "$T/err"
ok $? "... the status and the body's first line are named" || diag "$T/err"

# ---- fetches keep to YING_MAX_MEMORY -----------------------------------------
for k in endless chunked; do
	YING_MAX_MEMORY=64M run top "$U/$k"
	is "$RC" 1 "YING_MAX_MEMORY=64M, /$k (an answer that never ends): exit 1, not killed at 30 s"
	grep -qxF "ying top: cannot fetch profile: $U/$k: the HTTP response would need more than 64.0 MiB (the decode budget; raise it with YING_MAX_MEMORY=SIZE)" "$T/err"
	ok $? "... the URL and the budget are named" || diag "$T/err"
	[ "$RSS" -lt $((80 * 1024 + SLACK)) ]
	ok $? "... peak RSS under 80 MiB ($RSS KiB; was 1 GiB)"
	n=$(sent "/$k")
	[ "$n" -lt $((64 << 20)) ]
	ok $? "... the server could send less than 64 MiB ($n bytes; was 1 GiB)"
done

YING_MAX_MEMORY=64M run top "$U/biglen"
is "$RC" 1 "YING_MAX_MEMORY=64M, Content-Length: 100 GiB: exit 1"
grep -qF "$U/biglen: the HTTP response would need more than 64.0 MiB (the decode budget" "$T/err"
ok $? "... refused naming the URL and the budget" || diag "$T/err"
n=$(sent /biglen)
[ "$n" -lt $((16 << 20)) ]
ok $? "... before the body is read: under 16 MiB sent ($n bytes)"

YING_MAX_MEMORY=lots run top "$U/endless"
is "$RC" 1 "YING_MAX_MEMORY=lots: exit 1 before fetching"
grep -q "YING_MAX_MEMORY=lots: not a memory budget" "$T/err"
ok $? "... it says why" || diag "$T/err"

# ---- the uploader stops reading the answer -----------------------------------
run upload --time now --url "$U/endless" --service ci "$YING_SRCDIR/tests/data/heap1.heap.gz"
is "$RC" 0 "ying upload, a 200 whose answer never ends: exit 0, delivered"
[ "${SECS%%.*}" -lt 8 ]
ok $? "... at once: ${SECS} s (was 62 s: read until the 10 s timeout, 5 attempts)"
[ "$RSS" -lt $((64 * 1024 + SLACK)) ]
ok $? "... peak RSS under 64 MiB ($RSS KiB)"
n=$(sent /endless/push.v1.PusherService/Push)
[ "$n" -lt $((64 << 20)) ]
ok $? "... under 64 MiB of the answer sent before the uploader hung up ($n bytes; was 3.6 GB)"
is "$(grep -c 'Push' "$T/srv/requests.log")" 1 "... one request, no retry"

run upload --time now --url "$U/biglen" --service ci "$YING_SRCDIR/tests/data/heap1.heap.gz"
is "$RC" 0 "ying upload, a 200 claiming 100 GiB: exit 0 at once"
n=$(sent /biglen/push.v1.PusherService/Push)
[ "$n" -lt $((16 << 20)) ]
ok $? "... the answer is not read ($n bytes sent)"
plan_done
