#!/bin/sh
# pprof_input_opts.sh: a pprof input honours the symbolization options like
# a heap_v2 dump does: allocator frames are trimmed (and kept with
# --keep-allocator-frames), --drop-frames drops frames, and --binary names
# the frames of a profile written --unsymbolized after its program moved;
# --unsymbolized output asks pprof to drop the allocator frames unless
# --keep-allocator-frames.
#
# tests/programs/flame_prog allocates 8 x 1 MiB in grow_cache (through
# malloc, i.e. jemalloc's frames) under lg_prof_sample:0, so every number is
# exact.  The pprof inputs are written by ying itself from that dump.
. "$YING_SRCDIR/tests/integration/top_lib.sh"

mkdir -p "$T/bin" "$T/moved"
cp "$YING_BUILDDIR/tests/programs/flame_prog" "$T/bin/flame_prog"
D="$T/flame.heap"
run_prog prof:true,lg_prof_sample:0 "$T/bin/flame_prog" "$D"
ok $? "flame_prog writes a dump at lg_prof_sample:0" || diag "$T/prog.out"

# A pprof that still has the allocator's frames.
ying pprof --keep-allocator-frames "$D" -o "$T/keep.pb.gz" 2>"$T/err"
ok $? "ying pprof --keep-allocator-frames" || diag "$T/err"
ying folded --keep-allocator-frames "$T/keep.pb.gz" >"$T/keep.folded" 2>"$T/err"
ok $? "ying folded --keep-allocator-frames reads it" || diag "$T/err"
grep ';main;grow_cache;' "$T/keep.folded" | grep -q jemalloc
ok $? "--keep-allocator-frames on a pprof: the jemalloc frames are there" || diag "$T/keep.folded"

# Read back without the option: trimmed like the dump.
ying folded "$T/keep.pb.gz" >"$T/trim.folded" 2>"$T/err"
ok $? "ying folded on that pprof" || diag "$T/err"
! grep -q 'jemalloc\|;malloc' "$T/trim.folded" && grep -q ';main;grow_cache 8388608$' "$T/trim.folded"
ok $? "without the option the allocator frames are trimmed: grow_cache leads with 8 MiB" ||
	diag "$T/trim.folded"
ying folded "$D" | grep ';main;' >"$T/dump.main"
grep ';main;' "$T/trim.folded" >"$T/pprof.main"
cmp -s "$T/dump.main" "$T/pprof.main"
ok $? "... and the stacks through main equal those of the dump itself" || diag "$T/pprof.main"

# --drop-frames on a pprof input.
ying folded --drop-frames '^grow_cache$' "$T/keep.pb.gz" >"$T/drop.folded" 2>"$T/err"
ok $? "ying folded --drop-frames on a pprof" || diag "$T/err"
! grep -q 'grow_cache' "$T/drop.folded" && grep -q ';main 83886[0-9]*$' "$T/drop.folded"
ok $? "--drop-frames '^grow_cache\$': its bytes land on main" || diag "$T/drop.folded"
ying top --drop-frames '(' "$T/keep.pb.gz" >/dev/null 2>"$T/err"
is "$?" 2 "a bad --drop-frames regex on a pprof input is a usage error"

# --unsymbolized: ying cannot trim, so the profile's drop_frames regex asks
# pprof to drop the allocator frames (it names the wrappers too, zmalloc
# among them); with --keep-allocator-frames there is no regex.
ying pprof --unsymbolized --no-gzip "$D" -o "$T/ur.pb" 2>"$T/err"
ok $? "ying pprof --unsymbolized --no-gzip" || diag "$T/err"
grep -aq zmalloc "$T/ur.pb"
ok $? "--unsymbolized: a drop_frames regex naming the allocator wrappers"
ying pprof --unsymbolized --no-gzip --keep-allocator-frames "$D" -o "$T/urk.pb" 2>"$T/err"
ok $? "ying pprof --unsymbolized --keep-allocator-frames" || diag "$T/err"
! grep -aq zmalloc "$T/urk.pb"
ok $? "--unsymbolized --keep-allocator-frames: no drop_frames regex"

# --binary: an unsymbolized pprof whose program moved after the dump.
ying pprof --unsymbolized "$D" -o "$T/u.pb.gz" 2>"$T/err"
ok $? "ying pprof --unsymbolized" || diag "$T/err"
mv "$T/bin/flame_prog" "$T/moved/flame_prog"
ying folded "$T/u.pb.gz" >"$T/nobin.folded" 2>"$T/err"
! grep -q 'grow_cache' "$T/nobin.folded"
ok $? "the program moved: without --binary no grow_cache" || diag "$T/nobin.folded"
ying folded --binary "$T/moved/flame_prog" "$T/u.pb.gz" >"$T/bin.folded" 2>"$T/err"
ok $? "ying folded --binary on the unsymbolized pprof" || diag "$T/err"
grep -q ';main;grow_cache 8388608$' "$T/bin.folded"
ok $? "--binary names grow_cache (8 MiB, allocator frames trimmed)" || diag "$T/bin.folded"

plan_done
