#!/bin/sh
# http_peer.sh: what judging each connection's user costs (issue 22, item
# 2: the owner of the client socket looked up once per connection).
#
#   bench/http_peer.sh OLD_BUILD NEW_BUILD [ROUNDS [CONNS]]
#
# For each build, `ying run --http 127.0.0.1:0 -- sleep 600`; then ROUNDS
# rounds (default 5), old and new alternating, of CONNS (default 2000)
# sequential fresh connections from python3, each one request
# (`GET /pprof/cmdline`, HTTP/1.0, the answer read to EOF).  Prints the
# median microseconds per connection of each build and their ratio.  The
# client runs as root, so both builds serve it.  Then the lookup alone:
# bench/peer_micro.c linked with NEW_BUILD's libying_core.a, ns per lookup
# by NETLINK_SOCK_DIAG (every connection) and by /proc/net/tcp (the
# fallback), with 0 and 5000 other connections open.
set -eu
OLD=$(cd "$1" && pwd)
NEW=$(cd "$2" && pwd)
ROUNDS=${3:-5}
CONNS=${4:-2000}
W=$(mktemp -d "${TMPDIR:-/tmp}/ying-http-peer.XXXXXX")
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	rm -rf "$W"
}
trap cleanup EXIT

start() {   # start NAME BUILD: sets port_NAME
	"$2/ying" run --http 127.0.0.1:0 -- sleep 600 >/dev/null 2>"$W/$1.err" &
	pids="$pids $!"
	i=0
	until grep -q 'HTTP on http://127.0.0.1:[0-9]*/' "$W/$1.err"; do
		i=$((i + 1))
		[ $i -lt 300 ] || { echo "http_peer: $1 did not start" >&2; cat "$W/$1.err" >&2; exit 1; }
		sleep 0.1
	done
	eval "port_$1=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$W/$1.err" | head -n 1)"
}
start old "$OLD"
start new "$NEW"

run() {     # run PORT: microseconds per connection
	python3 - "$1" "$CONNS" <<'EOF'
import socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
req = b"GET /pprof/cmdline HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n"
t0 = time.perf_counter()
for _ in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(req)
    got = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        got += b
    s.close()
    if b" 200 " not in got.split(b"\r\n", 1)[0]:
        sys.exit("unexpected answer: %r" % got[:200])
print("%.1f" % ((time.perf_counter() - t0) / n * 1e6))
EOF
}
: >"$W/old.t"
: >"$W/new.t"
r=0
while [ $r -lt "$ROUNDS" ]; do
	run "$port_old" >>"$W/old.t"
	run "$port_new" >>"$W/new.t"
	r=$((r + 1))
done
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mo=$(med "$W/old.t")
mn=$(med "$W/new.t")
echo "old: $(tr '\n' ' ' <"$W/old.t")-> median $mo us per connection"
echo "new: $(tr '\n' ' ' <"$W/new.t")-> median $mn us per connection"
awk -v o="$mo" -v n="$mn" 'BEGIN { printf "new/old: %.3f (%+.1f us per connection)\n", n / o, n - o }'
ROOT=$(cd "$(dirname "$0")/.." && pwd)
libs=$(sed -n "s/^dependency_libs='\(.*\)'/\1/p" "$NEW/libying_core.la")
cc -O2 -std=gnu11 -include "$NEW/config.h" -I"$ROOT/include" -I"$ROOT/src/lib" \
    -o "$W/peer_micro" "$ROOT/bench/peer_micro.c" "$NEW/.libs/libying_core.a" $libs
for extra in 0 5000; do
	echo "lookup, $extra other connections: $(ulimit -n 12000 2>/dev/null; "$W/peer_micro" 2000 "$extra") (ns per lookup)"
done
