#!/bin/sh
# serve.sh: `ying serve DIR|DUMP...|URL` (issue 29), the endpoint over
# files.  A real leaking program (tests/programs/leaks_prog: 512 KiB a
# second kept, churn beside it) runs under `ying run --report-dir DIR
# --interval 1 --pct 0 --floor 0` for 8 s; then `ying serve --http
# 127.0.0.1:0 DIR` and curl check:
#   - the URL printed on stderr ("ying serve: http://127.0.0.1:PORT/");
#   - a file of DIR that is not a dump is skipped with a warning naming it;
#   - /debug/ui: mode "serve", the program, the pid of the reports;
#   - /debug/history: the contract's columns, one point per dump (as many
#     as .heap files), heap growing, rss from the reports, dump and report
#     events by file name;
#   - /debug/heap?format=json: leak_alloc on top; format=text, raw, pprof;
#     ?snapshot=FIRST is the first dump's total;
#   - /debug/heap/snapshot lists every dump by file name;
#   - /debug/heap/diff?base=FIRST (now: the newest) and &now=LAST: leak_alloc
#     grew the most;
#   - /debug/heap/leaks: leak_alloc a leak, churn_alloc not;
#   - 404 for an unknown snapshot (naming it), /debug/memory 404 offline,
#     POST 405 offline, Host: evil.example 403;
#   - a directory that changes under it (a dump added, one removed, a
#     non-dump warned about once); --token-file (401 without, the page
#     without it all the same);
#   - `ying serve` on two dump files (two snapshots), on garbage (exit 1
#     naming the file), an empty directory (exit 1), no input (exit 2);
#   - `ying serve URL` of a live agent: dumps fetched over time.
#   - format=tree of a dump (root = total) and of a diff; / serves the
#     page with its Content-Security-Policy, /debug/ the list.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need curl
need python3

if ! grep -q '^#define YING_HAVE_HTTP 1' "$YING_BUILDDIR/config.h"; then
	"$YING" serve "$T" >/dev/null 2>"$T/nohttp"
	is "$?" 1 "without HTTP support: ying serve exits 1"
	grep -q 'without the HTTP endpoint' "$T/nohttp"
	ok $? "... saying so" || diag "$T/nohttp"
	plan_done
	exit 0
fi

ying run --report-dir "$T/rep" --interval 1 --pct 0 --floor 0 --sample 14 \
    -- "$PROGS/leaks_prog" leak 8 >"$T/run.out" 2>"$T/run.err"
is "$?" 0 "ying run leaks_prog leak 8: exit 0" || diag "$T/run.err"
nheap=$(ls "$T/rep"/*.heap | wc -l)
[ "$nheap" -ge 6 ]
ok $? "the runner wrote at least 6 dumps ($nheap)" || ls -l "$T/rep"
echo "not a dump" >"$T/rep/notes.txt"

# start_serve NAME ARGS...: ying serve in the background; B=its URL
start_serve() {
	sv_n=$1
	shift
	"$YING" serve "$@" >"$T/$sv_n.out" 2>"$T/$sv_n.err" &
	sv_p=$!
	bg_pids="$bg_pids $sv_p"
	eval "pid_$sv_n=$sv_p"
	wait_for 20 grep -q '^ying serve: http://127.0.0.1:[0-9]*/$' "$T/$sv_n.err"
	B=$(sed -n 's|^ying serve: \(http://127.0.0.1:[0-9]*\)/$|\1|p' "$T/$sv_n.err")
}

start_serve dir --http 127.0.0.1:0 "$T/rep"
[ -n "$B" ]
ok $? "ying serve DIR prints its URL on stderr" || diag "$T/dir.err"
grep -q "^ying serve: $T/rep/notes.txt: .*(skipped: not a heap dump)$" "$T/dir.err"
ok $? "the file of DIR that is not a dump is skipped with a warning naming it" ||
    diag "$T/dir.err"

curl -sf "$B/debug/ui" >"$T/ui.json"
python3 - "$T/ui.json" "$nheap" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mode"] == "serve", d
assert d["program"] == "leaks_prog", d
assert isinstance(d["pid"], int) and d["pid"] > 0, d
assert d["dumps"] == int(sys.argv[2]), d
PY
ok $? "/debug/ui: mode serve, program leaks_prog, the reports' pid, every dump" ||
    diag "$T/ui.json"

curl -sf "$B/debug/history" >"$T/hist.json"
python3 - "$T/hist.json" "$T/rep" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
heaps = sorted(f for f in os.listdir(sys.argv[2]) if f.endswith(".heap"))
reports = sorted(f for f in os.listdir(sys.argv[2]) if f.endswith(".report"))
cols = d["columns"]
assert cols[:7] == ["t", "rss", "allocated", "active", "metadata", "resident", "retained"], cols
hc = [i for i, c in enumerate(cols) if c.startswith("heap:")]
assert len(hc) == 1 and len(cols) == 8, cols
pts = d["fine"]["points"]
assert len(pts) == len(heaps), (len(pts), len(heaps))
assert all(len(p) == len(cols) for p in pts), pts
ts = [p[0] for p in pts]
assert ts == sorted(ts), ts
heap = [p[hc[0]] for p in pts]
# leaks_prog keeps 512 KiB a second: the last dump is well above the first
assert heap[-1] > heap[0] + 1.5 * 1024 * 1024, heap
assert all(p[1] is not None and p[1] > p[hc[0]] for p in pts), "rss from the reports"
assert all(p[2] is None for p in pts), "no jemalloc counters in a dump"
ev = d["events"]
assert sorted(e["name"] for e in ev if e["kind"] == "dump") == heaps, ev
assert sorted(e["name"] for e in ev if e["kind"] == "report") == reports, ev
assert d["coarse"]["step"] == 60 and d["coarse"]["points"], d["coarse"]
assert d["now"] == max(e["t"] for e in ev), d["now"]
PY
ok $? "/debug/history: one point per dump, heap growing, rss from the reports, events" ||
    diag "$T/hist.json"
since=$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["fine"]["points"]; print(repr(p[-2][0]))' "$T/hist.json")
curl -sf "$B/debug/history?since=$since" >"$T/since.json"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["fine"]["points"]) == 1, d["fine"]
' "$T/since.json"
ok $? "/debug/history?since=T: only the points after T" || diag "$T/since.json"
code=$(curl -s -o "$T/bad" -w '%{http_code}' "$B/debug/history?since=yesterday")
is "$code" 400 "/debug/history?since=yesterday: 400"

curl -sf "$B/debug/heap?format=json" >"$T/top.json"
python3 - "$T/top.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["rows"] if "rows" in d else d["functions"]
assert rows[0]["function"] == "leak_alloc", rows[:3]
PY
ok $? "/debug/heap?format=json: leak_alloc on top of the newest dump" || diag "$T/top.json"
curl -sf "$B/debug/heap?format=text" | grep -q 'leak_alloc'
ok $? "format=text names leak_alloc"
last=$(ls "$T/rep"/*.heap | tail -n 1)
curl -sf -o "$T/raw.heap" "$B/debug/heap?format=raw" && cmp -s "$T/raw.heap" "$last"
ok $? "format=raw: the newest .heap byte for byte"
curl -sf -o "$T/p.pb.gz" "$B/debug/heap?format=pprof" && "$YING" top "$T/p.pb.gz" |
    grep -q leak_alloc
ok $? "format=pprof: a profile ying top reads, with leak_alloc"

# a report's name has '+' (its UTC offset): sent as %2B
first=$(basename "$(ls "$T/rep"/*.heap | head -n 1)")
lastn=$(basename "$last")
curl -sf "$B/debug/heap/snapshot" >"$T/snaps.json"
python3 - "$T/snaps.json" "$T/rep" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
heaps = sorted(f for f in os.listdir(sys.argv[2]) if f.endswith(".heap"))
assert sorted(s["name"] for s in d["snapshots"]) == heaps, d
assert d["count"] == len(heaps), d
PY
ok $? "/debug/heap/snapshot lists every dump by file name" || diag "$T/snaps.json"
curl -sf "$B/debug/heap?format=json&snapshot=$(url_enc "$first")" >"$T/first.json"
python3 - "$T/first.json" "$T/hist.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
h = json.load(open(sys.argv[2]))
assert d["total"] == h["fine"]["points"][0][7], (d["total"], h["fine"]["points"][0])
PY
ok $? "?snapshot=FIRST: the first dump (its total is the history's first point)" ||
    diag "$T/first.json"

for now in "" "&now=$(url_enc "$lastn")"; do
	curl -sf "$B/debug/heap/diff?base=$(url_enc "$first")$now&format=json" >"$T/diff.json"
	python3 - "$T/diff.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["rows"]
assert rows[0]["function"] == "leak_alloc", rows[:3]
assert rows[0]["delta"] > 1024 * 1024, rows[0]
PY
	ok $? "diff?base=FIRST${now:+&now=LAST}: leak_alloc grew the most" || diag "$T/diff.json"
done
curl -sf "$B/debug/heap/diff?base=$(url_enc "$first")&format=text" | grep -q 'leak_alloc'
ok $? "diff format=text names leak_alloc"
code=$(curl -s -o "$T/bad" -w '%{http_code}' "$B/debug/heap/diff?format=json")
is "$code" 400 "diff without base: 400"

curl -sf "$B/debug/heap/leaks" >"$T/leaks.json"
python3 - "$T/leaks.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = {x["function"]: x for x in d["sites"]}
assert s["leak_alloc"]["verdict"] == "leak", s["leak_alloc"]
assert s.get("churn_alloc", {"verdict": "churn"})["verdict"] != "leak", s["churn_alloc"]
assert d["source"]["offline"] is True, d["source"]
PY
ok $? "/debug/heap/leaks: leak_alloc a leak, churn_alloc not" || diag "$T/leaks.json"
curl -sf "$B/debug/heap/leaks?format=text" | grep -q '^leak  *+.*leak_alloc$'
ok $? "/debug/heap/leaks?format=text: leak_alloc a leak"

code=$(curl -s -o "$T/nf" -w '%{http_code}' "$B/debug/heap?snapshot=nosuch.heap")
is "$code" 404 "an unknown snapshot: 404"
grep -q 'no dump named nosuch.heap' "$T/nf"
ok $? "... naming it" || diag "$T/nf"
code=$(curl -s -o "$T/nf" -w '%{http_code}' "$B/debug/heap/diff?base=nosuch.heap")
is "$code" 404 "diff from an unknown snapshot: 404"
code=$(curl -s -o "$T/mem" -w '%{http_code}' "$B/debug/memory")
is "$code" 404 "/debug/memory: 404"
grep -q '^offline: no process' "$T/mem"
ok $? "... offline: no process" || diag "$T/mem"
code=$(curl -s -o "$T/post" -w '%{http_code}' -X POST "$B/debug/heap/snapshot?name=x")
is "$code" 405 "POST /debug/heap/snapshot: 405"
grep -q 'ying serve is offline' "$T/post"
ok $? "... saying it is offline" || diag "$T/post"
code=$(curl -s -o "$T/post" -w '%{http_code}' -X POST "$B/debug/prof/sample?lg=10")
is "$code" 404 "POST /debug/prof/sample: 404 offline"
code=$(curl -s -o "$T/host" -w '%{http_code}' -H 'Host: evil.example' "$B/debug/ui")
is "$code" 403 "Host: evil.example: 403"
code=$(curl -s -o /dev/null -w '%{http_code}' "$B/no/such")
is "$code" 404 "an unknown path: 404"

curl -sf "$B/debug/heap?format=tree" >"$T/tree.json"
python3 - "$T/tree.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = d["fields"]
st = len(f)
nodes = d["nodes"]
assert nodes[f.index("parent")] == -1, nodes[:st]
assert nodes[f.index("value")] == d["total"], (nodes[:st], d["total"])
assert "leak_alloc" in d["names"], d["names"]
PY
ok $? "format=tree: the root's value is the total" || diag "$T/tree.json"
curl -sf "$B/debug/heap/diff?base=$(url_enc "$first")&format=tree" >"$T/dtree.json"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = d["fields"]; st = len(f); n = d["nodes"]
grow = sum(n[i + f.index("value")] - n[i + f.index("base")] for i in range(0, len(n), st)
           if d["names"][n[i + f.index("name")]] == "leak_alloc")
assert grow > 1024 * 1024, grow
' "$T/dtree.json"
ok $? "diff format=tree: leak_alloc grew by over 1 MiB (value - base)" || diag "$T/dtree.json"
curl -s -D "$T/page.h" -o "$T/page.html" "$B/"
grep -qi '^Content-Security-Policy: default-src .none.' "$T/page.h" &&
    grep -qi '<html' "$T/page.html"
ok $? "/ serves the page with its Content-Security-Policy" || diag "$T/page.h"
curl -sf "$B/debug/" | grep -q '/debug/history'
ok $? "/debug/ lists the offline endpoints"

kill -INT "$pid_dir"
wait "$pid_dir"
is "$?" 0 "SIGINT: ying serve exits 0"

# two dump files
a=$(ls "$T/rep"/*.heap | head -n 1)
start_serve two --http 127.0.0.1:0 "$a" "$last"
curl -sf "$B/debug/heap/snapshot" >"$T/two.json"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["count"] == 2, d
' "$T/two.json"
ok $? "ying serve DUMP DUMP: two snapshots" || diag "$T/two.json"
curl -sf "$B/debug/heap/diff?base=$(url_enc "$first")&format=text" | grep -q leak_alloc
ok $? "... and their diff"
kill -TERM "$pid_two"
wait "$pid_two"
is "$?" 0 "SIGTERM: ying serve exits 0"

# a directory that changes: a dump added later is served, a file that is
# not a dump warned about once
mkdir "$T/grow"
cp "$a" "$T/grow/one.heap"
start_serve grow --http 127.0.0.1:0 "$T/grow"
count() { curl -sf "$B/debug/heap/snapshot" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])'; }
is "$(count)" 1 "a directory of one dump: one snapshot"
cp "$last" "$T/grow/.two.tmp" && mv "$T/grow/.two.tmp" "$T/grow/two.heap"
echo "junk" >"$T/grow/junk.heap"
is "$(count)" 2 "a dump added to the directory is served at the next request"
count >/dev/null
[ "$(grep -c 'junk.heap' "$T/grow.err")" = 1 ]
ok $? "a file added that is not a dump: one warning naming it" || diag "$T/grow.err"
rm "$T/grow/one.heap"
is "$(count)" 1 "a dump removed from the directory is gone"
kill -TERM "$pid_grow"
wait "$pid_grow"

# --token-file: the data needs the token, the page's files do not
printf 's3rve-t0ken\n' >"$T/token"
chmod 600 "$T/token"
start_serve tok --http 127.0.0.1:0 --token-file "$T/token" "$T/rep"
code=$(curl -s -o /dev/null -w '%{http_code}' "$B/debug/history")
is "$code" 401 "--token-file: /debug/history without the token: 401"
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer s3rve-t0ken' \
    "$B/debug/history")
is "$code" 200 "... with it: 200"
code=$(curl -s -o /dev/null -w '%{http_code}' "$B/")
is "$code" 200 "... the page itself without it: 200"
kill -TERM "$pid_tok"
wait "$pid_tok"

# bad input
echo "garbage" >"$T/garbage.heap"
"$YING" serve --http 127.0.0.1:0 "$a" "$T/garbage.heap" >/dev/null 2>"$T/g.err"
is "$?" 1 "a garbage file given: exit 1"
grep -q "$T/garbage.heap" "$T/g.err"
ok $? "... naming it" || diag "$T/g.err"
mkdir "$T/empty"
"$YING" serve --http 127.0.0.1:0 "$T/empty" >/dev/null 2>"$T/e.err"
is "$?" 1 "an empty directory: exit 1" || diag "$T/e.err"
"$YING" serve >/dev/null 2>"$T/u.err"
is "$?" 2 "no input: exit 2 (usage)"
"$YING" serve --keep 1 "$T/rep" >/dev/null 2>"$T/u.err"
is "$?" 2 "--keep 1: exit 2 (usage)"

# a live agent's URL, fetched every 0.5 s
ying run --http 127.0.0.1:0 --sample 14 -- "$PROGS/leaks_prog" leak 6 \
    >"$T/live.out" 2>"$T/live.err" &
lp=$!
bg_pids="$bg_pids $lp"
wait_for 20 grep -q 'HTTP on http://127.0.0.1:[0-9]*/' "$T/live.err"
L=$(sed -n 's|.*HTTP on \(http://127.0.0.1:[0-9]*\)/.*|\1|p' "$T/live.err" | head -n 1)
start_serve url --every 0.5 "$L"
sleep 2.5
curl -sf "$B/debug/history" >"$T/uhist.json"
python3 - "$T/uhist.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pts = d["fine"]["points"]
assert len(pts) >= 3, pts
assert all(e["kind"] == "dump" and e["name"].startswith("fetch-") for e in d["events"]), d["events"]
PY
ok $? "ying serve URL: the endpoint's heap fetched over time" || diag "$T/uhist.json"
curl -sf "$B/debug/heap?format=text" | grep -q leak_alloc
ok $? "... its newest fetch names leak_alloc"
kill -INT "$pid_url"
wait "$pid_url"
is "$?" 0 "ying serve URL: exit 0 on SIGINT"
wait "$lp"
plan_done
