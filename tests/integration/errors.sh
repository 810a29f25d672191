#!/bin/sh
# errors.sh: hostile inputs to `ying top`.  Each must end with exit status 1
# and one message "ying top: ...: FILE:LINE: what was expected" (text that
# is not a dump, or a dump cut or corrupted at some line), or a message naming
# the file (no bytes, bytes that are neither a dump nor a pprof profile, a cut
# gzip stream, a directory, no file), never with a
# crash (status >= 128), a hang (each run is bounded by `timeout 10`) or a
# report.  The inputs are made here: from nothing, from python3's seeded
# random bytes, and by cutting a real dump of tests/programs/top_basic.
. "$YING_SRCDIR/tests/integration/top_lib.sh"
need gzip head

run_prog prof:true,lg_prof_sample:0 "$PROGS/top_basic" "$T/good.heap"
ok $? "top_basic writes the dump the truncations start from"
ying top "$T/good.heap" >/dev/null 2>"$T/err"
ok $? "the intact dump is accepted" || diag "$T/err"

# expect_error NAME PATTERN_KIND: run ying top on $T/NAME.
#   kind "pos":  the message must carry FILE:LINE: (":COL" may follow)
#   kind "file": the message must name FILE
expect_error() {
	f="$T/$1"
	timeout 10 "$YING" top "$f" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -ne 1 ]; then
		ok 1 "$1: exit 1 (got $rc$([ "$rc" -eq 124 ] && echo ', a hang')$([ "$rc" -ge 128 ] && [ "$rc" -ne 124 ] && echo ', a crash'))"
		diag "$T/err"
		return
	fi
	python3 - "$f" "$2" "$T/err" "$T/out" <<'PY'
import re, sys
path, kind, errf, outf = sys.argv[1:5]
err = open(errf, "rb").read().decode("utf-8", "replace")
out = open(outf, "rb").read()
lines = err.strip("\n").split("\n")
ok = err.startswith("ying top: ") and len(err) < 4096 and not out
if kind == "pos":
    ok = ok and re.search(re.escape(path) + r":[0-9]+(:[0-9]+)?: \S", err) is not None
else:
    ok = ok and path in err
sys.exit(0 if ok else 1)
PY
	ok $? "$1: exit 1 with a message naming $([ "$2" = pos ] && echo 'FILE:LINE' || echo 'the file')" || diag "$T/err"
}

: >"$T/zero-length.heap"
expect_error zero-length.heap file
printf '\n' >"$T/empty-line.heap"
expect_error empty-line.heap file
printf 'hello world\nthis is not a heap profile\n' >"$T/garbage.heap"
expect_error garbage.heap pos
python3 -c 'import random, sys; random.seed(7); sys.stdout.buffer.write(bytes(random.getrandbits(8) for _ in range(65536)))' >"$T/binary-junk.heap"
expect_error binary-junk.heap file
printf 'heap_v3/1\n  t*: 1: 1 [0: 0]\n' >"$T/bad-version.heap"
expect_error bad-version.heap pos

# Cut a real dump: inside a stack line, inside a count line, right after '@'.
good="$T/good.heap"
at_line=$(grep -n '^@' "$good" | head -n 1 | cut -d: -f1)
head -n $((at_line - 1)) "$good" >"$T/after-at.heap"
printf '@' >>"$T/after-at.heap"
expect_error after-at.heap pos
head -n $((at_line - 1)) "$good" >"$T/mid-stack.heap"
sed -n "${at_line}p" "$good" | cut -c1-20 | tr -d '\n' >>"$T/mid-stack.heap"
expect_error mid-stack.heap pos
head -n "$at_line" "$good" >"$T/mid-count.heap"
sed -n "$((at_line + 1))p" "$good" | cut -c1-8 | tr -d '\n' >>"$T/mid-count.heap"
expect_error mid-count.heap pos
head -n "$at_line" "$good" >"$T/no-count.heap"
expect_error no-count.heap pos

# Numbers that do not fit in 64 bits.
printf 'heap_v2/1\n  t*: 1: 4096 [0: 0]\n@ 0x401000\n  t*: 99999999999999999999999: 4096 [0: 0]\n\nMAPPED_LIBRARIES:\n' >"$T/huge-count.heap"
expect_error huge-count.heap pos
printf 'heap_v2/1\n  t*: 1: 4096 [0: 0]\n@ 0x1ffffffffffffffffffff\n  t*: 1: 4096 [0: 0]\n\nMAPPED_LIBRARIES:\n' >"$T/huge-address.heap"
expect_error huge-address.heap pos
printf 'heap_v2/184467440737095516160\n  t*: 1: 4096 [0: 0]\n' >"$T/huge-period.heap"
expect_error huge-period.heap pos
printf 'heap_v2/1\n  t*: -1: 4096 [0: 0]\n' >"$T/negative.heap"
expect_error negative.heap pos
printf 'heap_v2/1\n  t*: 1: 4096 [0: 0]\n@ 0x401000\n  t*: 1: 40\00096 [0: 0]\n' >"$T/nul-byte.heap"
expect_error nul-byte.heap pos

# One 10 MB line: junk, and a header whose number never ends.
python3 -c 'import sys; sys.stdout.write("A" * (10 << 20))' >"$T/10mb-line.heap"
expect_error 10mb-line.heap file
python3 -c 'import sys; sys.stdout.write("heap_v2/" + "9" * (10 << 20) + "\n")' >"$T/10mb-header.heap"
expect_error 10mb-header.heap pos

# gzip: garbage inside a valid stream, and a cut stream.
gzip -c "$T/garbage.heap" >"$T/garbage.heap.gz"
expect_error garbage.heap.gz pos
gzip -c "$good" | head -c 200 >"$T/cut.heap.gz"
expect_error cut.heap.gz file

# Not a regular file, or no file.
mkdir "$T/a-directory"
expect_error a-directory file
expect_error no-such-file.heap file

plan_done
