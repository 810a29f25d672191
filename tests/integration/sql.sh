#!/bin/bash
# sql.sh: `ying sql` end to end, with the real sqlite3 shell.
#
# tests/programs/sql_life at lg_prof_sample:0 makes two dumps with known
# growth (grow_more +3 x 128 KiB, long_lived +5 x 32 KiB, keep_base 4 x
# 64 KiB in both), its recent-allocation records (churn frees 16 x 4 KiB at
# once) and a giant listing (giant_twice: 40 MiB twice).  The capture's
# clock is moved 20 s later (captured_prof_ns, captured_wall_ns) so that
# what is still live is 20 s old without the test waiting 20 s.  Then:
# every query marked `-- query:` in docs/sql.md runs in sqlite3 and returns
# the expected rows; totals equal `ying top`'s; the same dump twice adds
# no row; garbage input fails naming the file and leaves the database as it
# was; a `ying run` report directory imports in one command, in time order.
set -u
: "${YING_SRCDIR:?}" "${YING_BUILDDIR:?}"
. "$YING_SRCDIR/tests/integration/tap.sh"
need sqlite3 python3 timeout
YING="$YING_BUILDDIR/ying"
PROG="$YING_BUILDDIR/tests/programs/sql_life"
GROW="$YING_BUILDDIR/tests/programs/agent_grow"
DOC="$YING_SRCDIR/docs/sql.md"
T=$(mktemp -d "${TMPDIR:-/tmp}/sql-test.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1

MALLOC_CONF=prof:true,lg_prof_sample:0 timeout 60 "$PROG" base.heap now.heap recent.json giant.json \
    2>err
ok $? "sql_life wrote two dumps, its recent records and its giant listing" || diag err
python3 - recent.json recent20.json <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["captured_prof_ns"] += 20 * 10**9
j["captured_wall_ns"] += 20 * 10**9
json.dump(j, open(sys.argv[2], "w"))
PY

"$YING" sql -o p.db base.heap now.heap --recent recent20.json --giant giant.json >out 2>err
ok $? "ying sql imports two dumps, the records and the listing" || diag err out
grep -q '^p.db: 4 added' out
ok $? "it says what it added" || diag out

# q NAME: the rows of docs/sql.md's query NAME ('|'-separated, no header).
python3 - "$DOC" <<'PY' || echo "Bail out! cannot extract the queries of docs/sql.md"
import re, sys
s = open(sys.argv[1]).read()
qs = re.findall(r"```sql\n-- query: (\S+)\n(.*?)```", s, re.S)
for name, q in qs:
    open("q-" + name + ".sql", "w").write(q)
print("# %d queries in docs/sql.md: %s" % (len(qs), " ".join(n for n, _ in qs)))
PY
q() {
	[ -f "q-$1.sql" ] || { echo "no query $1 in docs/sql.md"; return; }
	sqlite3 -separator '|' p.db <"q-$1.sql" 2>&1
}
for n in top-call-sites long-lived growth giant over-time; do
	[ -f "q-$n.sql" ]
	ok $? "docs/sql.md has the query $n"
done

q top-call-sites >top.rows
# the program's own call sites (the others are libying's and its libraries')
is "$(grep -E '^(grow_more|keep_base|long_lived|churn)\|' top.rows)" "grow_more|393216|3
keep_base|262144|4
long_lived|163840|5" "top call sites: grow_more, keep_base, long_lived with their bytes and objects" ||
    diag top.rows
total_sql=$(sqlite3 p.db "SELECT CAST(SUM(bytes) AS INTEGER) FROM top_functions WHERE dump = 2")
total_dump=$(sqlite3 p.db "SELECT CAST(inuse_bytes AS INTEGER) FROM dumps WHERE id = 2")
total_top=$("$YING" top --json -n 1 now.heap | python3 -c 'import json, sys; print(int(json.load(sys.stdin)["total"]))')
is "$total_sql" "$total_top" "the call sites add up to ying top's total ($total_top)"
is "$total_dump" "$total_top" "dumps.inuse_bytes is ying top's total"
total_base=$("$YING" top --json -n 1 base.heap | python3 -c 'import json, sys; print(int(json.load(sys.stdin)["total"]))')
is "$(sqlite3 p.db "SELECT CAST(inuse_bytes AS INTEGER) FROM dumps WHERE id = 1")" "$total_base" \
    "... and so for the first dump"

q long-lived >long.rows
# The last column is the age in seconds: the capture's clock was moved 20 s
# on, plus however long the program took between allocating and capturing
# (a loaded machine adds a tenth now and then): 20.0 up to 21.
ours=$(grep -E '^(grow_more|keep_base|long_lived|churn)\|' long.rows |
    awk -F'|' '{ print $1 "|" $2 "|" $3 "|" ($4 >= 20 && $4 < 21 ? "20-21" : $4) }')
is "$ours" "grow_more|3|393216|20-21
keep_base|4|262144|20-21
long_lived|5|163840|20-21" "live longer than 10 s: grow_more, keep_base, long_lived (20 s), churn not" ||
    diag long.rows
is "$(sqlite3 p.db "SELECT count(*), sum(usize), max(lifetime_ns) < 1e9 FROM lifetimes WHERE function = 'churn' AND released")" \
    "16|65536|1" "churn's 16 records are freed, each within a second"

is "$(q growth)" "grow_more|0|393216|393216
long_lived|0|163840|163840" "growth between the dumps: grow_more and long_lived, nothing else"

is "$(q giant)" "giant_twice|2|83886080|41943040" "giant allocations by call site: giant_twice, 2 x 40 MiB"

q over-time >time.rows
is "$(cut -d'|' -f1 time.rows | tr '\n' ' ')" "1 1 2 2 " "top functions over time: two rows per dump" ||
    diag time.rows
grep -q '^2|grow_more|393216$' time.rows
ok $? "... grow_more leads the program's own in dump 2" || diag time.rows

# ---- frames -----------------------------------------------------------------
is "$(sqlite3 p.db "SELECT f.function, f.file LIKE '%sql_life.c', f.line > 0, f.module LIKE '%/sql_life'
    FROM frames f JOIN stacks s ON s.id = f.stack WHERE s.function = 'grow_more' AND f.depth <= 1
    ORDER BY f.depth")" "grow_more|1|1|1
main|1|1|1" "frames: grow_more then main, with file, line and module"
is "$(sqlite3 p.db "SELECT count(DISTINCT a.alloc_stack) FROM allocations a JOIN stacks s ON s.id = a.alloc_stack
    JOIN samples x ON x.stack = a.alloc_stack AND x.dump = 2 WHERE s.function = 'grow_more'")" "1" \
    "a recent record and the dump share grow_more's stack row"

# ---- the same inputs again ----------------------------------------------------
rows() { sqlite3 p.db "SELECT (SELECT count(*) FROM dumps), (SELECT count(*) FROM samples),
    (SELECT count(*) FROM stacks), (SELECT count(*) FROM frames),
    (SELECT count(*) FROM allocations), (SELECT count(*) FROM giant), (SELECT count(*) FROM captures)"; }
before=$(rows)
cp now.heap copy.heap
"$YING" sql -o p.db copy.heap base.heap --recent recent20.json --giant giant.json >out 2>err
ok $? "importing everything again exits 0" || diag err
is "$(grep -c 'already in the database' err)" 4 "... saying, for each of the four, that it is there" || diag err
grep -q '^copy.heap: already in the database as dump 2, skipped$' err
ok $? "... a copy of a dump is the same dump" || diag err
is "$(rows)" "$before" "no duplicate rows"

# ---- a URL ----------------------------------------------------------------------
mkdir www && cp now.heap www/
serve_dir www
trap 'kill "$wpid" 2>/dev/null; rm -rf "$T"' EXIT
"$YING" sql -o u.db "http://127.0.0.1:$wport/now.heap" >out 2>err
ok $? "a dump served over HTTP imports" || diag err www.err
is "$(sqlite3 u.db "SELECT path, CAST(inuse_bytes AS INTEGER) FROM dumps")" \
    "http://127.0.0.1:$wport/now.heap|$total_top" "... with its URL as path and ying top's total"
"$YING" sql -o p.db "http://127.0.0.1:$wport/now.heap" >out 2>err
grep -q "now.heap: already in the database as dump 2, skipped" err
ok $? "... and is the same dump as the file" || diag err
kill "$wpid" 2>/dev/null

# ---- errors -------------------------------------------------------------------
printf 'heap_v2/524288\n  t*: 1: 2 [0: 0]\n@ 0xzz\n' >garbage.heap
"$YING" sql -o p.db garbage.heap >out 2>err
is "$?" 1 "a garbage dump exits 1"
grep -q 'garbage.heap' err
ok $? "... naming the file" || diag err
is "$(rows)" "$before" "... and adds nothing"
printf '{"ying_recent":1,"pid":' >trunc.json
"$YING" sql -o p.db --recent trunc.json >out 2>err
is "$?" 1 "a truncated capture exits 1"
grep -q 'trunc.json' err
ok $? "... naming the file" || diag err
echo "not a database" >not.db
"$YING" sql -o not.db base.heap >out 2>err
is "$?" 1 "a file that is not a ying database is refused"
grep -q 'not.db' err
ok $? "... naming it" || diag err
is "$(cat not.db)" "not a database" "... and left alone"
"$YING" sql base.heap >out 2>err
is "$?" 2 "no -o is a usage error"

# ---- a report directory of ying run ---------------------------------------------
AGENT_GROW_WAIT=1 timeout 60 "$YING" run --interval 1 --report-dir "$T/reports" --sample 14 -- \
    "$GROW" 3 30 700 1200 >run.out 2>run.err
ok $? "ying run wrote a report directory" || diag run.err
nheap=$(ls "$T/reports" | grep -c '\.heap$')
[ "$nheap" -ge 2 ]
ok $? "... with $nheap dumps" || diag run.err
# a giant listing beside the second report, as the runner names it
second=$(ls "$T/reports" | grep '\.heap$' | sort | sed -n 2p)
cp giant.json "$T/reports/${second%.heap}.giant.json"
cp recent20.json "$T/reports/${second%.heap}.recent.json"
"$YING" sql -o r.db "$T/reports" >out 2>err
ok $? "ying sql imports the directory in one command" || diag err
is "$(sqlite3 r.db "SELECT count(*) FROM dumps")" "$nheap" "every dump of the directory is there"
is "$(sqlite3 r.db "SELECT count(*) FROM dumps d JOIN dumps e ON e.id = d.id + 1
    WHERE e.time < d.time OR e.inuse_bytes <= d.inuse_bytes")" 0 "in time order: ids follow time and the heap grows"
is "$(sqlite3 r.db "SELECT count(*) FROM dump_pairs")" "$((nheap - 1))" "dump_pairs: consecutive dumps"
is "$(sqlite3 r.db "SELECT d.path LIKE '%/$second', count(*), sum(g.size) FROM giant g JOIN dumps d ON d.id = g.dump")" \
    "1|2|83886080" "the report's BASE.giant.json is imported with its dump"
is "$(sqlite3 r.db "SELECT count(*) FROM captures WHERE kind = 'capture' AND path LIKE '%/${second%.heap}.recent.json'")" \
    1 "... and its BASE.recent.json"
g=$(sqlite3 r.db "SELECT function FROM function_growth WHERE before = 1 AND after = 2 ORDER BY bytes_delta DESC LIMIT 1")
is "$g" "agent_grow_block" "function_growth names the growing function of agent_grow" ||
    sqlite3 r.db "SELECT * FROM function_growth ORDER BY bytes_delta DESC LIMIT 3" | sed 's/^/# /'

for opt in recent giant; do
    args=()
    for i in $(seq 65); do args+=("--$opt" "$T/none.json"); done
    "$YING" sql -o "$T/many.db" "${args[@]}" >out 2>err
    rc=$?
    is "$rc $(head -n 1 err)" "2 ying sql: more than 64 --$opt files" "65 --$opt files: usage error naming the option" ||
        diag err
done

plan_done
