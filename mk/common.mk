# The front ends' private library (src/common): the settings table of the
# agent and `ying run` and its readers, and the number parser compiled
# under the front ends' names (fe_num.c includes src/lib/base_num.c).  A
# convenience library linked into ying, yingdiff and the agent; nothing of
# it is installed or exported.
noinst_LTLIBRARIES += libying_fe.la
libying_fe_la_SOURCES = src/common/fe.h src/common/fe_settings.c src/common/fe_num.c \
	src/common/fe_dir.c

# The table's readers and the flag/variable agreement.
check_PROGRAMS += tests/unit/test_fe_settings
TESTS += tests/unit/test_fe_settings
tests_unit_test_fe_settings_SOURCES = tests/unit/test_fe_settings.c tests/unit/tap.h
tests_unit_test_fe_settings_LDADD = libying_fe.la libying_core.la
