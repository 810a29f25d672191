# The private front-end library (src/common/): what the front ends (ying,
# yingdiff, ying-jeprof, the agent) share and the libraries' users do not
# need: the settings table of the agent and `ying run` and its readers, the
# signal names for dump requests, and two self-contained rules of libying's
# base layer compiled again under the front ends' names (fe_num.c includes
# src/lib/base_num.c, fe_dir.c src/lib/base_dir.c), so that the front ends
# parse numbers and check directories by the library's rule without linking
# any of its internals.  Never installed; linked into each front end.
noinst_LTLIBRARIES += libying_fe.la
libying_fe_la_CPPFLAGS = $(FE_CPPFLAGS)
libying_fe_la_SOURCES = src/common/fe.h src/common/fe_settings.c src/common/fe_frames.c src/common/fe_num.c \
	src/common/fe_dir.c src/common/fe_signal.h src/common/fe_signal.c src/common/fe_agent.h

# The table's readers and the flag/variable agreement.
check_PROGRAMS += tests/unit/test_fe_settings
TESTS += tests/unit/test_fe_settings
tests_unit_test_fe_settings_SOURCES = tests/unit/test_fe_settings.c tests/unit/tap.h
tests_unit_test_fe_settings_LDADD = libying_fe.la libying_live_core.la libying_core.la
