#!/bin/sh
# bin_changed.sh: never name the wrong function when the program on disk is
# not the one that was dumped.
#
# A real program (tests/programs/bin_changed.c, built here with cc and
# jemalloc) is dumped, then rebuilt at the same path with another layout
# (-DBIN_CHANGED_SHIFT: a filler function first, the allocating functions
# renamed).  Each signal that the file changed is covered on its own: a new
# inode on the same device, a file time after the dump (edited in place,
# same inode), the build IDs that ying's own dumps carry (`ying run`), a
# pprof profile with Mapping.build_id, and the call sites alone (the dump's
# device rewritten as if from another machine, file times kept old).  Every
# time: no name of either build in top, folded, flamegraph, pprof (read
# back) or diff output, `prog+0x...` instead, exactly one warning naming the
# file and the reason; `--binary` with a copy of the original brings the
# names back without a warning; `--binary /bin/true` gets its own warning.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"

need cc readelf jeprof
SRC="$YING_SRCDIR/tests/programs/bin_changed.c"
JEM=$(pkg-config --cflags --libs jemalloc)
P="$T/prog"
CONF=prof:true,lg_prof_sample:0
# Names of either build; none may appear once the file no longer matches.
NAMES='leaf_alloc|mid_alloc|top_alloc|run_all|bc_new_|bc_filler|(^|[^_[:alnum:]])main([^_[:alnum:]]|$)'

build() {
	# shellcheck disable=SC2086
	cc -g -O0 -fno-omit-frame-pointer "$@" "$SRC" $JEM
}
build -o "$T/orig" && build -DBIN_CHANGED_SHIFT -o "$T/new"
ok $? "build the program twice (the second with another layout)" || exit 1
ino() { stat -c %i "$1"; }
bid() { readelf -n "$1" | sed -n 's/.*Build ID: *//p'; }
# put FILE: copy FILE over $P in place (same inode), file time 10 minutes ago
put() { cp "$1" "$P" && touch -d '10 minutes ago' "$P"; }
dump() { MALLOC_CONF=$CONF timeout 60 "$P" "$1" >"$T/prog.out" 2>&1; }

# warned ERR REASON WHAT: exactly one warning line, naming $P and REASON
warned() {
	is "$(grep -c 'warning' "$1")" 1 "$3: exactly one warning" || diag "$1"
	grep 'warning' "$1" | grep -F "$P" | grep -qF "$2"
	ok $? "$3: the warning names $P and says '$2'" || diag "$1"
}
# no_names FILE WHAT: none of the program's function names, prog+0x instead
# (the paths of the test's own directories are taken out first: a checkout
# in /work/main must not look like the function main)
unpath() {
	awk -v a="$T" -v b="$YING_BUILDDIR" -v c="$YING_SRCDIR" '
	    function cut(s, p,   i) { while (p != "" && (i = index(s, p)) > 0)
	        s = substr(s, 1, i - 1) "@" substr(s, i + length(p)); return s }
	    { print cut(cut(cut($0, a), b), c) }' "$1"
}
no_names() {
	! unpath "$1" | grep -Eq "$NAMES"
	ok $? "$2: no name of either build" || unpath "$1" | grep -E "$NAMES" | head -n 5 | sed 's/^/#   /'
	grep -q 'prog+0x' "$1"
	ok $? "$2: frames of the program are prog+0x..." || diag "$1"
}

# check DUMP REASON WHAT: every output of DUMP against the rebuilt program
check() {
	_d=$1 _r=$2 _w=$3
	ying top "$_d" >"$T/top" 2>"$T/top.err"
	ok $? "$_w: ying top runs"
	warned "$T/top.err" "$_r" "$_w: top"
	no_names "$T/top" "$_w: top"
	ying folded "$_d" >"$T/folded" 2>"$T/folded.err"
	warned "$T/folded.err" "$_r" "$_w: folded"
	no_names "$T/folded" "$_w: folded"
	ying flamegraph "$_d" -o "$T/fg.svg" 2>"$T/fg.err"
	warned "$T/fg.err" "$_r" "$_w: flamegraph"
	no_names "$T/fg.svg" "$_w: flamegraph"
	ying pprof "$_d" -o "$T/p.pb.gz" 2>"$T/pp.err"
	warned "$T/pp.err" "$_r" "$_w: pprof"
	ying top "$T/p.pb.gz" >"$T/pp.top" 2>"$T/pp.top.err"
	no_names "$T/pp.top" "$_w: pprof read back"
	ying diff --folded "$_d" "$_d" >"$T/diff" 2>"$T/diff.err"
	grep 'warning' "$T/diff.err" | grep -F "$P" | grep -qF "$_r"
	ok $? "$_w: diff warns" || diag "$T/diff.err"
	no_names "$T/diff" "$_w: diff"
	# the build that ran, given with --binary: names, no warning
	ying top --binary "$T/orig" "$_d" >"$T/ok.top" 2>"$T/ok.err"
	is "$(cat "$T/ok.err")" "" "$_w: --binary ORIGINAL: no warning"
	grep -q 'leaf_alloc (bin_changed.c' "$T/ok.top" && grep -q 'top_alloc' "$T/ok.top"
	ok $? "$_w: --binary ORIGINAL: the right names" || diag "$T/ok.top"
	! grep -Eq 'bc_new_|bc_filler' "$T/ok.top"
	ok $? "$_w: --binary ORIGINAL: nothing of the new build"
	# an unrelated --binary: its own warning, not used
	ying top --binary /bin/true "$_d" >"$T/bad.top" 2>"$T/bad.err"
	is "$(grep -c warning "$T/bad.err")" 1 "$_w: --binary /bin/true: one warning" ||
	    diag "$T/bad.err"
	grep -q -- '--binary /bin/true does not match' "$T/bad.err"
	ok $? "$_w: --binary /bin/true: the warning says it does not match" || diag "$T/bad.err"
	no_names "$T/bad.top" "$_w: --binary /bin/true"
}

# ---- 1. rebuilt at the same path: a new inode on the same device ----------
cp "$T/orig" "$P"
dump "$T/d1.heap"
ok $? "dump the first build" || diag "$T/prog.out"
ying top "$T/d1.heap" >"$T/t1" 2>"$T/t1.err"
grep -q 'leaf_alloc (bin_changed.c' "$T/t1" && [ ! -s "$T/t1.err" ]
ok $? "before the rebuild: right names, no warning" || diag "$T/t1" "$T/t1.err"
i1=$(ino "$P")
ln "$P" "$T/held"      # keeps the old inode in use, so the new file gets another
build -DBIN_CHANGED_SHIFT -o "$P"
[ "$(ino "$P")" != "$i1" ]
ok $? "the rebuild made a new inode"
check "$T/d1.heap" "replaced since the dump: inode $i1 in the dump" "new inode"

# ---- 2. edited in place (same inode), file time after the dump -----------
put "$T/orig"
dump "$T/d2.heap"
touch -d '5 minutes ago' "$T/d2.heap"
i2=$(ino "$P")
cp "$T/new" "$P"
is "$(ino "$P")" "$i2" "cp over the program keeps its inode"
check "$T/d2.heap" "modified after the dump was taken" "file time"

# ---- 3. ying's own dump carries build IDs: `ying run`, then a rebuild that
# keeps inode and an old file time --------------------------------------------
put "$T/orig"
R="$T/reports"
"$YING" run -q --dump-signal USR2 --interval 0 --report-dir "$R" --sample 0 -- \
    "$P" -wait >"$T/run.out" 2>"$T/run.err" &
rp=$!
bg_pids="$bg_pids $rp"
wait_for 20 grep -q '^ready' "$T/run.out"
ok $? "the program runs under ying run" || diag "$T/run.err"
kill -USR2 "$rp"
wait_for 20 sh -c "ls '$R'/*.report"
ok $? "a report set was written" || diag "$T/run.err"
kill -TERM "$rp"
wait "$rp"
H=$(ls "$R"/*.heap | head -n 1)
grep -q "^ying-build-id: [0-9a-f]* $(bid "$T/orig")\$" "$H"
ok $? "the report's .heap carries the program's build ID" || grep -A3 MAPPED "$H" | sed 's/^/#   /'
# jeprof still reads it, with the same total as ying
jt=$(JEPROF_TMPDIR="$T" timeout 300 jeprof --text --show_bytes "$P" "$H" 2>"$T/jeprof.err" |
    sed -n 's/^Total: \([0-9]*\) .*/\1/p')
yt=$(ying top "$H" --json | python3 -c 'import json,sys; print(round(json.load(sys.stdin)["total"]))')
near_jeprof "$yt" "$jt" "$H"
ok $? "jeprof reads the .heap with build-id lines (total $jt, ying's $yt, within half a byte per stack)"
cp "$T/new" "$P" && touch -d '10 minutes ago' "$P"
is "$(ino "$P")" "$i2" "same inode, old file time: only the build ID tells"
check "$H" "build ID $(bid "$T/orig") in the dump, $(bid "$T/new") in the file" "ying dump"

# ---- 4. a pprof profile whose mappings carry build IDs (no functions) -------
python3 - "$H" "$T/bid.pb" <<'PY'
import re, sys, time
heap, out = sys.argv[1], sys.argv[2]
def varint(v):
    b = bytearray()
    while True:
        x = v & 0x7f
        v >>= 7
        b.append(x | (0x80 if v else 0))
        if not v:
            return bytes(b)
def field(n, v):            # varint field
    return varint(n << 3) + varint(v)
def ld(n, data):            # length-delimited field
    return varint(n << 3 | 2) + varint(len(data)) + data
strings = [""]
def s(x):
    if x not in strings:
        strings.append(x)
    return strings.index(x)
lines = open(heap).read().split("\n")
stacks, maps, bids = [], [], {}
i = 0
while i < len(lines):
    l = lines[i]
    if l.startswith("@"):
        addrs = [int(a, 16) for a in l.split()[1:]]
        m = re.match(r"\s*t\*: (\d+): (\d+)", lines[i + 1])
        stacks.append((addrs, int(m.group(1)), int(m.group(2))))
    m = re.match(r"([0-9a-f]+)-([0-9a-f]+) (....) ([0-9a-f]+) \S+ \d+\s+(/\S+)$", l)
    if m:
        maps.append((int(m.group(1), 16), int(m.group(2), 16), m.group(3), int(m.group(4), 16), m.group(5)))
    m = re.match(r"ying-build-id: ([0-9a-f]+) ([0-9a-f]+)$", l)
    if m:
        bids[int(m.group(1), 16)] = m.group(2)
    i += 1
first = {}
for (lo, hi, perm, off, path) in maps:
    first.setdefault(path, lo)
exe = [m for m in maps if "x" in m[2]]
exe.sort(key=lambda m: not m[4].endswith("/prog"))       # main binary first
pb = ld(1, field(1, s("inuse_objects")) + field(2, s("count")))
pb += ld(1, field(1, s("inuse_space")) + field(2, s("bytes")))
for k, (lo, hi, perm, off, path) in enumerate(exe):
    bid = bids.get(first[path], "")
    pb += ld(3, field(1, k + 1) + field(2, lo) + field(3, hi) + field(4, off) +
             field(5, s(path)) + (field(6, s(bid)) if bid else b""))
locs = {}
for addrs, objs, byts in stacks:
    for a in addrs:
        if a not in locs:
            locs[a] = len(locs) + 1
            mid = next((k + 1 for k, m in enumerate(exe) if m[0] <= a < m[1]), 0)
            pb += ld(4, field(1, locs[a]) + (field(2, mid) if mid else b"") + field(3, a))
for addrs, objs, byts in stacks:
    ids = b"".join(varint(locs[a]) for a in addrs)
    vals = varint(objs) + varint(byts)
    pb += ld(2, ld(1, ids) + ld(2, vals))
for x in strings:
    pb += ld(6, x.encode())
pb += field(9, int(time.time()) * 10**9)
pb += ld(11, field(1, s("space")) + field(2, s("bytes")))
pb += field(12, 1)
open(out, "wb").write(pb)
PY
ok $? "write a pprof profile with Mapping.build_id and bare addresses"
ying top "$T/bid.pb" >"$T/pb.top" 2>"$T/pb.err"
ok $? "ying top reads it"
warned "$T/pb.err" "build ID $(bid "$T/orig") in the dump, $(bid "$T/new") in the file" "pprof"
no_names "$T/pb.top" "pprof"
ying top --binary "$T/orig" "$T/bid.pb" >"$T/pb.ok" 2>"$T/pb.ok.err"
is "$(cat "$T/pb.ok.err")" "" "pprof: --binary ORIGINAL: no warning"
grep -q 'leaf_alloc (bin_changed.c' "$T/pb.ok"
ok $? "pprof: --binary ORIGINAL: the right names" || diag "$T/pb.ok"

# ---- 5. call sites only: the dump looks as if from another machine (its
# device rewritten, so the inode says nothing) and the file times are old --
put "$T/orig"
dump "$T/d5.heap"
sed 's/^\([0-9a-f]*-[0-9a-f]* .... [0-9a-f]*\) [0-9a-f]*:[0-9a-f]* /\1 ff:7e /' \
    "$T/d5.heap" >"$T/d5x.heap"
grep -q " ff:7e .*$P\$" "$T/d5x.heap"
ok $? "the copied dump names another device"
build -DBIN_CHANGED_SHIFT -o "$P" && touch -d '10 minutes ago' "$P"
check "$T/d5x.heap" "sampled return addresses follow a call instruction" "call sites"

# ---- --binary is never silently ignored: a dump without a main executable
# (its lines removed) has no mapping to use it for ---------------------------
grep -v " $P\$" "$T/d1.heap" >"$T/nomain.heap"
ying top --binary "$T/orig" "$T/nomain.heap" >/dev/null 2>"$T/nomain.err"
grep -q -- "--binary $T/orig is not used: the dump maps no main executable" "$T/nomain.err"
ok $? "--binary that no mapping uses: a warning" || diag "$T/nomain.err"

# ---- a search path (--binary-path, $YING_BINARY_PATH) points at the build
# that ran, for any mapped file: DIR/BASENAME or DIR/FULL/PATH -------------
mkdir -p "$T/bp" "$T/root$(dirname "$P")" "$T/badp"
cp "$T/orig" "$T/bp/prog" && cp "$T/orig" "$T/root$P" && cp /bin/true "$T/badp/prog"
ying top --binary-path "$T/nothing:$T/bp" "$T/d1.heap" >"$T/bp.top" 2>"$T/bp.err"
is "$(cat "$T/bp.err")" "" "--binary-path DIR/BASENAME: no warning"
grep -q 'leaf_alloc (bin_changed.c' "$T/bp.top" && ! grep -Eq 'bc_new_|bc_filler' "$T/bp.top"
ok $? "--binary-path DIR/BASENAME: the right names" || diag "$T/bp.top"
YING_BINARY_PATH="$T/root" ying folded "$T/d1.heap" >"$T/bp.folded" 2>"$T/bp2.err"
is "$(cat "$T/bp2.err")" "" "YING_BINARY_PATH=ROOT (ROOT/full/path): no warning"
grep -q 'leaf_alloc' "$T/bp.folded" && ! grep -Eq 'bc_new_|bc_filler' "$T/bp.folded"
ok $? "YING_BINARY_PATH=ROOT: the right names" || diag "$T/bp.folded"
ying diff --folded --binary-path "$T/bp" "$T/d1.heap" "$T/d1.heap" >"$T/bp.diff" 2>"$T/bp5.err"
is "$(grep -c warning "$T/bp5.err")" 0 "diff --binary-path: no warning" || diag "$T/bp5.err"
ying diff --folded "$T/d1.heap" "$T/d1.heap" 2>&1 >/dev/null | grep -q 'replaced since the dump'
ok $? "diff without --binary-path: the warning (the search path is what silenced it)"
ying top --binary-path "$T/badp" "$T/d1.heap" >"$T/bp.bad" 2>"$T/bp3.err"
is "$(grep -c warning "$T/bp3.err")" 1 "--binary-path with an unrelated file: one warning" ||
    diag "$T/bp3.err"
grep -q "the search path's $T/badp/prog does not match" "$T/bp3.err"
ok $? "--binary-path with an unrelated file: the warning names it" || diag "$T/bp3.err"
no_names "$T/bp.bad" "--binary-path with an unrelated file"
ying top --binary-path "$T/nothing" "$T/d1.heap" >"$T/bp.none" 2>"$T/bp4.err"
grep -q "replaced since the dump" "$T/bp4.err"
ok $? "--binary-path without the file: the dump's path, checked as before" || diag "$T/bp4.err"
no_names "$T/bp.none" "--binary-path without the file"

plan_done
