#!/bin/sh
# top_escape.sh: names from a dump are attacker-controlled strings (issue
# 13, finding 8).  A heap_v2 dump whose mapped file is named with an escape
# sequence ("\033[2J" clears a terminal) and a C1 control (U+009B, CSI):
# `ying top` (text), its warning on stderr, and `yingdiff` (text and its
# "different programs" warning) print them as \x1b, \xc2\x9b, never the
# raw bytes, and no row is broken.
. "$YING_SRCDIR/tests/integration/top_lib.sh"

# dump FILE PATH: one 1 MiB stack in a mapping of PATH.
dump() {
	printf 'heap_v2/524288\n  t*: 1: 1048576 [0: 0]\n  t0: 1: 1048576 [0: 0]\n' >"$1"
	printf '@ 0x401000 0x402001\n  t*: 1: 1048576 [0: 0]\n  t0: 1: 1048576 [0: 0]\n' >>"$1"
	printf '\nMAPPED_LIBRARIES:\n00400000-01400000 r-xp 00000000 08:01 1234 %s\n' "$2" >>"$1"
}
ESC=$(printf '\033')
dump "$T/a.heap" "/nonexistent/ev${ESC}[2Jil$(printf '\302\233')31m"
dump "$T/b.heap" "/nonexistent/other${ESC}]0;title$(printf '\007')"

# no_raw FILE: no byte < 0x20 but newline, no DEL, no C1 in UTF-8
no_raw() { ! LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]\\|\302[\200-\237]')" "$1"; }

ying top "$T/a.heap" >"$T/out" 2>"$T/err"
is "$?" 0 "ying top of a dump with an escape sequence in a map name"
no_raw "$T/out"
ok $? "top: no raw control byte on stdout" || diag "$T/out"
no_raw "$T/err"
ok $? "top: no raw control byte in the warning" || diag "$T/err"
grep -qF 'ev\x1b[2Jil\xc2\x9b31m+0x1000' "$T/out"
ok $? "top: the frame is named with \\x1b and \\xc2\\x9b" || diag "$T/out"
grep -qF 'cannot read /nonexistent/ev\x1b[2Jil\xc2\x9b31m' "$T/err"
ok $? "top: the warning names the file escaped" || diag "$T/err"
is "$(wc -l <"$T/out" | tr -d ' ')" 4 "top: header, titles, two rows"
is "$(wc -l <"$T/err" | tr -d ' ')" 1 "top: one warning line"

"$YING_BUILDDIR/yingdiff" "$T/a.heap" "$T/b.heap" >"$T/out" 2>"$T/err"
is "$?" 0 "yingdiff of the two dumps"
no_raw "$T/out"
ok $? "yingdiff: no raw control byte on stdout" || diag "$T/out"
no_raw "$T/err"
ok $? "yingdiff: no raw control byte on stderr" || diag "$T/err"
grep -qF 'other\x1b]0;title\x07' "$T/out"
ok $? "yingdiff: NOW's frames escaped" || diag "$T/out"
grep -qF 'these look like different programs' "$T/err"
ok $? "yingdiff warns about different programs" || diag "$T/err"
grep -qF 'NOW is /nonexistent/other\x1b]0;title\x07' "$T/err"
ok $? "... with the paths escaped" || diag "$T/err"

plan_done
