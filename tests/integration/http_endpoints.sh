#!/bin/sh
# http_endpoints.sh: every endpoint of the embedded HTTP server and its
# error cases, with real curl against tests/programs/http_server running
# under MALLOC_CONF=prof:true: status codes, headers and bodies; snapshots
# and diffs; profiler control; jeprof/Go symbol lookups; the bearer token;
# body limits; the loopback default; 409 without prof:true.
. "$YING_SRCDIR/tests/integration/http_lib.sh"
need curl nm perl gzip awk

start_server S prof:true
B=$S_URL

# ---- index, 404, 405 ---------------------------------------------------------
req "$B/debug/"
expect_code 200 "GET /debug/ answers"
check "index is HTML" grep -q '<html' "$T_TMP/b"
check "index lists /debug/pprof/heap" grep -q '/debug/pprof/heap' "$T_TMP/b"
req "$B/nope"
expect_code 404 "unknown path is 404"
check "404 says how to list endpoints" body_has "GET /debug/ lists"
req -X POST "$B/debug/heap"
expect_code 405 "POST /debug/heap is 405"
check "405 carries Allow: GET, HEAD" test "$(header Allow)" = "GET, HEAD"
req -X DELETE "$B/debug/prof"
expect_code 405 "DELETE /debug/prof is 405"
req "$B/debug/prof/active?on=1"
expect_code 405 "GET /debug/prof/active is 405"
check "Allow: POST" test "$(header Allow)" = "POST"
req -I "$B/debug/prof"
expect_code 200 "HEAD /debug/prof is 200"

# ---- /debug/heap in every format --------------------------------------------
req "$B/debug/heap"
expect_code 200 "GET /debug/heap"
check "raw dump starts with heap_v2/524288" sh -c "head -1 '$T_TMP/b' | grep -qx 'heap_v2/524288'"
check "raw dump has the maps" body_has '^MAPPED_LIBRARIES:'
check "raw dump names the worker thread" body_has 'http worker'
check "Content-Type octet-stream" test "$(header Content-Type)" = "application/octet-stream"
check "Content-Disposition is program.pid.UTC.heap" sh -c "echo '$(header Content-Disposition)' | grep -Eq '^attachment; filename=\"http_server\\.$S_PID\\.[0-9]{8}T[0-9]{6}Z\\.heap\"\$'"
check "Cache-Control: no-store" test "$(header Cache-Control)" = "no-store"
check "server threads did not sample (only main and the worker have samples)" \
    sh -c "awk '/^@/{exit} /^  t[1-9][0-9]*: [1-9]/ && !/http worker/' '$T_TMP/b' | grep -q . && exit 1 || exit 0"

req "$B/debug/heap?format=pprof"
expect_code 200 "format=pprof"
check "pprof is gzip" sh -c "gzip -t < '$T_TMP/b'"
check "pprof file name ends in .pb.gz" sh -c "echo '$(header Content-Disposition)' | grep -q '\\.pb\\.gz\"\$'"
check "pprof names http_alloc_alpha" sh -c "gzip -dc < '$T_TMP/b' | grep -aq http_alloc_alpha"

req "$B/debug/heap?format=folded"
expect_code 200 "format=folded"
check "folded has main;http_alloc_alpha N" body_has ';main;http_alloc_alpha [0-9][0-9]*$'
check "folded has http_alloc_beta;http_alloc_beta_leaf" body_has 'http_alloc_beta;http_alloc_beta_leaf [0-9]'
check "folded has no jemalloc frames" sh -c "! grep -Eq 'prof_backtrace|je_|malloc_default' '$T_TMP/b'"

req "$B/debug/heap?format=svg"
expect_code 200 "format=svg"
check "svg is image/svg+xml" test "$(header Content-Type)" = "image/svg+xml"
check "svg names http_alloc_beta_leaf" body_has 'http_alloc_beta_leaf'

req "$B/debug/heap?format=text"
expect_code 200 "format=text"
check "text top names http_alloc_alpha" body_has 'http_alloc_alpha'
req "$B/debug/heap?format=text&sample_index=inuse_objects"
expect_code 200 "format=text&sample_index=inuse_objects"
req "$B/debug/heap?format=json"
expect_code 200 "format=json"
check "json parses" is_json
check "json is application/json" test "$(header Content-Type)" = "application/json"
req "$B/debug/heap?format=xml"
expect_code 400 "format=xml is 400"
check "400 lists the formats" body_has 'raw|pprof|folded|svg|text|json'
req "$B/debug/heap?format=text&sample_index=bogus"
expect_code 400 "sample_index=bogus is 400"
req "$B/debug/heap?format=text&sample_index=alloc_space"
expect_code 400 "alloc_space without prof_accum is 400"

req "$B/debug/heap/flamegraph"
expect_code 200 "GET /debug/heap/flamegraph"
check "flame graph is SVG with our functions" sh -c "grep -q '<svg' '$T_TMP/b' && grep -q http_worker_alloc '$T_TMP/b'"

# ---- /debug/pprof/heap ------------------------------------------------------
req "$B/debug/pprof/heap"
expect_code 200 "GET /debug/pprof/heap"
check "pprof/heap is gzip" sh -c "gzip -t < '$T_TMP/b'"
check "pprof/heap is symbolized" sh -c "gzip -dc < '$T_TMP/b' | grep -aq http_worker_alloc"
req "$B/debug/pprof/allocs"
expect_code 200 "GET /debug/pprof/allocs (Alloy's default path)"
for bad in abc -1 301 1.5 ""; do
	req "$B/debug/pprof/heap?seconds=$bad"
	expect_code 400 "seconds=$bad is 400"
done

# ---- control and stats ------------------------------------------------------
req "$B/debug/prof"
expect_code 200 "GET /debug/prof"
check "status parses as JSON" is_json
check "status: profiling enabled and active" sh -c "grep -q '\"enabled\":true,\"active\":true,\"lg_sample\":19' '$T_TMP/b'"
check "status has stats.allocated" body_has '"allocated":[1-9]'
req -X POST "$B/debug/prof/active?on=0"
expect_code 200 "POST /debug/prof/active?on=0"
check "answer says previous true" body_has '"active":false,"previous":true'
req "$B/debug/prof"
check "status now inactive" body_has '"active":false'
req -X POST "$B/debug/prof/active?on=1"
expect_code 200 "POST /debug/prof/active?on=1"
check "answer says previous false" body_has '"active":true,"previous":false'
req -X POST "$B/debug/prof/active?on=2"
expect_code 400 "on=2 is 400"
req -X POST "$B/debug/prof/active"
expect_code 400 "missing on= is 400"
req "$B/debug/stats"
expect_code 200 "GET /debug/stats"
check "stats JSON parses" is_json
check "stats JSON is jemalloc's" body_has '"jemalloc":{"version"'

# ---- snapshots and diff -----------------------------------------------------
req -X POST "$B/debug/heap/snapshot?name=base"
expect_code 200 "POST snapshot name=base"
check "snapshot answer names it" body_has '"name":"base"'
kill -USR1 "$S_PID"
for _ in $(seq 1 50); do grep -q '^grown' "$T_TMP/S.out" && break; sleep 0.05; done
req "$B/debug/heap/diff?base=base"
expect_code 200 "GET diff?base=base"
check "diff text shows http_grow_on_signal grew" sh -c "grep -E '^ +\\+[0-9.]+ MiB .*http_grow_on_signal' '$T_TMP/b'"
req "$B/debug/heap/diff?base=base&format=json"
expect_code 200 "diff format=json"
check "diff json parses" is_json
# 32 MiB grew in 64 KiB blocks; at the default rate (one sample per 512 KiB)
# the estimate has about 64 samples behind it (+-12.5 % per standard
# deviation), so ask for more than half of it: > 4 standard deviations.
check "diff json delta is positive" sh -c "perl -MJSON::PP -e 'local \$/; \$j=decode_json(<STDIN>); exit(\$j->{delta} > 16e6 ? 0 : 1)' < '$T_TMP/b'"
req "$B/debug/heap/diff?base=base&format=svg"
expect_code 200 "diff format=svg"
check "diff svg names the growth" body_has 'http_grow_on_signal'
req "$B/debug/heap/diff?base=base&format=pprof"
expect_code 200 "diff format=pprof"
check "diff pprof is gzip" sh -c "gzip -t < '$T_TMP/b'"
check "diff pprof file name ends in .diff.pb.gz" sh -c "echo '$(header Content-Disposition)' | grep -q '\\.diff\\.pb\\.gz\"\$'"
req "$B/debug/heap/diff?base=base&format=folded"
expect_code 200 "diff format=folded"
req "$B/debug/heap/diff?base=missing"
expect_code 404 "diff against a missing snapshot is 404"
req "$B/debug/heap/diff"
expect_code 400 "diff without base= is 400"
req "$B/debug/heap/diff?base=base&format=dot"
expect_code 400 "diff format=dot is 400"
check "the 400 lists the diff formats in order" body_has 'format=dot: expected text|json|svg|pprof|folded'
req "$B/debug/heap?format=dot"
expect_code 400 "heap format=dot is 400"
check "the 400 lists the heap formats in order" body_has 'format=dot: expected raw|pprof|folded|svg|text|json'
req -X POST "$B/debug/heap/snapshot?name=a/b"
expect_code 400 "snapshot name with / is 400"
req -X POST "$B/debug/heap/snapshot?name=..%2F..%2Fetc%2Fpasswd"
expect_code 400 "snapshot name naming a path is 400"
req -X POST "$B/debug/heap/snapshot?name=$(printf 'x%.0s' $(seq 1 65))"
expect_code 400 "65-character snapshot name is 400"
req -X POST "$B/debug/heap/snapshot"
expect_code 400 "snapshot without name is 400"
req -X POST "$B/debug/heap/snapshot?name=a%00b"
expect_code 400 "snapshot name=a%00b (a NUL after decoding) is 400"
check "... and the 400 says why" body_has "query parameter 'name': a NUL or control byte"
req "$B/debug/heap/diff?base=a"
expect_code 404 "... and no snapshot 'a' was made"
req -X POST "$B/debug/heap/snapshot?name=a%1b%5b2J"
expect_code 400 "snapshot name with an escape byte is 400"
req "$B/debug/heap?format=text%0a"
expect_code 400 "any query value with a control byte is 400 (format=text%0a)"
req "$B/debug/heap?x%01=1"
expect_code 400 "a query key with a control byte is 400"
check "... named with the byte as ?" body_has "query parameter 'x?'"
for i in 1 2 3 4 5 6 7; do
	req -X POST "$B/debug/heap/snapshot?name=s$i"
done
expect_code 200 "8 snapshots fit"
req -X POST "$B/debug/heap/snapshot?name=s8"
expect_code 507 "a 9th snapshot is refused (507)"
req -X POST "$B/debug/heap/snapshot?name=s7"
expect_code 200 "replacing an existing snapshot is fine"
req "$B/debug/heap/snapshot"
expect_code 200 "GET lists snapshots"
check "list counts 8" body_has '"count":8'
req -X DELETE "$B/debug/heap/snapshot?name=base"
expect_code 200 "DELETE a snapshot"
req "$B/debug/heap/diff?base=base"
expect_code 404 "deleted snapshot is gone"
req -X DELETE "$B/debug/heap/snapshot?name=base"
expect_code 404 "deleting it again is 404"

# ---- jeprof and Go symbol protocol --------------------------------------------
req "$B/pprof/symbol"
expect_code 200 "GET /pprof/symbol"
check "num_symbols: 1" sh -c "head -1 '$T_TMP/b' | grep -qx 'num_symbols: 1'"
req -I "$B/pprof/symbol"
expect_code 200 "HEAD /pprof/symbol (jeprof probes it)"
A=$(exe_addr "$S_PID" http_alloc_alpha)
L=$(exe_addr "$S_PID" http_alloc_beta_leaf)
J=$(lib_addr "$S_PID" libjemalloc)
req -d "$A+$J+$L+0x10" "$B/pprof/symbol"
expect_code 200 "POST /pprof/symbol"
check "alpha's address names http_alloc_alpha" grep -Eq "^0x0*${A#0x}[[:space:]]+http_alloc_alpha\$" "$T_TMP/b"
check "leaf's address names http_alloc_beta_leaf" grep -Eq "^0x0*${L#0x}[[:space:]]+http_alloc_beta_leaf\$" "$T_TMP/b"
check "jemalloc address is named malloc" grep -Eq "^0x0*${J#0x}[[:space:]]+malloc\$" "$T_TMP/b"
check "unmapped address is left out" sh -c "! grep -q '^0x0*10[[:space:]]' '$T_TMP/b'"
req -H 'Content-Type: application/octet-stream' --data-binary "$A" "$B/debug/pprof/symbol"
expect_code 200 "POST /debug/pprof/symbol (Go)"
check "Go symbolz line" grep -Eq "^0x0*${A#0x}[[:space:]]+http_alloc_alpha\$" "$T_TMP/b"
req -d "0xzz+0x1" "$B/pprof/symbol"
expect_code 400 "bad address is 400"
head -c 1100000 /dev/zero | tr '\0' '+' > "$T_TMP/big"
req --data-binary @"$T_TMP/big" "$B/pprof/symbol"
expect_code 413 "1.1 MB symbol body is 413"
head -c 5000 /dev/zero | tr '\0' 'x' > "$T_TMP/small"
req --data-binary @"$T_TMP/small" "$B/debug/prof/active?on=1"
expect_code 413 "5 kB body on a control POST is 413"
req "$B/pprof/cmdline"
expect_code 200 "GET /pprof/cmdline"
check "cmdline's first line is the program" sh -c "head -1 '$T_TMP/b' | grep -q 'http_server\$'"

# ---- sampling rate (resets the profile: keep last) ---------------------------
req -X POST "$B/debug/prof/sample?lg=12"
expect_code 200 "POST /debug/prof/sample?lg=12"
req "$B/debug/prof"
check "lg_sample now 12" body_has '"lg_sample":12,"sample_period":4096'
for bad in 31 -1 abc ""; do
	req -X POST "$B/debug/prof/sample?lg=$bad"
	expect_code 400 "lg=$bad is 400"
done
req "$B/debug/heap"
check "dump after reset has the new period" sh -c "head -1 '$T_TMP/b' | grep -qx 'heap_v2/4096'"

# ---- loopback by default ------------------------------------------------------
HEXPORT=$(printf '%04X' "$S_PORT")
check "listens on 127.0.0.1 only" grep -q " 0100007F:$HEXPORT 00000000:0000 0A" /proc/net/tcp

# ---- bearer token -------------------------------------------------------------
start_server K prof:true --token s3cret-T0ken
req "$K_URL/debug/prof"
expect_code 401 "no token: 401"
check "401 has WWW-Authenticate: Bearer" sh -c "echo '$(header WWW-Authenticate)' | grep -q '^Bearer'"
req -H "Authorization: Bearer wrong" "$K_URL/debug/prof"
expect_code 401 "wrong token: 401"
req -H "Authorization: Bearer s3cret-T0ke" "$K_URL/debug/prof"
expect_code 401 "token prefix: 401"
req -H "Authorization: Bearer s3cret-T0ken-and-more" "$K_URL/debug/prof"
expect_code 401 "longer token: 401"
req -H "Authorization: Basic czNjcmV0" "$K_URL/debug/prof"
expect_code 401 "basic auth: 401"
req -H "Authorization: Bearer s3cret-T0ken" "$K_URL/debug/prof"
expect_code 200 "right token: 200"
req -H "Authorization: Bearer s3cret-T0ken" "$K_URL/nope"
expect_code 404 "right token, unknown path: 404"
req "$K_URL/nope"
expect_code 401 "no token, unknown path: 401 (nothing is revealed)"
# the live page holds no data: served without the token, with its headers
req "$K_URL/"
expect_code 200 "no token, GET / (the live page): 200"
check "the page's CSP" test "$(header Content-Security-Policy)" = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
check "nosniff, no-referrer, no-cache" sh -c "test '$(header X-Content-Type-Options)' = nosniff && test '$(header Referrer-Policy)' = no-referrer && test '$(header Cache-Control)' = no-cache"
check "the page has no inline script or style" sh -c "! grep -Eq '<script>|<style|[[:space:]]style=|[[:space:]]on[a-z]+=' '$T_TMP/b'"
etag=$(header ETag)
req -H "If-None-Match: $etag" "$K_URL/"
expect_code 304 "If-None-Match with its ETag: 304"
for u in /ui/app.js /ui/flame.js /ui/app.css; do
	req "$K_URL$u"
	expect_code 200 "no token, GET $u: 200"
done
check "app.css is text/css" test "$(header Content-Type)" = "text/css; charset=utf-8"
req "$K_URL/ui/nope.js"
expect_code 401 "no token, /ui/nope.js: 401 (not a page file)"
req -X POST "$K_URL/"
expect_code 405 "POST /: 405"
req "$K_URL/debug/"
expect_code 401 "no token, GET /debug/ (the list): 401"

# ---- one dump in flight: 503 with Retry-After ------------------------------------
start_server Y prof:true,lg_prof_sample:10 --busy-wait-ms 1 --heap-mb 64
busy_pids=""
for i in $(seq 1 12); do
	curl -s --max-time 60 -o /dev/null -D "$T_TMP/busy$i" "$Y_URL/debug/heap?format=svg" &
	busy_pids="$busy_pids $!"
done
for p in $busy_pids; do wait "$p"; done
cat "$T_TMP"/busy* | tr -d '\r' > "$T_TMP/busyall"
check "some parallel dumps got 503" grep -q '^HTTP/1.1 503' "$T_TMP/busyall"
check "503 carries Retry-After" grep -q '^Retry-After: 1' "$T_TMP/busyall"
check "and some got 200" grep -q '^HTTP/1.1 200' "$T_TMP/busyall"

# ---- without prof:true ---------------------------------------------------------
start_server N -
req "$N_URL/debug/heap"
expect_code 409 "dump without prof:true is 409"
check "409 names the fix" body_has 'MALLOC_CONF=prof:true'
req "$N_URL/debug/prof"
expect_code 200 "status works without prof:true"
check "status says disabled" body_has '"enabled":false'
req -X POST "$N_URL/debug/prof/active?on=1"
expect_code 409 "activating without prof:true is 409"

# ---- clean stop -------------------------------------------------------------------
kill -TERM "$S_PID"
wait "$S_PID"
ok $? "SIGTERM stops the server and the program exits 0"
check "program printed stopped" grep -q '^stopped' "$T_TMP/S.out"

done_testing
