# Tests of the lower families: base, model, read (heap_v2, URL input), sym
# (symbolizer, allocator trimming), the top table; the public header.

# Unit tests: one TAP program per module.
check_PROGRAMS += tests/unit/test_heap_parse tests/unit/test_top
tests_unit_test_heap_parse_SOURCES = tests/unit/test_heap_parse.c tests/unit/tap.h
tests_unit_test_heap_parse_LDADD = libying_live_core.la libying_core.la
tests_unit_test_top_SOURCES = tests/unit/test_top.c tests/unit/tap.h
tests_unit_test_top_LDADD = libying_live_core.la libying_core.la
TESTS += tests/unit/test_heap_parse tests/unit/test_top

# ---- symbolizer (sym_*.c, sym_trim.c): unit test and its profiled program --
check_PROGRAMS += tests/unit/test_symbolize tests/programs/sym_prog
tests_unit_test_symbolize_SOURCES = tests/unit/test_symbolize.c tests/unit/tap.h
tests_unit_test_symbolize_LDADD = libying_live_core.la libying_core.la $(PTHREAD_LIBS)
TESTS += tests/unit/test_symbolize
# demangling (sym_demangle.c, libiberty): C++, Rust legacy and v0, bad input
check_PROGRAMS += tests/unit/test_sym_demangle
tests_unit_test_sym_demangle_SOURCES = tests/unit/test_sym_demangle.c tests/unit/tap.h
tests_unit_test_sym_demangle_CFLAGS = $(AM_CFLAGS) $(LIBDW_CFLAGS)
tests_unit_test_sym_demangle_LDADD = libying_live_core.la libying_core.la $(DL_LIBS)
TESTS += tests/unit/test_sym_demangle
# the persistent symbol cache (sym_cache.c): round trip, damaged and
# doctored files, unusable directories, the size bound
check_PROGRAMS += tests/unit/test_sym_cache
tests_unit_test_sym_cache_SOURCES = tests/unit/test_sym_cache.c tests/unit/tap.h
tests_unit_test_sym_cache_CFLAGS = $(AM_CFLAGS) $(LIBDW_CFLAGS)
tests_unit_test_sym_cache_LDADD = libying_live_core.la libying_core.la $(PTHREAD_LIBS)
TESTS += tests/unit/test_sym_cache
# sym_prog links the system jemalloc.  Its objects are compiled by explicit
# rules so each keeps exactly its flags whatever the user's CFLAGS (and an
# --enable-sanitize build never brings ASan's malloc into it): -O0 -g, -O2 -g
# (an always_inline function inlined), no -g (symbol table only), and C++
# (system c++; no exceptions or RTTI, so no libstdc++ is linked).
SYM_PROG_CC = $(CC) -std=gnu11 -fno-omit-frame-pointer $(JEMALLOC_CFLAGS)
SYM_PROG_CXX = c++
SYM_PROG_OBJS = tests/programs/sym_main.o tests/programs/sym_inline.o \
	tests/programs/sym_nodebug.o tests/programs/sym_cxx.o
tests_programs_sym_prog_SOURCES =
tests_programs_sym_prog_CFLAGS = -g
tests_programs_sym_prog_LDFLAGS =
tests_programs_sym_prog_LDADD = $(SYM_PROG_OBJS) $(JEMALLOC_LIBS)
tests/programs/sym_main.o: tests/programs/sym_main.c
	@$(MKDIR_P) tests/programs
	$(AM_V_CC)$(SYM_PROG_CC) -g -O0 -c -o $@ $(srcdir)/tests/programs/sym_main.c
tests/programs/sym_inline.o: tests/programs/sym_inline.c
	@$(MKDIR_P) tests/programs
	$(AM_V_CC)$(SYM_PROG_CC) -g -O2 -c -o $@ $(srcdir)/tests/programs/sym_inline.c
tests/programs/sym_nodebug.o: tests/programs/sym_nodebug.c
	@$(MKDIR_P) tests/programs
	$(AM_V_CC)$(SYM_PROG_CC) -g0 -O0 -c -o $@ $(srcdir)/tests/programs/sym_nodebug.c
tests/programs/sym_cxx.o: tests/programs/sym_cxx.cc
	@$(MKDIR_P) tests/programs
	$(AM_V_CC)$(SYM_PROG_CXX) -g -O0 -fno-exceptions -fno-rtti -fno-omit-frame-pointer \
		-c -o $@ $(srcdir)/tests/programs/sym_cxx.cc
CLEANFILES += $(SYM_PROG_OBJS)
EXTRA_DIST += tests/programs/sym_main.c tests/programs/sym_inline.c \
	tests/programs/sym_nodebug.c tests/programs/sym_cxx.cc

# Integration: names for unexported functions of stripped libraries.
TESTS += tests/integration/sym_hidden.sh
EXTRA_DIST += tests/integration/sym_hidden.sh
# a stripped -O2 function with call sites in several unwind rows: one
# module+0xSTART row (sym_symtab.c's FDE starts)
TESTS += tests/integration/sym_unnamed.sh
EXTRA_DIST += tests/integration/sym_unnamed.sh tests/programs/sym_rows.c
# debug information by build ID from Debian's debuginfod on 127.0.0.1: the
# commands ask, the agent never does
TESTS += tests/integration/sym_debuginfod.sh
EXTRA_DIST += tests/integration/sym_debuginfod.sh
# the persistent symbol cache with the CLI: cold/warm/off identical, no
# separate debug file opened when warm, rebuilt and split-debug programs
TESTS += tests/integration/sym_cache.sh
EXTRA_DIST += tests/integration/sym_cache.sh bench/symcache.sh bench/symcache_warm.sh
# a forged copy of a binary (build ID kept, names changed) looked at once
# does not name the real binary later (entries bound to their file)
TESTS += tests/integration/sym_forged.sh
EXTRA_DIST += tests/integration/sym_forged.sh
# Integration: Rust programs (Debian's rustc; v0 and legacy names, lines,
# inline frames) linking C whose .debug_aranges elfutils 0.188 rejects.
TESTS += tests/integration/sym_rust.sh
EXTRA_DIST += tests/integration/sym_rust.sh
EXTRA_DIST += tests/data/README tests/data/heapgen.c tests/data/heap1.heap \
	tests/data/heap1.heap.gz tests/data/heap_accum.heap tests/data/heap_exact.heap

# The public header stands alone (C99, C11, C++) and the library exports
# only the public API.
TESTS += tests/integration/header.sh
EXTRA_DIST += tests/integration/header.sh tests/integration/tap.sh

# ---- the binary on disk changed since the dump: bin_changed.sh builds
# tests/programs/bin_changed.c twice itself (cc + jemalloc) --------------------
TESTS += tests/integration/bin_changed.sh
EXTRA_DIST += tests/integration/bin_changed.sh tests/programs/bin_changed.c

# URL input (read_url.c): ying_profile_read_url and `ying top http://...`.
# URL inputs end to end against the embedded endpoint (its test program
# needs --enable-http).
if ENABLE_HTTP
TESTS += tests/integration/cli_url.sh
endif
EXTRA_DIST += tests/integration/cli_url.sh
# ying_profile_read_url's requests and errors (loopback peers; needs libcurl).
if ENABLE_UPLOAD
check_PROGRAMS += tests/unit/test_fetch
tests_unit_test_fetch_SOURCES = tests/unit/test_fetch.c tests/unit/tap.h
tests_unit_test_fetch_LDADD = libying_live_core.la libying_core.la $(PTHREAD_LIBS)
TESTS += tests/unit/test_fetch
endif
# ying top URL and ying upload against a hostile server (issue 22): escaped
# server text, YING_MAX_MEMORY for bodies, the uploader's 64 KiB answer cap.
if ENABLE_UPLOAD
TESTS += tests/integration/fetch_hostile.sh
endif
EXTRA_DIST += tests/integration/fetch_hostile.sh tests/integration/hostile_http.py

# ---- short names (sym_short.c): the rule's table, adversarial input, the
# choice that keeps overloads and template instances apart
check_PROGRAMS += tests/unit/test_sym_short
tests_unit_test_sym_short_SOURCES = tests/unit/test_sym_short.c tests/unit/tap.h
tests_unit_test_sym_short_LDADD = libying_live_core.la libying_core.la
TESTS += tests/unit/test_sym_short

# ---- allocator wrappers (sym_trim.c): the built-in name list and its trimming --
check_PROGRAMS += tests/unit/test_trim
tests_unit_test_trim_SOURCES = tests/unit/test_trim.c tests/unit/tap.h tests/unit/drop_regex.h
tests_unit_test_trim_LDADD = libying_live_core.la libying_core.la
TESTS += tests/unit/test_trim
# the caller's own wrappers (ying_symbolize_opts.frames) and the wrapper hint
check_PROGRAMS += tests/unit/test_userframes
tests_unit_test_userframes_SOURCES = tests/unit/test_userframes.c tests/unit/tap.h
tests_unit_test_userframes_LDADD = libying_live_core.la libying_core.la
TESTS += tests/unit/test_userframes

# ---- the standard libraries' allocation layers (sym_layers.c): names, ----
# trimming, the drop_frames regex; and on real programs, built by the tests
# themselves: C++ with g++/libstdc++ and clang++/libc++, Rust with Debian's
# rustc and rustup's (layers_lib.sh: top, folded, flame graph, pprof, diff, sql)
check_PROGRAMS += tests/unit/test_layers
tests_unit_test_layers_SOURCES = tests/unit/test_layers.c tests/unit/tap.h tests/unit/drop_regex.h
tests_unit_test_layers_LDADD = libying_live_core.la libying_core.la
TESTS += tests/unit/test_layers
TESTS += tests/integration/layers_cxx.sh tests/integration/rust_layers.sh
EXTRA_DIST += tests/integration/layers_cxx.sh tests/integration/rust_layers.sh \
	tests/integration/layers_lib.sh tests/integration/pprof_leaf.py \
	tests/programs/layers_cxx.cc tests/rust/layers/main.rs
# sym_wrap.c's families and ying(1)'s ALLOCATOR FRAMES agree
TESTS += tests/integration/wrap_docs.sh
EXTRA_DIST += tests/integration/wrap_docs.sh

# The one-way chain of families and the front ends on the public API
# (docs/architecture.md): includes and, with nm, the objects' calls.
TESTS += tests/integration/layers.sh
EXTRA_DIST += tests/integration/layers.sh

# ---- ying_symbolizer_trim (sym_file.c): results kept, files reopened --
check_PROGRAMS += tests/unit/test_symbolizer_trim
tests_unit_test_symbolizer_trim_SOURCES = tests/unit/test_symbolizer_trim.c tests/unit/tap.h
tests_unit_test_symbolizer_trim_CFLAGS = $(AM_CFLAGS) $(LIBDW_CFLAGS)
tests_unit_test_symbolizer_trim_LDADD = libying_live_core.la libying_core.la $(PTHREAD_LIBS)
TESTS += tests/unit/test_symbolizer_trim
