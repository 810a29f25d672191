/*
 * diff.h: what the diff family (diff_*.c) offers the other layers.  The
 * diff's own types are in diff_int.h (private to diff_*.c).
 */
#ifndef YING_DIFF_H
#define YING_DIFF_H

#include "model.h"

/* ---- diff internals (diff_*.c) ------------------------------------------- */
/* The synthetic NOW-minus-BASE profile that ying_diff_write_pprof hands to
 * yi_pprof_write (format YI_FMT_PPROF, symbolized, val[] = deltas, NOW's
 * mappings).  *out is new; release with ying_profile_free. */
int yi_diff_profile(ying_diff *d, ying_profile **out);
/* ying_diff_build over profiles as they are (symbolized or not; only read,
 * and they must outlive the diff): for callers whose profiles are
 * symbolized already.  ying_diff_build symbolizes both first. */
YI_SHARED int yi_diff_build(ying_diff **out, const ying_profile *base,
    const ying_profile *now, const ying_diff_build_opts *opts);

#endif /* YING_DIFF_H */
