#!/bin/sh
# sym_forged.sh: the persistent symbol cache cannot be poisoned by a forged
# copy of a binary (src/lib/sym_cache.c binds an entry to the file it was
# made from: device, inode, size, mtime, ctime).
#
# tests/programs/bin_changed.c is built without DWARF (names come from the
# symbol table).  Another user's copy keeps the build ID (objcopy
# --redefine-sym only rewrites .strtab) and renames the allocating
# functions to forge_*, names of the same length, and runs it.  Root runs
# `ying top` once on her dump, which maps the copy (the entry for that build ID is saved from
# it), then on the real program's dump: the real names must be printed,
# exactly as with the cache off.  Looking at the copy again names the copy's
# functions (an entry never answers for another file, in either direction).
. "$YING_SRCDIR/tests/integration/top_lib.sh"

need cc objcopy readelf pkg-config cmp setpriv
C="$T/cache"
YING_CACHE_DIR="$C"
export YING_CACHE_DIR
CONF=prof:true,lg_prof_sample:0
bid() { readelf -n "$1" | sed -n 's/.*Build ID: *//p'; }

chmod 755 "$T"   # the other user reaches her directory and reads the program
mkdir -p "$T/real" "$T/evil"
chmod 755 "$T/real"
chown 65534:65534 "$T/evil"
# shellcheck disable=SC2046
cc -g0 -O0 -fno-omit-frame-pointer -o "$T/real/prog" \
    "$YING_SRCDIR/tests/programs/bin_changed.c" $(pkg-config --cflags --libs jemalloc)
ok $? "build bin_changed without DWARF" || exit 1
# the copy is made by the other user (uid 65534), in her directory
setpriv --reuid=65534 --regid=65534 --clear-groups sh -c '
    cp "$1/real/prog" "$1/evil/prog" &&
    objcopy --redefine-sym leaf_alloc=forge_leaf --redefine-sym mid_alloc=forge_mid \
        --redefine-sym top_alloc=forge_top "$1/evil/prog"' sh "$T"
ok $? "another user's copy with renamed functions" || exit 1
B=$(bid "$T/real/prog")
test -n "$B" && test "$(bid "$T/evil/prog")" = "$B" &&
    test "$(stat -c %u "$T/evil/prog")" = 65534
ok $? "the copy keeps the build ID $B (and belongs to uid 65534)" || exit 1

MALLOC_CONF=$CONF timeout 60 "$T/real/prog" "$T/real.heap" >/dev/null 2>&1
ok $? "the real program writes a dump" || exit 1
# she runs her copy: a dump that maps it (for root to look at)
setpriv --reuid=65534 --regid=65534 --clear-groups env MALLOC_CONF=$CONF \
    timeout 60 "$T/evil/prog" "$T/evil/evil.heap" >/dev/null 2>&1 &&
    grep -q "$T/evil/prog" "$T/evil/evil.heap"
ok $? "a dump that maps the copy" || exit 1
cp "$T/evil/evil.heap" "$T/evil.heap"

YING_CACHE_DIR=off ying top "$T/real.heap" >"$T/real.off" 2>&1
grep -q 'leaf_alloc' "$T/real.off" && ! grep -q 'forge_' "$T/real.off"
ok $? "cache off: the real program's names" || diag "$T/real.off"

ying top "$T/evil.heap" >"$T/evil1.txt" 2>&1
grep -q 'forge_leaf' "$T/evil1.txt"
ok $? "root looks at the copy once: the copy's names" || diag "$T/evil1.txt"
ls "$C/$B".*.sym >/dev/null 2>&1
ok $? "an entry for build ID $B is on disk"

ying top "$T/real.heap" >"$T/real1.txt" 2>&1
! grep -q 'forge_' "$T/real1.txt"
ok $? "then the real program's dump: no forged name" || diag "$T/real1.txt"
cmp -s "$T/real1.txt" "$T/real.off"
ok $? "... byte-identical to the cache off" || diag "$T/real1.txt"
ying top "$T/real.heap" >"$T/real2.txt" 2>&1
cmp -s "$T/real2.txt" "$T/real.off"
ok $? "a second (warm) run of the real dump: the same" || diag "$T/real2.txt"

ying top "$T/evil.heap" >"$T/evil2.txt" 2>&1
YING_CACHE_DIR=off ying top "$T/evil.heap" >"$T/evil.off" 2>&1
cmp -s "$T/evil2.txt" "$T/evil.off" && grep -q 'forge_leaf' "$T/evil2.txt"
ok $? "the copy again: its own names, not the real program's" || diag "$T/evil2.txt"

plan_done
