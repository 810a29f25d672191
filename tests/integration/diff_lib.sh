# diff_lib.sh: helpers shared by tests/integration/diff_*.sh (sourced).
#
# Sets YD (the built yingdiff), YING (the built ying), PROG (the profiled
# test program tests/programs/diff_grow) and T (a private temp directory,
# removed on exit), and gives TAP helpers: ok STATUS DESC, check DESC CMD...,
# done_testing.  A missing tool skips the test (`need`, tap.sh), or fails it
# with YING_REQUIRE_TOOLS=1.

: "${YING_BUILDDIR:?run through make check (YING_BUILDDIR unset)}"
YD="$YING_BUILDDIR/yingdiff"
YING="$YING_BUILDDIR/ying"
PROG="$YING_BUILDDIR/tests/programs/diff_grow"
T=$(mktemp -d "${TMPDIR:-/tmp}/yingdiff-test.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
. "$YING_SRCDIR/tests/integration/tap.sh"


# check DESC CMD ARGS...: ok when CMD succeeds.
check() {
	desc=$1
	shift
	if "$@"; then ok 0 "$desc"; else ok 1 "$desc"; fi
}

# status_is DESC WANT CMD ARGS...: ok when CMD exits with WANT.
status_is() {
	desc=$1
	want=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	if [ "$got" -eq "$want" ]; then
		ok 0 "$desc"
	else
		ok 1 "$desc"
		echo "#   exit $got, expected $want; stderr:"
		sed 's/^/#   /' "$T/err" | head -5
	fi
}


# Run the test program at a given lg_prof_sample: prog LG ARGS...
prog() {
	lg=$1
	shift
	MALLOC_CONF="prof:true,lg_prof_sample:$lg" "$PROG" "$@"
}

# json_check FILE PYTHON-EXPR-LINES: run python with `j` = the parsed file;
# the code must raise (assert) on failure.
json_check() {
	f=$1
	shift
	python3 -c "import json,sys
j = json.load(open(sys.argv[1]))
$*" "$f"
}

need python3
[ -x "$YD" ] || { echo "Bail out! $YD not built"; exit 1; }
[ -x "$PROG" ] || { echo "Bail out! $PROG not built"; exit 1; }
