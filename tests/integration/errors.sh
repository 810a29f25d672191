#!/bin/sh
# errors.sh: hostile inputs to `ying top`.  Each must end with exit status 1
# and one message "ying top: ...: FILE:LINE: what was expected" (a dump cut
# or corrupted at some line), or a message naming the file (no bytes, text
# or bytes that are neither a dump nor a pprof profile: "FILE: not a heap
# profile (expected heap_v2 or pprof)", a cut gzip stream, a directory, no
# file), never with a
# crash (status >= 128), a hang (each run is bounded by `timeout 10`) or a
# report.  The inputs are made here: from nothing, from python3's seeded
# random bytes, and by cutting a real dump of tests/programs/top_basic.
# Usage errors of every command (ying, top, folded, flamegraph, pprof, diff,
# run, yingdiff) are two lines, "PROG: what is wrong" naming the option and
# "see 'PROG --help'", exit 2; a file's error names the file once.
. "$YING_SRCDIR/tests/integration/top_lib.sh"
need gzip head

run_prog prof:true,lg_prof_sample:0 "$PROGS/top_basic" "$T/good.heap"
ok $? "top_basic writes the dump the truncations start from"
ying top "$T/good.heap" >/dev/null 2>"$T/err"
ok $? "the intact dump is accepted" || diag "$T/err"

# expect_error NAME PATTERN_KIND: run ying top on $T/NAME.
#   kind "pos":  the message must carry FILE:LINE: (":COL" may follow)
#   kind "file": the message must name FILE
#   kind "none": the message must be "FILE: not a heap profile (expected
#                heap_v2 or pprof)", with the file named once
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
elif kind == "none":
    ok = ok and len(lines) == 1 and err.count(path) == 1 and \
        re.search(re.escape(path) + r": (empty input, )?not a heap profile \(expected heap_v2 or pprof\)$", lines[0]) is not None
else:
    ok = ok and path in err
sys.exit(0 if ok else 1)
PY
	ok $? "$1: exit 1 with a message naming $(case $2 in pos) echo 'FILE:LINE';; none) echo "the file: not a heap profile";; *) echo 'the file';; esac)" || diag "$T/err"
}

: >"$T/zero-length.heap"
expect_error zero-length.heap none
printf '\n' >"$T/empty-line.heap"
expect_error empty-line.heap none
printf 'hello world\nthis is not a heap profile\n' >"$T/garbage.heap"
expect_error garbage.heap none
# /etc/passwd-like text: its first byte 'r' is a plausible protobuf tag,
# which once sent it to the pprof reader ("not a valid profile.proto")
printf 'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n' >"$T/passwd"
expect_error passwd none
gzip -c "$T/passwd" >"$T/passwd.gz"
expect_error passwd.gz none
printf '\211PNG\r\n\032\n\000\000\000\rIHDR\000\000\000\020\000\000\000\020\010\006\000\000\000' >"$T/image.png"
expect_error image.png none
python3 -c 'import random, sys; random.seed(7); sys.stdout.buffer.write(bytes(random.getrandbits(8) for _ in range(65536)))' >"$T/binary-junk.heap"
expect_error binary-junk.heap none
for seed in 1 2 3 4 5 6 8 9; do
	python3 -c "import random, sys; random.seed($seed); sys.stdout.buffer.write(bytes(random.getrandbits(8) for _ in range(4096)))" >"$T/random-$seed.bin"
	expect_error "random-$seed.bin" none
done
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
expect_error 10mb-line.heap none
python3 -c 'import sys; sys.stdout.write("heap_v2/" + "9" * (10 << 20) + "\n")' >"$T/10mb-header.heap"
expect_error 10mb-header.heap pos

# gzip: garbage inside a valid stream, and a cut stream.
gzip -c "$T/garbage.heap" >"$T/garbage.heap.gz"
expect_error garbage.heap.gz none
gzip -c "$good" | head -c 200 >"$T/cut.heap.gz"
expect_error cut.heap.gz file

# A pprof profile cut short still gets the pprof reader's precise message.
ying pprof --no-gzip -o "$T/good.pb" "$good" 2>/dev/null
head -c $(($(wc -c <"$T/good.pb") / 2)) "$T/good.pb" >"$T/cut.pb"
timeout 10 "$YING" top "$T/cut.pb" >/dev/null 2>"$T/err"
is "$?" 1 "cut.pb (a pprof cut short): exit 1"
grep -q "cut.pb: not a valid pprof profile.proto message (truncated" "$T/err"
ok $? "cut.pb: the pprof reader says truncated" || diag "$T/err"

# Not a regular file, or no file.
mkdir "$T/a-directory"
expect_error a-directory file
expect_error no-such-file.heap file

# A file's error names the file once (the library's detail starts with it).
timeout 10 "$YING" top "$T/no-such-file.heap" 2>"$T/err"
is "$(grep -o 'no-such-file.heap' "$T/err" | wc -l)" 1 "a missing file is named once"
timeout 10 "$YING" top -i alloc_space "$good" >/dev/null 2>"$T/err"
is "$(grep -v 'warning' "$T/err" | grep -o 'good.heap' | wc -l)" 1 \
	"alloc_space without prof_accum: the file is named once (not 'now.heap: now.heap:')"
timeout 10 "$YING" folded -i alloc_space "$good" >/dev/null 2>"$T/err"
is "$(grep -v 'warning' "$T/err" | grep -o 'good.heap' | wc -l)" 1 "ying folded: the file is named once"

# Usage errors: exactly two lines, the first naming what is wrong (getopt's
# own message never appears), the second "see 'PROG --help'"; exit 2.
# usage_error PROG WANT-FIRST-LINE CMD...
usage_error() {
	u_prog=$1 u_want=$2
	shift 2
	timeout 10 "$@" >"$T/out" 2>"$T/err"
	u_rc=$?
	u_lines=$(wc -l <"$T/err")
	u_first=$(sed -n 1p "$T/err")
	u_second=$(sed -n 2p "$T/err")
	u_cmd=$(echo "$*" | sed "s|$YING_BUILDDIR/||g; s|$T/||g")
	if [ "$u_rc" -eq 2 ] && [ "$u_lines" -eq 2 ] && [ "$u_first" = "$u_want" ] &&
	    [ "$u_second" = "see '$u_prog --help'" ] && [ ! -s "$T/out" ]; then
		ok 0 "$u_cmd -> exit 2, '$u_want' + see '$u_prog --help'"
	else
		ok 1 "$u_cmd -> exit 2, '$u_want' + see '$u_prog --help' (got exit $u_rc, $u_lines lines)"
		diag "$T/err"
	fi
}
for cmd in top folded flamegraph pprof diff leaks run; do
	usage_error "ying $cmd" "ying $cmd: unknown option '--foo'" "$YING" $cmd --foo "$good"
	usage_error "ying $cmd" "ying $cmd: unknown option '-Z'" "$YING" $cmd -Z "$good"
	usage_error "ying $cmd" "ying $cmd: unknown option '--foo'" "$YING" $cmd --foo=1 "$good"
done
usage_error yingdiff "yingdiff: unknown option '--foo'" "$YING_BUILDDIR/yingdiff" --foo "$good" "$good"
usage_error "ying top" "ying top: option '-n' needs a value" "$YING" top -n
usage_error "ying top" "ying top: option '--output' needs a value" "$YING" top "$good" --output
usage_error "ying top" "ying top: option '--json' takes no value" "$YING" top --json=yes "$good"
usage_error "ying top" "ying top: ambiguous option '--s'" "$YING" top --s "$good"
usage_error "ying folded" "ying folded: unknown option '-x'" "$YING" folded -lx "$good"
usage_error "ying top" "ying top: no dump given" "$YING" top
usage_error "ying top" "ying top: -n wants a number >= 0, not 'x'" "$YING" top -n x "$good"
usage_error "ying pprof" "ying pprof: option '--binary' needs a value" "$YING" pprof -o "$T/x.pb.gz" "$good" --binary
usage_error "ying flamegraph" "ying flamegraph: --width wants pixels from 200 to 100000, not '1'" \
	"$YING" flamegraph --width 1 "$good"
usage_error "ying run" "ying run: option '--http' needs a value" "$YING" run --http
usage_error "ying top" "ying top: --timeout wants seconds (0 < s <= 86400), not '0'" \
	"$YING" top --timeout 0 "$good"
usage_error "ying leaks" "ying leaks: no dumps given" "$YING" leaks
usage_error "ying leaks" "ying leaks: --fail-on: 'leaky' is not a verdict (leak, filled, churn, released, unknown)" \
	"$YING" leaks --fail-on leaky "$good"
usage_error "ying leaks" "ying leaks: --count takes one http(s):// URL" "$YING" leaks --count 3 "$good"
usage_error "ying leaks" "ying leaks: a URL needs --count N (how many dumps to take, --every S seconds apart)" \
	"$YING" leaks http://127.0.0.1:1/debug/pprof/heap
usage_error "ying leaks" "ying leaks: --every: expected seconds from 0.01 to 86400, not '0'" \
	"$YING" leaks --every 0 --count 2 http://127.0.0.1:1/debug/pprof/heap
usage_error ying "ying: unknown command 'frobnicate'" "$YING" frobnicate
usage_error ying "ying: no command given (one of: top pprof folded flamegraph callgraph diff leaks serve run upload lifetimes sql memory)" "$YING"
# --help is unchanged: the whole usage on stdout, exit 0
timeout 10 "$YING" top --help >"$T/out" 2>"$T/err"
is "$?" 0 "ying top --help: exit 0"
head -n 1 "$T/out" | grep -q '^usage: ying top \[options\] DUMP'
ok $? "ying top --help: the usage on stdout"

plan_done
