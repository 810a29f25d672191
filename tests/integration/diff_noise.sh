#!/bin/sh
# diff_noise.sh: do yingdiff's 95 % intervals cover the truth on a real
# program?  tests/programs/diff_noise allocates a known 1 MiB at each of 48
# call sites (64 B .. 32 KiB blocks) between two dumps at lg_prof_sample 14
# (one sample per 16 KiB), and 512 KiB more at 8 sites that kept 1 MiB
# before BASE.  RUNS runs (default 100, ~10 s; bench/diff_noise.sh runs more): the
# 48 new sites are independent estimates, so their intervals must cover
# 1 MiB 93-97 % of the time (RUNS x 48 checks); the 8 grown sites are one
# live heap seen twice, where the interval is conservative (>= 93 %).
. "$YING_SRCDIR/tests/integration/diff_lib.sh"

NOISE="$YING_BUILDDIR/tests/programs/diff_noise"
RUNS=${RUNS:-100}
cd "$T" || exit 1
fail=0
i=1
while [ "$i" -le "$RUNS" ]; do
	MALLOC_CONF=prof:true,lg_prof_sample:14 "$NOISE" "$i" b$i.heap n$i.heap >truth$i.txt &&
	    "$YD" --json -n 0 b$i.heap n$i.heap >d$i.json 2>/dev/null || fail=1
	i=$((i + 1))
done
ok $fail "$RUNS runs of diff_noise at lg_prof_sample 14, each diffed with yingdiff --json"
head -1 n1.heap | grep -q '^heap_v2/16384$'
ok $? "dumps are sampled at 2^14"

python3 - "$RUNS" >cov.txt <<'PY'
import json, sys
runs = int(sys.argv[1])
new = [0, 0]; kept = [0, 0]; sig = [0, 0]; dumps = set(); width = 0.0
sizes = [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768]; bysize = {}
for i in range(1, runs + 1):
    truth = dict((l.split()[0], float(l.split()[1])) for l in open('truth%d.txt' % i))
    rows = dict((r['function'], r) for r in json.load(open('d%d.json' % i))['rows'])
    # the counts only (addresses move with ASLR anyway)
    dumps.add(tuple(sorted(l for l in open('n%d.heap' % i) if l.startswith('  t*:'))))
    for name, want in truth.items():
        r = rows.get(name)
        lo, hi = (r['delta_lo'], r['delta_hi']) if r else (0.0, 0.0)
        c = new if name.startswith('site_') else kept
        c[0] += 1
        c[1] += lo - 1 <= want <= hi + 1
        if name.startswith('site_'):
            b = bysize.setdefault(sizes[int(name[5:]) % 10], [0, 0])
            b[0] += 1
            b[1] += lo - 1 <= want <= hi + 1
        if name.startswith('site_'):
            width += (hi - lo) / 2 / want
            sig[0] += 1
            sig[1] += bool(r and r['significant'])
print('%d %d %d %d %d %d %d %.4f' % (new[0], new[1], kept[0], kept[1], sig[0], sig[1],
      len(dumps), width / new[0]))
with open('bysize.txt', 'w') as f:
    f.write('# by block size: ' + ', '.join('%d B %.1f %%' % (k, 100.0 * v[1] / v[0])
            for k, v in sorted(bysize.items())) + '\n')
PY
ok $? "coverage computed"
read n_all n_hit k_all k_hit s_all s_hit distinct width <cov.txt
echo "# new sites: the interval covers the true 1 MiB in $n_hit of $n_all ($(python3 -c "print('%.2f' % (100.0*$n_hit/$n_all))") %), mean half width $(python3 -c "print('%.1f' % (100*$width))") % of the delta"
echo "# grown sites (one live heap, conservative): $k_hit of $k_all ($(python3 -c "print('%.2f' % (100.0*$k_hit/$k_all))") %)"
echo "# new sites significant: $s_hit of $s_all; distinct NOW dumps: $distinct of $RUNS"
cat bysize.txt
[ "$distinct" -ge $((RUNS * 9 / 10)) ]
ok $? "the runs were sampled differently ($distinct distinct dumps of $RUNS)"
python3 -c "import sys; c = 100.0 * $n_hit / $n_all; sys.exit(not (93.0 <= c <= 97.0))"
ok $? "new sites: coverage of the truth within 93-97 %"
python3 -c "import sys; sys.exit(not (100.0 * $k_hit / $k_all >= 93.0))"
ok $? "grown sites of one live heap: coverage >= 93 % (conservative)"
[ "$s_hit" -eq "$s_all" ]
ok $? "every 1 MiB growth is significant at this rate"

# The text report of one run: the interval column and the noise mark.
"$YD" -n 0 b1.heap n1.heap >t.txt
grep -q '±95%' t.txt && grep -q 'Delta: .*±.*(95 %: ' t.txt
ok $? "text: ±95% column and the total's interval"
"$YD" --significant --json -n 0 b1.heap n1.heap >s.json
json_check s.json "
assert j['significant_only'] is True
assert all(r['significant'] for r in j['rows']), 'a row within noise was listed'
assert any(r['function'] == 'site_0' for r in j['rows'])
"
ok $? "--significant: only significant rows"
"$YING" diff --significant --json -n 0 b1.heap n1.heap >s2.json
cmp -s s.json s2.json
ok $? "ying diff --significant == yingdiff --significant"

done_testing
