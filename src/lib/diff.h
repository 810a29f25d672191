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

#endif /* YING_DIFF_H */
