# Tests of the diff family: yingdiff (NOW minus BASE), differential flame
# graphs, the CI gate.

check_PROGRAMS += tests/unit/test_diff
tests_unit_test_diff_SOURCES = tests/unit/test_diff.c tests/unit/tap.h
tests_unit_test_diff_LDADD = libying_live_core.la libying_core.la
TESTS += tests/unit/test_diff

# The 95 % intervals against jemalloc's sampler, simulated exactly.
check_PROGRAMS += tests/unit/test_diff_noise
tests_unit_test_diff_noise_SOURCES = tests/unit/test_diff_noise.c tests/unit/tap.h $(SYNTH_SOURCES)
tests_unit_test_diff_noise_LDADD = libying_live_core.la libying_core.la
TESTS += tests/unit/test_diff_noise

# The program the integration tests profile: builds a base set in named
# functions, dumps, grows one call site, dumps again.  Plain -O0 -g and its
# own flags, so a sanitizer build never puts ASan's malloc next to jemalloc.
check_PROGRAMS += tests/programs/diff_grow
tests_programs_diff_grow_SOURCES = tests/programs/diff_grow.c
tests_programs_diff_grow_CFLAGS = -g -O0 -fno-omit-frame-pointer -fno-inline \
	-std=gnu11 -Wall -Wextra $(JEMALLOC_CFLAGS)
tests_programs_diff_grow_LDFLAGS =
tests_programs_diff_grow_LDADD = $(JEMALLOC_LIBS)

# A known pattern between two dumps, run many times by diff_noise.sh: how
# often the 95 % intervals cover the true growth.
check_PROGRAMS += tests/programs/diff_noise
tests_programs_diff_noise_SOURCES = tests/programs/diff_noise.c
tests_programs_diff_noise_CFLAGS = -g -O0 -fno-omit-frame-pointer -fno-inline \
	-std=gnu11 -Wall -Wextra $(JEMALLOC_CFLAGS)
tests_programs_diff_noise_LDFLAGS =
tests_programs_diff_noise_LDADD = $(JEMALLOC_LIBS)

DIFF_IT = tests/integration/diff_exact.sh tests/integration/diff_sampled.sh \
	tests/integration/diff_aslr.sh tests/integration/diff_outputs.sh \
	tests/integration/diff_errors.sh tests/integration/diff_checks.sh \
	tests/integration/diff_noise.sh
TESTS += $(DIFF_IT)
EXTRA_DIST += $(DIFF_IT) tests/integration/diff_lib.sh
# bench/diff_noise.sh: the long coverage run of diff_noise.sh (issue 28, item 1).
EXTRA_DIST += bench/diff_noise.sh
