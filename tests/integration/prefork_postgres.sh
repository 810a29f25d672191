#!/bin/sh
# prefork_postgres.sh: Debian's PostgreSQL 15 as a server (a postmaster
# that forks a backend per connection, as nobody when the test runs as
# root) under `ying run --http 127.0.0.1:0 --report-dir D --interval 1
# --floor 0` (issue 25, items 1 and 2).  A psql session over 127.0.0.1 runs
# 20,000 PREPAREs (as run_postgres.sh does in single-user mode) and stays
# open; its backend holds the plan cache, the postmaster almost nothing.
#   - /debug/processes lists the postmaster and the backend (found by
#     pg_backend_pid()), the backend as postmaster's child;
#   - /debug/heap?pid=BACKEND and `ying top 'URL?pid=BACKEND'`: the top row
#     is the plan cache's function (CompleteCachedPlan or CreateCachedPlan);
#   - the postmaster's own heap (no pid=) is small beside it;
#   - D holds the backend's report subdirectory.
. "$YING_SRCDIR/tests/integration/servers_lib.sh"
. "$YING_SRCDIR/tests/integration/fork_lib.sh"
PGBIN=/usr/lib/postgresql/15/bin
need "$PGBIN/postgres" "$PGBIN/initdb" psql
# a home of the test's own (ying run reads ~/.config/ying/frames; as
# nobody, root's would be unreadable)
tool_homes "$T"
XDG_CONFIG_HOME=$T/home/.config
export XDG_CONFIG_HOME

as_user "$PGBIN/initdb" -D "$T/data" -A trust -U ying --no-sync >"$T/initdb.log" 2>&1
ok $? "initdb into a temporary directory" || diag "$T/initdb.log"
port=$(free_port)
as_user "$YING" run --sample 19 --http 127.0.0.1:0 --report-dir "$T/D" --interval 1 --floor 0 -- \
    "$PGBIN/postgres" -D "$T/data" -p "$port" -c listen_addresses=127.0.0.1 \
    -c unix_socket_directories= -c fsync=off >"$T/out" 2>"$T/err" &
p=$!
bg_pids="$bg_pids $p"
wait_for 30 grep -q 'HTTP on http://127.0.0.1:[0-9]*/' "$T/err"
ok $? "the agent announces its HTTP endpoint" || { diag "$T/err"; plan_done; }
hp=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/err" | head -n 1)
wait_for 30 sh -c "psql -h 127.0.0.1 -p $port -U ying -At -c 'select 1' postgres | grep -qx 1"
ok $? "the postmaster accepts connections on 127.0.0.1:$port" || { diag "$T/err"; plan_done; }
pm=$(head -n 1 "$T/data/postmaster.pid")

python3 -c '
for i in range(20000):
    print("PREPARE p%d AS SELECT %d + $1::int, relname FROM pg_class WHERE oid = $1::oid;" % (i, i))
print("SELECT 4242 * 1000, pg_backend_pid();")' >"$T/prep.sql"
# psql's stdin stays open until the heaps are read: the backend lives on
mkfifo "$T/in"
(cat "$T/prep.sql"; n=600; while [ ! -f "$T/go" ] && [ $n -gt 0 ]; do sleep 0.1; n=$((n - 1)); done) >"$T/in" &
bg_pids="$bg_pids $!"
psql -h 127.0.0.1 -p "$port" -U ying -At -q postgres <"$T/in" >"$T/psql.out" 2>"$T/psql.err" &
bg_pids="$bg_pids $!"
wait_for 90 grep -q '^4242000|' "$T/psql.out"
ok $? "the 20,000 PREPAREs ran in one session" || { diag "$T/psql.err"; plan_done; }
be=$(sed -n 's/^4242000|\([0-9]*\)$/\1/p' "$T/psql.out")
is "$(sed 's/.*) //' "/proc/$be/stat" 2>/dev/null | cut -d' ' -f2)" "$pm" "its backend ($be) is a child of the postmaster ($pm)"

# the backend has lived more than 3 s: a member
wait_secs 10 sh -c "T='$T' hp=$hp; . '$YING_SRCDIR/tests/integration/fork_lib.sh'; procs_pids | grep -qx '$be'"
procs_pids >"$T/pids"
grep -qx "$pm" "$T/pids" && grep -qx "$be" "$T/pids"
ok $? "/debug/processes lists the postmaster and the backend" || diag "$T/procs.json"
is "$(procs_field "$be" ppid)" "$pm" "... the backend as the postmaster's child"
echo "# backend role: '$(procs_field "$be" role)'; postmaster role: '$(procs_field "$pm" role)'"

curl -s -m 60 -o "$T/heap.be" "http://127.0.0.1:$hp/debug/heap?pid=$be"
head -n 1 "$T/heap.be" 2>/dev/null | grep -q '^heap_v2/'
ok $? "/debug/heap?pid=$be: a heap_v2 dump" || diag "$T/heap.be"
top_first "$T/heap.be"
[ "$first" = CompleteCachedPlan ] || [ "$first" = CreateCachedPlan ]
ok $? "the backend's top row is the plan cache's function (got '$first')"
ying top --json "http://127.0.0.1:$hp/debug/pprof/heap?pid=$be" >"$T/top.json" 2>"$T/top.err"
ok $? "ying top 'URL/debug/pprof/heap?pid=$be' exits 0" || diag "$T/top.err"
tf=$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["rows"]; print(r[0]["function"] if r else "")' "$T/top.json" 2>/dev/null)
[ "$tf" = CompleteCachedPlan ] || [ "$tf" = CreateCachedPlan ]
ok $? "... its top row too (got '$tf')"

curl -s -m 60 -o "$T/heap.pm" "http://127.0.0.1:$hp/debug/heap"
bb=$(ying top --json "$T/heap.be" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
pb=$(ying top --json "$T/heap.pm" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
echo "# backend $bb bytes, postmaster $pb bytes"
[ "${bb:-0}" -gt 50000000 ] && [ "${pb:-0}" -lt "$((${bb:-0} / 10))" ]
ok $? "the backend holds the plan cache (over 50 MB), the postmaster's own heap is small"

wait_secs 10 sh -c "ls '$T/D/'*.$be* 2>/dev/null | grep -q '\\.report\$'"
sub=$(subdir_of "$T/D" "$be")
case "$sub" in
postgres.$be*) ok 0 "D/$sub: the backend's report subdirectory" ;;
*) ok 1 "the backend's report subdirectory (got '$sub')"; ls -la "$T/D" | sed 's/^/# /' ;;
esac
[ -n "$sub" ] && ls "$T/D/$sub" 2>/dev/null | grep -q '\.report$'
ok $? "... with a report set in it"

touch "$T/go"
stop_under_ying postgres
plan_done
