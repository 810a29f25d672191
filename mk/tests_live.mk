# Tests of the live family: the mallctl layer (live_ctl.c), the embedded
# HTTP endpoint (live_http*.c, only with --enable-http / libmicrohttpd), the
# program that embeds the server, the curl/jeprof/go-pprof tests; the
# growth runner's unit test.

# The test programs below embed libying in a jemalloc process.  In an
# --enable-sanitize build libying_core is ASan-instrumented, and ASan's
# malloc would replace jemalloc's; so there they link libying_plain, the
# same sources compiled without sanitizers.
if SANITIZE
noinst_LTLIBRARIES += libying_plain.la
libying_plain_la_SOURCES = $(libying_core_la_SOURCES) $(libying_live_core_la_SOURCES)
nodist_libying_plain_la_SOURCES = $(PPROF_PB_C) $(PPROF_PB_H) $(PYRO_PB_C) $(PYRO_PB_H) \
	$(nodist_libying_live_core_la_SOURCES)
libying_plain_la_CFLAGS = -std=gnu11 -g -O1 -fvisibility=hidden $(ZLIB_CFLAGS) \
	$(LIBDW_CFLAGS) $(PROTOBUF_C_CFLAGS) $(MHD_CFLAGS) $(CURL_CFLAGS)
libying_plain_la_LDFLAGS =
libying_plain_la_LIBADD = $(ZLIB_LIBS) $(LIBDW_LIBS) $(PROTOBUF_C_LIBS) $(DL_LIBS) \
	$(PTHREAD_LIBS) $(MHD_LIBS) $(CURL_LIBS) -lm
libying_plain_la_LIBADD += $(IBERTY_LIBS)
CTL_TEST_LIB = libying_plain.la
else
CTL_TEST_LIB = libying_live_core.la libying_core.la
endif

# Programs that run under jemalloc's profiler: -g -O0 so the functions the
# tests look for keep their own frames; never sanitizer flags.
CTL_PROG_CFLAGS = -g -O0 -std=gnu11 -Wall -Wextra -Wno-unused-parameter $(JEMALLOC_CFLAGS)

# test_ctl links jemalloc and re-runs itself with different MALLOC_CONF;
# test_ctl_nojem is the same source without jemalloc (the YING_ENOJEMALLOC
# case), so it keeps the ordinary (possibly sanitized) flags and library.
check_PROGRAMS += tests/unit/test_ctl tests/unit/test_ctl_nojem
tests_unit_test_ctl_SOURCES = tests/unit/test_ctl.c tests/unit/tap.h
tests_unit_test_ctl_CFLAGS = $(CTL_PROG_CFLAGS)
tests_unit_test_ctl_LDFLAGS =
tests_unit_test_ctl_LDADD = $(CTL_TEST_LIB) $(JEMALLOC_LIBS) $(PTHREAD_LIBS)
tests_unit_test_ctl_nojem_SOURCES = tests/unit/test_ctl.c tests/unit/tap.h
tests_unit_test_ctl_nojem_CPPFLAGS = $(AM_CPPFLAGS) -DTEST_CTL_NO_JEMALLOC
tests_unit_test_ctl_nojem_LDADD = libying_live_core.la libying_core.la $(PTHREAD_LIBS)
TESTS += tests/unit/test_ctl

if ENABLE_HTTP
check_PROGRAMS += tests/programs/http_server
tests_programs_http_server_SOURCES = tests/programs/http_server.c
tests_programs_http_server_CFLAGS = $(CTL_PROG_CFLAGS)
tests_programs_http_server_LDFLAGS =
tests_programs_http_server_LDADD = $(CTL_TEST_LIB) $(JEMALLOC_LIBS) $(PTHREAD_LIBS)
# The same program without jemalloc, with the ordinary (possibly
# sanitized) flags: request parsing and error paths under ASan/UBSan.
check_PROGRAMS += tests/programs/http_server_nojem
tests_programs_http_server_nojem_SOURCES = tests/programs/http_server.c
tests_programs_http_server_nojem_CFLAGS = $(AM_CFLAGS) -g -O0
tests_programs_http_server_nojem_LDADD = libying_live_core.la libying_core.la $(PTHREAD_LIBS)
TESTS += tests/integration/http_endpoints.sh tests/integration/http_tools.sh \
	tests/integration/http_load.sh tests/integration/http_nojem.sh
endif
EXTRA_DIST += tests/integration/http_endpoints.sh tests/integration/http_tools.sh \
	tests/integration/http_load.sh tests/integration/http_lib.sh \
	tests/integration/http_nojem.sh
dist_man_MANS += docs/ying-http.7
# Host (DNS rebinding) and Origin (CSRF) checks, with curl, jeprof and go.
# A non-loopback bind needs a token or --http-insecure; --http-allow-host.
if ENABLE_HTTP
TESTS += tests/integration/http_guard.sh tests/integration/run_http_bind.sh
endif
EXTRA_DIST += tests/integration/http_guard.sh tests/integration/run_http_bind.sh
# Without a token only the program's own user and root are served: other
# uids (setpriv: nobody, daemon) get 403 on every route; a token, open
# mode, the unix:PATH socket (issue 22).
if ENABLE_HTTP
TESTS += tests/integration/http_peer.sh tests/integration/http_unix.sh
endif
EXTRA_DIST += tests/integration/http_peer.sh tests/integration/http_unix.sh \
	tests/integration/peer_lib.sh bench/http_peer.sh bench/peer_micro.c
# 64 connections of load and misuse against redis under ying run
# (the short variant of bench/http_load.sh, same client).
if ENABLE_HTTP
TESTS += tests/integration/http_load64.sh
endif
EXTRA_DIST += tests/integration/http_load64.sh tests/integration/http_load64.py \
	bench/http_load.sh bench/http_idle.sh
# 64 clients asking for the heap at once, 60 readers that never read
# (issue 22: shared dumps, per-client rate limit, in-flight cap); the long
# variant with redis is bench/http_clients.sh.
check_PROGRAMS += tests/programs/http_stacks
tests_programs_http_stacks_SOURCES = tests/programs/http_stacks.c
tests_programs_http_stacks_CFLAGS = -O0 -g -fno-omit-frame-pointer -fno-inline $(JEMALLOC_CFLAGS)
tests_programs_http_stacks_LDFLAGS =
tests_programs_http_stacks_LDADD = $(JEMALLOC_LIBS)
if ENABLE_HTTP
TESTS += tests/integration/http_dumps.sh
endif
# The memory history and the live page's JSON (issue 29): /debug/history,
# /debug/ui, format=tree.
if ENABLE_HTTP
TESTS += tests/integration/http_history.sh
endif
EXTRA_DIST += tests/integration/http_history.sh bench/history.sh bench/history_micro.c \
	bench/tree_micro.c bench/gen_names.c
EXTRA_DIST += tests/integration/http_dumps.sh tests/integration/http_clients.py \
	bench/http_clients.sh bench/http_family.sh

# Unit test of the runner's pieces (names, report text, atomic sets, pruning).
check_PROGRAMS += tests/unit/test_runner
tests_unit_test_runner_SOURCES = tests/unit/test_runner.c tests/unit/tap.h
tests_unit_test_runner_LDADD = libying_live_core.la libying_core.la $(PTHREAD_LIBS)
TESTS += tests/unit/test_runner

# The control layer's search of the loaded objects' .symtab
# (live_ctl_find.c): the test program links jemalloc statically without
# exporting it (mallctl in .symtab only, like a Rust release binary).
check_PROGRAMS += tests/unit/test_live_ctl_find
tests_unit_test_live_ctl_find_SOURCES = tests/unit/test_live_ctl_find.c tests/unit/tap.h
tests_unit_test_live_ctl_find_CFLAGS = $(CTL_PROG_CFLAGS)
tests_unit_test_live_ctl_find_LDFLAGS =
tests_unit_test_live_ctl_find_LDADD = $(CTL_TEST_LIB) -l:libjemalloc.a \
	$(PTHREAD_LIBS) $(DL_LIBS) -lm
TESTS += tests/unit/test_live_ctl_find

# The Pyroscope uploader: options, requests (decoded with protobuf-c),
# backoff, and a running uploader's queue (links jemalloc, re-runs itself
# with MALLOC_CONF=prof:true).
check_PROGRAMS += tests/unit/test_live_pyro
tests_unit_test_live_pyro_SOURCES = tests/unit/test_live_pyro.c tests/unit/tap.h
tests_unit_test_live_pyro_CFLAGS = $(CTL_PROG_CFLAGS) $(PROTOBUF_C_CFLAGS)
tests_unit_test_live_pyro_LDFLAGS =
tests_unit_test_live_pyro_LDADD = $(CTL_TEST_LIB) $(JEMALLOC_LIBS) $(PTHREAD_LIBS) -lm
tests/unit/test_live_pyro-test_live_pyro.$(OBJEXT): $(PYRO_PB_H) $(PPROF_PB_H)
TESTS += tests/unit/test_live_pyro

# recent allocations and lifetimes (issue 15): a program with a known
# lifetime pattern, captured through the agent's /debug/heap/recent.
check_PROGRAMS += tests/programs/life_prog
tests_programs_life_prog_SOURCES = tests/programs/life_prog.c
tests_programs_life_prog_CFLAGS = $(CTL_PROG_CFLAGS)
tests_programs_life_prog_LDFLAGS =
tests_programs_life_prog_LDADD = $(CTL_TEST_LIB) $(JEMALLOC_LIBS) $(PTHREAD_LIBS)
TESTS += tests/integration/lifetimes.sh
EXTRA_DIST += tests/integration/lifetimes.sh
# issue 22: the record's bound (0..YING_RECENT_MAX_LIMIT, no -1) and the
# dump that no longer stops redis; the numeric parameters of every endpoint.
TESTS += tests/integration/recent_bounds.sh tests/integration/http_params.sh
EXTRA_DIST += tests/integration/recent_bounds.sh tests/integration/http_params.sh \
	bench/recent_stall.sh

# The giant-allocation capture through the API, in a jemalloc program
# (live_giant.c: records, log once per place, since, fork, restart, the
# four hook slots taken).
check_PROGRAMS += tests/unit/test_giant
tests_unit_test_giant_SOURCES = tests/unit/test_giant.c tests/unit/tap.h
tests_unit_test_giant_CFLAGS = $(CTL_PROG_CFLAGS)
tests_unit_test_giant_LDFLAGS =
tests_unit_test_giant_LDADD = $(CTL_TEST_LIB) $(JEMALLOC_LIBS) $(PTHREAD_LIBS)
TESTS += tests/unit/test_giant

# The endpoint list: router == ying-live.h == ying-http(7) (sources only).
TESTS += tests/integration/http_endpoint_list.sh
EXTRA_DIST += tests/integration/http_endpoint_list.sh

# issue 25: one endpoint for a service's processes: a head and two
# forked members on abstract sockets (/debug/processes, ?pid=N, ?pid=all
# through go tool pprof -tags/-tagfocus and ying top, a SIGKILLed member
# gone, a non-ancestor refused, the token still asked).
if ENABLE_HTTP
check_PROGRAMS += tests/programs/http_family
tests_programs_http_family_SOURCES = tests/programs/http_family.c
tests_programs_http_family_CFLAGS = $(CTL_PROG_CFLAGS)
tests_programs_http_family_LDFLAGS =
tests_programs_http_family_LDADD = $(CTL_TEST_LIB) $(JEMALLOC_LIBS) $(PTHREAD_LIBS)
TESTS += tests/integration/http_family.sh
endif
EXTRA_DIST += tests/integration/http_family.sh
# The live page (issue 29) in Debian's chromium, driven by Playwright
# (playwright-core pinned by tests/browser/package-lock.json, installed into
# the build tree's tests/browser/ by npm ci), against leaks_prog under
# ying run --http; screenshots in page_browser/.  bench/page.sh: its speed.
if ENABLE_HTTP
TESTS += tests/integration/page_browser.sh
endif
EXTRA_DIST += tests/integration/page_browser.sh tests/integration/browser_lib.sh \
	tests/browser/package.json tests/browser/package-lock.json tests/browser/page.mjs \
	tests/browser/bench.mjs tests/browser/ab.mjs bench/page.sh bench/page_ab.sh \
	bench/page_stacks.sh docs/page.png
# page_browser.sh's screenshots go with `make clean`; the npm install of
# playwright-core (tests/browser/ of the build tree; in an in-tree build only
# its node_modules) with `make distclean`.
clean-local: page-browser-clean
page-browser-clean:
	-rm -rf page_browser
distclean-local: page-browser-distclean
page-browser-distclean:
	-rm -rf tests/browser/node_modules
	-test "$$(cd $(top_srcdir) && pwd -P)" = "$$(pwd -P)" || rm -rf tests/browser
.PHONY: page-browser-clean page-browser-distclean
# `ying serve` (issue 29): the endpoint over a report directory, dumps, a URL
TESTS += tests/integration/serve.sh
EXTRA_DIST += tests/integration/serve.sh
