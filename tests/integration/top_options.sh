#!/bin/sh
# top_options.sh: `ying top` options on real dumps of tests/programs/top_basic
# (lg_prof_sample:0, so values are exact): -n, --focus/--ignore, --stacks,
# --binary for a moved executable, --drop-frames, --keep-allocator-frames,
# alloc_* on a dump without prof_accum (exit 1), usage errors (exit 2).
. "$YING_SRCDIR/tests/integration/top_lib.sh"

P="$PROGS/top_basic"
D="$T/basic.heap"
run_prog prof:true,lg_prof_sample:0 "$P" "$D"
ok $? "top_basic writes a dump without prof_accum"

# -n
ying top --json -n 2 "$D" >"$T/n2.json" 2>"$T/err"
ok $? "-n 2 --json exits 0" || diag "$T/err"
is "$(jq_py "$T/n2.json" 'len(rows)')" 2 "-n 2 gives two rows"
is "$(jq_py "$T/n2.json" 'names(2)')" "leak_a leak_b" "-n 2 keeps the two largest"
ying top -n 1 "$D" >"$T/n1.txt" 2>"$T/err"
grep -q leak_a "$T/n1.txt" && ! grep -q leak_b "$T/n1.txt"
ok $? "-n 1 (text) shows leak_a only" || diag "$T/n1.txt"

# --focus / --ignore (extended regular expressions over frames).
ying top --json --focus 'leak_b' "$D" >"$T/focus.json" 2>"$T/err"
ok $? "--focus exits 0" || diag "$T/err"
is "$(jq_py "$T/focus.json" 'flat("leak_b") == 307200 and fn("leak_a") is None and fn("leak_c") is None')" 1 \
    "--focus leak_b keeps leak_b's stacks only"
is "$(jq_py "$T/focus.json" 'cum("via_b")')" 307200 "--focus keeps the callers of the match"
ying top --json --focus 'leak_(a|c)$' "$D" >"$T/focus2.json" 2>"$T/err"
is "$(jq_py "$T/focus2.json" 'flat("leak_a") + flat("leak_c") == 4096000 + 204800 and fn("leak_b") is None')" 1 \
    "--focus 'leak_(a|c)\$' is an extended regex"
ying top --json --ignore 'leak_a' "$D" >"$T/ignore.json" 2>"$T/err"
ok $? "--ignore exits 0" || diag "$T/err"
is "$(jq_py "$T/ignore.json" 'fn("leak_a") is None and flat("leak_b") == 307200 and flat("leak_c") == 204800')" 1 \
    "--ignore leak_a drops leak_a's stacks only"
ying top --json --ignore 'via_b' "$D" >"$T/ignore2.json" 2>"$T/err"
is "$(jq_py "$T/ignore2.json" 'fn("leak_b") is None and flat("leak_a") == 4096000')" 1 \
    "--ignore matches callers too (via_b drops leak_b)"
ying top --json --focus '(' "$D" >/dev/null 2>"$T/err"
rc=$?
[ "$rc" -eq 1 ] || [ "$rc" -eq 2 ]
ok $? "--focus with an invalid regex is rejected (exit $rc)"
grep -q "^ying top: .*regex '('" "$T/err"
ok $? "the message quotes the bad regex" || diag "$T/err"

# --stacks: whole stacks, the largest first.
ying top --stacks -n 1 "$D" >"$T/stacks.txt" 2>"$T/err"
ok $? "--stacks -n 1 exits 0" || diag "$T/err"
grep -q leak_a "$T/stacks.txt" && grep -q main "$T/stacks.txt" && ! grep -q leak_b "$T/stacks.txt"
ok $? "--stacks -n 1 shows leak_a's whole stack (leak_a ... main)" || diag "$T/stacks.txt"
ying top --stacks --json -n 2 "$D" >"$T/stacks.json" 2>"$T/err"
ok $? "--stacks --json exits 0" || diag "$T/err"
is "$(jq_py "$T/stacks.json" 'len(rows) == 2 and "leak_a" in json.dumps(rows[0]) and rows[0]["flat"] == 4096000')" 1 \
    "--stacks --json: the first stack is leak_a's 4096000 bytes"

# --binary: the executable moved after the dump was taken.
cp "$P" "$T/moved_prog"
MALLOC_CONF=prof:true,lg_prof_sample:0 timeout 60 "$T/moved_prog" "$T/moved.heap" >/dev/null 2>&1
ok $? "a copy of top_basic writes a dump"
mv "$T/moved_prog" "$T/moved_prog.new"
ying top --json "$T/moved.heap" >"$T/moved.json" 2>"$T/moved.err"
ok $? "a dump whose executable is gone still gives a report (exit 0)" || diag "$T/moved.err"
is "$(jq_py "$T/moved.json" 'fn("leak_a") is None')" 1 "without the executable leak_a cannot be named"
ying top --json --binary "$T/moved_prog.new" "$T/moved.heap" >"$T/moved2.json" 2>"$T/err"
ok $? "--binary exits 0" || diag "$T/err"
is "$(jq_py "$T/moved2.json" 'flat("leak_a")')" 4096000 "--binary PATH names leak_a again"

# --drop-frames: leak_b's bytes move to its caller.
ying top --json --drop-frames '^leak_b$' "$D" >"$T/drop.json" 2>"$T/err"
ok $? "--drop-frames exits 0" || diag "$T/err"
is "$(jq_py "$T/drop.json" 'fn("leak_b") is None and flat("via_b") == 307200')" 1 \
    "--drop-frames '^leak_b\$' charges via_b"

# --keep-allocator-frames: the leaf becomes the allocator; leak_a keeps its cum.
ying top --json --keep-allocator-frames "$D" >"$T/keep.json" 2>"$T/err"
ok $? "--keep-allocator-frames exits 0" || diag "$T/err"
is "$(jq_py "$T/keep.json" 'flat("leak_a") == 0 and cum("leak_a") == 4096000')" 1 \
    "--keep-allocator-frames: leak_a is no longer the leaf but keeps its cum"

# alloc_* needs prof_accum.
for idx in alloc_space alloc_objects; do
	ying top --sample-index "$idx" "$D" >"$T/out" 2>"$T/err"
	is "$?" 1 "$idx on a dump without prof_accum exits 1"
	grep -q '^ying top: .*accum' "$T/err"
	ok $? "$idx: the message says prof_accum is needed" || diag "$T/err"
done

# Usage errors exit 2.
ying top >/dev/null 2>&1
is "$?" 2 "no dump argument: exit 2"
ying top --sample-index bogus "$D" >/dev/null 2>"$T/err"
is "$?" 2 "--sample-index bogus: exit 2"
ying top --no-such-option "$D" >/dev/null 2>&1
is "$?" 2 "unknown option: exit 2"
ying top -n xyz "$D" >/dev/null 2>&1
is "$?" 2 "-n with a non-number: exit 2"
ying top --help >"$T/help" 2>&1
ok $? "--help exits 0"
grep -q -- '--sample-index' "$T/help"
ok $? "--help lists --sample-index" || diag "$T/help"

plan_done
