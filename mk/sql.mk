# The sql family (src/lib/sql_*.c): SQLite databases of dumps, `ying sql`.
# Its own convenience library, so that only ying, libying.so and the tests
# link libsqlite3 (the agent is built from libying_core and never does).
noinst_LTLIBRARIES += libying_sql.la
libying_sql_la_SOURCES = src/lib/sql.h src/lib/sql_db.c src/lib/sql_import.c \
	src/lib/sql_path.c src/lib/sql_recent.c src/lib/sql_giant.c \
	src/lib/sql_leaks.c
libying_sql_la_CPPFLAGS = $(LIB_CPPFLAGS)
libying_sql_la_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
libying_la_LIBADD += libying_sql.la $(SQLITE_LIBS)

# ying sql: libying_sql first (it calls into libying_core), then core again
# (the boundary link, mk/cli.mk, gets it through libying.so).
ying_SOURCES += src/cli/cmd_sql.c
ying_LDADD += libying_sql.la libying_core.la $(SQLITE_LIBS)

# Tests of the sql family.
check_PROGRAMS += tests/unit/test_sql
tests_unit_test_sql_SOURCES = tests/unit/test_sql.c tests/unit/tap.h $(SYNTH_SOURCES)
tests_unit_test_sql_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
tests_unit_test_sql_LDADD = libying_sql.la libying_live_core.la libying_core.la $(SQLITE_LIBS)
TESTS += tests/unit/test_sql

# The program tests/integration/sql.sh profiles: known growth between two
# dumps and a known lifetime pattern in its recent-allocation records.
# Never sanitizer flags (jemalloc's profiler must see its mallocs).
check_PROGRAMS += tests/programs/sql_life
tests_programs_sql_life_SOURCES = tests/programs/sql_life.c
tests_programs_sql_life_CFLAGS = -g -O0 -fno-omit-frame-pointer -fno-inline \
	-std=gnu11 -Wall -Wextra $(JEMALLOC_CFLAGS)
tests_programs_sql_life_LDFLAGS =
tests_programs_sql_life_LDADD = $(CTL_TEST_LIB) $(JEMALLOC_LIBS) $(PTHREAD_LIBS)

TESTS += tests/integration/sql.sh
EXTRA_DIST += tests/integration/sql.sh docs/sql.md bench/sql.sh
