# Tests of the write family: pprof (also read back), folded stacks, SVG
# flame graphs.

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
# ying pprof --max-samples/--max-bytes (ying_profile_fold) read by go tool pprof.
TESTS += tests/integration/pprof_fold.sh
EXTRA_DIST += tests/integration/pprof_fold.sh bench/fold.sh bench/fold_micro.c
# pprof inputs honour --binary, --drop-frames, --keep-allocator-frames.
TESTS += tests/integration/pprof_input_opts.sh
EXTRA_DIST += tests/integration/pprof_input_opts.sh

# --- folded stacks and SVG flame graphs ---------------------------------------
check_PROGRAMS += tests/unit/test_folded tests/unit/test_flame tests/programs/flame_prog
tests_unit_test_folded_SOURCES = tests/unit/test_folded.c tests/unit/tap.h tests/unit/flame_util.h
tests_unit_test_folded_LDADD = libying_live_core.la libying_core.la
tests_unit_test_flame_SOURCES = tests/unit/test_flame.c tests/unit/tap.h tests/unit/flame_util.h
tests_unit_test_flame_LDADD = libying_live_core.la libying_core.la
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

# The call graph (write_dot.c, ying callgraph): DOT on profiles built in
# memory; the CLI on a real dump against jeprof and Graphviz.
check_PROGRAMS += tests/unit/test_write_dot
tests_unit_test_write_dot_SOURCES = tests/unit/test_write_dot.c tests/unit/tap.h $(SYNTH_SOURCES)
tests_unit_test_write_dot_LDADD = libying_live_core.la libying_core.la
TESTS += tests/unit/test_write_dot
TESTS += tests/integration/callgraph.sh
EXTRA_DIST += tests/integration/callgraph.sh

# --- short function names (sym_short.c) on a real C++ program: top, diff,
# folded, flame graph, call graph, report, pprof, ying-jeprof; names_cxx.cc
# is compiled by the test with the system c++ (like jeprof_cxx.cc)
TESTS += tests/integration/names_cxx.sh
EXTRA_DIST += tests/integration/names_cxx.sh tests/programs/names_cxx.cc
