#!/bin/sh
# run_redis.sh: a real service under `ying run --http`.
#
# redis-server links jemalloc itself (ying run must not preload another);
# the agent serves HTTP on a port picked by the kernel (127.0.0.1:0) and
# announces it.  While redis-benchmark -n 20000 runs, /debug/heap answers
# with a heap_v2 dump and /debug/heap?format=text names redis functions; a
# token is required when --token is given.  SIGTERM to ying run reaches
# redis, which shuts down cleanly: exit 0.  Everything is bounded in time.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need redis-server redis-benchmark redis-cli curl

redis_under_ying_http
grep -q '(redis-server): heap profiling on' "$T/err"
ok $? "the agent runs inside redis-server" || diag "$T/err"

timeout 120 redis-benchmark -q -p "$port" -n 20000 -t set,get,lpush >"$T/bench" 2>&1 &
b=$!
bg_pids="$bg_pids $b"
sleep 0.3
curl -s -m 30 -o "$T/noauth" -w '%{http_code}' "http://127.0.0.1:$hp/debug/heap" >"$T/code"
is "$(cat "$T/code")" 401 "without the token: 401"
curl -s -m 30 -H 'Authorization: Bearer s3cret' -o "$T/heap" -w '%{http_code}' \
    "http://127.0.0.1:$hp/debug/heap" >"$T/code"
is "$(cat "$T/code")" 200 "/debug/heap during redis-benchmark: 200"
head -n 1 "$T/heap" | grep -q '^heap_v2/'
ok $? "... a heap_v2 dump" || diag "$T/heap"
curl -s -m 60 -H 'Authorization: Bearer s3cret' "http://127.0.0.1:$hp/debug/heap?format=text" \
    >"$T/text"
# (zmalloc and friends are trimmed like malloc: their callers are named)
grep -Eq 'sdsnewlen|sdsMakeRoomFor|createStringObject|createObject|createClient|dictAddRaw|dictExpand|aeCreateEventLoop|initServer|readQueryFromClient|aeMain' "$T/text"
ok $? "/debug/heap?format=text names redis functions" || diag "$T/text"
grep -Ev '^ +0 B ' "$T/text" | grep -Eq ' z(try)?(malloc|calloc|realloc)[a-z_]*$'
[ $? -ne 0 ]
ok $? "... and no zmalloc wrapper allocates directly (flat): the callers do" || diag "$T/text"
wait "$b"
is "$?" 0 "redis-benchmark -n 20000 completed"
grep 'requests per second' "$T/bench" | tr '\r' '\n' | grep 'requests per second' | sed 's/^/# /'

kill -TERM "$p"
wait "$p"
is "$?" 0 "SIGTERM to ying run: redis shuts down cleanly, exit 0"
grep -q 'ready to exit' "$T/redis.out"
ok $? "redis logged its shutdown" || diag "$T/redis.out"

plan_done
