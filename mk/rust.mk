# Rust: the test services (tests/rust), the Rust example (examples/rust)
# and their integration tests (tests/integration/rust_*.sh).  The crates are
# built by tests/rust/build.sh with Debian's cargo, offline, once per build
# tree (into tests/rust-build/ of the build tree, cached; the tests take a lock so
# parallel tests build once), when the first Rust test needs them, so that
# only these tests wait for cargo (and skip without it: fail with
# YING_REQUIRE_TOOLS=1).  `make rust-build`
# builds them ahead.
RUST_IT = tests/integration/rust_v0.sh
if ENABLE_HTTP
RUST_IT += tests/integration/rust_run.sh tests/integration/rust_example.sh \
	tests/integration/rust_stripped.sh
endif
TESTS += $(RUST_IT)
EXTRA_DIST += tests/integration/rust_lib.sh tests/integration/rust_run.sh \
	tests/integration/rust_v0.sh tests/integration/rust_example.sh \
	tests/integration/rust_stripped.sh \
	tests/rust/build.sh \
	tests/rust/jemallocator/Cargo.toml tests/rust/jemallocator/src/lib.rs \
	tests/rust/svc/Cargo.toml tests/rust/svc/src/main.rs \
	examples/rust/Cargo.toml examples/rust/build.rs examples/rust/src/main.rs \
	examples/rust/src/ying.rs

rust-build: libying.la libying-live.la
	$(MKDIR_P) tests/rust-build
	flock tests/rust-build/lock $(SHELL) $(srcdir)/tests/rust/build.sh \
	    '$(abs_top_srcdir)' '$(abs_top_builddir)'
.PHONY: rust-build

# The copies of the crates, cargo's home and target directory, the programs:
# kept by `make clean` (the vendored jemalloc takes minutes to build).
distclean-local: rust-clean
rust-clean:
	-rm -rf tests/rust-build
.PHONY: rust-clean
EXTRA_DIST += bench/rust.sh
