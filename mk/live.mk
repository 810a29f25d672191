# libying-live: the live runtime (src/live/), a library of its own on top
# of libying: the mallctl layer, the growth runner, the HTTP endpoint (only
# with --enable-http / libmicrohttpd), the Pyroscope uploader and the URL
# fetcher (libcurl, dlopen'ed on first use: only its headers are needed
# here), the recent- and giant-allocation capture, the fork handlers.
# libying never includes src/live/ nor links anything of it.
#
# libying_live_core.la holds the objects (internals visible to the unit
# tests and the agent); libying-live.la is the installed library and
# exports only the ying_* API of include/ying-live.h.
LIVE_CPPFLAGS = $(LIB_CPPFLAGS) -I$(top_srcdir)/src/live -I$(top_builddir)/src/live
noinst_LTLIBRARIES += libying_live_core.la
libying_live_core_la_CPPFLAGS = $(LIVE_CPPFLAGS)
libying_live_core_la_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS) $(LIBDW_CFLAGS) \
	$(PROTOBUF_C_CFLAGS) $(CURL_CFLAGS)
libying_live_core_la_LIBADD = libying_live_pb.la $(LIBDW_LIBS) $(ZLIB_LIBS) $(PROTOBUF_C_LIBS) \
	$(DL_LIBS) $(PTHREAD_LIBS) -lm
libying_live_core_la_SOURCES = \
	src/live/live.h \
	src/live/live_fd.c \
	src/live/live_ctl.h \
	src/live/live_ctl.c src/live/live_ctl_prof.c \
	src/live/live_ctl_dump.c \
	src/live/live_ctl_find.c \
	src/live/live_ctl_heaps.c \
	src/live/live_ctl_stats.c \
	src/live/live_ctl_recent.c \
	src/live/live_runner.h \
	src/live/live_runner.c \
	src/live/live_runner_files.c \
	src/live/live_runner_report.c \
	src/live/live_limit.c \
	src/live/live_leakhist.c \
	src/live/live_reports.c \
	src/live/live_history.h src/live/live_history.c \
	src/live/live_sink.c \
	src/live/live_sym.c \
	src/live/live_giant.h \
	src/live/live_giant.c \
	src/live/live_giant_json.c \
	src/live/live_curl.c \
	src/live/live_fetch.c \
	src/live/live_symremote.c \
	src/live/live_opts.c \
	src/live/live_memory.c src/live/live_memory_write.c \
	src/live/live_family.h \
	src/live/live_family.c \
	src/live/live_family_int.h \
	src/live/live_family_req.c \
	src/live/live_memory.h src/live/live_memory_proc.c src/live/live_memory_cgroup.c
# the Pyroscope uploader (libcurl through live_fetch.c's dlopen loader)
libying_live_core_la_SOURCES += \
	src/live/live_pyro.h \
	src/live/live_pyro_req.c \
	src/live/live_pyro_http.c \
	src/live/live_pyro_prof.c \
	src/live/live_pyro.c
src/live/libying_live_core_la-live_pyro_req.lo src/live/libying_live_core_la-live_pyro.lo: $(PYRO_PB_H)
if ENABLE_HTTP
libying_live_core_la_SOURCES += \
	src/live/live_http.h \
	src/live/live_http.c \
	src/live/live_http_heap.c \
	src/live/live_http_share.c \
	src/live/live_http_diff.c \
	src/live/live_http_leaks.c \
	src/live/live_http_symbolz.c \
	src/live/live_http_listen.c \
	src/live/live_http_serve.c \
	src/live/live_http_addr.c \
	src/live/live_http_peer.c \
	src/live/live_http_access.c \
	src/live/live_http_param.c \
	src/live/live_http_recent.c \
	src/live/live_http_giant.c \
	src/live/live_http_history.c \
	src/live/live_http_family.c \
	src/live/live_http_page.c
# `ying serve`: the endpoint over files (live_serve.h)
libying_live_core_la_SOURCES += \
	src/live/live_serve.h src/live/live_serve_int.h \
	src/live/live_serve_src.c src/live/live_serve_fetch.c \
	src/live/live_http_offline.c src/live/live_http_offline_hist.c
libying_live_core_la_CFLAGS += $(MHD_CFLAGS)
libying_live_core_la_LIBADD += $(MHD_LIBS)
else
libying_live_core_la_SOURCES += src/live/live_http_none.c
endif

# The live page (GET /, /ui/*; src/live/page/): its files compiled in as
# arrays by src/live/page/embed.sh into the build tree's live_page_data.c,
# found by yi_page_find() (live_page.c) for the endpoint and `ying serve`.
LIVE_PAGE_FILES = src/live/page/index.html src/live/page/app.js \
	src/live/page/flame.js src/live/page/app.css
libying_live_core_la_SOURCES += src/live/live_page.h src/live/live_page.c
nodist_libying_live_core_la_SOURCES = src/live/live_page_data.c
BUILT_SOURCES += src/live/live_page_data.c
CLEANFILES += src/live/live_page_data.c
EXTRA_DIST += $(LIVE_PAGE_FILES) src/live/page/embed.sh
src/live/live_page_data.c: $(srcdir)/src/live/page/index.html $(srcdir)/src/live/page/app.js \
	$(srcdir)/src/live/page/flame.js $(srcdir)/src/live/page/app.css $(srcdir)/src/live/page/embed.sh
	$(AM_V_GEN)$(MKDIR_P) src/live && \
	$(SHELL) $(srcdir)/src/live/page/embed.sh $@ $(srcdir)/src/live/page

noinst_LTLIBRARIES += libying_live_pb.la
libying_live_pb_la_SOURCES =
nodist_libying_live_pb_la_SOURCES =
libying_live_pb_la_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS) -w

# Pyroscope's push API (push.v1.PushRequest, types.v1.LabelPair): our own
# .proto files with Pyroscope's field numbers, compiled like profile.proto
# (mk/lib.mk) into the runtime's own generated-code library.
PYRO_PROTOS = src/live/proto/pyroscope_types.proto src/live/proto/pyroscope_push.proto
PYRO_PB_C = src/live/proto/pyroscope_types.pb-c.c src/live/proto/pyroscope_push.pb-c.c
PYRO_PB_H = src/live/proto/pyroscope_types.pb-c.h src/live/proto/pyroscope_push.pb-c.h
nodist_libying_live_pb_la_SOURCES += $(PYRO_PB_C) $(PYRO_PB_H)
BUILT_SOURCES += $(PYRO_PB_C) $(PYRO_PB_H)
CLEANFILES += $(PYRO_PB_C) $(PYRO_PB_H)
EXTRA_DIST += $(PYRO_PROTOS)
src/live/proto/pyroscope_types.pb-c.c: $(srcdir)/src/live/proto/pyroscope_types.proto
	$(AM_V_GEN)$(MKDIR_P) src/live/proto && \
	$(PROTOC_C) --proto_path=$(srcdir)/src/live/proto --c_out=src/live/proto \
	    $(srcdir)/src/live/proto/pyroscope_types.proto
src/live/proto/pyroscope_push.pb-c.c: $(srcdir)/src/live/proto/pyroscope_push.proto \
	$(srcdir)/src/live/proto/pyroscope_types.proto
	$(AM_V_GEN)$(MKDIR_P) src/live/proto && \
	$(PROTOC_C) --proto_path=$(srcdir)/src/live/proto --c_out=src/live/proto \
	    $(srcdir)/src/live/proto/pyroscope_push.proto
src/live/proto/pyroscope_types.pb-c.h: src/live/proto/pyroscope_types.pb-c.c
	@test -f $@ || rm -f src/live/proto/pyroscope_types.pb-c.c
	@test -f $@ || $(MAKE) $(AM_MAKEFLAGS) src/live/proto/pyroscope_types.pb-c.c
src/live/proto/pyroscope_push.pb-c.h: src/live/proto/pyroscope_push.pb-c.c
	@test -f $@ || rm -f src/live/proto/pyroscope_push.pb-c.c
	@test -f $@ || $(MAKE) $(AM_MAKEFLAGS) src/live/proto/pyroscope_push.pb-c.c


lib_LTLIBRARIES += libying-live.la
libying_live_la_SOURCES =
libying_live_la_LIBADD = libying_live_core.la libying.la
libying_live_la_LDFLAGS = $(AM_LDFLAGS) -version-info $(LIBYING_LT_VERSION) -no-undefined \
	-export-symbols-regex '^ying_[a-z]' $(LIB_NO_UNDEFINED)
include_HEADERS += include/ying-live.h
pkgconfig_DATA += ying-live.pc
