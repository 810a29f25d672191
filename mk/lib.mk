# libying's sources, one block per family in data-flow order (see "Source
# layout" in docs/architecture.md): base -> model -> read -> sym -> write ->
# diff -> leaks (and sql, mk/sql.mk).  The live runtime is mk/live.mk.  internal.h is the umbrella over the per-family headers.
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

# base: allocation, errors, output, formatting, hashing, strings, gzip,
# descriptors out of a host's way, report-set names; nothing but libc and
# zlib.
libying_core_la_SOURCES += \
	src/lib/base.h \
	src/lib/base_alloc.c \
	src/lib/base_error.c \
	src/lib/base_out.c \
	src/lib/base_format.c \
	src/lib/base_hash.c \
	src/lib/base_strtab.c \
	src/lib/base_tmpfile.c \
	src/lib/base_gz.c \
	src/lib/base_maps.c \
	src/lib/base_fd.c \
	src/lib/base_reportname.c
# the one number parser (also compiled into libying_fe.la: mk/common.mk)
libying_core_la_SOURCES += src/lib/base_num.h src/lib/base_num.c
# the one private-directory check (also in libying_fe.la)
libying_core_la_SOURCES += src/lib/base_dir.h src/lib/base_dir.c

# model: the profile model, stack filters, flat/cum aggregation, sampling
# error, alloc deltas.
libying_core_la_SOURCES += \
	src/lib/model.h \
	src/lib/model.c \
	src/lib/model_delta.c \
	src/lib/model_filter.c \
	src/lib/model_agg.c \
	src/lib/model_noise.c

# read: heap_v2 and pprof readers.
libying_core_la_SOURCES += \
	src/lib/read.h \
	src/lib/read.c \
	src/lib/read_heap.h \
	src/lib/read_heap.c \
	src/lib/read_heap_src.c \
	src/lib/read_pprof.c

# sym: the symbolizer (elfutils, libiberty's demanglers), allocator-frame
# trimming and short names (sym_short.c).
libying_core_la_SOURCES += \
	src/lib/sym.h \
	src/lib/sym_int.h \
	src/lib/sym_demangle.c \
	src/lib/sym_file.c \
	src/lib/sym_symtab.c \
	src/lib/sym_dwarf.c \
	src/lib/sym_pass.c \
	src/lib/sym_trim.c \
	src/lib/sym_userframes.c \
	src/lib/sym_layers.c \
	src/lib/sym_wrap.c \
	src/lib/sym_short.c \
	src/lib/sym_cache.c
libying_core_la_LIBADD += $(IBERTY_LIBS)

# write: top table, folded stacks, flame graphs, pprof.
libying_core_la_SOURCES += \
	src/lib/write.h \
	src/lib/write_top.c \
	src/lib/write_folded.c \
	src/lib/write_flame.h \
	src/lib/write_flame_tree.c \
	src/lib/write_tree.c \
	src/lib/write_flame_svg.c \
	src/lib/write_flame_js.h \
	src/lib/write_pprof.h \
	src/lib/write_pprof.c \
	src/lib/write_pprof_ids.c \
	src/lib/write_fold.c \
	src/lib/write_api.c
# the _init() beside each option struct's _INIT macro
libying_core_la_SOURCES += src/lib/base_opts.c
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

# leaks: verdicts over a series of dumps (`ying leaks`); its database
# input is the sql family's (sql_leaks.c, mk/sql.mk).
libying_core_la_SOURCES += \
	src/lib/leaks.h \
	src/lib/leaks.c \
	src/lib/leaks_write.c \
	src/lib/leaks_hist.c

# ying-jeprof's library part: jeprof's text, --list and --raw forms
# (write), the sum of profiles minus a base (diff).  Names from a jeprof
# symbol server are the live runtime's (HTTP: src/live/live_symremote.c).
libying_core_la_SOURCES += \
	src/lib/write_jeprof.c \
	src/lib/diff_merge.c

# recent and giant allocations (issue 15): the JSON reader and the records
# (read), the lifetimes report (write).  Their capture is the live
# runtime's (mk/live.mk).
libying_core_la_SOURCES += \
	src/lib/read_json.c \
	src/lib/read_recent.c \
	src/lib/write_lifetimes.c \
	src/lib/read_giant.c
