#!/bin/sh
# leaks_agent.sh: the agent's leak verdicts so far (issue 28, item 2's
# agent part, and item 3 at the leaks' rate).
#
# tests/programs/leaks_prog leaks 512 KiB a second under churn for 10 s
# under `ying run --report-dir --interval 1 --pct 0 --floor 0 --sample 14
# --limit 256MiB` (a report set every second; with the HTTP endpoint built,
# --http too).  The agent keeps a bounded history of per-stack totals from
# the runner's heap checks, so:
#   - every .report after a few checks has "Leak verdicts so far" naming
#     leak_alloc a leak and not churn_alloc, and a "reached" section with
#     the time to the limit "at the leaks' rate";
#   - GET /debug/heap/leaks (JSON: a "history" object, then ying leaks'
#     own keys) names leak_alloc a leak at about its true rate, and
#     ?format=text, ?stacks=1, ?limit=1 and a bad ?stacks= answer as
#     documented;
#   - GET /debug/memory's limit key has leak_sites, leak_rate and
#     leak_eta (within its interval), the text a line for it;
#   - GET /debug/heap/diff?significant=1 lists only significant rows;
#   - a process without growth reports answers /debug/heap/leaks 404.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need curl
need python3

HTTP=0
grep -q '^#define YING_HAVE_HTTP 1' "$YING_BUILDDIR/config.h" && HTTP=1
set --
if [ "$HTTP" = 1 ]; then
	PORT=$(free_port)
	set -- --http "127.0.0.1:$PORT"
	B="http://127.0.0.1:$PORT"
fi
ying run "$@" --report-dir "$T/rep" --interval 1 --pct 0 --floor 0 --sample 14 \
    --limit 256MiB -- "$PROGS/leaks_prog" leak 10 >"$T/out" 2>"$T/err" &
pid=$!

if [ "$HTTP" = 1 ]; then
	wait_for 10 curl -sf -o /dev/null "$B/debug/prof"
	ok $? "the endpoint answers" || diag "$T/err"
	curl -sf -X POST "$B/debug/heap/snapshot?name=base" >/dev/null
	ok $? "a snapshot is taken"
	sleep 7
	curl -s -o "$T/leaks.json" -w '%{http_code}' "$B/debug/heap/leaks" >"$T/code"
	is "$(cat "$T/code")" 200 "GET /debug/heap/leaks: 200"
	python3 - "$T/leaks.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
h = d["history"]
assert h["points"] >= 5 and h["stride"] == 1 and h["max_points"] == 256, h
assert 1 <= h["stacks"] <= 512 and h["bytes"] < 2 << 20, h
assert d["granularity"] == "function" and d["dumps"] == h["points"], d
s = {x["function"]: x for x in d["sites"]}
lk = s["leak_alloc"]
assert lk["verdict"] == "leak", lk
# 512 KiB a second is 1.76e9 bytes an hour; jemalloc's sampling and the
# timing of the checks leave it within 30 %
assert 0.7 < lk["rate"] / (512 * 1024 * 3600) < 1.3, lk["rate"]
assert lk["rate_lo"] <= lk["rate"] <= lk["rate_hi"], lk
assert s.get("churn_alloc", {"verdict": "churn"})["verdict"] != "leak", s["churn_alloc"]
PY
	ok $? "the history: enough points, leak_alloc a leak at about 512 KiB/s, churn_alloc not" ||
	    diag "$T/leaks.json"
	curl -sf "$B/debug/heap/leaks?format=text" >"$T/leaks.txt"
	grep -q '^leak history: [0-9]* points' "$T/leaks.txt" &&
	    grep -q '^leak  *+.*leak_alloc$' "$T/leaks.txt"
	ok $? "?format=text: the history line, leak_alloc a leak" || diag "$T/leaks.txt"
	curl -sf "$B/debug/heap/leaks?stacks=1&limit=1" >"$T/stacks.json"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["granularity"] == "stack" and len(d["sites"]) == 1, d
assert d["sites"][0]["function"].startswith("leak_alloc"), d["sites"][0]
' "$T/stacks.json"
	ok $? "?stacks=1&limit=1: one whole stack, leak_alloc's first" || diag "$T/stacks.json"
	code=$(curl -s -o "$T/bad" -w '%{http_code}' "$B/debug/heap/leaks?stacks=2")
	is "$code" 400 "?stacks=2: 400"
	grep -q 'stacks' "$T/bad"
	ok $? "the 400 names the parameter" || diag "$T/bad"
	curl -sf "$B/debug/memory?sites=0" >"$T/mem.json"
	python3 - "$T/mem.json" <<'PY'
import json, sys
l = json.load(open(sys.argv[1]))["limit"]
assert l["bytes"] == 256 << 20, l
assert l["leak_sites"] >= 1, l
assert 0.7 < l["leak_rate"] / (512 * 1024) < 1.3, l["leak_rate"]
assert l["leak_rate_lo"] <= l["leak_rate"] <= l["leak_rate_hi"], l
# the time at the leaks' rate: the room left over the rate, in its interval
assert abs(l["leak_eta"] - (l["bytes"] - l["usage"]) / l["leak_rate"]) < 1, l
assert l["leak_eta_lo"] <= l["leak_eta"] <= l["leak_eta_hi"], l
PY
	ok $? "/debug/memory: limit.leak_rate about 512 KiB/s, leak_eta = room / rate, in its interval" ||
	    diag "$T/mem.json"
	curl -sf "$B/debug/memory?sites=0&format=text" >"$T/mem.txt"
	grep -q "at the leaks' rate: in .* 1 leak site growing" "$T/mem.txt"
	ok $? "/debug/memory text: the line at the leaks' rate" || diag "$T/mem.txt"
	curl -sf "$B/debug/heap/diff?base=base&format=json&significant=1" >"$T/diff.json"
	python3 - "$T/diff.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["rows"]
assert rows and all(r["significant"] for r in rows), rows
assert any(r["function"] == "leak_alloc" for r in rows), rows
PY
	ok $? "diff?significant=1: only significant rows, leak_alloc among them" ||
	    diag "$T/diff.json"
	code=$(curl -s -o "$T/bad" -w '%{http_code}' "$B/debug/heap/diff?base=base&significant=yes")
	is "$code" 400 "diff?significant=yes: 400"
fi
wait "$pid"
is "$?" 0 "ying run leaks_prog leak: exit 0" || diag "$T/err"
last=$(ls "$T/rep"/*.report | tail -n 1)
sed -n '/^Leak verdicts so far/,/^$/p' "$last" >"$T/sect"
grep -q '^Leak verdicts so far ([0-9]* points over' "$T/sect" &&
    grep -q '^  leak  .*leak_alloc$' "$T/sect" && ! grep -q 'leak .*churn_alloc' "$T/sect"
ok $? "the last report: leak verdicts so far, leak_alloc a leak, churn_alloc not" ||
    diag "$last"
grep -q "^           at the leaks' rate: in .* 1 leak site growing .*/h (" "$last"
ok $? "the last report: the time to the limit at the leaks' rate" || diag "$last"
first=$(ls "$T/rep"/*.report | head -n 1)
grep -q '^Leak verdicts so far' "$first"
ok $? "the first report has the section too (too few points: unknown or churn)" ||
    diag "$first"

if [ "$HTTP" = 1 ]; then
	PORT2=$(free_port)
	ying run --http "127.0.0.1:$PORT2" --sample 14 -- "$PROGS/leaks_prog" churn 4 \
	    >"$T/out2" 2>"$T/err2" &
	pid2=$!
	wait_for 10 curl -sf -o /dev/null "http://127.0.0.1:$PORT2/debug/prof"
	code=$(curl -s -o "$T/nohist" -w '%{http_code}' "http://127.0.0.1:$PORT2/debug/heap/leaks")
	is "$code" 404 "no growth reports: /debug/heap/leaks 404"
	grep -q 'no leak history yet.*YING_REPORT_DIR' "$T/nohist"
	ok $? "the 404 says how to get a history" || diag "$T/nohist"
	wait "$pid2"
fi
plan_done
