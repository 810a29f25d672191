# tap.sh: the TAP primitives every integration test library shares
# (top_lib.sh, agent_lib.sh, diff_lib.sh, http_lib.sh).  Sourced, not run.
#
#   ok STATUS DESCRIPTION   `cmd; ok $? "what"`; returns STATUS's truth, so
#                           `ok $? "what" || diag FILE` shows details on failure
#   is GOT WANT DESCRIPTION string equality, both shown on failure
#   diag FILE...            the files' first 40 lines as TAP comments
#   need TOOL...            a missing optional tool (go, jeprof, redis-server,
#                           chromium, cargo, strace, ... or any command; an
#                           absolute path is checked as a file) skips the
#                           test, see `missing`
#   missing WHAT            WHAT (a tool, a package's files) is not installed:
#                           under a plain `make check` the rest of the test is
#                           skipped (a `1..0 # SKIP` plan, or one `ok # SKIP`
#                           line and the plan when results came first; the
#                           status stays 0 so automake's TAP driver records
#                           SKIP, its form of exit 77); with
#                           YING_REQUIRE_TOOLS=1 (scripts/test.sh, CI) it is
#                           a failure.  Never returns.
#   done_testing            print the plan; status 0 when nothing failed
#   plan_done               done_testing, then exit with its status
#   serve_dir DIR           python3's http.server on DIR (127.0.0.1, a free
#                           port) in the background, output in DIR.out and
#                           DIR.err; sets wpid and wport; status 1 when it
#                           announced no port within 5 s (the caller kills it)
export PYTHONDONTWRITEBYTECODE=1  # never write into the source tree
TAP_N=0
TAP_FAILED=0

ok() {
	TAP_N=$((TAP_N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $TAP_N - $2"
	else
		echo "not ok $TAP_N - $2"
		TAP_FAILED=$((TAP_FAILED + 1))
	fi
	[ "$1" -eq 0 ]
}

is() {
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		echo "#   got:      '$1'"
		echo "#   expected: '$2'"
		return 1
	fi
}

diag() {
	sed 's/^/#   /' "$@" 2>/dev/null | head -n 40
}

need() {
	for tap_tool in "$@"; do
		command -v "$tap_tool" >/dev/null 2>&1 || missing "required tool '$tap_tool'"
	done
}

missing() {
	if [ "${YING_REQUIRE_TOOLS:-0}" = 1 ]; then
		echo "not ok $((TAP_N + 1)) - $1 is missing (run scripts/deps.sh; YING_REQUIRE_TOOLS=1: a missing tool is a failure)"
		echo "1..$((TAP_N + 1))"
		exit 1
	fi
	if [ "$TAP_N" -eq 0 ]; then
		echo "1..0 # SKIP $1 is missing (run scripts/deps.sh)"
		exit 0
	fi
	echo "ok $((TAP_N + 1)) # SKIP the rest: $1 is missing (run scripts/deps.sh)"
	TAP_N=$((TAP_N + 1))
	done_testing
	exit $?
}

done_testing() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" -eq 0 ]
}

plan_done() {
	done_testing
	exit $?
}

# tool_homes DIR: HOME and the caches of go, jeprof and pprof inside DIR
# (exported, created), so the tools never write to the real home or /tmp.
tool_homes() {
	HOME="$1/home" GOCACHE="$1/gocache" GOPATH="$1/gopath"
	JEPROF_TMPDIR="$1/jeprof" PPROF_TMPDIR="$1/pprof"
	export HOME GOCACHE GOPATH JEPROF_TMPDIR PPROF_TMPDIR
	mkdir -p "$HOME" "$GOCACHE" "$GOPATH" "$JEPROF_TMPDIR" "$PPROF_TMPDIR"
}

serve_dir() {
	python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$1" >"$1.out" 2>"$1.err" &
	wpid=$!
	wport=""
	for _ in $(seq 1 100); do
		wport=$(sed -n 's/.* port \([0-9]*\).*/\1/p' "$1.out" | head -n 1)
		[ -n "$wport" ] && return 0
		sleep 0.05
	done
	return 1
}

# near_jeprof GOT JEPROF DUMP...: GOT, ying's total, is within half a unit
# per stack (the '@' lines of the DUMPs) plus one of JEPROF, jeprof's Total
# for them: ying rounds each stack's estimate once, jeprof sums the
# unrounded ones and truncates.  Both must be numbers.
near_jeprof() {
	_nj_g=$1 _nj_j=$2
	shift 2
	_nj_n=0
	for _nj_d in "$@"; do
		_nj_n=$((_nj_n + $(grep -c '^@' "$_nj_d")))
	done
	python3 -c 'import sys; g, j, n = map(float, sys.argv[1:]); sys.exit(abs(g - j) > n // 2 + 1)' \
	    "$_nj_g" "$_nj_j" "$_nj_n" 2>/dev/null
}
