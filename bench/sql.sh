#!/bin/sh
# sql.sh: `ying sql` on big dumps: wall time, CPU time, peak RSS and the
# database's size for one dump of 32,768 and one of 262,144 distinct stacks.
#
#   bench/sql.sh [BUILD_DIR]      (default: build)
#   env: RUNS (default 5), OUT (default bench/out)
#
# The dumps come from bench/gen_stacks.c (bench/stacks.sh's program) at
# lg_prof_sample:0, compiled from its preprocessed source with every `case`
# of the fan-out macro (and its default) on its own line: `ying sql` keys stacks by their
# symbolized frames (function, file, line, module), and with the macro's
# eight call sites on one line the stacks would collapse to a few.  Each
# run imports into a new database; medians over RUNS.  Writes $OUT/sql.md.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
YING="$BUILD/ying"
RUNS=${RUNS:-5}
OUT=${OUT:-$ROOT/bench/out}
BENCH=sql
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
. "$ROOT/bench/lib.sh"
command -v sqlite3 >/dev/null || { echo "sql: sqlite3 not found" >&2; exit 1; }

cc -E -P "$ROOT/bench/gen_stacks.c" | sed 's/ case /\ncase /g; s/ default:/\ndefault:/g' >"$OUT/gen_stacks_lines.c"
cc -g -O0 -w -o "$OUT/gen_stacks_lines" "$OUT/gen_stacks_lines.c" -ljemalloc
: >"$OUT/$BENCH.times"
: >"$OUT/$BENCH.rows"
for n in 32768 262144; do
	D="$OUT/sql$n.heap"
	rm -f "$D"
	MALLOC_CONF=prof:true,lg_prof_sample:0 "$OUT/gen_stacks_lines" "$n" "$D"
	nstacks=$(grep -c '^@' "$D")
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		rm -f "$OUT/sql$n.db"
		measure "ying$n" "$YING" sql -q -o "$OUT/sql$n.db" "$D"
		i=$((i + 1))
	done
	set -- $(stats "ying$n")
	dbsize=$(stat -c %s "$OUT/sql$n.db")
	dsize=$(stat -c %s "$D")
	dbstacks=$(sqlite3 "$OUT/sql$n.db" "SELECT count(*) FROM stacks")
	dbframes=$(sqlite3 "$OUT/sql$n.db" "SELECT count(*) FROM frames")
	topt=$( /usr/bin/time -f '%e' "$YING" top "$D" 2>&1 >/dev/null | tail -n 1)
	rm -f "$OUT/sql$n.db"
	cpu=$( /usr/bin/time -f '%U %S' "$YING" sql -q -o "$OUT/sql$n.db" "$D" 2>&1 >/dev/null |
	    tail -n 1 | awk '{ printf "%.2f", $1 + $2 }')
	echo "$n $nstacks $dsize $1 $2 $3 $4 $dbsize $dbstacks $dbframes $topt $cpu" >>"$OUT/$BENCH.rows"
	echo "sql: $n: $(tail -n 1 "$OUT/$BENCH.rows")"
done
python3 - "$OUT/$BENCH.rows" "$OUT/sql.md" "$(machine)" "$RUNS" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])]
with open(sys.argv[2], "w") as f:
    f.write("Machine: %s.  Command: `bench/sql.sh` (RUNS=%s; `ying sql -q -o NEW.db DUMP`,\n"
            "a new database each run; medians).\n\n" % (sys.argv[3], sys.argv[4]))
    f.write("| dump | stacks in the dump | dump size | ying sql median wall | min | max | peak RSS "
            "| database size | stacks / frames rows | ying top (one run) | ying sql CPU (one run) |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
    for n, ns, ds, med, mn, mx, rss, dbs, dbst, dbfr, topt, cpu in rows:
        f.write("| %s | %s | %.1f MB | %s s | %s s | %s s | %.0f MB | %.1f MB | %s / %s | %s s | %s s |\n" % (
            n, ns, int(ds) / 1e6, med, mn, mx, int(rss) / 1024, int(dbs) / 1e6, dbst, dbfr, topt, cpu))
PY
cat "$OUT/sql.md"
