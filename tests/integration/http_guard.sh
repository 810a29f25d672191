#!/bin/sh
# http_guard.sh: the endpoint serves only whom it should (issue 13,
# finding 2), with real curl, jeprof and go tool pprof against
# tests/programs/http_server under MALLOC_CONF=prof:true.
#  - DNS rebinding: a Host naming anything but localhost, a loopback
#    literal, the connection's own address or an allowed name
#    (--allow-hosts, i.e. YING_HTTP_ALLOW_HOSTS) is 403 with a one-line
#    reason; a request without Host (HTTP/1.0) is served.
#  - CSRF: a state-changing request (POST, DELETE) with a foreign Origin or
#    Sec-Fetch-Site: cross-site/same-site is 403 whatever its Content-Type,
#    and changes nothing (the sample rate and the snapshot list are checked
#    afterwards); the endpoint's own origin is accepted; GETs are not
#    affected.
#  - jeprof and go tool pprof still work.
. "$YING_SRCDIR/tests/integration/http_lib.sh"
need curl perl jeprof go

tool_homes "$T_TMP"
GOFLAGS=-mod=mod
export GOFLAGS
start_server S prof:true --allow-hosts "prof.internal, Other.Example,[fd00::7]"
B=$S_URL
P=$S_PORT

# ---- Host ----------------------------------------------------------------------
req -H "Host: evil.example" "$B/pprof/cmdline"
expect_code 403 "Host: evil.example is 403"
check "... one line naming the Host and why" sh -c "test \$(wc -l < '$T_TMP/b') -eq 1 && grep -q \"^Host 'evil.example' is not served: .*DNS rebinding\" '$T_TMP/b'"
check "... and not the command line" sh -c "! grep -q http_server '$T_TMP/b'"
req -H "Host: evil.example:$P" "$B/debug/heap"
expect_code 403 "Host: evil.example:PORT is 403"
req -H "Host: 127.0.0.1.evil.example:$P" "$B/debug/prof"
expect_code 403 "Host: 127.0.0.1.evil.example is 403"
req -H "Host: localhost.evil.example" "$B/debug/prof"
expect_code 403 "Host: localhost.evil.example is 403"
req -H "Host: notprof.internal" "$B/debug/prof"
expect_code 403 "a name not on the allowed list is 403"
req -H "Host: 10.1.2.3:$P" "$B/debug/prof"
expect_code 403 "another address than the connection's is 403"
req -H "Host: evil.example:$P" -H "Authorization: Bearer x" "$B/debug/prof"
expect_code 403 "... before the token check"
for h in "127.0.0.1:$P" "localhost:$P" "LocalHost" "127.0.0.2:$P" "127.255.0.1" \
    "[::1]:$P" "[::ffff:127.0.0.1]:$P" "prof.internal:$P" "other.example" "[fd00::7]:$P"; do
	req -H "Host: $h" "$B/pprof/cmdline"
	expect_code 200 "Host: $h is served"
done
check "the command line is served" body_has http_server
# HTTP/1.0 without a Host header
perl -MIO::Socket::INET -e '
	my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$ARGV[0]") or die;
	print $s "GET /pprof/cmdline HTTP/1.0\r\n\r\n";
	local $/; my $r = <$s>; print $r;' "$P" > "$T_TMP/h10" 2>&1
check "HTTP/1.0 without Host is served" sh -c "head -1 '$T_TMP/h10' | grep -q '^HTTP/1.[01] 200' && grep -q http_server '$T_TMP/h10'"

# ---- real clients (before the Origin checks: setting the rate resets the profile)
timeout 120 jeprof --text "$B/pprof/heap" > "$T_TMP/jeprof.out" 2> "$T_TMP/jeprof.err"
check "jeprof --text against the endpoint names http_alloc_alpha" grep -q http_alloc_alpha "$T_TMP/jeprof.out"
timeout 120 jeprof --text "http://localhost:$P/pprof/heap" > "$T_TMP/jeprof2.out" 2>&1
check "... and through localhost" grep -q http_alloc_alpha "$T_TMP/jeprof2.out"
timeout 60 go tool pprof -top "$B/debug/pprof/heap" > "$T_TMP/go.out" 2> "$T_TMP/go.err"
check "go tool pprof -top names http_alloc_alpha" grep -q http_alloc_alpha "$T_TMP/go.out"

# ---- Origin --------------------------------------------------------------------
req "$B/debug/prof"
lg0=$(sed -n 's/.*"lg_sample":\([0-9]*\).*/\1/p' "$T_TMP/b")
check "lg_sample read ($lg0)" test -n "$lg0"
req -X POST -H "Origin: http://evil.example" -H "Content-Type: text/plain" \
    --data-binary x "$B/debug/prof/sample?lg=0"
expect_code 403 "cross-origin text/plain POST /debug/prof/sample?lg=0 is 403"
check "... saying why" body_has "^cross-origin POST refused (Origin: http://evil.example)"
req "$B/debug/prof"
check "... and the sample rate is unchanged (lg_sample $lg0)" body_has "\"lg_sample\":$lg0,"
req -X POST -H "Origin: http://evil.example" "$B/debug/prof/active?on=0"
expect_code 403 "cross-origin POST /debug/prof/active is 403"
req "$B/debug/prof"
check "... and sampling is still active" body_has '"active":true'
req -X POST -H "Origin: null" "$B/debug/prof/sample?lg=1"
expect_code 403 "Origin: null is 403"
req -X POST -H "Origin: http://127.0.0.1:$((P + 1))" "$B/debug/prof/sample?lg=1"
expect_code 403 "another port of 127.0.0.1 is another origin: 403"
req -X POST -H "Origin: https://127.0.0.1:$P" "$B/debug/prof/sample?lg=1"
expect_code 403 "https:// is another origin: 403"
req -X POST -H "Sec-Fetch-Site: cross-site" "$B/debug/prof/sample?lg=1"
expect_code 403 "Sec-Fetch-Site: cross-site is 403"
req -X POST -H "Sec-Fetch-Site: same-site" "$B/debug/prof/sample?lg=1"
expect_code 403 "Sec-Fetch-Site: same-site is 403"
req "$B/debug/prof"
check "the sample rate is still unchanged (lg_sample $lg0)" body_has "\"lg_sample\":$lg0,"
req -X POST -H "Origin: http://evil.example" -H "Content-Type: application/x-www-form-urlencoded" \
    --data "a=b" "$B/debug/heap/snapshot?name=evil"
expect_code 403 "cross-origin form POST /debug/heap/snapshot is 403"
req -X POST "$B/debug/heap/snapshot?name=keep"
expect_code 200 "a snapshot without Origin is taken"
req -X DELETE -H "Origin: http://evil.example" "$B/debug/heap/snapshot?name=keep"
expect_code 403 "cross-origin DELETE /debug/heap/snapshot is 403"
req "$B/debug/heap/snapshot"
check "... the snapshot list has keep and not evil" sh -c "grep -q keep '$T_TMP/b' && ! grep -q evil '$T_TMP/b'"
req -X POST -H "Origin: http://evil.example" -H "Content-Type: text/plain" \
    --data-binary "0x1234" "$B/pprof/symbol"
expect_code 403 "cross-origin POST /pprof/symbol is 403"
req -X POST -H "Origin: http://127.0.0.1:$P" -H "Sec-Fetch-Site: same-origin" "$B/debug/prof/sample?lg=$lg0"
expect_code 200 "the endpoint's own origin may POST"
req -X POST -H "Host: localhost:$P" -H "Origin: http://localhost:$P" "$B/debug/prof/sample?lg=$lg0"
expect_code 200 "... also under the name localhost"
req -X POST -H "Host: localhost:$P" -H "Origin: http://127.0.0.1:$P" "$B/debug/prof/sample?lg=$lg0"
expect_code 403 "an Origin that is not the request's own Host is 403"
req -H "Origin: http://evil.example" "$B/debug/prof"
expect_code 200 "a GET with a foreign Origin is served (the browser keeps the answer from the page)"

check "server alive" kill -0 "$S_PID"

done_testing
