# lib.sh: helpers sourced by bench/stacks.sh and bench/clang.sh.
#
# measure LABEL CMD...: run CMD once under /usr/bin/time, append
#   "LABEL <wall seconds> <peak RSS KiB>" to $OUT/$BENCH.times; output is
#   discarded (the scripts check outputs separately).  A failing run aborts.
# stats LABEL: "median_s min_s max_s median_rss_kib" of LABEL's runs.
# machine: one line naming the CPU and core count.
set -eu
: "${OUT:?}" "${BENCH:?}"

measure() {
	_label=$1
	shift
	if ! /usr/bin/time -f '%e %M' -o "$OUT/$BENCH.time1" "$@" >/dev/null 2>"$OUT/$BENCH.stderr"; then
		echo "bench: '$*' failed:" >&2
		tail -n 20 "$OUT/$BENCH.stderr" >&2
		exit 1
	fi
	echo "$_label $(tail -n 1 "$OUT/$BENCH.time1")" >>"$OUT/$BENCH.times"
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
