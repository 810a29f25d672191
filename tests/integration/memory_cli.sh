#!/bin/sh
# memory_cli.sh: where the RSS goes (issue 26, item 2) through every front
# end, on tests/programs/agent_grow (plain glibc build, jemalloc preloaded by
# ying run) growing to 90 MiB under `ying run --sample 14 --http
# 127.0.0.1:0 --interval 1 --report-dir D` (AGENT_GROW_STOP: it exits 0
# when the test says, so that its agent's destructor runs):
#   - GET /debug/memory: ying-memory/1 JSON whose 14 parts sum to rss
#     exactly, rss within 5 % of status's VmRSS read with it, the live heap
#     and fragmentation parts with what is listed apart as not resident
#     (agent_grow writes 64 bytes of each 64 KiB block) equal to jemalloc's
#     active less tcache, and the profiled live heap within 10 % of the
#     program's 90 MiB (sites=1 dumps);
#     sites=0: no dump (profiled null); text; bad format/sites: 400; POST: 405;
#   - `ying memory URL` (text, --json, --no-sites) and `ying memory PID`
#     (the kernel's side: jemalloc not read, parts still summing to rss);
#     a pid that does not exist and an operand that is neither: errors;
#   - every .report has a "Where the RSS goes" section;
#   - ying run's exit summary has the head's breakdown at exit.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need curl

tool_homes "$T"
D="$T/reports"
AGENT_GROW_STOP=$T/stop
export AGENT_GROW_STOP
ying run --sample 14 --http 127.0.0.1:0 --interval 1 --floor 0 --report-dir "$D" -- \
    "$PROGS/agent_grow" 3 30 300 60000 >"$T/out" 2>"$T/err" &
rp=$!
bg_pids="$bg_pids $rp"
wait_for 30 grep -q 'HTTP on http://127.0.0.1:[0-9]*/' "$T/err"
ok $? "the agent announces its endpoint" || { diag "$T/err"; plan_done; }
url=$(sed -n 's|.*HTTP on \(http://127.0.0.1:[0-9]*\)/.*|\1|p' "$T/err" | head -n 1)
wait_for 30 grep -q '^step 3: ' "$T/out"
ok $? "the program grew to 90 MiB" || diag "$T/out"
pid=$(sed -n 's/^ying-agent: pid \([0-9]*\) (agent_grow).*/\1/p' "$T/err" | head -n 1)

# check_json FILE PID MODE: the invariants of one ying-memory/1 object
check_json() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
pid, mode = int(sys.argv[2]), sys.argv[3]
keys = ["jemalloc.live", "jemalloc.tcache", "jemalloc.fragmentation", "jemalloc.dirty",
        "jemalloc.muzzy", "jemalloc.metadata", "glibc.heap", "stacks.main",
        "stacks.threads", "files.code", "files.data", "shmem", "kernel", "anon.other"]
assert m["format"] == "ying-memory/1", m["format"]
assert m["pid"] == pid, (m["pid"], pid)
parts = {p["key"]: p["bytes"] for p in m["parts"]}
assert [p["key"] for p in m["parts"]] == keys, [p["key"] for p in m["parts"]]
assert sum(parts.values()) == m["rss"], ("sum", sum(parts.values()), m["rss"])
# the kernel's own counter, read with smaps (the agent's symbolizer maps
# and unmaps debug info around a request: a later read differs)
vm = m["vmrss"]
assert abs(m["rss"] - vm) <= 0.05 * vm, ("rss", m["rss"], "VmRSS", vm)
assert parts["files.code"] > 0 and parts["stacks.main"] > 0, parts
if mode == "pid":
    assert m["jemalloc"] is None and m["jemalloc_error"], m.get("jemalloc_error")
    sys.exit(0)
j = m["jemalloc"]
assert j["allocated"] >= 90 << 20, j
# agent_grow touches 64 bytes of each 64 KiB block: most of the live
# heap is counted by jemalloc but not resident, and listed apart; the
# resident rest is split between live heap and fragmentation
apart = {p["key"]: p["bytes"] for p in m["apart"]}
both = (parts["jemalloc.live"] + parts["jemalloc.fragmentation"] + parts["jemalloc.metadata"] +
        apart["jemalloc.not_resident"])
want = j["active"] - j["tcache"] + max(0, j["resident"] - j["active"] - j["dirty"])
assert both == want, ("live + fragmentation + metadata + not resident", both, "jemalloc's", want)
assert parts["jemalloc.metadata"] == 0, ("metadata, a maximum, goes first", parts)
assert apart["jemalloc.not_resident"] >= 60 << 20, apart
assert m["resident_split"] == "proportional", m["resident_split"]
if mode == "sites":
    # 90 MiB in 64 KiB blocks sampled every 16 KiB on average; allocated
    # also counts the agent's own memory, which its threads never sample
    assert j["profiled"] is not None
    assert abs(j["profiled"] - (90 << 20)) <= 0.10 * (90 << 20), ("profiled", j["profiled"])
else:
    assert j["profiled"] is None, j["profiled"]
assert m["elapsed_us"] > 0 and isinstance(m["advice"], list)
assert all(c["free_bytes"] == c["slab_bytes"] - c["used_bytes"] for c in m["classes"])
PY
}

curl -sS -o "$T/m.json" -w '%{http_code} %{content_type}\n' "$url/debug/memory" >"$T/st"
is "$(cat "$T/st")" "200 application/json" "GET /debug/memory: 200, JSON"
check_json "$T/m.json" "$pid" sites >"$T/chk" 2>&1
ok $? "parts sum to rss (within 5 % of VmRSS); live heap = allocated - tcache; profiled within 10 %" ||
    { diag "$T/chk"; diag "$T/m.json"; }
curl -sS -o "$T/m0.json" "$url/debug/memory?sites=0"
check_json "$T/m0.json" "$pid" nosites >"$T/chk" 2>&1
ok $? "?sites=0: the same without a dump (profiled null)" || diag "$T/chk"
curl -sS -o "$T/m.txt" -w '%{http_code}\n' "$url/debug/memory?format=text" >"$T/st"
is "$(cat "$T/st")" 200 "?format=text: 200"
grep -q "^memory of pid $pid: RSS " "$T/m.txt" && grep -q '^  jemalloc  live heap ' "$T/m.txt" &&
    grep -q '^  total ' "$T/m.txt"
ok $? "... the table of parts with its total" || diag "$T/m.txt"
for q in "format=svg" "sites=2" "sites=x" "sites=1&sites=1"; do
	is "$(curl -sS -o /dev/null -w '%{http_code}' "$url/debug/memory?$q")" 400 "?$q: 400"
done
is "$(curl -sS -o /dev/null -w '%{http_code}' -X POST "$url/debug/memory")" 405 "POST: 405"

ying memory "$url" >"$T/c.txt" 2>"$T/c.err"
is "$?" 0 "ying memory URL exits 0" || diag "$T/c.err"
grep -q "^memory of pid $pid: RSS " "$T/c.txt" && grep -q 'programs and libraries' "$T/c.txt"
ok $? "... prints the breakdown" || diag "$T/c.txt"
ying memory --json "$url/" >"$T/c.json" 2>"$T/c.err" && check_json "$T/c.json" "$pid" sites >"$T/chk" 2>&1
ok $? "ying memory --json URL/: the endpoint's JSON" || { diag "$T/c.err"; diag "$T/chk"; }
ying memory --json --no-sites "$url" >"$T/c0.json" 2>"$T/c.err" &&
    check_json "$T/c0.json" "$pid" nosites >"$T/chk" 2>&1
ok $? "ying memory --json --no-sites URL: no dump" || { diag "$T/c.err"; diag "$T/chk"; }
ying memory --json "$pid" >"$T/p.json" 2>"$T/p.err" && check_json "$T/p.json" "$pid" pid >"$T/chk" 2>&1
ok $? "ying memory --json PID: the kernel's side, parts summing to rss" ||
    { diag "$T/p.err"; diag "$T/chk"; }
ying memory "$pid" >"$T/p.txt" 2>&1 && grep -q '^jemalloc: not read (another process' "$T/p.txt"
ok $? "ying memory PID says jemalloc was not read, and why" || diag "$T/p.txt"
ying memory 999999999 >"$T/e.out" 2>"$T/e.err"
is "$?" 1 "ying memory on a pid that does not exist: exit 1"
grep -q '/proc/999999999/smaps' "$T/e.err"
ok $? "... naming what it could not read" || diag "$T/e.err"
ying memory 12abc >/dev/null 2>"$T/e.err"
is "$?" 2 "an operand that is neither a URL nor a pid: usage error (2)"
ying memory "$url/nowhere" >/dev/null 2>"$T/e.err"
is "$?" 1 "a URL the endpoint does not serve: exit 1"
grep -q '404' "$T/e.err"
ok $? "... naming the 404" || diag "$T/e.err"

touch "$T/stop"
wait "$rp"
is "$?" 0 "the program exits 0 when told to"
ls "$D"/*.report >"$T/report-list" 2>/dev/null
[ -s "$T/report-list" ]
ok $? "growth reports were written" || diag "$T/err"
miss=0
while read -r r; do
	grep -q '^Where the RSS goes (parts of at least 1 %' "$r" && grep -q '^memory of pid ' "$r" ||
	    miss=$((miss + 1))
done <"$T/report-list"
is "$miss" 0 "every report has the breakdown" || diag "$(head -n 1 "$T/report-list")"
grep -q "^ying run: where the RSS went, at exit of pid $pid:" "$T/err" &&
    grep -q "^ying run:   memory of pid $pid: RSS " "$T/err"
ok $? "ying run's exit summary has the breakdown at exit" || diag "$T/err"
plan_done
