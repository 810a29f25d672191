# ying-jeprof (jeprof-compat/): jeprof's command line over libying.  A thin
# front end (include/ying.h only), installed next to ying with its man page.
bin_PROGRAMS += ying-jeprof
ying_jeprof_SOURCES = jeprof-compat/ying-jeprof.c
ying_jeprof_LDADD = $(CLI_LIBS)
ying_jeprof_CPPFLAGS = $(FE_CPPFLAGS)
ying_jeprof_LDFLAGS = -Wl,--as-needed
dist_man_MANS += docs/ying-jeprof.1

# Against the real jeprof on the same dumps (C, C++ with threads, static
# jemalloc, redis), remote mode against ying's own server.
TESTS += tests/integration/jeprof_compat.sh tests/integration/jeprof_compat_remote.sh
EXTRA_DIST += tests/integration/jeprof_compat.sh tests/integration/jeprof_compat_remote.sh \
	tests/integration/jeprof_lib.sh \
	tests/programs/jeprof_cxx.cc tests/integration/jeprof_symproxy.py
EXTRA_DIST += bench/jeprof_compat.sh

# jeprof's text, --list and --raw forms and ying_profile_merge on profiles
# built in memory.
check_PROGRAMS += tests/unit/test_write_jeprof
tests_unit_test_write_jeprof_SOURCES = tests/unit/test_write_jeprof.c tests/unit/tap.h $(SYNTH_SOURCES)
tests_unit_test_write_jeprof_LDADD = libying_live_core.la libying_core.la
TESTS += tests/unit/test_write_jeprof
