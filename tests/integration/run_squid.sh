#!/bin/sh
# run_squid.sh: Debian's squid (no debug symbols) under `ying run -- squid
# -N`, a memory cache on a 127.0.0.1 port in front of a local origin
# (python's http.server, cacheable answers).  300 objects of 100 KB are
# fetched through it and kept in memory: each 4 KB piece is a mem_node that
# mem_hdr::nodeToRecieve news, through mem_node's own operator new, the
# pool's AllocatorProxy and MemPoolMalloc::allocate().  Those layers are
# trimmed, so the top row is mem_hdr::nodeToRecieve(long), the memory
# cache's function a squid developer would fix, not MemPoolMalloc::allocate().
. "$YING_SRCDIR/tests/integration/servers_lib.sh"
need squid

sport=$(free_port)
oport=$(free_port)
mkdir -p "$T/www"
python3 -c '
import os, sys
for i in range(300):
    open(os.path.join(sys.argv[1], "o%d" % i), "wb").write(os.urandom(64) * 1600)' "$T/www"
python3 -c '
import http.server, os, sys
os.chdir(sys.argv[2])
class H(http.server.SimpleHTTPRequestHandler):
    def end_headers(self):
        self.send_header("Cache-Control", "public, max-age=3600")
        super().end_headers()
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
' "$oport" "$T/www" >"$T/origin.log" 2>&1 &
bg_pids="$bg_pids $!"
wait_for 30 curl -s -f -o /dev/null "http://127.0.0.1:$oport/o0"
ok $? "the origin serves on 127.0.0.1:$oport" || diag "$T/origin.log"
printf '%s\n' "http_port 127.0.0.1:$sport" "http_access allow all" \
    "visible_hostname ying-test" "cache_mem 128 MB" \
    "maximum_object_size_in_memory 1 MB" "memory_cache_shared off" "workers 1" \
    "pid_filename $T/squid.pid" "cache_log $T/cache.log" "access_log none" \
    "cache_store_log none" "coredump_dir $T" "shutdown_lifetime 0 seconds" \
    "dns_nameservers 127.0.0.1" >"$T/squid.conf"
serve_under_ying "$T/out" "$(command -v squid)" -N -f "$T/squid.conf"
wait_for 30 sh -c "curl -s -o /dev/null -w '%{http_code}' -x 127.0.0.1:$sport http://127.0.0.1:$oport/o0 | grep -q 200"
ok $? "squid answers on 127.0.0.1:$sport" || diag "$T/cache.log"
i=0
while [ $i -lt 300 ]; do
	echo "url = \"http://127.0.0.1:$oport/o$i\""
	echo "output = /dev/null"
	i=$((i + 1))
done >"$T/urls"
curl -s -x "127.0.0.1:$sport" -K "$T/urls"
curl -s -D "$T/hdr" -o /dev/null -x "127.0.0.1:$sport" "http://127.0.0.1:$oport/o7"
grep -qi '^X-Cache: HIT' "$T/hdr"
ok $? "300 objects fetched through squid, from its memory cache the second time" || diag "$T/hdr"
heap_now "$T/heap"
stop_under_ying squid
top_first "$T/heap"
case $first in
"mem_hdr::nodeToRecieve"*) true ;;
*) false ;;
esac
ok $? "the top row is mem_hdr::nodeToRecieve (got '$first')"
[ "${pct:-0}" -ge 40 ]
ok $? "... with the 30 MB of cached objects (${pct}% of the heap)"
awk -F'\t' '$3 >= 5 && $1 ~ /^(MemPool|Mem::|MemAllocator|memAlloc|mem_node::operator new|xcalloc|xmalloc)/' "$T/top" >"$T/bad"
[ ! -s "$T/bad" ]
ok $? "no squid pool layer holds 5% or more" || diag "$T/bad"

plan_done
