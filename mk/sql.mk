# The sql family (src/lib/sql_*.c): SQLite databases of dumps, `ying sql`.
# Its own convenience library, so that only ying, libying.so and the tests
# link libsqlite3 (the agent is built from libying_core and never does).
noinst_LTLIBRARIES += libying_sql.la
libying_sql_la_SOURCES = src/lib/sql.h src/lib/sql_db.c src/lib/sql_import.c \
	src/lib/sql_path.c
libying_sql_la_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
libying_la_LIBADD += libying_sql.la $(SQLITE_LIBS)

# ying sql: libying_sql first (it calls into libying_core), then core again.
ying_SOURCES += src/cli/cmd_sql.c
ying_LDADD += libying_sql.la libying_core.la $(SQLITE_LIBS)

# Tests of the sql family.
check_PROGRAMS += tests/unit/test_sql
tests_unit_test_sql_SOURCES = tests/unit/test_sql.c tests/unit/tap.h $(SYNTH_SOURCES)
tests_unit_test_sql_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
tests_unit_test_sql_LDADD = libying_sql.la libying_core.la $(SQLITE_LIBS)
TESTS += tests/unit/test_sql
