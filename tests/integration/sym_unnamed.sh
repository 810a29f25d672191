#!/bin/sh
# sym_unnamed.sh: a function without a symbol is named after its first
# byte, module+0xSTART, whatever unwind row an address falls in.  grow()
# (tests/programs/sym_rows.c, -O2) calls malloc at two CFA states: before
# the early `ret` in its middle and in the row after it.  Stripped of
# .symtab (.eh_frame and .eh_frame_hdr stay), both call sites must add up
# in one row whose START is grow's symbol value in the unstripped build
# (converted to a file offset), as jeprof and pprof group by function;
# the row start gave two rows, one of them a `ret` inside the function.
# The warning says how to get names: the -dbgsym package, the build-ID
# path under /usr/lib/debug, DEBUGINFOD_URLS.
. "$YING_SRCDIR/tests/integration/top_lib.sh"
need cc strip nm readelf

SRC="$YING_SRCDIR/tests/programs/sym_rows.c"
cc -O2 -g -o "$T/sym_rows" "$SRC" -ljemalloc &&
    strip --strip-all -o "$T/rows_s" "$T/sym_rows"
ok $? "build sym_rows -O2 and a stripped copy"
nm "$T/rows_s" 2>&1 | grep -q 'no symbols'
ok $? "the stripped copy has no symbol table"

# grow's first byte as a file offset (in the PT_LOAD that holds it), and
# the precondition: grow's FDE has several rows (readelf -wF: a line per
# row), so that its two calls of malloc are in different ones
readelf -lW "$T/sym_rows" >"$T/phdrs" && readelf -wF "$T/sym_rows" >"$T/frames" 2>/dev/null
set -- $(python3 - "$(nm "$T/sym_rows" | awk '$3 == "grow" { print $1 }')" "$T/phdrs" "$T/frames" <<'PY'
import re, sys
a = int(sys.argv[1] or "0", 16)
start = ""
for l in open(sys.argv[2]):
    f = l.split()
    if f and f[0] == "LOAD":
        o, v, s = int(f[1], 16), int(f[2], 16), int(f[4], 16)
        if v <= a < v + s:
            start = "%x" % (a - v + o)
rows, on = 0, False
for l in open(sys.argv[3]):
    if re.match(r"^[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ (CIE|FDE|ZERO)", l):
        m = re.search(r"FDE .*pc=([0-9a-f]+)", l)
        on = m is not None and int(m.group(1), 16) == a
    elif on and re.match(r"^[0-9a-f]+ ", l):
        rows += 1
print(start or "-", rows)
PY
)
start=$1 rows=$2
[ "$start" != "-" ]
ok $? "grow starts at file offset 0x$start"
[ "$rows" -ge 3 ]
ok $? "grow has $rows unwind rows (the row start split it)"

run_prog prof:true,lg_prof_sample:0 "$T/rows_s" "$T/r.heap"
ok $? "dump the stripped program" || diag "$T/prog.out"
ying top --json "$T/r.heap" >"$T/top.json" 2>"$T/top.err"
ok $? "ying top reads it" || diag "$T/top.err"
got=$(python3 - "$T/top.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
leaf = [r for r in d["rows"] if r["function"].startswith("rows_s+0x") and r["flat"] > 0]
print(" ".join("%s=%d" % (r["function"], int(r["flat"])) for r in leaf))
PY
)
is "$got" "rows_s+0x$start=8192000" \
    "both call sites of grow: one row rows_s+0x<grow's first byte> with 1000 x 4096 + 500 x 8192 bytes"

grep -q 'rows_s has no symbols' "$T/top.err" &&
    grep -q -- '-dbgsym package' "$T/top.err" &&
    grep -q '/usr/lib/debug/\.build-id/[0-9a-f][0-9a-f]/[0-9a-f]*\.debug' "$T/top.err" &&
    grep -q 'DEBUGINFOD_URLS' "$T/top.err"
ok $? "the warning says how to get names: -dbgsym, /usr/lib/debug/.build-id/xx/yyyy.debug, DEBUGINFOD_URLS" ||
    diag "$T/top.err"

# the unstripped build names the same bytes grow
run_prog prof:true,lg_prof_sample:0 "$T/sym_rows" "$T/n.heap"
ying top --json "$T/n.heap" >"$T/named.json" 2>"$T/named.err"
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(int(sum(r["flat"] for r in d["rows"] if r["function"] == "grow")))' "$T/named.json")
is "$got" 8192000 "unstripped: the same bytes in grow"

# the persistent cache keeps the answer: a second run reads it
ying top --json "$T/r.heap" >"$T/top2.json" 2>/dev/null
cmp -s "$T/top.json" "$T/top2.json"
ok $? "a second run (persistent symbol cache) gives the same rows"
plan_done
