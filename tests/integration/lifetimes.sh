#!/bin/bash
# lifetimes.sh: recent-allocation capture end to end (issue 15, item 2).
#
# tests/programs/life_prog (short_lived: 200 blocks freed at once;
# long_lived: 30 blocks kept 1.2 s; leaked: 10 blocks never freed) runs
# under `ying run --recent-max 1000 --sample 0 --http 127.0.0.1:0`, so
# the agent sets experimental.prof_recent.alloc_max from YING_RECENT_MAX;
# GET /debug/heap/recent is the capture; `ying lifetimes` must name the
# three functions with their buckets, in text, JSON and a well-formed SVG;
# POST ?max=N changes the count (GET ?max is refused); the program's own
# prof log (ying_ctl_log_start/stop, refused while gdump is on) reads too;
# the growth runner writes BASE.recent.json beside each report set.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need curl python3

LIFE="$PROGS/life_prog"
"$YING" run --recent-max 1000 --sample 0 --http 127.0.0.1:0 \
    --report-dir "$T/rep" --floor 1 --interval 0.3 -- \
    "$LIFE" "$T/log.json" "$T/ready" "$T/done" >"$T/out" 2>"$T/err" &
p=$!
bg_pids="$bg_pids $p"
wait_for 30 grep -q 'HTTP on http://127.0.0.1:[0-9]*/' "$T/err"
ok $? "the agent announces its HTTP endpoint" || diag "$T/err"
hp=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/err" | head -n 1)
B="http://127.0.0.1:$hp"
wait_for 30 test -e "$T/ready"
ok $? "the program ran its pattern" || diag "$T/err" "$T/out"

code=$(curl -s -o "$T/cap.json" -w '%{http_code}' "$B/debug/heap/recent")
is "$code" 200 "GET /debug/heap/recent is 200"
python3 - "$T/cap.json" <<'PY' >"$T/cap.check" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ying_recent"] == 1 and d["time_resolution"] == "default", d.keys()
assert d["captured_wall_ns"] > 1.6e18 and d["captured_prof_ns"] > 0
assert "life_prog" in d["program"] and "life_prog" in d["maps"]
j = d["jemalloc"]
assert j["recent_alloc_max"] == 1000, j["recent_alloc_max"]
assert j["sample_interval"] == 1
assert len(j["recent_alloc"]) >= 240, len(j["recent_alloc"])
PY
ok $? "the capture: ying's wrapper (clocks, maps) around jemalloc's JSON, alloc_max 1000 from YING_RECENT_MAX" || diag "$T/cap.check"

ying lifetimes --top 50 --svg "$T/life.svg" "$T/cap.json" >"$T/life.txt" 2>"$T/life.err"
ok $? "ying lifetimes reads the capture" || diag "$T/life.err"
# columns: allocs, bytes (number and unit), 8 buckets, call site
row() { awk -v f="$1" '$NF == f' "$T/life.txt"; }
# jemalloc's default prof clock is CLOCK_MONOTONIC_COARSE (a few ms per
# tick): a block freed at once may straddle a tick, so short_lived is
# mostly < 1 ms and all < 100 ms
r=$(row short_lived)
is "$(echo "$r" | awk '{print $1, ($4 >= 150), $4 + $5 + $6}')" "200 1 200" \
    "short_lived: 200 allocations, all < 100 ms, most < 1 ms" || diag "$T/life.txt"
r=$(row long_lived)
is "$(echo "$r" | awk '{print $1, $8}')" "30 30" "long_lived: 30 allocations, all in < 10 s" || diag "$T/life.txt"
r=$(row leaked)
is "$(echo "$r" | awk '{print $1, $11}')" "10 10" "leaked: 10 allocations, all still live" || diag "$T/life.txt"
is "$(awk 'NR == 2 {print $3, $8, $10}' "$T/life.txt")" "<1ms <100s live" "the header names the buckets"

ying lifetimes --json "$T/cap.json" >"$T/life.json" 2>"$T/life.err"
python3 - "$T/life.json" <<'PY' >"$T/json.check" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
s = {x["name"]: x for x in d["sites"]}
c = s["short_lived"]["counts"]
assert sum(c[:3]) == 200 and c[0] >= 150 and s["short_lived"]["bytes"] == 200 * 768, s["short_lived"]
assert s["long_lived"]["counts"] == [0, 0, 0, 0, 30, 0, 0, 0], s["long_lived"]
assert s["leaked"]["counts"] == [0, 0, 0, 0, 0, 0, 0, 10], s["leaked"]
assert s["leaked"]["bytes"] == 10 * 10240, s["leaked"]
b = [x["bytes"] for x in d["sites"]]
assert b == sorted(b, reverse=True), b
PY
ok $? "--json: exact buckets and bytes per call site, sorted by bytes" || diag "$T/json.check"

ying lifetimes --stacks -n 3 "$T/cap.json" >"$T/stacks.txt" 2>&1
grep -q ' short_lived <- main <- ' "$T/stacks.txt" && grep -q 'allocation stack$' "$T/stacks.txt"
ok $? "--stacks: whole stacks, leaf first" || diag "$T/stacks.txt"
ying lifetimes --stacks -n 3 --keep-allocator-frames --binary-path "$T" "$T/cap.json" \
    >"$T/keep.txt" 2>&1
grep -q ' <- short_lived <- main <- ' "$T/keep.txt" && ! grep -q '  short_lived <- ' "$T/keep.txt"
ok $? "--keep-allocator-frames (and --binary-path): the allocator's frames lead the stacks" ||
    diag "$T/keep.txt"

python3 - "$T/life.svg" <<'PY' >"$T/svg.check" 2>&1
import sys, xml.etree.ElementTree as E
t = E.parse(sys.argv[1])
text = "".join(t.getroot().itertext())
for f in ("short_lived", "long_lived", "leaked", "<1ms", "live"):
    assert f in text, f
PY
ok $? "the SVG parses as XML and names the call sites and buckets" || diag "$T/svg.check"

code=$(curl -s -o "$T/b" -w '%{http_code}' "$B/debug/heap/recent?max=5")
is "$code" 400 "GET /debug/heap/recent?max=5 is refused (state changes need POST)"
code=$(curl -s -o "$T/b" -w '%{http_code}' -X POST "$B/debug/heap/recent?max=5")
is "$code" 200 "POST /debug/heap/recent?max=5 is 200"
is "$(cat "$T/b")" '{"recent_alloc_max":5,"previous":1000}' "POST answers the new and the previous count"
curl -s -o "$T/cap5.json" "$B/debug/heap/recent"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jemalloc"]; assert j["recent_alloc_max"] == 5 and len(j["recent_alloc"]) <= 5, j' \
    "$T/cap5.json" >"$T/b" 2>&1
ok $? "after POST ?max=5 the capture keeps at most 5 records" || diag "$T/b"
code=$(curl -s -o "$T/b" -w '%{http_code}' -X POST "$B/debug/heap/recent?max=-2")
is "$code" 400 "POST ?max=-2 is 400"
# the growth runner adds the capture to its report sets
wait_for 30 sh -c "ls '$T/rep' | grep -q '\.recent\.json\$'"
ok $? "a report set carries BASE.recent.json" || ls -l "$T/rep"
rj=$(ls "$T/rep"/*.recent.json | head -n 1)
ying lifetimes --json "$rj" >"$T/rep.out" 2>"$T/rep.err"
ok $? "ying lifetimes reads the report's capture" || diag "$T/rep.err"
grep -q 'recent.json (ying lifetimes)' "${rj%.recent.json}.report"
ok $? "the .report names the .recent.json file" || diag "${rj%.recent.json}.report"
touch "$T/done"
wait "$p"
ok $? "the program exits 0" || diag "$T/err"

ying lifetimes --json "$T/log.json.self.json" >"$T/self.out" 2>"$T/self.err"
python3 - "$T/self.out" <<'PY' >"$T/self.check" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
s = {x["name"]: x for x in d["sites"]}
assert s["leaked"]["counts"][7] == 10 and s["long_lived"]["counts"][4] == 30, s
own = [n for n in s if n.startswith(("ying_", "yi_", "build_id_lines", "read_maps"))]
assert not own, own
PY
ok $? "ying_ctl_recent_dump from a sampling thread: the pattern, none of the capture's own buffers" || diag "$T/self.check" "$T/self.err"
grep -q '^gdump refused: -9 .*prof.gdump' "$T/out"
ok $? "ying_ctl_log_start refuses while prof.gdump is on (YING_EBUSY)" || diag "$T/out"
grep -q '^log stop again: -1' "$T/out"
ok $? "ying_ctl_log_stop without a running log is YING_EINVAL" || diag "$T/out"
ying lifetimes --json "$T/log.json" >"$T/log.out" 2>"$T/log.err"
python3 - "$T/log.out" <<'PY' >"$T/log.check" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
tot = [sum(x["counts"][i] for x in d["sites"]) for i in range(8)]
# only freed blocks are logged: 200 short ones, 30 long ones, no live one
assert sum(tot[:3]) >= 200 and tot[4] == 30 and tot[7] == 0, tot
PY
ok $? "the prof log reads: freed records only, with their lifetimes" || diag "$T/log.check" "$T/log.err"

YING_RECENT_MAX=lots YING_HTTP=127.0.0.1:0 MALLOC_CONF=prof:true LD_PRELOAD="$AGENT" \
    "$PROGS/agent_exit" >/dev/null 2>"$T/bad.err"
grep -q 'YING_RECENT_MAX' "$T/bad.err"
ok $? "a bad YING_RECENT_MAX leaves the agent inert, naming the variable" || diag "$T/bad.err"

printf '{"recent_alloc":[{"size":1}' >"$T/cut.json"
ying lifetimes "$T/cut.json" >/dev/null 2>"$T/cut.err"
is "$?" 1 "a truncated capture exits 1"
grep -q 'cut.json:1:28: ' "$T/cut.err"
ok $? "... naming the file, line and column" || diag "$T/cut.err"
plan_done
