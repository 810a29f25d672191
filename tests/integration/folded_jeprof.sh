#!/bin/sh
# folded_jeprof.sh: `ying folded` on a real program, with the real jeprof
# --collapsed as the oracle.
#
# tests/programs/flame_prog allocates known amounts in named functions
# (8 MiB in grow_cache, 2 MiB in parse_input through the always_inline
# inline_alloc, 1 MiB at the bottom of six nested recurse calls, 400 KiB of
# calloc in load_config) under MALLOC_CONF=prof:true,lg_prof_sample:0, where
# every allocation is sampled and every number is exact.  The stacks through
# main must be exactly jeprof's (once jeprof's nm "<address>" tags are
# removed), [inline] included; then the options: --lines, -i, -o,
# --keep-allocator-frames, --drop-frames, and the usage errors.
. "$YING_SRCDIR/tests/integration/top_lib.sh"

P="$YING_BUILDDIR/tests/programs/flame_prog"
SRC="$YING_SRCDIR/tests/programs/flame_prog.c"
D="$T/flame.heap"

run_prog prof:true,lg_prof_sample:0 "$P" "$D"
ok $? "flame_prog writes a dump at lg_prof_sample:0" || diag "$T/prog.out"

ying folded "$D" >"$T/ying.folded" 2>"$T/ying.err"
ok $? "ying folded succeeds" || diag "$T/ying.err"

grep -q ';main;grow_cache 8388608$' "$T/ying.folded"
ok $? "grow_cache: 8 x 1 MiB" || diag "$T/ying.folded"
grep -q ';main;parse_input;inline_alloc\[inline\] 2097152$' "$T/ying.folded"
ok $? "parse_input with the inlined inline_alloc marked [inline]" || diag "$T/ying.folded"
grep -q ';main;recurse;recurse;recurse;recurse;recurse;recurse 1048576$' "$T/ying.folded"
ok $? "six nested recurse frames, root first" || diag "$T/ying.folded"
grep -q ';main;load_config 409600$' "$T/ying.folded"
ok $? "load_config: calloc trimmed as an allocator frame" || diag "$T/ying.folded"
LC_ALL=C sort -c -u "$T/ying.folded" 2>/dev/null
ok $? "lines are unique and in byte order"

# The oracle: jeprof --collapsed, program stacks only (ld.so's own
# allocations are named by nm guesses in jeprof), tags removed.
JEPROF_TMPDIR="$T/jeprof-tmp" timeout 300 jeprof --collapsed "$P" "$D" >"$T/jeprof.raw" 2>"$T/jeprof.err"
ok $? "jeprof --collapsed runs" || diag "$T/jeprof.err"
sed 's/<[0-9a-f]*>//g' "$T/jeprof.raw" | grep ';main;' | LC_ALL=C sort >"$T/jeprof.main"
grep ';main;' "$T/ying.folded" | LC_ALL=C sort >"$T/ying.main"
test -s "$T/jeprof.main" && cmp -s "$T/jeprof.main" "$T/ying.main"
ok $? "stacks through main and their values equal jeprof --collapsed" ||
	{ echo "# jeprof:"; diag "$T/jeprof.main"; echo "# ying:"; diag "$T/ying.main"; }

ying folded -i inuse_objects "$D" >"$T/objs.folded" 2>/dev/null
grep -q ';main;grow_cache 8$' "$T/objs.folded" && grep -q ';main;parse_input;inline_alloc\[inline\] 32$' "$T/objs.folded"
ok $? "-i inuse_objects counts objects" || diag "$T/objs.folded"

ying folded --lines "$D" >"$T/lines.folded" 2>/dev/null
L=$(grep -n 'keep\[nkeep++\] = malloc(1 << 20);' "$SRC" | head -n 1 | cut -d: -f1)
grep -q ";main (.*flame_prog.c:[0-9]*);grow_cache (.*flame_prog.c:$L) 8388608\$" "$T/lines.folded"
ok $? "--lines names the allocating line of grow_cache (flame_prog.c:$L)" || diag "$T/lines.folded"
L=$(grep -n 'return malloc(n);' "$SRC" | head -n 1 | cut -d: -f1)
grep -q "inline_alloc\[inline\] (.*flame_prog.c:$L) 2097152\$" "$T/lines.folded"
ok $? "--lines: the inlined frame has its own line (flame_prog.c:$L)" || diag "$T/lines.folded"

ying folded -o "$T/out.folded" "$D" >"$T/stdout" 2>/dev/null
ok $? "-o FILE succeeds"
cmp -s "$T/out.folded" "$T/ying.folded" && ! test -s "$T/stdout"
ok $? "-o FILE writes the same text, nothing on stdout"

ying folded --keep-allocator-frames "$D" >"$T/keep.folded" 2>/dev/null
grep ";main;grow_cache;" "$T/keep.folded" | grep -q "jemalloc"
ok $? "--keep-allocator-frames keeps the jemalloc frames" || diag "$T/keep.folded"

ying folded --drop-frames '^grow_cache$' "$D" >"$T/drop.folded" 2>/dev/null
! grep -q 'grow_cache' "$T/drop.folded" && grep -q ';main 83886[0-9]*$' "$T/drop.folded"
ok $? "--drop-frames trims matching leaf frames too" || diag "$T/drop.folded"

ying folded "$T/no-such.heap" >/dev/null 2>"$T/err"
is "$?" 1 "a missing dump exits 1"
ying folded -i bogus "$D" >/dev/null 2>&1
is "$?" 2 "a bad sample index exits 2"
ying folded >/dev/null 2>&1
is "$?" 2 "no dump exits 2"
ying folded -i alloc_space "$D" >/dev/null 2>"$T/err"
is "$?" 1 "alloc_space on a dump without prof_accum exits 1"
grep -q 'prof_accum' "$T/err"
ok $? "and says prof_accum is needed" || diag "$T/err"

plan_done
