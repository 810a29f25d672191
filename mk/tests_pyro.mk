# Pyroscope (issue 12): the stand-in server the tests upload to
# (tests/pyro/standin.py with the .proto files it decodes with, written from
# the reference, independent of the uploader's proto/), the end-to-end tests
# of push, /ingest, pull (Alloy's scrape), auth, faults and `ying upload`,
# and the cost benchmark.  They run real programs under `ying run`, so they
# need the HTTP endpoint (--enable-http).
PYRO_TESTS = tests/integration/pyro_standin.sh tests/integration/pyro_pull.sh \
	tests/integration/pyro_push.sh tests/integration/pyro_auth.sh \
	tests/integration/pyro_faults.sh tests/integration/pyro_upload.sh \
	tests/integration/pyro_hostile.sh tests/integration/pyro_children.sh \
	tests/integration/pyro_validate.sh
# Issue 27: profiles within a default Pyroscope's limits (folding), and
# alloc deltas that Alloy's matching can compute (stable labels).
PYRO_TESTS += tests/integration/pyro_limits.sh tests/integration/pyro_alloy.sh \
	tests/integration/pyro_deltas.sh
if ENABLE_HTTP
TESTS += $(PYRO_TESTS)
endif
EXTRA_DIST += $(PYRO_TESTS) tests/integration/pyro_lib.sh \
	tests/pyro/standin.py tests/pyro/push.proto tests/pyro/types.proto \
	tests/pyro/profile.proto bench/pyroscope_cost.sh bench/pyro_fold.sh \
	tests/pyro/validate.py tests/pyro/test_validate.py \
	tests/pyro/alloy_delta.py tests/pyro/test_alloy_delta.py
# The many-stacks program of the limit and delta tests (pyro_limits.sh,
# pyro_alloy.sh): -O2 like a real program, its frames kept by noinline,
# volatile sinks and function-pointer tables.
check_PROGRAMS += tests/programs/many_stacks
tests_programs_many_stacks_SOURCES = tests/programs/many_stacks.c
tests_programs_many_stacks_CFLAGS = -g -O2 -std=gnu11 -fno-omit-frame-pointer \
	-Wall -Wextra
tests_programs_many_stacks_LDFLAGS =
tests_programs_many_stacks_LDADD =
