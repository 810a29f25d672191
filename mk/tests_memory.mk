# Where the RSS goes (issue 26, item 4): tests/programs/mem_gaps makes one
# gap between the heap profile and the RSS per mode (fragmentation, dirty
# pages, thread stacks, a file mapping, glibc's heap) and prints the truth
# it measured itself; memory_gaps.sh checks /debug/memory against it.
# bench/memory.sh: what the breakdown costs (issue 26, item 5).
check_PROGRAMS += tests/programs/mem_gaps
tests_programs_mem_gaps_SOURCES = tests/programs/mem_gaps.c
tests_programs_mem_gaps_CFLAGS = $(AGENT_PROG_CFLAGS)
tests_programs_mem_gaps_LDFLAGS =
tests_programs_mem_gaps_LDADD = $(DL_LIBS) $(PTHREAD_LIBS)
if ENABLE_HTTP
TESTS += tests/integration/memory_gaps.sh
endif
EXTRA_DIST += tests/integration/memory_gaps.sh tests/integration/memory_gaps.py \
	bench/memory.sh
