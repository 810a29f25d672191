#!/bin/bash
# test.sh: build ying from a clean checkout and run its whole test suite.
#
#   scripts/test.sh [--ci] [--sanitize] [--ubsan] [--no-distcheck] [--no-deps]
#                   [-j N] [--check-jobs N] [--fuzz SECONDS]
#
# Steps: scripts/deps.sh (installs missing Debian packages; needs root when
# something is missing), autoreconf -fi, configure --enable-werror in build/
# (out of tree), make, make check.  --sanitize adds a second build in
# build-sanitize/ configured with --enable-sanitize (gcc: ASan + UBSan) that
# runs the same suite with sanitizer reports made fatal.  Then `make
# distcheck` (the tarball builds and passes its tests on its own, read-only
# sources); --ubsan configures that tarball build with clang and
# --enable-sanitize=undefined (clang's UBSan, which instruments the agent
# too), so the distcheck run is also the clang-UBSan run of the whole suite.
# --no-distcheck leaves distcheck out.
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
# (this project does not skip: a missing tool is a failure) count as failed.
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
t_start=$(date +%s)

say() { printf '\n== %s\n' "$*"; }
elapsed() { echo "$(( $(date +%s) - t_start ))s"; }

finish() {
	say "summary ($(elapsed))"
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
		grep -E 'error|Error|No rule|\*\*\*|^FAIL:|^ERROR:' "$log" | tail -n 25 | sed 's/^/   | /'
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
	local rc=0
	# -k: a test that cannot be built or found does not stop the others.
	(cd "$dir" && step "make -k -j$check_jobs check" "$dir/check.out" make -k -j"$check_jobs" check) || rc=1
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

build_and_check "$BUILD" "build" --enable-werror

if [ "$sanitize" -eq 1 ]; then
	# Sanitizer findings abort the process, so the test sees a failure.
	export ASAN_OPTIONS="abort_on_error=1:halt_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1"
	export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"
	build_and_check "$SAN_BUILD" "sanitize" --enable-werror --enable-sanitize
	unset ASAN_OPTIONS UBSAN_OPTIONS
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

if [ "$distcheck" -eq 1 ]; then
	dc_flags=
	if [ "$ubsan" -eq 1 ]; then
		# clang's UBSan (undefined only: it instruments the preloaded
		# agent and the jemalloc programs as well); findings abort.
		dc_flags="CC=clang --enable-sanitize=undefined"
		export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"
		say "make distcheck (tarball built with $dc_flags)"
	else
		say "make distcheck"
	fi
	if [ -f "$BUILD/Makefile" ]; then
		# The Rust test programs' cargo target directory is the main
		# build's (tests/rust/build.sh): jemalloc-sys is not built twice.
		(cd "$BUILD" && export YING_RUST_TARGET_DIR="$BUILD/tests/rust-build/target" &&
		    step "make distcheck" "$BUILD/distcheck.out" make -j"$check_jobs" distcheck \
		    DISTCHECK_CONFIGURE_FLAGS="$dc_flags") ||
		    failed=$((failed + 1))
		if [ "$ubsan" -eq 1 ] && grep -q 'runtime error:' "$BUILD/distcheck.out"; then
			echo "   clang UBSan reported (distcheck.out):"
			grep -m 10 'runtime error:' "$BUILD/distcheck.out" | sed 's/^/   | /'
		fi
		unset UBSAN_OPTIONS
	else
		echo "   no configured build to run distcheck from"
		failed=$((failed + 1))
	fi
fi

finish
