/*
 * leaks_hist.c: a bounded history of per-stack live bytes over the dumps
 * of one process, so that the agent can give leak verdicts so far (growth
 * reports, GET /debug/heap/leaks) without keeping its dumps: the growth
 * runner adds every dump it takes (live_leakhist.c holds the process's one
 * history under a lock), and a reader turns a copy into a ying_leaks.
 *
 * A stack is known by yi_stack_key (its addresses, heap and depth: the
 * same identity as the uploader's alloc deltas), so nothing is symbolized
 * while the history is fed.  Per tracked stack it keeps its addresses and
 * one row of floats: the unsampled inuse bytes and their sampling variance
 * (yi_sample_var) at each point; a float's 24-bit mantissa is far finer
 * than the sampling error of any estimate it holds.
 *
 * Bounds, whatever the program does: at most max_points points (256) and
 * max_stacks stacks (512), so the rows take at most 1 MiB.
 *   - Points: when the rows are full, every other point goes (the later of
 *     each pair stays) and from then on one dump in 2 (then 4, 8, ...)
 *     makes a point: the points stay evenly spaced over the whole run.
 *     The newest dump is always the last point (a tentative one that the
 *     next dump replaces until a whole stride has passed), so verdicts
 *     include the latest dump.
 *   - Stacks: new stacks take free rows largest first.  When the table is
 *     full, a stack absent from the last 3 dumps gives its row up, and a
 *     new stack more than twice as big as the smallest tracked one takes
 *     that one's row (at most 64 such swaps a dump).  What leaves a row,
 *     and every stack that finds none, is summed into one row, the site
 *     YI_LEAKS_HIST_OTHER, so totals stay whole.  A leak is thus tracked
 *     once its stack is among the largest, as it becomes by leaking.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "leaks.h"
#include "read.h"

#define ZERO_RUN_EVICT 3        /* dumps absent before a row is freed */
#define MAX_SWAPS 64            /* big new stacks replacing small ones, per dump */

typedef struct hist_stack {
	uint64_t key;
	uint64_t *pcs;          /* raw pcs, leaf first, as a heap_v2 '@' line */
	uint32_t npcs;
	uint32_t zero_run;      /* latest dumps in a row that lacked it */
	float *row;             /* bytes[max_points], then var[max_points] */
} hist_stack;

struct yi_leaks_hist {
	size_t maxp, maxs;
	uint64_t key[2];
	double *t;              /* per point, seconds */
	size_t npts;
	bool tentative;         /* the last point is replaced by the next dump */
	unsigned stride, since; /* dumps per point; dumps into the current one */
	uint64_t dumps, evicted;
	uint64_t period;
	size_t untracked;
	hist_stack *st;         /* [maxs], nst used */
	size_t nst;
	float *other;           /* the other row */
	yi_map64 idx;           /* key -> index in st */
};

YI_SHARED int
yi_leaks_hist_new(yi_leaks_hist **out, size_t max_points, size_t max_stacks)
{
	yi_leaks_hist *h;

	*out = NULL;
	if (max_points == 0)
		max_points = YI_LEAKS_HIST_POINTS;
	if (max_stacks == 0)
		max_stacks = YI_LEAKS_HIST_STACKS;
	if (max_points < 8 || max_points % 2 || max_points > 65536 || max_stacks > 65536)
		return yi_error(YING_EINVAL, "leak history: %zu points, %zu stacks (8 to "
		    "65536 points, even; at most 65536 stacks)", max_points, max_stacks);
	if ((h = yi_calloc(1, sizeof(*h))) == NULL)
		return yi_oom("the leak history");
	h->maxp = max_points;
	h->maxs = max_stacks;
	h->stride = 1;
	yi_hash_key(h->key);
	if ((h->t = yi_calloc(max_points, sizeof(double))) == NULL ||
	    (h->st = yi_calloc(max_stacks ? max_stacks : 1, sizeof(hist_stack))) == NULL ||
	    (h->other = yi_calloc(2 * max_points, sizeof(float))) == NULL ||
	    yi_map64_init(&h->idx, max_stacks) != 0) {
		yi_leaks_hist_free(h);
		return yi_oom("the leak history");
	}
	*out = h;
	return 0;
}

YI_SHARED void
yi_leaks_hist_free(yi_leaks_hist *h)
{
	if (h == NULL)
		return;
	for (size_t i = 0; i < h->nst; i++) {
		yi_free(h->st[i].pcs);
		yi_free(h->st[i].row);
	}
	yi_free(h->st);
	yi_free(h->t);
	yi_free(h->other);
	yi_map64_release(&h->idx);
	yi_free(h);
}

/* Rebuild the key index after rows moved. */
static int
reindex(yi_leaks_hist *h)
{
	uint32_t *slot;
	bool added;
	int rc;

	yi_map64_release(&h->idx);
	if ((rc = yi_map64_init(&h->idx, h->maxs)) != 0)
		return rc;
	for (size_t i = 0; i < h->nst; i++)
		if ((rc = yi_map64_put(&h->idx, h->st[i].key, (uint32_t)i, &slot, &added)) != 0)
			return rc;
	return 0;
}

/* Move stack i's row into the other row and free it (the last stack
 * takes its place; the caller reindexes). */
static void
evict(yi_leaks_hist *h, size_t i)
{
	hist_stack *s = &h->st[i];

	for (size_t j = 0; j < h->npts; j++) {
		h->other[j] += s->row[j];
		h->other[h->maxp + j] += s->row[h->maxp + j];
	}
	yi_free(s->pcs);
	yi_free(s->row);
	h->st[i] = h->st[--h->nst];
	memset(&h->st[h->nst], 0, sizeof(hist_stack));
	h->evicted++;
}

/* Every other point goes (the later of each pair stays). */
static void
halve(yi_leaks_hist *h)
{
	size_t n = h->npts / 2;

	for (size_t k = 0; k < n; k++) {
		h->t[k] = h->t[2 * k + 1];
		h->other[k] = h->other[2 * k + 1];
		h->other[h->maxp + k] = h->other[h->maxp + 2 * k + 1];
		for (size_t i = 0; i < h->nst; i++) {
			float *r = h->st[i].row;
			r[k] = r[2 * k + 1];
			r[h->maxp + k] = r[h->maxp + 2 * k + 1];
		}
	}
	h->npts = n;
	h->stride *= 2;
}

typedef struct cand {
	uint64_t key;
	size_t stack;
	double bytes, var;
} cand;

static int
cand_cmp(const void *x, const void *y)
{
	const cand *a = x, *b = y;

	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

/* v[0..k): the min-heap of the k largest by cand_cmp order. */
static void
sift_down(cand *v, size_t k, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		cand t;
		/* cand_cmp(a, b) > 0: a ranks after b (smaller) */
		if (l < k && cand_cmp(&v[l], &v[m]) > 0)
			m = l;
		if (l + 1 < k && cand_cmp(&v[l + 1], &v[m]) > 0)
			m = l + 1;
		if (m == i)
			return;
		t = v[i];
		v[i] = v[m];
		v[m] = t;
		i = m;
	}
}

/* Keep the k largest of v[0..n) in v[0..k); the others' bytes go to the
 * other row at point j (counted as untracked). */
static void
heap_select(cand *v, size_t n, size_t k, yi_leaks_hist *h, size_t j)
{
	for (size_t i = k / 2; i-- > 0;)
		sift_down(v, k, i);
	for (size_t i = k; i < n; i++) {
		const cand *out = &v[i];
		if (k > 0 && cand_cmp(&v[i], &v[0]) < 0) {
			cand t = v[0];
			v[0] = v[i];
			v[i] = t;
			sift_down(v, k, 0);
		}
		h->other[j] += (float)out->bytes;
		h->other[h->maxp + j] += (float)out->var;
		h->untracked++;
	}
}

/* A row for stack c (of p) at index i (new: i == h->nst). */
static int
track(yi_leaks_hist *h, const ying_profile *p, const cand *c, size_t i)
{
	const yi_stack *s = &p->stacks.v[c->stack];
	hist_stack *hs = &h->st[i];

	memset(hs, 0, sizeof(*hs));
	if ((hs->row = yi_calloc(2 * h->maxp, sizeof(float))) == NULL ||
	    (s->nframes && (hs->pcs = yi_calloc(s->nframes, sizeof(uint64_t))) == NULL)) {
		yi_free(hs->row);
		hs->row = NULL;
		return yi_oom("the leak history");
	}
	/* the locations hold pc - 1 for callers (jeprof's FixCallerAddresses):
	 * back to the dump's pcs, which yi_profile_add_pcs expects */
	for (uint32_t k = 0; k < s->nframes; k++) {
		uint64_t a = p->locs.v[p->frames.v[s->frame_off + k]].addr;
		hs->pcs[k] = k == 0 || a == 0 ? a : a + 1;
	}
	hs->npcs = s->nframes;
	hs->key = c->key;
	return 0;
}

YI_SHARED int
yi_leaks_hist_add(yi_leaks_hist *h, const ying_profile *p, double t)
{
	YI_VEC(cand) cs = { 0 };
	uint64_t *buf = NULL;
	size_t maxf = 0, j, ci = 0, swaps = 0;
	int rc = 0;

	if (h == NULL || p == NULL || !isfinite(t))
		return yi_error(YING_EINVAL, "leak history: no history, no dump or no time");
	for (size_t i = 0; i < p->stacks.n; i++)
		if (p->stacks.v[i].nframes > maxf)
			maxf = p->stacks.v[i].nframes;
	if ((buf = yi_malloc((maxf + 2) * sizeof(*buf))) == NULL)
		return yi_oom("the leak history");
	/* the point this dump fills */
	if (!h->tentative) {
		if (h->npts == h->maxp)
			halve(h);
		j = h->npts++;
	} else {
		j = h->npts - 1;
	}
	h->t[j] = t;
	h->other[j] = h->other[h->maxp + j] = 0;
	for (size_t i = 0; i < h->nst; i++)
		h->st[i].row[j] = h->st[i].row[h->maxp + j] = 0;
	if (p->period > h->period)
		h->period = p->period;
	/* tracked stacks now; the others are candidates for a row */
	for (size_t i = 0; i < p->stacks.n; i++) {
		const yi_stack *s = &p->stacks.v[i];
		double b = s->val[YING_INUSE_SPACE];
		double v = yi_sample_var(s->val[YING_INUSE_OBJECTS], b, p->period, true);
		uint64_t key;
		uint32_t *at;

		if (!(b > 0))
			continue;
		key = yi_stack_key(h->key, p, s, buf);
		if ((at = yi_map64_get(&h->idx, key)) != NULL) {
			h->st[*at].row[j] += (float)b;
			h->st[*at].row[h->maxp + j] += (float)v;
			continue;
		}
		if ((rc = yi_vec_grow(&cs, 1)) != 0)
			goto out;
		cs.v[cs.n++] = (cand){ key, i, b, v };
	}
	/* rows absent for a while go when the table is full */
	if (h->nst == h->maxs && cs.n > 0) {
		size_t before = h->nst;
		for (size_t i = 0; i < h->nst;)
			if (h->st[i].row[j] == 0 && h->st[i].zero_run + 1 >= ZERO_RUN_EVICT)
				evict(h, i);
			else
				i++;
		if (h->nst != before && (rc = reindex(h)) != 0)
			goto out;
	}
	/* only the largest free + MAX_SWAPS can get a row: select them (a
	 * min-heap of that many, O(n log k)), sort those, sum the rest */
	{
		size_t k = h->maxs - h->nst + MAX_SWAPS;
		if (cs.n > k) {
			h->untracked = 0;
			heap_select(&cs.v[0], cs.n, k, h, j);
			cs.n = k;
		} else {
			h->untracked = 0;
		}
	}
	if (cs.n > 1)
		qsort(cs.v, cs.n, sizeof(cand), cand_cmp);
	for (; ci < cs.n; ci++) {
		const cand *c = &cs.v[ci];
		uint32_t *slot, *at;
		bool added;
		size_t i;

		if ((at = yi_map64_get(&h->idx, c->key)) != NULL) {
			/* the same stack twice in one dump */
			h->st[*at].row[j] += (float)c->bytes;
			h->st[*at].row[h->maxp + j] += (float)c->var;
			continue;
		}
		if (h->nst < h->maxs) {
			i = h->nst;
		} else {
			/* the smallest tracked row now, if this one is much bigger */
			size_t small = 0;
			if (swaps >= MAX_SWAPS || h->maxs == 0)
				break;
			for (size_t k = 1; k < h->nst; k++)
				if (h->st[k].row[j] < h->st[small].row[j])
					small = k;
			if (!(c->bytes > 2.0 * h->st[small].row[j]))
				break;
			evict(h, small);
			if ((rc = reindex(h)) != 0)
				goto out;
			swaps++;
			i = h->nst;
		}
		if ((rc = track(h, p, c, i)) != 0)
			goto out;
		h->nst++;
		h->st[i].row[j] = (float)c->bytes;
		h->st[i].row[h->maxp + j] = (float)c->var;
		if ((rc = yi_map64_put(&h->idx, c->key, (uint32_t)i, &slot, &added)) != 0)
			goto out;
	}
	/* the rest: the other row */
	for (; ci < cs.n; ci++) {
		uint32_t *at = yi_map64_get(&h->idx, cs.v[ci].key);
		if (at != NULL) {
			h->st[*at].row[j] += (float)cs.v[ci].bytes;
			h->st[*at].row[h->maxp + j] += (float)cs.v[ci].var;
			continue;
		}
		h->other[j] += (float)cs.v[ci].bytes;
		h->other[h->maxp + j] += (float)cs.v[ci].var;
		h->untracked++;
	}
	for (size_t i = 0; i < h->nst; i++)
		h->st[i].zero_run = h->st[i].row[j] != 0 ? 0 : h->st[i].zero_run + 1;
	h->dumps++;
	if (++h->since >= h->stride) {
		h->since = 0;
		h->tentative = false;
	} else {
		h->tentative = true;
	}
out:
	yi_vec_free(&cs);
	yi_free(buf);
	return rc;
}

YI_SHARED int
yi_leaks_hist_copy(yi_leaks_hist **out, const yi_leaks_hist *h)
{
	yi_leaks_hist *c;
	int rc;

	*out = NULL;
	if ((rc = yi_leaks_hist_new(&c, h->maxp, h->maxs)) != 0)
		return rc;
	memcpy(c->key, h->key, sizeof(c->key));
	memcpy(c->t, h->t, h->npts * sizeof(double));
	memcpy(c->other, h->other, 2 * h->maxp * sizeof(float));
	c->npts = h->npts;
	c->tentative = h->tentative;
	c->stride = h->stride;
	c->since = h->since;
	c->dumps = h->dumps;
	c->evicted = h->evicted;
	c->period = h->period;
	c->untracked = h->untracked;
	for (size_t i = 0; i < h->nst; i++) {
		const hist_stack *s = &h->st[i];
		hist_stack *d = &c->st[i];
		*d = *s;
		d->row = yi_malloc(2 * h->maxp * sizeof(float));
		d->pcs = s->npcs ? yi_malloc(s->npcs * sizeof(uint64_t)) : NULL;
		c->nst = i + 1;
		if (d->row == NULL || (s->npcs && d->pcs == NULL)) {
			yi_leaks_hist_free(c);
			return yi_oom("copying the leak history");
		}
		memcpy(d->row, s->row, 2 * h->maxp * sizeof(float));
		if (s->npcs)
			memcpy(d->pcs, s->pcs, s->npcs * sizeof(uint64_t));
	}
	if ((rc = reindex(c)) != 0) {
		yi_leaks_hist_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

YI_SHARED int
yi_leaks_hist_leaks(const yi_leaks_hist *h, const char *maps, size_t maps_len,
    ying_symbolizer *sym, const ying_symbolize_opts *so, int by_stack,
    ying_leaks **out)
{
	ying_profile *names = NULL;
	ying_leaks *l = NULL;
	const float **rows = NULL;
	int rc;

	*out = NULL;
	if (h->npts == 0)
		return yi_error(YING_ENODATA, "the leak history has no dump yet");
	/* one stack per tracked row, as a heap_v2 dump of them would be */
	if ((rc = yi_profile_new_heap(&names, "leak history", h->period ? h->period : 1,
	    NULL)) != 0)
		return rc;
	if ((rows = yi_calloc(h->nst + 1, sizeof(*rows))) == NULL)
		rc = yi_oom("the leak history");
	for (size_t i = 0; rc == 0 && i < h->nst; i++) {
		yi_counts c = { 1, 1, 0, 0 };
		rows[i] = h->st[i].row;
		rc = yi_profile_add_pcs(names, h->st[i].pcs, h->st[i].npcs, &c);
	}
	if (rc == 0)
		rc = yi_heap_parse_maps(names, maps ? maps : "", maps ? maps_len : 0,
		    "the leak history's maps");
	if (rc == 0)
		rc = ying_profile_symbolize(names, sym, so);
	if (rc == 0)
		rc = ying_leaks_new(&l, by_stack);
	if (rc == 0)
		rc = yi_leaks_add_rows(l, names, h->t, h->npts, h->period, rows, h->maxp,
		    h->other, YI_LEAKS_HIST_OTHER);
	if (rc == 0)
		rc = ying_leaks_compute(l);
	yi_free(rows);
	ying_profile_free(names);
	if (rc != 0) {
		ying_leaks_free(l);
		return rc;
	}
	*out = l;
	return 0;
}

YI_SHARED void
yi_leaks_hist_info_get(const yi_leaks_hist *h, yi_leaks_hist_info *o)
{
	memset(o, 0, sizeof(*o));
	if (h == NULL)
		return;
	o->points = h->npts;
	o->max_points = h->maxp;
	o->stacks = h->nst;
	o->max_stacks = h->maxs;
	o->stride = h->stride;
	o->dumps = h->dumps;
	o->evicted = h->evicted;
	o->untracked = h->untracked;
	o->first = h->npts ? h->t[0] : 0;
	o->last = h->npts ? h->t[h->npts - 1] : 0;
	o->bytes = sizeof(*h) + h->maxp * (sizeof(double) + 2 * sizeof(float)) +
	    h->maxs * sizeof(hist_stack);
	for (size_t i = 0; i < h->nst; i++)
		o->bytes += 2 * h->maxp * sizeof(float) + h->st[i].npcs * sizeof(uint64_t);
}
