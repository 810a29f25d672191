#!/bin/sh
# diff_checks.sh: what yingdiff lists and when it warns.
#   - the flat lists hold only functions whose flat value changed (never a
#     0 B row), and --min-delta filters on that flat change, not on the
#     cumulative one; --cum gives cumulative lists, filtered by the
#     cumulative change;
#   - a dump and ying's pprof file of the same dump (values truncated to
#     whole numbers) diff to exactly zero: no rows, no stacks, total 0;
#   - two different programs give one warning on stderr and still a diff;
#     a renamed copy of the same binary (same build ID) and two runs of one
#     program give none.
. "$YING_SRCDIR/tests/integration/diff_lib.sh"

GROW=1228800            # grow_me: 300 x 4 KiB
SHRINK=1048576          # keep_c: 8 x 128 KiB freed
OTHER="$YING_BUILDDIR/tests/programs/top_basic"
[ -x "$OTHER" ] || { echo "Bail out! $OTHER not built"; exit 1; }
cd "$T" || exit 1

# --- flat lists and --min-delta ----------------------------------------------
prog 0 --grow $GROW --shrink base.heap now.heap
ok $? "diff_grow wrote two dumps at lg_prof_sample:0"
"$YD" --json base.heap now.heap >d.json
json_check d.json "
assert [r['function'] for r in j['rows']] == ['grow_me', 'keep_c'], [(r['function'], r['delta']) for r in j['rows']]
assert all(r['delta'] != 0 for r in j['rows'])
"
ok $? "JSON rows: grow_me and keep_c only; main and the other callers (flat 0) are not listed"
"$YD" base.heap now.heap >d.txt
sed -n '/^Top growth, flat/,/^New stacks/p' d.txt >lists.txt
grep -Eq '^ +-?0 B ' lists.txt
[ $? -ne 0 ]
ok $? "text: no flat-list row whose flat change is 0 B" || sed 's/^/#   /' lists.txt
grep -q "^Top growth, flat (1 of 1):" d.txt && grep -q "^Top shrink, flat (1 of 1):" d.txt
ok $? "text: one growth row (grow_me), one shrink row (keep_c)"
# main's cumulative change is +176 KiB (GROW - SHRINK), its flat change 0:
# --min-delta 100KiB must not bring it (or _start, ...) back.
"$YD" --json --min-delta 100KiB base.heap now.heap >m.json
json_check m.json "
assert [r['function'] for r in j['rows']] == ['grow_me', 'keep_c'], [r['function'] for r in j['rows']]
"
ok $? "--min-delta 100KiB filters on the flat change: main (cum +176 KiB) stays out"
"$YD" --json --min-delta 1.1MiB base.heap now.heap >m2.json
json_check m2.json "assert [r['function'] for r in j['rows']] == ['grow_me'], j['rows']"
ok $? "--min-delta 1.1MiB: keep_c (-1 MiB flat) hidden, grow_me (+1.17 MiB) kept"
"$YD" --json --stacks --min-delta 1.1MiB base.heap now.heap >s.json
json_check s.json "
assert len(j['rows']) == 1 and j['rows'][0]['delta'] == $GROW, j['rows']
assert j['gone_stacks'] == [], j['gone_stacks']
"
ok $? "--stacks --min-delta 1.1MiB filters stacks on their own change"

# --cum: cumulative lists, ranked and --min-delta-filtered by the cum change.
"$YD" --json --cum base.heap now.heap >c.json
json_check c.json "
rows = {r['function']: r for r in j['rows']}
assert j['rank'] == 'cumulative', j['rank']
assert rows['main']['cum_delta'] == $GROW - $SHRINK and rows['main']['delta'] == 0, rows.get('main')
assert [r['cum_delta'] for r in j['rows']] == sorted((r['cum_delta'] for r in j['rows']), reverse=True)
assert all(r['cum_delta'] != 0 for r in j['rows'])
"
ok $? "--cum: main listed by its cumulative change (+176 KiB, flat 0), rows sorted by cum_delta"
"$YD" --json --cum --min-delta 1MiB base.heap now.heap >c2.json
json_check c2.json "assert [r['function'] for r in j['rows']] == ['grow_me', 'keep_c'], [(r['function'], r['cum_delta']) for r in j['rows']]"
ok $? "--cum --min-delta 1MiB filters on the cumulative change: main (+176 KiB) hidden"
"$YD" --cum base.heap now.heap | grep -q "^Top growth, cumulative (5 of 5):"
ok $? "--cum text: 'Top growth, cumulative' with grow_me, main and its 3 callers"

# --- a dump against its own pprof file: exactly zero --------------------------
MALLOC_CONF=prof:true "$PROG" --grow 20000000 --block 65536 --stacks 300 sb.heap sn.heap
ok $? "sampled dumps (lg_prof_sample 19: fractional unsampled values)"
"$YING" pprof -o sn.pb.gz sn.heap
ok $? "ying pprof of the NOW dump"
for pair in "sn.heap sn.pb.gz" "sn.pb.gz sn.heap"; do
	# shellcheck disable=SC2086
	"$YD" --json $pair >z.json 2>z.err
	json_check z.json "
assert j['delta'] == 0, j['delta']
assert j['base_total'] == j['now_total'], (j['base_total'], j['now_total'])
assert j['rows'] == [], [(r['function'], r['delta']) for r in j['rows']]
assert j['new_stacks'] == [] and j['gone_stacks'] == []
assert j['stacks_new'] == 0 and j['stacks_gone'] == 0
"
	ok $? "$pair: the same data diffs to zero rows and a zero total"
	[ ! -s z.err ]
	ok $? "$pair: no warning" || sed 's/^/#   /' z.err
done
"$YD" sn.heap sn.pb.gz >z.txt
grep -q "^Delta: *0 B" z.txt && grep -q "^Top growth, flat (0 of 0):" z.txt &&
	grep -q "^Top shrink, flat (0 of 0):" z.txt
ok $? "text: Delta 0 B, no growth and no shrink rows" || sed 's/^/#   /' z.txt
"$YING" pprof -o sb.pb.gz sb.heap && "$YD" --json sb.pb.gz sn.heap >g.json
json_check g.json "
rows = [r for r in j['rows'] if r['delta'] > 0]
assert rows and rows[0]['function'] == 'grow_me', j['rows'][:3]
assert all(abs(r['delta']) >= 1 for r in j['rows'])
"
ok $? "pprof BASE against a heap NOW still finds grow_me's growth"

# --- different programs ---------------------------------------------------------
MALLOC_CONF=prof:true,lg_prof_sample:0 "$OTHER" other.heap
ok $? "top_basic (another program) wrote a dump"
"$YD" base.heap other.heap >o.txt 2>o.err
ok $? "diffing two programs still exits 0"
grep -q "^Delta:" o.txt
ok $? "... and writes the diff"
is "$(wc -l <o.err | tr -d ' ')" 1 "one line on stderr"
grep -q "^yingdiff: warning: BASE is $PROG, NOW is $OTHER: these look like different programs\$" o.err
ok $? "the warning names both programs" || sed 's/^/#   /' o.err
cp "$PROG" renamed_grow
MALLOC_CONF=prof:true,lg_prof_sample:0 ./renamed_grow --grow 4096 r0.heap r1.heap
ok $? "a renamed copy of diff_grow wrote dumps"
"$YD" base.heap r1.heap >/dev/null 2>r.err
[ ! -s r.err ]
ok $? "renamed copy (same build ID): no warning" || sed 's/^/#   /' r.err
"$YD" base.heap now.heap >/dev/null 2>s.err
[ ! -s s.err ]
ok $? "two dumps of one program: no warning" || sed 's/^/#   /' s.err

done_testing
