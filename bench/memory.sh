#!/bin/sh
# memory.sh: what the memory breakdown costs (issue 26, item 5: computed in
# <= 5 ms for a 1 GiB heap with 200 threads).
#
#   bench/memory.sh [BUILD_DIR]      (default: build)
#   env: RUNS requests of each kind (default 20), MIB the heap (default 1024)
#
# tests/programs/mem_gaps (built by `make check` or `make
# tests/programs/mem_gaps`) in its bench mode under `ying run --http
# 127.0.0.1:0`: MIB MiB of heap kept (half in small objects of 16 size
# classes, half in 1 MiB blocks), 200 threads blocked.  Then RUNS rounds,
# each one GET /debug/memory and one GET / (the endpoint list: the cost of
# a request that computes nothing) on the same process, alternating, with
# curl's time_total; and the "elapsed_us" the breakdown reports of its own
# computation when its JSON has one.  When the endpoint takes sites=0 (no
# heap dump for the classes' call sites), GET /debug/memory?sites=0 is
# timed the same way.  And the kernel's share alone: reading the process's
# /proc/PID/smaps (cat, the same rounds).  Prints the medians (and min, max).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
RUNS=${RUNS:-20}
MIB=${MIB:-1024}
P=$BUILD/tests/programs/mem_gaps
[ -x "$BUILD/ying" ] || { echo "memory.sh: no $BUILD/ying (build first)" >&2; exit 1; }
[ -x "$P" ] || { echo "memory.sh: no $P (make tests/programs/mem_gaps in $BUILD)" >&2; exit 1; }
command -v curl >/dev/null || { echo "memory.sh: curl is missing" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/ying-bench-memory.XXXXXX")
run_pid=""
cleanup() {
	if [ -n "$run_pid" ]; then
		touch "$W/stop"
		kill "$run_pid" 2>/dev/null || true
		wait "$run_pid" 2>/dev/null || true
	fi
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "memory: $BUILD ($(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?')); $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$BUILD/ying" run --http 127.0.0.1:0 --report-dir "$W/r" -- "$P" bench "$W" "$MIB" \
    >"$W/out" 2>"$W/err" &
run_pid=$!
n=0
until grep -qx ready "$W/out" 2>/dev/null; do
	n=$((n + 1))
	if [ "$n" -gt 1200 ] || ! kill -0 "$run_pid" 2>/dev/null; then
		echo "memory.sh: the program did not get ready:" >&2
		cat "$W/out" "$W/err" >&2
		exit 1
	fi
	sleep 0.1
done
port=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$W/err" | head -n 1)
[ -n "$port" ] || { echo "memory.sh: no endpoint announced" >&2; cat "$W/err" >&2; exit 1; }
U=http://127.0.0.1:$port
echo "memory: process $(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$W/out"): $(grep '^{' "$W/out")"
code=$(curl -s --max-time 60 -o "$W/first.json" -w '%{http_code}' "$U/debug/memory")
if [ "$code" != 200 ]; then
	echo "memory.sh: GET /debug/memory answered $code:" >&2
	head -c 400 "$W/first.json" >&2
	echo >&2
	exit 1
fi

kinds="memory trivial smaps"
code=$(curl -s --max-time 60 -o /dev/null -w '%{http_code}' "$U/debug/memory?sites=0")
[ "$code" = 200 ] && kinds="$kinds nosites"
pid=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$W/out" | head -n 1)
: >"$W/times"
i=0
while [ "$i" -lt "$RUNS" ]; do
	# Alternate which goes first, so neither always follows the other.
	if [ $((i % 2)) -eq 0 ]; then order=$kinds; else
		order=$(for k in $kinds; do echo "$k"; done | sort -r); fi
	for k in $order; do
		case $k in
		memory) t=$(curl -s --max-time 60 -o "$W/m.json" -w '%{time_total}' "$U/debug/memory")
		    e=$(python3 -c 'import json,sys
try:
    v = json.load(open(sys.argv[1])).get("elapsed_us")
except ValueError:
    v = None
print(v if isinstance(v, (int, float)) else "-")' "$W/m.json")
		    echo "memory $t $e" >>"$W/times" ;;
		trivial) t=$(curl -s --max-time 60 -o /dev/null -w '%{time_total}' "$U/")
		    echo "trivial $t -" >>"$W/times" ;;
		nosites) t=$(curl -s --max-time 60 -o "$W/n.json" -w '%{time_total}' \
		    "$U/debug/memory?sites=0")
		    e=$(python3 -c 'import json,sys
try:
    v = json.load(open(sys.argv[1])).get("elapsed_us")
except ValueError:
    v = None
print(v if isinstance(v, (int, float)) else "-")' "$W/n.json")
		    echo "nosites $t $e" >>"$W/times" ;;
		smaps) t=$(python3 -c 'import sys, time
t = time.perf_counter()
with open(sys.argv[1], "rb") as f:
    f.read()
print(time.perf_counter() - t)' "/proc/$pid/smaps")
		    echo "smaps $t -" >>"$W/times" ;;
		esac
	done
	i=$((i + 1))
done
python3 - "$W/times" "$W/m.json" <<'PY'
import collections, json, statistics, sys
t = collections.defaultdict(list)
el = collections.defaultdict(list)
for line in open(sys.argv[1]):
    k, s, e = line.split()
    t[k].append(float(s) * 1000.0)
    if e != "-":
        el[k].append(float(e) / 1000.0)
def row(name, v):
    print("%-40s median %8.3f ms   min %8.3f   max %8.3f   (n=%d)" % (
        name, statistics.median(v), min(v), max(v), len(v)))
row("GET /debug/memory (curl total)", t["memory"])
if t["nosites"]:
    row("GET /debug/memory?sites=0 (curl total)", t["nosites"])
row("GET / (curl total)", t["trivial"])
print("%-40s %8.3f ms" % ("/debug/memory minus / (medians)",
      statistics.median(t["memory"]) - statistics.median(t["trivial"])))
for k, name in (("memory", "elapsed_us, /debug/memory"), ("nosites", "elapsed_us, ?sites=0")):
    if el[k]:
        row(name, el[k])
    elif t[k]:
        print("%s: not in the JSON" % name)
row("read /proc/PID/smaps (python, whole)", t["smaps"])
m = json.load(open(sys.argv[2]))
print("last answer: rss %.1f MiB, %s threads, %d parts, %d classes, %d files" % (
    m.get("rss", 0) / 2**20, m.get("threads"), len(m.get("parts") or []),
    len(m.get("classes") or []), len(m.get("files") or [])))
PY
echo "memory: load after: $(cut -d' ' -f1-3 /proc/loadavg)"
