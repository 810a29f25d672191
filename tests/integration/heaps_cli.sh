#!/bin/sh
# heaps_cli.sh: a dump of two heaps (a ying-heap trailer; written here, in
# the test's temporary directory) through the CLI: top's Heaps line,
# --heap NAME on top, folded, pprof and yingdiff, an unknown heap (exit 1
# with the heaps there are), and jeprof, which reads the combined dump:
# its --text total is the sum of the heaps.  Stacks by heap: a NOW dump
# where the path in both heaps grows in rust and shrinks in c is two rows
# of yingdiff --stacks and of top --stacks (text and JSON with their heap);
# `ying sql` stores each sample's heap and docs/sql.md's heap-totals query
# gives top's Heaps line; the same dump again is skipped.
. "$YING_SRCDIR/tests/integration/top_lib.sh"

D="$T/two.heap"
# period 1: the values are the raw bytes (rust 3072, c 4096)
cat >"$D" <<EOD
heap_v2/1
  t*: 4: 7168 [0: 0]
  t0: 2: 3072 [0: 0] main
@ 0x401000 0x402001 0x403001
  t*: 1: 1024 [0: 0]
  t0: 1: 1024 [0: 0]
@ 0x401100 0x402001 0x403001
  t*: 1: 2048 [0: 0]
  t0: 1: 2048 [0: 0]
@ 0x401000 0x402001 0x403001
  t*: 2: 4096 [0: 0]

MAPPED_LIBRARIES:
00400000-00500000 r-xp 00000000 08:01 123 $PROGS/top_basic
ying-heap: rust 2
ying-heap: c 1
EOD

ying top "$D" >"$T/top.txt" 2>"$T/err"
ok $? "ying top reads the two-heap dump" || diag "$T/err"
grep -q '^Heaps: rust 3.00 KiB (42.9 %), c 4.00 KiB (57.1 %)$' "$T/top.txt"
ok $? "top prints the Heaps line" || diag "$T/top.txt"

ying top --json --heap c "$D" >"$T/c.json" 2>"$T/err"
ok $? "top --heap c exits 0" || diag "$T/err"
is "$(jq_py "$T/c.json" 'd["total"] == 4096 and d["stacks"] == 1 and d["heaps"] == [{"name": "c", "bytes": 4096}]')" 1 \
    "--heap c keeps c's one stack"

ying top --heap nope "$D" >/dev/null 2>"$T/err"
is "$?" 1 "an unknown heap exits 1"
grep -q "no heap 'nope' (the profile's heaps: rust, c)" "$T/err"
ok $? "the message names the heaps there are" || diag "$T/err"

ying folded --heap rust "$D" >"$T/rust.folded" 2>"$T/err"
ok $? "folded --heap rust exits 0" || diag "$T/err"
is "$(awk '{ s += $NF } END { print s }' "$T/rust.folded")" 3072 "folded --heap rust sums rust's bytes"

for cmd in flamegraph callgraph; do
	ying $cmd --heap c -o "$T/c.$cmd.svg" "$D" >/dev/null 2>"$T/err"
	ok $? "$cmd --heap c exits 0" || diag "$T/err"
	ying $cmd --heap nope -o "$T/n.$cmd.svg" "$D" >/dev/null 2>"$T/err"
	is "$?" 1 "$cmd --heap nope exits 1"
done

ying pprof -o "$T/two.pb.gz" "$D" 2>"$T/err"
ok $? "pprof of the two heaps" || diag "$T/err"
ying top --json --heap rust "$T/two.pb.gz" >"$T/pp.json" 2>"$T/err"
is "$(jq_py "$T/pp.json" 'd["total"] == 3072 and [h["name"] for h in d["heaps"]] == ["rust"]')" 1 \
    "the pprof file keeps the heaps (--heap rust on it)"

"$YING_BUILDDIR/yingdiff" --heap c "$D" "$D" >"$T/diff.txt" 2>"$T/err"
ok $? "yingdiff --heap c exits 0" || diag "$T/err"
grep -q '^Heaps: c 4.00 KiB -> 4.00 KiB (0 B)$' "$T/diff.txt"
ok $? "yingdiff prints the heap's line" || diag "$T/diff.txt"

# ---- stacks by heap ---------------------------------------------------------
N="$T/now.heap"
cat >"$N" <<EOD
heap_v2/1
  t*: 3: 6144 [0: 0]
@ 0x401000 0x402001 0x403001
  t*: 1: 3072 [0: 0]
@ 0x401100 0x402001 0x403001
  t*: 1: 2048 [0: 0]
@ 0x401000 0x402001 0x403001
  t*: 1: 1024 [0: 0]

MAPPED_LIBRARIES:
00400000-00500000 r-xp 00000000 08:01 123 $PROGS/top_basic
ying-heap: rust 2
ying-heap: c 1
EOD
"$YING_BUILDDIR/yingdiff" --stacks "$D" "$N" >"$T/sd.txt" 2>"$T/err"
ok $? "yingdiff --stacks of two two-heap dumps exits 0" || diag "$T/err"
grep -A1 '^Top growth by stack (1 of 1):$' "$T/sd.txt" | grep -q '^  +2.00 KiB  (base 1.00 KiB, now 3.00 KiB)  \[heap rust\]$'
ok $? "the path grew in rust: its row says [heap rust]" || diag "$T/sd.txt"
grep -A1 '^Top shrink by stack (1 of 1):$' "$T/sd.txt" | grep -q '^  -3.00 KiB  (base 4.00 KiB, now 1.00 KiB)  \[heap c\]$'
ok $? "... and shrank in c, another row" || diag "$T/sd.txt"
"$YING_BUILDDIR/yingdiff" --stacks --json "$D" "$N" >"$T/sd.json" 2>"$T/err"
ok $? "yingdiff --stacks --json exits 0" || diag "$T/err"
is "$(jq_py "$T/sd.json" '[(r["heap"], r["delta"], r["stack"]["heap"]) for r in rows] == [("rust", 2048, "rust"), ("c", -3072, "c")] and [{k: h[k] for k in ("name", "base", "now", "delta", "delta_lo", "delta_hi", "significant")} for h in d["heaps"]] == [{"name": "rust", "base": 3072, "now": 5120, "delta": 2048, "delta_lo": 2048, "delta_hi": 2048, "significant": True}, {"name": "c", "base": 4096, "now": 1024, "delta": -3072, "delta_lo": -3072, "delta_hi": -3072, "significant": True}]')" 1 \
    "the JSON rows carry their heap, the heaps list base, now and delta" || diag "$T/sd.json"
"$YING_BUILDDIR/yingdiff" --json "$D" "$N" >"$T/fd.json" 2>"$T/err"
is "$(jq_py "$T/fd.json" '[(r["base"], r["now"]) for r in rows] == [(5120, 4096)] and all("heap" not in r for r in rows)')" 1 \
    "function rows sum the heaps and have no heap" || diag "$T/fd.json"
"$YING_BUILDDIR/yingdiff" -q --pprof "$T/d.pb.gz" "$D" "$N" >/dev/null 2>"$T/err"
ok $? "yingdiff --pprof of the two-heap dumps" || diag "$T/err"
ying top --json --heap c "$T/d.pb.gz" >"$T/dc.json" 2>"$T/err"
is "$(jq_py "$T/dc.json" 'd["total"] == -3072')" 1 "the delta profile keeps the heap label (c: -3072)" ||
    diag "$T/err" "$T/dc.json"
ying top --stacks --json "$N" >"$T/ts.json" 2>"$T/err"
ok $? "top --stacks --json exits 0" || diag "$T/err"
is "$(jq_py "$T/ts.json" '[(r["heap"], r["flat"]) for r in rows] == [("rust", 3072), ("rust", 2048), ("c", 1024)]')" 1 \
    "top --stacks: the path in each heap is its own row, with its heap" || diag "$T/ts.json"
ying top --stacks "$N" >"$T/ts.txt" 2>"$T/err"
is "$(grep -c '  \[heap [a-z]*\]$' "$T/ts.txt")" 3 "top --stacks text: [heap NAME] on each stack" ||
    diag "$T/ts.txt"

# ---- ying sql: the heap of each sample ------------------------------------------
ying sql -q -o "$T/h.db" "$D" >"$T/out" 2>"$T/err"
ok $? "ying sql imports the two-heap dump" || diag "$T/err"
python3 - "$YING_SRCDIR/docs/sql.md" "$T/h.db" >"$T/ht.rows" 2>"$T/err" <<'PY'
import re, sqlite3, sys
q = re.search(r"```sql\n-- query: heap-totals\n(.*?)```", open(sys.argv[1]).read(), re.S).group(1)
for r in sqlite3.connect(sys.argv[2]).execute(q):
    print("|".join(str(x) for x in r))
PY
is "$(cat "$T/ht.rows")" "1|c|4096|2
1|rust|3072|2" "docs/sql.md's heap-totals query: c 4096, rust 3072 (top's Heaps line)" ||
    diag "$T/err"
ying sql -o "$T/h.db" "$D" >"$T/out" 2>"$T/err"
grep -q 'already in the database as dump 1, skipped' "$T/err"
ok $? "the same two-heap dump again is skipped" || diag "$T/err" "$T/out"
ying sql --heap c -o "$T/h2.db" "$D" >"$T/out" 2>"$T/err"
is "$?" 2 "ying sql --heap is a usage error (every heap is imported)"
grep -q "WHERE heap = 'c'" "$T/err"
ok $? "... saying how to query one heap" || diag "$T/err"

# jeprof reads the combined dump (the trailer sits with the maps lines)
is "$(jeprof_total "$PROGS/top_basic" "$D")" 7168 "jeprof's total is the sum of the heaps" ||
    diag "$T/jeprof.err"

plan_done
