#!/bin/bash
# fuzz.sh: run ying's libFuzzer targets (tests/fuzz/fuzz_<target>.c).
#
#   scripts/fuzz.sh TARGET SECONDS    one target for SECONDS (wall)
#   scripts/fuzz.sh all SECONDS       every target, one after the other
#   scripts/fuzz.sh --list            the targets
#
# Builds build-fuzz/ (out of tree: CC=clang configure --enable-fuzz, then
# `make fuzz-targets`) when needed; YING_FUZZ_BUILD overrides the directory,
# YING_FUZZ_NOBUILD=1 runs the programs already built (a long campaign
# keeps its binary while the sources change).
# Each run reads the committed seed corpus tests/fuzz/corpus/TARGET and the
# regression inputs tests/fuzz/regress/TARGET (never written) and adds what
# it finds to a temporary work corpus (removed after; YING_FUZZ_KEEP=1 keeps
# it and prints where).  Options: -rss_limit_mb=2048 -timeout=10, the
# target's dictionary tests/fuzz/dict/TARGET.dict when there is one, plus
# $YING_FUZZ_ARGS (e.g. -malloc_limit_mb=512).  Crash, timeout and oom
# inputs go to build-fuzz/crashes/TARGET/, the libFuzzer log to
# build-fuzz/fuzz-logs/TARGET.log.  One summary line per target:
#
#   fuzz heap: 600 s, 5123456 execs, 8538 exec/s, cov 1830 ft 9120, corpus 812, crashes 0
#
# Exit status 0 only when no target crashed, timed out or ran out of memory.
# A crash: reproduce with build-fuzz/tests/fuzz/fuzz_TARGET CRASH-FILE, fix,
# then copy the file to tests/fuzz/regress/TARGET/ (make check replays it).
set -u
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${YING_FUZZ_BUILD:-$ROOT/build-fuzz}
case "$BUILD" in /*) ;; *) BUILD=$PWD/$BUILD ;; esac

targets() {
	local f
	for f in "$ROOT"/tests/fuzz/fuzz_*.c; do
		f=${f##*/fuzz_}
		f=${f%.c}
		[ "$f" = replay ] || echo "$f"
	done
}

usage() {
	awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
}

case "${1:-}" in
--list) targets; exit 0 ;;
-h|--help) usage; exit 0 ;;
"") usage >&2; exit 2 ;;
esac
target=$1
secs=${2:-}
case "$secs" in
''|*[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number (got '$secs')" >&2; exit 2 ;;
esac
if [ "$target" != all ] && ! targets | grep -qx -- "$target"; then
	echo "fuzz.sh: no target '$target' (scripts/fuzz.sh --list: $(targets | tr '\n' ' '))" >&2
	exit 2
fi

build() {
	command -v clang >/dev/null ||
	    { echo "fuzz.sh: clang not found (apt-get install clang libclang-rt-14-dev)" >&2; return 1; }
	if [ ! -f "$BUILD/Makefile" ]; then
		if [ ! -x "$ROOT/configure" ]; then
			(cd "$ROOT" && autoreconf -fi) >"$ROOT/autoreconf.out" 2>&1 ||
			    { echo "fuzz.sh: autoreconf failed (see $ROOT/autoreconf.out)" >&2; return 1; }
		fi
		mkdir -p "$BUILD"
		(cd "$BUILD" && CC=clang "$ROOT/configure" --enable-fuzz) >"$BUILD/configure.out" 2>&1 ||
		    { tail -5 "$BUILD/configure.out" >&2; echo "fuzz.sh: configure failed (see $BUILD/configure.out)" >&2; return 1; }
	fi
	make -C "$BUILD" -j"$(nproc)" fuzz-targets >"$BUILD/make-fuzz.out" 2>&1 ||
	    { tail -20 "$BUILD/make-fuzz.out" >&2; echo "fuzz.sh: build failed (see $BUILD/make-fuzz.out)" >&2; return 1; }
}

# run_one TARGET SECONDS: one campaign, one summary line; status 0 when clean.
run_one() {
	local t=$1 s=$2 bin="$BUILD/tests/fuzz/fuzz_$1" crashes="$BUILD/crashes/$1"
	local log="$BUILD/fuzz-logs/$1.log" work rc dict=() t0 t1 before after
	local execs eps cov ft corp status

	if [ ! -x "$bin" ]; then
		echo "fuzz $t: FAILED: $bin was not built"
		return 1
	fi
	mkdir -p "$crashes" "$BUILD/fuzz-logs"
	work=$(mktemp -d "${TMPDIR:-/tmp}/ying-fuzz-$t.XXXXXX") || return 1
	[ -f "$ROOT/tests/fuzz/dict/$t.dict" ] && dict=("-dict=$ROOT/tests/fuzz/dict/$t.dict")
	before=$(find "$crashes" -type f | wc -l)
	t0=$(date +%s)
	# shellcheck disable=SC2086  # YING_FUZZ_ARGS: several options
	"$bin" -max_total_time="$s" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
	    -artifact_prefix="$crashes/" "${dict[@]}" ${YING_FUZZ_ARGS:-} \
	    "$work" "$ROOT/tests/fuzz/corpus/$t" $( [ -d "$ROOT/tests/fuzz/regress/$t" ] &&
	    echo "$ROOT/tests/fuzz/regress/$t") >"$log" 2>&1
	rc=$?
	t1=$(date +%s)
	after=$(find "$crashes" -type f | wc -l)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	corp=$(find "$work" -type f | wc -l)
	status="crashes $((after - before))"
	[ "$rc" -ne 0 ] && status="$status, FAILED (exit $rc; see $log and $crashes/)"
	echo "fuzz $t: $((t1 - t0)) s, ${execs:-?} execs, ${eps:-?} exec/s, cov ${cov:-?} ft ${ft:-?}, corpus $corp, $status"
	if [ "${YING_FUZZ_KEEP:-0}" = 1 ]; then
		echo "fuzz $t: work corpus kept in $work"
	else
		rm -rf "$work"
	fi
	[ "$rc" -eq 0 ] && [ "$after" -eq "$before" ]
}

[ "${YING_FUZZ_NOBUILD:-0}" = 1 ] || build || exit 1
fail=0
if [ "$target" = all ]; then
	for t in $(targets); do
		run_one "$t" "$secs" || fail=1
	done
else
	run_one "$target" "$secs" || fail=1
fi
exit "$fail"
