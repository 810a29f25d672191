#!/bin/sh
# http_nojem.sh: the server in a process without jemalloc
# (tests/programs/http_server_nojem, built with the ordinary flags, so with
# ASan/UBSan in an --enable-sanitize build).  Profiling endpoints answer
# 409 naming the fix; symbolization still works; a battery of malformed
# requests on raw sockets must not crash the server or upset the
# sanitizers; stopping it frees everything (LeakSanitizer runs at exit).
HTTP_SERVER="$YING_BUILDDIR/tests/programs/http_server_nojem"
. "$YING_SRCDIR/tests/integration/http_lib.sh"
need curl perl nm

start_server N -
B=$N_URL

req "$B/debug/heap"
expect_code 409 "no jemalloc: /debug/heap is 409"
check "409 explains (no jemalloc, where it looked, LD_PRELOAD, ying_ctl_use)" \
    sh -c "grep -q 'no jemalloc' '$T_TMP/b' && grep -q 'dlsym or in the .symtab of a loaded object' '$T_TMP/b' && grep -q LD_PRELOAD '$T_TMP/b' && grep -q ying_ctl_use '$T_TMP/b'"
req "$B/debug/pprof/heap"
expect_code 409 "no jemalloc: /debug/pprof/heap is 409"
req "$B/debug/prof"
expect_code 409 "no jemalloc: /debug/prof is 409"
req "$B/debug/stats"
expect_code 409 "no jemalloc: /debug/stats is 409"
req -X POST "$B/debug/prof/active?on=1"
expect_code 409 "no jemalloc: activate is 409"
req -X POST "$B/debug/heap/snapshot?name=x"
expect_code 409 "no jemalloc: snapshot is 409"

A=$(exe_addr "$N_PID" http_alloc_alpha)
req -d "$A" "$B/pprof/symbol"
expect_code 200 "symbolization works without jemalloc"
check "names http_alloc_alpha" grep -Eq "^0x0*${A#0x}[[:space:]]+http_alloc_alpha\$" "$T_TMP/b"

# 50,000 addresses in one request (under the 1 MiB bound).
perl -e 'srand(7); print join("+", map { sprintf("0x%x", int(rand(2**47))) } 1..50000)' > "$T_TMP/many"
req --data-binary @"$T_TMP/many" "$B/pprof/symbol"
expect_code 200 "50,000 random addresses"

# Malformed requests on raw sockets; each connection gets 2 s.
perl -MIO::Socket::INET -e '
	my $port = $ARGV[0];
	my @reqs = (
		"GARBAGE\r\n\r\n",
		"\x00\x01\x02\xff\xfe binary junk \r\n\r\n",
		"GET /" . ("A" x 100000) . " HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /debug/heap?format=%00%ff HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /debug/heap/diff?base=%2e%2e%2f HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /debug/pprof/heap?seconds=99999999999999999999 HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST /debug/prof/sample?lg=1e3 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
		"GET /debug/prof HTTP/1.1\r\nHost: x\r\n" . join("", map { "X-H$_: v\r\n" } 1..3000) . "\r\n",
		"GET /debug/prof HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " . ("t" x 60000) . "\r\n\r\n",
		"POST /pprof/symbol HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n0x1",
		"POST /pprof/symbol HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
		"POST /pprof/symbol HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" .
		    ("100000\r\n" . ("+" x 1048576) . "\r\n") x 2 . "0\r\n\r\n",
		"POST /pprof/symbol HTTP/1.1\r\nHost: x\r\nContent-Length: 20\r\n\r\n0xfffffffffffffffff1",
		"POST /pprof/symbol HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n0x",
		"POST /pprof/symbol HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\n+++",
		"POST /pprof/symbol HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0x1",
		"DELETE /debug/heap/snapshot?name= HTTP/1.1\r\nHost: x\r\n\r\n",
		"PUT / HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /%zz%00 HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET / HTTP/9.9\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\n\r\nGET /pprof/cmdline HTTP/1.1\r\nHost: x\r\n\r\n",
	);
	my $n = 0;
	for my $r (@reqs) {
		my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 2) or die "connect: $!";
		local $SIG{ALRM} = sub { die "timeout\n" };
		eval {
			alarm 2;
			$s->send($r);
			shutdown($s, 1) if length($r) < 200000;
			my $buf; 1 while sysread($s, $buf, 65536);
			alarm 0;
		};
		alarm 0;
		close $s;
		$n++;
	}
	print "$n\n";' "$N_PORT" > "$T_TMP/fuzz" 2>&1
check "21 malformed requests sent" grep -qx 21 "$T_TMP/fuzz"
check "server alive after them" kill -0 "$N_PID"
req "$B/pprof/symbol"
expect_code 200 "and still answering"

kill -TERM "$N_PID"
wait "$N_PID"
ok $? "clean stop, exit 0 (LeakSanitizer finds nothing in a sanitizer build)"
check "no sanitizer report" sh -c "! grep -Eq 'AddressSanitizer|LeakSanitizer|runtime error' '$T_TMP/N.err'"
grep -E 'Sanitizer|runtime error' "$T_TMP/N.err" | head -5 | sed 's/^/#   /'

done_testing
