#!/bin/bash
# demo.sh: ying's story end to end, in the terminal.
#
#   scripts/demo.sh            (run from anywhere; outputs go to demo-out/)
#
# Installs missing packages (scripts/deps.sh), builds ying and the demo
# service examples/leaky in build/, then: starts the service with jemalloc's
# profiler on (MALLOC_CONF=prof:true, no code change beyond linking
# jemalloc), takes two heap dumps from the running process on demand
# (SIGUSR2 -> mallctl "prof.dump"), stops it, and asks `ying top` what holds
# the memory: the leaking function and its source line.  The demo checks its
# own conclusion and exits non-zero when the story does not hold.
#
# Each step is a function named in STEPS below; add a step by writing a
# function and listing it.  Steps share: $B (build dir), $OUT (demo-out/),
# $YING, $BASE and $NOW (the two dumps), and `show CMD...` (print, then run).
set -euo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${YING_BUILD_DIR:-$ROOT/build}
OUT=$ROOT/demo-out
YING=$B/ying
LEAKY=$B/examples/leaky
BASE=$OUT/base.heap
NOW=$OUT/now.heap
STEPS=(step_build step_start_service step_take_dumps step_stop_service step_growth step_top)

bold= norm=
if [ -t 1 ]; then
	bold=$(tput bold 2>/dev/null || true)
	norm=$(tput sgr0 2>/dev/null || true)
fi
n_step=0
title() {
	n_step=$((n_step + 1))
	printf '\n%s== %d. %s%s\n' "$bold" "$n_step" "$*" "$norm"
}
say() { printf '   %s\n' "$*"; }
# show CMD...: print the command as a user would type it, then run it.
show() {
	printf '%s$ %s%s\n' "$bold" "${*//$ROOT\//}" "$norm"
	"$@"
}
die() {
	printf 'demo: %s\n' "$*" >&2
	exit 1
}

service_pid=
cleanup() {
	if [ -n "$service_pid" ] && kill -0 "$service_pid" 2>/dev/null; then
		kill "$service_pid" 2>/dev/null || true
		wait "$service_pid" 2>/dev/null || true
	fi
}
trap cleanup EXIT

step_build() {
	title "Install what is missing and build ying (build/)"
	sh "$ROOT/scripts/deps.sh"
	if [ ! -x "$ROOT/configure" ]; then
		(cd "$ROOT" && autoreconf -fi >/dev/null)
	fi
	mkdir -p "$B"
	if [ ! -f "$B/Makefile" ]; then
		(cd "$B" && "$ROOT/configure" -q)
	fi
	make -C "$B" -j"$(nproc)" -s ying examples/leaky >/dev/null
	say "built $YING ($("$YING" --version)) and $LEAKY"
}

step_start_service() {
	title "Start a service with jemalloc's profiler on"
	say "examples/leaky serves fake requests; it links jemalloc, so MALLOC_CONF turns the"
	say "profiler on (one sample per ~512 KiB allocated, <1% overhead)."
	rm -rf "$OUT"
	mkdir -p "$OUT"
	printf '%s$ MALLOC_CONF=prof:true,prof_prefix:demo-out/leaky examples/leaky &%s\n' "$bold" "$norm"
	MALLOC_CONF="prof:true,prof_prefix:$OUT/leaky" "$LEAKY" -s 5000 >"$OUT/leaky.log" 2>&1 &
	service_pid=$!
	wait_for_line 1 "leaky: pid"
	sed 's/^/   /' "$OUT/leaky.log"
}

# wait_for_line N TEXT: wait (at most 20 s) until leaky.log has N lines with TEXT.
wait_for_line() {
	local i=0
	while [ "$(grep -c "$2" "$OUT/leaky.log" || true)" -lt "$1" ]; do
		kill -0 "$service_pid" 2>/dev/null || die "the service exited: $(cat "$OUT/leaky.log")"
		[ $i -lt 200 ] || die "timed out waiting for '$2' in $OUT/leaky.log"
		sleep 0.1
		i=$((i + 1))
	done
}

step_take_dumps() {
	title "Take heap dumps from the running process, on demand"
	sleep 1
	show kill -USR2 "$service_pid"
	wait_for_line 1 "heap profile written"
	sleep 1.5
	show kill -USR2 "$service_pid"
	wait_for_line 2 "heap profile written"
	grep 'heap profile written' "$OUT/leaky.log" | sed 's/^/   /'
	local dumps
	mapfile -t dumps < <(ls -tr "$OUT"/leaky.*.heap)
	[ "${#dumps[@]}" -ge 2 ] || die "expected two dumps in $OUT"
	cp "${dumps[0]}" "$BASE"
	cp "${dumps[${#dumps[@]} - 1]}" "$NOW"
	say "dumps: ${BASE#"$ROOT"/} (earlier), ${NOW#"$ROOT"/} (later) -- jemalloc's heap_v2 text:"
	head -n 4 "$NOW" | cut -c1-100 | sed 's/^/     | /'
}

step_stop_service() {
	title "Stop the service"
	show kill "$service_pid"
	wait "$service_pid" 2>/dev/null || true
	service_pid=
	tail -n 1 "$OUT/leaky.log" | sed 's/^/   /'
}

# total DUMP: the unsampled in-use total in MiB, one decimal.
total_mib() {
	"$YING" top --json -n 1 "$1" | python3 -c 'import json, sys; print("%.1f" % (json.load(sys.stdin)["total"] / 1048576))'
}

step_growth() {
	title "Is it growing?"
	local a b
	a=$(total_mib "$BASE")
	b=$(total_mib "$NOW")
	say "in use at the first dump: $a MiB; at the second: $b MiB (jemalloc's estimate from its samples)"
	python3 -c "import sys; sys.exit(0 if $b > $a else 1)" || die "expected the heap to grow between the dumps"
}

step_top() {
	title "What holds the memory? ying top"
	show "$YING" top -n 8 "$NOW" | tee "$OUT/top.txt"
	echo
	show "$YING" top --lines -n 3 "$NOW" | tee "$OUT/top-lines.txt"
	"$YING" top --lines --json "$NOW" >"$OUT/top-lines.json"
	local verdict
	verdict=$(python3 - "$OUT/top-lines.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["rows"][0]
print("%s %s:%d %.1f" % (r["function"], r["file"], r["line"], 100.0 * r["flat"] / d["total"]))
PY
)
	set -- $verdict
	[ "$1" = audit_log_append ] || die "expected audit_log_append on top, got: $verdict"
	echo
	say "${bold}The leak: $1 at ${2#"$ROOT"/} holds $3% of the sampled heap.${norm}"
	say "$(sed -n "${2##*:}p" "$ROOT/examples/leaky.c" | sed 's/^[[:space:]]*//')   <- that line"
	say "(outputs in demo-out/)"
}

for s in "${STEPS[@]}"; do
	"$s"
done
