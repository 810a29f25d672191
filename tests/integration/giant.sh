#!/bin/sh
# giant.sh: giant allocations through jemalloc's allocation hooks
# (issue 15, item 3).
#
# tests/programs/giant_prog runs 4 threads that malloc/free 20000 small
# blocks each while its main thread mallocs 64 MiB three times from one
# call site (giant_block_64m), callocs 10 x 4 MiB (giant_calloc) and
# reallocs 1 MiB up to 48 MiB (giant_grow).  Under `ying run --giant 32M
# --http 127.0.0.1:0 --token-file F`:
#  - its output and exit status (3) are unchanged;
#  - the agent logs each place once ("ying: giant allocation of N bytes at
#    FUNC (FILE:LINE), thread T"), giant_block_64m once for three calls,
#    and nothing for the small blocks;
#  - GET /debug/heap/giant (token and Host rules as for the other routes)
#    lists the five allocations with size, kind, thread, time and their
#    symbolized stacks, the 64 MiB site with count 3, nothing below the
#    threshold; ?since=SEQ lists the later ones only;
#  - the listing reads back through the public API (giant_read): records,
#    repeats, and the call sites' stacks, symbolized again from the
#    listing's maps;
#  - a growth report (--dump-signal USR2) lists them in its .report and
#    writes them to <base>.giant.json; the next report lists only the
#    ones since (none).
# With YING_GIANT and a preloaded object that has taken jemalloc's four
# hook slots, the agent prints one warning and the program runs normally
# (and /debug/heap/giant says 404); without prof:true the agent is inert
# and the program runs normally.  With YING_GIANT=1k (most of the small
# blocks are "giant": the hook and its ring under four threads of load)
# and an interposer in front of jemalloc that counts allocations made
# inside another one (i.e. inside a hook), none is made, the program's
# output is unchanged and small_worker's place is logged once.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need curl cc

cc -shared -fPIC -O1 -o "$T/hooks4.so" "$YING_SRCDIR/tests/programs/giant_hooks4.c" -ldl
ok $? "the four-hook preload object builds"
cc -shared -fPIC -O1 -o "$T/nest.so" "$YING_SRCDIR/tests/programs/giant_nest.c" -ldl
ok $? "the nesting-counter preload object builds"

"$PROGS/giant_prog" 4 20000 >"$T/plain.out" 2>"$T/plain.err"
is "$?" 3 "giant_prog alone exits 3"

# ---- ying run --giant 32M --http ----------------------------------------------
printf 's3cret\n' >"$T/token"
chmod 600 "$T/token"
"$YING" run --giant 32M --http 127.0.0.1:0 --token-file "$T/token" \
    --report-dir "$T/reports" --interval 0 --dump-signal USR2 -- \
    "$PROGS/giant_prog" 4 20000 "$T/go" >"$T/out" 2>"$T/err" &
p=$!
bg_pids="$bg_pids $p"
wait_for 20 grep -q '^ready' "$T/out"
ok $? "the program runs under ying run --giant" || diag "$T/err"
wait_for 10 grep -q 'HTTP on http://127.0.0.1:[0-9]*/' "$T/err"
hp=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/err" | head -n 1)
U="http://127.0.0.1:$hp/debug/heap/giant"
code=$(curl -s -o "$T/g.json" -w '%{http_code}' -H 'Authorization: Bearer s3cret' "$U")
is "$code" 200 "GET /debug/heap/giant: 200" || diag "$T/g.json"
code=$(curl -s -o /dev/null -w '%{http_code}' "$U")
is "$code" 401 "... 401 without the token"
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer s3cret' \
    -H 'Host: evil.example' "$U")
is "$code" 403 "... 403 for a foreign Host"
last=$(python3 -c 'import json,sys; print(max(r["seq"] for r in json.load(open(sys.argv[1]))["records"]))' "$T/g.json" 2>/dev/null)
curl -s -o "$T/since.json" -H 'Authorization: Bearer s3cret' "$U?since=${last:-0}"
pid=$(sed -n 's/^ying-agent: pid \([0-9]*\) (giant_prog): heap profiling on.*giant allocations from 32.0 MiB logged.*/\1/p' "$T/err")
kill -USR2 "$pid"
wait_for 10 count_reports "$T/reports" 1
ok $? "a report set on USR2" || diag "$T/err"
kill -USR2 "$pid"
wait_for 10 count_reports "$T/reports" 2
ok $? "a second report set on USR2" || diag "$T/err"
touch "$T/go"
wait "$p"
rc=$?
bg_pids=""
is "$rc" 3 "ying run exits with the program's status (3)"
is "$(grep '^checksum' "$T/out")" "$(cat "$T/plain.out")" "the program's output is unchanged"

ok $([ -n "$pid" ]; echo $?) "the agent announces the giant threshold" || diag "$T/err"
grep '^ying: giant' "$T/err" >"$T/log"
is "$(grep -c "^ying: giant allocation of 67108864 bytes at giant_block_64m (giant_prog.c:[0-9]*), thread $pid\$" "$T/log")" 1 \
    "the 64 MiB place is logged once for three allocations, with function, file:line and thread" || diag "$T/err"
is "$(grep -c "^ying: giant allocation of 41943040 bytes at giant_calloc (giant_prog.c:[0-9]*), thread $pid\$" "$T/log")" 1 \
    "calloc(10, 4 MiB) is logged (nmemb * size)" || diag "$T/err"
is "$(grep -c "^ying: giant allocation of 50331648 bytes at giant_grow (giant_prog.c:[0-9]*), thread $pid\$" "$T/log")" 1 \
    "the realloc that grows past the threshold is logged" || diag "$T/err"
is "$(wc -l <"$T/log")" 3 "nothing else is logged (no small allocation)" || diag "$T/log"

python3 - "$T/g.json" "$T/since.json" "$pid" >"$T/py.out" 2>&1 <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
pid = int(sys.argv[3])
assert g["format"] == "ying-giant/1" and g["threshold"] == 32 << 20, g["threshold"]
assert g["pid"] == pid and g["program"].endswith("/giant_prog"), (g["pid"], g["program"])
assert g["allocations"] == 5 and g["dropped"] == 0, (g["allocations"], g["dropped"])
recs = g["records"]
assert len(recs) == 5, len(recs)
assert all(r["size"] >= 32 << 20 for r in recs), "a small allocation was listed"
assert all(r["thread"] == pid for r in recs), "thread ids"
assert all(abs(r["time_ns"] - g["time_ns"]) < 60e9 for r in recs), "wall-clock times"
assert [r["seq"] for r in recs] == sorted(r["seq"] for r in recs), "oldest first"
def top(site):
    return g["sites"][site]["frames"][0]["function"]
big = [r for r in recs if r["size"] == 64 << 20]
assert len(big) == 3 and all(r["kind"] == "malloc" and top(r["site"]) == "giant_block_64m"
                             and r["function"] == "giant_block_64m" for r in big), big
assert len({r["site"] for r in big}) == 1, "one call site for the three 64 MiB calls"
site = g["sites"][big[0]["site"]]
assert site["count"] == 3 and site["bytes"] == 3 * (64 << 20), site
names = [f["function"] for f in site["frames"]]
assert names[:2] == ["giant_block_64m", "main"], names
assert site["frames"][0]["file"].endswith("giant_prog.c") and site["frames"][0]["line"] > 0
assert all(a.startswith("0x") for a in site["stack"]) and len(site["stack"]) >= 3
c = [r for r in recs if r["kind"] == "calloc"]
assert len(c) == 1 and c[0]["size"] == 40 << 20 and top(c[0]["site"]) == "giant_calloc", c
rr = [r for r in recs if r["kind"].startswith("realloc")]
assert len(rr) == 1 and rr[0]["size"] >= 48 << 20 and top(rr[0]["site"]) == "giant_grow", rr
assert "ying-build-id:" in g["maps"] and "/giant_prog" in g["maps"], "maps for offline use"
last = max(r["seq"] for r in recs)
assert [r["seq"] for r in s["records"]] == [last] and s["since"] == last, s["records"]
print("ok")
PY
is "$(cat "$T/py.out")" ok "the listing: 5 records (3 x 64 MiB at one site, calloc, realloc), sizes, kinds, threads, times, symbolized stacks, maps; ?since" || diag "$T/py.out"

"$PROGS/giant_read" "$T/g.json" >"$T/read.out" 2>&1
is "$?" 0 "the listing reads back through ying_giant_read_file" || diag "$T/read.out"
is "$(grep -c '^record [0-9]* size 67108864 kind malloc thread [0-9]* site [0-9]* repeats 3 ' "$T/read.out")" 3 \
    "... 3 records of 64 MiB, 3 repeats at their call site" || diag "$T/read.out"
grep -q '^threshold 33554432 pid [0-9]* allocations 5 dropped 0 records 5 sites 3$' "$T/read.out"
ok $? "... header: threshold, 5 allocations, 5 records, 3 call sites" || diag "$T/read.out"
grep -q ';main;giant_block_64m 201326592$' "$T/read.out"
ok $? "... its profile symbolizes again offline: main;giant_block_64m 192 MiB" || diag "$T/read.out"

report_sets "$T/reports" >"$T/sets"
r1=$(head -n 1 "$T/sets")
r2=$(sed -n 2p "$T/sets")
R1="$T/reports/$r1.report"
grep -q "^Giant allocations since the previous report (at least 32.0 MiB; $r1.giant.json): 5\$" "$R1"
ok $? "the first .report lists the 5 giant allocations" || diag "$R1"
is "$(grep -c "^  [0-9T:+-]*  *64.0 MiB  malloc  *thread $pid  *giant_block_64m (giant_prog.c:[0-9]*) <- main (giant_prog.c:[0-9]*)\$" "$R1")" 3 \
    "... each with time, size, kind, thread and its place" || diag "$R1"
"$PROGS/giant_read" "$T/reports/$r1.giant.json" >"$T/read1.out" 2>&1
grep -q ' allocations 5 dropped 0 records 5 sites 3$' "$T/read1.out"
ok $? "... and <base>.giant.json holds them (read back)" || diag "$T/read1.out"
grep -q "^Giant allocations since the previous report (at least 32.0 MiB; $r2.giant.json): 0\$" "$T/reports/$r2.report"
ok $? "the second .report lists none: only the ones since the previous report" || diag "$T/reports/$r2.report"

# ---- install failure: four hooks already there ---------------------------------
LD_PRELOAD="$JEMALLOC $AGENT $T/hooks4.so" MALLOC_CONF=prof:true YING_GIANT=32M \
    YING_HTTP=127.0.0.1:0 "$PROGS/giant_prog" 4 20000 "$T/go2" >"$T/out2" 2>"$T/err2" &
p=$!
bg_pids="$p"
wait_for 20 grep -q '^ready' "$T/out2"
hp=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/err2" | head -n 1)
code=$(curl -s -o "$T/g2" -w '%{http_code}' "http://127.0.0.1:$hp/debug/heap/giant")
is "$code" 404 "hooks taken: GET /debug/heap/giant is 404" || diag "$T/g2" "$T/err2"
grep -q 'YING_GIANT=SIZE' "$T/g2"
ok $? "... saying how to turn it on" || diag "$T/g2"
touch "$T/go2"
wait "$p"
is "$?" 3 "hooks taken: the program exits normally (3)"
bg_pids=""
grep -q '^giant_hooks4: 4 hook slots taken' "$T/err2"
ok $? "the preloaded object took jemalloc's four hook slots first" || diag "$T/err2"
is "$(grep -c 'warning: giant allocations (from 32.0 MiB) not recorded: experimental.hooks.install: all of jemalloc.s hook slots (4) are taken' "$T/err2")" 1 \
    "one warning names the reason" || diag "$T/err2"
is "$(grep -c '^ying: giant' "$T/err2")" 0 "nothing is logged" || diag "$T/err2"
is "$(grep '^checksum' "$T/out2")" "$(cat "$T/plain.out")" "the program's output is unchanged"

# ---- 1 KiB threshold under load: the hook never allocates ------------------------
LD_PRELOAD="$T/nest.so $JEMALLOC $AGENT" MALLOC_CONF=prof:true YING_GIANT=1k \
    "$PROGS/giant_prog" 4 20000 >"$T/out4" 2>"$T/err4"
is "$?" 3 "YING_GIANT=1k under 4 threads: the program exits normally (3)"
is "$(grep '^checksum' "$T/out4")" "$(cat "$T/plain.out")" "... its output is unchanged"
n=$(sed -n 's/^giant_nest: 0 nested of \([0-9]*\)$/\1/p' "$T/err4")
ok $([ "${n:-0}" -gt 80000 ]; echo $?) "... no allocation is made inside the hook (0 nested of ${n:-?} counted)" || diag "$T/err4"
is "$(grep -c '^ying: giant allocation of [0-9]* bytes at small_worker (giant_prog.c:[0-9]*), thread [0-9]*$' "$T/err4")" 1 \
    "... small_worker's place is logged once (4 threads, thousands of records)" || diag "$T/err4"

# ---- no prof:true: inert, the program runs -------------------------------------
LD_PRELOAD="$JEMALLOC $AGENT" YING_GIANT=32M "$PROGS/giant_prog" 4 20000 >"$T/out3" 2>"$T/err3"
is "$?" 3 "without prof:true the program exits normally (3)"
is "$(grep -c 'ying-agent: inert' "$T/err3")" 1 "... the agent says once that it is inert" || diag "$T/err3"
is "$(grep -c '^ying: giant' "$T/err3")" 0 "... and logs nothing" || diag "$T/err3"

plan_done
