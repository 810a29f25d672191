#!/bin/sh
# run_nginx.sh: Debian's nginx (no debug symbols) under `ying run`, one
# process (master_process off, daemon off) on a 127.0.0.1 port, 200 clients
# each holding a request with a 30 KB header line: nginx gives each a large
# header buffer (large_client_header_buffers) from its static
# ngx_http_alloc_large_header_buffer through ngx_create_temp_buf, ngx_palloc
# and its static pool code (nginx+0x...).  Those layers are trimmed, the
# static ones with the wrapper of their own module that calls them, so the
# top row is the function that asked for the buffer: the frame that calls
# ngx_create_temp_buf in the untrimmed stacks (a static function, so
# nginx+0x... itself), not nginx+0x278bc inside the pool code.
. "$YING_SRCDIR/tests/integration/servers_lib.sh"
need nginx

port=$(free_port)
mkdir -p "$T/ngx/tmp"
cat >"$T/ngx/nginx.conf" <<EOF
master_process off;
daemon off;
worker_processes 1;
error_log stderr warn;
pid $T/ngx/nginx.pid;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $T/ngx/tmp; proxy_temp_path $T/ngx/tmp;
    fastcgi_temp_path $T/ngx/tmp; uwsgi_temp_path $T/ngx/tmp; scgi_temp_path $T/ngx/tmp;
    client_header_buffer_size 1k;
    large_client_header_buffers 8 64k;
    client_header_timeout 60s;
    server { listen 127.0.0.1:$port; location / { return 200 "ok\n"; } }
}
EOF
serve_under_ying "$T/out" "$(command -v nginx)" -p "$T/ngx/" -c "$T/ngx/nginx.conf" -e stderr
wait_for 30 sh -c "curl -s -m 5 http://127.0.0.1:$port/ | grep -q ok"
ok $? "nginx answers on 127.0.0.1:$port" || diag "$T/err"
python3 - "$port" "$T/held" <<'PY' &
import socket, sys, time
socks = []
for i in range(200):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 30000 + b"\r\n")
    socks.append(s)
time.sleep(0.5)
open(sys.argv[2], "w").close()
time.sleep(60)
PY
h=$!
bg_pids="$bg_pids $h"
wait_for 30 test -f "$T/held"
ok $? "200 clients hold requests with 30 KB header lines"
heap_now "$T/heap"
kill "$h"
stop_under_ying nginx
top_first "$T/heap"
# the caller of ngx_create_temp_buf in the heaviest untrimmed stack
ying folded --keep-allocator-frames "$T/heap" 2>/dev/null | sort -t' ' -k2 -rn | head -n 1 |
    tr ';' '\n' | grep -B1 -x 'ngx_create_temp_buf' | head -n 1 >"$T/caller"
caller=$(cat "$T/caller")
[ -n "$caller" ]
ok $? "the heaviest stack allocates through ngx_create_temp_buf, called by '$caller'"
is "$first" "$caller" "the top row is the function that asked for the header buffer"
[ "${pct:-0}" -ge 60 ]
ok $? "... with most of the heap (${pct}%)"
awk -F'\t' '$1 ~ /^(ngx_create_temp_buf|ngx_p[a-z]*alloc[a-z_]*|ngx_alloc|ngx_calloc|ngx_create_pool)$/' "$T/top" >"$T/bad"
[ ! -s "$T/bad" ]
ok $? "no nginx allocation layer in the top 5" || diag "$T/bad"

plan_done
