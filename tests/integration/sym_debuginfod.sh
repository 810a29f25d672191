#!/bin/sh
# sym_debuginfod.sh: debug information fetched by build ID from a
# debuginfod server, by the commands only.  Debian's debuginfod serves a
# directory holding sym_rows' separate debug file (objcopy
# --only-keep-debug; the program itself is stripped) on a free port,
# clients asking 127.0.0.1 (debuginfod 0.188 has no option to listen on
# loopback only: it listens on every address, for the seconds this runs).
#  - `ying run` with DEBUGINFOD_URLS set: the agent's report names no
#    function of the stripped program, the server's log shows no request
#    from it and no libdebuginfod cache is made (the runtime never asks);
#  - `ying top` without DEBUGINFOD_URLS: frames unnamed, the warning says
#    what to do (-dbgsym, the build-ID path, DEBUGINFOD_URLS);
#  - with DEBUGINFOD_URLS and a private DEBUGINFOD_CACHE_PATH: grow is named
#    with its lines, one request reached the server, the file is cached;
#  - a build the server lacks: the warning says the servers were asked;
#  - the server gone: the same names from libdebuginfod's cache.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need cc strip objcopy readelf debuginfod
unset DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH DEBUGINFOD_TIMEOUT

SRC="$YING_SRCDIR/tests/programs/sym_rows.c"
mkdir -p "$T/debug"
cc -O2 -g -o "$T/sym_rows" "$SRC" -ljemalloc &&
    objcopy --only-keep-debug "$T/sym_rows" "$T/debug/sym_rows.debug" &&
    strip --strip-all -o "$T/rows_s" "$T/sym_rows"
ok $? "build sym_rows -g, its debug file apart, a stripped copy"
BID=$(readelf -n "$T/rows_s" | awk '/Build ID:/ { print $3 }')
[ -n "$BID" ]
ok $? "the stripped copy has build ID $BID"

port=$(free_port)
debuginfod -F -p "$port" -d "$T/db.sqlite" -t 0 -g 0 "$T/debug" >"$T/server.log" 2>&1 &
srv=$!
bg_pids="$bg_pids $srv"
URL="http://127.0.0.1:$port"
# ready once it serves the file: its first scan is done
probe() {
	python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2).read()' \
	    "$URL/buildid/$BID/debuginfo"
}
wait_for 20 probe
ok $? "debuginfod serves the debug file on 127.0.0.1:$port" || diag "$T/server.log"
requests() {
	grep -c "GET /buildid/$BID/debuginfo" "$T/server.log"
}
before=$(requests)

# the agent: DEBUGINFOD_URLS set, never asked
DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH="$T/dcache-agent" \
    "$YING" run --dump-signal USR2 --interval 0 --report-dir "$T/rep" -- \
    "$T/rows_s" --wait "$T/ready" >"$T/run.out" 2>"$T/run.err" &
rp=$!
bg_pids="$bg_pids $rp"
wait_for 20 test -s "$T/ready"
ok $? "the stripped program runs under ying run" || diag "$T/run.err"
kill -USR2 "$rp"
wait_for 20 count_reports "$T/rep" 1
ok $? "SIGUSR2: a report set" || diag "$T/run.err"
base=$(report_sets "$T/rep" | head -n 1)
grep -q 'rows_s+0x' "$T/rep/$base.report" && ! grep -q 'grow' "$T/rep/$base.report"
ok $? "the agent's report leaves the stripped program unnamed" || diag "$T/rep/$base.report"
kill "$rp" 2>/dev/null
wait "$rp" 2>/dev/null
is "$(requests)" "$before" "the agent sent the server no request"
[ ! -e "$T/dcache-agent" ]
ok $? "and made no libdebuginfod cache"

MALLOC_CONF=prof:true,lg_prof_sample:0 "$T/rows_s" "$T/r.heap" >"$T/prog.out" 2>&1
ok $? "dump the stripped program" || diag "$T/prog.out"

ying top --lines -n 0 "$T/r.heap" >"$T/plain.txt" 2>"$T/plain.err"
! grep -q 'grow' "$T/plain.txt"
ok $? "without DEBUGINFOD_URLS: grow is not named" || diag "$T/plain.txt"
grep -q -- '-dbgsym package' "$T/plain.err" &&
    grep -q "/usr/lib/debug/\.build-id/$(echo "$BID" | cut -c1-2)/$(echo "$BID" | cut -c3-)\.debug" "$T/plain.err" &&
    grep -q "set DEBUGINFOD_URLS to a debuginfod server that has build ID $BID" "$T/plain.err"
ok $? "the warning says what to do: -dbgsym, the build-ID path, DEBUGINFOD_URLS" ||
    diag "$T/plain.err"
is "$(requests)" "$before" "no request without DEBUGINFOD_URLS"

DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH="$T/dcache" \
    ying top --lines -n 0 "$T/r.heap" >"$T/named.txt" 2>"$T/named.err"
ok $? "ying top with DEBUGINFOD_URLS" || diag "$T/named.err"
grep -q 'grow (sym_rows\.c:[0-9]*)' "$T/named.txt" &&
    [ "$(grep -c 'grow (sym_rows\.c:' "$T/named.txt")" -eq 2 ]
ok $? "grow is named, with both lines" || diag "$T/named.txt"
! grep -q 'rows_s has no symbols' "$T/named.err"
ok $? "no warning for the program" || diag "$T/named.err"
is "$(requests)" "$((before + 1))" "one request reached the server"
[ -s "$T/dcache/$BID/debuginfo" ]
ok $? "libdebuginfod cached the file in DEBUGINFOD_CACHE_PATH"

# a build the server does not have: the warning says debuginfod was asked
cc -O2 -o "$T/other" "$SRC" -ljemalloc -Wl,--build-id=0x0123456789abcdef0123456789abcdef01234567 &&
    strip --strip-all "$T/other" &&
    MALLOC_CONF=prof:true,lg_prof_sample:0 "$T/other" "$T/o.heap" >"$T/prog.out" 2>&1
ok $? "dump a stripped build the server does not have"
DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH="$T/dcache" \
    ying top -n 1 "$T/o.heap" >/dev/null 2>"$T/other.err"
grep -q 'other has no symbols, and no server in DEBUGINFOD_URLS has debug information for build ID 0123456789abcdef0123456789abcdef01234567' "$T/other.err" &&
    grep -q '/usr/lib/debug/\.build-id/01/23456789abcdef0123456789abcdef01234567\.debug' "$T/other.err"
ok $? "its warning: no server had the build ID; -dbgsym or the build-ID path" || diag "$T/other.err"

kill "$srv"
wait "$srv" 2>/dev/null
DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH="$T/dcache" \
    ying top --lines -n 0 "$T/r.heap" >"$T/cached.txt" 2>"$T/cached.err"
cmp -s "$T/named.txt" "$T/cached.txt"
ok $? "the server gone: the same names from the cache" || diag "$T/cached.err"
plan_done
