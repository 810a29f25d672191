#!/bin/sh
# run_grow.sh: ying-style growth reports from `ying run` on a real program.
#
# tests/programs/agent_grow (plain glibc build: ying run must preload
# jemalloc) adds 30 MiB per second in agent_grow_step() -> agent_grow_block(),
# five times, then holds 150 MiB for 3 s.  Under `ying run --interval 1
# --report-dir D --sample 14` the runner must write report sets named
# ying.<ISO local time with offset>.<N>MiB.{report,svg,heap,pb.gz}, growing,
# the last one within 10 % of the 150 MiB truth; the .report must name the
# growing function and say what grew since the previous report; the .heap
# must parse with `ying top`, the .pb.gz with `go tool pprof`.  A second run
# checks --portable-names (no ':'), --floor and the directory bound
# (YING_REPORT_MAX_SETS): only the newest sets stay, and a set named by an
# older version (<N>MB) is pruned too.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need go

tool_homes "$T"

# AGENT_GROW_WAIT: the program holds its heap until the last report is
# there (at most 10 x 3 s), so a loaded machine cannot make it miss.
AGENT_GROW_WAIT=1
export AGENT_GROW_WAIT
D="$T/reports"
ying run --interval 1 --report-dir "$D" --sample 14 -- "$PROGS/agent_grow" 5 30 1000 3000 \
    >"$T/out" 2>"$T/err"
is "$?" 0 "ying run exits with the program's status (0)"
is "$(grep -c '^step [1-5]: ' "$T/out")" 5 "the program's output passes through" || diag "$T/out"
is "$(grep -c '^ying-agent: pid [0-9]* (agent_grow): heap profiling on' "$T/err")" 1 \
    "the agent announces itself once" || diag "$T/err"

ls "$D" >"$T/ls"
bad=$(grep -Ev '^ying\.[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[+-][0-9]{2}:[0-9]{2}\.[0-9]+MiB\.(report|svg|heap|pb\.gz)$' "$T/ls")
is "$bad" "" "every file is named ying.<ISO local time+offset>.<N>MiB.<ext> (no temporary files)"
sed 's/^/# /' "$T/ls"
report_sets "$D" >"$T/sets"
n=$(wc -l <"$T/sets")
[ "$n" -ge 2 ] && [ "$n" -le 6 ]
ok $? "2 to 6 report sets for 5 steps of +20 % or more (got $n)"
missing=0
while read -r b; do
	for e in report svg heap pb.gz; do
		[ -s "$D/$b.$e" ] || missing=$((missing + 1))
	done
done <"$T/sets"
is "$missing" 0 "all four files in every set"
is "$(stat -c %a "$D")" 700 "the report directory was created with mode 0700"

mbs=$(while read -r b; do mb_of "$b"; done <"$T/sets" | tr '\n' ' ')
echo "# sizes in the names: $mbs"
python3 - "$mbs" <<'PY'
import sys
v = [int(x) for x in sys.argv[1].split()]
assert all(b > a for a, b in zip(v, v[1:])), "sizes must grow"
assert 20 <= v[0] <= 66, "first report past the 20 MiB floor, by the second step"
assert abs(v[-1] - 150) <= 15, "last report within 10 %% of 150 MiB"
PY
ok $? "sizes grow, the first is past the 20 MiB floor, the last is 150 MiB +- 10 %"

first=$(head -n 1 "$T/sets")
last=$(tail -n 1 "$T/sets")
R="$D/$last.report"
grep -q '^trigger    first report: live heap reached the floor' "$D/$first.report"
ok $? "the first report says why (floor)" || diag "$D/$first.report"
grep -q '^trigger    live heap grew [0-9]*\.[0-9] % since the previous report' "$R"
ok $? "later reports say why (growth)" || diag "$R"
grep -q "^ying report: agent_grow (pid [0-9]*), " "$R"
ok $? ".report headline names program and pid"
for k in '^time       [0-9-]*T[0-9:]*[+-][0-9][0-9]:[0-9][0-9]$' '^pid        [0-9]' \
    '^live heap  1[0-9.]* MiB ([0-9]* bytes): in use' '^previous   live heap [0-9.]* MiB at ' \
    '^jemalloc   allocated .* active .* resident .* mapped .* retained .* (unused, still mapped), metadata ' \
    '^Top [0-9]* stacks by live heap' \
    '^sampling   one sample per 16.0 KiB .*lg_prof_sample 14'; do
	grep -q "$k" "$R"
	ok $? ".report line /$k/" || diag "$R"
done
grep -A4 '^#1 ' "$R" | grep -q 'agent_grow_block (agent_grow.c:[0-9]*)'
ok $? "the biggest stack starts at agent_grow_block (file:line)" || diag "$R"
grep -A4 '^#1 ' "$R" | grep -q 'agent_grow_step (agent_grow.c:[0-9]*)'
ok $? "... called from agent_grow_step" || diag "$R"
sed -n '/^Grew since the previous report/,$p' "$R" >"$T/grew"
grep -q '^ *+[0-9.]* MiB .* agent_grow_block' "$T/grew"
ok $? "\"grew since the previous report\" shows agent_grow_block growing by MiBs" || diag "$T/grew"
grep -q '^ *+[0-9.]* MiB  *±[0-9.]* [KM]iB .*    agent_grow_block' "$T/grew"
ok $? "... with its 95 % interval, not marked within noise (~)" || diag "$T/grew"
grep -q '^Delta: .*±.*(95 %: +[0-9.]* MiB to +[0-9.]* MiB)' "$T/grew"
ok $? "the growth's total carries its interval" || diag "$T/grew"

ying top --json "$D/$last.heap" >"$T/top.json" 2>"$T/top.err"
ok $? "ying top reads the .heap" || diag "$T/top.err"
python3 - "$T/top.json" "$(mb_of "$last")" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
mb = int(sys.argv[2])
assert abs(d["total"] / 1048576 - mb) <= 0.5 + 1e-9, (d["total"], mb)
assert d["rows"][0]["function"] == "agent_grow_block", d["rows"][0]
PY
ok $? ".heap total (ying top) matches the <N>MiB of the name; top function agent_grow_block"
timeout 120 go tool pprof -top "$D/$last.pb.gz" >"$T/go.txt" 2>"$T/go.err"
ok $? "go tool pprof reads the .pb.gz" || diag "$T/go.err"
grep -q 'agent_grow_block' "$T/go.txt"
ok $? "go tool pprof -top shows agent_grow_block" || diag "$T/go.txt"
head -c 200 "$D/$last.svg" | grep -q '<svg\|<?xml'
ok $? ".svg is an SVG document"
grep -q 'agent_grow_step' "$D/$last.svg"
ok $? ".svg names agent_grow_step"

# Portable names, a lower floor and a bound of two sets.
D2="$T/portable"
# a set left by an older version, named <N>MB, older than everything
mkdir -m 700 "$D2"
for e in report svg heap pb.gz; do
	echo old >"$D2/ying.20200101T000000-0500.99MB.$e"
	touch -d '2020-01-01 00:00:00' "$D2/ying.20200101T000000-0500.99MB.$e"
done
TZ=EST5EDT,M3.2.0,M11.1.0 YING_REPORT_MAX_SETS=2 ying run -q --portable-names --interval 0.5 --floor 5MiB \
    --report-dir "$D2" --sample 14 -- "$PROGS/agent_grow" 4 10 700 1500 >"$T/out2" 2>"$T/err2"
is "$?" 0 "second run exits 0"
is "$(cat "$T/err2")" "" "--quiet: nothing on stderr"
ls "$D2" >"$T/ls2"
sed 's/^/# /' "$T/ls2"
bad=$(grep -Ev '^ying\.[0-9]{8}T[0-9]{6}-0[45]00\.[0-9]+MiB\.(report|svg|heap|pb\.gz)$' "$T/ls2")
is "$bad" "" "--portable-names under TZ=EST5EDT: ying.<YYYYMMDDTHHMMSS-0400 or -0500>.<N>MiB.<ext>, no ':'; the older <N>MB set was pruned"
is "$(report_sets "$D2" | wc -l | tr -d ' ')" 2 "YING_REPORT_MAX_SETS=2 keeps two sets"
is "$(ls "$D2" | wc -l | tr -d ' ')" 8 "... of four files each"
last2=$(report_sets "$D2" | tail -n 1)
m=$(mb_of "$last2")
[ "$m" -ge 36 ] && [ "$m" -le 44 ]
ok $? "the newest set (40 MiB, got $m) is kept"

plan_done
