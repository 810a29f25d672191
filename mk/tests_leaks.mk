# Verdicts over a series (issue 28, items 2 and 6): the unit test of the
# statistics (synthetic series, a simulated sampler) and leaks.sh, which
# runs tests/programs/leaks_prog (a leak under churn, a cache that fills,
# pure churn) under `ying run` and checks `ying leaks` on its report
# directory and on a `ying sql` database of it; leaks_virtual.sh runs
# leaks_prog on its virtual clock (--virtual, the mode bench/leaks.sh
# measures) once per case, small.
check_PROGRAMS += tests/unit/test_leaks
tests_unit_test_leaks_SOURCES = tests/unit/test_leaks.c tests/unit/tap.h $(SYNTH_SOURCES)
tests_unit_test_leaks_LDADD = libying_live_core.la libying_core.la -lm
TESTS += tests/unit/test_leaks

check_PROGRAMS += tests/programs/leaks_prog
tests_programs_leaks_prog_SOURCES = tests/programs/leaks_prog.c
tests_programs_leaks_prog_CFLAGS = -g -O2 -std=gnu11 -fno-omit-frame-pointer \
	-fno-optimize-sibling-calls -Wall -Wextra
tests_programs_leaks_prog_LDFLAGS =
tests_programs_leaks_prog_LDADD = $(DL_LIBS)

TESTS += tests/integration/leaks.sh tests/integration/leaks_agent.sh
EXTRA_DIST += tests/integration/leaks.sh tests/integration/leaks_agent.sh bench/leaks.sh \
	bench/leakhist.sh bench/leakhist_micro.c

# the virtual clock (leaks_prog --virtual), once per case at a small size
TESTS += tests/integration/leaks_virtual.sh
EXTRA_DIST += tests/integration/leaks_virtual.sh
