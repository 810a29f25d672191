#!/bin/sh
# sym_rust.sh: Rust programs built with Debian's rustc (/usr/bin/rustc, not
# whatever rustc comes first in PATH), run under the system jemalloc
# (LD_PRELOAD, MALLOC_CONF=prof:true), read by ying:
#   - v0 (-C symbol-mangling-version=v0) and legacy names are demangled, with
#     no hash and no crate disambiguator, in top, folded, the SVG and the
#     pprof (name demangled, system_name mangled: go tool pprof -raw);
#   - Rust frames get file:line and inline frames, with -C debuginfo=1 and 2;
#   - the program links a C object built with -ffunction-sections whose
#     unused empty functions leave empty entries in the middle of
#     .debug_aranges after --gc-sections (as jemalloc-sys's C does in a cargo
#     build): elfutils 0.188 rejects the whole section, so ying finds the
#     units from their own ranges, for the Rust and the C frames;
#   - a function whose DWARF has a bare name and no linkage name (what
#     line-tables-only debug info gives) but a mangled symbol is named after
#     the demangled symbol.
. "$YING_SRCDIR/tests/integration/top_lib.sh"
need cc go readelf grep
RUSTC=/usr/bin/rustc
if [ ! -x "$RUSTC" ]; then
	echo "not ok 1 - $RUSTC is missing (run scripts/deps.sh: Debian's rustc)"
	echo "1..1"
	exit 1
fi
JE=$(cc -print-file-name=libjemalloc.so.2)
if [ ! -f "$JE" ]; then
	echo "not ok 1 - libjemalloc.so.2 not found (run scripts/deps.sh)"
	echo "1..1"
	exit 1
fi
tool_homes "$T"

cat > "$T/cside.c" <<'SRC'
#include <stdlib.h>
void *volatile c_keep[128];
/* empty and unused: --gc-sections drops them and leaves (0, 0) entries
 * in the middle of this unit's .debug_aranges table */
void c_unused_a(void) { __builtin_unreachable(); }
__attribute__((noinline)) void c_side_alloc(int n)
{
	for (int i = 0; i < n; i++)
		c_keep[i] = malloc(65536);      /* C_LINE */
}
void c_unused_b(void) { __builtin_unreachable(); }
/* DWARF says "bare_name" with no linkage name (as line-tables-only debug
 * info does); the only global symbol at its address is a mangled name */
__attribute__((noinline)) static void bare_name(int n)
{
	for (int i = 0; i < n; i++)
		c_keep[64 + i] = malloc(32768);
}
void _ZN4ying9bare_name17h0123456789abcdefE(int n) __attribute__((alias("bare_name")));
void c_unused_c(void) { __builtin_unreachable(); }
SRC
cat > "$T/leak.rs" <<'SRC'
use std::collections::HashMap;
extern "C" {
    fn c_side_alloc(n: i32);
    #[link_name = "_ZN4ying9bare_name17h0123456789abcdefE"]
    fn bare(n: i32);
}
struct Cache { v: Vec<Vec<u8>> }
impl Cache {
    #[inline(never)]
    fn leak_entry(&mut self, n: usize) {
        self.v.push(vec![7u8; n]); // LEAK_LINE
    }
}
trait Grow { fn grow(&mut self, n: usize); }
struct Store<T> { m: HashMap<usize, Vec<T>> }
impl<T: Clone + Default> Grow for Store<T> {
    #[inline(never)]
    fn grow(&mut self, n: usize) {
        let k = self.m.len();
        self.m.insert(k, vec![T::default(); n]); // GROW_LINE
    }
}
fn main() {
    let mut c = Cache { v: Vec::new() };
    let mut s: Store<u64> = Store { m: HashMap::new() };
    let f = |c: &mut Cache, i: usize| c.leak_entry(i); // CLOSURE_LINE
    for _ in 0..64 { f(&mut c, 1 << 20); s.grow(1 << 14); }
    unsafe { c_side_alloc(64); bare(64); }
    println!("{} {}", c.v.len(), s.m.len());
    std::mem::forget(c);
    std::mem::forget(s);
}
SRC
line_of() { grep -n "$1" "$2" | head -n 1 | cut -d: -f1; }
LEAK_LINE=$(line_of LEAK_LINE "$T/leak.rs")
GROW_LINE=$(line_of GROW_LINE "$T/leak.rs")
CLOSURE_LINE=$(line_of CLOSURE_LINE "$T/leak.rs")
C_LINE=$(line_of C_LINE "$T/cside.c")

cc -O2 -g -ffunction-sections -c -o "$T/cside.o" "$T/cside.c"
ok $? "compile the C side (-O2 -g -ffunction-sections)"

# build NAME RUSTC-FLAGS...: leak.rs plus the C object, into $T/NAME
build() {
	b=$1
	shift
	"$RUSTC" --edition 2018 -O "$@" -C link-arg="$T/cside.o" -o "$T/$b" "$T/leak.rs" \
	    >"$T/$b.build" 2>&1
	ok $? "rustc $* builds $b" || diag "$T/$b.build"
}
# dump NAME: run $T/NAME under jemalloc's profiler, the final dump in $T/NAME.heap
dump() {
	rm -rf "$T/d"
	mkdir "$T/d"
	timeout 60 env LD_PRELOAD="$JE" \
	    MALLOC_CONF="prof:true,prof_final:true,lg_prof_sample:10,prof_prefix:$T/d/jeprof" \
	    "$T/$1" >"$T/$1.out" 2>&1
	ok $? "$1 runs under the profiler" || diag "$T/$1.out"
	mv "$T"/d/jeprof.*.heap "$T/$1.heap" 2>/dev/null
	test -s "$T/$1.heap"
	ok $? "$1 left its final dump"
}
# rows NAME: "function|file base|line|cum" per `ying top --lines --json` row
rows() {
	python3 - "$T/$1.json" <<'PY'
import json, os, sys
for r in json.load(open(sys.argv[1]))["rows"]:
    # the whole demangled name (what the symbolizer gives; "function" is
    # the short one, names_cxx.sh)
    print("%s|%s|%d|%d" % (r["full_name"], os.path.basename(r["file"]), r["line"], int(r["cum"])))
PY
}
# has NAME PATTERN WHAT: some row of NAME's top --lines matches the ERE
has() {
	grep -Eq -- "$2" "$T/$1.rows"
	ok $? "$1: $3" || { echo "#   no row matches: $2"; diag "$T/$1.rows"; }
}
hasnt() {
	grep -Eq -- "$2" "$T/$1.rows"
	ok $(( ! $? )) "$1: $3" || grep -E -- "$2" "$T/$1.rows" | head -n 5 | sed 's/^/#   /'
}

build v0_g2 -C debuginfo=2 -C symbol-mangling-version=v0
build v0_g1 -C debuginfo=1 -C symbol-mangling-version=v0
build legacy_g1 -C debuginfo=1
nm "$T/v0_g2" | grep -q ' _RNvMCs[0-9A-Za-z_]*_4leakNtB2_5Cache10leak_entry$'
ok $? "v0_g2: leak_entry's symbol is v0-mangled"
nm "$T/legacy_g1" | grep -Eq ' _ZN4leak5Cache10leak_entry17h[0-9a-f]{16}E$'
ok $? "legacy_g1: leak_entry's symbol is legacy-mangled, with a hash"
# the condition that breaks libdw's aranges: an empty entry before the end
# of the C unit's table
readelf --debug-dump=aranges "$T/v0_g1" 2>/dev/null | python3 -c '
import re, sys
pairs, mid = [], False
for l in sys.stdin.read().split("\n") + ["Offset into"]:
    if "Offset into" in l:
        # an empty (0, 0) entry before the last one of a table
        mid |= any(p == ("0" * 16, "0" * 16) for p in pairs[:-1])
        pairs = []
    m = re.match(r"^ +([0-9a-f]{16}) ([0-9a-f]{16})\s*$", l)
    if m:
        pairs.append(m.groups())
sys.exit(0 if mid else 1)'
ok $? "v0_g1's .debug_aranges has an empty entry in the middle of a table"

for b in v0_g2 v0_g1 legacy_g1; do
	dump "$b"
	ying top --lines --json -n 0 "$T/$b.heap" >"$T/$b.json" 2>"$T/$b.err"
	ok $? "$b: ying top --lines --json" || diag "$T/$b.err"
	rows "$b" >"$T/$b.rows"
	is "$(cat "$T/$b.err")" "" "$b: no warnings"
	case $b in
	v0_*)
		has "$b" "^<leak::Cache>::leak_entry\|leak.rs\|$LEAK_LINE\|" \
		    "<leak::Cache>::leak_entry (leak.rs:$LEAK_LINE)"
		has "$b" "^<leak::Store<u64> as leak::Grow>::grow\|leak.rs\|$GROW_LINE\|" \
		    "trait impl <leak::Store<u64> as leak::Grow>::grow (leak.rs:$GROW_LINE)"
		has "$b" "^leak::main::\{closure#0\}\|leak.rs\|$CLOSURE_LINE\|" \
		    "inlined closure leak::main::{closure#0} (leak.rs:$CLOSURE_LINE)"
		has "$b" '^<fn\(\) as core::ops::function::FnOnce<\(\)>>::call_once\|function.rs\|[1-9]' \
		    "frame from the standard library with its generic argument and line"
		hasnt "$b" '^alloc::vec::from_elem|::with_capacity_in\||SpecFromElem>::from_elem' \
		    "vec![x; n]'s layers above RawVec are trimmed (the caller leads)"
		hasnt "$b" '^_R|[^|]*\[[0-9a-f]{8,}\]|Cs[0-9A-Za-z]{5,}_' \
		    "no raw v0 name, no crate disambiguator"
		;;
	legacy_*)
		has "$b" "^leak::Cache::leak_entry\|leak.rs\|$LEAK_LINE\|" \
		    "leak::Cache::leak_entry (leak.rs:$LEAK_LINE)"
		has "$b" "^<leak::Store<T> as leak::Grow>::grow\|leak.rs\|$GROW_LINE\|" \
		    "<leak::Store<T> as leak::Grow>::grow (leak.rs:$GROW_LINE)"
		has "$b" "^leak::main::\{\{closure\}\}\|leak.rs\|$CLOSURE_LINE\|" \
		    "inlined closure leak::main::{{closure}} (leak.rs:$CLOSURE_LINE)"
		hasnt "$b" '^_ZN|::h[0-9a-f]{16}\|' "no raw legacy name, no hash"
		;;
	esac
	has "$b" "^c_side_alloc\|cside.c\|$C_LINE\|4194304$" "the C frame keeps file:line (cside.c:$C_LINE), 4 MiB"
	has "$b" '^ying::bare_name\|cside.c\|[1-9]' \
	    "a bare DWARF name with a mangled symbol takes the demangled symbol (ying::bare_name)"
	has "$b" '^leak::main\|leak.rs\|[1-9]' "leak::main with its line"
	# allocator functions inlined into the leading frame are trimmed like
	# allocator frames: no flat bytes on __rust_alloc, alloc::alloc::*, ...
	python3 - "$T/$b.json" >"$T/$b.flat" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["rows"]:
    if r["flat"] > 0:
        print(r["function"])
PY
	grep -Eq '^(__rust|__rdl|__rg|alloc::alloc::|<alloc::alloc::Global|<alloc::raw_vec::|alloc::raw_vec::)' "$T/$b.flat"
	ok $(( ! $? )) "$b: no flat bytes on an inlined allocator function" || diag "$T/$b.flat"
done

# the same names in folded, the SVG and the pprof
b=v0_g1
ying folded --lines "$T/$b.heap" >"$T/$b.folded" 2>"$T/$b.ferr"
ok $? "$b: ying folded --lines" || diag "$T/$b.ferr"
grep -Eq ";leak::main::\{closure#0\}\[inline\] \([^)]*/leak.rs:$CLOSURE_LINE\);<leak::Cache>::leak_entry \([^)]*/leak.rs:$LEAK_LINE\)[; ]" "$T/$b.folded"
ok $? "$b: folded stacks name the Rust frames with file:line" || diag "$T/$b.folded"
grep -Eq '(^|;)_R|Cs[0-9A-Za-z]{5,}_' "$T/$b.folded"
ok $(( ! $? )) "$b: folded has no raw v0 name"
ying flamegraph -o "$T/$b.svg" "$T/$b.heap" 2>"$T/$b.serr"
ok $? "$b: ying flamegraph" || diag "$T/$b.serr"
grep -Fq "&lt;leak::Cache&gt;::leak_entry" "$T/$b.svg"
ok $? "$b: the SVG names <leak::Cache>::leak_entry"
grep -Eq '_RNv|Cs[0-9A-Za-z]{5,}_' "$T/$b.svg"
ok $(( ! $? )) "$b: the SVG has no raw v0 name"
ying pprof -o "$T/$b.pb.gz" "$T/$b.heap" 2>"$T/$b.perr"
ok $? "$b: ying pprof" || diag "$T/$b.perr"
(cd "$T" && timeout 120 go tool pprof -raw "$b.pb.gz") >"$T/$b.raw" 2>"$T/$b.rerr"
ok $? "$b: go tool pprof -raw reads it" || diag "$T/$b.rerr"
grep -Eq "<leak::Cache>::leak_entry [^ ]*leak.rs:$LEAK_LINE s=[0-9]+\(_RNvMCs[0-9A-Za-z_]*_4leakNtB2_5Cache10leak_entry\)" "$T/$b.raw"
ok $? "$b: pprof name <leak::Cache>::leak_entry at leak.rs:$LEAK_LINE, system_name the v0 symbol" ||
    grep -F leak_entry "$T/$b.raw" | head -n 5 | sed 's/^/#   /'
(cd "$T" && timeout 120 go tool pprof -top "$b.pb.gz") >"$T/$b.gotop" 2>"$T/$b.gerr"
ok $? "$b: go tool pprof -top reads it" || diag "$T/$b.gerr"
awk '$1 != "0" && $6 != "" { sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, ""); print }' "$T/$b.gotop" |
    grep -Eq '^(__rust|alloc::alloc::|<alloc::alloc::Global|<alloc::raw_vec::)'
ok $(( ! $? )) "$b: the pprof trims the inlined allocator functions too (go tool pprof -top)" ||
    diag "$T/$b.gotop"
ying diff --folded "$T/$b.heap" "$T/$b.heap" >"$T/$b.dfolded" 2>"$T/$b.derr"
ok $? "$b: ying diff --folded" || diag "$T/$b.derr"
# short names (ying(1) FUNCTION NAMES): the generic argument goes
grep -Eq ";<leak::Cache>::leak_entry[; ]" "$T/$b.dfolded" &&
    grep -Fq ";<leak::Store as leak::Grow>::grow" "$T/$b.dfolded"
ok $? "$b: the diff names the Rust frames" || diag "$T/$b.dfolded"
ying diff --folded --full-names "$T/$b.heap" "$T/$b.heap" 2>/dev/null |
    grep -Fq ";<leak::Store<u64> as leak::Grow>::grow"
ok $? "$b: ying diff --folded --full-names keeps the generic argument"
grep -Eq '(^|;)_R|Cs[0-9A-Za-z]{5,}_' "$T/$b.dfolded"
ok $(( ! $? )) "$b: the diff has no raw v0 name"
b=legacy_g1
ying pprof -o "$T/$b.pb.gz" "$T/$b.heap" 2>"$T/$b.perr"
ok $? "$b: ying pprof" || diag "$T/$b.perr"
(cd "$T" && timeout 120 go tool pprof -raw "$b.pb.gz") >"$T/$b.raw" 2>"$T/$b.rerr"
ok $? "$b: go tool pprof -raw reads it" || diag "$T/$b.rerr"
grep -Eq "leak::Cache::leak_entry [^ ]*leak.rs:$LEAK_LINE s=[0-9]+\(_ZN4leak5Cache10leak_entry17h[0-9a-f]{16}E\)" "$T/$b.raw"
ok $? "$b: pprof name leak::Cache::leak_entry, system_name the legacy symbol with its hash" ||
    grep -F leak_entry "$T/$b.raw" | head -n 5 | sed 's/^/#   /'
plan_done
