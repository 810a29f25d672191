# Fuzz targets (tests/fuzz/fuzz_<name>.c, one per parser; see
# tests/fuzz/fuzz.h and docs/reliability.md, "2. Fuzzing").
# configure --enable-fuzz (CC=clang): one libFuzzer program per target,
# run by scripts/fuzz.sh.  Otherwise: the same sources in one replay program
# that feeds every committed corpus and regression input to its target, in
# every `make check` (and so under ASan+UBSan with --enable-sanitize).
FUZZ_NAMES = heap gzip pprof config maps url
FUZZ_NAMES += recent
if ENABLE_HTTP
FUZZ_NAMES += http
endif
FUZZ_SOURCES = tests/fuzz/fuzz_heap.c tests/fuzz/fuzz_gzip.c tests/fuzz/fuzz_pprof.c \
	tests/fuzz/fuzz_config.c tests/fuzz/fuzz_maps.c tests/fuzz/fuzz_url.c
FUZZ_SOURCES += tests/fuzz/fuzz_recent.c
FUZZ_HTTP_SOURCES = tests/fuzz/fuzz_http.c
FUZZ_LIBS = libying_fe.la libying_live_core.la libying_core.la $(ZLIB_LIBS)
FUZZ_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS) $(CURL_CFLAGS) $(PROTOBUF_C_CFLAGS)

FUZZ_PROGS =
if FUZZ
FUZZ_PROGS += tests/fuzz/fuzz_heap tests/fuzz/fuzz_gzip tests/fuzz/fuzz_pprof \
	tests/fuzz/fuzz_config tests/fuzz/fuzz_maps tests/fuzz/fuzz_url
FUZZ_PROGS += tests/fuzz/fuzz_recent
tests_fuzz_fuzz_recent_SOURCES = tests/fuzz/fuzz_recent.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_recent_CFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_recent_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_recent_LDFLAGS = $(FUZZ_LINK)
FUZZ_LINK = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_heap_SOURCES = tests/fuzz/fuzz_heap.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_gzip_SOURCES = tests/fuzz/fuzz_gzip.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_pprof_SOURCES = tests/fuzz/fuzz_pprof.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_config_SOURCES = tests/fuzz/fuzz_config.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_maps_SOURCES = tests/fuzz/fuzz_maps.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_url_SOURCES = tests/fuzz/fuzz_url.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_heap_CFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_gzip_CFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_pprof_CFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_config_CFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_maps_CFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_url_CFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_heap_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_gzip_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_pprof_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_config_LDADD = libying_fe.la $(FUZZ_LIBS)
tests_fuzz_fuzz_maps_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_url_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_heap_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_fuzz_gzip_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_fuzz_pprof_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_fuzz_config_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_fuzz_maps_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_fuzz_url_LDFLAGS = $(FUZZ_LINK)
if ENABLE_HTTP
FUZZ_PROGS += tests/fuzz/fuzz_http
tests_fuzz_fuzz_http_SOURCES = $(FUZZ_HTTP_SOURCES) tests/fuzz/fuzz.h
tests_fuzz_fuzz_http_CFLAGS = $(FUZZ_CFLAGS) $(MHD_CFLAGS)
tests_fuzz_fuzz_http_LDADD = $(FUZZ_LIBS) $(MHD_LIBS)
tests_fuzz_fuzz_http_LDFLAGS = $(FUZZ_LINK)
endif
noinst_PROGRAMS += $(FUZZ_PROGS)
else
check_PROGRAMS += tests/fuzz/fuzz_replay
TESTS += tests/fuzz/fuzz_replay
tests_fuzz_fuzz_replay_SOURCES = tests/fuzz/fuzz_replay.c tests/fuzz/fuzz.h $(FUZZ_SOURCES)
tests_fuzz_fuzz_replay_CPPFLAGS = $(AM_CPPFLAGS) -DYI_FUZZ_REPLAY
tests_fuzz_fuzz_replay_CFLAGS = $(FUZZ_CFLAGS) $(MHD_CFLAGS)
tests_fuzz_fuzz_replay_LDADD = libying_fe.la $(FUZZ_LIBS) $(MHD_LIBS)
if ENABLE_HTTP
tests_fuzz_fuzz_replay_SOURCES += $(FUZZ_HTTP_SOURCES)
endif
endif
# `make fuzz-targets`: only the fuzz programs (what scripts/fuzz.sh builds),
# after the generated protobuf headers (BUILT_SOURCES: `make TARGET` alone
# does not make them first).
fuzz-targets: $(BUILT_SOURCES)
	@set -- $(FUZZ_PROGS); test $$# -gt 0 || { echo "make fuzz-targets: this build was configured without --enable-fuzz (CC=clang ../configure --enable-fuzz)" >&2; exit 1; }
	$(MAKE) $(AM_MAKEFLAGS) $(FUZZ_PROGS)
.PHONY: fuzz-targets
EXTRA_DIST += $(FUZZ_HTTP_SOURCES) tests/fuzz/corpus tests/fuzz/regress \
	tests/fuzz/dict scripts/fuzz.sh
