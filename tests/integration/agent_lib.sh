# agent_lib.sh: helpers sourced by the agent area's integration tests
# (tests/integration/run_*.sh, agent_*.sh).  Not a test itself.
#
# Gives: TAP output (ok/is/plan_done/diag), a private temporary directory
# removed on exit (background processes listed in $bg_pids are killed
# first), `ying` (the built CLI under a time limit), the agent and jemalloc
# paths, `wait_for` (poll for a condition with a deadline), `free_port`, and
# `report_sets DIR` (the base names of the report sets in DIR).  A missing
# tool skips the test, or fails it with YING_REQUIRE_TOOLS=1 (`need`, tap.sh).

set -u
: "${YING_BUILDDIR:?run through make check (YING_BUILDDIR unset)}"
: "${YING_SRCDIR:?run through make check (YING_SRCDIR unset)}"
YING="$YING_BUILDDIR/ying"
PROGS="$YING_BUILDDIR/tests/programs"
AGENT="$YING_BUILDDIR/.libs/libying-agent.so"
JEMALLOC=$(pkg-config --variable=libdir jemalloc 2>/dev/null)/libjemalloc.so.2
. "$YING_SRCDIR/tests/integration/tap.sh"
bg_pids=""

T=$(mktemp -d "${TMPDIR:-/tmp}/ying-agent-test.XXXXXX")
al_cleanup() {
	for p in $bg_pids; do
		kill -9 "$p" 2>/dev/null
	done
	for p in $bg_pids; do
		wait "$p" 2>/dev/null
	done
	rm -rf "$T"
}
trap al_cleanup EXIT
trap 'exit 130' INT TERM

need timeout python3 pkg-config
if [ ! -f "$AGENT" ] || [ ! -f "$JEMALLOC" ]; then
	echo "not ok 1 - agent ($AGENT) or jemalloc ($JEMALLOC) missing"
	echo "1..1"
	exit 1
fi

# ying ARGS...: the CLI under test, bounded in time.
ying() {
	timeout 120 "$YING" "$@"
}

# wait_for SECONDS COMMAND...: run COMMAND every 0.1 s until it succeeds;
# fails after SECONDS.
wait_for() {
	_n=$(($1 * 10))
	shift
	while [ "$_n" -gt 0 ]; do
		if "$@" >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.1
		_n=$((_n - 1))
	done
	return 1
}

# free_port: a TCP port nobody listens on right now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# url_enc TEXT: TEXT percent-encoded for a query value (every reserved
# character, ':' and '+' of report names included).
url_enc() {
	python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"
}

# report_sets DIR: the base names of the report sets in DIR, oldest first.
report_sets() {
	ls "$1" 2>/dev/null | sed -n 's/\.report$//p' | sort
}

# mb_of BASE: the <N> of a "ying.<time>.<N>MiB" base name.
mb_of() {
	echo "$1" | sed -n 's/.*\.\([0-9][0-9]*\)MiB$/\1/p'
}

# has_report DIR: true once DIR holds a .report.
has_report() {
	ls "$1" 2>/dev/null | grep -q '\.report$'
}
# count_reports DIR N: true once DIR holds at least N .report files.
count_reports() {
	[ "$(ls "$1" 2>/dev/null | grep -c '\.report$')" -ge "$2" ]
}

# redis_under_ying_http [RUN_OPTS... [-- REDIS_OPTS...]]: redis-server (data
# in $T/redis) under `ying run --http 127.0.0.1:0 --report-dir $T/reports
# RUN_OPTS` (default RUN_OPTS: --token s3cret), REDIS_OPTS added to redis'
# own, in the background; two results (the endpoint announced, redis
# answers).  Sets port (redis), p (ying run's pid, in bg_pids), hp (the
# endpoint's port); the agent's stderr is $T/err.
redis_under_ying_http() {
	local -a run_opts=() redis_opts=()
	[ $# -eq 0 ] && set -- --token s3cret
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		run_opts+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	redis_opts=("$@")
	port=$(free_port)
	mkdir -p "$T/redis"
	"$YING" run --http 127.0.0.1:0 --report-dir "$T/reports" "${run_opts[@]}" -- \
	    redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no \
	    --dir "$T/redis" --daemonize no ${redis_opts[@]+"${redis_opts[@]}"} >"$T/redis.out" 2>"$T/err" &
	p=$!
	bg_pids="$bg_pids $p"
	wait_for 30 grep -q 'HTTP on http://127.0.0.1:[0-9]*/' "$T/err"
	ok $? "the agent announces its HTTP endpoint" || diag "$T/err"
	hp=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/err" | head -n 1)
	wait_for 30 sh -c "timeout 5 redis-cli -p $port ping | grep -q PONG"
	ok $? "redis answers" || diag "$T/redis.out"
}
