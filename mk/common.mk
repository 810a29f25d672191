# The private front-end library (src/common/): what the front ends (ying,
# yingdiff, ying-jeprof, the agent) share and libying's users do not need:
# signal names for dump requests, ...  It is built on the public API only,
# never installed, and linked into each front end.
noinst_LTLIBRARIES += libying_fe.la
libying_fe_la_CPPFLAGS = $(FE_CPPFLAGS)
libying_fe_la_SOURCES = \
	src/common/fe_signal.h \
	src/common/fe_signal.c
