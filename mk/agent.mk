# The LD_PRELOAD agent libying-agent.so (src/agent) and `ying run`'s
# end-to-end tests, their programs, man page and benchmark.

# The agent: a loadable module with its own hidden copy of libying and
# libying-live (their convenience libraries are linked in whole); it
# exports only ying_agent_status, so it never clashes with a host that
# links either.  Its own files see include/ and src/common/ only.
# It is installed as $(pkglibdir)/libying-agent.so ($(libdir)/ying/): a
# module that is preloaded, never linked against, stays out of the linker's
# search path (`ying run` looks there, see find_agent in src/cli/cmd_run.c).
pkglib_LTLIBRARIES = libying-agent.la
libying_agent_la_SOURCES = src/agent/agent.c src/agent/agent_config.c \
	src/agent/agent_fork.c src/agent/agent_member.c src/agent/agent.h
AGENT_EXPORTS = -module -avoid-version -no-undefined \
	-export-symbols-regex '^ying_agent_status$$' -Wl,-z,nodelete
if SANITIZE
# A sanitizer runtime cannot be preloaded into an uninstrumented program
# (ASan must come first and brings its own malloc), so with
# --enable-sanitize the agent is built from the library sources again,
# without the sanitizer flags.
AGENT_CFLAGS = -std=gnu11 -Wall -Wextra -Wshadow -Wno-unused-parameter \
	-fvisibility=hidden $(ZLIB_CFLAGS) $(LIBDW_CFLAGS) $(PROTOBUF_C_CFLAGS)
noinst_LTLIBRARIES += libying_agent_pb.la
libying_agent_pb_la_SOURCES =
nodist_libying_agent_pb_la_SOURCES = $(PPROF_PB_C) $(PPROF_PB_H) $(PYRO_PB_C) $(PYRO_PB_H)
libying_agent_pb_la_CFLAGS = -w $(PROTOBUF_C_CFLAGS)
libying_agent_la_SOURCES += $(libying_core_la_SOURCES) $(libying_live_core_la_SOURCES) \
	$(libying_fe_la_SOURCES)
nodist_libying_agent_la_SOURCES = $(nodist_libying_live_core_la_SOURCES)
libying_agent_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/agent
libying_agent_la_CFLAGS = $(AGENT_CFLAGS) $(CURL_CFLAGS)
libying_agent_la_LIBADD = libying_agent_pb.la $(ZLIB_LIBS) $(LIBDW_LIBS) \
	$(PROTOBUF_C_LIBS) $(DL_LIBS) $(PTHREAD_LIBS) -lm
libying_agent_la_LIBADD += $(IBERTY_LIBS)
if ENABLE_HTTP
libying_agent_la_CFLAGS += $(MHD_CFLAGS)
libying_agent_la_LIBADD += $(MHD_LIBS)
endif
libying_agent_la_LDFLAGS = $(AGENT_EXPORTS)
src/lib/libying_agent_la-write_pprof.lo src/lib/libying_agent_la-write_pprof_ids.lo \
	src/lib/libying_agent_la-read_pprof.lo: $(PPROF_PB_H)
src/live/libying_agent_la-live_pyro_req.lo src/live/libying_agent_la-live_pyro.lo: $(PYRO_PB_H)
else
libying_agent_la_CPPFLAGS = $(FE_CPPFLAGS) -I$(top_srcdir)/src/agent
libying_agent_la_LIBADD = libying_fe.la libying_live_core.la libying_core.la $(PTHREAD_LIBS)
libying_agent_la_LDFLAGS = $(AM_LDFLAGS) $(AGENT_EXPORTS)
endif

# Programs the agent tests run: plain -O0 -g, no jemalloc linked (ying run
# preloads it), so they also serve as "a glibc program".
AGENT_PROG_CFLAGS = -g -O0 -std=gnu11 -fno-omit-frame-pointer -fno-inline \
	-Wall -Wextra -Wno-unused-parameter
check_PROGRAMS += tests/programs/agent_grow tests/programs/agent_exit
tests_programs_agent_grow_SOURCES = tests/programs/agent_grow.c
tests_programs_agent_grow_CFLAGS = $(AGENT_PROG_CFLAGS)
tests_programs_agent_grow_LDFLAGS =
tests_programs_agent_grow_LDADD =
tests_programs_agent_exit_SOURCES = tests/programs/agent_exit.c
tests_programs_agent_exit_CFLAGS = $(AGENT_PROG_CFLAGS)
tests_programs_agent_exit_LDFLAGS =
tests_programs_agent_exit_LDADD =
check_PROGRAMS += tests/programs/agent_daemon
tests_programs_agent_daemon_SOURCES = tests/programs/agent_daemon.c
tests_programs_agent_daemon_CFLAGS = $(AGENT_PROG_CFLAGS)
tests_programs_agent_daemon_LDFLAGS =
tests_programs_agent_daemon_LDADD = $(DL_LIBS)
check_PROGRAMS += tests/programs/run_setuid
tests_programs_run_setuid_SOURCES = tests/programs/run_setuid.c
tests_programs_run_setuid_CFLAGS = $(AGENT_PROG_CFLAGS)
tests_programs_run_setuid_LDFLAGS =
tests_programs_run_setuid_LDADD =
check_PROGRAMS += tests/programs/agent_forker
tests_programs_agent_forker_SOURCES = tests/programs/agent_forker.c
tests_programs_agent_forker_CFLAGS = $(AGENT_PROG_CFLAGS)
tests_programs_agent_forker_LDFLAGS =
tests_programs_agent_forker_LDADD =
check_PROGRAMS += tests/programs/limit_leak
tests_programs_limit_leak_SOURCES = tests/programs/limit_leak.c
tests_programs_limit_leak_CFLAGS = $(AGENT_PROG_CFLAGS)
tests_programs_limit_leak_LDFLAGS =
tests_programs_limit_leak_LDADD =
check_PROGRAMS += tests/programs/agent_workers
tests_programs_agent_workers_SOURCES = tests/programs/agent_workers.c
tests_programs_agent_workers_CFLAGS = $(AGENT_PROG_CFLAGS)
tests_programs_agent_workers_LDFLAGS =
tests_programs_agent_workers_LDADD =

AGENT_IT = tests/integration/run_grow.sh tests/integration/run_exit.sh \
	tests/integration/run_python.sh tests/integration/agent_inert.sh \
	tests/integration/agent_signal.sh tests/integration/run_default.sh \
	tests/integration/run_static_jem.sh tests/integration/agent_stop.sh \
	tests/integration/agent_status.sh
# the settings table against the man pages; option and variable agree
AGENT_IT += tests/integration/settings_table.sh
EXTRA_DIST += tests/integration/settings_table.sh
# one byte total in the report, top, JSON, folded, pprof, yingdiff and sql
AGENT_IT += tests/integration/one_number.sh
EXTRA_DIST += tests/integration/one_number.sh
if ENABLE_HTTP
AGENT_IT += tests/integration/run_redis.sh tests/integration/run_daemon.sh \
	tests/integration/run_http_fail.sh tests/integration/run_agent_libs.sh
# one symbolizer for the runner and the endpoint, trimmed after each cycle
AGENT_IT += tests/integration/run_sym_shared.sh
# reports of a process that switches user: ying run keeps the directory
# (as root; skipped otherwise)
AGENT_IT += tests/integration/run_setuid.sh
# Debian's own servers (no debug symbols) under ying run --http: the
# function their developers would fix leads (allocator families, sym_wrap.c)
AGENT_IT += tests/integration/run_postgres.sh tests/integration/run_nginx.sh \
	tests/integration/run_squid.sh tests/integration/run_sqlite.sh \
	tests/integration/run_memcached.sh
# where the RSS goes: /debug/memory, ying memory, reports, the exit summary
AGENT_IT += tests/integration/memory_cli.sh
endif
EXTRA_DIST += tests/integration/memory_cli.sh
EXTRA_DIST += tests/integration/run_setuid.sh
EXTRA_DIST += tests/integration/servers_lib.sh tests/integration/run_postgres.sh \
	tests/integration/run_nginx.sh tests/integration/run_squid.sh \
	tests/integration/run_sqlite.sh tests/integration/run_memcached.sh
TESTS += $(AGENT_IT)
EXTRA_DIST += tests/integration/run_grow.sh tests/integration/run_exit.sh \
	tests/integration/run_python.sh tests/integration/agent_inert.sh \
	tests/integration/agent_signal.sh tests/integration/run_redis.sh \
	tests/integration/agent_stop.sh tests/programs/agent_late_signal.c \
	tests/integration/agent_status.sh tests/programs/agent_status_race.c \
	tests/integration/agent_lib.sh bench/agent_cost.sh \
	tests/integration/run_daemon.sh tests/integration/run_http_fail.sh \
	tests/integration/run_default.sh tests/integration/run_agent_libs.sh \
	tests/integration/run_static_jem.sh tests/programs/static_jem.c
EXTRA_DIST += tests/integration/run_sym_shared.sh bench/agent_footprint.sh
# the memory limit: a report set just before a SIGKILL at 95 % of it;
# limit reports driven by a fixture cgroup, their settings (issue 28)
TESTS += tests/integration/run_limit_kill.sh tests/integration/run_limit_cgroup.sh
EXTRA_DIST += tests/integration/run_limit_kill.sh tests/integration/run_limit_cgroup.sh \
	tests/programs/limit_leak.c
# the report directory removed or replaced while the program runs: nothing
# written into what took its place, said once (issue 22)
TESTS += tests/integration/run_dir_gone.sh
EXTRA_DIST += tests/integration/run_dir_gone.sh

dist_man_MANS += docs/ying-agent.7

# The Pyroscope options of ying run, the agent and ying upload (no server).
TESTS += tests/integration/run_pyro_opts.sh
EXTRA_DIST += tests/integration/run_pyro_opts.sh

# LD_PRELOAD paths with spaces or colons are refused (issue 13, finding 9).
TESTS += tests/integration/run_preload_path.sh
EXTRA_DIST += tests/integration/run_preload_path.sh

# The HTTP token never on a command line nor inherited (issue 13, finding 4).
if ENABLE_HTTP
TESTS += tests/integration/run_token.sh
endif
EXTRA_DIST += tests/integration/run_token.sh

# A forked child never keeps ying's descriptors (issue 13, finding 6).
if ENABLE_HTTP
TESTS += tests/integration/run_fork_fds.sh
endif
EXTRA_DIST += tests/integration/run_fork_fds.sh

# A forked child stays single-threaded until it outlives its parent
# (issue 22, item 4).
if ENABLE_HTTP
TESTS += tests/integration/run_fork_threads.sh
endif
# Every long-lived process of a pre-forking program is profiled (issue 25).
TESTS += tests/integration/run_children.sh
EXTRA_DIST += tests/integration/run_fork_threads.sh tests/integration/run_children.sh \
	bench/fork_cost.sh \
	bench/fork_micro.c

# Giant allocations (issue 15): the agent's YING_GIANT hook, its log
# lines, /debug/heap/giant and the install-failure path.
check_PROGRAMS += tests/programs/giant_prog
tests_programs_giant_prog_SOURCES = tests/programs/giant_prog.c
tests_programs_giant_prog_CFLAGS = $(AGENT_PROG_CFLAGS)
tests_programs_giant_prog_LDFLAGS =
tests_programs_giant_prog_LDADD = $(PTHREAD_LIBS)
check_PROGRAMS += tests/programs/giant_read
tests_programs_giant_read_SOURCES = tests/programs/giant_read.c
tests_programs_giant_read_LDADD = libying_live_core.la libying_core.la $(PTHREAD_LIBS)
if ENABLE_HTTP
TESTS += tests/integration/giant.sh
endif
EXTRA_DIST += tests/integration/giant.sh tests/programs/giant_hooks4.c \
	tests/programs/giant_nest.c bench/giant_cost.sh bench/giant_micro.c

# A program that closes every descriptor >= 3 (a loop, close_range) is
# never harmed: endpoint, runner, dump signal, uploader (issue 22, item 1).
check_PROGRAMS += tests/programs/agent_closefds
tests_programs_agent_closefds_SOURCES = tests/programs/agent_closefds.c
tests_programs_agent_closefds_CFLAGS = $(AGENT_PROG_CFLAGS)
tests_programs_agent_closefds_LDFLAGS =
tests_programs_agent_closefds_LDADD =
if ENABLE_HTTP
TESTS += tests/integration/run_closefds.sh
# the same promise in a real server we did not write: OpenSSH's sshd
TESTS += tests/integration/real_closefds.sh
endif
EXTRA_DIST += tests/integration/run_closefds.sh bench/closefds_idle.sh \
	tests/integration/real_closefds.sh

# The user's own allocator wrappers ($XDG_CONFIG_HOME/ying/frames,
# YING_DROP_FRAMES) in every command, the agent's report runner and its
# endpoint, and the hint that names an unlisted one (issue 24, part 3).
check_PROGRAMS += tests/programs/user_frames
tests_programs_user_frames_SOURCES = tests/programs/user_frames.c tests/programs/top_dump.c
tests_programs_user_frames_CFLAGS = $(PROFPROG_COMPILE_FLAGS)
tests_programs_user_frames_LDFLAGS =
tests_programs_user_frames_LDADD = $(PROFPROG_LINK_LIBS)
if ENABLE_HTTP
TESTS += tests/integration/user_frames.sh
endif
EXTRA_DIST += tests/integration/user_frames.sh
