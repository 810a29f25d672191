#!/bin/sh
# pyro_children.sh: a pre-forking program's uploads (issue 25): under `ying
# run --pyroscope`, agent_workers' head and its two long-lived workers
# each upload their own series (a pid label each, one service), the ten
# short children none (the uploader runs once per process that lives on,
# not once per fork); a worker's series holds its own heap (worker_fill).
. "$YING_SRCDIR/tests/integration/pyro_lib.sh"

standin_start s
mkdir -p "$T/w"
ying run --sample 14 --pyroscope "$s_URL" --service svc --pyroscope-interval 1 \
    -- "$PROGS/agent_workers" "$T/w" 2 10 >"$T/out" 2>"$T/err" &
run_pid=$!
bg_pids="$bg_pids $run_pid"
wait_for 20 sh -c "test -s '$T/w/w0' && test -s '$T/w/w1'"
ok $? "two workers run" || diag "$T/err"
w0=$(cat "$T/w/w0" 2>/dev/null) w1=$(cat "$T/w/w1" 2>/dev/null)
series() {
	python3 - "$s_DIR" <<'PY'
import json, os, sys
d = sys.argv[1]
last = {}
for f in sorted(os.listdir(d)):
    if f.startswith("upload-") and f.endswith(".json"):
        u = json.load(open(os.path.join(d, f)))
        lab = dict(u["labels"])
        last[lab.get("pid")] = os.path.join(d, u["pprof"])
for k in sorted(last):
    print(k, last[k])
PY
}
has_worker_series() {
	series >"$T/series"
	grep -q "^$w0 " "$T/series" && grep -q "^$w1 " "$T/series"
}
wait_for 30 has_worker_series
ok $? "each worker uploads a series of its own (pid $w0, $w1)" || { cat "$T/series"; diag "$T/err"; }
sleep 2
series >"$T/series"
is "$(wc -l <"$T/series" | tr -d ' ')" 3 "three series: the head and the two workers, none for the short children" ||
    cat "$T/series" >&2
f=$(awk -v p="$w1" '$1 == p { print $2 }' "$T/series")
v=$(timeout 120 go tool pprof -top -unit=B -sample_index=inuse_space "$f" 2>"$T/gopprof.err" |
    awk '$6 == "worker_fill" { v = $4; sub(/B$/, "", v); print v; exit }')
python3 -c 'import sys; v = float(sys.argv[1] or 0); sys.exit(0 if 0.7 * 16 * 2**20 <= v <= 1.3 * 16 * 2**20 else 1)' "$v"
ok $? "worker $w1's series holds its own 16 MiB under worker_fill (cum; got ${v:-none})"
touch "$T/w/stop"
wait_for 30 test -s "$T/w/done"
wait "$run_pid" 2>/dev/null
plan_done
