/*
 * live_opts.c: the _init() function beside each option struct's _INIT
 * macro of include/ying-live.h (the rule: base_opts.c of libying).
 * Nothing is allocated; o == NULL is a no-op.
 */
#include "live.h"

void
ying_http_opts_init(ying_http_opts *o)
{
	const ying_http_opts d = YING_HTTP_OPTS_INIT;

	if (o != NULL)
		*o = d;
}

void
ying_runner_opts_init(ying_runner_opts *o)
{
	const ying_runner_opts d = YING_RUNNER_OPTS_INIT;

	if (o != NULL)
		*o = d;
}

void
ying_fetch_opts_init(ying_fetch_opts *o)
{
	const ying_fetch_opts d = YING_FETCH_OPTS_INIT;

	if (o != NULL)
		*o = d;
}

void
ying_pyroscope_opts_init(ying_pyroscope_opts *o)
{
	const ying_pyroscope_opts d = YING_PYROSCOPE_OPTS_INIT;

	if (o != NULL)
		*o = d;
}

void
ying_giant_capture_opts_init(ying_giant_capture_opts *o)
{
	const ying_giant_capture_opts d = YING_GIANT_CAPTURE_OPTS_INIT;

	if (o != NULL)
		*o = d;
}
