#!/bin/sh
# redis.sh: `ying top` on a real service.  Debian's redis-server links the
# system jemalloc, so it runs here under MALLOC_CONF=prof:true with every
# allocation sampled, listens on 127.0.0.1 on a free port, is filled with
# DEBUG POPULATE and SETs of big values through redis-cli, and writes its
# final dump (prof_final) when it shuts down.  ying must name redis'
# functions (its exported symbols: redis links with -rdynamic), never
# jemalloc internals, and its total must equal jeprof's Total.  The server is
# always killed on exit and every step is bounded in time.
. "$YING_SRCDIR/tests/integration/top_lib.sh"
need redis-server redis-cli

# Debian's redis-server is a symlink to redis-check-rdb (the mode follows
# argv[0]): start it by its name, give jeprof the real file the maps name.
SERVER=$(command -v redis-server)
REAL=$(readlink -f "$SERVER")
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
mkdir -p "$T/redis" "$T/prof"
MALLOC_CONF="prof:true,lg_prof_sample:0,prof_final:true,prof_prefix:$T/prof/jeprof" \
    "$SERVER" --bind 127.0.0.1 --port "$port" --save '' --appendonly no \
    --dir "$T/redis" --enable-debug-command local --daemonize no --logfile "$T/redis.log" &
server_pid=$!
cleanup_hooks='kill -9 $server_pid 2>/dev/null; wait $server_pid 2>/dev/null'

cli() {
	timeout 30 redis-cli -h 127.0.0.1 -p "$port" "$@"
}
up=1
i=0
while [ $i -lt 100 ]; do
	if [ "$(cli ping 2>/dev/null)" = PONG ]; then
		up=0
		break
	fi
	kill -0 "$server_pid" 2>/dev/null || break
	sleep 0.1
	i=$((i + 1))
done
ok $up "redis-server answers on 127.0.0.1:$port under prof:true" || diag "$T/redis.log"

cli debug populate 20000 key 200 >"$T/cli.out" 2>&1
is "$(cat "$T/cli.out")" OK "DEBUG POPULATE 20000 keys of 200 bytes"
big=$(python3 -c 'print("x" * 100000)')
i=0
: >"$T/cli.out"
while [ $i -lt 50 ]; do
	cli set "big:$i" "$big" >>"$T/cli.out" 2>&1
	i=$((i + 1))
done
is "$(grep -c '^OK$' "$T/cli.out")" 50 "50 SETs of 100 kB values"
is "$(cli dbsize)" 20050 "the server holds 20050 keys"

cli shutdown nosave >/dev/null 2>&1
i=0
while kill -0 "$server_pid" 2>/dev/null && [ $i -lt 200 ]; do
	sleep 0.1
	i=$((i + 1))
done
wait "$server_pid" 2>/dev/null
D=$(ls "$T"/prof/jeprof.*.f.heap 2>/dev/null | head -n 1)
[ -n "$D" ] && [ -s "$D" ]
ok $? "redis wrote its final dump on shutdown" || { ls -l "$T/prof"; diag "$T/redis.log"; }

ying top --json "$D" >"$T/redis.json" 2>"$T/err"
ok $? "ying top --json on the redis dump exits 0" || diag "$T/err"
ying top -n 15 "$D" >"$T/redis.txt" 2>&1
sed -n '1,16p' "$T/redis.txt" | sed 's/^/# /'
is "$(jq_py "$T/redis.json" 'any(r["function"] in ("createStringObject", "createRawStringObject", "createEmbeddedStringObject", "sdsnewlen", "_sdsnewlen", "dictAddRaw", "dictExpand", "_dictExpand", "dictCreate") for r in rows[:5])')" 1 \
    "one of the top five functions is a redis allocation site (createStringObject, sdsnewlen, dict...)"
# redis allocates through zmalloc.c's wrappers: they are trimmed like
# malloc (a built-in list), so their callers lead; --keep-allocator-frames
# brings them back.
WRAP='("zmalloc", "zmalloc_usable", "zcalloc", "zcalloc_usable", "zrealloc", "zrealloc_usable", "ztrymalloc", "ztrymalloc_usable", "ztrycalloc_usable", "ztryrealloc_usable", "zstrdup")'
is "$(jq_py "$T/redis.json" "[r['function'] for r in rows if r['function'].split('.')[0] in $WRAP and r['flat'] + r['cum'] > 0]")" "[]" \
    "no zmalloc wrapper in any row: the callers are on top"
ying top --json --keep-allocator-frames "$D" >"$T/keep.json" 2>"$T/err"
ok $? "ying top --json --keep-allocator-frames exits 0" || diag "$T/err"
is "$(jq_py "$T/keep.json" "sum(r['cum'] for r in rows if r['function'].split('.')[0] in $WRAP) > 0.5 * d['total']")" 1 \
    "--keep-allocator-frames: the zmalloc wrappers are back and hold most of the heap"
is "$(jq_py "$T/redis.json" '[r["function"] for r in rows[:10] if r["function"].startswith(("je_", "prof_", "imalloc", "malloc_usable_size", "0x")) or r["function"] in ("malloc", "calloc", "realloc")]')" "[]" \
    "no jemalloc internal or unnamed address among the top ten"
is "$(jq_py "$T/redis.json" 'flat("debugCommand") + cum("debugCommand") > 0')" 1 "DEBUG POPULATE's path (debugCommand) is seen"
yt=$(jq_py "$T/redis.json" 'd["total"]')
grep -q " $REAL\$" "$D"
ok $? "the dump's mappings name $REAL"
jt=$(jeprof_total "$REAL" "$D")
near_jeprof "$yt" "$jt" "$D"
ok $? "total ($yt) equals jeprof --text $REAL's Total ($jt), within half a byte per stack"
is "$(jq_py "$T/redis.json" 'd["total"] > 20000 * 200 + 50 * 100000')" 1 "the total covers the data that was loaded"

plan_done
