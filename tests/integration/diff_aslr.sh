#!/bin/sh
# diff_aslr.sh: two separate runs of the same program (different load
# addresses under ASLR) diff to zero except for the intended change, with
# 2000 extra distinct stacks in both; also when the main program has no
# symbols (frames named module+0xoffset), and when BASE's binary moved
# (--base-binary).
. "$YING_SRCDIR/tests/integration/diff_lib.sh"

GROW=409600
cd "$T" || exit 1
prog 0 --stacks 2000 A.heap
ok $? "run 1: base set and 2000 distinct stacks, one dump"
prog 0 --stacks 2000 --grow $GROW B0.heap B1.heap
ok $? "run 2: same, then grow_me +$GROW"

text_start() { awk '$2 ~ /x/ && $NF ~ /diff_grow$/ { sub(/-.*/, "", $1); print $1; exit }' "$1"; }
a=$(text_start A.heap)
b=$(text_start B1.heap)
[ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ]
ok $? "the two runs loaded the program at different addresses ($a, $b)"

cat >exact.py <<PY
rows = [r for r in j['rows'] if r['delta'] != 0]
assert len(rows) == 1 and rows[0]['delta'] == $GROW, rows
assert j['delta'] == $GROW, j['delta']
assert j['stacks_new'] == 1 and j['stacks_gone'] == 0, (j['stacks_new'], j['stacks_gone'])
assert j['new_stacks'][0]['delta'] == $GROW
PY

"$YD" --json A.heap B1.heap >d.json
ok $? "yingdiff across runs"
json_check d.json "$(cat exact.py)
assert rows[0]['function'] == 'grow_me', rows[0]
" && ok 0 "across runs: only grow_me changed, by exactly $GROW" || ok 1 "across runs: only grow_me changed"

"$YD" --json --stacks A.heap B1.heap >s.json
json_check s.json "
assert len(j['rows']) == 1 and j['rows'][0]['delta'] == $GROW, j['rows']
assert j['rows'][0]['stack']['frames'][0]['function'] == 'grow_me'
"
ok $? "--stacks across runs: one changed stack"

# Without the program's symbols every frame of it is module+0xoffset, which
# does not depend on the load address: still exact, and the 2000 fan-out
# stacks stay distinct and matched.
"$YD" --json --binary "$T/nonexistent/diff_grow" A.heap B1.heap >u.json 2>u.err
ok $? "yingdiff with the binary missing (unsymbolized frames)"
grep -q "warning" u.err
ok $? "a warning names the missing binary"
json_check u.json "$(cat exact.py)
import re
assert re.match(r'^diff_grow\+0x[0-9a-f]+$', rows[0]['function']), rows[0]
assert j['stacks_matched'] >= 2004, j['stacks_matched']
"
ok $? "unsymbolized: one changed module+0xoffset frame, 2004+ stacks matched"

# BASE from a copy of the program that is gone by diff time.
mkdir copy && cp "$PROG" copy/diff_grow
MALLOC_CONF=prof:true,lg_prof_sample:0 copy/diff_grow --stacks 2000 C.heap
ok $? "run 3 from a copy of the binary"
rm -rf copy
"$YD" --json C.heap B1.heap >c.json 2>c.err
json_check c.json "assert j['stacks_new'] > 1, j['stacks_new']"
ok $? "without --base-binary the moved binary's frames do not match"
"$YD" --json --base-binary "$PROG" C.heap B1.heap >cb.json 2>cb.err
json_check cb.json "$(cat exact.py)
assert rows[0]['function'] == 'grow_me', rows[0]
"
ok $? "--base-binary: exact again"

done_testing
