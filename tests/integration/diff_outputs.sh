#!/bin/sh
# diff_outputs.sh: the differential flame graph (well-formed SVG, the grown
# function in red, legend, script), the pprof of NOW minus BASE read by real
# `go tool pprof`, ying's own pprof files as inputs, -o and stdout images.
. "$YING_SRCDIR/tests/integration/diff_lib.sh"
need go

GROW=1228800
SHRINK=1048576
cd "$T" || exit 1
prog 0 --grow $GROW --shrink base.heap now.heap
ok $? "two dumps at lg_prof_sample:0"

# --- SVG ------------------------------------------------------------------
"$YD" -q --svg d.svg base.heap now.heap
ok $? "--svg writes a flame graph"
cat >svg.py <<'PY'
import re, sys
import xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == NS + 'svg', root.tag
texts = ''.join(t.text or '' for t in root.iter(NS + 'text'))
assert sys.argv[2] in texts, 'title missing'
assert 'grew' in texts and 'shrank' in texts, 'legend missing'
assert any(True for _ in root.iter(NS + 'script')), 'no script (interactivity)'
fills = {}
for g in root.iter(NS + 'g'):
    t, r = g.find(NS + 'title'), g.find(NS + 'rect')
    if t is not None and r is not None:
        fills[t.text.split('\n')[0]] = (r.get('fill'), float(r.get('width')), t.text)
f, w, title = fills['grow_me']
m = re.match(r'#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$', f)
r, g, b = (int(x, 16) for x in m.groups())
assert r > 180 and g < 120 and b < 120, ('grow_me not red', f)
assert w > 100, ('grow_me too narrow', w)
assert '(new)' in title, title
f, w, title = fills['main']
assert 'base' in title and 'now' in title, title
print('# grow_me fill %s width %.1f' % (fills['grow_me'][0], fills['grow_me'][1]))
PY
python3 svg.py d.svg "NOW minus BASE"
ok $? "SVG parses (xml.etree); grow_me is a wide red frame; legend and script present"
"$YD" -q --svg t.svg --title "release 1.2 vs 1.1" base.heap now.heap &&
	python3 svg.py t.svg "release 1.2 vs 1.1" >/dev/null
ok $? "--title sets the title"
"$YD" --svg - base.heap now.heap >stdout.svg && python3 svg.py stdout.svg "NOW minus BASE" >/dev/null
ok $? "--svg - writes the image (only) to standard output"

# Shrinking frames that keep some width are blue: BASE = NOW + grow, i.e.
# the same pair reversed; main is still there, and smaller.
"$YD" -q --svg r.svg now.heap base.heap
python3 - r.svg <<'PY'
import re, sys
import xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
for g in ET.parse(sys.argv[1]).getroot().iter(NS + 'g'):
    t, r = g.find(NS + 'title'), g.find(NS + 'rect')
    if t is not None and r is not None and t.text.split('\n')[0] == 'main':
        red, gr, bl = (int(x, 16) for x in re.match(r'#(..)(..)(..)', r.get('fill')).groups())
        assert bl > red and bl > gr, r.get('fill')
        sys.exit(0)
sys.exit(1)
PY
ok $? "reversed diff: main shrank and is blue"

# --- pprof ------------------------------------------------------------------
"$YD" -q --pprof d.pb.gz base.heap now.heap
ok $? "--pprof writes a profile"
tool_homes "$T"
go tool pprof -top -unit=byte -sample_index=inuse_space d.pb.gz >top.txt 2>top.err
ok $? "go tool pprof reads it"
[ -s top.err ] && sed 's/^/#   /' top.err | head -3
awk -v g=$GROW '$NF == "grow_me" { v = $1; sub(/B$/, "", v); if (v == g) f = 1 } END { exit !f }' top.txt
ok $? "go tool pprof -top: grow_me +$GROW bytes"
awk -v s=$SHRINK '$NF == "keep_c" { v = $1; sub(/B$/, "", v); if (v == -s) f = 1 } END { exit !f }' top.txt
ok $? "go tool pprof -top: keep_c -$SHRINK bytes (negative values kept)"
grep -q "^Showing nodes accounting for 180224B" top.txt
ok $? "go tool pprof: total shown is the delta"
go tool pprof -top -sample_index=inuse_objects d.pb.gz 2>/dev/null >objs.txt
awk '$NF == "grow_me" && $1 == 300 { f = 1 } END { exit !f }' objs.txt
ok $? "go tool pprof -sample_index=inuse_objects: grow_me +300"
grep -q "keep_a\|keep_b" top.txt
[ $? -ne 0 ]
ok $? "unchanged functions are not in the diff profile"

# --- ying's pprof files as inputs --------------------------------------------
"$YING" pprof -o base.pb.gz base.heap && "$YING" pprof -o now.pb.gz now.heap
ok $? "ying pprof converted both dumps"
"$YD" --json base.pb.gz now.pb.gz >p.json && "$YD" --json base.heap now.heap >h.json
json_check p.json "
h = json.load(open('h.json'))
rows = {r['function']: r for r in j['rows']}
assert j['delta'] == h['delta'] == $GROW - $SHRINK, (j['delta'], h['delta'])
assert rows['grow_me']['delta'] == $GROW and rows['keep_c']['delta'] == -$SHRINK
assert j['stacks_new'] == h['stacks_new'] == 1
"
ok $? "pprof inputs give the same diff as the dumps"
"$YD" --json base.heap now.pb.gz >m.json
json_check m.json "assert j['delta'] == $GROW - $SHRINK and j['stacks_new'] == 1, j['delta']"
ok $? "a heap_v2 BASE against a pprof NOW"

# --- report to a file, folded ------------------------------------------------
"$YD" -o r.txt base.heap now.heap >o.out
[ ! -s o.out ] && grep -q "^Delta:" r.txt && [ -z "$(ls -A | grep -e '^\.r\.txt\.' -e '^r\.txt\.tmp')" ]
ok $? "-o FILE: report in FILE, nothing on stdout, no temp file left"
"$YD" --folded base.heap now.heap >d.folded
python3 - d.folded $((GROW - SHRINK)) <<'PY'
import sys
b = n = 0
for line in open(sys.argv[1]):
    stack, x, y = line.rsplit(' ', 2)
    assert ';' in stack and not stack.startswith(';')
    b += int(x); n += int(y)
assert n - b == int(sys.argv[2]), (n - b)
PY
ok $? "folded columns sum to the delta"

done_testing
