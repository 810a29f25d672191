/*
 * write_api.c: the public writers (ying_profile_write_top, _folded, _svg,
 * _pprof, _dot).
 *
 * The writers proper (write_top.c, write_folded.c, write_flame_svg.c,
 * write_pprof.c) take a const profile and never symbolize.  A caller of the
 * public API need not call ying_profile_symbolize first, so these wrappers
 * run that step with default options when it has not run (a no-op once it
 * has), then write.  This is the only file of the write family that calls
 * into the sym family's public step; the profile is modified only there.
 */
#include "write.h"

/* Symbolize and trim with defaults unless done (p may be NULL: the
 * writer reports it). */
static int
ready(ying_profile *p)
{
	if (p == NULL)
		return 0;
	return ying_profile_symbolize(p, NULL, NULL);
}

int
ying_profile_write_top(ying_profile *p, const ying_top_opts *opts,
    ying_write_fn fn, void *opaque)
{
	int rc;

	yi_error_clear();
	if ((rc = ready(p)) != 0)
		return rc;
	return yi_write_top(p, opts, fn, opaque);
}

int
ying_profile_write_folded(ying_profile *p, const ying_folded_opts *opts,
    ying_write_fn fn, void *opaque)
{
	int rc;

	yi_error_clear();
	if ((rc = ready(p)) != 0)
		return rc;
	return yi_write_folded(p, opts, fn, opaque);
}

int
ying_profile_write_svg(ying_profile *p, const ying_svg_opts *opts,
    ying_write_fn fn, void *opaque)
{
	int rc;

	yi_error_clear();
	if ((rc = ready(p)) != 0)
		return rc;
	return yi_write_svg(p, opts, fn, opaque);
}

int
ying_profile_write_pprof(ying_profile *p, const ying_pprof_opts *opts,
    ying_write_fn fn, void *opaque)
{
	int rc;

	yi_error_clear();
	if (p == NULL || fn == NULL)
		return yi_error(YING_EINVAL, "ying_profile_write_pprof: no profile or sink");
	if (opts && opts->version != YING_PPROF_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_pprof_opts version %d unsupported",
		    opts->version);
	if (!(opts && opts->unsymbolized) && (rc = ready(p)) != 0)
		return rc;
	return yi_pprof_write(p, opts, fn, opaque);
}

int
ying_profile_write_dot(ying_profile *p, const ying_dot_opts *opts,
    ying_write_fn fn, void *opaque)
{
	int rc;

	yi_error_clear();
	if ((rc = ready(p)) != 0)
		return rc;
	return yi_write_dot(p, opts, fn, opaque);
}
