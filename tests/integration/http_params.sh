#!/bin/bash
# http_params.sh: every numeric query parameter of the HTTP endpoint is
# bounded and strictly parsed (issue 22, item 3; the table in
# src/live/live_http_param.c, ying-http(7)).
#
# redis-server runs under `ying run --http 127.0.0.1:0 --giant 1G` (so
# /debug/heap/giant answers).  For each of seconds, lg, on, max, limit and
# since: -1, one past each end of the range, a value past INT64_MAX (and
# INT64_MAX + 1), a sign, a space, a fraction, an exponent, hex, a word,
# an empty value and the parameter given twice are each a 400 whose body
# names the parameter and the allowed range LO..HI; both ends of each range
# are accepted (seconds=300, the upper end, is still waiting after 2 s
# instead of being refused).  The index page lists the table.  A process
# whose jemalloc may keep an unbounded record (MALLOC_CONF's
# prof_recent_alloc_max:-1) gets 409 from GET /debug/heap/recent, naming
# the fix, instead of a dump that would stop it.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need redis-server redis-cli curl python3

redis_under_ying_http --giant 1G --floor 1G
B="http://127.0.0.1:$hp"

# refused METHOD PATH QUERY NAME LO HI [WHAT]: a 400 naming NAME and LO..HI
refused() {
	local m=$1 path=$2 qs=$3 name=$4 lo=$5 hi=$6 what=${7:-"$3"} code
	code=$(curl -s -m 30 -o "$T/b" -w '%{http_code}' -X "$m" "$B$path?$qs")
	if [ "$code" = 400 ] && grep -qF "$name" "$T/b" && grep -qF "$lo..$hi" "$T/b"; then
		ok 0 "$m $path?$what: 400 naming $name and $lo..$hi"
	else
		ok 1 "$m $path?$what: 400 naming $name and $lo..$hi"
		echo "#   got $code: $(head -c 300 "$T/b")"
	fi
}
# accepted METHOD PATH QUERY: 200
accepted() {
	local code
	code=$(curl -s -m 60 -o "$T/b" -w '%{http_code}' -X "$1" "$B$2?$3")
	is "$code" 200 "$1 $2?$3 is accepted" || echo "#   $(head -c 300 "$T/b")"
}
# malformed METHOD PATH KEY LO HI [PREFIX]: the values every parameter
# refuses (PREFIX: other parameters the request needs, "a=b&")
malformed() {
	local m=$1 path=$2 key=$3 lo=$4 hi=$5 pre=${6:-} v
	for v in -1 %2B1 +1 %201 1.5 1e3 0x10 abc '' 99999999999999999999 \
	    9223372036854775808; do
		refused "$m" "$path" "$pre$key=$v" "$key=" "$lo" "$hi"
	done
	refused "$m" "$path" "$pre$key=$lo&$key=$lo" "$key" "$lo" "$hi"
}

# seconds: /debug/pprof/heap growth, 0..300 (max_seconds)
malformed GET /debug/pprof/heap seconds 0 300
refused GET /debug/pprof/heap seconds=301 seconds=301 0 300
accepted GET /debug/pprof/heap seconds=0
code=$(curl -s -m 2 -o "$T/b" -w '%{http_code}' "$B/debug/pprof/heap?seconds=300")
is "$code" 000 "GET /debug/pprof/heap?seconds=300 (the upper end) is accepted: still waiting after 2 s" ||
    echo "#   $(head -c 300 "$T/b")"

# lg: POST /debug/prof/sample, 10..30, required
malformed POST /debug/prof/sample lg 10 30
refused POST /debug/prof/sample lg=9 lg=9 10 30
refused POST /debug/prof/sample lg=0 lg=0 10 30
refused POST /debug/prof/sample lg=31 lg=31 10 30
refused POST /debug/prof/sample '' 'lg=N' 10 30 '(none)'
accepted POST /debug/prof/sample lg=10
accepted POST /debug/prof/sample lg=30
accepted POST /debug/prof/sample lg=19

# on: POST /debug/prof/active, 0..1, required
malformed POST /debug/prof/active on 0 1
refused POST /debug/prof/active on=2 on=2 0 1
refused POST /debug/prof/active '' 'on=N' 0 1 '(none)'
accepted POST /debug/prof/active on=0
accepted POST /debug/prof/active on=1

# max: POST /debug/heap/recent, 0..10000, required
malformed POST /debug/heap/recent max 0 10000
refused POST /debug/heap/recent max=10001 max=10001 0 10000
refused POST /debug/heap/recent '' 'max=N' 0 10000 '(none)'
accepted POST /debug/heap/recent max=10000
accepted POST /debug/heap/recent max=0

# limit: GET /debug/heap/diff, 0..100000
accepted POST /debug/heap/snapshot name=b
malformed GET /debug/heap/diff limit 0 100000 'base=b&'
refused GET /debug/heap/diff "base=b&limit=100001" limit=100001 0 100000
accepted GET /debug/heap/diff "base=b&limit=0"
accepted GET /debug/heap/diff "base=b&limit=100000"

# since: GET /debug/heap/giant, 0..INT64_MAX
malformed GET /debug/heap/giant since 0 9223372036854775807
accepted GET /debug/heap/giant since=0
accepted GET /debug/heap/giant since=9223372036854775807

curl -s -m 30 -o "$T/index" "$B/debug/"
grep -q 'Numeric parameters' "$T/index" && grep -q '<td>lg</td>.*<td>10\.\.30, required</td>' "$T/index" &&
    grep -q '<td>max</td>.*<td>0\.\.10000, required</td>' "$T/index"
ok $? "the index page lists the parameters with their ranges" || diag "$T/index"

# an unbounded record (from MALLOC_CONF, not from ying) is not dumped
kill -TERM "$p"
wait "$p"
MALLOC_CONF=prof_recent_alloc_max:-1 redis_under_ying_http --floor 1G
code=$(curl -s -m 30 -o "$T/b" -w '%{http_code}' "http://127.0.0.1:$hp/debug/heap/recent")
is "$code" 409 "GET /debug/heap/recent with prof_recent_alloc_max:-1 is 409"
grep -q 'alloc_max is -1.*POST /debug/heap/recent?max=N (N in 0\.\.10000) first' "$T/b"
ok $? "... naming the fix" || diag "$T/b"
code=$(curl -s -m 30 -o "$T/b" -w '%{http_code}' -X POST "http://127.0.0.1:$hp/debug/heap/recent?max=100")
is "$code" 200 "POST ?max=100 bounds it"
is "$(cat "$T/b")" '{"recent_alloc_max":100,"previous":-1}' "... (previous -1)"
code=$(curl -s -m 30 -o "$T/b" -w '%{http_code}' "http://127.0.0.1:$hp/debug/heap/recent")
is "$code" 200 "then GET /debug/heap/recent is 200"
plan_done
