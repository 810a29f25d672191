#!/bin/sh
# page_browser.sh: the live page (GET / of the agent's endpoint, issue 29)
# in Debian's real chromium, driven by Playwright (tests/browser/page.mjs,
# playwright-core pinned by tests/browser/package-lock.json, installed into
# the build tree with npm ci: tests/integration/browser_lib.sh).
#
# tests/programs/leaks_prog leaks 512 KiB a second under churn, under
# `ying run --http 127.0.0.1:0 --report-dir DIR --interval 1 ...`.  The
# driver checks: the page loads with no console error and no CSP violation,
# every request stays on the endpoint; the chart's own data (window.yingPage
# .series, polled with ?since=) grows; the top table ranks leak_alloc
# first; clicking its flame frame zooms to it, hovering shows file:line; a
# search paints the matches; focus applies to the table and the flame graph
# alike; a snapshot taken in the page, then a diff, shows leak_alloc in red
# with its verdict "leak" and the differential flame graph in red; a diff
# from a growth report (report:NAME, offered by the page from the
# history's report events) to now shows it grown with its verdict; GET /
# preloads the first tree (a Link header; not with a token).  Then,
# under --token-file: the page asks for the token in a form, refuses a
# wrong one visibly, opens with the right one (kept in sessionStorage, never
# in a URL).  Screenshots: $YING_BUILDDIR/page_browser/*.png.
#
# Before them, the same checks (but the RSS, the snapshot and the sampling
# control, which offline has not) on `ying serve DIR` of the report
# directory the runner is still writing: page.mjs --base URL --serve
# --basesnap FIRST (the diff from the first dump to the newest);
# screenshots in serve/.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
. "$YING_SRCDIR/tests/integration/browser_lib.sh"
need curl node npm chromium

SHOTS="$YING_BUILDDIR/page_browser"
mkdir -p "$SHOTS"
browser_setup
ok $? "playwright-core installed from the lock (npm ci)" || diag "$T/npm.log"

# serve_leak LOG ARGS...: leaks_prog under ying run --http with ARGS; sets
# port (the endpoint's), p (ying run's pid).
serve_leak() {
	_log=$1
	shift
	ying run --http 127.0.0.1:0 --report-dir "$T/rep$$" --interval 1 --pct 0 --floor 0 \
	    --sample 14 "$@" -- "$PROGS/leaks_prog" leak 60 >"$T/out" 2>"$_log" &
	p=$!
	bg_pids="$bg_pids $p"
	wait_for 30 grep -q 'HTTP on http://127.0.0.1:[0-9]*/' "$_log"
	port=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$_log" | head -n 1)
	[ -n "$port" ]
}

serve_leak "$T/err"
ok $? "leaks_prog under ying run --http announces its endpoint" || diag "$T/err"
wait_for 10 curl -sf -o /dev/null "http://127.0.0.1:$port/debug/history"
ok $? "GET /debug/history answers" || diag "$T/err"
curl -s -D "$T/hdr" -o /dev/null "http://127.0.0.1:$port/"
grep -qi '^Link: </debug/heap?format=tree&sample_index=inuse_space>; rel=preload; as=fetch; crossorigin' "$T/hdr"
ok $? "GET / preloads the page's first tree (Link header)" || diag "$T/hdr"
# the same page from `ying serve` on the report directory the runner is
# still writing: its points grow as dumps arrive; the diff from the first
# dump to the newest.  First, while the dumps are one series: the live
# checks below reset the profile (POST /debug/prof/sample), after which
# the dumps start again from nothing
has_dumps() { [ "$(ls "$T/rep$$"/*.heap 2>/dev/null | wc -l)" -ge "$1" ]; }
wait_for 30 has_dumps 6
ok $? "the runner wrote 6 dumps" || ls -l "$T/rep$$"
"$YING" serve --http 127.0.0.1:0 "$T/rep$$" >"$T/serve.out" 2>"$T/serve.err" &
sp=$!
bg_pids="$bg_pids $sp"
wait_for 20 grep -q '^ying serve: http://127.0.0.1:[0-9]*/$' "$T/serve.err"
sport=$(sed -n 's|^ying serve: http://127.0.0.1:\([0-9]*\)/$|\1|p' "$T/serve.err")
[ -n "$sport" ]
ok $? "ying serve on the report directory announces its URL" || diag "$T/serve.err"
first=$(basename "$(ls "$T/rep$$"/*.heap | head -n 1)")
mkdir -p "$SHOTS/serve"
browser_run page.mjs --base "http://127.0.0.1:$sport" --shots "$SHOTS/serve" --serve \
    --basesnap "$first" --wait 4
kill "$sp" 2>/dev/null
wait "$sp" 2>/dev/null
browser_run page.mjs --base "http://127.0.0.1:$port" --shots "$SHOTS" --wait 5
kill "$p" 2>/dev/null
wait "$p" 2>/dev/null

printf 'pa6e-t0ken\n' >"$T/token"
serve_leak "$T/err2" --token-file "$T/token"
ok $? "with --token-file: the endpoint is announced" || diag "$T/err2"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/")
is "$code" 200 "with a token: GET / (no data) answers without it"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/debug/history")
is "$code" 401 "... and GET /debug/history does not"
curl -s -D "$T/hdr" -o /dev/null "http://127.0.0.1:$port/"
! grep -qi '^Link:' "$T/hdr"
ok $? "with a token: no preload (it could not send the token)" || diag "$T/hdr"
browser_run page.mjs --base "http://127.0.0.1:$port" --shots "$SHOTS" --token pa6e-t0ken
kill "$p" 2>/dev/null
wait "$p" 2>/dev/null

for f in page flame-zoom diff token-refused serve/page serve/diff; do
	[ -s "$SHOTS/$f.png" ] || { ok 1 "screenshot $f.png"; continue; }
	ok 0 "screenshot $SHOTS/$f.png"
done
plan_done
