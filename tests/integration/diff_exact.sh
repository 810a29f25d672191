#!/bin/sh
# diff_exact.sh: every allocation sampled (lg_prof_sample:0): yingdiff must
# attribute the growth to the byte to the one call site that grew, agree
# with real `jeprof --base`, and gate CI with --fail-over.
. "$YING_SRCDIR/tests/integration/diff_lib.sh"
need jeprof

GROW=1228800            # grow_me: 300 x 4 KiB
SHRINK=1048576          # keep_c: 8 x 128 KiB freed
cd "$T" || exit 1
prog 0 --grow $GROW --shrink base.heap now.heap
ok $? "diff_grow wrote two dumps at lg_prof_sample:0"

"$YD" --json base.heap now.heap >d.json
ok $? "yingdiff --json exits 0"
json_check d.json "
rows = {r['function']: r for r in j['rows']}
assert j['unit'] == 'bytes' and j['sample_index'] == 'inuse_space', j
g = rows['grow_me']
assert g['delta'] == $GROW and g['base'] == 0 and g['now'] == $GROW, g
assert g['file'].endswith('diff_grow.c') and g['line'] > 0, g
assert rows['keep_c']['delta'] == -$SHRINK, rows['keep_c']
flat = [r for r in j['rows'] if r['delta'] != 0]
assert sorted(r['function'] for r in flat) == ['grow_me', 'keep_c'], flat
assert j['delta'] == $GROW - $SHRINK, j['delta']
assert j['now_total'] - j['base_total'] == j['delta']
assert [r['delta'] for r in j['rows']] == sorted((r['delta'] for r in j['rows']), reverse=True)
" 2>"$T/err"
ok $? "JSON: exactly +$GROW at grow_me, -$SHRINK at keep_c, nothing else"
[ -s "$T/err" ] && sed 's/^/#   /' "$T/err"
json_check d.json "
assert len(j['new_stacks']) == 1, j['new_stacks']
s = j['new_stacks'][0]
names = [f['function'] for f in s['frames']]
assert names[0] == 'grow_me' and 'main' in names, names
assert s['delta'] == $GROW and s['base'] == 0
assert s['frames'][0]['line'] > 0 and s['frames'][0]['file'].endswith('diff_grow.c')
assert j['stacks_new'] == 1 and j['stacks_gone'] == 1
assert j['gone_stacks'][0]['frames'][0]['function'] == 'keep_c'
"
ok $? "JSON: the new stack is grow_me's, with frames; keep_c's is gone"

# The Total line of real jeprof --base (bytes), and each side's total.
jeprof --text --show_bytes --base=base.heap "$PROG" now.heap 2>/dev/null >jd.txt
jtotal=$(sed -n 's/^Total: \(-*[0-9]*\) B$/\1/p' jd.txt)
ytotal=$(python3 -c "import json; print(int(json.load(open('d.json'))['delta']))")
[ -n "$jtotal" ] && [ "$jtotal" = "$ytotal" ]
ok $? "delta equals jeprof --base Total ($ytotal vs ${jtotal:-none})"
grep -q " grow_me$" jd.txt
ok $? "jeprof --base also names grow_me"
for side in base now; do
	jeprof --text --show_bytes "$PROG" $side.heap 2>/dev/null >j$side.txt
	jt=$(sed -n 's/^Total: \([0-9]*\) B$/\1/p' j$side.txt)
	yt=$(python3 -c "import json; print(int(json.load(open('d.json'))['${side}_total']))")
	[ -n "$jt" ] && [ "$jt" = "$yt" ]
	ok $? "$side total equals jeprof's ($yt vs ${jt:-none})"
done

# Text report.
"$YD" base.heap now.heap >d.txt
ok $? "text report exits 0"
sed -n '/^Top growth/,/^Top shrink/p' d.txt | grep -q "+1.17 MiB .* grow_me (diff_grow.c:[0-9]*)$"
ok $? "text: grow_me leads the growth section with file:line"
sed -n '/^Top shrink/,/^New stacks/p' d.txt | grep -q "keep_c (diff_grow.c:[0-9]*)$"
ok $? "text: keep_c in the shrink section"
grep -q "^Delta: .*+180224 bytes" d.txt
ok $? "text: delta in bytes"
grep -q "^New stacks in NOW (1 of 1" d.txt && grep -q "^      grow_me (diff_grow.c:" d.txt
ok $? "text: the new stack with its frames"

# `ying diff` is the same command.
"$YING" diff --json base.heap now.heap >d2.json && cmp -s d.json d2.json
ok $? "ying diff == yingdiff"

# Objects.
"$YD" --json -i inuse_objects base.heap now.heap >o.json
json_check o.json "
rows = {r['function']: r for r in j['rows']}
assert j['unit'] == 'objects' and j['sample_index'] == 'inuse_objects'
assert rows['grow_me']['delta'] == 300 and rows['keep_c']['delta'] == -8, rows
assert j['delta'] == 292
"
ok $? "inuse_objects: +300 at grow_me, -8 at keep_c"

# Folded two-column form.
"$YD" --folded base.heap now.heap >d.folded
grep -q ";main;grow_me 0 $GROW\$" d.folded && grep -q ";main;keep_c $SHRINK 0\$" d.folded &&
	grep -q ";main;keep_a 262144 262144\$" d.folded
ok $? "folded: 'stack base now' lines"
awk '{ if ($(NF-1) !~ /^-?[0-9]+$/ || $NF !~ /^-?[0-9]+$/) exit 1 }' d.folded
ok $? "folded: integer columns"

# --min-delta, -n, --focus.
"$YD" --json --min-delta 1.1MiB base.heap now.heap >m.json
json_check m.json "
assert [r['function'] for r in j['rows'] if r['delta'] != 0] == ['grow_me'], j['rows']
"
ok $? "--min-delta 1.1MiB keeps only grow_me"
"$YD" -n 1 base.heap now.heap | grep -q "^Top growth, flat (1 of 1)"
ok $? "-n 1: the flat list holds grow_me only (its callers changed cum only)"
"$YD" --json --focus grow_me base.heap now.heap >f.json
json_check f.json "assert j['base_total'] == 0 and j['now_total'] == $GROW and j['filtered']"
ok $? "--focus grow_me: totals of the kept stacks"
"$YD" --json --ignore 'keep_' base.heap now.heap >i.json
json_check i.json "assert j['delta'] == $GROW, j['delta']"
ok $? "--ignore keep_: only the growth is left"

# Gzipped input and stdin.
gzip -c base.heap >base.heap.gz
"$YD" --json base.heap.gz - <now.heap >z.json
json_check z.json "assert j['delta'] == $GROW - $SHRINK"
ok $? "gzipped BASE and NOW from stdin"

# CI gate.
status_is "--fail-over 180224 (growth equal, not over) -> exit 0" 0 "$YD" -q --fail-over 180224 base.heap now.heap
status_is "--fail-over 180223 (one byte under the growth) -> exit 3" 3 "$YD" -q --fail-over 180223 base.heap now.heap
status_is "--fail-over 100KiB -> exit 3" 3 "$YD" -q --fail-over 100KiB base.heap now.heap
grep -q "exceeds --fail-over" "$T/err"
ok $? "--fail-over says why"
status_is "--fail-over 10MiB -> exit 0" 0 "$YD" --fail-over 10MiB base.heap now.heap
grep -q "^Delta:" "$T/out"
ok $? "report still written with --fail-over"
status_is "reversed (shrink) never fails --fail-over 0" 0 "$YD" -q --fail-over 0 now.heap base.heap
status_is "--fail-over still writes outputs before exit 3" 3 "$YD" -q --fail-over 1 --pprof g.pb.gz base.heap now.heap
[ -s g.pb.gz ]
ok $? "pprof file written although the gate failed"

done_testing
