# Core area: model, parser, symbolizer, top report, CLI, unit tests.
libying_core_la_SOURCES += \
	src/lib/internal.h \
	src/lib/alloc.c \
	src/lib/error.c \
	src/lib/out.c \
	src/lib/format.c \
	src/lib/hashmap.c \
	src/lib/strtab.c \
	src/lib/gz.c \
	src/lib/profile.c \
	src/lib/filter.c \
	src/lib/heap_parse.c \
	src/lib/symbolize.c \
	src/lib/trim.c \
	src/lib/top.c

bin_PROGRAMS += ying
ying_SOURCES = src/cli/ying.c src/cli/cli.h src/cli/cli_util.c src/cli/cmd_top.c
ying_LDADD = $(CLI_LIBS)

# Unit tests: one TAP program per module.
check_PROGRAMS += tests/unit/test_util tests/unit/test_heap_parse tests/unit/test_top
tests_unit_test_util_SOURCES = tests/unit/test_util.c tests/unit/tap.h
tests_unit_test_util_LDADD = libying_core.la
tests_unit_test_heap_parse_SOURCES = tests/unit/test_heap_parse.c tests/unit/tap.h
tests_unit_test_heap_parse_LDADD = libying_core.la
tests_unit_test_top_SOURCES = tests/unit/test_top.c tests/unit/tap.h
tests_unit_test_top_LDADD = libying_core.la
TESTS += tests/unit/test_util tests/unit/test_heap_parse tests/unit/test_top
