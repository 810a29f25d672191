# layers_lib.sh: the checks of layers_cxx.sh and rust_layers.sh, sourced
# after top_lib.sh.  Not a test itself.
#
# layers_check NAME PROG FUNCS LAYERS NOTES runs PROG BASE DUMP under
# MALLOC_CONF=prof:true,lg_prof_sample:0 and checks, on DUMP, that each
# function of FUNCS (space-separated names without parameters) leads every
# stack it is in and that no leading frame matches the ERE LAYERS (the
# standard library's allocation layers), in every output: top --json,
# folded, the flame graph, pprof's first location, yingdiff BASE DUMP and
# the sql database's depth-0 frames; that top --json notes the layer of
# each row as NOTES says (FUNC=KIND[|KIND]..., '_' for a space).  With
# --keep-allocator-frames the
# layers are there again (they were trimmed, not lost).

# layers_leaves FILE: the leaf of every folded stack, one per line.
layers_leaves() {
	sed 's/ [0-9-]*$//; s/.*;//' "$1"
}

layers_check() {
	_n=$1 _p=$2 _funcs=$(echo $3) _re=$4 _notes=$(echo $5)
	_b="$T/$_n.base.heap" _d="$T/$_n.heap"
	MALLOC_CONF=prof:true,lg_prof_sample:0 timeout 60 "$_p" "$_b" "$_d" >"$T/$_n.out" 2>&1
	ok $? "$_n: writes its two dumps" || { diag "$T/$_n.out"; return; }

	ying folded "$_d" >"$T/$_n.folded" 2>"$T/err"
	ok $? "$_n: ying folded" || diag "$T/err"
	for f in $_funcs; do
		# every stack through f (f followed by its parameters or nothing)
		_bad=$(awk -v f="$f" '{
			sub(/ [0-9-]+$/, ""); n = split($0, a, ";"); hit = 0
			for (i = 1; i <= n; i++) {
				x = a[i]; sub(/\(.*/, "", x)
				if (x == f) hit = i
			}
			if (hit && hit != n) bad++
			if (hit == n) good++
		} END { printf "%d/%d", bad, good }' "$T/$_n.folded")
		case $_bad in
		0/0) ok 1 "$_n: folded: a stack through $f" ;;
		0/*) ok 0 "$_n: folded: $f leads all its ${_bad#0/} stacks" ;;
		*) ok 1 "$_n: folded: $f leads all its stacks (${_bad%/*} stacks have a layer below it)"
		   grep -F "$f" "$T/$_n.folded" | head -n 3 | cut -c1-400 | diag ;;
		esac
	done
	layers_leaves "$T/$_n.folded" | grep -E "$_re" >"$T/$_n.lead"
	is "$(wc -l <"$T/$_n.lead")" 0 "$_n: folded: no stack starts in an allocation layer" ||
	    cut -c1-200 "$T/$_n.lead" | diag

	ying top --json "$_d" >"$T/$_n.json" 2>"$T/err"
	ok $? "$_n: ying top --json" || diag "$T/err"
	_py="' '.join(f for f in '$_funcs'.split() if not (flat(f) > 0 and flat(f) == cum(f)))"
	is "$(jq_py "$T/$_n.json" "$_py")" "" "$_n: top: each growth function holds its own memory (flat = cum > 0)"
	# the note: the layer the function called ("vector growth", "Arc")
	_py="' '.join(f for f, k in (x.split('=') for x in '$_notes'.split()) if (fn(f) or {}).get('layer', '-').replace(' ', '_') not in k.split('|'))"
	is "$(jq_py "$T/$_n.json" "$_py")" "" "$_n: top --json: each growth row names its layer ($_notes)"
	is "$(jq_py "$T/$_n.json" "len([r for r in rows if r['flat'] > 0 and __import__('re').search(r'''$_re''', r['function'])])")" 0 \
	    "$_n: top: no allocation layer holds flat bytes"

	ying flamegraph "$_d" -o "$T/$_n.svg" 2>"$T/err"
	ok $? "$_n: ying flamegraph" || diag "$T/err"
	ying folded --keep-allocator-frames "$_d" >"$T/$_n.kept" 2>"$T/err"
	python3 - "$T/$_n.folded" "$T/$_n.kept" "$T/$_n.svg" "$_funcs" <<'PY' >"$T/$_n.svgcheck"
import html, re, sys
# the growth functions are drawn; the functions that only
# --keep-allocator-frames shows (the trimmed layers) are not
def names(path):
    out = set()
    for ln in open(path):
        out.update(x.replace("[inline]", "") for x in ln.rsplit(" ", 1)[0].split(";"))
    return out
svg = html.unescape(open(sys.argv[3]).read())
trimmed = names(sys.argv[2]) - names(sys.argv[1])
bad = [f for f in sys.argv[4].split() if not re.search(re.escape(f) + "[(<\n]", svg)]
bad += [t for t in trimmed if t in svg]
print(" ".join(sorted(bad)))
PY
	is "$(cat "$T/$_n.svgcheck")" "" "$_n: flame graph: the growth functions, and none of the trimmed layers"

	ying pprof "$_d" -o "$T/$_n.pb.gz" 2>"$T/err"
	ok $? "$_n: ying pprof" || diag "$T/err"
	python3 "$YING_SRCDIR/tests/integration/pprof_leaf.py" "$T/$_n.pb.gz" >"$T/$_n.pleaves"
	grep -E "$_re" "$T/$_n.pleaves" >"$T/$_n.plead"
	is "$(wc -l <"$T/$_n.plead")" 0 "$_n: pprof: no sample's first location is an allocation layer" ||
	    cut -c1-200 "$T/$_n.plead" | diag
	_miss=""
	for f in $_funcs; do
		grep -q "^$f\((.*\)\{0,1\}$" "$T/$_n.pleaves" || _miss="$_miss $f"
	done
	is "$_miss" "" "$_n: pprof: every growth function is a first location"

	"$YING_BUILDDIR/yingdiff" -n 0 "$_b" "$_d" >"$T/$_n.diff" 2>"$T/err"
	ok $? "$_n: yingdiff BASE DUMP" || diag "$T/err"
	# the functions of the "Top growth, flat" rows (four sizes, then the name)
	sed -n '/^Top growth, flat/,/^$/p' "$T/$_n.diff" | awk 'NF > 8 && $1 ~ /^[-+]/ {
		for (i = 1; i <= 8; i++) $i = ""; sub(/^ +/, ""); sub(/ \([^()]*:[0-9]*\)$/, ""); print }' \
	    >"$T/$_n.dfuncs"
	_miss=""
	for f in $_funcs; do
		grep -q "^$f\((.*\)\{0,1\}$" "$T/$_n.dfuncs" || _miss="$_miss $f"
	done
	is "$_miss" "" "$_n: diff: every growth function is a row of its own" || diag "$T/$_n.diff"
	is "$(grep -c -E "$_re" "$T/$_n.dfuncs")" 0 "$_n: diff: no growth row is an allocation layer" ||
	    diag "$T/$_n.dfuncs"

	if command -v sqlite3 >/dev/null 2>&1; then
		ying sql -q -o "$T/$_n.db" "$_d" 2>"$T/err"
		ok $? "$_n: ying sql" || diag "$T/err"
		sqlite3 "$T/$_n.db" 'SELECT DISTINCT function FROM frames WHERE depth = 0' >"$T/$_n.sqlleaves"
		grep -E "$_re" "$T/$_n.sqlleaves" >"$T/$_n.sqllead"
		is "$(wc -l <"$T/$_n.sqllead")" 0 "$_n: sql: no depth-0 frame is an allocation layer" ||
		    cut -c1-200 "$T/$_n.sqllead" | diag
	else
		ok 0 "# SKIP $_n: sqlite3 is missing"
	fi

	# stacks with a layer frame below their first frame of the program's
	_k=$(awk -v re="$_re" -v funcs=" $_funcs " '{
		sub(/ [0-9-]+$/, ""); n = split($0, a, ";")
		for (i = n; i > 0; i--) {
			x = a[i]; sub(/\(.*/, "", x)
			if (index(funcs, " " x " ")) break
			if (a[i] ~ re) { k++; break }
		}
	} END { print k + 0 }' "$T/$_n.kept")
	ok "$(test "$_k" -gt 0; echo $?)" "$_n: --keep-allocator-frames: the layers are there again ($_k stacks)"
}
