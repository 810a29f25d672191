#!/bin/sh
# flame_chromium.sh: `ying flamegraph` SVGs opened in the real, headless
# Debian chromium and used the way a person would.
#
# A C++ program (tests/programs/flame_cxx.cc, compiled here with the system
# c++) is profiled at lg_prof_sample:0, so its stacks hold libstdc++ template
# frames with <, > and & in their names.  The SVG must be one self-contained,
# well-formed file; then tests/integration/flame_cdp.py drives chromium over
# the DevTools protocol: the graph renders, hovering shows the details,
# clicking a frame zooms it to the full width, "Reset zoom" restores it,
# Ctrl-F prompts for a regular expression and highlights the matches, and a
# screenshot is saved ($YING_BUILDDIR/flame_chromium.png) for a person to
# look at.  Last, a synthetic 200,000-stack dump (flame_gen.py) must become a
# few-MB SVG quickly and load in the browser in seconds.
. "$YING_SRCDIR/tests/integration/top_lib.sh"
need chromium c++ pkg-config nm

CDP="$YING_SRCDIR/tests/integration/flame_cdp.py"
GEN="$YING_SRCDIR/tests/integration/flame_gen.py"

# cdp ARGS...: run the browser checks; each PASS/FAIL line becomes a TAP line.
cdp() {
	timeout 240 python3 "$CDP" --log "$T/chromium.log" "$@" >"$T/cdp.out" 2>"$T/cdp.err"
	_rc=$?
	while IFS= read -r _line; do
		case "$_line" in
		PASS\ *) ok 0 "${_line#PASS }" ;;
		FAIL\ *) ok 1 "${_line#FAIL }" ;;
		esac
	done <"$T/cdp.out"
	if [ "$_rc" -ne 0 ] && ! grep -q '^FAIL' "$T/cdp.out"; then
		ok 1 "browser driver ran (status $_rc)"
		diag "$T/cdp.err"
	fi
}

# self_contained SVG: a real XML parser accepts it and it names nothing
# outside itself.
self_contained() {
	python3 - "$1" <<'PY'
import re, sys, xml.dom.minidom
text = open(sys.argv[1], encoding='utf-8').read()
xml.dom.minidom.parseString(text.encode('utf-8'))
urls = set(re.findall(r'[a-z]+://[^\s"\'<>)]*', text))
assert urls <= {'http://www.w3.org/2000/svg'}, urls
bad = re.search(r'href\s*=|@import|\ssrc\s*=\s*["\']|@font-face', text)
assert not bad, 'external reference: %s' % bad.group(0)
assert all(u == 'url(#' for u in re.findall(r'url\(.?', text)), 'url() to outside'
assert text.count('<script') == 1 and '<![CDATA[' in text
PY
}

c++ -g -O0 $(pkg-config --cflags jemalloc) -o "$T/flame_cxx" \
    "$YING_SRCDIR/tests/programs/flame_cxx.cc" $(pkg-config --libs jemalloc) 2>"$T/cxx.err"
ok $? "the C++ test program compiles" || diag "$T/cxx.err"
run_prog prof:true,lg_prof_sample:0 "$T/flame_cxx" "$T/cxx.heap"
ok $? "flame_cxx writes a dump" || diag "$T/prog.out"

ying flamegraph "$T/cxx.heap" -o "$T/cxx.svg" 2>"$T/err"
ok $? "ying flamegraph -o writes an SVG" || diag "$T/err"
self_contained "$T/cxx.svg" 2>"$T/err"
ok $? "the SVG is well-formed XML and self-contained" || diag "$T/err"
# std::map's own frames are trimmed as a standard-library layer: shown
# again with --keep-allocator-frames, and whole with --full-names
ying flamegraph --keep-allocator-frames --full-names "$T/cxx.heap" -o "$T/cxx-keep.svg" 2>"$T/err"
grep -q 'std::map&lt;int, char\*, std::less&lt;int&gt;' "$T/cxx-keep.svg" && ! grep -q 'std::map<int' "$T/cxx-keep.svg"
ok $? "C++ template frames are XML-escaped"
grep -q '<title>grow_cache()' "$T/cxx.svg" && grep -q '8.00 MiB' "$T/cxx.svg"
ok $? "grow_cache() is a frame with its 8.00 MiB"
ying flamegraph "$T/cxx.heap" >"$T/cxx2.svg" 2>/dev/null
cmp -s "$T/cxx.svg" "$T/cxx2.svg"
ok $? "the same dump gives the same bytes (stdout and -o alike)"

cdp "$T/cxx.svg" --frame 'grow_cache()' --search '^recurse' \
    --screenshot "$YING_BUILDDIR/flame_chromium.png" --zoom-shot "$T/zoom.png"

ying flamegraph --icicle --width 900 --title 'Icicle <&> test' --subtitle 'sub' \
    -i inuse_objects "$T/cxx.heap" -o "$T/icicle.svg" 2>"$T/err"
ok $? "--icicle --width --title --subtitle -i inuse_objects" || diag "$T/err"
grep -q 'width="900"' "$T/icicle.svg" && grep -q '>Icicle &lt;&amp;&gt; test</text>' "$T/icicle.svg" &&
    grep -q 'objects (' "$T/icicle.svg"
ok $? "icicle SVG has the width, the escaped title and object counts"
cdp "$T/icicle.svg" --frame 'fill_table()' --search 'Pool'

ying flamegraph --focus 'recurse' "$T/cxx.heap" -o "$T/focus.svg" 2>/dev/null &&
    grep -q '<title>recurse(int)' "$T/focus.svg" && ! grep -q '<title>grow_cache()' "$T/focus.svg" &&
    grep -q 'Shown: 1.00 MiB of' "$T/focus.svg"
ok $? "--focus keeps only stacks through recurse"
ying flamegraph --ignore 'recurse' "$T/cxx.heap" -o "$T/ignore.svg" 2>/dev/null &&
    ! grep -q '<title>recurse(int)' "$T/ignore.svg" && grep -q '<title>grow_cache()' "$T/ignore.svg"
ok $? "--ignore drops stacks through recurse"
ying flamegraph --width 10 "$T/cxx.heap" -o "$T/bad.svg" >/dev/null 2>&1
is "$?" 2 "--width 10 is a usage error"
test ! -e "$T/bad.svg"
ok $? "no file is left behind on error"
ying flamegraph --min-width x "$T/cxx.heap" >/dev/null 2>&1
is "$?" 2 "--min-width x is a usage error"
ying flamegraph "$T/missing.heap" -o "$T/m.svg" >/dev/null 2>&1
is "$?" 1 "a missing dump exits 1"

# 200,000 distinct stacks in real libc functions.
timeout 300 python3 "$GEN" "$T/big.heap" --stacks 200000 2>"$T/err"
ok $? "flame_gen.py writes a 200,000-stack dump" || diag "$T/err"
start=$(date +%s.%N)
# Speed is measured by bench/formats.sh, not here (a sanitizer build is ~10x
# slower); the time limit only guards against a hang.
timeout 300 "$YING" flamegraph "$T/big.heap" -o "$T/big.svg" 2>"$T/err"
rc=$?
secs=$(python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$start" "$(date +%s.%N)")
size=$(wc -c <"$T/big.svg")
echo "# 200,000 stacks ($(wc -c <"$T/big.heap") byte dump): ying flamegraph took $secs s, SVG $size bytes"
ok $rc "ying flamegraph on 200,000 stacks succeeds" || diag "$T/err"
test "$size" -lt 8000000
ok $? "... and the SVG stays under 8 MB ($size bytes)"
self_contained "$T/big.svg" 2>"$T/err"
ok $? "the big SVG is well-formed" || diag "$T/err"
F=$(sed -n 's/^<g><title>\(.*\)$/\1/p' "$T/big.svg" | sed -n '3p')
cdp "$T/big.svg" --frame "$F" --search 'mem' --load-limit 15

plan_done
