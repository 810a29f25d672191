#!/bin/sh
# http_family.sh: one endpoint for every process of a service (issue 25).
# tests/programs/http_family is a head (ying_http on 127.0.0.1:0) with two
# forked members on abstract sockets (yi_http_member_start), allocating in
# family_child_alpha (8 MiB) and family_child_beta (24 MiB).  Checked:
# /debug/processes (3 processes, parents, user, RSS, live heap), ?pid=N
# forwarded (that member's function, not the other's), ?pid=999999 404,
# ?pid=abc 400, ?pid=all summed (ying top; go tool pprof -tags and
# -tagfocus=pid=N on the pid label), the raw dump refused with pid=all, a
# member refusing a process that is not its ancestor, a stray listener not
# listed, the head's Host check and token still asked for ?pid=N, and a
# SIGKILLed member gone from the list and its socket from the kernel's.
: "${YING_BUILDDIR:?YING_BUILDDIR not set}"
: "${YING_SRCDIR:?YING_SRCDIR not set}"
. "$YING_SRCDIR/tests/integration/tap.sh"
need curl python3
FAM="$YING_BUILDDIR/tests/programs/http_family"
YING="$YING_BUILDDIR/ying"
T=$(mktemp -d "${TMPDIR:-/tmp}/ying-family.XXXXXX")
PIDS=""
cleanup() {
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# start NAME [ARGS]: the head in the background; NAME.out gets its lines
start() {
	_n=$1
	shift
	MALLOC_CONF=prof:true,lg_prof_sample:14 "$FAM" "$@" >"$T/$_n.out" 2>"$T/$_n.err" &
	PIDS="$PIDS $!"
	eval "${_n}_PID=$!"
	for _ in $(seq 1 200); do
		[ "$(grep -c '^member ' "$T/$_n.out")" -ge 2 ] && return 0
		sleep 0.05
	done
	return 1
}
# get URL [CURL ARGS]: body in $T/body, status in $T/code
get() {
	_u=$1
	shift
	curl -s -o "$T/body" -w '%{http_code}' "$@" "$_u" >"$T/code" 2>"$T/curl.err"
}

start S
ok $? "the head and two members start" || diag "$T/S.out" "$T/S.err"
HEAD=$S_PID
ID=$(awk '/^family /{print $2}' "$T/S.out")
PORT=$(awk '/^port /{print $2}' "$T/S.out")
ALPHA=$(awk '$1 == "member" && $3 == "alpha" {print $2}' "$T/S.out")
BETA=$(awk '$1 == "member" && $3 == "beta" {print $2}' "$T/S.out")
B="http://127.0.0.1:$PORT"
[ -n "$ID" ] && [ -n "$PORT" ] && [ -n "$ALPHA" ] && [ -n "$BETA" ]
ok $? "family $ID, port $PORT, members $ALPHA (alpha) and $BETA (beta)" || plan_done

# ---- /debug/processes ----------------------------------------------------------
get "$B/debug/processes"
is "$(cat "$T/code")" 200 "GET /debug/processes answers 200"
python3 - "$T/body" "$HEAD" "$ALPHA" "$BETA" "$(id -un)" >"$T/check" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))["processes"]
head, a, b, user = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
assert [p["pid"] for p in d] == [head] + sorted([a, b]), d
assert d[0]["head"] is True and all(not p["head"] for p in d[1:]), d
assert all(p["ppid"] == head for p in d[1:]), d
assert all(p["user"] == user and p["rss"] > 0 and p["profiled"] for p in d), d
assert all(p["program"] == "http_family" and p["start_time"] > 1e9 for p in d), d
heap = {p["pid"]: p["live_heap"] for p in d}
# beta holds 16 MiB more than alpha (24 against 8), both the head's 4 too
assert heap[b] - heap[a] > 12 << 20 and heap[a] > 8 << 20, heap
print("ok")
EOF
ok $? "it lists the head first, then both members: parents, user, RSS, live heaps" ||
    { diag "$T/check"; diag "$T/body"; }

# ---- ?pid=N --------------------------------------------------------------------
get "$B/debug/heap?format=text&pid=$BETA"
grep -q family_child_beta "$T/body" && ! grep -q family_child_alpha "$T/body"
ok $? "?pid=$BETA (beta) is beta's heap: family_child_beta, no family_child_alpha" ||
    diag "$T/body"
get "$B/debug/heap?format=text&pid=$ALPHA"
grep -q family_child_alpha "$T/body" && ! grep -q family_child_beta "$T/body"
ok $? "?pid=$ALPHA (alpha) is alpha's" || diag "$T/body"
get "$B/debug/heap?format=text&pid=$HEAD"
! grep -q family_child_ "$T/body" && grep -q family_head_alloc "$T/body"
ok $? "?pid=$HEAD (the head itself) is served as without pid" || diag "$T/body"
get "$B/debug/prof?pid=$ALPHA"
grep -q '"server":{"port":0,' "$T/body"
ok $? "/debug/prof?pid=$ALPHA is the member's own status (no TCP port)" || diag "$T/body"
get "$B/debug/heap?pid=999999"
[ "$(cat "$T/code")" = 404 ] && grep -q '/debug/processes' "$T/body"
ok $? "?pid=999999: 404 pointing at /debug/processes" || diag "$T/code" "$T/body"
get "$B/debug/heap?pid=abc"
is "$(cat "$T/code")" 400 "?pid=abc: 400"
get "$B/debug/heap?pid=-5"
is "$(cat "$T/code")" 400 "?pid=-5: 400"
get "$B/debug/heap?pid=1"
is "$(cat "$T/code")" 404 "?pid=1 (not of this service): 404"

# ---- ?pid=all ------------------------------------------------------------------
get "$B/debug/heap?format=text&pid=all"
grep -q family_child_beta "$T/body" && grep -q family_child_alpha "$T/body" &&
    grep -q family_head_alloc "$T/body"
ok $? "?pid=all&format=text sums the head and both members" || diag "$T/body"
get "$B/debug/heap?pid=all"
[ "$(cat "$T/code")" = 400 ] && grep -q '/debug/pprof/heap' "$T/body"
ok $? "?pid=all on the raw dump: 400 naming where sums are served" || diag "$T/body"
get "$B/debug/prof?pid=all"
is "$(cat "$T/code")" 400 "?pid=all on /debug/prof: 400"
"$YING" top "$B?pid=all" >"$T/top" 2>&1
grep -q family_child_beta "$T/top" && grep -q family_child_alpha "$T/top"
ok $? "ying top 'URL?pid=all' shows every process's functions" || diag "$T/top"
"$YING" top "$B/debug/heap?pid=$ALPHA" >"$T/top2" 2>&1
grep -q family_child_alpha "$T/top2" && ! grep -q family_child_beta "$T/top2"
ok $? "ying top URL/debug/heap?pid=N: the raw dump symbolized by that member" ||
    diag "$T/top2"

# ---- who may ask ---------------------------------------------------------------
"$FAM" --ask "$ID" "$ALPHA" /debug/processes >"$T/ask" 2>&1
grep -q '^status 403' "$T/ask" && grep -q 'only its ancestors' "$T/ask"
ok $? "a member refuses a process that is not its ancestor (403)" || diag "$T/ask"
if curl --help all 2>/dev/null | grep -q abstract-unix-socket; then
	curl -s -o "$T/body" -w '%{http_code}' --abstract-unix-socket "ying.$ID.$BETA" \
	    http://localhost/debug/heap >"$T/code" 2>/dev/null
	is "$(cat "$T/code")" 403 "curl on the member's abstract socket: 403"
fi
# a listener of the family's name in a process that is no descendant
python3 -c 'import os, socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind("\0ying.%s.%d" % (sys.argv[1], os.getpid()))
s.listen(1); print(os.getpid(), flush=True); time.sleep(30)' "$ID" >"$T/stray" &
STRAY=$!
PIDS="$PIDS $STRAY"
for _ in $(seq 1 100); do [ -s "$T/stray" ] && break; sleep 0.05; done
get "$B/debug/processes"
grep -q "\"pid\":$ALPHA" "$T/body" && ! grep -q "\"pid\":$STRAY" "$T/body"
ok $? "a stray listener of the family's name (not a descendant) is not listed" ||
    diag "$T/body"
get "$B/debug/heap?pid=$STRAY"
is "$(cat "$T/code")" 404 "... nor asked (?pid=$STRAY: 404)"
kill "$STRAY" 2>/dev/null
get "$B/debug/heap?format=text&pid=$ALPHA" -H 'Host: evil.example'
is "$(cat "$T/code")" 403 "the head's Host check holds for ?pid=N"

# ---- the token -----------------------------------------------------------------
start K --token s3cret
ok $? "a head with a token starts" || diag "$T/K.out" "$T/K.err"
KB="http://127.0.0.1:$(awk '/^port /{print $2}' "$T/K.out")"
KA=$(awk '$1 == "member" && $3 == "alpha" {print $2}' "$T/K.out")
get "$KB/debug/heap?format=text&pid=$KA"
is "$(cat "$T/code")" 401 "?pid=N without the head's token: 401"
get "$KB/debug/heap?format=text&pid=$KA" -H 'Authorization: Bearer s3cret'
[ "$(cat "$T/code")" = 200 ] && grep -q family_child_alpha "$T/body"
ok $? "?pid=N with the token: the member's heap" || diag "$T/body"
get "$KB/debug/processes?pid=all" -H 'Authorization: Bearer s3cret'
[ "$(cat "$T/code")" = 200 ] && [ "$(grep -o '"pid":' "$T/body" | wc -l)" = 3 ]
ok $? "its /debug/processes lists 3 processes" || diag "$T/body"
kill "$K_PID"

# ---- a member killed -----------------------------------------------------------
kill -KILL "$BETA"
sleep 0.2
get "$B/debug/processes"
! grep -q "\"pid\":$BETA" "$T/body" && grep -q "\"pid\":$ALPHA" "$T/body"
ok $? "a SIGKILLed member is gone from /debug/processes" || diag "$T/body"
! grep -q "@ying\.$ID\.$BETA\$" /proc/net/unix
ok $? "... and its socket from the kernel's table"
get "$B/debug/heap?pid=$BETA"
is "$(cat "$T/code")" 404 "... and ?pid=$BETA is 404"

# ---- go tool pprof on the pid label ------------------------------------------------
command -v go >/dev/null 2>&1 || missing "required tool 'go'"
tool_homes "$T"
kill -TERM "$HEAD"
wait "$HEAD" 2>/dev/null
start G
ok $? "a new service for go tool pprof" || diag "$T/G.out" "$T/G.err"
GB="http://127.0.0.1:$(awk '/^port /{print $2}' "$T/G.out")"
GA=$(awk '$1 == "member" && $3 == "alpha" {print $2}' "$T/G.out")
GBE=$(awk '$1 == "member" && $3 == "beta" {print $2}' "$T/G.out")
curl -s -o "$T/all.pb.gz" "$GB/debug/pprof/heap?pid=all"
timeout 60 go tool pprof -tags "$T/all.pb.gz" >"$T/tags" 2>&1
grep -q "^ *pid: Total" "$T/tags" && grep -q ": $G_PID\$" "$T/tags" &&
    grep -q ": $GA\$" "$T/tags" && grep -q ": $GBE\$" "$T/tags"
ok $? "go tool pprof -tags: a pid label with the head's and both members' pids" ||
    diag "$T/tags"
timeout 60 go tool pprof -top -tagfocus="pid=$GBE" "$T/all.pb.gz" >"$T/focus" 2>&1
grep -q family_child_beta "$T/focus" && ! grep -q family_child_alpha "$T/focus"
ok $? "go tool pprof -tagfocus=pid=$GBE: beta's functions only" || diag "$T/focus"
plan_done
