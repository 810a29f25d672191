#!/bin/sh
# speed.sh: the side-by-side table of issue 16 ("Speed and footprint near the
# floor"): `jeprof --text` and one or more ying builds on the same corpus of
# dumps, alternating in one invocation, medians.
#
#   [RUNS=5] [JRUNS=3] [YINGS="label=path ..."] [DUMPS="..."] sh bench/speed.sh
#
# The corpus is built under $OUT/speed/ (bench/out, git-ignored) and reused
# while it is newer than its inputs (sources, generators, compilers):
#   small_c    tests/programs/top_basic.c + top_dump.c, compiled like the test
#              suite (mk/infra.mk), at MALLOC_CONF=prof:true,lg_prof_sample:0
#   small_cxx  tests/programs/top_cxx.cc (operator new), same
#   synth32k   bench/gen_stacks.c 32768
#   synth262k  bench/gen_stacks.c 262144 $GEN_EXTRA (default 11: twelve more
#              frames per stack, the issue's ~117 MB dump) when gen_stacks
#              takes that third argument (a probe run tells), else 262144
#              alone (~69 MB; the report says which)
#   clang      the system clang++ -std=c++17 -O2 -c on bench/gen_big_cpp.sh
#              ${NSTRUCTS:-150} (~200 stacks; the compile takes minutes, once),
#              with LD_PRELOAD=the system libjemalloc.so.2 and
#              MALLOC_CONF=prof:true,prof_final:true (default sampling); jeprof
#              is given the real clang binary named in the dump's mappings
# For each dump it first checks that every ying prints the same total as
# `jeprof --text --show_bytes` (bytes) and compares the yings' `top` outputs
# (cold, warm, between builds: byte-identical or a warning in the report),
# then alternates rounds: jeprof (JRUNS rounds), then for every ying in YINGS
# a COLD run (YING_CACHE_DIR and XDG_CACHE_HOME set to fresh empty mktemp
# directories: the persistent symbol cache, if the build has one, starts
# empty) and a WARM run (the same directories, filled by the cold run); a
# build without a cache ignores both variables.  Every run is
# `CMD >/dev/null` started by lib.sh's measure_fine: python3's posix_spawn
# and wait4(2), wall time by time.perf_counter() around them (0.1 ms
# resolution; /usr/bin/time's %e has 10 ms, and starting GNU time itself cost
# 10-15 ms on the loaded 2-core VM), peak RSS wait4's ru_maxrss (GNU time's
# %M).  `true` measured the same way gives the floor.
# YINGS default: "before=/work/before16/build/ying now=<tree>/build/ying";
# relative paths are taken from the current directory.  DUMPS selects rows
# (default: all five).  Writes $OUT/speed.md (the table, the load average at
# start and end, the exact commands).  Never part of `make check`; nothing is
# written outside $OUT and a private mktemp directory.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRCDIR=${SRCDIR:-$ROOT}
OUT=${OUT:-$SRCDIR/bench/out}
BENCH=speed
. "$SRCDIR/bench/lib.sh"
RUNS=${RUNS:-5}
JRUNS=${JRUNS:-3}
YINGS=${YINGS:-"before=/work/before16/build/ying now=$SRCDIR/build/ying"}
DUMPS=${DUMPS:-"small_c small_cxx synth32k synth262k clang"}
NSTRUCTS=${NSTRUCTS:-150}
JE=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
C="$OUT/speed"

for _t in jeprof cc c++ clang++ python3 pkg-config /usr/bin/time; do
	command -v "$_t" >/dev/null || { echo "speed: $_t is missing (scripts/deps.sh --bench)" >&2; exit 1; }
done
[ -r "$JE" ] || { echo "speed: $JE is missing (apt-get install libjemalloc2)" >&2; exit 1; }
labels=""
set -f
for _y in $YINGS; do
	_l=${_y%%=*} _p=${_y#*=}
	case "$_y" in *=*) ;; *) echo "speed: YINGS entry '$_y' is not label=path" >&2; exit 2 ;; esac
	case "$_l" in ''|*[!A-Za-z0-9_.-]*) echo "speed: bad label '$_l' in YINGS" >&2; exit 2 ;; esac
	case "$_p" in /*) ;; *) _p="$(pwd)/$_p" ;; esac
	[ -x "$_p" ] || { echo "speed: $_p ($_l) is not an executable ying" >&2; exit 1; }
	labels="$labels $_l"
	eval "ying_$(echo "$_l" | tr .- __)=\$_p"
done
set +f
[ -n "$labels" ] || { echo "speed: YINGS is empty" >&2; exit 2; }
ypath() { eval "echo \"\$ying_$(echo "$1" | tr .- __)\""; }

mkdir -p "$C"
W=$(mktemp -d "${TMPDIR:-/tmp}/ying-speed.XXXXXX")
trap 'rm -rf "$W"' EXIT
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
: >"$OUT/$BENCH.times"
: >"$OUT/$BENCH.meta"
: >"$OUT/$BENCH.cmds"
: >"$OUT/$BENCH.notes"

# stale TARGET INPUT...: true when TARGET is missing or older than an input.
stale() {
	_t=$1
	shift
	[ -e "$_t" ] || return 0
	for _i in "$@"; do
		[ -n "$(find "$_i" -newer "$_t")" ] && return 0
	done
	return 1
}
# gen TARGET CONF CMD...: run CMD (which writes $TARGET.tmp) under
# MALLOC_CONF=CONF, then rename, so that a broken run is never reused.
gen() {
	_t=$1 _conf=$2
	shift 2
	rm -f "$_t.tmp"
	echo "speed: generating $_t" >&2
	MALLOC_CONF=$_conf "$@" >"$W/gen.out" 2>&1 || { echo "speed: '$*' failed:" >&2; tail -n 20 "$W/gen.out" >&2; exit 1; }
	mv "$_t.tmp" "$_t"
	echo "MALLOC_CONF=$_conf $*" | sed "s|$_t.tmp|$_t|; s|$ROOT/||g" >"$_t.cmd"
}
note() { echo "$*" >>"$OUT/$BENCH.notes"; echo "speed: $*" >&2; }

JEF=$(pkg-config --cflags jemalloc) JEL=$(pkg-config --libs jemalloc)
corpus() {
	case "$1" in
	small_c)
		prog="$C/top_basic" dump="$C/small_c.heap"
		if stale "$prog" "$SRCDIR/tests/programs/top_basic.c" "$SRCDIR/tests/programs/top_dump.c"; then
			cc -g -O0 -std=gnu11 -Wall -Wextra -Wno-unused-parameter $JEF -o "$prog" \
			    "$SRCDIR/tests/programs/top_basic.c" "$SRCDIR/tests/programs/top_dump.c" $JEL -pthread
		fi
		if stale "$dump" "$prog"; then gen "$dump" prof:true,lg_prof_sample:0 "$prog" "$dump.tmp"; fi
		;;
	small_cxx)
		prog="$C/top_cxx" dump="$C/small_cxx.heap"
		if stale "$prog" "$SRCDIR/tests/programs/top_cxx.cc"; then
			c++ -g -O0 -Wall -Wextra $JEF -o "$prog" "$SRCDIR/tests/programs/top_cxx.cc" $JEL
		fi
		if stale "$dump" "$prog"; then gen "$dump" prof:true,lg_prof_sample:0 "$prog" "$dump.tmp"; fi
		;;
	synth32k|synth262k)
		prog="$C/gen_stacks"
		if stale "$prog" "$SRCDIR/bench/gen_stacks.c"; then
			cc -g -O0 -Wall -o "$prog" "$SRCDIR/bench/gen_stacks.c" $JEL
		fi
		if [ "$1" = synth32k ]; then
			dump="$C/synth32k.heap"
			if stale "$dump" "$prog"; then gen "$dump" prof:true,lg_prof_sample:0 "$prog" 32768 "$dump.tmp"; fi
		else
			# Does this gen_stacks take EXTRA (frames added to every stack)?
			_extra=""
			if MALLOC_CONF=prof:true "$prog" 1 "$W/probe.heap" 0 >/dev/null 2>&1; then
				_extra=${GEN_EXTRA:-11}
			else
				note "bench/gen_stacks.c takes no EXTRA argument: synth262k has the default depth"
			fi
			dump="$C/synth262k_e$_extra.heap"
			# shellcheck disable=SC2086
			if stale "$dump" "$prog"; then gen "$dump" prof:true,lg_prof_sample:0 "$prog" 262144 "$dump.tmp" $_extra; fi
		fi
		;;
	clang)
		_cxx=$(command -v clang++)
		prog=$(readlink -f "$_cxx")
		dump="$C/clang_n$NSTRUCTS.heap"
		if stale "$dump" "$prog" "$SRCDIR/bench/gen_big_cpp.sh"; then
			sh "$SRCDIR/bench/gen_big_cpp.sh" "$NSTRUCTS" >"$C/big.cpp"
			rm -rf "$W/clang-prof"
			mkdir -p "$W/clang-prof"
			echo "speed: generating $dump (clang++ -O2, a minute or so)" >&2
			LD_PRELOAD=$JE MALLOC_CONF="prof:true,prof_final:true,prof_prefix:$W/clang-prof/clang" \
			    "$_cxx" -std=c++17 -O2 -c "$C/big.cpp" -o "$W/big.o"
			# The largest final dump is the compiler's (the driver may leave its own).
			mv "$(ls -S "$W"/clang-prof/*.f.heap | head -n 1)" "$dump"
			echo "sh bench/gen_big_cpp.sh $NSTRUCTS >big.cpp; LD_PRELOAD=$JE MALLOC_CONF=prof:true,prof_final:true,prof_prefix:DIR/clang clang++ -std=c++17 -O2 -c big.cpp (the largest DIR/clang.*.f.heap)" >"$dump.cmd"
		fi
		grep -q " $prog\$" "$dump" || { echo "speed: $prog is not in $dump's mappings" >&2; exit 1; }
		;;
	*) echo "speed: unknown dump '$1' in DUMPS" >&2; exit 2 ;;
	esac
}

# total_of: the "total" of `ying top --json` on stdin, as an integer.
total_of() {
	python3 -c 'import json, sys; print(int(json.load(sys.stdin)["total"]))'
}

# The floor: `true` through the same timer.
i=0
while [ "$i" -lt "$RUNS" ]; do
	measure_fine "floor:true" true
	i=$((i + 1))
done

for name in $DUMPS; do
	corpus "$name"
	nstacks=$(grep -c '^@' "$dump")
	size=$(stat -c %s "$dump")
	load=$(cut -d' ' -f1 /proc/loadavg)
	echo "speed: $name: $dump: $nstacks stacks, $size bytes, load $load" >&2
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$nstacks" "$size" "$load" "$prog" "$(cat "$dump.cmd")" >>"$OUT/$BENCH.meta"

	# Same total as jeprof first (and a warm page cache); same outputs.
	jt=$(JEPROF_TMPDIR="$W" jeprof --text --show_bytes "$prog" "$dump" 2>/dev/null | sed -n 's/^Total: \([0-9-]*\) B.*/\1/p' | head -n 1)
	[ -n "$jt" ] || { echo "speed: jeprof printed no total on $dump" >&2; exit 1; }
	first=""
	for l in $labels; do
		y=$(ypath "$l")
		mkdir -p "$W/chk-$l/c" "$W/chk-$l/x"
		yenv="YING_CACHE_DIR=$W/chk-$l/c XDG_CACHE_HOME=$W/chk-$l/x"
		yt=$(env $yenv "$y" top --json -n 1 "$dump" | total_of)
		[ "$yt" = "$jt" ] || { echo "speed: $name: $l prints total $yt, jeprof $jt" >&2; exit 1; }
		rm -rf "$W/chk-$l"
		mkdir -p "$W/chk-$l/c" "$W/chk-$l/x"
		env $yenv "$y" top "$dump" >"$W/$l.cold.txt"
		env $yenv "$y" top "$dump" >"$W/$l.warm.txt"
		rm -rf "$W/chk-$l"
		cmp -s "$W/$l.cold.txt" "$W/$l.warm.txt" || note "$name: $l: the warm run's output differs from the cold run's"
		if [ -z "$first" ]; then
			first=$l
		elif ! cmp -s "$W/$first.cold.txt" "$W/$l.cold.txt"; then
			note "$name: $l's output differs from $first's ($(diff "$W/$first.cold.txt" "$W/$l.cold.txt" | grep -c '^[<>]') lines)"
		fi
	done
	echo "speed: $name: total $jt B (jeprof and every ying)" >&2

	echo "$name	jeprof --text --show_bytes $prog DUMP" >>"$OUT/$BENCH.cmds"
	for l in $labels; do
		echo "$name	YING_CACHE_DIR=NEW XDG_CACHE_HOME=NEW2 $(ypath "$l") top DUMP (cold), then the same (warm)" >>"$OUT/$BENCH.cmds"
	done
	n=$RUNS
	[ "$JRUNS" -gt "$n" ] && n=$JRUNS
	i=0
	while [ "$i" -lt "$n" ]; do
		if [ "$i" -lt "$JRUNS" ]; then
			measure_fine "$name:jeprof" JEPROF_TMPDIR="$W" jeprof --text --show_bytes "$prog" "$dump"
		fi
		if [ "$i" -lt "$RUNS" ]; then
			for l in $labels; do
				cdir=$(mktemp -d "$W/cache.XXXXXX")
				xdir=$(mktemp -d "$W/xdg.XXXXXX")
				measure_fine "$name:$l-cold" YING_CACHE_DIR="$cdir" XDG_CACHE_HOME="$xdir" "$(ypath "$l")" top "$dump"
				measure_fine "$name:$l-warm" YING_CACHE_DIR="$cdir" XDG_CACHE_HOME="$xdir" "$(ypath "$l")" top "$dump"
				rm -rf "$cdir" "$xdir"
			done
		fi
		i=$((i + 1))
		echo "speed: $name: round $i/$n" >&2
	done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$OUT" "$labels" "$RUNS" "$JRUNS" "$YINGS" "$(machine)" "$load_start" "$load_end" "$ROOT" <<'PY'
import statistics, sys
out, labels, runs, jruns, yings, machine, l0, l1, root = sys.argv[1:]
labels = labels.split()
times = {}
for line in open(out + "/speed.times"):
    k, w, r = line.split()
    times.setdefault(k, []).append((float(w), int(r)))
meta = [l.rstrip("\n").split("\t") for l in open(out + "/speed.meta")]
cmds = [l.rstrip("\n").split("\t") for l in open(out + "/speed.cmds")]
notes = [l.strip() for l in open(out + "/speed.notes") if l.strip()]
def st(k):
    v = times[k]
    w = [x[0] for x in v]
    return statistics.median(w), min(w), max(w), statistics.median([x[1] for x in v]) * 1024
def secs(t):
    return "%.1f ms" % (t * 1e3) if t < 1 else "%.2f s" % t
def mb(b):
    return "%.1f MB" % (b / 1e6)
floor = st("floor:true")
o = []
o.append("### ying top vs jeprof --text, side by side (bench/speed.sh)\n")
o.append("Machine: %s. Load average (1, 5, 15 min): %s at start, %s at end.  " % (machine, l0, l1))
o.append("Command: `RUNS=%s JRUNS=%s YINGS=\"%s\" sh bench/speed.sh` (rounds alternate: jeprof, then "
         "each ying cold and warm; output to /dev/null; wall time by python3 perf_counter around "
         "posix_spawn and wait4, whose floor (`true`) is %s; peak RSS is wait4's ru_maxrss, "
         "GNU time's %%M).\n"
         % (runs, jruns, yings.replace(root + "/", ""), secs(floor[0])))
o.append("| dump | stacks | size | jeprof --text | " + " | ".join(
    "%s cold | %s warm | jeprof / %s (cold, warm) | %s RSS cold, warm (/ dump)" % (l, l, l, l) for l in labels) + " |")
o.append("|---" * (4 + 4 * len(labels)) + "|")
for name, ns, size, load, prog, gen in meta:
    size = int(size)
    j = st(name + ":jeprof")
    row = ["%s (load %s)" % (name, load), ns, mb(size), secs(j[0])]
    for l in labels:
        c, w = st("%s:%s-cold" % (name, l)), st("%s:%s-warm" % (name, l))
        row += [secs(c[0]), secs(w[0]), "%.0f×, %.0f×" % (j[0] / c[0], j[0] / w[0]),
                "%s, %s%s" % (mb(c[3]), mb(w[3]), " (%.2f, %.2f)" % (c[3] / size, w[3] / size) if size >= 1e6 else "")]
    o.append("| " + " | ".join(row) + " |")
o.append("\nEvery run (median, min–max, peak RSS, RSS / dump size):\n")
o.append("| dump | tool | runs | median | min | max | jeprof / tool | peak RSS | RSS / dump |")
o.append("|---|---|---|---|---|---|---|---|---|")
for name, ns, size, load, prog, gen in meta:
    size = int(size)
    j = st(name + ":jeprof")
    for tool in ["jeprof"] + ["%s-%s" % (l, m) for l in labels for m in ("cold", "warm")]:
        s = st(name + ":" + tool)
        o.append("| %s | %s | %d | %s | %s | %s | %.1f× | %s | %.2f |" % (
            name, tool, len(times[name + ":" + tool]), secs(s[0]), secs(s[1]), secs(s[2]),
            j[0] / s[0], mb(s[3]), s[3] / size))
o.append("\nCorpus (under bench/out/speed/, reused while newer than its inputs):\n")
for name, ns, size, load, prog, gen in meta:
    o.append("- %s: %s stacks, %d bytes: `%s`; jeprof's program: `%s`" % (name, ns, int(size), gen, prog.replace(root + "/", "")))
o.append("\nTimed commands (DUMP is the dump above; NEW, NEW2: fresh mktemp directories per cold run, reused by the warm run):\n")
for name, c in cmds:
    o.append("- %s: `%s`" % (name, c.replace(root + "/", "")))
o.append("\nEvery ying printed jeprof's Total (bytes) on every dump.")
if not [n for n in notes if "differs" in n]:
    o.append("The `ying top` outputs of all builds, cold and warm, were byte-identical.")
if notes:
    o.append("\nNotes:\n")
    o += ["- " + n for n in notes]
open(out + "/speed.md", "w").write("\n".join(o) + "\n")
PY
cat "$OUT/speed.md"
