#!/bin/sh
# prefork_nginx.sh: Debian's nginx as it runs in production, a master and
# `worker_processes 2` (as nobody when the test runs as root), under `ying
# run --http 127.0.0.1:0 --report-dir D --interval 1 --floor 0` (issue
# 25, items 1, 2 and 4).  200 clients each hold a request with a 30 KB
# header line (as run_nginx.sh), spread over the two workers by
# `reuseport`, and one more request every 0.2 s: each worker gives its clients large header buffers
# (ngx_create_temp_buf), the master holds only its configuration.  After
# the workers have lived more than 3 s (the "long" threshold):
#   - /debug/processes lists the master and the two workers, with roles;
#   - `ying top 'URL/debug/pprof/heap?pid=WORKER'` and the worker's own
#     /debug/heap?pid=WORKER: the top row is the function that asked for the
#     header buffer, not the master's configuration;
#   - ?pid=all: one pprof whose samples carry a `pid` label (go tool pprof
#     -tags lists both workers), -tagfocus on a worker gives that worker's
#     bytes, and the whole is the sum of the parts;
#   - D has a report subdirectory per worker, with a report set in it;
#   - ying run printed a line per worker, and at exit a summary.
. "$YING_SRCDIR/tests/integration/servers_lib.sh"
. "$YING_SRCDIR/tests/integration/fork_lib.sh"
need nginx go
tool_homes "$T"

port=$(free_port)
mkdir -p "$T/ngx/tmp"
if [ "$(id -u)" = 0 ]; then
	user="user nobody nogroup;"
	chmod 755 "$T"
else
	user=""
fi
cat >"$T/ngx/nginx.conf" <<EOF2
$user
master_process on;
daemon off;
worker_processes 2;
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
    server { listen 127.0.0.1:$port reuseport; location / { return 200 "ok\n"; } }
}
EOF2
"$YING" run --sample 14 --http 127.0.0.1:0 --report-dir "$T/D" --interval 1 --floor 0 -- \
    "$(command -v nginx)" -p "$T/ngx/" -c "$T/ngx/nginx.conf" -e stderr >"$T/out" 2>"$T/err" &
p=$!
bg_pids="$bg_pids $p"
wait_for 30 grep -q 'HTTP on http://127.0.0.1:[0-9]*/' "$T/err"
ok $? "the agent announces its HTTP endpoint" || diag "$T/err"
hp=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/err" | head -n 1)
wait_for 30 sh -c "curl -s -m 5 http://127.0.0.1:$port/ | grep -q ok"
ok $? "nginx answers on 127.0.0.1:$port" || diag "$T/err"
wait_for 10 test -s "$T/ngx/nginx.pid"
master=$(cat "$T/ngx/nginx.pid")
workers=$(for q in $(pgrep -P "$master"); do
	grep -q '^nginx: worker process' "/proc/$q/cmdline" 2>/dev/null && echo "$q"
done | sort -n)
w1=$(echo "$workers" | sed -n 1p)
w2=$(echo "$workers" | sed -n 2p)
is "$(echo "$workers" | wc -w)" 2 "the master ($master) runs two workers ($w1, $w2)"
if [ "$(id -u)" = 0 ]; then
	is "$(ps -o user= -p "$w1") $(ps -o user= -p "$w2")" "nobody nobody" "the workers run as nobody"
fi

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
# and a request every 0.2 s: a worker becomes a member at an allocation
# after its first second (the agent's hook is its clock; one that went idle
# before would wait for its next request)
(while :; do curl -s -m 2 -o /dev/null "http://127.0.0.1:$port/"; sleep 0.2; done) &
bg_pids="$bg_pids $!"

# the workers have lived more than 3 s: members of the master's family
want=$(printf '%s\n%s\n%s\n' "$master" "$w1" "$w2" | sort -n | tr '\n' ' ')
wait_secs 10 procs_are "$want"
is "$(procs_pids | tr '\n' ' ')" "$want" "/debug/processes lists the master and both workers" ||
    diag "$T/procs.json"
r1=$(procs_field "$w1" role)
r2=$(procs_field "$w2" role)
rm=$(procs_field "$master" role)
case "$r1/$r2/$rm" in
*worker*/*worker*/*master*) ok 0 "roles: '$r1', '$r2', '$rm'" ;;
*) ok 1 "roles: '$r1', '$r2', '$rm' (want worker, worker, master)"; diag "$T/procs.json" ;;
esac
is "$(procs_field "$w1" ppid)" "$master" "worker $w1's parent is the master"

# a worker's heap by pid: the header buffers
for w in $w1 $w2; do
	curl -s -m 60 -o "$T/heap.$w" "http://127.0.0.1:$hp/debug/heap?pid=$w"
	head -n 1 "$T/heap.$w" 2>/dev/null | grep -q '^heap_v2/'
	ok $? "/debug/heap?pid=$w: a heap_v2 dump" || diag "$T/heap.$w"
done
curl -s -m 60 -o "$T/heap.master" "http://127.0.0.1:$hp/debug/heap"
top_first "$T/heap.$w1"
ying folded --keep-allocator-frames "$T/heap.$w1" 2>/dev/null | sort -t' ' -k2 -rn | head -n 1 |
    tr ';' '\n' | grep -B1 -x 'ngx_create_temp_buf' | head -n 1 >"$T/caller"
caller=$(cat "$T/caller")
[ -n "$caller" ]
ok $? "worker $w1's heaviest stack allocates through ngx_create_temp_buf (called by '$caller')"
is "$first" "$caller" "... and the top row is the function that asked for the header buffer"
ying top --json "http://127.0.0.1:$hp/debug/pprof/heap?pid=$w2" >"$T/top2.json" 2>"$T/top2.err"
ok $? "ying top 'URL/debug/pprof/heap?pid=$w2' exits 0" || diag "$T/top2.err"
python3 - "$T/top2.json" "$caller" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["rows"] and d["rows"][0]["function"] == sys.argv[2] else 1)
PY
ok $? "... its top row is the same function, in the other worker"
wb=$(ying top --json "$T/heap.$w1" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
mb=$(ying top --json "$T/heap.master" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
[ "${wb:-0}" -gt "$((4 * ${mb:-0}))" ] && [ "${wb:-0}" -gt 1000000 ]
ok $? "the worker holds the memory ($wb bytes), the master little ($mb)"

# ?pid=all: one pprof, a pid label per sample
curl -s -m 60 -o "$T/all.pb.gz" "http://127.0.0.1:$hp/debug/pprof/heap?pid=all"
gopprof() {
	timeout 120 go tool pprof "$@" 2>>"$T/gopprof.err"
}
# go_total FILE ARGS...: the bytes of the samples kept (with -tagfocus,
# not the profile's whole total, which -top prints as "of ... total")
go_total() {
	_f=$1
	shift
	gopprof -top -unit=B -sample_index=inuse_space -nodecount=1000000 "$@" "$_f" |
	    sed -n 's/.*accounting for \([0-9.]*\)B*, .*/\1/p' | head -n 1
}
gopprof -tags "$T/all.pb.gz" >"$T/tags"
sed 's/^/# /' "$T/tags" | head -n 12
grep -q "\b$w1\b" "$T/tags" && grep -q "\b$w2\b" "$T/tags" && grep -q '^ *pid:' "$T/tags"
ok $? "go tool pprof -tags: a pid label with both workers' pids" || diag "$T/gopprof.err"
ta=$(go_total "$T/all.pb.gz")
t1=$(go_total "$T/all.pb.gz" -tagfocus "pid=$w1:$w1")
t2=$(go_total "$T/all.pb.gz" -tagfocus "pid=$w2:$w2")
tm=$(go_total "$T/all.pb.gz" -tagfocus "pid=$master:$master")
echo "# ?pid=all: total $ta B; worker $w1 $t1 B, worker $w2 $t2 B, master $tm B"
[ "${t1%.*}" -gt 1000000 ] 2>/dev/null && [ "${t2%.*}" -gt 1000000 ] 2>/dev/null
ok $? "-tagfocus pid=WORKER: each worker's header buffers (over 1 MB each)" || diag "$T/gopprof.err"
python3 -c 'import sys; a, b, c, d = map(float, sys.argv[1:]); sys.exit(abs(a - (b + c + d)) > 0.01 * a)' \
    "${ta:-0}" "${t1:-0}" "${t2:-0}" "${tm:-0}"
ok $? "the whole is the sum of the parts (master + both workers)"

# reports: one subdirectory per worker
for w in $w1 $w2; do
	wait_secs 10 sh -c "ls '$T/D/'*.$w* 2>/dev/null | grep -q '\\.report\$'"
	sub=$(subdir_of "$T/D" "$w")
	case "$sub" in
	nginx.$w*) ok 0 "D/$sub: worker $w's report subdirectory" ;;
	*) ok 1 "worker $w's report subdirectory (got '$sub')"; ls -la "$T/D" | sed 's/^/# /' ;;
	esac
	[ -n "$sub" ] && ls "$T/D/$sub" 2>/dev/null | grep -q '\.report$'
	ok $? "... with a report set in it"
done

# what ying run says
for w in $w1 $w2; do
	grep -q "\b$w\b" "$T/err"
	ok $? "ying run wrote a line about worker $w" || diag "$T/err"
done
kill "$h"
stop_under_ying nginx
grep -Eiq '[0-9]+ process(es)? profiled' "$T/err"
ok $? "ying run's summary at exit: the processes profiled" || diag "$T/err"
sed -n '/profiled/p' "$T/err" | sed 's/^/# /' | tail -n 5

plan_done
