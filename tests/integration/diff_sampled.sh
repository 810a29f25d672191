#!/bin/sh
# diff_sampled.sh: at jemalloc's default sampling rate (lg_prof_sample 19,
# one sample per 512 KiB) a large growth (200 MiB in 64 KiB blocks) is
# attributed to its call site: at least 95 % of the measured growth lands
# on grow_me, the unsampled estimate is near 200 MiB, and the totals agree
# with real `jeprof --base`.
. "$YING_SRCDIR/tests/integration/diff_lib.sh"
need jeprof

GROW=209715200
cd "$T" || exit 1
MALLOC_CONF=prof:true "$PROG" --grow $GROW --block 65536 base.heap now.heap
ok $? "diff_grow: 200 MiB in 64 KiB blocks at the default rate"
head -1 now.heap | grep -q '^heap_v2/524288$'
ok $? "dumps are sampled at 2^19"

"$YD" --json base.heap now.heap >d.json
ok $? "yingdiff --json"
json_check d.json "
rows = {r['function']: r for r in j['rows']}
g = rows['grow_me']['delta']
print('# grow_me %.0f of total delta %.0f (%.2f %%), estimate/true %.3f'
      % (g, j['delta'], 100 * g / j['delta'], g / $GROW))
assert g >= 0.95 * j['delta'], (g, j['delta'])
" 
ok $? "at least 95 % of the growth goes to grow_me"
json_check d.json "
g = {r['function']: r for r in j['rows']}['grow_me']['delta']
assert 0.75 * $GROW <= g <= 1.25 * $GROW, g
assert j['base_period'] == 524288 and j['now_period'] == 524288
"
ok $? "unsampled growth estimate within 25 % of 200 MiB (5 sigma)"

jeprof --text --show_bytes --base=base.heap "$PROG" now.heap 2>/dev/null >jd.txt
jtotal=$(sed -n 's/^Total: \(-*[0-9]*\) B$/\1/p' jd.txt)
ytotal=$(python3 -c "import json; print(int(json.load(open('d.json'))['delta']))")
near_jeprof "$ytotal" "$jtotal" base.heap now.heap
ok $? "delta equals jeprof --base Total ($ytotal vs ${jtotal:-none}), within half a byte per stack"

# The same pair at another index, and the CI gate on sampled data.
status_is "--fail-over 150MiB trips on the sampled 200 MiB growth" 3 "$YD" -q --fail-over 150MiB base.heap now.heap
status_is "--fail-over 300MiB passes" 0 "$YD" -q --fail-over 300MiB base.heap now.heap

done_testing
