#!/bin/bash
# test.sh: build ying from a clean checkout and run its whole test suite.
#
#   scripts/test.sh [--ci] [--sanitize] [--ubsan] [--no-distcheck] [--no-deps]
#                   [-j N] [--check-jobs N] [--fuzz SECONDS]
#
# Steps: scripts/deps.sh (installs missing Debian packages; needs root when
# something is missing), autoreconf -fi, configure --enable-werror in build/
# (out of tree), make, make check.  --ubsan configures build/ with clang and
# --enable-sanitize=undefined instead (clang's UBSan, which instruments the
# preloaded agent and the jemalloc test programs too), so that run is the
# clang-UBSan run of the whole suite.  --sanitize adds a second build in
# build-sanitize/ configured with --enable-sanitize (gcc: ASan + UBSan) that
# runs the same suite with sanitizer reports made fatal.  Then the release
# checks: every file git tracks is in the tarball (or in the list of files
# that are not shipped), and `make distcheck` builds the tarball with gcc
# from read-only sources, installs it and runs a handful of tests that read
# the source tree (DIST_TESTS below; the whole suite ran already).
# --no-distcheck leaves both out.
#
# A test that fails is run once more (`make recheck`); one that passes then
# counts as passed but is reported as FLAKY, with its first log kept as
# NAME.log.first and its failing lines shown, above the summary.
#
# --ci (the default when CI=true) is the CI profile: --sanitize --ubsan
# --fuzz 10.
# Times on the 2-core CI machine are in docs/reliability.md ("Sanitizers").
# -j N is make's parallelism for building (default 2); --check-jobs N the
# number of tests run at once (default 3: with 2 the cores sit idle while
# tests wait on programs, sockets and timers; 3 keeps them ~80 % busy).  YING_BUILD_DIR overrides build/
# (build-sanitize/ follows).
#
# Counting: every TAP result counts once.  Automake's TAP driver writes one
# `:test-result:` line per TAP `ok`/`not ok` into each test's .trs file; PASS
# and XFAIL count as passed; FAIL, XPASS, ERROR (a crash, a bad plan) and SKIP
# count as failed.  A test whose optional tool (go, jeprof, redis-server,
# cargo, ...) is missing skips under a plain `make check`; this script exports
# YING_REQUIRE_TOOLS=1, with which such a test fails instead (`need` in
# tests/integration/tap.sh), and a SKIP that still gets through is a failure.
# A step that fails before its tests can be counted (deps, configure, make, a
# test that left no .trs, distcheck) counts as one failure.  The last line is
# always exactly `N passed, N failed`; the exit status is 0 only when nothing
# failed.
#
# --fuzz SECONDS runs every libFuzzer target (scripts/fuzz.sh all SECONDS,
# clang build in build-fuzz/) after the rest, one pass or failure per
# target; with CI=true it is on by default at 10 s per target (--fuzz 0
# turns it off).
set -u
export LC_ALL=C
# A missing optional tool fails its test here (a plain `make check` skips it).
export YING_REQUIRE_TOOLS=1

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1

sanitize=0
ubsan=0
distcheck=1
deps=1
jobs=2
check_jobs=3
if [ "${CI:-}" = true ]; then
	sanitize=1
	ubsan=1
fi
fuzz_secs=0
[ "${CI:-}" = true ] && fuzz_secs=10
while [ $# -gt 0 ]; do
	case "$1" in
	--ci) sanitize=1; ubsan=1; fuzz_secs=10 ;;
	--sanitize) sanitize=1 ;;
	--ubsan) ubsan=1 ;;
	--check-jobs) shift; check_jobs=${1:?--check-jobs needs a number} ;;
	--distcheck) distcheck=1 ;;
	--no-distcheck) distcheck=0 ;;
	--no-deps) deps=0 ;;
	-j) shift; jobs=${1:?-j needs a number} ;;
	--fuzz) shift; fuzz_secs=${1:?--fuzz needs SECONDS per target} ;;
	-j*) jobs=${1#-j} ;;
	-h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
	*) echo "test.sh: unknown option '$1' (try --help)" >&2; echo "0 passed, 1 failed"; exit 2 ;;
	esac
	shift
done

BUILD=${YING_BUILD_DIR:-$ROOT/build}
case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
SAN_BUILD=$BUILD-sanitize

passed=0
failed=0
missing=0
flaky=()
t_start=$(date +%s)

say() { printf '\n== %s\n' "$*"; }
elapsed() { echo "$(( $(date +%s) - t_start ))s"; }

finish() {
	say "summary ($(elapsed))"
	local f
	for f in ${flaky[@]+"${flaky[@]}"}; do
		echo "   FLAKY $f"
	done
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit $?
}

# step NAME LOG CMD...: run a build step, log it; on failure show the tail.
step() {
	local name=$1 log=$2
	shift 2
	local t0
	t0=$(date +%s)
	if "$@" >"$log" 2>&1; then
		echo "   $name: ok ($(( $(date +%s) - t0 ))s)"
		return 0
	fi
	if grep -qE 'error|Error|No rule|\*\*\*|^FAIL:|^ERROR:' "$log"; then
		echo "   $name: FAILED ($(( $(date +%s) - t0 ))s); errors in $log:"
		# Failed tests first (their PASS lines may mention "error").
		grep -E '^(FAIL|ERROR|XPASS):' "$log" | head -n 25 | sed 's/^/   | /'
		grep -E 'error|Error|No rule|\*\*\*' "$log" | grep -vE '^(PASS|FAIL|ERROR|XPASS|XFAIL):' |
		    tail -n 25 | sed 's/^/   | /'
	else
		echo "   $name: FAILED ($(( $(date +%s) - t0 ))s); last lines of $log:"
		tail -n 40 "$log" | sed 's/^/   | /'
	fi
	return 1
}

# count_results DIR LABEL: add DIR's TAP results to the totals, print each
# test.  Every test in the Makefile's TESTS must have left a .trs file.
count_results() {
	local dir=$1 label=$2 t base trs p f s
	local -a tests
	mapfile -t tests < <(make -s -C "$dir" infra-list-tests 2>/dev/null)
	if [ "${#tests[@]}" -eq 0 ]; then
		echo "   $label: could not list the tests"
		failed=$((failed + 1))
		return
	fi
	for t in "${tests[@]}"; do
		base=${t%.sh}
		trs=$dir/$base.trs
		if [ ! -f "$trs" ]; then
			printf '   FAIL %-52s did not run (not built, or missing)\n' "$base"
			failed=$((failed + 1))
			missing=$((missing + 1))
			continue
		fi
		p=$(grep -cE '^:test-result: (PASS|XFAIL)' "$trs")
		f=$(grep -cE '^:test-result: (FAIL|XPASS|ERROR)' "$trs")
		s=$(grep -cE '^:test-result: SKIP' "$trs")
		f=$((f + s))
		if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
			f=1
		fi
		passed=$((passed + p))
		failed=$((failed + f))
		if [ "$f" -eq 0 ]; then
			printf '   PASS %-52s %4d ok\n' "$base" "$p"
		else
			printf '   FAIL %-52s %4d ok, %d failed\n' "$base" "$p" "$f"
			if [ -f "$dir/$base.log" ]; then
				grep -E '^(not ok|ERROR|SKIP|Bail out)|runtime error|Sanitizer|^ +#[0-9]+ 0x' "$dir/$base.log" | head -n 30 | sed 's/^/      | /'
				echo "      | ... last lines of $dir/$base.log:"
				tail -n 15 "$dir/$base.log" | sed 's/^/      | /'
			fi
		fi
	done
}

# failed_tests DIR: the tests of DIR whose .trs holds a failure (or none).
failed_tests() {
	local dir=$1 t base
	while read -r t; do
		base=${t%.sh}
		if [ ! -f "$dir/$base.trs" ] ||
		    grep -qE '^:test-result: (FAIL|XPASS|ERROR|SKIP)' "$dir/$base.trs"; then
			echo "$base"
		fi
	done < <(make -s -C "$dir" infra-list-tests 2>/dev/null)
}

# build_and_check DIR LABEL CONFIGURE-ARGS...
build_and_check() {
	local dir=$1 label=$2
	shift 2
	say "$label: configure $* (in ${dir#"$ROOT"/})"
	rm -rf "$dir"
	mkdir -p "$dir"
	(cd "$dir" && step configure "$dir/configure.out" "$ROOT/configure" "$@") ||
	    { failed=$((failed + 1)); return 1; }
	(cd "$dir" && step "make -j$jobs" "$dir/make.out" make -j"$jobs") ||
	    { failed=$((failed + 1)); return 1; }
	say "$label: make check"
	local rc=0 t
	local -a first
	# -k: a test that cannot be built or found does not stop the others.
	(cd "$dir" && step "make -k -j$check_jobs check" "$dir/check.out" make -k -j"$check_jobs" check) || rc=1
	if [ "$rc" -ne 0 ]; then
		# Once more for the tests that failed: a pass now is reported
		# as FLAKY (first log kept), not hidden.
		mapfile -t first < <(failed_tests "$dir")
		if [ "${#first[@]}" -gt 0 ]; then
			for t in "${first[@]}"; do
				[ -f "$dir/$t.log" ] && cp "$dir/$t.log" "$dir/$t.log.first"
			done
			echo "   rerunning: ${first[*]}"
			rc=0
			(cd "$dir" && step "make -k recheck" "$dir/recheck.out" make -k -j"$check_jobs" recheck) || rc=1
			for t in "${first[@]}"; do
				if ! failed_tests "$dir" | grep -qxF "$t"; then
					flaky+=("$label $t: failed, then passed on rerun (first log: ${dir#"$ROOT"/}/$t.log.first)")
					echo "   FLAKY $t: failed once, passed on rerun; its first run:"
					grep -E '^(not ok|ERROR|Bail out)|runtime error|Sanitizer' "$dir/$t.log.first" |
					    head -n 10 | sed 's/^/      | /'
				fi
			done
		fi
	fi
	local before=$failed
	missing=0
	count_results "$dir" "$label"
	if [ "$rc" -ne 0 ] && [ "$failed" -eq "$before" ]; then
		# make check failed although every test ran and passed.
		echo "   make check failed without a failing test result"
		failed=$((failed + 1))
	fi
	return 0
}

say "ying test suite: $(uname -srm), $(nproc) cores, CI=${CI:-}"
if [ "$deps" -eq 1 ]; then
	say "dependencies"
	step "scripts/deps.sh" "$ROOT/deps.out" sh "$ROOT/scripts/deps.sh" ||
	    { failed=$((failed + 1)); finish; }
fi

say "autoreconf -fi"
step autoreconf "$ROOT/autoreconf.out" autoreconf -fi || { failed=$((failed + 1)); finish; }
rm -f "$ROOT/deps.out" "$ROOT/autoreconf.out"

if [ "$ubsan" -eq 1 ]; then
	# clang's UBSan (undefined only); findings abort.
	export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"
	build_and_check "$BUILD" "build (clang UBSan)" --enable-werror CC=clang --enable-sanitize=undefined
	if grep -qs 'runtime error:' "$BUILD"/tests/*/*.log "$BUILD"/tests/*/*.log.first; then
		echo "   clang UBSan reported:"
		grep -h 'runtime error:' "$BUILD"/tests/*/*.log "$BUILD"/tests/*/*.log.first 2>/dev/null |
		    head -n 10 | sed 's/^/   | /'
	fi
	unset UBSAN_OPTIONS
else
	build_and_check "$BUILD" "build" --enable-werror
fi

if [ "$sanitize" -eq 1 ]; then
	# Sanitizer findings abort the process, so the test sees a failure.
	export ASAN_OPTIONS="abort_on_error=1:halt_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1"
	export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"
	# One cargo target directory for both trees (tests/rust/build.sh):
	# the vendored jemalloc of jemalloc-sys is built once, not twice.
	export YING_RUST_TARGET_DIR="$BUILD/tests/rust-build/target"
	build_and_check "$SAN_BUILD" "sanitize" --enable-werror --enable-sanitize
	unset ASAN_OPTIONS UBSAN_OPTIONS YING_RUST_TARGET_DIR
fi

# fuzz_all SECONDS: each fuzz target for SECONDS; one result per target.
fuzz_all() {
	local line t n=0
	say "fuzz: every target for $1 s (scripts/fuzz.sh, in build-fuzz/)"
	while read -r line; do
		echo "   $line"
		case "$line" in
		"fuzz "*": "*" s, "*)
			n=$((n + 1))
			case "$line" in
			*", crashes 0") passed=$((passed + 1)) ;;
			*) failed=$((failed + 1)) ;;
			esac ;;
		esac
	done < <("$ROOT/scripts/fuzz.sh" all "$1" 2>&1)
	t=$("$ROOT/scripts/fuzz.sh" --list | wc -l)
	if [ "$n" -ne "$t" ]; then
		echo "   fuzz: $n of $t targets ran"
		failed=$((failed + t - n))
	fi
}
[ "$fuzz_secs" -gt 0 ] && fuzz_all "$fuzz_secs"

# Tests distcheck runs in the tarball's read-only VPATH build: the ones that
# read the source tree (fixtures, corpora, sources, headers).
DIST_TESTS="tests/unit/test_fixtures tests/unit/test_heap_parse tests/integration/header.sh tests/integration/layers.sh tests/integration/house.sh tests/fuzz/fuzz_replay"

# dist_complete TARBALL: every file git tracks is in the tarball, except
# those that are not shipped (git and CI plumbing).
dist_complete() {
	local tarball=$1 missing_files
	if ! git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
		echo "   tarball contents: not a git checkout, not compared"
		return 0
	fi
	missing_files=$(comm -23 \
	    <(git -C "$ROOT" ls-files | grep -vxE '\.gitignore|\.ci/.*' | sort) \
	    <(tar tzf "$tarball" | sed 's|^[^/]*/||' | sort))
	if [ -n "$missing_files" ]; then
		echo "   tarball contents: FAILED; tracked by git but not in $(basename "$tarball") (add them to EXTRA_DIST):"
		echo "$missing_files" | head -n 20 | sed 's/^/   | /'
		return 1
	fi
	echo "   tarball contents: ok (every tracked file is shipped)"
}

if [ "$distcheck" -eq 1 ]; then
	say "make distcheck (gcc, read-only sources; TESTS: the tests that read the source tree)"
	if [ -f "$BUILD/Makefile" ]; then
		# The Rust test programs' cargo target directory is the main
		# build's (tests/rust/build.sh): jemalloc-sys is not built twice.
		if (cd "$BUILD" && export YING_RUST_TARGET_DIR="$BUILD/tests/rust-build/target" &&
		    step "make distcheck" "$BUILD/distcheck.out" make -j"$check_jobs" distcheck \
		    DISTCHECK_CONFIGURE_FLAGS="CC=gcc --enable-werror" TESTS="$DIST_TESTS"); then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
		fi
		tarball=$(ls "$BUILD"/*.tar.gz 2>/dev/null | head -n 1)
		if [ -n "$tarball" ] && dist_complete "$tarball"; then
			passed=$((passed + 1))
		else
			[ -z "$tarball" ] && echo "   tarball contents: no tarball in ${BUILD#"$ROOT"/}"
			failed=$((failed + 1))
		fi
	else
		echo "   no configured build to run distcheck from"
		failed=$((failed + 1))
	fi
fi

finish
