# Test hermeticity: what keeps the suite independent of the machine it runs
# on.  (1) tests/programs/heapgen is tests/data/heapgen.c, the program the
# committed heap fixtures were made from, built here with the flags those
# fixtures were made with: a test that asserts function names makes its own
# dump with it (a fixture's mappings name files of the machine that made it).
# (2) test_fixtures refuses committed dumps whose executable mappings name a
# file that exists here outside the system directories and the build
# products (the "/tmp/gen exists on my machine only" mistake) and flags
# hard-coded /tmp paths in the tests.  (3) Every test runs with TMPDIR and
# HOME in a fresh tests/scratch/<test>/ (AM_TESTS_ENVIRONMENT, Makefile.am).

# heapgen links the system jemalloc; its object is compiled by an explicit
# rule so it keeps exactly the fixtures' flags whatever the user's CFLAGS,
# and an --enable-sanitize build never puts ASan's malloc next to jemalloc.
check_PROGRAMS += tests/programs/heapgen
tests_programs_heapgen_SOURCES =
tests_programs_heapgen_CFLAGS = -g
tests_programs_heapgen_LDFLAGS =
tests_programs_heapgen_LDADD = tests/programs/heapgen.o $(JEMALLOC_LIBS) $(PTHREAD_LIBS)
tests/programs/heapgen.o: tests/data/heapgen.c
	@$(MKDIR_P) tests/programs
	$(AM_V_CC)$(CC) -std=gnu11 -g -O1 -fno-builtin-malloc $(JEMALLOC_CFLAGS) \
		-c -o $@ $(srcdir)/tests/data/heapgen.c
CLEANFILES += tests/programs/heapgen.o

# The fixture guard reads every dump in tests/data through libying (heap_v2,
# gzip, pprof alike) and checks the test sources for fixed /tmp paths.
check_PROGRAMS += tests/unit/test_fixtures
tests_unit_test_fixtures_SOURCES = tests/unit/test_fixtures.c tests/unit/tap.h
tests_unit_test_fixtures_LDADD = libying_live_core.la libying_core.la
TESTS += tests/unit/test_fixtures

# The per-test scratch directories (TMPDIR, HOME) live in the build tree.
clean-local: hermetic-clean-scratch
hermetic-clean-scratch:
	-rm -rf tests/scratch
.PHONY: hermetic-clean-scratch

# Run every test with a scratch TMPDIR and HOME of its own, created fresh
# for each run under the build tree (tests/scratch/<test>/tmp and .../home;
# XDG_* follow HOME), so no test reads or leaves files in the real /tmp or
# ~ and none depends on what an earlier run left there.  The persistent
# symbol cache (sym_cache.c) is YING_CACHE_DIR=$XDG_CACHE_HOME/ying (set
# here, so a YING_CACHE_DIR of the caller's is never written): each test
# gets its own (repeated ying calls within a test hit it), never ~/.cache.
# DEBUGINFOD_URLS is unset (Debian's libdebuginfod-common sets it for login
# shells): the commands would ask the real servers; sym_debuginfod.sh sets
# its own.  YING_CGROUP_ROOT names a directory that does not exist, so the
# memory limit of the cgroup the tests run in never reaches an agent
# (limit reports would change the report counts); the limit tests
# (run_limit_*.sh) set their own fixture.  The directories
# stay after the run for inspection; `make clean` removes them.  YING_BUILT
# lists what the build makes (programs, libraries), for test_fixtures.
# Appended to AM_TESTS_ENVIRONMENT in Makefile.am.
HERMETIC_TESTS_ENVIRONMENT = \
	YING_SCRATCH='$(abs_top_builddir)/tests/scratch/'`basename '$@' .log`; \
	rm -rf "$$YING_SCRATCH" && $(MKDIR_P) "$$YING_SCRATCH/tmp" "$$YING_SCRATCH/home" || exit 1; \
	TMPDIR="$$YING_SCRATCH/tmp"; HOME="$$YING_SCRATCH/home"; \
	XDG_CACHE_HOME="$$HOME/.cache"; XDG_CONFIG_HOME="$$HOME/.config"; \
	XDG_DATA_HOME="$$HOME/.local/share"; XDG_STATE_HOME="$$HOME/.local/state"; \
	export YING_SCRATCH TMPDIR HOME XDG_CACHE_HOME XDG_CONFIG_HOME XDG_DATA_HOME XDG_STATE_HOME; \
	YING_CACHE_DIR="$$XDG_CACHE_HOME/ying"; export YING_CACHE_DIR; \
	unset DEBUGINFOD_URLS YING_DROP_FRAMES YING_LIMIT YING_LIMIT_REPORTS; \
	YING_CGROUP_ROOT="$$YING_SCRATCH/no-cgroup"; export YING_CGROUP_ROOT; \
	YING_BUILT='$(bin_PROGRAMS) $(check_PROGRAMS) $(noinst_PROGRAMS) $(check_DATA) $(lib_LTLIBRARIES) $(pkglib_LTLIBRARIES)'; \
	export YING_BUILT;
