#!/bin/sh
# http_history.sh: the in-agent memory history and the live page's JSON
# (issue 29): GET /debug/history, GET /debug/ui, format=tree on
# /debug/heap (and ?snapshot=N) and on /debug/heap/diff (and ?now=M).
#
# tests/programs/leaks_prog leaks 4 MiB a second under churn for 30 s
# under `ying run --http 127.0.0.1:0 --report-dir D --interval 2 --pct 0
# --floor 0 --sample 14`; the endpoint's port is read from the agent's
# announcement.  Then:
#   - /debug/history grows by about one point a second, every point has
#     one number or null per column (t, rss, allocated, active, metadata,
#     resident, retained, heap:NAME...), times increase a second apart,
#     rss and the heap column grow with the leak, ?since=T keeps only
#     what came after T, a bad since is a 400 naming it;
#   - its events name the snapshots taken and the report files written
#     (which exist in the report directory);
#   - /debug/heap?format=tree parses (preorder, values = self + children)
#     and a snapshot's tree has the root value of that snapshot's top
#     table (format=json's total);
#   - the diff tree after a snapshot (and between two snapshots, ?now=M)
#     names leak_alloc with value > base; a missing snapshot is a 404;
#   - report points: base=report:NAME (a report event's dump) and
#     now=report:M diff from the runner's files, ?snapshot=report:NAME is
#     the file byte for byte; a name that is not a report dump's is a 400,
#     a missing one or a symbolic link a 404;
#   - /debug/ui answers mode live, the program's pid and name;
#   - with YING_HISTORY=0, /debug/history answers 404 saying so.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need curl
need python3
grep -q '^#define YING_HAVE_HTTP 1' "$YING_BUILDDIR/config.h" ||
	{ echo "not ok 1 - built without the HTTP endpoint (--enable-http)"; echo "1..1"; exit 1; }

ying run --http 127.0.0.1:0 --report-dir "$T/rep" --interval 2 --pct 0 --floor 0 \
    --sample 14 -- "$PROGS/leaks_prog" leak 30 4096 >"$T/out" 2>"$T/err" &
pid=$!
bg_pids="$bg_pids $pid"
wait_for 20 grep -q 'HTTP on http://127.0.0.1:[0-9]*/' "$T/err"
ok $? "the agent announces its endpoint" || diag "$T/err"
B=http://127.0.0.1:$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/err" | head -n 1)
wait_for 10 curl -sf -o /dev/null "$B/debug/history"
ok $? "GET /debug/history answers" || diag "$T/err"

code=$(curl -s -o "$T/ui.json" -w '%{http_code}' "$B/debug/ui")
is "$code" 200 "GET /debug/ui: 200"
python3 - "$T/ui.json" "$T/err" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
agent_pid = int(re.search(r"ying-agent: pid (\d+)", open(sys.argv[2]).read()).group(1))
assert d == {"mode": "live", "pid": agent_pid, "program": "leaks_prog"}, d
PY
ok $? "/debug/ui: mode live, the program's pid and name" || diag "$T/ui.json"

curl -sf -X POST "$B/debug/heap/snapshot?name=base" >/dev/null
ok $? "a snapshot named base"
curl -sf "$B/debug/history" >"$T/h1.json"
t1=$(date +%s.%N)
sleep 8
curl -sf "$B/debug/history" >"$T/h2.json"
t2=$(date +%s.%N)
python3 - "$T/h1.json" "$T/h2.json" "$t1" "$t2" <<'PY'
import json, statistics, sys
h1, h2 = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
wall = float(sys.argv[4]) - float(sys.argv[3])
cols = h2["columns"]
fixed = ["t", "rss", "allocated", "active", "metadata", "resident", "retained"]
assert cols[:7] == fixed, cols
heaps = [c for c in cols[7:] if c.startswith("heap:")]
assert len(heaps) >= 1 and len(cols) == 7 + len(heaps), cols
assert h2["fine"]["step"] == 1 and h2["coarse"]["step"] == 60, h2
assert h2["limit"] is None and isinstance(h2["pid"], int), h2
pts = h2["fine"]["points"]
for p in pts + h2["coarse"]["points"]:
    assert len(p) == len(cols), p
    assert all(v is None or (isinstance(v, (int, float)) and v >= 0) for v in p), p
n1, n2 = len(h1["fine"]["points"]), len(pts)
grew = n2 - n1
assert wall - 2 <= grew <= wall + 2, (grew, wall)
ts = [p[0] for p in pts]
assert all(b > a for a, b in zip(ts, ts[1:])), ts
step = statistics.median(b - a for a, b in zip(ts, ts[1:]))
assert 0.9 <= step <= 1.1, step
assert abs(h2["now"] - ts[-1]) < 2, (h2["now"], ts[-1])
i_rss, i_heap, i_alloc = 1, cols.index(heaps[0]), 2
first, last = pts[0], pts[-1]
# 4 MiB a second over 8 s or more: at least 16 MiB more of each
assert last[i_rss] - first[i_rss] > 16 << 20, (first, last)
assert last[i_heap] - first[i_heap] > 16 << 20, (first, last)
assert last[i_alloc] >= last[i_heap], last
print("# %d points in %.1f s, median step %.3f s, rss %.1f -> %.1f MiB"
      % (grew, wall, step, first[1] / 2**20, last[1] / 2**20))
PY
ok $? "/debug/history: a point a second, every column, rss and the heap grow" ||
    diag "$T/h2.json"

# since: the last point's t of h2, then only newer points and events
since=$(python3 -c 'import json,sys; print(repr(json.load(open(sys.argv[1]))["fine"]["points"][-1][0]))' "$T/h2.json")
sleep 2
curl -sf "$B/debug/history?since=$since" >"$T/h3.json"
python3 - "$T/h3.json" "$since" <<'PY'
import json, sys
h, since = json.load(open(sys.argv[1])), float(sys.argv[2])
pts = h["fine"]["points"]
assert 1 <= len(pts) <= 4, pts
assert all(p[0] > since for p in pts + h["coarse"]["points"]), pts
assert all(e["t"] > since for e in h["events"]), h["events"]
PY
ok $? "?since=T: only the points and events after T" || diag "$T/h3.json"
for bad in abc -1 1e400 '' 12x; do
	code=$(curl -s -o "$T/bad" -w '%{http_code}' "$B/debug/history?since=$bad")
	is "$code" 400 "?since=$bad: 400"
done
grep -q 'since' "$T/bad"
ok $? "the 400 names since" || diag "$T/bad"

# the tree of the heap now, and of the snapshot against its top table
curl -sf "$B/debug/heap?format=tree" >"$T/tree.json"
curl -sf "$B/debug/heap?format=tree&snapshot=base" >"$T/stree.json"
curl -sf "$B/debug/heap?format=json&snapshot=base" >"$T/stop.json"
curl -sf "$B/debug/heap?format=tree&sample_index=inuse_objects" >"$T/otree.json"
cat >"$T/tree.py" <<'PY'
import json, sys
def check(path, fields=("parent", "name", "file", "line", "value", "self")):
    d = json.load(open(path))
    assert tuple(d["fields"]) == tuple(fields), d["fields"]
    k, n = len(fields), d["nodes"]
    assert len(n) % k == 0 and len(n) >= k, len(n)
    rows = [n[i:i + k] for i in range(0, len(n), k)]
    assert rows[0][0] == -1 and d["names"][rows[0][1]] == "all", rows[0]
    below = [0.0] * len(rows)
    for i, r in enumerate(rows[1:], 1):
        assert 0 <= r[0] < i, (i, r)
        below[r[0]] += r[4]
        assert 0 <= r[1] < len(d["names"]) and 0 <= r[2] < len(d["files"]), r
    for r, b in zip(rows, below):
        assert abs(r[4] - r[5] - b) <= 1e-6 * max(1, r[4]), (r, b)
    assert d["files"][0] == "" and d["total"] == rows[0][4], d["total"]
    return d, rows
PY
python3 - "$T" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
from tree import check
t = sys.argv[1]
d, rows = check(t + "/tree.json")
assert d["sample_index"] == "inuse_space" and d["unit"] == "bytes", d["sample_index"]
assert "leak_alloc" in d["names"], d["names"]
s, srows = check(t + "/stree.json")
top = json.load(open(t + "/stop.json"))
assert s["total"] == top["total"] and srows[0][4] == top["total"], (s["total"], top["total"])
o, _ = check(t + "/otree.json")
assert o["sample_index"] == "inuse_objects" and o["unit"] == "objects", o["unit"]
PY
ok $? "format=tree: preorder, sums; a snapshot's root is its top table's total" ||
    diag "$T/stree.json"

# the diff tree: base to now, and base to a later snapshot
curl -sf -X POST "$B/debug/heap/snapshot?name=later" >/dev/null
ok $? "a snapshot named later"
curl -sf "$B/debug/heap/diff?base=base&format=tree" >"$T/dtree.json"
curl -sf "$B/debug/heap/diff?base=base&now=later&format=tree" >"$T/dtree2.json"
python3 - "$T" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from tree import check
t = sys.argv[1]
for f in ("dtree.json", "dtree2.json"):
    d, rows = check(t + "/" + f, ("parent", "name", "file", "line", "value", "self", "base"))
    assert d["base_total"] == rows[0][6] and d["total"] > d["base_total"], f
    leak = [r for r in rows if d["names"][r[1]] == "leak_alloc"]
    assert leak and all(r[4] > r[6] + (8 << 20) for r in leak), (f, leak)
    assert any(d["files"][r[2]].endswith("leaks_prog.c") and r[3] > 0 for r in leak), leak
PY
ok $? "the diff tree: leak_alloc grew (value > base), now and between snapshots" ||
    diag "$T/dtree.json"
# the top table's rows (?by=, the page's "rows" choice): per line, per
# stack, and a bad value refused
curl -sf "$B/debug/heap?format=json&by=line" >"$T/byline.json" &&
    curl -sf "$B/debug/heap?format=json&by=stack&snapshot=base" >"$T/bystack.json" &&
    python3 - "$T/byline.json" "$T/bystack.json" <<'PY'
import json, sys
ln, st = (json.load(open(f)) for f in sys.argv[1:3])
assert ln["granularity"] == "line" and st["granularity"] == "stack", (ln["granularity"], st["granularity"])
r = [x for x in ln["rows"] if x["function"] == "leak_alloc"][0]
assert r["file"].endswith("leaks_prog.c") and r["line"] > 0, r
s = [x for x in st["rows"] if x["function"] == "leak_alloc"][0]
assert [f["function"] for f in s["frames"]][:2] == ["leak_alloc", "main"] or \
    "main" in [f["function"] for f in s["frames"]], s["frames"]
PY
ok $? "?by=line and ?by=stack: the top table per source line and per whole stack" ||
    diag "$T/byline.json"
code=$(curl -s -o "$T/bybad" -w '%{http_code}' "$B/debug/heap?format=json&by=file")
is "$code" 400 "?by=file: 400"
grep -q 'by=file' "$T/bybad"
ok $? "... naming the parameter" || diag "$T/bybad"
code=$(curl -s -o "$T/bad" -w '%{http_code}' "$B/debug/heap/diff?base=base&now=nosuch&format=tree")
is "$code" 404 "?now=nosuch: 404"
code=$(curl -s -o "$T/bad" -w '%{http_code}' "$B/debug/heap?format=tree&snapshot=nosuch")
is "$code" 404 "?snapshot=nosuch: 404"
code=$(curl -s -o "$T/bad" -w '%{http_code}' "$B/debug/heap?format=tree&snapshot=a/b")
is "$code" 400 "?snapshot=a/b: 400"

# the events: both snapshots, and report files the runner wrote
curl -sf "$B/debug/history" >"$T/h4.json"
python3 - "$T/h4.json" "$T/rep" <<'PY'
import json, os, sys
h, rep = json.load(open(sys.argv[1])), sys.argv[2]
ev = h["events"]
assert len(ev) <= 256
snaps = [e["name"] for e in ev if e["kind"] == "snapshot"]
assert snaps == ["base", "later"], snaps
reps = [e["name"] for e in ev if e["kind"] == "report"]
assert reps and all(r.endswith(".heap") for r in reps), reps
assert any(os.path.exists(os.path.join(rep, r)) for r in reps), (reps, os.listdir(rep))
ts = [e["t"] for e in ev]
assert ts == sorted(ts), ts
assert all(e["kind"] in ("report", "snapshot", "limit", "peak") for e in ev), ev
PY
ok $? "events: the snapshots and the reports written, oldest first" || diag "$T/h4.json"

# report points: report:NAME (a report event's name) as the diff's base,
# as its now and as ?snapshot=; names that are not a report dump's refused
set -- $(python3 -c 'import json, os, sys
h = json.load(open(sys.argv[1]))
r = [e["name"] for e in h["events"] if e["kind"] == "report" and os.path.exists(os.path.join(sys.argv[2], e["name"]))]
print(r[0], r[-1])' "$T/h4.json" "$T/rep")
r1=$1 r2=$2
curl -sf "$B/debug/heap/diff?format=json&base=$(url_enc "report:$r1")" >"$T/rd.json" &&
    curl -sf "$B/debug/heap/diff?format=json&base=$(url_enc "report:$r1")&now=$(url_enc "report:$r2")" \
    >"$T/rd2.json" &&
    python3 - "$T/rd.json" "$T/rd2.json" "$r1" "$r2" <<'PY'
import json, sys
d, d2 = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert d["base"] == sys.argv[3] and d2["base"] == sys.argv[3] and d2["now"] == sys.argv[4], (d["base"], d2["now"])
for x in (d, d2):
    leak = [r for r in x["rows"] if r["function"] == "leak_alloc"]
    assert leak and leak[0]["delta"] > 4 << 20 and leak[0]["significant"], leak
PY
ok $? "base=report:NAME (and now=report:M): the diff from a report's dump, leak_alloc grew" ||
    diag "$T/rd.json"
curl -sf -o "$T/raw.heap" "$B/debug/heap?snapshot=$(url_enc "report:$r1")" &&
    cmp -s "$T/raw.heap" "$T/rep/$r1"
ok $? "?snapshot=report:NAME (raw): the report's dump, byte for byte"
for bad in "report:../$r1" "report:${r1%.heap}.svg" "report:" "report:x.heap"; do
	code=$(curl -s -o "$T/bad" -w '%{http_code}' "$B/debug/heap/diff?base=$(url_enc "$bad")")
	is "$code" 400 "base=$bad: 400 (not a report dump's name)"
done
code=$(curl -s -o "$T/bad" -w '%{http_code}' "$B/debug/heap/diff?base=$(url_enc "report:ying.2000-01-01T00:00:00+00:00.1MiB.heap")")
is "$code" 404 "a report point that is not there: 404"
# a name of ours that is a link to elsewhere is not followed
ln -s "$T/rep/$r1" "$T/rep/ying.2000-01-01T00:00:01+00:00.1MiB.heap"
code=$(curl -s -o "$T/bad" -w '%{http_code}' "$B/debug/heap/diff?base=$(url_enc "report:ying.2000-01-01T00:00:01+00:00.1MiB.heap")")
is "$code" 404 "a report point that is a symbolic link: 404"
grep -q 'symbolic link' "$T/bad"
ok $? "... saying so" || diag "$T/bad"
rm -f "$T/rep/ying.2000-01-01T00:00:01+00:00.1MiB.heap"

kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null

# YING_HISTORY=0: nothing kept, /debug/history says so (404), the rest works
YING_HISTORY=0 ying run --http 127.0.0.1:0 -- "$PROGS/leaks_prog" churn 20 \
    >"$T/out0" 2>"$T/err0" &
pid=$!
bg_pids="$bg_pids $pid"
wait_for 20 grep -q 'HTTP on http://127.0.0.1:[0-9]*/' "$T/err0"
ok $? "YING_HISTORY=0: the endpoint starts" || diag "$T/err0"
B=http://127.0.0.1:$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/err0" | head -n 1)
wait_for 10 curl -sf -o /dev/null "$B/debug/ui"
sleep 2
code=$(curl -s -o "$T/off" -w '%{http_code}' "$B/debug/history")
is "$code" 404 "YING_HISTORY=0: /debug/history 404"
grep -q 'YING_HISTORY=0' "$T/off"
ok $? "... saying why" || diag "$T/off"
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
plan_done
