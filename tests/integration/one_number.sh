#!/bin/sh
# one_number.sh: the same heap has the same byte total in every output.
#
# Each stack's unsampled estimate is rounded once, to whole bytes, when the
# dump is read; every output sums those integers.  A real program
# (tests/programs/agent_grow, 1000..3000-byte blocks sampled at 2^14, so
# every estimate has a fraction) runs under `ying run --report-dir`.  For
# the newest report set, these must all print the same number of bytes:
# the .report header (`live heap X (N bytes)`), `ying top` text and JSON of
# the .heap, the folded sum, `ying top` of the runner's .pb.gz and of
# `ying pprof`'s, `go tool pprof -raw`'s sample sum, yingdiff's now_total
# (and a delta of exactly 0, row by row, between the .heap and its own
# pprof), and `ying sql`'s inuse_bytes.  jeprof stays the oracle: its
# Total is within nstacks/2 + 1 bytes of ying's (jeprof sums unrounded
# estimates, then truncates), and ying-jeprof prints jeprof's Total exactly.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need go jeprof python3

tool_homes "$T"
YD="$YING_BUILDDIR/yingdiff"
AGENT_GROW_WAIT=1
export AGENT_GROW_WAIT
D="$T/reports"
ying run -q --interval 1 --report-dir "$D" --sample 14 -- "$PROGS/agent_grow" 3 20 1000 3000 \
    >"$T/out" 2>"$T/err"
is "$?" 0 "ying run agent_grow exits 0" || diag "$T/err"
set=$(ls "$D" | sed -n 's/\.report$//p' | sort | tail -n 1)
[ -n "$set" ] && [ -s "$D/$set.heap" ] && [ -s "$D/$set.pb.gz" ]
ok $? "a report set with .report, .heap and .pb.gz ($set)" || { ls -l "$D" | sed 's/^/# /'; diag "$T/err"; }
R="$D/$set.report" H="$D/$set.heap" P="$D/$set.pb.gz"

# same VALUE TEXT: VALUE is ying top's total (and not empty)
same() {
	[ -n "$1" ] && [ -n "$n_top" ] && [ "$1" = "$n_top" ]
	ok $? "$2 ($1, top: $n_top)"
}

n_report=$(sed -n 's/^live heap .* (\([0-9]*\) bytes).*/\1/p' "$R")
"$YING" top "$H" >"$T/top" 2>"$T/top.err"
n_top=$(sed -n '1s/^Total: .* (\([0-9]*\) bytes) .*/\1/p' "$T/top")
stacks=$(sed -n '1s/.* in \([0-9]*\) stacks.*/\1/p' "$T/top")
[ -n "$n_top" ] && [ "$n_top" -gt 1000000 ]
ok $? "ying top: a byte total ($n_top in $stacks stacks)" || diag "$T/top" "$T/top.err"
same "$n_report" "the .report header says ying top's total"

"$YING" top --json "$H" >"$T/top.json" 2>/dev/null
n_json=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["total"]; print(t if isinstance(t, int) else "not an integer: %r" % t)' "$T/top.json")
same "$n_json" "ying top --json: the same total, an integer"

n_folded=$("$YING" folded "$H" 2>/dev/null | awk '{ t += $NF } END { printf "%d", t }')
same "$n_folded" "ying folded: the stacks add up to the same total"

n_rpb=$("$YING" top "$P" 2>/dev/null | sed -n '1s/^Total: .* (\([0-9]*\) bytes) .*/\1/p')
same "$n_rpb" "the runner's .pb.gz: the same total"

"$YING" pprof -o "$T/y.pb.gz" "$H" 2>/dev/null
n_ypb=$("$YING" top "$T/y.pb.gz" 2>/dev/null | sed -n '1s/^Total: .* (\([0-9]*\) bytes) .*/\1/p')
same "$n_ypb" "ying pprof of the .heap: the same total"

go tool pprof -raw -sample_index=inuse_space "$T/y.pb.gz" >"$T/raw" 2>"$T/raw.err"
n_go=$(python3 - "$T/raw" <<'PY'
import re, sys
# -raw lists the sample types, then one "VALUES: @ locations" line per sample
lines = open(sys.argv[1]).read().split("\n")
i = next(k for k, l in enumerate(lines) if l.startswith("Samples:"))
types = lines[i + 1].split()
col = next(k for k, t in enumerate(types) if t.startswith("inuse_space"))
tot = 0
for l in lines[i + 2:]:
    if not l.strip() or not re.match(r"^\s*-?\d", l):
        if l.startswith("Locations"):
            break
        continue
    tot += int(l.split(":")[0].split()[col])
print(tot)
PY
)
same "$n_go" "go tool pprof: its samples add up to the same total" || diag "$T/raw.err"

"$YD" --json "$T/y.pb.gz" "$H" >"$T/d.json" 2>"$T/d.err"
python3 - "$T/d.json" "$n_top" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
assert j["now_total"] == n and j["base_total"] == n, (j["base_total"], j["now_total"], n)
assert j["delta"] == 0, j["delta"]
bad = [r for r in j["rows"] if r["delta"] != 0]
assert not bad, bad[:3]
PY
ok $? "yingdiff (its own pprof -> the .heap): both totals $n_top, every delta exactly 0" || diag "$T/d.err"
"$YD" "$T/y.pb.gz" "$H" >"$T/d.txt" 2>/dev/null
grep -q '^Delta: .*+0 bytes$' "$T/d.txt"
ok $? "yingdiff text: +0 bytes" || diag "$T/d.txt"

"$YING" sql -o "$T/p.db" "$H" >/dev/null 2>"$T/sql.err"
n_sql=$(python3 -c 'import sqlite3,sys; print(int(sqlite3.connect(sys.argv[1]).execute("SELECT inuse_bytes FROM dumps").fetchone()[0]))' "$T/p.db" 2>>"$T/sql.err")
same "$n_sql" "ying sql: dumps.inuse_bytes is the same total" || diag "$T/sql.err"

# jeprof, the oracle: unrounded sums, truncated when printed
B="$PROGS/agent_grow"
jt=$(jeprof --text --show_bytes "$B" "$H" 2>/dev/null | sed -n 's/^Total: \([0-9]*\) B$/\1/p')
near_jeprof "$n_top" "$jt" "$H"
ok $? "jeprof's Total ($jt) is within nstacks/2 + 1 of ying's ($n_top, $stacks stacks)"
yjt=$("$YING_BUILDDIR/ying-jeprof" --text --show_bytes "$B" "$H" 2>/dev/null | sed -n 's/^Total: \([0-9]*\) B$/\1/p')
[ -n "$jt" ] && [ "$yjt" = "$jt" ]
ok $? "ying-jeprof prints jeprof's Total to the byte ($yjt)"
plan_done
