# top_lib.sh: helpers sourced by the infra integration tests
# (tests/integration/top_*.sh, errors.sh, redis.sh).  Not a test itself.
#
# Gives: TAP output (ok/is/plan_done), a private temporary directory removed
# on exit, `ying` (the built CLI under a time limit), `run_prog` (a test
# program under MALLOC_CONF), `jeprof_total`/`jeprof_top` (the real jeprof as
# the oracle) and `jq_py` (python3 queries on ying's --json output).
# Every tool the tests need is checked up front: a missing tool skips the
# test, or fails it with YING_REQUIRE_TOOLS=1 (`need`, tap.sh).

set -u
: "${YING_BUILDDIR:?run through make check (YING_BUILDDIR unset)}"
: "${YING_SRCDIR:?run through make check (YING_SRCDIR unset)}"
YING="$YING_BUILDDIR/ying"
PROGS="$YING_BUILDDIR/tests/programs"
. "$YING_SRCDIR/tests/integration/tap.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/ying-test.XXXXXX")
cleanup_hooks=""
tl_cleanup() {
	eval "$cleanup_hooks"
	rm -rf "$T"
}
trap tl_cleanup EXIT
trap 'exit 130' INT TERM

need timeout python3 jeprof

# ying ARGS...: the CLI under test, bounded in time.
ying() {
	timeout 60 "$YING" "$@"
}

# run_prog CONF PROG DUMP: run a test program that writes DUMP itself.
run_prog() {
	MALLOC_CONF="$1" timeout 60 "$2" "$3" >"$T/prog.out" 2>&1
}

# jeprof_text PROG DUMP [jeprof options...]: jeprof --text output on stdout.
jeprof_text() {
	_p=$1 _d=$2
	shift 2
	JEPROF_TMPDIR="$T/jeprof-tmp" timeout 300 jeprof --text --show_bytes "$@" "$_p" "$_d" 2>"$T/jeprof.err"
}
# jeprof_total PROG DUMP [options]: the integer after "Total:".
jeprof_total() {
	jeprof_text "$@" | sed -n 's/^Total: \([0-9-]*\) .*/\1/p' | head -n 1
}
# jeprof_top K PROG DUMP [options]: the first K function names, sorted, one line.
jeprof_top() {
	_k=$1
	shift
	jeprof_text "$@" | awk -v k="$_k" '
		/^Total:/ { next }
		NF >= 6 && n < k { $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print; n++ }' |
	    sed 's/(.*//' | sort | tr '\n' ' ' | sed 's/ $//'
}

# jq_py FILE EXPR: evaluate a python3 expression with d = the JSON in FILE.
# Helpers in scope: rows (d["rows"]), fn(name) = the first row of that
# function (C++ names match with or without their parameter list), flat(name),
# cum(name) (0 when absent), names(k) (the first k function names, sorted).
jq_py() {
	python3 - "$1" "$2" <<'PY'
import json, sys
with open(sys.argv[1]) as f:
    d = json.load(f)
rows = d.get("rows", [])
def same(a, b):
    return a == b or (a or "").startswith(b + "(")
def fn(name):
    for r in rows:
        if same(r.get("function"), name):
            return r
    return None
def flat(name):
    return sum(r["flat"] for r in rows if same(r.get("function"), name))
def cum(name):
    r = fn(name)
    return r["cum"] if r else 0
def names(k):
    return " ".join(sorted((r["function"] or "").split("(")[0] for r in rows[:k]))
v = eval(sys.argv[2])
if isinstance(v, bool):
    v = int(v)
if isinstance(v, float) and v == int(v):
    v = int(v)
print(v)
PY
}
# trunc NUMBER: truncate toward zero as jeprof's %d does.
trunc() {
	python3 -c 'import sys, math; print(math.trunc(float(sys.argv[1])))' "$1"
}
# line_of FILE MARKER: the line number of the marker comment in a source file.
line_of() {
	grep -n "$2" "$1" | head -n 1 | cut -d: -f1
}
