#!/bin/sh
# pyro_children.sh: a pre-forking program's uploads (issue 25): under `ying
# run --pyroscope`, agent_workers' head and its two long-lived workers
# each upload their own profiles (a __session_id__ each, one service), the
# ten short children none (the uploader runs once per process that lives
# on, not once per fork); a worker's profiles hold its own heap
# (worker_fill: 8 MiB in worker 0, 16 in worker 1), the head's none of it.
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
        last[lab.get("__session_id__")] = os.path.join(d, u["pprof"])
for k in sorted(last):
    print(k, last[k])
PY
}
has_three() {
	series >"$T/series"
	[ "$(wc -l <"$T/series" | tr -d ' ')" -ge 3 ]
}
wait_for 30 has_three
ok $? "the head and both workers (pid $w0, $w1) upload, each with its own session" ||
    { cat "$T/series"; diag "$T/err"; }
sleep 2
series >"$T/series"
is "$(wc -l <"$T/series" | tr -d ' ')" 3 "three sessions: the head and the two workers, none for the short children" ||
    cat "$T/series" >&2
# each session's last profile, once the workers have filled (uploads go on)
fills() {
	series >"$T/series"
	vals=$(while read -r sid f; do
		v=$(timeout 120 go tool pprof -top -unit=B -sample_index=inuse_space "$f" 2>"$T/gopprof.err" |
		    awk '$6 == "worker_fill" { v = $4; sub(/B$/, "", v); print v; exit }')
		echo "${v:-0}"
	done <"$T/series" | sort -n | tr '\n' ' ')
	python3 -c 'import sys
v = [float(x) for x in sys.argv[1].split()]
sys.exit(0 if len(v) == 3 and v[0] < 2**20 and all(0.7 * m * 2**20 <= x <= 1.3 * m * 2**20 for x, m in zip(v[1:], (8, 16))) else 1)' "$vals"
}
wait_for 30 fills
ok $? "each worker's profiles hold its own heap under worker_fill (cum: 8 and 16 MiB), the head's none (got $vals)"
touch "$T/w/stop"
wait_for 30 test -s "$T/w/done"
wait "$run_pid" 2>/dev/null
plan_done
