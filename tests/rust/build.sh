#!/bin/sh
# build.sh SRCDIR BUILDDIR: build the Rust programs of the test suite once
# per build tree, offline, with Debian's cargo and rustc, into
# BUILDDIR/tests/rust-build/bin:
#
#   rustsvc            tests/rust/svc, release, debug = 1 (line tables)
#   rustsvc-d2         the same with full debug info (-C debuginfo=2)
#   rustsvc-v0         the same with v0 symbol mangling
#   rustsvc-stripped   rustsvc without .symtab and debug info (strip)
#   ying-rust-example  examples/rust, linked against BUILDDIR/.libs/libying
#   rustffi            tests/rust/ffi, release: Rust over the _rjem_ jemalloc
#                      and a leaking C library (build.rs, Debian's cc crate)
#
# The crates are copied into BUILDDIR/tests/rust-build/src first (cargo writes
# Cargo.lock next to the manifest; the source tree may be read-only, as in
# `make distcheck`).  CARGO_HOME (with the source replacement to Debian's
# crate directory /usr/share/cargo/registry) and the target directory are
# in BUILDDIR too, so nothing outside the build tree is read or written
# and no network is used.  The variants share one target directory and so
# one build of jemalloc-sys's vendored jemalloc (the slow part, ~1.5 min):
# `cargo rustc -- FLAGS` only recompiles the final crate.
#
# Tests call it through rust_lib.sh under a lock (tests run in parallel);
# a stamp holding a digest of the sources and tools makes later calls
# instant.  YING_CARGO and YING_RUSTC replace /usr/bin/cargo and
# /usr/bin/rustc (Debian's, which the suite uses even when rustup's come
# first in PATH).  Exit status non-zero on any failure, the log in
# BUILDDIR/tests/rust-build/build.log.
set -eu
SRC=$1
OUT=$2/tests/rust-build
LIBDIR=$2/.libs
CARGO=${YING_CARGO:-/usr/bin/cargo}
RUSTC=${YING_RUSTC:-/usr/bin/rustc}

for t in "$CARGO" "$RUSTC"; do
	if [ ! -x "$t" ]; then
		echo "build.sh: $t is missing (Debian's cargo and rustc: run scripts/deps.sh)" >&2
		exit 1
	fi
done
if [ ! -d /usr/share/cargo/registry/jemalloc-sys-0.3.2 ]; then
	echo "build.sh: /usr/share/cargo/registry/jemalloc-sys-0.3.2 is missing" \
	    "(librust-jemalloc-sys-dev: run scripts/deps.sh)" >&2
	exit 1
fi

CRATES="tests/rust/jemallocator tests/rust/svc tests/rust/ffi examples/rust"
digest=$( {
	"$CARGO" --version
	"$RUSTC" --version
	cat "$SRC/tests/rust/build.sh"
	for c in $CRATES; do
		(cd "$SRC" && find "$c" -type f ! -name Cargo.lock | LC_ALL=C sort | while read -r f; do
			echo "$f"
			cat "$f"
		done)
	done
} | sha256sum | cut -d' ' -f1)
if [ -f "$OUT/stamp" ] && [ "$(cat "$OUT/stamp")" = "$digest" ] &&
    [ -x "$OUT/bin/ying-rust-example" ] && [ -x "$OUT/bin/rustffi" ]; then
	exit 0
fi
rm -f "$OUT/stamp"

mkdir -p "$OUT/bin" "$OUT/cargo-home"
rm -rf "$OUT/src"
for c in $CRATES; do
	mkdir -p "$OUT/src/$c"
	cp -R "$SRC/$c/." "$OUT/src/$c/"
done
chmod -R u+w "$OUT/src"
rm -f "$OUT"/src/*/*/Cargo.lock "$OUT"/src/*/*/*/Cargo.lock
cat >"$OUT/cargo-home/config.toml" <<CONF
# Written by tests/rust/build.sh: Debian's crates, offline.
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "/usr/share/cargo/registry"
[net]
offline = true
CONF

CARGO_HOME="$OUT/cargo-home"
# YING_RUST_TARGET_DIR shares one target directory between build trees
# (scripts/test.sh points the sanitizer and distcheck trees at the main
# build's, so the vendored jemalloc, keyed by cargo on its registry path,
# is built once).
CARGO_TARGET_DIR=${YING_RUST_TARGET_DIR:-$OUT/target}
export CARGO_HOME CARGO_TARGET_DIR RUSTC
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS RUSTC_WRAPPER RUSTC_WORKSPACE_WRAPPER \
    CARGO_BUILD_RUSTFLAGS CARGO_BUILD_TARGET CARGO_PROFILE_RELEASE_DEBUG \
    CARGO_PROFILE_RELEASE_STRIP RUSTDOCFLAGS || true
# make's jobserver descriptors are not open in a test (cargo and rustc would
# fail to get tokens): cargo runs its own, -j by the number of CPUs.
unset MAKEFLAGS MFLAGS MAKELEVEL CARGO_MAKEFLAGS || true
# cargo's own build of the example links libying from the build tree.
YING_LIBDIR="$LIBDIR"
export YING_LIBDIR

svc="$OUT/src/tests/rust/svc/Cargo.toml"
rel="$CARGO_TARGET_DIR/release"
cd "$OUT"
"$CARGO" build --release --manifest-path "$svc"
cp -f "$rel/rustsvc" bin/rustsvc
strip -o bin/rustsvc-stripped bin/rustsvc
"$CARGO" rustc --release --manifest-path "$svc" --bin rustsvc -- -C debuginfo=2
cp -f "$rel/rustsvc" bin/rustsvc-d2
"$CARGO" rustc --release --manifest-path "$svc" --bin rustsvc -- -C symbol-mangling-version=v0
cp -f "$rel/rustsvc" bin/rustsvc-v0
"$CARGO" build --release --manifest-path "$OUT/src/examples/rust/Cargo.toml"
cp -f "$rel/ying-rust-example" bin/ying-rust-example
"$CARGO" build --release --manifest-path "$OUT/src/tests/rust/ffi/Cargo.toml"
cp -f "$rel/rustffi" bin/rustffi
echo "$digest" >"$OUT/stamp"
