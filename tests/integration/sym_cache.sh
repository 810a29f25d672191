#!/bin/sh
# sym_cache.sh: the persistent symbol cache (src/lib/sym_cache.c) with real
# programs under MALLOC_CONF=prof:true and the real ying CLI.
#
# (1) top_basic's dump: `ying top` (and --lines) cold, warm and with
# YING_CACHE_DIR=off give byte-identical output; under strace the cold run
# opens libc's separate debug file (libc6-dbg) and the warm run does not.
# (2) A program rebuilt at the same path (new build ID) is named from the
# new build, not from the cached results of the old one.  (3) A split-debug
# program (objcopy --only-keep-debug, --strip-debug --add-gnu-debuglink)
# profiled without its .debug file has no file:line; once the .debug file
# is next to it, the same dump shows file:line (same build ID, another
# debug identity: the cached results are not reused).  Four concurrent cold
# runs sharing one new directory all print the right table and leave a
# cache the next run is served from.  The agent (`ying run` writing growth
# reports) saves entries of its own.
. "$YING_SRCDIR/tests/integration/top_lib.sh"

need cc strace objcopy readelf pkg-config cmp
C="$T/cache"
YING_CACHE_DIR="$C"
export YING_CACHE_DIR
CONF=prof:true,lg_prof_sample:0
bid() { readelf -n "$1" | sed -n 's/.*Build ID: *//p'; }

# ---- (1) cold, warm, off; no separate debug file on the warm run
run_prog "$CONF" "$PROGS/top_basic" "$T/basic.heap"
ok $? "top_basic writes a dump" || exit 1
LIBC=$(sed -n 's|.* \(/[^ ]*/libc\.so\.6\)$|\1|p' "$T/basic.heap" | head -n 1)
B=$(bid "$LIBC")
DBG="/usr/lib/debug/.build-id/$(echo "$B" | cut -c1-2)/$(echo "$B" | cut -c3-).debug"
test -n "$B" && test -f "$DBG"
ok $? "libc's separate debug file is installed (libc6-dbg): $DBG" || exit 1

# traced OUT CMD...: CMD under strace, its openat/open calls in OUT.  In the
# ASan build LeakSanitizer cannot run under ptrace and would fail the run.
traced() {
	_o=$1
	shift
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -f -o "$_o" -e trace=openat,open timeout 60 "$@"
}

YING_CACHE_DIR=off ying top "$T/basic.heap" >"$T/off.txt" 2>"$T/off.err"
ok $? "ying top with YING_CACHE_DIR=off"
traced "$T/cold.st" "$YING" top "$T/basic.heap" \
    >"$T/cold.txt" 2>"$T/cold.err"
ok $? "ying top cold (under strace)"
traced "$T/warm.st" "$YING" top "$T/basic.heap" \
    >"$T/warm.txt" 2>"$T/warm.err"
ok $? "ying top warm (under strace)"
cmp -s "$T/off.txt" "$T/cold.txt"
ok $? "cold output is byte-identical to YING_CACHE_DIR=off" || diag "$T/cold.txt"
cmp -s "$T/cold.txt" "$T/warm.txt"
ok $? "warm output is byte-identical to cold" || diag "$T/warm.txt"
cmp -s "$T/off.err" "$T/warm.err"
ok $? "same warnings warm and off" || diag "$T/warm.err"
grep -qF "$DBG" "$T/cold.st"
ok $? "the cold run opens libc's separate debug file" || diag "$T/cold.st"
! grep -qF "$DBG" "$T/warm.st"
ok $? "the warm run does not open it" || grep -F "$DBG" "$T/warm.st" | sed 's/^/#   /'
ls "$C/$B".*.sym >/dev/null 2>&1
ok $? "libc's results are saved as $B.<ying's identity>.sym"
YING_CACHE_DIR=off ying top --lines "$T/basic.heap" >"$T/off.lines" 2>/dev/null
ying top --lines "$T/basic.heap" >"$T/warm.lines" 2>/dev/null
cmp -s "$T/off.lines" "$T/warm.lines" && grep -q 'top_basic\.c:[0-9]' "$T/warm.lines"
ok $? "top --lines warm: identical to off, with file:line" || diag "$T/warm.lines"

# ---- concurrent writers share one directory: every output right, no
# temporary left, and what they wrote serves the next run
C2="$T/cache2"
for i in 1 2 3 4; do
	YING_CACHE_DIR="$C2" timeout 60 "$YING" top "$T/basic.heap" >"$T/par$i.txt" 2>&1 &
done
wait
n=0
for i in 1 2 3 4; do cmp -s "$T/off.txt" "$T/par$i.txt" && n=$((n + 1)); done
is "$n" 4 "4 concurrent cold runs on one new directory: all outputs right"
is "$(ls -A "$C2" | grep -c '\.tmp$')" 0 "no temporary file left behind"
traced "$T/par.st" env YING_CACHE_DIR="$C2" "$YING" top "$T/basic.heap" >"$T/par.txt" 2>&1
cmp -s "$T/off.txt" "$T/par.txt" && ! grep -qF "$DBG" "$T/par.st"
ok $? "the next run is served from what they wrote" || diag "$T/par.txt"

# ---- the agent (libying-agent.so under `ying run`) uses the cache too,
# with entries of its own (another object: another resolver identity)
ids() { ls "$C" | sed -n 's/^[0-9a-f]*\.\([0-9a-f]\{16\}\)\.sym$/\1/p' | sort -u; }
ids >"$T/ids.cli"
AGENT_GROW_WAIT=1 timeout 60 "$YING" run --interval 1 --report-dir "$T/reports" --sample 14 \
    -- "$PROGS/agent_grow" 2 30 300 3000 >"$T/run.out" 2>&1
ok $? "ying run writes growth reports" || diag "$T/run.out"
ls "$T/reports" | grep -q '\.report$'
ok $? "at least one report set" || diag "$T/run.out"
ids | grep -vxF -f "$T/ids.cli" >"$T/ids.agent"
is "$(wc -l <"$T/ids.agent")" 1 "the agent saved its results under a resolver identity of its own"

# ---- (2) rebuilt at the same path
SRC="$YING_SRCDIR/tests/programs/bin_changed.c"
JEM=$(pkg-config --cflags --libs jemalloc)
P="$T/prog"
build() {
	# shellcheck disable=SC2086
	cc -g -O0 -fno-omit-frame-pointer "$@" "$SRC" $JEM
}
build -o "$P" && build -DBIN_CHANGED_SHIFT -o "$T/new"
ok $? "build bin_changed twice (the second renames its functions)" || exit 1
MALLOC_CONF=$CONF timeout 60 "$P" "$T/d1.heap" >/dev/null 2>&1
ying top "$T/d1.heap" >"$T/d1.txt" 2>&1
grep -q 'leaf_alloc' "$T/d1.txt"
ok $? "the first build is named (and cached)" || diag "$T/d1.txt"
OLD=$(bid "$P")
cp "$T/new" "$P"
MALLOC_CONF=$CONF timeout 60 "$P" "$T/d2.heap" >/dev/null 2>&1
test "$(bid "$P")" != "$OLD" && ls "$C/$OLD".*.sym >/dev/null 2>&1
ok $? "the rebuild has another build ID; the old one's results are on disk"
ying top "$T/d2.heap" >"$T/d2.txt" 2>&1
YING_CACHE_DIR=off ying top "$T/d2.heap" >"$T/d2.off" 2>&1
cmp -s "$T/d2.txt" "$T/d2.off" && grep -q 'bc_new_leaf' "$T/d2.txt"
ok $? "the rebuilt program is named from the new build (as with the cache off)" ||
    diag "$T/d2.txt"

# ---- (3) split debug info installed later
mkdir -p "$T/split" "$T/stash"
build -o "$T/split/sp" &&
    (cd "$T/split" && objcopy --only-keep-debug sp sp.debug &&
     objcopy --strip-debug --add-gnu-debuglink=sp.debug sp && mv sp.debug "$T/stash/")
ok $? "a split-debug build, its .debug file put aside" || exit 1
MALLOC_CONF=$CONF timeout 60 "$T/split/sp" "$T/d3.heap" >/dev/null 2>&1
ying top --lines "$T/d3.heap" >"$T/d3a.txt" 2>&1
grep -q 'leaf_alloc' "$T/d3a.txt" && ! grep -q 'bin_changed\.c:' "$T/d3a.txt"
ok $? "without the .debug file: names from the symbol table, no file:line" ||
    diag "$T/d3a.txt"
mv "$T/stash/sp.debug" "$T/split/"
ying top --lines "$T/d3.heap" >"$T/d3b.txt" 2>&1
YING_CACHE_DIR=off ying top --lines "$T/d3.heap" >"$T/d3b.off" 2>&1
grep -q 'bin_changed\.c:[0-9]' "$T/d3b.txt" && cmp -s "$T/d3b.txt" "$T/d3b.off"
ok $? "with the .debug file installed: file:line (cached results not reused)" ||
    diag "$T/d3b.txt"

plan_done
