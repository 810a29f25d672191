#!/bin/sh
# diff_errors.sh: bad inputs give a clear message and exit 1; usage errors
# exit 2; --help exits 0.
. "$YING_SRCDIR/tests/integration/diff_lib.sh"

cd "$T" || exit 1
prog 0 --grow 40960 base.heap now.heap
ok $? "two good dumps"

# err_is DESC WANT-STATUS WANT-STDERR-REGEX CMD...
err_is() {
	desc=$1 want=$2 re=$3
	shift 3
	status_is "$desc: exit $want" "$want" "$@"
	if grep -Eq -e "$re" "$T/err"; then
		ok 0 "$desc: message"
	else
		ok 1 "$desc: message /$re/"
		sed 's/^/#   /' "$T/err" | head -3
	fi
	[ ! -s "$T/out" ] || [ "$want" -ne 1 ]
	ok $? "$desc: no report on stdout"
}

err_is "missing BASE" 1 "^yingdiff: .*nosuch\.heap.*No such file" "$YD" nosuch.heap now.heap
err_is "missing NOW" 1 "^yingdiff: .*nosuch\.heap" "$YD" base.heap nosuch.heap
echo "this is not a heap profile" >garbage.heap
err_is "garbage" 1 "garbage\.heap.*heap_v2" "$YD" base.heap garbage.heap
head -c 4096 /dev/urandom >random.heap
err_is "random bytes" 1 "random\.heap" "$YD" random.heap now.heap
: >empty.heap
err_is "empty file" 1 "empty\.heap.*empty" "$YD" empty.heap now.heap
err_is "a directory" 1 "directory" "$YD" base.heap .

# Truncations: in the middle of a line, right after an '@' line, and at a
# line boundary before MAPPED_LIBRARIES.
at=$(grep -b -m1 '^@ ' now.heap | cut -d: -f1)
head -c $((at + 10)) now.heap >cut_line.heap
err_is "truncated mid-line" 1 "cut_line\.heap.*truncated" "$YD" base.heap cut_line.heap
line=$(grep -n -m1 '^@ ' now.heap | cut -d: -f1)
head -n "$line" now.heap >cut_at.heap
err_is "truncated after an @ line" 1 "cut_at\.heap.*truncated" "$YD" base.heap cut_at.heap
head -n $((line + 2)) now.heap >cut_stack.heap
err_is "truncated before MAPPED_LIBRARIES" 1 "cut_stack\.heap.*MAPPED_LIBRARIES.*truncated" \
	"$YD" base.heap cut_stack.heap

err_is "alloc_space without prof_accum" 1 "prof_accum" "$YD" -i alloc_space base.heap now.heap
err_is "unwritable --pprof" 1 "cannot write /nonexistent" "$YD" -q --pprof /nonexistent/d/x.pb.gz base.heap now.heap

# A file's error names the file once.
"$YD" nosuch.heap now.heap 2>"$T/err"
is "$(grep -o 'nosuch\.heap' "$T/err" | wc -l)" 1 "missing BASE: the file is named once"
"$YD" base.heap garbage.heap 2>"$T/err"
is "$(cat "$T/err")" "yingdiff: cannot read profile: garbage.heap: not a heap profile (expected heap_v2 or pprof)" \
	"garbage: one line, the file named once"

# Usage errors: exit 2, two lines: what is wrong, then "see 'yingdiff --help'".
err_is "no arguments" 2 "need two dumps" "$YD"
err_is "one argument" 2 "need two dumps" "$YD" base.heap
err_is "three arguments" 2 "too many" "$YD" base.heap now.heap now.heap
err_is "unknown option" 2 "^yingdiff: unknown option '--bogus'\$" "$YD" --bogus base.heap now.heap
is "$(wc -l <"$T/err")" 2 "unknown option: two lines"
is "$(sed -n 2p "$T/err")" "see 'yingdiff --help'" "unknown option: the second says see 'yingdiff --help'"
err_is "ying diff unknown option" 2 "^ying diff: unknown option '-Z'\$" "$YING" diff -Z base.heap now.heap
is "$(sed -n 2p "$T/err")" "see 'ying diff --help'" "ying diff: the hint names 'ying diff --help'"
err_is "option without its value" 2 "^yingdiff: option '--svg' needs a value\$" "$YD" base.heap now.heap --svg
is "$(wc -l <"$T/err")" 2 "option without its value: two lines (no usage text)"
err_is "bad --fail-over, two lines" 2 "fail-over" "$YD" --fail-over lots base.heap now.heap
is "$(wc -l <"$T/err")" 2 "bad --fail-over: two lines (no usage text)"
err_is "bad --fail-over" 2 "fail-over lots: expected a size" "$YD" --fail-over lots base.heap now.heap
err_is "bad --min-delta unit" 2 "min-delta 3parsecs: expected a size" "$YD" --min-delta 3parsecs base.heap now.heap
err_is "bad -i" 2 "unknown sample index" "$YD" -i heap base.heap now.heap
err_is "bad -n" 2 "-n wants a number" "$YD" -n -3 base.heap now.heap
err_is "bad --focus regex" 2 "focus.*regex" "$YD" --focus '(' base.heap now.heap
err_is "--json with --folded" 2 "exclude" "$YD" --json --folded base.heap now.heap
err_is "ying diff usage" 2 "^ying diff: need two dumps" "$YING" diff base.heap

status_is "--help exits 0" 0 "$YD" --help
grep -q "^usage: yingdiff \[options\] BASE NOW" "$T/out"
ok $? "--help prints the usage on stdout"
status_is "ying diff --help exits 0" 0 "$YING" diff --help
"$YING" --help | grep -q "^  diff "
ok $? "ying --help lists diff"

done_testing
