#!/bin/sh
# run_sqlite.sh: Debian's sqlite3 shell and libsqlite3 (no debug symbols:
# only the exported functions have names) under `ying run`, a 40 MB page
# cache filled by 20,000 rows of 1 KB.  The pages are allocated by
# pcache1's static functions through sqlite3Malloc and mem1.c's static
# sqlite3MemMalloc (libsqlite3.so...+0xa74ff with 3.40).  That static frame
# goes with sqlite3Malloc, the wrapper of its own module that calls it, so
# the top row is the page cache's own function: an unnamed frame inside the
# page cache code, which lies between the first and the last exported
# page-cache function (sqlite3Pcache*, sqlite3PCache*, sqlite3PageMalloc,
# sqlite3HeaderSizePcache*: nm -D), not libsqlite3...+0x... under malloc.
. "$YING_SRCDIR/tests/integration/servers_lib.sh"
need sqlite3 nm

lib=$(ldd "$(command -v sqlite3)" 2>/dev/null | sed -n 's/.*libsqlite3[^ ]* => \([^ ]*\) .*/\1/p')
lib=$(readlink -f "$lib" 2>/dev/null)
[ -n "$lib" ] || missing "a sqlite3 shell linked with libsqlite3"
# The page cache's span and sqlite3Malloc's address, from the exports.
nm -D --defined-only -S "$lib" | python3 -c '
import re, sys
lo = hi = 0
for l in sys.stdin:
    f = l.split()
    if len(f) == 4 and re.match(r"(sqlite3Pcache|sqlite3PCache|sqlite3PageMalloc$|sqlite3PageFree$|sqlite3HeaderSizePcache)", f[3]):
        s = int(f[0], 16); e = s + int(f[1], 16)
        lo = s if lo == 0 or s < lo else lo
        hi = max(hi, e)
print(lo, hi)' >"$T/span"
read -r lo hi <"$T/span"
[ "${lo:-0}" -gt 0 ] && [ "$hi" -gt "$lo" ]
ok $? "the page cache's exported functions span [$(printf 0x%x "$lo"), $(printf 0x%x "$hi")) of $(basename "$lib")"

cat >"$T/q.sql" <<'SQL'
PRAGMA cache_size=-40000;
CREATE TABLE t(a INTEGER PRIMARY KEY, b BLOB);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<20000)
  INSERT INTO t SELECT x, randomblob(1000) FROM c;
SELECT 'rows', count(*) FROM t;
SQL
# stdin: the SQL, then open until the heap is read
mkfifo "$T/in"
(cat "$T/q.sql"; n=600; while [ ! -f "$T/go" ] && [ $n -gt 0 ]; do sleep 0.1; n=$((n - 1)); done) >"$T/in" &
bg_pids="$bg_pids $!"
SERVE_IN=$T/in serve_under_ying "$T/out" "$(command -v sqlite3)" -batch "$T/db"
wait_for 60 grep -q '^rows|20000$' "$T/out"
ok $? "20,000 rows of 1 KB inserted" || diag "$T/out"
heap_now "$T/heap"
touch "$T/go"
wait "$p"
is "$?" 0 "sqlite3 exits 0 at the end of its input"

top_first "$T/heap"
off=$(printf '%s\n' "$first" | sed -n 's/^libsqlite3\.so[^+]*+0x\([0-9a-f]*\)$/\1/p')
[ -n "$off" ] && [ "$((0x$off))" -ge "$lo" ] && [ "$((0x$off))" -lt "$hi" ]
ok $? "the top row ($first) lies in the page cache code"
[ "${pct:-0}" -ge 80 ]
ok $? "... with the page cache's 20 MB (${pct}% of the heap)"
ying folded --keep-allocator-frames "$T/heap" 2>/dev/null | grep -q "+0x$off;sqlite3Malloc;libsqlite3[^;]*+0x[0-9a-f]*;"
ok $? "untrimmed, it calls sqlite3Malloc, which calls a static frame of libsqlite3 (mem1.c)"
awk -F'\t' '$3 >= 5 && $1 ~ /^sqlite3(Malloc|MallocZero|Realloc|DbMalloc)/' "$T/top" >"$T/bad"
[ ! -s "$T/bad" ]
ok $? "no sqlite allocation layer holds 5% or more" || diag "$T/bad"

plan_done
