# tap.sh: the TAP primitives every integration test library shares
# (top_lib.sh, agent_lib.sh, diff_lib.sh, http_lib.sh).  Sourced, not run.
#
#   ok STATUS DESCRIPTION   `cmd; ok $? "what"`; returns STATUS's truth, so
#                           `ok $? "what" || diag FILE` shows details on failure
#   is GOT WANT DESCRIPTION string equality, both shown on failure
#   diag FILE...            the files' first 40 lines as TAP comments
#   need TOOL...            a missing tool fails the test (never skipped)
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
		if ! command -v "$tap_tool" >/dev/null 2>&1; then
			echo "not ok 1 - required tool '$tap_tool' is missing (run scripts/deps.sh)"
			echo "1..1"
			exit 1
		fi
	done
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
