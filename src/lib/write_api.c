/*
 * write_api.c: the public writers (ying_profile_write_top, _folded, _svg,
 * _pprof, _dot).
 *
 * The writers proper (write_top.c, write_folded.c, write_flame_svg.c,
 * write_pprof.c, write_dot.c) take a const profile and never symbolize;
 * neither do these wrappers: they clear the error detail and write the
 * profile as it is (an unsymbolized heap_v2 dump: frames without names,
 * "[unknown]" in the text writers, addresses in pprof).  Symbolizing is the
 * caller's explicit step (ying_profile_symbolize), so writers only read
 * and may run on one profile from several threads at once.
 */
#include "write.h"

int
ying_profile_write_top(const ying_profile *p, const ying_top_opts *opts,
    ying_write_fn fn, void *opaque)
{
	yi_error_clear();
	return yi_write_top(p, opts, fn, opaque);
}

int
ying_profile_write_folded(const ying_profile *p, const ying_folded_opts *opts,
    ying_write_fn fn, void *opaque)
{
	yi_error_clear();
	return yi_write_folded(p, opts, fn, opaque);
}

int
ying_profile_write_svg(const ying_profile *p, const ying_svg_opts *opts,
    ying_write_fn fn, void *opaque)
{
	yi_error_clear();
	return yi_write_svg(p, opts, fn, opaque);
}

int
ying_profile_write_pprof(const ying_profile *p, const ying_pprof_opts *opts,
    ying_write_fn fn, void *opaque)
{
	yi_error_clear();
	if (p == NULL || fn == NULL)
		return yi_error(YING_EINVAL, "ying_profile_write_pprof: no profile or sink");
	/* yi_pprof_write reads the options by their version (1 or 2) */
	return yi_pprof_write(p, opts, fn, opaque);
}

int
ying_profile_write_dot(const ying_profile *p, const ying_dot_opts *opts,
    ying_write_fn fn, void *opaque)
{
	yi_error_clear();
	return yi_write_dot(p, opts, fn, opaque);
}
