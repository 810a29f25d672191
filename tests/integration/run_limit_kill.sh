#!/bin/sh
# run_limit_kill.sh: the last profile before the kill (ying-agent(7) MEMORY
# LIMIT).  tests/programs/limit_leak leaks 16 MiB at once, then 256 KiB
# every 100 ms in limit_leak_step() -> limit_leak_block(), under `ying run
# --limit 64MiB --report-dir D` (the cgroup root a fixture with no cgroup
# in it: only --limit counts, and its usage is the resident set).  A
# watcher reading /proc/PID/status VmRSS stands in for the OOM killer: it
# sends SIGKILL the moment the resident set passes 95 % of the limit.  D
# must then hold a complete report set taken within 10 % of the limit (a
# .limit90. set whose usage is at least 90 % of it), whose .report is
# whole, names the limit, the usage and the fraction, whose .heap `ying
# top` reads with limit_leak_block on top.  No temporary file may be
# mistaken for a report, and every set in D is whole.  A second run is
# killed the moment the .limit90. set's .heap appears (written on its own
# before the symbolization): that .heap alone must be whole and name the
# leak.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"

mkdir "$T/cg"
D="$T/reports"
LIM=$((64 * 1024))                  # KiB
KILL_AT=$((LIM * 95 / 100))
# sampling from the first allocation (not once the agent is up), so the
# fast 16 MiB are in the profile; the first report (a high-water mark,
# once the heap passes the 20 MiB floor) loads the symbols far from the
# limit, as a long-running service has long done by the time it nears it
MALLOC_CONF=prof_active:true YING_CGROUP_ROOT="$T/cg" ying run --limit 64MiB \
    --report-dir "$D" --interval 0 --verbose -- "$PROGS/limit_leak" 16 256 100 60 \
    >"$T/out" 2>"$T/err" &
rp=$!
bg_pids="$rp"
wait_for 20 grep -q '^leaked 16 MiB' "$T/out"
ok $? "the program started and leaked its first 16 MiB" || diag "$T/err"
pid=$(sed -n 's/^ying-agent: pid \([0-9]*\) (limit_leak): heap profiling on.*/\1/p' "$T/err" | head -n 1)
[ -n "$pid" ]
ok $? "the agent announced pid $pid" || diag "$T/err"
killed=""
n=0
while [ -n "$pid" ] && [ "$n" -lt 6000 ]; do
	rss=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pid/status" 2>/dev/null)
	[ -z "$rss" ] && break
	if [ "$rss" -ge "$KILL_AT" ]; then
		kill -KILL "$pid"
		killed=$rss
		break
	fi
	sleep 0.01
	n=$((n + 1))
done
wait "$rp"
is "$?" 137 "ying run exits 128+9: the program was killed by the watcher"
[ -n "$killed" ]
ok $? "the watcher killed it at $killed kB (>= $KILL_AT kB, 95 % of 64 MiB)" || diag "$T/err"

ls "$D" >"$T/ls"
sed 's/^/# /' "$T/ls"
report_sets "$D" >"$T/sets"
grep '\.limit90\.' "$T/sets" >"$T/l90"
is "$(wc -l <"$T/l90" | tr -d ' ')" 1 "one .limit90. report set" || diag "$T/err"
grep -q '\.limit80\.' "$T/sets"
ok $? "a .limit80. set before it"
b=$(tail -n 1 "$T/l90")
R="$D/$b.report"
missing=0
while read -r s; do
	for e in report svg heap pb.gz; do
		[ -s "$D/$s.$e" ] || missing=$((missing + 1))
	done
	tail -n 1 "$D/$s.report" | grep -q '^(end of report)$' || missing=$((missing + 1))
done <"$T/sets"
is "$missing" 0 "every set in the directory is whole: four files, each .report to its last line"
grep -q '^trigger    usage [0-9.]* MiB crossed 90 % of the memory limit of 64.0 MiB (--limit (YING_LIMIT); usage: the process.s resident set)$' "$R"
ok $? "the .report says why: the usage crossed 90 % of the limit" || diag "$R"
line=$(grep '^limit      ' "$R")
echo "# $line"
echo "$line" | grep -q '^limit      64.0 MiB (--limit (YING_LIMIT)); usage [0-9.]* MiB (the process.s resident set), [0-9.]* % of it; crossed 90 %$'
ok $? "the .report names the limit, the usage and the fraction" || diag "$R"
pct=$(echo "$line" | sed -n 's/.*, \([0-9.]*\) % of it.*/\1/p')
python3 -c "import sys; p = float(sys.argv[1]); sys.exit(0 if 90 <= p <= 100 else 1)" "$pct"
ok $? "the report was taken within 10 % of the limit ($pct %)"
# Time to the limit (issue 28, item 3): the usage's trend, leaking about
# 2.5 MiB/s with 6.4 MiB left at 90 %: a few seconds, with its interval.
eta=$(grep '^reached    ' "$R")
echo "$eta" | grep -Eq '^reached    in [0-9.]+ s \(95 %: [0-9.]+ s to [0-9.]+ (s|min [0-9]+ s)\) at \+[0-9.]+ MiB/s \(.*\) over the last [0-9]+ s$'
ok $? "the .report says when the limit is reached at the usage's trend: ${eta#reached    }" || diag "$R"
secs=$(echo "$eta" | sed -n 's/^reached    in \([0-9.]*\) s .*/\1/p')
python3 -c 'import sys; v = float(sys.argv[1] or -1); sys.exit(0 if 0.5 <= v <= 30 else 1)' "$secs"
ok $? "... a few seconds (${secs:-none} s; 6.4 MiB left at about 2.5 MiB/s)"
ying top --json "$D/$b.heap" >"$T/top.json" 2>"$T/top.err"
ok $? "ying top reads the .heap" || diag "$T/top.err"
python3 - "$T/top.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["rows"][0]["function"] == "limit_leak_block", d["rows"][0]
assert d["rows"][0]["flat"] >= 0.9 * d["total"], d["rows"][0]
assert d["total"] >= 24 * 1048576, d["total"]
PY
ok $? "its top function is limit_leak_block, the leak: 90 % of a heap past 24 MiB" ||
    diag "$T/top.json"
grep -A4 '^#1 ' "$R" | grep -q 'limit_leak_step (limit_leak.c:[0-9]*)'
ok $? "the .report's biggest stack goes through limit_leak_step" || diag "$R"

# Killed while the .limit90. report is being symbolized: the watcher
# sends SIGKILL the moment that set's .heap is in the directory (written,
# synced and renamed before symbolization).  The .heap alone must be
# whole: ying top reads it and names the leak.
D2="$T/reports2"
MALLOC_CONF=prof_active:true YING_CGROUP_ROOT="$T/cg" ying run --limit 64MiB \
    --report-dir "$D2" --interval 0 -- "$PROGS/limit_leak" 16 256 100 60 \
    >"$T/out2" 2>"$T/err2" &
rp=$!
bg_pids="$rp"
wait_for 20 grep -q '^leaked 16 MiB' "$T/out2"
pid=$(sed -n 's/^ying-agent: pid \([0-9]*\) (limit_leak): heap profiling on.*/\1/p' "$T/err2" | head -n 1)
h=""
n=0
while [ -n "$pid" ] && [ "$n" -lt 30000 ]; do
	h=$(ls "$D2" 2>/dev/null | grep '\.limit90\.[0-9]*MiB\.heap$')
	if [ -n "$h" ]; then
		kill -KILL "$pid"
		break
	fi
	kill -0 "$pid" 2>/dev/null || break
	n=$((n + 1))
done
wait "$rp"
is "$?" 137 "second run: killed the moment the .limit90. .heap appeared ($h)"
ls "$D2" | sed 's/^/# /'
ying top --json "$D2/$h" >"$T/top2.json" 2>"$T/top2.err"
ok $? "that .heap is whole: ying top reads it" || diag "$T/top2.err"
python3 - "$T/top2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["rows"][0]["function"] == "limit_leak_block", d["rows"][0]
PY
ok $? "... and names limit_leak_block on top" || diag "$T/top2.json"

plan_done
