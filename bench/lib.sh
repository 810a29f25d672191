# lib.sh: helpers sourced by bench/stacks.sh, bench/clang.sh, bench/agent_cost.sh,
# bench/giant_cost.sh,
# bench/pyroscope_cost.sh, bench/http_load.sh and bench/speed.sh.
#
# measure LABEL CMD...: run CMD once under /usr/bin/time, append
#   "LABEL <wall seconds> <peak RSS KiB>" to $OUT/$BENCH.times; output is
#   discarded (the scripts check outputs separately).  A failing run aborts.
# stats LABEL: "median_s min_s max_s median_rss_kib" of LABEL's runs.
# machine: one line naming the CPU and core count.
# measure_fine LABEL [NAME=VALUE...] CMD...: like measure, for runs of a few
#   milliseconds: python3 starts CMD with posix_spawn (NAME=VALUE added to
#   its environment, no env(1) in between; output to /dev/null) and waits
#   with wait4(2); the wall time is time.perf_counter() around the two (0.1 ms
#   resolution instead of GNU time's 10 ms, and without a /usr/bin/time
#   process to start first), the peak RSS is wait4's ru_maxrss, the number
#   GNU time prints as %M.  Measure `true` the same way to see the floor.
set -eu
: "${OUT:?}" "${BENCH:?}"

# measure LABEL CMD...: one line "LABEL WALL RSS" in $OUT/$BENCH.times
# (MEASURE_FMT, default '%e %M', is GNU time's format: bench/huge.sh adds
# '%U %S' for the CPU seconds).
measure() {
	_label=$1
	shift
	if ! /usr/bin/time -f "${MEASURE_FMT:-%e %M}" -o "$OUT/$BENCH.time1" "$@" >/dev/null 2>"$OUT/$BENCH.stderr"; then
		echo "bench: '$*' failed:" >&2
		tail -n 20 "$OUT/$BENCH.stderr" >&2
		exit 1
	fi
	echo "$_label $(tail -n 1 "$OUT/$BENCH.time1")" >>"$OUT/$BENCH.times"
}

measure_fine() {
	_label=$1
	shift
	if ! _w=$(python3 - "$OUT/$BENCH.stderr" "$@" <<'PY'
import os, re, sys, time
err, args = sys.argv[1], sys.argv[2:]
env = dict(os.environ)
while args and re.match(r"[A-Za-z_][A-Za-z0-9_]*=", args[0]):
    k, v = args.pop(0).split("=", 1)
    env[k] = v
efd = os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
nfd = os.open(os.devnull, os.O_WRONLY)
acts = [(os.POSIX_SPAWN_DUP2, nfd, 1), (os.POSIX_SPAWN_DUP2, efd, 2)]
t0 = time.perf_counter()
pid = os.posix_spawnp(args[0], args, env, file_actions=acts)
_, status, ru = os.wait4(pid, 0)
t1 = time.perf_counter()
print("%.4f %d" % (t1 - t0, ru.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
PY
	); then
		echo "bench: '$*' failed:" >&2
		tail -n 20 "$OUT/$BENCH.stderr" >&2
		exit 1
	fi
	echo "$_label $_w" >>"$OUT/$BENCH.times"
}

stats() {
	python3 - "$OUT/$BENCH.times" "$1" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.split()[0] == sys.argv[2]]
t = [float(r[1]) for r in rows]
m = [int(r[2]) for r in rows]
print("%.2f %.2f %.2f %d" % (statistics.median(t), min(t), max(t), statistics.median(m)))
PY
}

machine() {
	echo "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(. /etc/os-release && echo "$PRETTY_NAME")"
}

# ---- redis-server under a configuration (bench/agent_cost.sh,
# bench/pyroscope_cost.sh); they set W (a private work directory).
#
# free_port: a TCP port nobody listens on right now.
# redis_start NAME PREFIX...: start `PREFIX... redis-server` (PREFIX may be
#   empty, `env VAR=...`, `ying run ... --`, `heaptrack ...`) on a free
#   loopback port, data in $W/data, no persistence, output in $W/NAME.log;
#   waits for PONG (30 s).  Sets server (the started pid), port and rpid
#   (redis' own pid).
# redis_stop: SHUTDOWN NOSAVE, then wait for it.
# redis_bench REQUESTS CSV: redis-benchmark -n REQUESTS -c 50 -P 16
#   -r 1000000 -d 256 -t set,get,lpush,lpop --csv into CSV (prefixed by
#   $CLI when set, e.g. taskset).
# redis_thread_ms PATTERN: CPU ms of redis' threads whose name matches the
#   shell PATTERN (from /proc/PID/task/*/schedstat; '*': all of them).
# geomean CSV [WORDS...]: the geometric mean of the four tests' requests per
#   second in CSV, then WORDS.
# redis_setup TOOL...: the common start of a redis cost benchmark: SRV and
#   CLI from PIN (1: redis on CPU 0, redis-benchmark on CPU 1), exit 1 when
#   a TOOL is missing or $YING is not built, W (a private work directory
#   removed at exit, with $server and ${standin:-} killed), RES
#   ($OUT/$BENCH.results, emptied).
# rotated ROUND WORDS...: WORDS rotated left by ROUND - 1, so that each
#   round starts with the next configuration and order effects spread.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

redis_start() {
	_name=$1
	shift
	port=$(free_port)
	rm -rf "$W/data"
	mkdir -p "$W/data"
	"$@" redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no \
	    --dir "$W/data" --daemonize no --logfile "$W/redis.log" >"$W/$_name.log" 2>&1 &
	server=$!
	_i=0
	until [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ]; do
		_i=$((_i + 1))
		if [ $_i -ge 300 ]; then
			echo "$BENCH: redis ($_name) did not start:" >&2
			tail -n 20 "$W/$_name.log" >&2
			exit 1
		fi
		sleep 0.1
	done
	rpid=$(redis-cli -p "$port" info server | tr -d '\r' | sed -n 's/^process_id://p')
}

redis_stop() {
	redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
	wait "$server" 2>/dev/null || true
	server=""
}

redis_bench() {
	${CLI:-} redis-benchmark -p "$port" -n "$1" -c 50 -P 16 -r 1000000 -d 256 \
	    -t set,get,lpush,lpop --csv >"$2" 2>/dev/null
}

redis_thread_ms() {
	for _t in /proc/"$rpid"/task/*; do
		case "$(cat "$_t/comm")" in
		$1) cat "$_t/schedstat" ;;
		esac
	done | awk '{ s += $1 } END { printf "%.3f", s / 1e6 }'
}

geomean() {
	python3 - "$@" <<'PY'
import csv, math, sys
rps = [float(r[1]) for r in csv.reader(open(sys.argv[1])) if r and r[0] != "test"]
assert len(rps) == 4, rps
print(" ".join(["%.1f" % math.exp(sum(map(math.log, rps)) / len(rps))] + sys.argv[2:]))
PY
}

redis_setup() {
	if [ "${PIN:-0}" = 1 ]; then
		SRV="taskset -c 0"
		CLI="taskset -c 1"
	else
		SRV=""
		CLI=""
	fi
	for _t in "$@"; do
		command -v "$_t" >/dev/null || { echo "$BENCH: $_t is missing" >&2; exit 1; }
	done
	[ -x "$YING" ] || { echo "$BENCH: $YING not built" >&2; exit 1; }
	mkdir -p "$OUT"
	W=$(mktemp -d "${TMPDIR:-/tmp}/ying-$BENCH.XXXXXX")
	server=""
	trap 'redis_cleanup' EXIT
	RES="$OUT/$BENCH.results"
	: >"$RES"
}

redis_cleanup() {
	[ -n "$server" ] && kill -9 "$server" 2>/dev/null || true
	[ -n "${standin:-}" ] && kill -9 "$standin" 2>/dev/null || true
	rm -rf "$W"
}

rotated() {
	_k=$(( ($1 - 1) % ($# - 1) ))
	shift
	while [ "$_k" -gt 0 ]; do
		_first=$1
		shift
		set -- "$@" "$_first"
		_k=$((_k - 1))
	done
	echo "$@"
}
