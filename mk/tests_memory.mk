# Where the RSS goes (issue 26, item 4): tests/programs/mem_gaps makes one
# gap between the heap profile and the RSS per mode (fragmentation, dirty
# pages, thread stacks, a file mapping, glibc's heap) and prints the truth
# it measured itself; memory_gaps.sh checks /debug/memory against it.
# memory_rust.sh: the same for a Rust service whose C library leaks over
# FFI (tests/rust/ffi, built by tests/rust/build.sh with the other crates).
# bench/memory.sh bench/heaps.sh: what the breakdown costs (issue 26, item 5).
check_PROGRAMS += tests/programs/mem_gaps
tests_programs_mem_gaps_SOURCES = tests/programs/mem_gaps.c
tests_programs_mem_gaps_CFLAGS = $(AGENT_PROG_CFLAGS)
tests_programs_mem_gaps_LDFLAGS =
tests_programs_mem_gaps_LDADD = $(DL_LIBS) $(PTHREAD_LIBS)
if ENABLE_HTTP
TESTS += tests/integration/memory_gaps.sh tests/integration/memory_rust.sh
# heaps_rust.sh: the Rust heap and its C code's malloc in one dump (issue 26, item 1)
TESTS += tests/integration/heaps_rust.sh
endif
EXTRA_DIST += tests/integration/memory_gaps.sh tests/integration/memory_gaps.py \
	tests/integration/memory_rust.sh tests/integration/heaps_rust.sh \
	tests/rust/ffi/Cargo.toml tests/rust/ffi/build.rs tests/rust/ffi/src/main.rs \
	tests/rust/ffi/src/leak.c \
	bench/memory.sh bench/heaps.sh
