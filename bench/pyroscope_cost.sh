#!/bin/sh
# pyroscope_cost.sh: what continuous upload to Pyroscope costs a service.
#
#   bench/pyroscope_cost.sh [BUILD_DIR]      (default: build)
#   env: ROUNDS (default 3), MEM_ROUNDS (default 2), SECONDS_PER_RUN
#        (default 20), OUT (default bench/out), HEAP_MB (default 250)
#
# The uploads go to the test stand-in (tests/pyro/standin.py --light: it
# records, without its protoc/go checks, so it costs the machine little).
#
# 1. Throughput.  redis-server (Debian's, linked with jemalloc) is driven by
#    `redis-benchmark -c 50 -P 16 -r 1000000 -d 256 -t set,get,lpush,lpop`
#    for about SECONDS_PER_RUN seconds (so a 15 s interval uploads at least
#    once) in four configurations:
#      prof   MALLOC_CONF=prof:true (jemalloc's own sampling)
#      http   ying run --http ADDR (the agent and its endpoint, no upload)
#      up15   ying run --http ADDR --pyroscope URL --pyroscope-interval 15
#      up1    ying run --http ADDR --pyroscope URL --pyroscope-interval 1
#    A run's throughput is the geometric mean of the tests' requests per
#    second; its CPU time is redis' (all threads, from
#    /proc/PID/task/*/schedstat).  Each round runs the four in an order
#    rotated from round to round and takes ratios within the round; the
#    table gives medians over the rounds.
# 2. CPU per upload cycle: the CPU time of the uploader's two threads
#    (ying-pyro: dump, symbolize, pprof; ying-pyro-send: HTTP) divided by
#    the profiles it collected, and the agent's own last_collect and
#    last_duration (/debug/prof), in the up1 and up15 runs.
# 3. Memory: redis filled with about HEAP_MB MB of values, then left for
#    30 s under prof, http and up1; RSS (VmRSS) of each, and the
#    differences, over MEM_ROUNDS rounds.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
ROUNDS=${ROUNDS:-3}
MEM_ROUNDS=${MEM_ROUNDS:-2}
SECS=${SECONDS_PER_RUN:-20}
HEAP_MB=${HEAP_MB:-250}
OUT=${OUT:-$ROOT/bench/out}
YING="$BUILD/ying"
BENCH=pyroscope_cost
. "$ROOT/bench/lib.sh"
redis_setup redis-server redis-benchmark redis-cli python3 curl
standin=""
MEM="$OUT/pyroscope_cost.memory"
: >"$MEM"

python3 "$ROOT/tests/pyro/standin.py" --light --dir "$W/standin" >"$W/standin.port" 2>"$W/standin.err" &
standin=$!
i=0
until grep -q '^port ' "$W/standin.port" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 200 ] || { echo "pyroscope_cost: the stand-in did not start" >&2; exit 1; }
	sleep 0.05
done
URL="http://127.0.0.1:$(awk '{ print $2 }' "$W/standin.port")"

# start CONFIG: redis under CONFIG (bench/lib.sh's redis_start); sets
# server, port, rpid, hport
start() {
	cfg=$1
	hport=$(free_port)
	case "$cfg" in
	prof) redis_start prof env MALLOC_CONF=prof:true ;;
	http) redis_start http "$YING" run -q --http "127.0.0.1:$hport" -- ;;
	up15|up1)
		redis_start "$cfg" "$YING" run -q --http "127.0.0.1:$hport" --pyroscope "$URL" \
		    --service redis --pyroscope-interval "${cfg#up}" -- ;;
	esac
}
stop() {
	redis_stop
}
thread_ms() {
	redis_thread_ms "$1"
}
# prof_field NAME: the uploader's counter NAME from /debug/prof (or -)
prof_field() {
	curl -sf --max-time 5 "http://127.0.0.1:$hport/debug/prof" 2>/dev/null |
	    python3 -c 'import json, sys
try:
    print(json.load(sys.stdin)["pyroscope"][sys.argv[1]])
except Exception:
    print("-")' "$1"
}

# calibrate: requests per run for about SECS seconds under prof
start prof
t0=$(date +%s.%N)
redis-benchmark -p "$port" -n 200000 -c 50 -P 16 -r 1000000 -d 256 -t set,get,lpush,lpop \
    --csv >/dev/null 2>&1
t1=$(date +%s.%N)
stop
REQUESTS=$(python3 -c 'import sys; print(int(200000 * float(sys.argv[1]) / (float(sys.argv[3]) - float(sys.argv[2]))) // 10000 * 10000 or 10000)' \
    "$SECS" "$t0" "$t1")
echo "pyroscope_cost: $REQUESTS requests per test (~${SECS} s a run)" >&2

# run CONFIG: one throughput run; prints "rps cpu_ms pyro_ms collected
# last_collect last_duration"
run() {
	start "$1"
	redis_bench "$REQUESTS" "$W/bench.csv"
	cpu=$(thread_ms '*')
	pyro=$(thread_ms 'ying-pyro*')
	coll=- lc=- ld=-
	if [ "$1" = up1 ] || [ "$1" = up15 ]; then
		coll=$(prof_field collected) lc=$(prof_field last_collect) ld=$(prof_field last_duration)
	fi
	stop
	geomean "$W/bench.csv" "$cpu" "$pyro" "$coll" "$lc" "$ld"
}

CONFIGS="prof http up15 up1"
r=1
while [ $r -le "$ROUNDS" ]; do
	for cfg in $(rotated "$r" $CONFIGS); do
		line=$(run "$cfg")
		echo "$r $cfg $line" >>"$RES"
		echo "round $r $cfg: $line" >&2
	done
	r=$((r + 1))
done

# --- memory on a ~HEAP_MB MB heap ------------------------------------------------
VAL=4096
KEYS=$((HEAP_MB * 1000000 / (VAL + 100)))
r=1
while [ $r -le "$MEM_ROUNDS" ]; do
	for cfg in prof http up1; do
		start "$cfg"
		redis-benchmark -p "$port" -n $((KEYS * 3)) -c 20 -P 16 -r "$KEYS" -d "$VAL" -t set \
		    --csv >/dev/null 2>&1
		rss0=$(awk '/^VmRSS:/ { print $2 }' "/proc/$rpid/status")
		sleep 30
		rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$rpid/status")
		used=$(redis-cli -p "$port" info memory | tr -d '\r' | sed -n 's/^used_memory://p')
		coll=-
		if [ "$cfg" = up1 ]; then coll=$(prof_field collected); fi
		stop
		echo "$r $cfg $rss0 $rss $used $coll" >>"$MEM"
		echo "memory round $r $cfg: RSS ${rss} KiB after 30 s (${rss0} KiB before), used_memory $used, collected $coll" >&2
	done
	r=$((r + 1))
done

python3 - "$RES" "$MEM" "$REQUESTS" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
by = {}
for r in rows:
    by.setdefault(r[0], {})[r[1]] = r[2:]
def med(xs):
    xs = [x for x in xs if x is not None]
    return st.median(xs) if xs else float("nan")
print("requests per test: %s; rounds: %d" % (sys.argv[3], len(by)))
print("%-6s %12s %10s %10s %12s %14s %14s %14s" % ("config", "rps(median)", "rps/prof", "cpu/prof",
      "collected", "ms/cycle(thr)", "last_collect", "last_duration"))
for c in ("prof", "http", "up15", "up1"):
    rps = med([float(v[c][0]) for v in by.values() if c in v])
    rr = med([float(v[c][0]) / float(v["prof"][0]) for v in by.values() if c in v and "prof" in v])
    cr = med([float(v["prof"][1]) and float(v[c][1]) / float(v["prof"][1]) for v in by.values() if c in v and "prof" in v])
    coll = [float(v[c][3]) for v in by.values() if c in v and v[c][3] not in ("-", "0")]
    per = med([float(v[c][2]) / float(v[c][3]) for v in by.values() if c in v and v[c][3] not in ("-", "0")])
    lc = med([float(v[c][4]) * 1e3 for v in by.values() if c in v and v[c][4] != "-"])
    ld = med([float(v[c][5]) * 1e3 for v in by.values() if c in v and v[c][5] != "-"])
    print("%-6s %12.0f %10.3f %10.3f %12s %14.1f %14.1f %14.1f" % (c, rps, rr, cr,
          "%g" % med(coll) if coll else "-", per, lc, ld))
mem = [l.split() for l in open(sys.argv[2]) if l.strip()]
print("memory (VmRSS after 30 s, KiB; median over rounds):")
for c in ("prof", "http", "up1"):
    print("  %-5s rss %8.0f   before %8.0f   used_memory %8.0f KiB" % (c,
          med([float(m[3]) for m in mem if m[1] == c]), med([float(m[2]) for m in mem if m[1] == c]),
          med([float(m[4]) / 1024 for m in mem if m[1] == c])))
for x, y in (("http", "prof"), ("up1", "prof"), ("up1", "http")):
    d = med([float(a[3]) - float(b[3]) for a in mem for b in mem if a[0] == b[0] and a[1] == x and b[1] == y])
    print("  %s - %s: %+.0f KiB (median of per-round differences)" % (x, y, d))
PY
