#!/bin/sh
# run_pyro_opts.sh: the Pyroscope options of `ying run`, the agent's
# YING_PYROSCOPE_* and `ying upload`, where no server is needed: bad
# options stop `ying run` (exit 2, or 1 for an unreadable secret file)
# before CMD starts; a bad YING_PYROSCOPE_* variable makes the agent inert
# with one line naming it; the password and token (from a file or the
# variable) never reach the program's children, and the variable's bytes
# are gone from /proc/PID/environ; `ying upload` names the file and the
# reason when the server cannot be reached (exit 1) or answers an error
# (retried on 429 and 5xx, not on other 4xx; python3's http.server plays
# the server) and exits 2 on usage errors; neither ying nor the agent
# links libcurl.  Uploads to a real
# server: tests/integration/pyro_*.sh.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"

need sh grep tr

# run_never CASE WANT_RC ARGS...: ying run ARGS -- sh -c 'touch ran' must exit
# WANT_RC without running the command.
run_never() {
	_what=$1
	_want=$2
	shift 2
	rm -f "$T/ran"
	ying run "$@" -- sh -c ": > '$T/ran'" >"$T/out" 2>"$T/err"
	is "$?" "$_want" "$_what: exit $_want" || diag "$T/err"
	[ ! -e "$T/ran" ]
	ok $? "$_what: CMD never started"
}

PORT=$(free_port)
URL="http://127.0.0.1:$PORT"
run_never "ftp URL" 2 --pyroscope ftp://x
grep -q -- "--pyroscope: URL 'ftp://x'" "$T/err"
ok $? "ftp URL: the message names the URL" || diag "$T/err"
run_never "reserved tag" 2 --pyroscope "$URL" --tag service_name=x
grep -q "'service_name' is set by ying" "$T/err"
ok $? "reserved tag: says ying sets it" || diag "$T/err"
run_never "tag with a comma" 2 --pyroscope "$URL" --tag 'a=1,b=2'
run_never "bad API" 2 --pyroscope "$URL" --pyroscope-api grpc
run_never "--service without --pyroscope" 2 --service svc
run_never "header without a colon" 2 --pyroscope "$URL" --pyroscope-header 'X-Key k'
run_never "interval too small" 2 --pyroscope "$URL" --pyroscope-interval 0.01
run_never "password file without user" 2 --pyroscope "$URL" \
    --pyroscope-password-file "$T/nothere"
run_never "missing token file" 1 --pyroscope "$URL" --pyroscope-token-file "$T/nothere"
grep -q "nothere: cannot open: No such file" "$T/err"
ok $? "missing token file: named with the reason" || diag "$T/err"
: >"$T/empty"
run_never "empty token file" 1 --pyroscope "$URL" --pyroscope-token-file "$T/empty"
grep -q "the first line is empty" "$T/err"
ok $? "empty token file: says so" || diag "$T/err"

# The agent: a bad variable makes it inert, naming the variable.
timeout 30 env MALLOC_CONF=prof:true LD_PRELOAD="$JEMALLOC:$AGENT" \
    YING_PYROSCOPE_URL="$URL" YING_PYROSCOPE_TAGS=hostname=h1 \
    "$PROGS/agent_exit" 5 >"$T/out" 2>"$T/err"
is "$?" 5 "bad YING_PYROSCOPE_TAGS: the program runs unchanged"
grep -q "ying-agent: inert in pid [0-9]* (agent_exit): YING_PYROSCOPE_\*: tag 'hostname=h1'" "$T/err"
ok $? "bad YING_PYROSCOPE_TAGS: one line naming it" || diag "$T/err"

# Secrets: not passed on.  sh carries the agent (configured, uploading to
# a closed port every 60 s); what it starts must not see the secrets.
printf 'tok-SECRET-1\n' >"$T/tok"
chmod 600 "$T/tok"
timeout 30 env MALLOC_CONF=prof:true LD_PRELOAD="$JEMALLOC:$AGENT" YING_QUIET=1 \
    YING_PYROSCOPE_URL="$URL" YING_PYROSCOPE_INTERVAL=60 \
    YING_PYROSCOPE_TOKEN_FILE="$T/tok" \
    sh -c 'env; echo ENVIRON; tr "\0" "\n" </proc/$$/environ' >"$T/env1" 2>"$T/err"
ok $? "token file: the program runs" || diag "$T/err"
grep -q '^ENVIRON' "$T/env1"
ok $? "token file: the child printed its environment" || diag "$T/env1"
! sed '/^ENVIRON/q' "$T/env1" | grep -q 'YING_PYROSCOPE_TOKEN_FILE'
ok $? "token file: YING_PYROSCOPE_TOKEN_FILE not passed on" || diag "$T/env1"
! grep -q -F "$T/tok" "$T/env1"
ok $? "token file: its path wiped from /proc/PID/environ too" || diag "$T/env1"
! grep -q 'tok-SECRET-1' "$T/env1"
ok $? "token file: the token appears nowhere" || diag "$T/env1"
timeout 30 env MALLOC_CONF=prof:true LD_PRELOAD="$JEMALLOC:$AGENT" YING_QUIET=1 \
    YING_PYROSCOPE_URL="$URL" YING_PYROSCOPE_INTERVAL=60 YING_PYROSCOPE_USER=bob \
    YING_PYROSCOPE_PASSWORD=pw-SECRET-2 YING_PYROSCOPE_HEADERS='X-Api-Key: hdr-SECRET-3' \
    sh -c 'env; echo ENVIRON; tr "\0" "\n" </proc/$$/environ' >"$T/env2" 2>"$T/err"
ok $? "password variable: the program runs" || diag "$T/err"
grep -q '^YING_PYROSCOPE_USER=bob' "$T/env2"
ok $? "password variable: the user name is not a secret (passed on)" || diag "$T/env2"
! grep -q 'pw-SECRET-2' "$T/env2"
ok $? "password variable: wiped from the environment and /proc/PID/environ" ||
    diag "$T/env2"
! grep -q 'hdr-SECRET-3' "$T/env2"
ok $? "headers variable: wiped too" || diag "$T/env2"

# ying upload
P="$PROGS/agent_exit"
ying upload --time now --url "$URL" --retries 0 "$YING_DATA/heap1.heap" >"$T/out" 2>"$T/err"
is "$?" 1 "upload to a closed port: exit 1"
grep -q "heap1.heap: not uploaded: $URL: push: cannot connect" "$T/err"
ok $? "upload: names the file, the URL and the reason" || diag "$T/err"
printf 'not a profile\n' >"$T/junk"
ying upload --url "$URL" --retries 0 "$T/junk" >"$T/out" 2>"$T/err"
is "$?" 1 "upload of a non-profile: exit 1"
grep -q "junk: not a heap profile" "$T/err"
ok $? "upload of a non-profile: names the file" || diag "$T/err"
ying upload "$YING_DATA/heap1.heap" >"$T/out" 2>"$T/err"
is "$?" 2 "upload without --url: exit 2"
ying upload --url "$URL" --api grpc "$YING_DATA/heap1.heap" >"$T/out" 2>"$T/err"
is "$?" 2 "upload with a bad API: exit 2"

# Retries: a server that answers STATUS to every POST (python3's
# http.server, on 127.0.0.1, port 0), counting the requests.
status_server() {
	rm -f "$T/port" "$T/reqs"
	python3 -c '
import http.server, sys
status, log = int(sys.argv[1]), sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        open(log, "a").write(self.path + " " + self.headers.get("Content-Type", "") + "\n")
        body = b"{\"code\":\"x\",\"message\":\"said by the server\"}"
        self.send_response(status)
        if status in (429, 503):
            self.send_header("Retry-After", "1")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(sys.argv[3], "w").write(str(s.server_address[1]))
s.serve_forever()
' "$1" "$T/reqs" "$T/port.tmp" &
	bg_pids="$bg_pids $!"
	srv_pid=$!
	wait_for 10 test -s "$T/port.tmp" && mv "$T/port.tmp" "$T/port"
}
stop_server() {
	kill "$srv_pid" 2>/dev/null
	wait "$srv_pid" 2>/dev/null
}
for st in 500 503 429; do
	status_server $st
	ying upload --time now --url "http://127.0.0.1:$(cat "$T/port")" --retries 2 \
	    "$YING_DATA/heap1.heap" >"$T/out" 2>"$T/err"
	is "$?" 1 "HTTP $st: upload fails, exit 1"
	is "$(wc -l <"$T/reqs" | tr -d ' ')" 3 "HTTP $st: retried twice (3 requests)"
	grep -q "heap1.heap: not uploaded: .*: push: HTTP $st.*said by the server" "$T/err"
	ok $? "HTTP $st: the status and the server's message are said" || diag "$T/err"
	stop_server
done
for st in 400 401 404; do
	status_server $st
	ying upload --time now --url "http://127.0.0.1:$(cat "$T/port")" --retries 2 \
	    "$YING_DATA/heap1.heap" >"$T/out" 2>"$T/err"
	is "$?" 1 "HTTP $st: upload fails, exit 1"
	is "$(wc -l <"$T/reqs" | tr -d ' ')" 1 "HTTP $st: final, not retried"
	stop_server
done
grep -q "HTTP 404 (no such route" "$T/err"
ok $? "HTTP 404: a hint about the URL" || diag "$T/err"
status_server 200
ying upload --time now --url "http://127.0.0.1:$(cat "$T/port")" --api ingest \
    "$YING_DATA/heap1.heap" "$YING_DATA/heap1.heap.gz" >"$T/out" 2>"$T/err"
is "$?" 0 "HTTP 200: two files uploaded with the ingest API"
is "$(grep -c '^/ingest?name=heapgen%7Bhostname%3D[^ ]*%7D&from=[0-9]*&until=[0-9]*&spyName=ying multipart/form-data; boundary=' "$T/reqs")" 2 \
    "ingest: two requests, name=SERVICE{hostname=...} (no pid), multipart" || diag "$T/reqs"
stop_server

# libcurl is loaded by the first upload, never linked: not by ying (whose
# upload command uses it), not by the agent preloaded into every program.
need readelf
readelf -d "$YING" >"$T/dyn" 2>&1
grep -q NEEDED "$T/dyn" && ! grep -q 'libcurl\|libmicrohttpd' "$T/dyn"
ok $? "ying links neither libcurl nor libmicrohttpd" || diag "$T/dyn"
readelf -d "$AGENT" >"$T/dyn" 2>&1
grep -q NEEDED "$T/dyn" && ! grep -q 'libcurl' "$T/dyn"
ok $? "the agent does not link libcurl" || diag "$T/dyn"

plan_done
