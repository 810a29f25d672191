# libying's sources, one block per family in data-flow order (see "Source
# layout" in docs/architecture.md): base -> model -> read -> sym -> write ->
# diff -> live.  internal.h is the umbrella over the per-family headers.
libying_core_la_SOURCES += src/lib/internal.h

# pprof: profile.proto is compiled by protoc-c at build time into the build
# tree (never shipped: the tarball needs protoc-c, the code never goes stale).
# Generated code gets its own convenience library so it can be compiled with
# warnings off while the rest stays -Werror clean.
PPROF_PB_C = src/lib/proto/profile.pb-c.c
PPROF_PB_H = src/lib/proto/profile.pb-c.h
noinst_LTLIBRARIES += libying_pb.la
libying_pb_la_SOURCES =
nodist_libying_pb_la_SOURCES = $(PPROF_PB_C) $(PPROF_PB_H)
libying_pb_la_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS) -w
libying_core_la_LIBADD += libying_pb.la
BUILT_SOURCES += $(PPROF_PB_C) $(PPROF_PB_H)
CLEANFILES += $(PPROF_PB_C) $(PPROF_PB_H)
EXTRA_DIST += src/lib/proto/profile.proto

# One command makes both files: the header depends on the .c, and the
# recovery lines (automake manual, "Multiple Outputs") rebuild the pair if
# only the header was deleted, so `make -j` never runs protoc-c twice.
$(PPROF_PB_C): $(srcdir)/src/lib/proto/profile.proto
	$(AM_V_GEN)$(MKDIR_P) src/lib/proto && \
	$(PROTOC_C) --proto_path=$(srcdir)/src/lib/proto --c_out=src/lib/proto \
	    $(srcdir)/src/lib/proto/profile.proto
$(PPROF_PB_H): $(PPROF_PB_C)
	@test -f $@ || rm -f $(PPROF_PB_C)
	@test -f $@ || $(MAKE) $(AM_MAKEFLAGS) $(PPROF_PB_C)
# Objects that include the generated header, for targets built directly
# (BUILT_SOURCES only applies to all/check/install).
src/lib/libying_core_la-write_pprof.lo src/lib/libying_core_la-write_pprof_ids.lo \
	src/lib/libying_core_la-read_pprof.lo: $(PPROF_PB_H)

# Pyroscope's push API (push.v1.PushRequest, types.v1.LabelPair): our own
# .proto files with Pyroscope's field numbers, compiled the same way into
# the same generated-code library.
PYRO_PROTOS = src/lib/proto/pyroscope_types.proto src/lib/proto/pyroscope_push.proto
PYRO_PB_C = src/lib/proto/pyroscope_types.pb-c.c src/lib/proto/pyroscope_push.pb-c.c
PYRO_PB_H = src/lib/proto/pyroscope_types.pb-c.h src/lib/proto/pyroscope_push.pb-c.h
nodist_libying_pb_la_SOURCES += $(PYRO_PB_C) $(PYRO_PB_H)
BUILT_SOURCES += $(PYRO_PB_C) $(PYRO_PB_H)
CLEANFILES += $(PYRO_PB_C) $(PYRO_PB_H)
EXTRA_DIST += $(PYRO_PROTOS)
src/lib/proto/pyroscope_types.pb-c.c: $(srcdir)/src/lib/proto/pyroscope_types.proto
	$(AM_V_GEN)$(MKDIR_P) src/lib/proto && \
	$(PROTOC_C) --proto_path=$(srcdir)/src/lib/proto --c_out=src/lib/proto \
	    $(srcdir)/src/lib/proto/pyroscope_types.proto
src/lib/proto/pyroscope_push.pb-c.c: $(srcdir)/src/lib/proto/pyroscope_push.proto \
	$(srcdir)/src/lib/proto/pyroscope_types.proto
	$(AM_V_GEN)$(MKDIR_P) src/lib/proto && \
	$(PROTOC_C) --proto_path=$(srcdir)/src/lib/proto --c_out=src/lib/proto \
	    $(srcdir)/src/lib/proto/pyroscope_push.proto
src/lib/proto/pyroscope_types.pb-c.h: src/lib/proto/pyroscope_types.pb-c.c
	@test -f $@ || rm -f src/lib/proto/pyroscope_types.pb-c.c
	@test -f $@ || $(MAKE) $(AM_MAKEFLAGS) src/lib/proto/pyroscope_types.pb-c.c
src/lib/proto/pyroscope_push.pb-c.h: src/lib/proto/pyroscope_push.pb-c.c
	@test -f $@ || rm -f src/lib/proto/pyroscope_push.pb-c.c
	@test -f $@ || $(MAKE) $(AM_MAKEFLAGS) src/lib/proto/pyroscope_push.pb-c.c

# base: allocation, errors, output, formatting, hashing, strings, gzip,
# signal names; nothing but libc and zlib.
libying_core_la_SOURCES += \
	src/lib/base.h \
	src/lib/base_alloc.c \
	src/lib/base_error.c \
	src/lib/base_out.c \
	src/lib/base_format.c \
	src/lib/base_hash.c \
	src/lib/base_strtab.c \
	src/lib/base_gz.c \
	src/lib/base_signal.c \
	src/lib/base_fd.c
# the one number parser (also compiled into libying_fe.la: mk/common.mk)
libying_core_la_SOURCES += src/lib/base_num.h src/lib/base_num.c
# the one private-directory check (also in libying_fe.la)
libying_core_la_SOURCES += src/lib/base_dir.h src/lib/base_dir.c

# model: the profile model, stack filters, flat/cum aggregation.
libying_core_la_SOURCES += \
	src/lib/model.h \
	src/lib/model.c \
	src/lib/model_filter.c \
	src/lib/model_agg.c

# read: heap_v2 and pprof readers, URL input (libcurl is dlopen'ed at run
# time; only its headers are needed here).
libying_core_la_SOURCES += \
	src/lib/read.h \
	src/lib/read.c \
	src/lib/read_heap.h \
	src/lib/read_heap.c \
	src/lib/read_heap_src.c \
	src/lib/read_pprof.c \
	src/lib/read_url.c
libying_core_la_CFLAGS += $(CURL_CFLAGS)

# sym: the symbolizer (elfutils, libiberty's demanglers) and allocator-frame
# trimming.
libying_core_la_SOURCES += \
	src/lib/sym.h \
	src/lib/sym_int.h \
	src/lib/sym_demangle.c \
	src/lib/sym_file.c \
	src/lib/sym_symtab.c \
	src/lib/sym_dwarf.c \
	src/lib/sym_pass.c \
	src/lib/sym_trim.c \
	src/lib/sym_cache.c
libying_core_la_LIBADD += $(IBERTY_LIBS)

# write: top table, folded stacks, flame graphs, pprof.
libying_core_la_SOURCES += \
	src/lib/write.h \
	src/lib/write_top.c \
	src/lib/write_folded.c \
	src/lib/write_flame.h \
	src/lib/write_flame_tree.c \
	src/lib/write_flame_svg.c \
	src/lib/write_flame_js.h \
	src/lib/write_pprof.h \
	src/lib/write_pprof.c \
	src/lib/write_pprof_ids.c \
	src/lib/write_api.c
# the call graph: DOT (jeprof --dot) and Graphviz rendering
libying_core_la_SOURCES += src/lib/write_dot.c src/lib/write_graphviz.c

# diff: NOW minus BASE.
libying_core_la_SOURCES += \
	src/lib/diff.h \
	src/lib/diff_int.h \
	src/lib/diff_build.c \
	src/lib/diff_text.c \
	src/lib/diff_flame.c \
	src/lib/diff_pprof.c

# ying-jeprof's library part: names from a jeprof symbol server (sym),
# jeprof's text, --list and --raw forms (write), the sum of profiles minus a
# base (diff).
libying_core_la_SOURCES += \
	src/lib/sym_remote.c \
	src/lib/write_jeprof.c \
	src/lib/diff_merge.c

# live: the mallctl layer, the growth runner, the HTTP endpoint (only with
# --enable-http / libmicrohttpd).
libying_core_la_SOURCES += \
	src/lib/live.h \
	src/lib/live_ctl.h \
	src/lib/live_ctl.c \
	src/lib/live_ctl_dump.c \
	src/lib/live_ctl_find.c \
	src/lib/live_runner.h \
	src/lib/live_runner.c \
	src/lib/live_runner_files.c \
	src/lib/live_runner_names.c \
	src/lib/live_runner_report.c
# the Pyroscope uploader (libcurl through read_url.c's dlopen loader)
libying_core_la_SOURCES += \
	src/lib/live_pyro.h \
	src/lib/live_pyro_req.c \
	src/lib/live_pyro_http.c \
	src/lib/live_pyro.c
src/lib/libying_core_la-live_pyro_req.lo src/lib/libying_core_la-live_pyro.lo: $(PYRO_PB_H)
if ENABLE_HTTP
libying_core_la_SOURCES += \
	src/lib/live_http.h \
	src/lib/live_http.c \
	src/lib/live_http_heap.c \
	src/lib/live_http_share.c \
	src/lib/live_http_diff.c \
	src/lib/live_http_symbolz.c \
	src/lib/live_http_listen.c \
	src/lib/live_http_serve.c \
	src/lib/live_http_addr.c \
	src/lib/live_http_peer.c \
	src/lib/live_http_access.c \
	src/lib/live_http_param.c
libying_core_la_CFLAGS += $(MHD_CFLAGS)
libying_core_la_LIBADD += $(MHD_LIBS)
endif
# recent allocations and lifetimes (issue 15): the JSON reader and the
# records (read), the lifetimes report (write), capture and the prof log
# (live).
libying_core_la_SOURCES += \
	src/lib/read_json.c \
	src/lib/read_recent.c \
	src/lib/write_lifetimes.c \
	src/lib/live_ctl_recent.c
if ENABLE_HTTP
libying_core_la_SOURCES += src/lib/live_http_recent.c
endif

# giant allocations (issue 15): the "ying-giant/1" JSON reader (read
# family) and the capture through jemalloc's allocation hooks (live).
libying_core_la_SOURCES += src/lib/read_giant.c src/lib/live_giant.c
# the symbolizer shared by the runner, the endpoint, the uploader and the
# giant writer (issue 16)
libying_core_la_SOURCES += src/lib/live_sym.c
if ENABLE_HTTP
libying_core_la_SOURCES += src/lib/live_http_giant.c
endif
