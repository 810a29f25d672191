/*
 * live_giant.h: what live_giant.c (the hook, the ring, the drain thread)
 * and live_giant_json.c (call-site profiles and the "ying-giant/1"
 * listing) share.  Private to src/lib.
 */
#ifndef YING_LIVE_GIANT_H
#define YING_LIVE_GIANT_H

#include "live.h"

#define YI_GIANT_DEPTH 64     /* frames per record */

/* A call site: its stack and what was allocated there. */
typedef struct yi_gsite {
	uint64_t hash, count, bytes;
	uint32_t n;
	bool logged;
	uintptr_t pcs[YI_GIANT_DEPTH];
} yi_gsite;

/* A kept record: one giant allocation. */
typedef struct yi_grec {
	uint64_t seq, size, tid;
	int64_t time_ns;
	uint32_t kind, site;
} yi_grec;

/* What a listing writes, copied out under the locks (yi_giant_snapshot):
 * the call sites, the records from `since` on, the counters, and a
 * symbolizer reference of the snapshot's own.  Freed by
 * yi_giant_snap_free (which puts the symbolizer back). */
typedef struct yi_giant_snap {
	yi_gsite *sites;
	size_t nsites;
	yi_grec *recs;
	size_t nrecs;
	uint64_t threshold, allocs, dropped, next;
	ying_symbolizer *sym;
} yi_giant_snap;

/* live_giant.c.  Drain the ring and copy what a listing needs into *out
 * (s: the caller's symbolizer, or NULL for the process's shared one); the
 * locks are held only for the drain and the copy.  0, YING_ENODATA (not
 * recording here, or a forked child) or YING_ENOMEM. */
int yi_giant_snapshot(yi_giant_snap *out, uint64_t since, ying_symbolizer *s);
void yi_giant_snap_free(yi_giant_snap *snap);
/* "malloc", "realloc (in place)", ... for a record's kind. */
const char *yi_giant_kind_name(uint32_t kind);

/* live_giant_json.c.  A profile of sites[0..n), symbolized with s; *maps
 * (may be NULL) gets the maps text it used (yi_free).  The caller frees
 * the profile (ying_profile_free). */
int yi_giant_sites_profile(const yi_gsite *sites, size_t n, ying_symbolizer *s,
    ying_profile **out, char **maps);
/* The first frame kept of stack i of such a profile: function, file,
 * line (pointers into p). */
void yi_giant_first_frame(const ying_profile *p, size_t i, yi_framevec *fv,
    const char **fn, const char **file, uint32_t *line);

#endif /* YING_LIVE_GIANT_H */
