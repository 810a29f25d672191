# Unit tests that mirror the library's modules (one TAP program per module:
# base_*, model*, signal), the shared synthetic-profile builder
# (tests/unit/synth.[ch]) and the top --stacks collision test.  Included
# last from Makefile.am, so the `+=` below extend programs declared in the
# other fragments.
UNIT_MODULE_TESTS = tests/unit/test_base_out tests/unit/test_base_format tests/unit/test_base_num \
	tests/unit/test_base_hash tests/unit/test_base_strtab tests/unit/test_base_gz \
	tests/unit/test_base_error tests/unit/test_model tests/unit/test_model_filter \
	tests/unit/test_signal tests/unit/test_top_stacks tests/unit/test_profile_build \
	tests/unit/test_base_tmpfile
check_PROGRAMS += $(UNIT_MODULE_TESTS)
TESTS += $(UNIT_MODULE_TESTS)

SYNTH_SOURCES = tests/unit/synth.c tests/unit/synth.h

tests_unit_test_base_out_SOURCES = tests/unit/test_base_out.c tests/unit/tap.h
tests_unit_test_base_out_LDADD = libying_live_core.la libying_core.la
tests_unit_test_base_format_SOURCES = tests/unit/test_base_format.c tests/unit/tap.h
tests_unit_test_base_format_LDADD = libying_live_core.la libying_core.la
tests_unit_test_base_num_SOURCES = tests/unit/test_base_num.c tests/unit/tap.h
tests_unit_test_base_num_LDADD = libying_live_core.la libying_core.la
tests_unit_test_base_hash_SOURCES = tests/unit/test_base_hash.c tests/unit/tap.h
tests_unit_test_base_hash_LDADD = libying_live_core.la libying_core.la
tests_unit_test_base_strtab_SOURCES = tests/unit/test_base_strtab.c tests/unit/tap.h
tests_unit_test_base_strtab_LDADD = libying_live_core.la libying_core.la
tests_unit_test_base_gz_SOURCES = tests/unit/test_base_gz.c tests/unit/tap.h
tests_unit_test_base_gz_LDADD = libying_live_core.la libying_core.la
tests_unit_test_base_error_SOURCES = tests/unit/test_base_error.c tests/unit/tap.h
tests_unit_test_base_error_LDADD = libying_live_core.la libying_core.la $(PTHREAD_LIBS)
tests_unit_test_model_SOURCES = tests/unit/test_model.c tests/unit/tap.h $(SYNTH_SOURCES)
tests_unit_test_model_LDADD = libying_live_core.la libying_core.la
tests_unit_test_profile_build_SOURCES = tests/unit/test_profile_build.c tests/unit/tap.h
tests_unit_test_profile_build_LDADD = libying_live_core.la libying_core.la
tests_unit_test_base_tmpfile_SOURCES = tests/unit/test_base_tmpfile.c tests/unit/tap.h
tests_unit_test_base_tmpfile_LDADD = libying_live_core.la libying_core.la
tests_unit_test_model_filter_SOURCES = tests/unit/test_model_filter.c tests/unit/tap.h $(SYNTH_SOURCES)
tests_unit_test_model_filter_LDADD = libying_live_core.la libying_core.la
tests_unit_test_signal_SOURCES = tests/unit/test_signal.c tests/unit/tap.h
tests_unit_test_signal_LDADD = libying_fe.la libying_live_core.la libying_core.la
tests_unit_test_top_stacks_SOURCES = tests/unit/test_top_stacks.c tests/unit/tap.h $(SYNTH_SOURCES)
tests_unit_test_top_stacks_LDADD = libying_live_core.la libying_core.la
check_PROGRAMS += tests/unit/test_text_escape
TESTS += tests/unit/test_text_escape
tests_unit_test_text_escape_SOURCES = tests/unit/test_text_escape.c tests/unit/tap.h $(SYNTH_SOURCES)
tests_unit_test_text_escape_LDADD = libying_live_core.la libying_core.la

# pprof writer and reader (they decode with protobuf-c's generated code).
PPROF_UNIT_TESTS = tests/unit/test_write_pprof tests/unit/test_read_pprof
check_PROGRAMS += $(PPROF_UNIT_TESTS)
TESTS += $(PPROF_UNIT_TESTS)
tests_unit_test_write_pprof_SOURCES = tests/unit/test_write_pprof.c tests/unit/pprof_util.h tests/unit/tap.h
tests_unit_test_write_pprof_LDADD = libying_live_core.la libying_core.la
tests_unit_test_read_pprof_SOURCES = tests/unit/test_read_pprof.c tests/unit/pprof_util.h tests/unit/tap.h
tests_unit_test_read_pprof_LDADD = libying_live_core.la libying_core.la
tests/unit/test_write_pprof.$(OBJEXT) tests/unit/test_read_pprof.$(OBJEXT): $(PPROF_PB_H)
# Folding a profile to a sample and byte limit (ying_profile_fold): the
# results written and decoded like the writer's.
check_PROGRAMS += tests/unit/test_alloc_delta
TESTS += tests/unit/test_alloc_delta
tests_unit_test_alloc_delta_SOURCES = tests/unit/test_alloc_delta.c tests/unit/tap.h
tests_unit_test_alloc_delta_LDADD = libying_core.la
check_PROGRAMS += tests/unit/test_fold
TESTS += tests/unit/test_fold
tests_unit_test_fold_SOURCES = tests/unit/test_fold.c tests/unit/pprof_util.h tests/unit/tap.h $(SYNTH_SOURCES)
tests_unit_test_fold_LDADD = libying_live_core.la libying_core.la
tests/unit/test_fold.$(OBJEXT): $(PPROF_PB_H)

# The embedded HTTP endpoint, in-process on 127.0.0.1 port 0 (no jemalloc).
if ENABLE_HTTP
check_PROGRAMS += tests/unit/test_live_http
TESTS += tests/unit/test_live_http
endif
tests_unit_test_live_http_SOURCES = tests/unit/test_live_http.c tests/unit/tap.h
tests_unit_test_live_http_LDADD = libying_live_core.la libying_core.la $(PTHREAD_LIBS)
# Who is at the other end of a connection (SO_PEERCRED, sock_diag,
# /proc/net/tcp) and the unix:/PATH socket (issue 22); runs as root.
if ENABLE_HTTP
check_PROGRAMS += tests/unit/test_http_peer
TESTS += tests/unit/test_http_peer
endif
tests_unit_test_http_peer_SOURCES = tests/unit/test_http_peer.c tests/unit/tap.h
tests_unit_test_http_peer_LDADD = libying_live_core.la libying_core.la $(PTHREAD_LIBS)
# A service's processes (issue 25): family ids, the /proc/net/unix parser,
# requests to a forked child listening on its family socket, /proc's view.
check_PROGRAMS += tests/unit/test_family
TESTS += tests/unit/test_family
tests_unit_test_family_SOURCES = tests/unit/test_family.c tests/unit/tap.h
tests_unit_test_family_LDADD = libying_live_core.la libying_core.la $(PTHREAD_LIBS)
# Where the RSS goes (issue 26): jemalloc's parts carved from a fixture
# /proc with a mallctl of the test's own, classes, sites, advice, JSON, text.
check_PROGRAMS += tests/unit/test_memory_proc
TESTS += tests/unit/test_memory_proc
tests_unit_test_memory_proc_SOURCES = tests/unit/test_memory_proc.c tests/unit/tap.h
tests_unit_test_memory_proc_LDADD = libying_live_core.la libying_core.la $(PTHREAD_LIBS)
# The memory limit the runner watches (issue 28): cgroup v1/v2 fixtures,
# the given limit, fractions firing and re-arming, the report names.
check_PROGRAMS += tests/unit/test_limit
TESTS += tests/unit/test_limit
tests_unit_test_limit_SOURCES = tests/unit/test_limit.c tests/unit/tap.h
tests_unit_test_limit_CPPFLAGS = $(AM_CPPFLAGS) $(FE_CPPFLAGS)
tests_unit_test_limit_LDADD = libying_fe.la libying_live_core.la libying_core.la $(PTHREAD_LIBS)
# Several heaps in one dump (issue 26 item 1): live_ctl_heaps.c's combining.
check_PROGRAMS += tests/unit/test_ctl_heaps
TESTS += tests/unit/test_ctl_heaps
tests_unit_test_ctl_heaps_SOURCES = tests/unit/test_ctl_heaps.c tests/unit/tap.h
tests_unit_test_ctl_heaps_LDADD = libying_live_core.la libying_core.la $(PTHREAD_LIBS)
check_PROGRAMS += tests/unit/test_memory
TESTS += tests/unit/test_memory
tests_unit_test_memory_SOURCES = tests/unit/test_memory.c tests/unit/tap.h $(SYNTH_SOURCES)
tests_unit_test_memory_LDADD = libying_live_core.la libying_core.la $(PTHREAD_LIBS)

# The synthetic builder replaces the hand-written ones of these tests.
tests_unit_test_diff_SOURCES += $(SYNTH_SOURCES)
tests_unit_test_flame_SOURCES += $(SYNTH_SOURCES)
tests_unit_test_folded_SOURCES += $(SYNTH_SOURCES)

# Benchmarks live in bench/ (not run by make check).
EXTRA_DIST += bench/http_bench.sh

# The descriptors libying owns, closed in a forked child (issue 13, finding 6).
check_PROGRAMS += tests/unit/test_base_fd
TESTS += tests/unit/test_base_fd
tests_unit_test_base_fd_SOURCES = tests/unit/test_base_fd.c tests/unit/tap.h
tests_unit_test_base_fd_LDADD = libying_live_core.la libying_core.la $(PTHREAD_LIBS)

# recent-allocation records and lifetimes (issue 15)
check_PROGRAMS += tests/unit/test_recent
TESTS += tests/unit/test_recent
tests_unit_test_recent_SOURCES = tests/unit/test_recent.c tests/unit/tap.h
tests_unit_test_recent_LDADD = libying_live_core.la libying_core.la
# The giant-allocation listing's JSON reader (read_giant.c).
check_PROGRAMS += tests/unit/test_read_giant
TESTS += tests/unit/test_read_giant
tests_unit_test_read_giant_SOURCES = tests/unit/test_read_giant.c tests/unit/tap.h
tests_unit_test_read_giant_LDADD = libying_live_core.la libying_core.la

# issue 16 (17.3): vectors and their transparent huge page advice
check_PROGRAMS += tests/unit/test_base_alloc tests/unit/test_base_alloc_jem
TESTS += tests/unit/test_base_alloc tests/unit/test_base_alloc_jem
tests_unit_test_base_alloc_SOURCES = tests/unit/test_base_alloc.c tests/unit/tap.h
tests_unit_test_base_alloc_LDADD = libying_live_core.la libying_core.la
tests_unit_test_base_alloc_jem_SOURCES = tests/unit/test_base_alloc.c tests/unit/tap.h
tests_unit_test_base_alloc_jem_CPPFLAGS = $(AM_CPPFLAGS) -DWITH_JEMALLOC
tests_unit_test_base_alloc_jem_LDADD = libying_live_core.la libying_core.la $(JEMALLOC_LIBS)

# The cross-family API rules (writers never symbolize, one symbolization,
# option structs' _init(), info accessors): tests/unit/test_api.c.
check_PROGRAMS += tests/unit/test_api
tests_unit_test_api_SOURCES = tests/unit/test_api.c tests/unit/tap.h
tests_unit_test_api_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
tests_unit_test_api_LDADD = libying_sql.la libying_live_core.la libying_core.la \
	$(SQLITE_LIBS) $(PTHREAD_LIBS)
TESTS += tests/unit/test_api
# Several heaps in one dump (issue 26): the ying-heap trailer, per-heap
# totals, --heap, pprof, top, diff and merge.
check_PROGRAMS += tests/unit/test_heaps
TESTS += tests/unit/test_heaps
tests_unit_test_heaps_SOURCES = tests/unit/test_heaps.c tests/unit/tap.h
tests_unit_test_heaps_LDADD = libying_live_core.la libying_core.la $(PTHREAD_LIBS)
# The in-agent memory history (issue 29): rings, roll-up, since, events, fork.
check_PROGRAMS += tests/unit/test_history
TESTS += tests/unit/test_history
tests_unit_test_history_SOURCES = tests/unit/test_history.c tests/unit/tap.h
tests_unit_test_history_LDADD = libying_live_core.la libying_core.la $(PTHREAD_LIBS)
# The report directories the endpoint reads, the page's report points
# (issue 29): live_reports.c.
check_PROGRAMS += tests/unit/test_reports
TESTS += tests/unit/test_reports
tests_unit_test_reports_SOURCES = tests/unit/test_reports.c tests/unit/tap.h
tests_unit_test_reports_LDADD = libying_live_core.la libying_core.la $(PTHREAD_LIBS)
# The live page's flame tree as flat JSON (issue 29): write_tree.c.
check_PROGRAMS += tests/unit/test_write_tree
TESTS += tests/unit/test_write_tree
tests_unit_test_write_tree_SOURCES = tests/unit/test_write_tree.c tests/unit/tap.h $(SYNTH_SOURCES)
tests_unit_test_write_tree_LDADD = libying_live_core.la libying_core.la
