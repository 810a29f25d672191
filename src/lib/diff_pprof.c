/*
 * diff_pprof.c: NOW minus BASE as a pprof profile: a synthetic, already
 * symbolized ying_profile (yi_diff_profile) with the deltas as values,
 * written by yi_pprof_write.
 */
#include <math.h>
#include <stdlib.h>

#include "diff_int.h"
#include "write.h"

/* ---- NOW minus BASE as pprof --------------------------------------------- */

/*
 * The pprof writer takes any symbolized ying_profile, so the diff is turned
 * into one: a profile of format YI_FMT_PPROF (never re-symbolized), with
 * NOW's mappings, one stack per diff stack whose val[] are the four deltas,
 * and the representative stack's locations, lines and functions copied,
 * all through the model's constructors (yi_profile_loc_distinct,
 * yi_profile_func, yi_profile_set_lines, yi_profile_add_stack).
 * Locations that come from BASE (stacks gone from NOW) are moved into NOW's
 * address space when NOW has the same file mapped at the same offset;
 * otherwise they keep no address, only their lines.
 */
typedef struct synth {
	ying_diff *d;
	ying_profile *q;
	uint32_t *locmap[2];      /* source loc -> q loc, UINT32_MAX = not yet */
	uint32_t *funcmap[2];     /* source func -> q func */
	int32_t *mapmap[2];       /* source mapping -> q mapping, -1 = none */
	int64_t *mapshift[2];     /* address shift into q's mapping */
	YI_VEC(uint32_t) locs;    /* the stack being added, as q locations */
} synth;

static int
u32map(uint32_t **out, size_t n)
{
	if ((*out = yi_malloc((n ? n : 1) * sizeof(**out))) == NULL)
		return yi_oom("writing a diff profile");
	memset(*out, 0xff, (n ? n : 1) * sizeof(**out));
	return 0;
}

static int
synth_maps(synth *sy)
{
	ying_profile *q = sy->q;
	const ying_profile *now = sy->d->p[NOW], *base = sy->d->p[BASE];
	size_t i, j;
	int rc, side;

	for (i = 0; i < now->maps.n; i++) {
		yi_mapping m = now->maps.v[i];
		const char *path = yi_profile_str(now, m.path), *bid = yi_profile_str(now, m.build_id);
		if ((rc = yi_strtab_intern(&q->strs, path, strlen(path), &m.path)) != 0 ||
		    (rc = yi_strtab_intern(&q->strs, bid, strlen(bid), &m.build_id)) != 0 ||
		    (rc = yi_vec_grow(&q->maps, 1)) != 0)
			return rc;
		q->maps.v[q->maps.n++] = m;
	}
	q->main_map = now->main_map;
	q->has_maps = now->has_maps;
	for (side = 0; side < 2; side++) {
		const ying_profile *p = sy->d->p[side];
		size_t n = p->maps.n ? p->maps.n : 1;
		if ((sy->mapmap[side] = yi_malloc(n * sizeof(int32_t))) == NULL ||
		    (sy->mapshift[side] = yi_calloc(n, sizeof(int64_t))) == NULL)
			return yi_oom("writing a diff profile");
		for (i = 0; i < p->maps.n; i++)
			sy->mapmap[side][i] = side == NOW ? (int32_t)i : -1;
	}
	for (i = 0; i < base->maps.n; i++) {
		const yi_mapping *b = &base->maps.v[i];
		const char *bp = yi_profile_str(base, b->path);
		if (!*bp)
			continue;
		for (j = 0; j < now->maps.n; j++) {
			const yi_mapping *n = &now->maps.v[j];
			if (n->offset == b->offset && n->end - n->start == b->end - b->start &&
			    strcmp(yi_profile_str(now, n->path), bp) == 0) {
				sy->mapmap[BASE][i] = (int32_t)j;
				sy->mapshift[BASE][i] = (int64_t)(n->start - b->start);
				break;
			}
		}
	}
	return 0;
}

static int
synth_func(synth *sy, int side, uint32_t func, uint32_t *out)
{
	const ying_profile *p = sy->d->p[side];
	const yi_func *f = &p->funcs.v[func];
	int rc;

	if (sy->funcmap[side][func] == UINT32_MAX) {
		if ((rc = yi_profile_func(sy->q, yi_profile_str(p, f->name),
		    yi_profile_str(p, f->sysname), yi_profile_str(p, f->file),
		    &sy->funcmap[side][func])) != 0)
			return rc;
	}
	*out = sy->funcmap[side][func];
	return 0;
}

static int
synth_loc(synth *sy, int side, uint32_t loc, uint32_t *out)
{
	const ying_profile *p = sy->d->p[side];
	ying_profile *q = sy->q;
	const yi_loc *l = &p->locs.v[loc];
	yi_line lines[64], *lv = lines;
	int32_t mapping = -1;
	uint64_t addr;
	size_t k;
	int rc = 0;

	if (sy->locmap[side][loc] != UINT32_MAX) {
		*out = sy->locmap[side][loc];
		return 0;
	}
	addr = l->addr;
	if (l->mapping >= 0 && (size_t)l->mapping < p->maps.n) {
		mapping = sy->mapmap[side][l->mapping];
		if (mapping >= 0)
			addr = l->addr + (uint64_t)sy->mapshift[side][l->mapping];
	}
	if (mapping < 0 && side == BASE)
		addr = 0;   /* a BASE address means nothing in NOW's space */
	if (l->nlines > 64 && (lv = yi_malloc(l->nlines * sizeof(*lv))) == NULL)
		return yi_oom("writing a diff profile");
	for (k = 0; k < l->nlines; k++) {
		const yi_line *src = &p->lines.v[l->line_off + k];
		lv[k].line = src->line;
		if ((rc = synth_func(sy, side, src->func, &lv[k].func)) != 0)
			goto out;
	}
	if ((rc = yi_profile_loc_distinct(q, addr, mapping, out)) != 0)
		goto out;
	q->locs.v[*out].allocator = l->allocator;
	q->locs.v[*out].lskip = l->lskip;
	sy->locmap[side][loc] = *out;
	if (l->nlines)
		rc = yi_profile_set_lines(q, *out, lv, l->nlines);
out:
	if (lv != lines)
		yi_free(lv);
	return rc;
}

static int
synth_build(synth *sy)
{
	ying_diff *d = sy->d;
	ying_profile *q;
	size_t i;
	int rc, side, k;

	if ((rc = yi_profile_new(&sy->q, "yingdiff")) != 0)
		return rc;
	q = sy->q;
	q->format = YI_FMT_PPROF;
	q->symbolized = true;
	q->trimmed = true;
	q->period = d->p[NOW]->period;
	q->time = d->p[NOW]->time;
	q->has_accum = d->p[BASE]->has_accum && d->p[NOW]->has_accum;
	if ((rc = synth_maps(sy)) != 0)
		return rc;
	for (side = 0; side < 2; side++) {
		if ((rc = u32map(&sy->locmap[side], d->p[side]->locs.n)) != 0 ||
		    (rc = u32map(&sy->funcmap[side], d->p[side]->funcs.n)) != 0)
			return rc;
	}
	for (i = 0; i < d->stacks.n; i++) {
		const dstack *s = &d->stacks.v[i];
		const yi_counts raw = { 0, 0, 0, 0 };
		const yi_stack *src;
		const ying_profile *p;
		double val[4];
		uint32_t f;
		bool any = false;

		for (k = 0; k < 4; k++) {
			val[k] = s->val[NOW][k] - s->val[BASE][k];
			any |= val[k] != 0;
		}
		if (!any)
			continue;
		side = s->src[NOW] >= 0 ? NOW : BASE;
		p = d->p[side];
		src = &p->stacks.v[s->src[side]];
		sy->locs.n = 0;
		if ((rc = yi_vec_grow(&sy->locs, src->nframes)) != 0)
			return rc;
		for (f = 0; f < src->nframes; f++)
			if ((rc = synth_loc(sy, side, p->frames.v[src->frame_off + f],
			    &sy->locs.v[sy->locs.n++])) != 0)
				return rc;
		/* no raw counts: the deltas are the values; the source stack's
		 * trimming (q is marked trimmed) comes along */
		if ((rc = yi_profile_add_stack(q, sy->locs.v, sy->locs.n, &raw, val)) != 0)
			return rc;
		q->stacks.v[q->stacks.n - 1].skip = src->skip;
		if (d->has_heaps) {     /* the `heap` label of each sample */
			const char *h = yi_dstr(d, s->heap);
			if ((rc = yi_profile_add_heap(q, h, strlen(h),
			    &q->stacks.v[q->stacks.n - 1].heap)) != 0)
				return rc;
		}
	}
	return 0;
}

static void
synth_release(synth *sy)
{
	int side;

	for (side = 0; side < 2; side++) {
		yi_free(sy->locmap[side]);
		yi_free(sy->funcmap[side]);
		yi_free(sy->mapmap[side]);
		yi_free(sy->mapshift[side]);
	}
	yi_vec_free(&sy->locs);
	ying_profile_free(sy->q);
}

int
ying_diff_write_pprof(ying_diff *d, const ying_pprof_opts *opts,
    ying_write_fn fn, void *opaque)
{
	ying_pprof_opts o;
	synth sy;
	int rc;

	yi_error_clear();
	if (d == NULL || fn == NULL)
		return yi_error(YING_EINVAL, "ying_diff_write_pprof: no diff or sink");
	/* checked before the synthetic profile is built (version 1 or 2) */
	if ((rc = yi_pprof_opts_get(&o, opts, "ying_diff_write_pprof")) != 0)
		return rc;
	opts = &o;
	memset(&sy, 0, sizeof(sy));
	sy.d = d;
	if ((rc = synth_build(&sy)) == 0)
		rc = yi_pprof_write(sy.q, opts, fn, opaque);
	synth_release(&sy);
	return rc;
}

/* Internal: the synthetic profile itself, for tests (see internal.h). */
int
yi_diff_profile(ying_diff *d, ying_profile **out)
{
	synth sy;
	int rc;

	*out = NULL;
	memset(&sy, 0, sizeof(sy));
	sy.d = d;
	if ((rc = synth_build(&sy)) == 0) {
		*out = sy.q;
		sy.q = NULL;
	}
	synth_release(&sy);
	return rc;
}
