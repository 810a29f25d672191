#!/bin/sh
# run_postgres.sh: Debian's PostgreSQL 15 (no debug symbols) under `ying run`,
# 20,000 PREPAREs in single-user mode (one process, no fork).  Each PREPARE
# copies its parse tree into a new memory context (CreateCachedPlan), then
# the analysed tree (CompleteCachedPlan).  The memory goes through palloc,
# MemoryContextAlloc*, copyObjectImpl, list_copy_deep and the static
# AllocSetAlloc (no symbol: postgres+0x...) or AllocSetContextCreateInternal.
# Those are trimmed, the static frames with the wrapper of their own module
# that calls them, so the functions a PostgreSQL developer would fix lead:
# CompleteCachedPlan and CreateCachedPlan, not postgres+0x5c7792.
. "$YING_SRCDIR/tests/integration/servers_lib.sh"
PGBIN=/usr/lib/postgresql/15/bin
need "$PGBIN/postgres" "$PGBIN/initdb"

as_user "$PGBIN/initdb" -D "$T/data" -A trust -U ying --no-sync >"$T/initdb.log" 2>&1
ok $? "initdb into a temporary directory" || diag "$T/initdb.log"
python3 -c '
for i in range(20000):
    print("PREPARE p%d AS SELECT %d + $1::int, relname FROM pg_class WHERE oid = $1::oid;" % (i, i))
print("SELECT 4242 * 1000 AS all_prepared;")' >"$T/prep.sql"
# stdin stays open until the heap is read: EOF ends the single-user backend.
mkfifo "$T/in"
(cat "$T/prep.sql"; n=600; while [ ! -f "$T/go" ] && [ $n -gt 0 ]; do sleep 0.1; n=$((n - 1)); done) >"$T/in" &
bg_pids="$bg_pids $!"
SERVE_IN=$T/in SERVE_SAMPLE=19 serve_under_ying "$T/out" "$PGBIN/postgres" --single -D "$T/data" -c fsync=off postgres
wait_for 60 grep -q 4242000 "$T/out"
ok $? "the 20,000 PREPAREs ran" || diag "$T/out"
heap_now "$T/heap"
touch "$T/go"
wait "$p"
is "$?" 0 "postgres --single exits 0 at the end of its input"

top_first "$T/heap"
[ "$first" = CompleteCachedPlan ] || [ "$first" = CreateCachedPlan ]
ok $? "the top row is the plan cache's function that copies the trees (got '$first')"
pct=$(awk -F'\t' '$1 == "CompleteCachedPlan" || $1 == "CreateCachedPlan" { s += $3 } END { print int(s) }' "$T/top")
[ "$pct" -ge 80 ]
ok $? "CompleteCachedPlan and CreateCachedPlan hold most of the heap (${pct}%)"
# neither a static allocator frame nor a context or palloc layer leads
awk -F'\t' '$3 >= 5 && $1 ~ /^(postgres\+0x[0-9a-f]*|AllocSet[A-Za-z]*|palloc[a-z0-9_]*|MemoryContextAlloc[A-Za-z]*|copyObjectImpl|list_copy_deep)$/' "$T/top" >"$T/bad"
[ ! -s "$T/bad" ]
ok $? "no postgres+0x..., AllocSet*, palloc, MemoryContextAlloc* or copy function holds 5% or more" || diag "$T/bad"
ying folded --keep-allocator-frames "$T/heap" 2>/dev/null | grep -q ';CompleteCachedPlan;list_copy_deep;.*;MemoryContextAlloc[A-Za-z]*;postgres+0x[0-9a-f]*;'
ok $? "--keep-allocator-frames keeps the layers (CompleteCachedPlan -> ... -> MemoryContextAlloc* -> postgres+0x...)"

plan_done
