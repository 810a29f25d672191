#!/bin/sh
# http_idle.sh: how long a client waits behind 64 idle connections (issue
# 13, finding 10).
#
#   bench/http_idle.sh [BUILD_DIR]     (default: build; needs
#                                       `make tests/programs/http_server` there)
#
# Starts tests/programs/http_server (MALLOC_CONF=prof:true, the default 64
# connections and 30 s timeout), opens 64 connections (32 send nothing, 32
# half a request), then runs curl on /debug/prof every 0.2 s until it gets
# 200; prints the seconds to the first 200 and the number of attempts.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
SRV="$BUILD/tests/programs/http_server"
[ -x "$SRV" ] || { echo "http_idle: $SRV not built (make tests/programs/http_server)" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/ying-http-idle.XXXXXX")
spid="" ppid=""
cleanup() {
	[ -n "$ppid" ] && kill "$ppid" 2>/dev/null || true
	[ -n "$spid" ] && kill "$spid" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT
MALLOC_CONF=prof:true "$SRV" >"$W/out" 2>"$W/err" &
spid=$!
i=0
until grep -q '^port ' "$W/out"; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "http_idle: server did not start" >&2; exit 1; }
	sleep 0.05
done
port=$(awk '/^port /{ print $2 }' "$W/out")
perl -MIO::Socket::INET -e '
	$| = 1;
	my @s = map { IO::Socket::INET->new(PeerAddr => "127.0.0.1:$ARGV[0]") or die } 1..64;
	syswrite($s[$_], "GET /debug/prof HTTP/1.1\r\nHo") for 32..63;
	print "open\n";
	sleep 60;' "$port" >"$W/idle" &
ppid=$!
until grep -q open "$W/idle"; do sleep 0.05; done
sleep 1
t0=$(date +%s.%N)
n=0
while :; do
	n=$((n + 1))
	c=$(curl -s --max-time 40 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/debug/prof" || true)
	[ "$c" = 200 ] && break
	[ $n -lt 300 ] || { echo "http_idle: no answer after 300 attempts" >&2; exit 1; }
	sleep 0.2
done
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v n="$n" 'BEGIN { printf "first 200 after %.2f s, %d attempts\n", b - a, n }'
