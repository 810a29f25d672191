#!/bin/bash
# demo.sh: ying's story end to end, in the terminal.
#
#   scripts/demo.sh            (run from anywhere; outputs go to demo-out/)
#
# Installs missing packages (scripts/deps.sh), builds ying and the demo
# service examples/leaky in build/, then: starts the service under
# `ying run --http` (the profiler on, the ying agent inside it serving HTTP
# and writing growth reports; no code change), takes two heap dumps from the
# running process with curl, asks `ying top` what holds the memory and
# `yingdiff` what grew (with a differential flame graph), draws a flame
# graph, reads the live pprof endpoint with `go tool pprof`, stops the
# service and shows the growth reports the agent wrote by itself.  The demo
# checks its own conclusions and exits non-zero when the story does not
# hold.
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
YINGDIFF=$B/yingdiff
PORT=
URL=
LEAKY=$B/examples/leaky
BASE=$OUT/base.heap
NOW=$OUT/now.heap
STEPS=(step_build step_start_service step_take_dumps step_growth step_top step_diff step_formats
	step_stop_service step_reports)

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
	make -C "$B" -j"$(nproc)" -s ying yingdiff libying-agent.la examples/leaky >/dev/null
	say "built $YING ($("$YING" --version)), yingdiff, the agent and $LEAKY"
}

step_start_service() {
	title "Start a service under ying run: profiler, HTTP endpoint, growth reports"
	say "examples/leaky serves fake requests and leaks a little on each.  ying run turns"
	say "jemalloc's profiler on (one sample per ~512 KiB allocated) and loads the ying"
	say "agent into it: no code change, no restart later to look inside."
	rm -rf "$OUT"
	mkdir -p "$OUT"
	PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	URL=http://127.0.0.1:$PORT
	printf '%s$ ying run --http 127.0.0.1:%s --report-dir demo-out/reports --interval 1 -- examples/leaky &%s\n' \
	    "$bold" "$PORT" "$norm"
	"$YING" run --http "127.0.0.1:$PORT" --report-dir "$OUT/reports" --interval 1 \
	    -- "$LEAKY" -s 5000 >"$OUT/leaky.log" 2>&1 &
	service_pid=$!
	wait_for_line 1 "leaky: pid"
	local i=0
	until curl -sf -o /dev/null "$URL/debug/prof"; do
		[ $i -lt 100 ] || die "the HTTP endpoint did not come up: $(cat "$OUT/leaky.log")"
		sleep 0.1
		i=$((i + 1))
	done
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
	title "Take heap dumps from the running process with curl"
	sleep 1
	show curl -s -o "$BASE" "$URL/debug/heap"
	sleep 2
	show curl -s -o "$NOW" "$URL/debug/heap"
	say "dumps: ${BASE#"$ROOT"/} (earlier), ${NOW#"$ROOT"/} (later) -- jemalloc's heap_v2 text:"
	head -n 4 "$NOW" | cut -c1-100 | sed 's/^/     | /'
}

step_stop_service() {
	title "Stop the service (ying run passes the signal on)"
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

step_diff() {
	title "What grew between the two dumps? yingdiff"
	show "$YINGDIFF" -n 5 "$BASE" "$NOW" --svg "$OUT/growth.svg" | tee "$OUT/diff.txt"
	"$YINGDIFF" --json "$BASE" "$NOW" >"$OUT/diff.json"
	local grew
	grew=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=max(d["rows"], key=lambda r: r["delta"]); print(r["function"], "%.0f" % (100.0 * r["delta"] / d["delta"]))' "$OUT/diff.json")
	set -- $grew
	[ "$1" = audit_log_append ] || die "expected audit_log_append to grow most, got: $grew"
	say "${bold}$1 accounts for $2% of the growth.${norm} Differential flame graph (red grew):"
	say "  ${OUT#"$ROOT"/}/growth.svg"
}

step_formats() {
	title "Look at it: a flame graph, and pprof straight from the live endpoint"
	show "$YING" flamegraph "$NOW" -o "$OUT/now.svg"
	say "open ${OUT#"$ROOT"/}/now.svg in a browser: hover, click to zoom, Ctrl-F to search"
	show curl -s -o "$OUT/heap.pb.gz" "$URL/debug/pprof/heap"
	mkdir -p "$OUT/go"
	printf '%s$ go tool pprof -top demo-out/heap.pb.gz%s\n' "$bold" "$norm"
	HOME=$OUT/go GOCACHE=$OUT/go/cache GOPATH=$OUT/go/path GOFLAGS=-mod=mod \
	    go tool pprof -top -nodecount=6 "$OUT/heap.pb.gz" 2>&1 | sed -n '1,12p' | sed 's/^/   /'
}

step_reports() {
	title "The agent watched by itself: growth reports, ls tells the story"
	ls "$OUT/reports"/*.report >/dev/null 2>&1 || die "no growth reports in $OUT/reports"
	show ls -l "$OUT/reports"
	local last
	last=$(ls "$OUT/reports"/*.report | tail -n 1)
	printf '%s$ head -n 25 %s%s\n' "$bold" "${last#"$ROOT"/}" "$norm"
	head -n 25 "$last" | sed 's/^/   /'
	grep -q audit_log_append "$last" || die "the last report does not name audit_log_append"
	say "(everything is in demo-out/)"
}

for s in "${STEPS[@]}"; do
	"$s"
done
