#!/bin/sh
# cli_url.sh: ying reads profiles from http:// URLs itself.  A real
# tests/programs/http_server (ying's embedded endpoint, with and without a
# bearer token) is fetched by `ying top|folded|flamegraph|pprof URL` and
# `yingdiff` (URL vs URL, file vs URL); a bare URL means /debug/pprof/heap;
# the token comes from --token-file (never echoed; a warning when others
# can read the file); the documented workflow for go tool pprof and jeprof
# behind a token (curl to a file, then the tool on the file) works.  Errors
# are one clear line and exit 1: 401 asks for --token-file, a refused port
# names host:port (fast), a page that is no profile says "not a heap
# profile", a 404 says so.
. "$YING_SRCDIR/tests/integration/http_lib.sh"
need curl go jeprof python3 timeout
YING="$YING_BUILDDIR/ying"
YD="$YING_BUILDDIR/yingdiff"

tool_homes "$T_TMP"
GOFLAGS=-mod=mod
export GOFLAGS
cd "$T_TMP" || exit 1

# yrun NAME CMD...: run with a hang guard; status in $rc, output in NAME.out/.err
yrun() {
	y_name=$1
	shift
	timeout 60 "$@" >"$y_name.out" 2>"$y_name.err"
	rc=$?
}
# one_line FILE: the file holds exactly one line
one_line() { [ "$(wc -l <"$1")" -eq 1 ]; }

# ---- no token ------------------------------------------------------------------
start_server S prof:true,lg_prof_sample:14
yrun top "$YING" top "$S_URL"
is "$rc" 0 "ying top URL (bare: /debug/pprof/heap) exits 0" || diag top.err
check "ying top URL: http_alloc_alpha (16 MiB) is the top row" \
	sh -c "awk '/flat%/{getline; print; exit}' top.out | grep -q ' http_alloc_alpha '"
check "ying top URL: a Total line" grep -q '^Total: ' top.out
yrun top2 "$YING" top "$S_URL/debug/heap"
is "$rc" 0 "ying top URL/debug/heap (raw heap_v2, symbolized here) exits 0" || diag top2.err
check "ying top URL/debug/heap: http_alloc_alpha" grep -q ' http_alloc_alpha ' top2.out
yrun folded "$YING" folded "$S_URL/"
is "$rc" 0 "ying folded URL/ exits 0" || diag folded.err
check "ying folded URL/: a stack through http_alloc_alpha" grep -q ';http_alloc_alpha [0-9]*$' folded.out
yrun svg "$YING" flamegraph -o x.svg "$S_URL"
is "$rc" 0 "ying flamegraph URL exits 0" || diag svg.err
check "the flame graph shows http_alloc_alpha" grep -q 'http_alloc_alpha' x.svg
yrun pp "$YING" pprof "$S_URL/debug/heap" -o x.pb.gz
is "$rc" 0 "ying pprof URL -o x.pb.gz exits 0" || diag pp.err
yrun gotop go tool pprof -top x.pb.gz
is "$rc" 0 "go tool pprof -top x.pb.gz reads it" || diag gotop.err
check "go tool pprof: http_alloc_alpha" grep -q 'http_alloc_alpha$' gotop.out
curl -s --retry 3 --max-time 30 -o base.heap "$S_URL/debug/heap"
yrun d1 "$YD" "$S_URL/debug/heap" "$S_URL/debug/heap"
is "$rc" 0 "yingdiff URL URL exits 0" || diag d1.err
check "yingdiff URL URL: the report names both URLs" \
	sh -c "grep -q '^Base: .*$S_URL/debug/heap' d1.out && grep -q '^Now: .*$S_URL/debug/heap' d1.out"
yrun d2 "$YD" --json base.heap "$S_URL/debug/heap"
is "$rc" 0 "yingdiff FILE URL exits 0" || diag d2.err
check "yingdiff FILE URL: nothing grew in an idle server" \
	python3 -c 'import json,sys; d=json.load(open("d2.out")); sys.exit(0 if abs(d["delta"]) < 0.01 * d["now_total"] else 1)'
yrun d3 "$YING" diff "$S_URL" base.heap
is "$rc" 0 "ying diff URL(pprof) FILE exits 0" || diag d3.err

# ---- errors -------------------------------------------------------------------
yrun nf "$YING" top "$S_URL/no/such/page"
is "$rc" 1 "404: exit 1"
check "404: one line naming the URL and HTTP 404" \
	sh -c "one_line() { [ \$(wc -l <\"\$1\") -eq 1 ]; }; one_line nf.err && grep -q '$S_URL/no/such/page: HTTP 404' nf.err"
free_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
start=$(date +%s)
yrun refused "$YING" top "http://127.0.0.1:$free_port/"
end=$(date +%s)
is "$rc" 1 "nothing listening: exit 1"
check "nothing listening: the message names 127.0.0.1:$free_port and the refusal" \
	grep -q "cannot connect to 127.0.0.1:$free_port: Connection refused" refused.err
check "nothing listening: one line" one_line refused.err
check "nothing listening: fails fast ($((end - start)) s)" test $((end - start)) -le 5
yrun nohost "$YING" top "http://:80/"
is "$rc" 1 "a URL without a host: exit 1"
check "a URL without a host: says so" grep -q 'no host' nohost.err

# a web server whose pages are not profiles
mkdir www
printf 'root:x:0:0:root:/root:/bin/bash\n' >www/passwd
printf '<!DOCTYPE html><html><body>hello</body></html>\n' >www/index.html
serve_dir www
T_PIDS="$T_PIDS $wpid"
[ -n "$wport" ] || { echo "Bail out! python3 -m http.server did not start"; diag www.err; exit 1; }
yrun garbage "$YING" top "http://127.0.0.1:$wport/passwd"
is "$rc" 1 "a text page: exit 1"
check "a text page: 'URL: not a heap profile (expected heap_v2 or pprof)'" \
	grep -q "http://127.0.0.1:$wport/passwd: not a heap profile (expected heap_v2 or pprof)" garbage.err
check "a text page: one line" one_line garbage.err
yrun html "$YD" base.heap "http://127.0.0.1:$wport/index.html"
is "$rc" 1 "yingdiff FILE HTML-page: exit 1"
check "yingdiff FILE HTML-page: not a heap profile" grep -q 'index.html: not a heap profile' html.err

# ---- bearer token --------------------------------------------------------------
TOKEN=s3cr3t-t0ken-4711
start_server A prof:true,lg_prof_sample:14 --token "$TOKEN"
yrun t401 "$YING" top "$A_URL"
is "$rc" 1 "token wanted, none given: exit 1"
check "401: one line that asks for --token-file" \
	sh -c "[ \$(wc -l <t401.err) -eq 1 ] && grep -q 'HTTP 401: the endpoint wants a token: --token-file FILE' t401.err"
umask 077
printf '%s\n' "$TOKEN" >tok
printf 'wrong-token\n' >badtok
umask 022
yrun tok "$YING" top --token-file tok "$A_URL"
is "$rc" 0 "--token-file: exit 0" || diag tok.err
check "--token-file: http_alloc_alpha" grep -q 'http_alloc_alpha' tok.out
check "--token-file 0600: no warning" test ! -s tok.err
yrun bad "$YING" top --token-file badtok "$A_URL"
is "$rc" 1 "wrong token: exit 1"
check "wrong token: 'rejected the token', not echoed" \
	sh -c "grep -q 'rejected the token' bad.err && ! grep -q wrong-token bad.err"
cp tok tok644
chmod 644 tok644
yrun warn "$YING" folded --token-file tok644 "$A_URL"
is "$rc" 0 "a world-readable token file still works" || diag warn.err
check "... with a warning naming it, without the token" \
	sh -c "grep -q 'warning: --token-file tok644 can be read by other users' warn.err && ! grep -q '$TOKEN' warn.err"
yrun nofile "$YING" top --token-file nosuch "$A_URL"
is "$rc" 1 "missing token file: exit 1"
check "missing token file: named once" sh -c "[ \$(grep -o nosuch nofile.err | wc -l) -eq 1 ]"
yrun td "$YD" --token-file tok "$A_URL/debug/heap" "$A_URL"
is "$rc" 0 "yingdiff --token-file URL URL: exit 0" || diag td.err
yrun tpp "$YING" pprof --token-file tok -o tok.pb.gz "$A_URL/debug/heap"
is "$rc" 0 "ying pprof --token-file URL -o FILE: exit 0" || diag tpp.err

# The documented workflow (README, ying(1), ying-http(7)) for tools that
# send no headers: fetch to a file, then run them on the file.
yrun tpb "$YING" pprof --token-file tok "$A_URL" -o heap.pb.gz
is "$rc" 0 "ying pprof --token-file tok URL(bare, a pprof) -o heap.pb.gz" || diag tpb.err
yrun gotok go tool pprof -top heap.pb.gz
is "$rc" 0 "go tool pprof -top heap.pb.gz (fetched by ying)" || diag gotok.err
check "go tool pprof on ying's file: http_alloc_alpha" grep -q 'http_alloc_alpha$' gotok.out
(umask 077; printf 'Authorization: Bearer %s\n' "$(cat tok)" > auth)
curl -sf --retry 3 --max-time 30 -H @auth -o curl.pb.gz "$A_URL/debug/pprof/heap"
is "$?" 0 "curl -sf -H @auth -o curl.pb.gz URL/debug/pprof/heap"
yrun gocurl go tool pprof -top curl.pb.gz
is "$rc" 0 "go tool pprof -top curl.pb.gz" || diag gocurl.err
check "go tool pprof on curl's file: http_alloc_alpha" grep -q 'http_alloc_alpha$' gocurl.out
curl -sf --retry 3 --max-time 30 -H @auth -o now.heap "$A_URL/debug/heap"
is "$?" 0 "curl -sf -H @auth -o now.heap URL/debug/heap"
yrun je jeprof --text "$HTTP_SERVER" now.heap
is "$rc" 0 "jeprof --text PROGRAM now.heap" || diag je.err
check "jeprof on curl's dump: http_alloc_alpha" grep -q ' http_alloc_alpha$' je.out
curl -sf --retry 3 --max-time 30 -o /dev/null "$A_URL/debug/pprof/heap"
is "$?" 22 "without the header curl -f fails (the endpoint wants the token)"

plan_done
