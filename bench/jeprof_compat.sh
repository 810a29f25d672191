#!/bin/sh
# jeprof_compat.sh: ying-jeprof vs jeprof, the same command lines on the
# same dumps: `--text --show_bytes` and `--collapsed` on a gen_stacks dump
# (bench/gen_stacks.c at lg_prof_sample:0, the corpus of bench/stacks.sh;
# N distinct stacks) and on a real C program's dump (flame_prog, few
# stacks: the fixed cost of a call).  Runs alternate ying-jeprof / jeprof
# RUNS times; reports median wall time, peak RSS and the ratio, and checks
# first that both print the same Total and the same collapsed sum.
#
#   SRCDIR=. OUT=bench/out YING_JEPROF=build/ying-jeprof \
#       FLAME_PROG=build/tests/programs/flame_prog sh bench/jeprof_compat.sh
#
# Environment: N (stacks, default 20000: jeprof needs ~17 s for 200,000),
# RUNS (default 5).  Writes $OUT/jeprof_compat.md.
set -eu
BENCH=jeprof_compat
: "${YING_JEPROF:?path of ying-jeprof}" "${FLAME_PROG:?path of tests/programs/flame_prog}"
mkdir -p "$OUT"
. "$SRCDIR/bench/lib.sh"
RUNS=${RUNS:-5}
N=${N:-20000}
export JEPROF_TMPDIR="$OUT/jeprof-tmp"

cc -g -O0 -Wall -o "$OUT/gen_stacks" "$SRCDIR/bench/gen_stacks.c" -ljemalloc
DS="$OUT/stacks$N.heap"
rm -f "$DS"
MALLOC_CONF=prof:true,lg_prof_sample:0 "$OUT/gen_stacks" "$N" "$DS"
DC="$OUT/flame_prog.heap"
rm -f "$DC"
MALLOC_CONF=prof:true,lg_prof_sample:0 "$FLAME_PROG" "$DC" >/dev/null

# the same answers first (and a warm page cache)
for d in "$OUT/gen_stacks:$DS" "$FLAME_PROG:$DC"; do
	p=${d%%:*} f=${d#*:}
	yt=$("$YING_JEPROF" --text --show_bytes "$p" "$f" | sed -n 's/^Total: \([0-9]*\) B/\1/p')
	jt=$(jeprof --text --show_bytes "$p" "$f" 2>/dev/null | sed -n 's/^Total: \([0-9]*\) B/\1/p')
	ys=$("$YING_JEPROF" --collapsed "$p" "$f" | awk '{ s += $NF } END { print s }')
	js=$(jeprof --collapsed "$p" "$f" 2>/dev/null | awk '{ s += $NF } END { print s }')
	echo "jeprof_compat: $(basename "$f"): Total ying $yt jeprof $jt; collapsed sum ying $ys jeprof $js"
	[ "$yt" = "$jt" ] && [ "$ys" = "$js" ] || { echo "jeprof_compat: answers differ" >&2; exit 1; }
done

: >"$OUT/$BENCH.times"
i=0
while [ "$i" -lt "$RUNS" ]; do
	for d in "s:$OUT/gen_stacks:$DS" "c:$FLAME_PROG:$DC"; do
		k=${d%%:*} r=${d#*:}
		p=${r%%:*} f=${r#*:}
		measure "y_text_$k" "$YING_JEPROF" --text --show_bytes "$p" "$f"
		measure "j_text_$k" jeprof --text --show_bytes "$p" "$f"
		measure "y_coll_$k" "$YING_JEPROF" --collapsed "$p" "$f"
		measure "j_coll_$k" jeprof --collapsed "$p" "$f"
	done
	i=$((i + 1))
	echo "jeprof_compat: run $i/$RUNS"
done

row() {  # row LABEL KEY: a table row, ying vs jeprof
	set -- "$1" $(stats "y_$2") $(stats "j_$2")
	python3 -c '
import sys
l, ym, _, _, yr, jm, _, _, jr = sys.argv[1:]
print("| %s | %s s | %.1f MB | %s s | %.1f MB | **%.0f×** |" % (l, ym, int(yr) / 1024, jm, int(jr) / 1024, float(jm) / max(float(ym), 0.005)))
' "$@"
}
{
	echo "### ying-jeprof vs jeprof: the same command lines"
	echo
	echo "Machine: $(machine)."
	echo "Command: \`SRCDIR=. OUT=bench/out YING_JEPROF=build/ying-jeprof FLAME_PROG=build/tests/programs/flame_prog sh bench/jeprof_compat.sh\`"
	echo "(N=$N, RUNS=$RUNS alternating runs, output to /dev/null; both print the same Total and collapsed sum first)."
	echo
	echo "| command and dump | ying-jeprof median | peak RSS | jeprof median | peak RSS | jeprof / ying-jeprof |"
	echo "|---|---|---|---|---|---|"
	row "--text --show_bytes, $N stacks" text_s
	row "--collapsed, $N stacks" coll_s
	row "--text --show_bytes, flame_prog ($(grep -c "^@" "$DC") stacks)" text_c
	row "--collapsed, flame_prog" coll_c
} >"$OUT/jeprof_compat.md"
cat "$OUT/jeprof_compat.md"
