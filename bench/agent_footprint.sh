#!/bin/sh
# agent_footprint.sh: the memory the ying agent adds to a real host, and what
# its second cycle on an unchanged heap costs next to its first.
#
#   bench/agent_footprint.sh [BUILD_DIR [BEFORE_BUILD_DIR]]   (default: build)
#   env: ROUNDS (default 3), CYCLES (default 20), DECAY_S (default 12), OUT
#        (default bench/out)
#
# redis-server (Debian's, linked with jemalloc) in up to three
# configurations, alternating within each round:
#
#   prof     MALLOC_CONF=prof:true, no agent (the baseline)
#   before   BEFORE_BUILD_DIR/ying run --http 127.0.0.1:0 --report-dir DIR
#            --dump-signal USR2 (only when BEFORE_BUILD_DIR is given)
#   after    BUILD_DIR/ying run ... (the same options)
#
# Each run loads redis (redis-benchmark, 20000 SET and LPUSH of 256 bytes
# over 10000 keys), then drives CYCLES cycles: GET /pprof/heap (a raw
# dump), GET /debug/pprof/heap (a symbolized pprof) and a growth report
# (SIGUSR2, waiting for the .report to appear); without the agent the same
# load and the same wait.  Then it waits DECAY_S seconds (past jemalloc's
# dirty_decay_ms, 10 s), runs 2000 PINGs (jemalloc decays on activity) and
# reads redis' VmRSS.  "added" is VmRSS minus the prof baseline of the same
# round.  first/second: the wall time of the first and the second pprof
# request, and the CPU time of the runner thread (ying-runner, schedstat)
# for the first and the second report (its wall time is mostly the wait
# for the next second: one report set per second), on the unchanged heap.
# Medians over the rounds, with min and max.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
BEFORE=${2:+$(cd "$2" && pwd)}
ROUNDS=${ROUNDS:-3}
CYCLES=${CYCLES:-20}
DECAY_S=${DECAY_S:-12}
OUT=${OUT:-$ROOT/bench/out}
YING="$BUILD/ying"
BENCH=agent_footprint
. "$ROOT/bench/lib.sh"
redis_setup redis-server redis-benchmark redis-cli curl python3

configs="prof after"
[ -n "$BEFORE" ] && configs="prof before after"

# run CONFIG: one measured run; appends "CONFIG rss_kib pprof1 pprof2 rep1 rep2"
# to $RES.
run() {
	cfg=$1
	rm -rf "$W/reports"
	case "$cfg" in
	prof) redis_start prof env MALLOC_CONF=prof:true ;;
	before) redis_start before "$BEFORE/ying" run --http 127.0.0.1:0 \
	    --report-dir "$W/reports" --dump-signal USR2 -- ;;
	after) redis_start after "$YING" run --http 127.0.0.1:0 \
	    --report-dir "$W/reports" --dump-signal USR2 -- ;;
	esac
	hp=""
	if [ "$cfg" != prof ]; then
		hp=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$W/$cfg.log" | head -n 1)
		[ -n "$hp" ] || { echo "$BENCH: no endpoint announced" >&2; cat "$W/$cfg.log" >&2; exit 1; }
	fi
	redis-benchmark -p "$port" -n 20000 -c 10 -r 10000 -d 256 -t set,lpush \
	    >/dev/null 2>&1
	python3 - "$cfg" "$rpid" "$port" "$hp" "$W/reports" "$CYCLES" "$DECAY_S" \
	    >>"$RES" <<'PY'
import os, signal, subprocess, sys, time, urllib.request
cfg, rpid, port, hp, rdir, cycles, decay = sys.argv[1:]
rpid, cycles, decay = int(rpid), int(cycles), float(decay)

def get(path):
    t0 = time.perf_counter()
    with urllib.request.urlopen("http://127.0.0.1:%s%s" % (hp, path), timeout=60) as r:
        body = r.read()
    assert body, path
    return time.perf_counter() - t0

def reports():
    try:
        return sum(1 for n in os.listdir(rdir) if n.endswith(".report"))
    except FileNotFoundError:
        return 0

def runner_cpu():
    # CPU seconds of the agent's runner thread (a report's wall time is
    # mostly the runner waiting for the next second: one set per second)
    for t in os.listdir("/proc/%d/task" % rpid):
        d = "/proc/%d/task/%s/" % (rpid, t)
        try:
            if open(d + "comm").read().strip() == "ying-runner":
                return int(open(d + "schedstat").read().split()[0]) / 1e9
        except FileNotFoundError:
            pass
    raise SystemExit("no ying-runner thread")

def report():
    n = reports()
    c0 = runner_cpu()
    t0 = time.perf_counter()
    os.kill(rpid, signal.SIGUSR2)
    while reports() <= n:
        if time.perf_counter() - t0 > 60:
            raise SystemExit("no report within 60 s")
        time.sleep(0.002)
    return runner_cpu() - c0

pp, rep = [], []
for i in range(cycles):
    if cfg != "prof":
        get("/pprof/heap")
        pp.append(get("/debug/pprof/heap"))
        rep.append(report())
    else:
        time.sleep(0.05)
time.sleep(decay)
subprocess.run(["redis-benchmark", "-p", port, "-n", "2000", "-c", "1", "-t",
                "ping_inline"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
rss = 0
for line in open("/proc/%d/status" % rpid):
    if line.startswith("VmRSS:"):
        rss = int(line.split()[1])
if cfg == "prof":
    print(cfg, rss, 0, 0, 0, 0)
else:
    print(cfg, rss, "%.4f" % pp[0], "%.4f" % pp[1], "%.4f" % rep[0], "%.4f" % rep[1])
PY
	redis_stop
}

echo "# $(machine); load: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$OUT/$BENCH.txt"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	for cfg in $(rotated "$r" $configs); do
		run "$cfg"
	done
	r=$((r + 1))
done
python3 - "$RES" "$CYCLES" <<'PY' | tee -a "$OUT/$BENCH.txt"
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
cyc = sys.argv[2]
base = statistics.median(int(r[1]) for r in rows if r[0] == "prof")
def s(v, fmt):
    return (fmt + " (" + fmt + "-" + fmt + ")") % (statistics.median(v), min(v), max(v))
print("host: redis-server; %s cycles of GET /pprof/heap + GET /debug/pprof/heap "
      "+ report; VmRSS after decay; prof (no agent) median %.1f MB" % (cyc, base / 1024))
print("| config | added RSS MB | pprof 1st s | pprof 2nd s | 2nd/1st | report 1st CPU s | report 2nd CPU s | 2nd/1st |")
print("|---|---|---|---|---|---|---|---|")
for cfg in ("before", "after"):
    rr = [r for r in rows if r[0] == cfg]
    if not rr:
        continue
    added = [(int(r[1]) - base) / 1024 for r in rr]
    p1 = [float(r[2]) for r in rr]
    p2 = [float(r[3]) for r in rr]
    r1 = [float(r[4]) for r in rr]
    r2 = [float(r[5]) for r in rr]
    print("| %s | %s | %s | %s | %.2f | %s | %s | %.2f |" % (cfg, s(added, "%.1f"),
          s(p1, "%.3f"), s(p2, "%.3f"), statistics.median(b / a for a, b in zip(p1, p2)),
          s(r1, "%.3f"), s(r2, "%.3f"), statistics.median(b / a for a, b in zip(r1, r2))))
PY
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/$BENCH.txt"
