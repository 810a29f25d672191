#!/bin/sh
# rust.sh: ying on a cargo-built Rust service (issue 11), side by side.
#
#   1. `ying top` vs `jeprof --text` on the same dump of rustsvc (release,
#      debug = 1, static _rjem_ jemalloc), symbolization included, runs
#      alternating; and the two totals, which must be equal.
#   2. Start-up cost of `ying run` on the unmodified binary (the agent finds
#      _rjem_mallctl in .symtab, turns prof on, starts its threads), against
#      the same binary with _RJEM_MALLOC_CONF=prof:true alone: rustsvc with
#      0 steps exits at once, so the difference is the agent's start.
#
# Needs the suite's Rust programs (make rust-build).  Environment: YING (the
# ying binary), RUSTBIN (directory of rustsvc), OUT, RUNS (default 5),
# SRCDIR.  Writes $OUT/rust.md and prints it.
set -eu
BENCH=rust
. "$SRCDIR/bench/lib.sh"
RUNS=${RUNS:-5}
SVC=$RUSTBIN/rustsvc
[ -x "$SVC" ] || { echo "rust.sh: $SVC missing (make rust-build)" >&2; exit 1; }

# A dump of the live heap after a 40-step run (400 MiB kept in 1 MiB
# entries), taken over ying run's HTTP endpoint (raw heap_v2, as jeprof reads).
D="$OUT/rust.heap"
"$YING" run --http 127.0.0.1:0 --sample 16 -- "$SVC" 40 10 0 -1 >"$OUT/rust.svc.out" 2>"$OUT/rust.svc.err" &
pid=$!
n=0
until grep -q '^step 40:' "$OUT/rust.svc.out" 2>/dev/null; do
	n=$((n + 1)); [ "$n" -lt 600 ] || { echo "rust.sh: rustsvc did not get to step 40" >&2; kill "$pid"; exit 1; }
	sleep 0.1
done
addr=$(grep -o 'http://127.0.0.1:[0-9]*' "$OUT/rust.svc.err" | head -n 1)
[ -n "$addr" ] || { echo "rust.sh: no HTTP address in $OUT/rust.svc.err" >&2; kill "$pid"; exit 1; }
curl -sf "$addr/debug/heap?format=raw" >"$D"
kill -TERM "$pid"
wait "$pid" || true
nstacks=$(grep -c '^@' "$D")

y_total=$("$YING" top --json "$D" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
j_total=$(jeprof --text --show_bytes "$SVC" "$D" 2>/dev/null | awk '/^Total:/ { print $2; exit }')

: >"$OUT/$BENCH.times"
i=0
while [ "$i" -lt "$RUNS" ]; do
	measure ying "$YING" top "$D"
	measure jeprof jeprof --text --show_bytes "$SVC" "$D"
	measure plain env _RJEM_MALLOC_CONF=prof:true "$SVC" 0 0 0 0
	measure run "$YING" run -q --http 127.0.0.1:0 -- "$SVC" 0 0 0 0
	i=$((i + 1))
done
set -- $(stats ying); y_med=$1 y_rss=$4
set -- $(stats jeprof); j_med=$1 j_rss=$4
set -- $(stats plain); p_med=$1 p_rss=$4
set -- $(stats run); r_med=$1 r_rss=$4
ratio() { python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print('%.1f' % (a / b) if b > 0 else 'inf')" "$1" "$2"; }
{
	echo "machine: $(machine)"
	echo "dump: $nstacks stacks of rustsvc (40 x 10 MiB, lg_prof_sample:16); $RUNS runs each, alternating"
	echo
	echo "| command | median wall s | median peak RSS KiB |"
	echo "|---|---|---|"
	echo "| ying top | $y_med | $y_rss |"
	echo "| jeprof --text | $j_med | $j_rss |"
	echo "| rustsvc, _RJEM_MALLOC_CONF=prof:true | $p_med | $p_rss |"
	echo "| ying run --http on rustsvc | $r_med | $r_rss |"
	echo
	echo "jeprof / ying: $(ratio "$j_med" "$y_med")x; totals: ying $y_total bytes, jeprof $j_total bytes"
	echo "ying run start-up over plain prof:true: $(python3 -c "print('%.0f ms' % ((float('$r_med') - float('$p_med')) * 1000))")"
} >"$OUT/rust.md"
cat "$OUT/rust.md"
