# formats area
# --- pprof (helper "pprof") ---------------------------------------------------
# profile.proto is compiled by protoc-c at build time into the build tree
# (never shipped: the tarball needs protoc-c, the code never goes stale).
# Generated code gets its own convenience library so it can be compiled with
# warnings off while the rest stays -Werror clean.
PPROF_PB_C = src/lib/proto/profile.pb-c.c
PPROF_PB_H = src/lib/proto/profile.pb-c.h
noinst_LTLIBRARIES += libying_pb.la
libying_pb_la_SOURCES =
nodist_libying_pb_la_SOURCES = $(PPROF_PB_C) $(PPROF_PB_H)
libying_pb_la_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS) -w
libying_core_la_LIBADD += libying_pb.la
libying_core_la_SOURCES += src/lib/pprof_write.c src/lib/pprof_read.c
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
src/lib/libying_core_la-pprof_write.lo src/lib/libying_core_la-pprof_read.lo: $(PPROF_PB_H)

ying_SOURCES += src/cli/cmd_pprof.c

check_PROGRAMS += tests/programs/pprof_alloc tests/programs/pprof_manystacks
# Real programs for real dumps, linked with jemalloc and without sanitizers
# (jemalloc must own malloc).  The user's CFLAGS come last and may say -O2,
# so the sources also pin -O0 with a pragma to keep their stacks as written.
tests_programs_pprof_alloc_SOURCES = tests/programs/pprof_alloc.c
tests_programs_pprof_alloc_CFLAGS = -O0 -g -fno-omit-frame-pointer -fno-inline $(JEMALLOC_CFLAGS)
tests_programs_pprof_alloc_LDFLAGS =
tests_programs_pprof_alloc_LDADD = $(JEMALLOC_LIBS)
tests_programs_pprof_manystacks_SOURCES = tests/programs/pprof_manystacks.c
tests_programs_pprof_manystacks_CFLAGS = -O0 -g -fno-omit-frame-pointer -fno-inline $(JEMALLOC_CFLAGS)
tests_programs_pprof_manystacks_LDFLAGS =
tests_programs_pprof_manystacks_LDADD = $(JEMALLOC_LIBS)
TESTS += tests/integration/pprof_go.sh
# test_read_pprof and test_write_pprof (mk/unit.mk) also read two of the
# core fixtures (listing a file twice in EXTRA_DIST is harmless).
EXTRA_DIST += tests/integration/pprof_go.sh

# --- folded stacks and SVG flame graphs (helper "flame") ----------------------
libying_core_la_SOURCES += src/lib/folded.c src/lib/flame.c src/lib/flame_js.h
ying_SOURCES += src/cli/cmd_folded.c src/cli/cmd_flamegraph.c
check_PROGRAMS += tests/unit/test_folded tests/unit/test_flame tests/programs/flame_prog
tests_unit_test_folded_SOURCES = tests/unit/test_folded.c tests/unit/tap.h tests/unit/flame_util.h
tests_unit_test_folded_LDADD = libying_core.la
tests_unit_test_flame_SOURCES = tests/unit/test_flame.c tests/unit/tap.h tests/unit/flame_util.h
tests_unit_test_flame_LDADD = libying_core.la
# Profiled program: -O0 -g, linked with jemalloc, no sanitizer flags.
tests_programs_flame_prog_SOURCES = tests/programs/flame_prog.c
tests_programs_flame_prog_CFLAGS = -O0 -g -fno-omit-frame-pointer -fno-inline $(JEMALLOC_CFLAGS)
tests_programs_flame_prog_LDFLAGS =
tests_programs_flame_prog_LDADD = $(JEMALLOC_LIBS)
FLAME_IT = tests/integration/folded_jeprof.sh tests/integration/flame_chromium.sh
TESTS += tests/unit/test_folded tests/unit/test_flame $(FLAME_IT)
EXTRA_DIST += $(FLAME_IT) tests/integration/flame_cdp.py tests/integration/flame_gen.py \
	tests/programs/flame_cxx.cc tests/data/flame_fake.heap tests/data/flame_fake.folded \
	tests/data/flame_fake_objects.folded
CLEANFILES += flame_chromium.png
