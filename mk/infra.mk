# Infra area: the demo service, the real programs that the `ying top`
# integration tests profile, those tests, and the scripts/bench files that
# ship in the tarball.
#
# The profiled programs link the system jemalloc and are built with -g and no
# optimisation (the sources also say `#pragma GCC optimize "O0"`, so the
# user's CFLAGS cannot inline the call sites the tests name).  They take their
# own per-target CFLAGS/LDFLAGS, so an --enable-sanitize build never puts
# AddressSanitizer (which brings its own malloc) into a jemalloc program.
PROFPROG_COMPILE_FLAGS = -g -O0 -std=gnu11 -Wall -Wextra -Wno-unused-parameter $(JEMALLOC_CFLAGS)
PROFPROG_LINK_LIBS = $(JEMALLOC_LIBS) $(PTHREAD_LIBS)

# examples/leaky: the demo "service" (scripts/demo.sh).
noinst_PROGRAMS += examples/leaky
examples_leaky_SOURCES = examples/leaky.c
examples_leaky_CFLAGS = $(PROFPROG_COMPILE_FLAGS)
examples_leaky_LDFLAGS =
examples_leaky_LDADD = $(PROFPROG_LINK_LIBS)

# Programs profiled by tests/integration/top_*.sh.
check_PROGRAMS += tests/programs/top_basic tests/programs/top_sampled \
	tests/programs/top_threads
tests_programs_top_basic_SOURCES = tests/programs/top_basic.c tests/programs/top_dump.c
tests_programs_top_basic_CFLAGS = $(PROFPROG_COMPILE_FLAGS)
tests_programs_top_basic_LDFLAGS =
tests_programs_top_basic_LDADD = $(PROFPROG_LINK_LIBS)
tests_programs_top_sampled_SOURCES = tests/programs/top_sampled.c tests/programs/top_dump.c
tests_programs_top_sampled_CFLAGS = $(PROFPROG_COMPILE_FLAGS)
tests_programs_top_sampled_LDFLAGS =
tests_programs_top_sampled_LDADD = $(PROFPROG_LINK_LIBS)
tests_programs_top_threads_SOURCES = tests/programs/top_threads.c tests/programs/top_dump.c
tests_programs_top_threads_CFLAGS = $(PROFPROG_COMPILE_FLAGS)
tests_programs_top_threads_LDFLAGS =
tests_programs_top_threads_LDADD = $(PROFPROG_LINK_LIBS)

# The C++ program (operator new) is built by an explicit rule: configure does
# not look for a C++ compiler, so use the system one (g++ comes with
# build-essential).  check_DATA is built before the tests run.
TOP_CXX = c++
check_DATA = tests/programs/top_cxx
tests/programs/top_cxx: $(srcdir)/tests/programs/top_cxx.cc
	@$(MKDIR_P) tests/programs
	$(AM_V_CCLD)$(TOP_CXX) -g -O0 -Wall -Wextra $(JEMALLOC_CFLAGS) \
		-o $@ $(srcdir)/tests/programs/top_cxx.cc $(JEMALLOC_LIBS)
CLEANFILES += tests/programs/top_cxx

TESTS += tests/integration/top_basic.sh tests/integration/top_options.sh \
	tests/integration/top_sampled.sh tests/integration/top_cxx_threads.sh \
	tests/integration/errors.sh tests/integration/redis.sh
TESTS += tests/integration/top_escape.sh
EXTRA_DIST += tests/integration/top_escape.sh
# -o FILE through an exclusive temporary: a planted symlink or file at a
# predictable temporary name is never written through (issue 22)
TESTS += tests/integration/cli_output.sh
EXTRA_DIST += tests/integration/cli_output.sh

EXTRA_DIST += tests/programs/top_cxx.cc \
	tests/integration/top_basic.sh tests/integration/top_options.sh \
	tests/integration/top_sampled.sh tests/integration/top_cxx_threads.sh \
	tests/integration/errors.sh tests/integration/redis.sh \
	bench/gen_stacks.c bench/gen_big_cpp.sh bench/stacks.sh bench/clang.sh bench/lib.sh bench/formats.sh bench/redis_mem.sh bench/dwarf.sh bench/gen_dwarf_cpp.py \
	tests/integration/top_lib.sh

# scripts/test.sh asks for the list of tests, so that a test that never ran
# (not built, script missing) counts as a failure.
infra-list-tests:
	@for t in $(TESTS); do echo "$$t"; done
.PHONY: infra-list-tests

# issue 13, findings 3 and 5: hash flooding and memory-bomb benchmarks
EXTRA_DIST += bench/hostile_http.sh bench/hashflood.sh bench/membomb.sh bench/compare.sh bench/same_output.sh
TESTS += tests/integration/read_budget.sh
EXTRA_DIST += tests/integration/read_budget.sh tests/integration/membomb.py
# issue 16 (17.3): huge dumps, two builds side by side
EXTRA_DIST += bench/huge.sh

# issue 16: the side-by-side speed and footprint table (docs/benchmarks.md section 17)
EXTRA_DIST += bench/speed.sh
# Build hygiene (issue 23, item 7): no source file over 800 lines, `need`
# skips under a plain make check and fails with YING_REQUIRE_TOOLS=1,
# ying.pc's Requires.private, generated files beside their users.
TESTS += tests/integration/house.sh
EXTRA_DIST += tests/integration/house.sh
# Several heaps in one dump (issue 26): --heap on the CLI, jeprof reads it.
TESTS += tests/integration/heaps_cli.sh
EXTRA_DIST += tests/integration/heaps_cli.sh
