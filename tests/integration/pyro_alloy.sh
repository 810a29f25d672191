#!/bin/sh
# pyro_alloy.sh: Grafana Alloy's pull of memory profiles gets true
# allocation deltas from ying.
#
# Alloy's pyroscope.scrape GETs /debug/pprof/allocs and, for memory,
# drops the first scrape and turns alloc_* into deltas, matching samples
# between scrapes on their addresses plus every label
# (tests/pyro/alloy_delta.py does that step).  tests/programs/many_stacks
# 2000 0 under `ying run --sample 0 --accum --http` (every allocation
# sampled, cumulative counts kept) holds 2000 stacks and 64 KiB in
# grow_more; two scrapes, and between them grow_more allocates 4 MiB more
# (1024 x 4 KiB) on the same stack.  Both scrapes must be what Alloy takes
# (200, a non-empty pprof, Content-Type application/octet-stream) and pass
# tests/pyro/validate.py with Alloy's labels; in the delta every current
# sample must have matched one of the first scrape (the program made no new
# stack), grow_more's alloc_space delta must be 4 MiB (within 1 %: nothing
# is sampled away) and alloc_objects 1024 with its inuse_space kept as it
# is (4 MiB + 64 KiB), and the other stacks' deltas must sum to ~0 (under
# 1 % of 4 MiB).
#
# Not in PYRO_TESTS yet: today every sample carries a numeric "bytes"
# label, the stack's average object size, which moves from 1024 to 3915
# when grow_more grows, so Alloy sees a new stack and its delta is the
# whole 4 MiB + 64 KiB.  Register it in mk/tests_pyro.mk once the label is
# gone (or stable).
. "$YING_SRCDIR/tests/integration/pyro_lib.sh"
ALLOY="$YING_SRCDIR/tests/pyro/alloy_delta.py"
VALIDATE="$YING_SRCDIR/tests/pyro/validate.py"
GROW=4194304

mkdir -p "$T/ctl"
port=$(free_port)
ying run --http "127.0.0.1:$port" --sample 0 --accum -- "$PROGS/many_stacks" 2000 0 "$T/ctl" \
    >"$T/out" 2>"$T/err" &
run_pid=$!
bg_pids="$bg_pids $run_pid"
wait_for 60 grep -q '^ready ' "$T/out"
ok $? "many_stacks 2000 0 under ying run --accum made its stacks" || diag "$T/out" "$T/err"
B="http://127.0.0.1:$port"

# scrape I: Alloy's GET (no Accept-Encoding, no seconds=) into $T/sI.pprof
scrape() {
	sc=$(curl -s --max-time 30 -D "$T/h$1" -o "$T/s$1.pprof" -w '%{http_code}' "$B/debug/pprof/allocs")
	is "$sc" 200 "scrape $1: GET /debug/pprof/allocs is 200" || diag "$T/err"
	[ -s "$T/s$1.pprof" ] && grep -qi '^content-type: application/octet-stream' "$T/h$1"
	ok $? "... a non-empty body, Content-Type application/octet-stream" || diag "$T/h$1"
	python3 "$VALIDATE" "$T/s$1.pprof" --label __name__=memory --label service_name=many_stacks \
	    --label job=pyroscope.scrape --label "instance=127.0.0.1:$port" >"$T/v$1" 2>&1
	ok $? "... passes validate.py with Alloy's labels" || diag "$T/v$1"
}
scrape 1
touch "$T/ctl/grow"
wait_for 30 grep -q '^grown ' "$T/out"
ok $? "grow_more allocated 4 MiB more" || diag "$T/out"
scrape 2
touch "$T/ctl/stop"

python3 "$ALLOY" "$T/s1.pprof" "$T/s2.pprof" >"$T/delta.jsonl" 2>"$T/delta.err"
ok $? "alloy_delta.py of the two scrapes" || diag "$T/delta.err"
# dq PYEXPR: on the delta's rows (r) and summary (s)
dq() {
	python3 -c 'import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
s = rows.pop()["summary"]
g = [x for x in rows if x["stack"] and x["stack"][0] == "grow_more"]
o = [x for x in rows if not (x["stack"] and x["stack"][0] == "grow_more")]
v = eval(sys.argv[2])
print(int(v) if isinstance(v, bool) else v)' "$T/delta.jsonl" "$1"
}
is "$(dq 's["unmatched"]')" 0 "every sample of scrape 2 matched one of scrape 1 (no new stack)" ||
    grep '"matched": false' "$T/delta.jsonl" | head -3 | cut -c1-300 | sed 's/^/#   /'
is "$(dq 'len(g)')" 1 "grow_more is one sample"
ga=$(dq 'sum(x["alloc_space"] for x in g)')
python3 -c 'import sys; a, b = float(sys.argv[1] or 0), float(sys.argv[2]); sys.exit(0 if abs(a - b) <= 0.01 * b else 1)' "$ga" "$GROW"
ok $? "grow_more's alloc_space delta ($ga B) is the $GROW B it allocated within 1 %"
is "$(dq 'sum(x["alloc_objects"] for x in g)')" 1024 "grow_more's alloc_objects delta is 1024"
is "$(dq 'sum(x["inuse_space"] for x in g)')" $((GROW + 65536)) "grow_more's inuse_space is kept as it is (4 MiB + 64 KiB)"
oa=$(dq 'sum(abs(x["alloc_space"]) for x in o)')
python3 -c 'import sys; sys.exit(0 if float(sys.argv[1] or 0) <= 0.01 * float(sys.argv[2]) else 1)' "$oa" "$GROW"
ok $? "the other $(dq 'len(o)') stacks' deltas sum to ~0 ($oa B)"
wait "$run_pid"
is "$?" 0 "ying run exits 0 once the program stops" || diag "$T/err"
plan_done
