#!/bin/sh
# huge.sh: parse and aggregate speed on huge heap_v2 dumps, two ying builds
# side by side (issue 16: "262k stacks / 117 MB in <= 0.35 s and <= 1x the
# dump's size in RSS").
#
#   OLD=/path/to/old/build YING=/path/to/new/ying OUT=dir SRCDIR=tree \
#       [RUNS=5] sh bench/huge.sh
#
# Makes three dumps with bench/gen_stacks.c (MALLOC_CONF=prof:true,
# lg_prof_sample:0): 262,144 stacks with 11 extra frames (~117 MB; twice,
# for yingdiff) and 32,768 stacks (the default depth).  Checks first that
# both builds print byte-identical output for every command measured, then
# runs each command RUNS times alternating old, new, old, new... and reports
# median / min / max wall time, the median CPU time (user + system: less
# disturbed than wall time when other jobs share the cores), median peak RSS
# (/usr/bin/time) and RSS over the dump's size, with the load average
# before and after.  Commands:
# `ying top`, `ying top --stacks`, `ying pprof -o FILE` and
# `yingdiff A B` (the 262k dumps; only `ying top` on the 32k one).
# Writes $OUT/huge.md.  Never part of `make check`.
set -eu
BENCH=huge
: "${OLD:?OLD=the old build directory}" "${YING:?}" "${SRCDIR:?}"
OUT=${OUT:-$SRCDIR/bench/out}
mkdir -p "$OUT"
. "$SRCDIR/bench/lib.sh"
RUNS=${RUNS:-5}
NEWD=$(dirname "$YING")

# Built once per OUT: rebuilding would replace the file the kept dumps
# mapped, and a second run would measure them with gen_stacks unsymbolized
# ("not the file the dump mapped").  Remove OUT's dumps with it.
[ -x "$OUT/gen_stacks" ] ||
	cc -g -O0 -Wall -o "$OUT/gen_stacks" "$SRCDIR/bench/gen_stacks.c" -ljemalloc
H1="$OUT/huge262k.heap" H2="$OUT/huge262k-2.heap" S="$OUT/huge32k.heap"
for d in "$H1" "$H2"; do
	[ -s "$d" ] || MALLOC_CONF=prof:true,lg_prof_sample:0 "$OUT/gen_stacks" 262144 "$d" 11
done
[ -s "$S" ] || MALLOC_CONF=prof:true,lg_prof_sample:0 "$OUT/gen_stacks" 32768 "$S"
for d in "$H1" "$S"; do
	echo "huge: $d: $(grep -c '^@' "$d") stacks, $(stat -c %s "$d") bytes"
done

# Same bytes from both builds (pprof: read back, its bytes hold a time stamp).
check() {
	_t=$1
	shift
	"$OLD/$_t" "$@" >"$OUT/huge.old" 2>&1
	"$NEWD/$_t" "$@" >"$OUT/huge.new" 2>&1
	cmp -s "$OUT/huge.old" "$OUT/huge.new" || { echo "huge: $_t $* differs" >&2; exit 1; }
}
check ying top "$H1"
check ying top --stacks "$H1"
check ying top --lines "$H1"
check ying top --json "$H1"
check ying folded "$H1"
check ying top "$S"
check yingdiff "$H1" "$H2"
"$OLD/ying" pprof "$H1" -o "$OUT/huge.old.pb.gz"
"$NEWD/ying" pprof "$H1" -o "$OUT/huge.new.pb.gz"
check ying top --json "$OUT/huge.old.pb.gz"
"$NEWD/ying" top --json "$OUT/huge.new.pb.gz" >"$OUT/huge.new2"
cmp -s "$OUT/huge.new" "$OUT/huge.new2" || { echo "huge: pprof outputs differ" >&2; exit 1; }
echo "huge: outputs identical"

# lib.sh's measure, with the CPU seconds (user, sys) as third and fourth columns
MEASURE_FMT='%e %M %U %S'
cpu() {
	python3 - "$OUT/$BENCH.times" "$1" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.split()[0] == sys.argv[2]]
print("%.2f" % statistics.median(float(r[3]) + float(r[4]) for r in rows))
PY
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
: >"$OUT/$BENCH.times"
i=0
while [ "$i" -lt "$RUNS" ]; do
	for b in old new; do
		if [ $b = old ]; then D=$OLD; else D=$NEWD; fi
		measure "top262k-$b" "$D/ying" top "$H1"
		measure "top32k-$b" "$D/ying" top "$S"
		measure "stacks262k-$b" "$D/ying" top --stacks "$H1"
		measure "pprof262k-$b" "$D/ying" pprof "$H1" -o "$OUT/huge.$b.pb.gz"
		measure "diff262k-$b" "$D/yingdiff" "$H1" "$H2"
	done
	i=$((i + 1))
	echo "huge: run $i/$RUNS done (load $(cut -d' ' -f1 /proc/loadavg))"
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)

{
	echo "Machine: $(machine). Load average before / after: $load0 / $load1."
	echo "Command: \`OLD=$OLD YING=$YING RUNS=$RUNS sh bench/huge.sh\` (alternating old, new)."
	echo
	echo "| command | dump | old median (min-max) | new median (min-max) | ratio | old CPU | new CPU | CPU ratio | old RSS | new RSS | new RSS / dump |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	for row in "top262k ying top|$H1" "top32k ying top|$S" "stacks262k ying top --stacks|$H1" \
	    "pprof262k ying pprof|$H1" "diff262k yingdiff A B|$H1"; do
		key=${row%% *}
		rest=${row#* }
		cmdname=${rest%%|*}
		dump=${rest#*|}
		set -- $(stats "$key-old")
		om=$1 omin=$2 omax=$3 orss=$4
		set -- $(stats "$key-new")
		nm=$1 nmin=$2 nmax=$3 nrss=$4
		size=$(stat -c %s "$dump")
		oc=$(cpu "$key-old")
		nc=$(cpu "$key-new")
		python3 -c "
import sys
om, nm, orss, nrss, size, oc, nc = $om, $nm, $orss * 1024, $nrss * 1024, $size, $oc, $nc
print('| %s | %s (%.1f MB) | %.2f s (%s-%s) | %.2f s (%s-%s) | %.2fx | %.2f s | %.2f s | %.2fx | %.1f MB | %.1f MB | %.2f |' % (
    '$cmdname', '$(basename "$dump")', size / 1e6, om, '$omin', '$omax', nm, '$nmin', '$nmax',
    om / max(nm, 0.005), oc, nc, oc / max(nc, 0.005), orss / 1e6, nrss / 1e6, nrss / size))"
	done
} >"$OUT/huge.md"
cat "$OUT/huge.md"
