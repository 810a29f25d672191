/*
 * base_opts.c: the _init() function beside each option struct's _INIT
 * macro of include/ying.h (the sql family's is in sql_db.c).
 *
 * One rule for every versioned option struct: `int version` first, a
 * YING_X_OPTS_INIT macro and ying_X_opts_init() that fill the current
 * version and the defaults, NULL for defaults where a call takes one, and
 * any other version is YING_EINVAL naming the struct.  ying_X_opts_init
 * is for callers that cannot use a C initializer (bindings, C++ members,
 * reusing a struct); it writes the very bytes of the macro.  Nothing is
 * allocated; o == NULL is a no-op.
 */
#include "base.h"

void
ying_symbolize_opts_init(ying_symbolize_opts *o)
{
	const ying_symbolize_opts d = YING_SYMBOLIZE_OPTS_INIT;

	if (o != NULL)
		*o = d;
}

void
ying_top_opts_init(ying_top_opts *o)
{
	const ying_top_opts d = YING_TOP_OPTS_INIT;

	if (o != NULL)
		*o = d;
}

void
ying_pprof_opts_init(ying_pprof_opts *o)
{
	const ying_pprof_opts d = YING_PPROF_OPTS_INIT;

	if (o != NULL)
		*o = d;
}

void
ying_fold_opts_init(ying_fold_opts *o)
{
	const ying_fold_opts d = YING_FOLD_OPTS_INIT;

	if (o != NULL)
		*o = d;
}

void
ying_folded_opts_init(ying_folded_opts *o)
{
	const ying_folded_opts d = YING_FOLDED_OPTS_INIT;

	if (o != NULL)
		*o = d;
}

void
ying_svg_opts_init(ying_svg_opts *o)
{
	const ying_svg_opts d = YING_SVG_OPTS_INIT;

	if (o != NULL)
		*o = d;
}

void
ying_dot_opts_init(ying_dot_opts *o)
{
	const ying_dot_opts d = YING_DOT_OPTS_INIT;

	if (o != NULL)
		*o = d;
}

void
ying_diff_build_opts_init(ying_diff_build_opts *o)
{
	const ying_diff_build_opts d = YING_DIFF_BUILD_OPTS_INIT;

	if (o != NULL)
		*o = d;
}

void
ying_diff_opts_init(ying_diff_opts *o)
{
	const ying_diff_opts d = YING_DIFF_OPTS_INIT;

	if (o != NULL)
		*o = d;
}

void
ying_jeprof_opts_init(ying_jeprof_opts *o)
{
	const ying_jeprof_opts d = YING_JEPROF_OPTS_INIT;

	if (o != NULL)
		*o = d;
}

void
ying_merge_opts_init(ying_merge_opts *o)
{
	const ying_merge_opts d = YING_MERGE_OPTS_INIT;

	if (o != NULL)
		*o = d;
}

void
ying_lifetimes_opts_init(ying_lifetimes_opts *o)
{
	const ying_lifetimes_opts d = YING_LIFETIMES_OPTS_INIT;

	if (o != NULL)
		*o = d;
}
