#!/bin/sh
# hashflood.sh: crafted keys against ying's hash tables (issue 13, finding 3),
# two builds side by side.
#
#   bench/hashflood.sh OLD_BUILD NEW_BUILD [RUNS [NSYM [NHEAP]]]
#
# Builds, with python3, addresses chosen so that the OLD unkeyed hash
# (splitmix64's finaliser, inverted) sends every one of them to the same
# home slot of any table up to 2^24 slots, and as a control the same number
# of ordinary addresses (0x400000 + 16 i).  Then, alternating old/new RUNS
# times (default 5), it times:
#   - POST /pprof/symbol with NSYM (default 58000) addresses joined by '+',
#     to `ying run --http 127.0.0.1:0 -- sleep 3600` of each build;
#   - `ying top` of a heap_v2 file of NHEAP (default 37000, ~1.5 MB)
#     single-frame stacks;
# and prints the medians.  Needs python3, curl and GNU time.
set -eu
[ $# -ge 2 ] || { echo "usage: bench/hashflood.sh OLD_BUILD NEW_BUILD [RUNS [NSYM [NHEAP]]]" >&2; exit 2; }
old=$1 new=$2 runs=${3:-5} nsym=${4:-58000} nheap=${5:-37000}
for t in python3 curl /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "hashflood.sh: needs $t" >&2; exit 2; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ying-hashflood.XXXXXX")
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || :; done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

python3 - "$tmp" "$nsym" "$nheap" <<'PY'
import sys
tmp, nsym, nheap = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
M = (1 << 64) - 1
def unxorshift(y, s):
    x = y
    for _ in range(64 // s + 1):
        x = y ^ (x >> s)
    return x
def unsplitmix(y):
    y = unxorshift(y, 31)
    y = (y * pow(0x94d049bb133111eb, -1, 1 << 64)) & M
    y = unxorshift(y, 27)
    y = (y * pow(0xbf58476d1ce4e5b9, -1, 1 << 64)) & M
    return unxorshift(y, 30)
def crafted(n):
    # low 24 bits of the old hash all zero: one home slot; skip address 0
    out, i = [], 1
    while len(out) < n:
        a = unsplitmix(i << 24)
        if a:
            out.append(a)
        i += 1
    return out
def plain(n):
    return [0x400000 + 16 * i for i in range(n)]
for kind, gen in (("crafted", crafted), ("plain", plain)):
    with open(f"{tmp}/{kind}.addrs", "w") as f:
        # no 0x: 58000 crafted 16-digit addresses fit the 1 MiB body limit
        f.write("+".join("%x" % a for a in gen(nsym)))
    addrs = gen(nheap)
    with open(f"{tmp}/{kind}.heap", "w") as f:
        f.write("heap_v2/524288\n  t*: %d: %d [0: 0]\n" % (len(addrs), 4096 * len(addrs)))
        for a in addrs:
            f.write("@ 0x%x\n  t*: 1: 4096 [0: 0]\n" % a)
PY

# start BUILD NAME: `ying run --http` of BUILD; its port in NAME.port
start() {
	"$1/ying" run --http 127.0.0.1:0 -- sleep 3600 >"$tmp/$2.out" 2>"$tmp/$2.err" &
	pids="$pids $!"
	i=0
	while [ $i -lt 100 ]; do
		port=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$tmp/$2.err" | head -n 1)
		[ -n "$port" ] && break
		sleep 0.1
		i=$((i + 1))
	done
	[ -n "$port" ] || { echo "hashflood.sh: $1/ying run --http did not announce a port:" >&2; cat "$tmp/$2.err" >&2; exit 1; }
	child=$(sed -n 's|.*pid \([0-9]*\) (sleep).*|\1|p' "$tmp/$2.err" | head -n 1)
	pids="$pids $child"
	echo "$port" >"$tmp/$2.port"
}
start "$old" old
start "$new" new

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
r=0
while [ $r -lt "$runs" ]; do
	for which in old new; do
		eval bin=\$$which
		port=$(cat "$tmp/$which.port")
		for kind in plain crafted; do
			curl -s -o "$tmp/sym.out" -w '%{http_code} %{time_total}\n' --max-time 600 \
			    --data-binary @"$tmp/$kind.addrs" "http://127.0.0.1:$port/pprof/symbol" \
			    >"$tmp/c" || :
			[ "$(cut -d' ' -f1 "$tmp/c")" = 200 ] ||
			    { echo "hashflood.sh: POST /pprof/symbol ($which, $kind): $(cat "$tmp/c"):" >&2; cat "$tmp/sym.out" >&2; exit 1; }
			cut -d' ' -f2 "$tmp/c" >>"$tmp/$which.sym.$kind"
			/usr/bin/time -f '%e' -o "$tmp/t" "$bin/ying" top "$tmp/$kind.heap" >/dev/null 2>"$tmp/top.err" ||
			    { echo "hashflood.sh: $bin/ying top $kind.heap failed:" >&2; cat "$tmp/top.err" >&2; exit 1; }
			cat "$tmp/t" >>"$tmp/$which.top.$kind"
		done
	done
	r=$((r + 1))
done
printf 'hash flooding, %d alternating runs each, medians (seconds)\n' "$runs"
printf '%-32s %10s %10s %10s %10s\n' "" "old plain" "old craft" "new plain" "new craft"
printf '%-32s' "POST /pprof/symbol, $nsym addrs"
for f in old.sym.plain old.sym.crafted new.sym.plain new.sym.crafted; do printf ' %10.3f' "$(median <"$tmp/$f")"; done
echo
printf '%-32s' "ying top, $nheap stacks ($(($(wc -c <"$tmp/crafted.heap") / 1024)) KiB)"
for f in old.top.plain old.top.crafted new.top.plain new.top.crafted; do printf ' %10.3f' "$(median <"$tmp/$f")"; done
echo
