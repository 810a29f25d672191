#!/bin/sh
# rust_layers.sh: Rust's standard allocation layers are trimmed.
#
# tests/rust/layers/main.rs grows a Vec by push, a HashMap, Strings, Boxes,
# a BTreeMap, Arcs and Rcs, and copies slices (to_vec, clone, extend), each
# in its own function.  Built here with plain rustc (no crates; the global
# allocator is the system malloc, the jemalloc it links with -l jemalloc):
# Debian's /usr/bin/rustc 1.63 (legacy names: alloc::raw_vec::RawVec<T,A>::
# grow_amortized, alloc::vec::Vec<T,A>::push) at -O, and rustup's current
# rustc when there is one ($YING_RUSTC_NEW, default the rustc in PATH:
# v0 names such as <alloc::raw_vec::RawVecInner>::finish_grow,
# hashbrown::raw::alloc::inner::do_alloc) at -O and at opt-level 0.  Each
# function must lead every stack it is in, and no layer any stack, in top,
# folded, the flame graph, pprof, yingdiff and sql (layers_lib.sh).
. "$YING_SRCDIR/tests/integration/top_lib.sh"
. "$YING_SRCDIR/tests/integration/layers_lib.sh"
need rustc

SRC="$YING_SRCDIR/tests/rust/layers/main.rs"
FUNCS="layers::push_events layers::build_session layers::write_journal layers::box_sessions \
layers::btree_index layers::share_sessions layers::copy_buffers"
# a leading frame in alloc, core, hashbrown or std's collections, or an
# impl of their traits for a primitive or generic type
LAYERS='^<*(alloc|hashbrown|core)::|^<*std::(collections|io|ffi|path|fs)::|^<(\[|str>|[A-Za-z_&]* as (alloc|core)::)|RawVec|__rust_|__rdl_'
NOTES="layers::push_events=Vec_growth layers::build_session=HashMap_growth
layers::write_journal=String_growth layers::box_sessions=Box layers::btree_index=BTreeMap_node
layers::share_sessions=Arc|Rc layers::copy_buffers=Vec_growth"
OLD=/usr/bin/rustc
[ -x "$OLD" ] || OLD=$(command -v rustc)
# the newer rustc: $YING_RUSTC_NEW, else the rustc first in PATH (rustup's
# ~/.cargo/bin comes first where rustup is installed; HOME is a scratch
# directory under make check)
NEW=${YING_RUSTC_NEW:-$(command -v rustc)}
if [ -z "${YING_RUSTC_NEW:-}" ] && ! "$NEW" --version >/dev/null 2>&1; then
	# rustup's proxy finds its toolchains through HOME: ask it, with the
	# user's real home, for the toolchain's own rustc (which needs none)
	real=$(getent passwd "$(id -u)" | cut -d: -f6)
	sr=$(HOME=$real "$NEW" --print sysroot 2>/dev/null) && NEW=$sr/bin/rustc
fi

variant() {
	_name=$1 _rustc=$2
	shift 2
	"$_rustc" --crate-name layers -g "$@" -l jemalloc -o "$T/$_name" "$SRC" >"$T/rc.err" 2>&1
	ok $? "$_name: $("$_rustc" --version) $* builds layers/main.rs" || { diag "$T/rc.err"; return; }
	layers_check "$_name" "$T/$_name" "$FUNCS" "$LAYERS" "$NOTES"
}

variant old-O "$OLD" -O
if [ -x "$NEW" ] && "$NEW" --version >/dev/null 2>&1 &&
    [ "$("$NEW" --version)" != "$("$OLD" --version)" ]; then
	variant new-O "$NEW" -O
	variant new-O0 "$NEW" -C opt-level=0
else
	ok 0 "# SKIP no second rustc ($NEW; set YING_RUSTC_NEW)"
fi

plan_done
