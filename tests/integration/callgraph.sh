#!/bin/sh
# callgraph.sh: `ying callgraph` on a real dump, with the real jeprof --dot
# and --text and Graphviz's dot as the oracles.
#
# tests/programs/flame_prog under MALLOC_CONF=prof:true,lg_prof_sample:0
# (every allocation sampled: 8 MiB in grow_cache, 2 MiB through the inlined
# inline_alloc, 1 MiB in recursion, 400 KiB in load_config), dumped once.
# The DOT parses with Graphviz; with every node kept the nodes' flat values
# sum to the Total, which equals `ying top`'s and jeprof --text's; with
# jeprof's default selection the nodes of the program's own functions and
# their values are jeprof --dot's; -o .svg/.pdf/.png render real files;
# names with quotes, backslashes, escape sequences and bad UTF-8 reach the
# SVG through the real Graphviz escaped once;
# without dot on PATH, a clear error; bad numbers are usage errors.
. "$YING_SRCDIR/tests/integration/top_lib.sh"
need dot

P="$YING_BUILDDIR/tests/programs/flame_prog"
D="$T/flame.heap"

run_prog prof:true,lg_prof_sample:0 "$P" "$D"
ok $? "flame_prog writes a dump at lg_prof_sample:0" || diag "$T/prog.out"

# --- DOT that Graphviz reads ---------------------------------------------------
ying callgraph "$D" >"$T/g.dot" 2>"$T/g.err"
ok $? "ying callgraph writes DOT" || diag "$T/g.err"
dot -Tsvg "$T/g.dot" >"$T/g.svg" 2>"$T/dot.err"
ok $? "Graphviz dot -Tsvg parses it" || diag "$T/dot.err"

# --- every node: flat values sum to the Total, = ying top = jeprof --text -------
ying callgraph --nodefraction=0 --edgefraction=0 --nodecount=1000 --show-bytes "$D" \
    >"$T/all.dot" 2>"$T/all.err"
ok $? "--nodefraction=0 --edgefraction=0 --nodecount=1000 --show-bytes" || diag "$T/all.err"
# sum of the nodes' flat values (truncated integers: allow one byte per
# node), the legend's Total, the number of nodes
python3 - "$T/all.dot" >"$T/sums" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
flats = [int(m.group(1)) for m in
         re.finditer(r'^N\d+ \[label="(?:[^"\\]|\\.)*?\\n(-?\d+) \(', text, re.M)]
total = re.search(r'\\lTotal B: (-?\d+)\\l', text)
print(sum(flats), total.group(1) if total else "none", len(flats))
PY
read -r FLATSUM DOTTOTAL NNODES <"$T/sums"
test "$NNODES" -gt 5 && python3 -c 'import sys; s, t, n = map(int, sys.argv[1:]); sys.exit(abs(s - t) > n)' \
    "$FLATSUM" "$DOTTOTAL" "$NNODES"
ok $? "the $NNODES nodes' flat values ($FLATSUM) sum to the Total ($DOTTOTAL)" || diag "$T/all.dot"
ying top --json "$D" >"$T/top.json" 2>/dev/null
TOPTOTAL=$(trunc "$(jq_py "$T/top.json" 'd["total"]')")
is "$DOTTOTAL" "$TOPTOTAL" "the Total is ying top's"
JT=$(jeprof_total "$P" "$D")
near_jeprof "$DOTTOTAL" "$JT" "$D"
ok $? "the Total ($DOTTOTAL) is jeprof --text's ($JT), within half a byte per stack"

# --- jeprof's default selection, the program's own functions -----------------
JEPROF_TMPDIR="$T/jeprof-tmp" timeout 300 jeprof --dot "$P" "$D" >"$T/jeprof.dot" 2>"$T/jeprof.err"
ok $? "jeprof --dot runs" || diag "$T/jeprof.err"
# The functions flame_prog defines (nm), so that names jeprof borrows for
# ld.so and libstdc++ addresses are left out of the comparison (and
# inline_alloc, always inlined, so in no symbol table).
{ nm --defined-only "$P" | awk '$2 ~ /^[tTwW]$/ { print $3 }'; echo inline_alloc; } |
    sort -u >"$T/own"
# name<TAB>flat of every node: the label's name lines (jeprof: "::" and
# spaces became \n, inlined frames have a "(inline)" line), then the flat.
nodes() {
	python3 - "$1" "$T/own" <<'PY'
import re, sys
own = set(open(sys.argv[2]).read().split())
for m in re.finditer(r'^N\d+ \[label="((?:[^"\\]|\\.)*)"', open(sys.argv[1]).read(), re.M):
    parts = m.group(1).split("\\n")
    v = re.match(r'(-?[\d.]+) \(', parts[-1])
    names = [x for x in parts[:-1] if x != "(inline)"]
    name = "::".join(names)
    if name in own and v:
        print("%s\t%s" % (name, v.group(1)))
PY
}
nodes "$T/g.dot" | sort >"$T/ying.nodes"
nodes "$T/jeprof.dot" | sort >"$T/jeprof.nodes"
test "$(wc -l <"$T/ying.nodes")" -ge 6 && cmp -s "$T/ying.nodes" "$T/jeprof.nodes"
ok $? "the program's nodes and their flat MB are jeprof --dot's ($(cut -f1 "$T/ying.nodes" | tr '\n' ' '))" ||
	{ echo "# ying:"; diag "$T/ying.nodes"; echo "# jeprof:"; diag "$T/jeprof.nodes"; }
grep -q '^Legend .*Total MB: 11\.5\\lFocusing on: 11\.5\\lDropped nodes with <= 0\.1 abs(MB)\\l' "$T/g.dot"
ok $? "the legend's lines as jeprof's" || diag "$T/g.dot"
grep -q "$(grep '^Legend' "$T/jeprof.dot" | sed 's/.*\\lTotal/Total/; s/\\l".*//; s/[][\\.*^$]/\\&/g')" "$T/g.dot"
ok $? "the legend's numbers are jeprof's" || { grep '^Legend' "$T/jeprof.dot"; grep '^Legend' "$T/g.dot"; }

# --- hostile names through the real Graphviz ----------------------------------
# A dump whose mapped file name holds a quote, a backslash, braces, angle
# brackets, '|', '::', a space, an escape sequence and an invalid UTF-8
# byte: its frames are named after it.
ESC=$(printf '\033')
HN="a\"b\\c{d}<e>|f::g h${ESC}[2J$(printf '\377')x.so"
{
	printf 'heap_v2/524288\n  t*: 1: 1048576 [0: 0]\n  t0: 1: 1048576 [0: 0]\n'
	printf '@ 0x401000 0x402001\n  t*: 1: 1048576 [0: 0]\n  t0: 1: 1048576 [0: 0]\n'
	printf '\nMAPPED_LIBRARIES:\n00400000-01400000 r-xp 00000000 08:01 1234 /nonexistent/%s\n' "$HN"
} >"$T/hostile.heap"
ying callgraph --title 'T "q" \ x' "$T/hostile.heap" >"$T/hostile.dot" 2>/dev/null &&
    dot -Tsvg "$T/hostile.dot" >"$T/hostile.svg" 2>"$T/dot.err"
ok $? "hostile names and title: Graphviz reads the DOT" || diag "$T/dot.err" "$T/hostile.dot"
python3 - "$T/hostile.svg" <<'PY'
import sys, xml.etree.ElementTree as E
texts = [t.text for t in E.parse(sys.argv[1]).getroot().iter("{http://www.w3.org/2000/svg}text")]
want = ['T "q" \\ x', 'a"b\\c{d}<e>|f', 'g', 'h\\x1b[2J\\xffx.so+0x1000']
sys.exit(not all(w in texts for w in want))
PY
ok $? "the SVG shows them escaped once, split at '::' and spaces as jeprof's" || diag "$T/hostile.svg"

# --- rendered formats ----------------------------------------------------------
ying callgraph -o "$T/x.svg" "$D" 2>"$T/svg.err" &&
    python3 -c 'import sys, xml.etree.ElementTree as E; sys.exit(not E.parse(sys.argv[1]).getroot().tag.endswith("svg"))' "$T/x.svg"
ok $? "-o x.svg: an XML document whose root is <svg>" || diag "$T/svg.err"
grep -q 'grow_cache' "$T/x.svg"
ok $? "the SVG names grow_cache"
ying callgraph -o "$T/x.pdf" "$D" 2>"$T/pdf.err" && test "$(head -c 5 "$T/x.pdf")" = "%PDF-"
ok $? "-o x.pdf starts with %PDF-" || diag "$T/pdf.err"
ying callgraph -o "$T/x.png" "$D" 2>"$T/png.err" &&
    test "$(head -c 8 "$T/x.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a"
ok $? "-o x.png has the PNG magic" || diag "$T/png.err"
ying callgraph --format=dot -o "$T/x.png.dot" "$D" 2>/dev/null && cmp -s "$T/x.png.dot" "$T/g.dot"
ok $? "-o FILE.dot writes the same DOT as standard output"

# --- no dot on PATH --------------------------------------------------------------
mkdir "$T/nodot"
TIMEOUT=$(command -v timeout)
PATH="$T/nodot" "$TIMEOUT" 60 "$YING" callgraph -o "$T/y.svg" "$D" >/dev/null 2>"$T/nodot.err"
RC=$?
test "$RC" -ne 0 && grep -q "Graphviz 'dot' not found on PATH: install graphviz" "$T/nodot.err" &&
    ! test -e "$T/y.svg"
ok $? "without dot on PATH: exit $RC, a clear message, no file" || diag "$T/nodot.err"
PATH="$T/nodot" "$TIMEOUT" 60 "$YING" callgraph "$D" >"$T/nodot.dot" 2>/dev/null &&
    cmp -s "$T/nodot.dot" "$T/g.dot"
ok $? "DOT needs no Graphviz"

# --- usage errors ------------------------------------------------------------------
for bad in --nodecount=abc --nodecount=0 --nodefraction=x --nodefraction=2 \
    --edgefraction=-0.1 --maxdegree=1.5 --format=gif --sample-index=bogus; do
	ying callgraph "$bad" "$D" >/dev/null 2>"$T/bad.err"
	RC=$?
	test "$RC" -eq 2 && grep -q "^ying callgraph: .*${bad#*=}" "$T/bad.err"
	ok $? "$bad: usage error (exit 2) naming the value" || diag "$T/bad.err"
done
ying callgraph -o "$T/x.jpg" "$D" >/dev/null 2>"$T/jpg.err"
test $? -eq 2 && grep -q "cannot tell the format of" "$T/jpg.err"
ok $? "-o x.jpg: usage error" || diag "$T/jpg.err"

plan_done
