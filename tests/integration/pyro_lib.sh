# pyro_lib.sh: helpers sourced by the Pyroscope tests (tests/integration/pyro_*.sh).
# Not a test itself.
#
# On top of agent_lib.sh (TAP, $T, `ying`, wait_for, free_port, $bg_pids
# killed at exit) it gives the Pyroscope stand-in (tests/pyro/standin.py):
#   standin_start NAME [STANDIN ARGS...]  start one, recording into $T/NAME;
#                  sets NAME_PORT, NAME_URL, NAME_DIR, NAME_PID
#   standin_stop NAME / standin_restart NAME   down (port closed), back on
#                  the same port and directory
#   fault NAME QUERY        e.g. `fault s code=429\&count=2`
#   uploads NAME            number of accepted uploads so far
#   wait_uploads NAME N SECS   until NAME accepted at least N
#   up NAME I PYEXPR        a python expression on upload I's JSON (d), e.g.
#                  `up s 1 'lab["service_name"]'` (lab: the labels as a dict)
#   up_pprof NAME I         path of upload I's pprof
#   go_top1 PPROF [ARGS]    the first function of `go tool pprof -top`
#   go_flat PPROF FUNC      FUNC's flat inuse_space in bytes (go tool pprof)
#   push_body FILE.pb.gz LABELS ID > REQ   a binary PushRequest made by
#                  `protoc --encode` from the stand-in's .proto ("k=v,k=v")
# Every tool is checked up front: a missing one skips the test (fails it
# with YING_REQUIRE_TOOLS=1; `need` in tap.sh).
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need go protoc curl python3
STANDIN="$YING_SRCDIR/tests/pyro/standin.py"
PYRO_PROTO="$YING_SRCDIR/tests/pyro"
tool_homes "$T"

standin_start() {
	pl_n=$1
	shift
	mkdir -p "$T/$pl_n"
	: >"$T/$pl_n.port"
	eval "pl_p=\${${pl_n}_PORT:-0}"
	python3 "$STANDIN" --dir "$T/$pl_n" --port "$pl_p" "$@" \
	    >"$T/$pl_n.port" 2>>"$T/$pl_n.err" &
	pl_pid=$!
	bg_pids="$bg_pids $pl_pid"
	if ! wait_for 20 grep -q '^port ' "$T/$pl_n.port"; then
		echo "Bail out! the stand-in $pl_n did not start"
		diag "$T/$pl_n.err"
		exit 1
	fi
	pl_port=$(awk '/^port /{print $2}' "$T/$pl_n.port")
	eval "${pl_n}_PID=$pl_pid ${pl_n}_PORT=$pl_port ${pl_n}_URL=http://127.0.0.1:$pl_port ${pl_n}_DIR=\$T/\$pl_n"
	eval "${pl_n}_ARGS=\$*"
}
standin_stop() {
	eval "pl_pid=\$${1}_PID"
	kill -9 "$pl_pid" 2>/dev/null
	wait "$pl_pid" 2>/dev/null
}
standin_restart() {
	pl_n=$1
	eval "set -- \$${pl_n}_ARGS"
	standin_start "$pl_n" "$@"
}
fault() {
	eval "pl_u=\$${1}_URL"
	curl -sf -X POST "$pl_u/_standin/fault?$2" >/dev/null
}
uploads() {
	eval "pl_d=\$${1}_DIR"
	ls "$pl_d" 2>/dev/null | grep -c '^upload-[0-9]*\.json$'
}
has_uploads() {
	[ "$(uploads "$1")" -ge "$2" ]
}
wait_uploads() {
	wait_for "$3" has_uploads "$1" "$2"
}
up() {
	eval "pl_d=\$${1}_DIR"
	python3 - "$(printf '%s/upload-%04d.json' "$pl_d" "$2")" "$3" <<'PY'
import json, sys
with open(sys.argv[1]) as f:
    d = json.load(f)
lab = dict(d["labels"])
v = eval(sys.argv[2])
if isinstance(v, bool):
    v = int(v)
print(v)
PY
}
# cmd_pid PID NAME: the pid of the process NAME below PID (the program
# under `ying run`, itself under the test's timeout; the series carry no
# pid label, a __session_id__ instead)
cmd_pid() {
	pl_q=$1
	for pl_i in 1 2 3 4 5 6; do
		pl_c=$(pgrep -P "$pl_q" -x "$2" | head -n 1)
		if [ -n "$pl_c" ]; then
			echo "$pl_c"
			return 0
		fi
		pl_q=$(pgrep -P "$pl_q" | head -n 1)
		[ -n "$pl_q" ] || return 1
	done
	return 1
}
up_pprof() {
	eval "pl_d=\$${1}_DIR"
	printf '%s/upload-%04d.pprof' "$pl_d" "$2"
}
go_top1() {
	pl_f=$1
	shift
	timeout 120 go tool pprof -top -unit=B "$@" "$pl_f" 2>"$T/gopprof.err" |
	    awk 'f { $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print; exit } /flat%/ { f = 1 }'
}
go_flat() {
	timeout 120 go tool pprof -top -unit=B -sample_index=inuse_space "$1" 2>"$T/gopprof.err" |
	    awk -v fn="$2" '{ name = $6; for (i = 7; i <= NF; i++) name = name " " $i }
		name == fn { v = $1; sub(/B$/, "", v); print v; exit }'
}
push_body() {
	python3 - "$1" "$2" "$3" <<'PY' | protoc -I "$PYRO_PROTO" --encode=push.v1.PushRequest push.proto
import sys
b = open(sys.argv[1], "rb").read()
labels = "".join('labels { name: "%s" value: "%s" } ' % tuple(kv.split("=", 1))
                 for kv in sys.argv[2].split(",") if kv)
print('series { %s samples { raw_profile: "%s" ID: "%s" } }' %
      (labels, "".join("\\%03o" % c for c in b), sys.argv[3]))
PY
}
# post_push URL REQ [CURL ARGS]: status code of a binary push
post_push() {
	pl_u=$1 pl_r=$2
	shift 2
	curl -s -o "$T/resp" -w '%{http_code}' -H 'Content-Type: application/proto' "$@" \
	    --data-binary @"$pl_r" "$pl_u/push.v1.PusherService/Push"
}
# prof_json URL: the agent's /debug/prof JSON into $T/prof.json
prof_json() {
	curl -sf --max-time 10 "$1/debug/prof" >"$T/prof.json"
}
# pj PYEXPR: a python expression on $T/prof.json (d)
pj() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
print(int(v) if isinstance(v, bool) else v)' "$T/prof.json" "$1"
}
