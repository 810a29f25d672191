#!/bin/sh
# heaps_cli.sh: a dump of two heaps (a ying-heap trailer; written here, in
# the test's temporary directory) through the CLI: top's Heaps line,
# --heap NAME on top, folded, pprof and yingdiff, an unknown heap (exit 1
# with the heaps there are), and jeprof, which reads the combined dump:
# its --text total is the sum of the heaps.
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

# jeprof reads the combined dump (the trailer sits with the maps lines)
is "$(jeprof_total "$PROGS/top_basic" "$D")" 7168 "jeprof's total is the sum of the heaps" ||
    diag "$T/jeprof.err"

plan_done
