# The processes of one service under the agent (issue 25): a fork storm
# leaves nothing behind, pre-forking servers' workers and backends are
# members of the head's family (/debug/processes, ?pid=N, ?pid=all), and
# the benchmark of what a storm costs the parent (bench/fork_storm.sh).
check_PROGRAMS += tests/programs/family_storm
tests_programs_family_storm_SOURCES = tests/programs/family_storm.c
tests_programs_family_storm_CFLAGS = $(AGENT_PROG_CFLAGS)
tests_programs_family_storm_LDFLAGS =
tests_programs_family_storm_LDADD =
if ENABLE_HTTP
TESTS += tests/integration/fork_storm.sh tests/integration/prefork_nginx.sh \
	tests/integration/prefork_postgres.sh
endif
EXTRA_DIST += tests/integration/fork_lib.sh tests/integration/fork_storm.sh \
	tests/integration/prefork_nginx.sh tests/integration/prefork_postgres.sh \
	bench/fork_storm.sh bench/fork_storm.c
