#!/bin/sh
# run_limit_cgroup.sh: limit reports driven by a cgroup the test writes
# (ying-agent(7) MEMORY LIMIT).  YING_CGROUP_ROOT points the agent at a
# fixture directory (the machine's cgroups are never touched): its
# memory.max (v1: memory/memory.limit_in_bytes, as the host's
# /proc/self/cgroup says) is 100 MiB and its memory.current
# (memory.usage_in_bytes) a file this test rewrites, so the crossings are
# the test's: 50 % (nothing), 85 % (.limit80.), 95 % (.limit90.), 86 % and
# 95 % again (nothing: 90 % re-arms only below 85 %), 50 % (both re-arm),
# 92 % (one .limit90. for the jump over both).  The .report names the
# cgroup's limit, its usage and the fraction; --limit 200MiB loses to the
# cgroup's smaller limit.  Then: no limit known (memory.max "max", no
# --limit) writes no limit report, and a report asked for has no limit
# line; --limit 50MiB under the cgroup's 100 MiB counts the resident set;
# bad --limit-reports, YING_LIMIT_REPORTS and --limit values exit 2 naming
# the value.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"

CG="$T/cg"
if grep -q '^[0-9]*:[^:]*\bmemory\b[^:]*:' /proc/self/cgroup; then
	CGD="$CG/memory" CUR=memory.usage_in_bytes MAX=memory.limit_in_bytes
	NOLIMIT=9223372036854771712 SRC="the cgroup's memory.limit_in_bytes"
else
	CGD="$CG" CUR=memory.current MAX=memory.max NOLIMIT=max SRC="the cgroup's memory.max"
fi
echo "# fixture: $CGD/$MAX, $CGD/$CUR"
mkdir -p "$CGD"
MiB=1048576
usage() {       # PERCENT of 100 MiB
	echo $(($1 * MiB)) >"$CGD/.cur" && mv "$CGD/.cur" "$CGD/$CUR"
}
n_sets() {      # TAG: how many report sets carry it
	report_sets "$D" | grep -c "\\.$1\\."
}
sets_are() {    # TAG N
	[ "$(n_sets "$1")" -eq "$2" ]
}
echo $((100 * MiB)) >"$CGD/$MAX"
usage 50

D="$T/reports"
AGENT_GROW_STOP="$T/stop" YING_CGROUP_ROOT="$CG" ying run --limit 200MiB --verbose \
    --report-dir "$D" --interval 0 -- "$PROGS/agent_grow" 1 5 10 60000 \
    >"$T/out" 2>"$T/err" &
rp=$!
bg_pids="$rp"
wait_for 20 grep -q '^step 1: ' "$T/out"
ok $? "the program runs under the agent" || diag "$T/err"
sleep 1
is "$(report_sets "$D" | wc -l | tr -d ' ')" 0 "50 % of the limit: no report"
usage 85
wait_for 15 sets_are limit80 1
ok $? "85 %: a .limit80. set" || diag "$T/err"
usage 95
wait_for 15 sets_are limit90 1
ok $? "95 %: a .limit90. set" || diag "$T/err"
R="$D/$(report_sets "$D" | grep '\.limit90\.' | tail -n 1).report"
grep -q "^trigger    usage 95.0 MiB crossed 90 % of the memory limit of 100.0 MiB ($SRC; usage: the cgroup's memory\\.\\(current\\|usage_in_bytes\\))\$" "$R"
ok $? "its trigger line names the usage, the fraction and the cgroup's limit" || diag "$R"
grep -q "^limit      100.0 MiB ($SRC); usage 95.0 MiB (the cgroup's memory\\.[a-z_]*), 95.0 % of it; crossed 90 %\$" "$R"
ok $? "its limit line: the cgroup's 100 MiB (not --limit 200MiB), the usage, the fraction" || diag "$R"
usage 86
sleep 1
usage 95
sleep 1.5
is "$(n_sets limit90)/$(n_sets limit80)" 1/1 "86 % then 95 % again: no new report (90 % re-arms below 85 %)"
usage 50
sleep 1
usage 92
wait_for 15 sets_are limit90 2
ok $? "50 % (re-arms both), then 92 %: a second .limit90. set" || diag "$T/err"
sleep 1
is "$(n_sets limit80)" 1 "... and no .limit80. for the same jump"
touch "$T/stop"
wait "$rp"
is "$?" 0 "the program exits 0"
missing=0
for s in $(report_sets "$D"); do
	for e in report svg heap pb.gz; do
		[ -s "$D/$s.$e" ] || missing=$((missing + 1))
	done
	tail -n 1 "$D/$s.report" | grep -q '^(end of report)$' || missing=$((missing + 1))
done
is "$missing" 0 "every set is whole"
ls -a "$D" | grep -q '^\.ying-tmp' && fail=1 || fail=0
is "$fail" 0 "no temporary file left"

# no limit known: no limit report, and no limit line in a report asked for
echo "$NOLIMIT" >"$CGD/$MAX"
usage 99
D2="$T/nolimit"
AGENT_GROW_STOP="$T/stop2" YING_CGROUP_ROOT="$CG" ying run --dump-signal USR2 \
    --report-dir "$D2" --interval 0 -- "$PROGS/agent_grow" 1 5 10 60000 \
    >"$T/out2" 2>"$T/err2" &
rp=$!
bg_pids="$rp"
wait_for 20 grep -q '^step 1: ' "$T/out2"
ok $? "no limit: the program runs" || diag "$T/err2"
sleep 1.5
is "$(report_sets "$D2" | wc -l | tr -d ' ')" 0 "no limit known (memory.max max, no --limit): no report at 99 % usage"
pid=$(sed -n 's/^ying-agent: pid \([0-9]*\) (agent_grow).*/\1/p' "$T/err2" | head -n 1)
kill -USR2 "$pid"
wait_for 15 has_report "$D2"
ok $? "a report asked for (the dump signal) is written" || diag "$T/err2"
grep -q '^limit ' "$D2"/*.report && fail=1 || fail=0
is "$fail" 0 "... and has no limit line"
touch "$T/stop2"
wait "$rp"

# --limit smaller than the cgroup's: it counts, against the resident set
echo $((100 * MiB)) >"$CGD/$MAX"
usage 10
D3="$T/given"
AGENT_GROW_STOP="$T/stop3" YING_CGROUP_ROOT="$CG" ying run --dump-signal USR2 --limit 50MiB \
    --report-dir "$D3" --interval 0 -- "$PROGS/agent_grow" 1 5 10 60000 \
    >"$T/out3" 2>"$T/err3" &
rp=$!
bg_pids="$rp"
wait_for 20 grep -q '^step 1: ' "$T/out3"
pid=$(sed -n 's/^ying-agent: pid \([0-9]*\) (agent_grow).*/\1/p' "$T/err3" | head -n 1)
kill -USR2 "$pid"
wait_for 15 has_report "$D3"
grep -q "^limit      50.0 MiB (--limit (YING_LIMIT)); usage [0-9.]* MiB (the process's resident set), [0-9.]* % of it\$" "$D3"/*.report
ok $? "--limit 50MiB under the cgroup's 100 MiB: the given one counts, with the resident set" ||
    diag "$D3"/*.report
touch "$T/stop3"
wait "$rp"

# bad values: exit 2 naming the value, before the program starts
refused() {     # WHAT EXPECTED-TEXT COMMAND...
	_w=$1 _x=$2
	shift 2
	"$@" >"$T/bad.out" 2>"$T/bad.err"
	_rc=$?
	[ "$_rc" -eq 2 ] && grep -qF -- "$_x" "$T/bad.err" && [ ! -s "$T/bad.out" ]
	ok $? "$_w: exit 2 ($_rc) naming it" || diag "$T/bad.err"
}
for v in 80,abc 0 101 80,80 85.5 '80,' 1,2,3,4,5,6,7,8,9; do
	refused "--limit-reports $v" "--limit-reports $v:" ying run --limit-reports "$v" -- \
	    "$PROGS/agent_exit" 0
done
refused "YING_LIMIT_REPORTS=90x" "YING_LIMIT_REPORTS=90x:" env YING_LIMIT_REPORTS=90x \
    "$YING" run -- "$PROGS/agent_exit" 0
refused "--limit 64x" "--limit 64x:" ying run --limit 64x -- "$PROGS/agent_exit" 0
refused "--limit 0" "--limit 0:" ying run --limit 0 -- "$PROGS/agent_exit" 0
ying run -q --limit 1G --limit-reports none --report-dir "$T/ok" -- "$PROGS/agent_exit" 0 \
    >"$T/ok.out" 2>"$T/ok.err"
is "$?" 0 "--limit 1G --limit-reports none: accepted"

# Time to the limit on /debug/memory (issue 28, item 3): limit_leak grows
# about 1 MiB a second (128 KiB every 125 ms) under --limit 1GiB; after a
# few seconds the breakdown's "limit" holds the usage's trend and when the
# limit is reached at it.
hp=$(free_port)
ying run --http "127.0.0.1:$hp" --limit 1GiB \
    --report-dir "$T/d4" --interval 0 -- "$PROGS/limit_leak" 8 128 125 40 >"$T/out4" 2>"$T/err4" &
p4=$!
bg_pids="$bg_pids $p4"
wait_for 20 grep -q '^leaked 8 MiB' "$T/out4"
trend() {
	curl -sf --max-time 10 "http://127.0.0.1:$hp/debug/memory?sites=0" >"$T/mem.json" &&
	    python3 -c 'import json, sys; l = json.load(open(sys.argv[1]))["limit"]; sys.exit(0 if l and l["trend_known"] and l["points"] >= 6 else 1)' "$T/mem.json"
}
wait_for 30 trend
ok $? "/debug/memory: the limit and a trend of the usage" || diag "$T/mem.json" "$T/err4"
python3 - "$T/mem.json" <<'PY'
import json, sys
l = json.load(open(sys.argv[1]))["limit"]
ok = (l["bytes"] == 2**30 and "--limit" in l["source"] and
      0.5 * 2**20 <= l["rate"] <= 2 * 2**20 and l["rate_lo"] <= l["rate"] <= l["rate_hi"] and
      l["eta"] is not None and l["eta_lo"] <= l["eta"] and
      (l["eta_hi"] is None or l["eta"] <= l["eta_hi"]) and
      abs(l["eta"] - (2**30 - l["usage"]) / l["rate"]) < 1)
print("# limit:", json.dumps(l))
sys.exit(0 if ok else 1)
PY
ok $? "... about +1 MiB/s, and the time left is (limit - usage) / rate, inside its interval"
curl -sf --max-time 10 "http://127.0.0.1:$hp/debug/memory?sites=0&format=text" | grep -Eq '^limit 1.00 GiB \(--limit \(YING_LIMIT\)\): reached in [0-9]+ min [0-9]+ s \(95 %'
ok $? "... and the text breakdown says when"
kill "$p4" 2>/dev/null
wait "$p4" 2>/dev/null

plan_done
