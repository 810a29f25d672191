/*
 * model_delta.c: alloc_* values as per-interval deltas (the Pyroscope
 * uploader's, and ying_profile_subtract_alloc for `ying upload`).
 *
 * A jemalloc dump taken with prof_accum holds, per stack, what the stack
 * allocated since the program started (or since the last prof.reset).
 * Pyroscope sums the profiles of a query range, and pyroscope-go fills the
 * same profile type ids (memory:alloc_space:bytes:space:bytes, ...) with
 * what was allocated during each upload's interval, so ying sends that
 * too: each stack's alloc_space and alloc_objects minus the same stack's
 * values in the previous collection (inuse_* stay absolute: a snapshot).
 *
 * A stack is recognised across dumps by its addresses (every frame, as
 * dumped, before symbolization) and its heap's name, hashed with the
 * process's SipHash key into 64 bits (a collision among 262,144 stacks has
 * a chance of about 2^-29 per upload, and would only move one interval's
 * values between two stacks).  A stack whose cumulative values went down
 * was reset (prof.reset): its delta is its new value.  A stack not seen
 * before counts from zero.  The baseline is a dump taken when the uploader
 * starts (yi_alloc_delta_apply with `prime`), so the first upload holds
 * what was allocated during its own interval, not since the program
 * started.  The cumulative values are recomputed from each stack's raw
 * counts (jeprof's unsampling, as at parse time), never taken from val[],
 * which may already hold deltas.  The state is one hash map and two doubles per stack, rebuilt
 * at each collection, so stacks that went away are forgotten.
 */
#include <string.h>

#include "model.h"

void
yi_alloc_delta_release(yi_alloc_delta *d)
{
	yi_map64_release(&d->idx);
	yi_vec_free(&d->prev);
	memset(d, 0, sizeof(*d));
}

uint64_t
yi_stack_key(const uint64_t k[2], const ying_profile *p, const yi_stack *s, uint64_t *buf)
{
	size_t n = 0;

	for (uint32_t i = 0; i < s->nframes; i++)
		buf[n++] = p->locs.v[p->frames.v[s->frame_off + i]].addr;
	if (p->has_heaps) {
		const char *h = yi_profile_str(p, s->heap);
		buf[n++] = yi_siphash13(k, h, strlen(h));
	}
	buf[n++] = s->nframes;
	return yi_siphash13(k, buf, n * sizeof(*buf));
}

int
yi_alloc_delta_apply(yi_alloc_delta *d, ying_profile *p, bool prime, size_t *changed)
{
	yi_map64 idx;
	YI_VEC(double) cur = { 0 };
	uint64_t *buf = NULL;
	size_t maxf = 0;
	int rc;

	if (changed)
		*changed = 0;
	if (!d->keyed) {
		yi_hash_key(d->key);
		d->keyed = true;
	}
	if (!p->has_accum) {
		/* nothing cumulative: a later dump with accum counts from zero */
		yi_alloc_delta_release(d);
		return 0;
	}
	for (size_t i = 0; i < p->stacks.n; i++)
		if (p->stacks.v[i].nframes > maxf)
			maxf = p->stacks.v[i].nframes;
	if ((rc = yi_map64_init(&idx, p->stacks.n)) != 0)
		return rc;
	if ((buf = yi_malloc((maxf + 2) * sizeof(*buf))) == NULL ||
	    yi_vec_grow(&cur, 2 * p->stacks.n) != 0) {
		rc = yi_oom("the alloc deltas");
		goto out;
	}
	for (size_t i = 0; i < p->stacks.n; i++) {
		yi_stack *s = &p->stacks.v[i], cum = *s;
		uint64_t key = yi_stack_key(d->key, p, s, buf);
		double sp, ob;

		/* the cumulative values from the dump's own counts, so that a
		 * profile whose val[] already holds deltas (the dump before, in
		 * `ying upload`) still gives its totals */
		if (p->format == YI_FMT_HEAP_V2)
			yi_stack_compute_values(p, &cum);
		sp = cum.val[YING_ALLOC_SPACE];
		ob = cum.val[YING_ALLOC_OBJECTS];
		uint32_t *slot, *old;
		bool added;

		if ((rc = yi_map64_put(&idx, key, (uint32_t)cur.n / 2, &slot, &added)) != 0)
			goto out;
		if (!added) {
			/* the same stack twice in one dump (never from jemalloc):
			 * the second one's delta is against the first's values */
			cur.v[*slot * 2] += sp;
			cur.v[*slot * 2 + 1] += ob;
		} else {
			cur.v[cur.n++] = sp;
			cur.v[cur.n++] = ob;
		}
		if (prime)
			continue;
		if (d->primed && (old = yi_map64_get(&d->idx, key)) != NULL) {
			double psp = d->prev.v[*old * 2], pob = d->prev.v[*old * 2 + 1];
			/* went down: prof.reset, counted again from zero */
			if (sp >= psp && ob >= pob) {
				sp -= psp;
				ob -= pob;
			}
			/* once a pair is used, a duplicate stack starts from zero */
			d->prev.v[*old * 2] = 0;
			d->prev.v[*old * 2 + 1] = 0;
		}
		if (changed && (sp != cum.val[YING_ALLOC_SPACE] || ob != cum.val[YING_ALLOC_OBJECTS]))
			(*changed)++;
		s->val[YING_ALLOC_SPACE] = sp;
		s->val[YING_ALLOC_OBJECTS] = ob;
	}
	yi_map64_release(&d->idx);
	yi_vec_free(&d->prev);
	d->idx = idx;
	memset(&idx, 0, sizeof(idx));
	d->prev.v = cur.v;
	d->prev.n = cur.n;
	d->prev.cap = cur.cap;
	memset(&cur, 0, sizeof(cur));
	d->primed = true;
out:
	yi_map64_release(&idx);
	yi_vec_free(&cur);
	yi_free(buf);
	return rc;
}

int
ying_profile_subtract_alloc(ying_profile *p, const ying_profile *earlier, size_t *changed)
{
	yi_alloc_delta d;
	int rc;

	yi_error_clear();
	if (changed)
		*changed = 0;
	if (p == NULL || earlier == NULL)
		return yi_error(YING_EINVAL, "ying_profile_subtract_alloc: NULL profile");
	if (p->format != YI_FMT_HEAP_V2 || earlier->format != YI_FMT_HEAP_V2)
		return yi_error(YING_EINVAL, "%s: alloc deltas need two heap_v2 dumps (stacks "
		    "are matched by their addresses)", p->format != YI_FMT_HEAP_V2 ?
		    p->source : earlier->source);
	if (!p->has_accum || !earlier->has_accum)
		return 0;
	memset(&d, 0, sizeof(d));
	if ((rc = yi_alloc_delta_apply(&d, (ying_profile *)earlier, true, NULL)) == 0)
		rc = yi_alloc_delta_apply(&d, p, false, changed);
	yi_alloc_delta_release(&d);
	return rc;
}

size_t
yi_profile_drop_zero(ying_profile *p)
{
	uint32_t *map = NULL;
	size_t k = 0, n = p->stacks.n, t = 0;

	if (n && (map = yi_malloc(n * sizeof(*map))) == NULL)
		return 0;       /* nothing dropped: the profile stays as it was */
	for (size_t i = 0; i < n; i++) {
		const yi_stack *s = &p->stacks.v[i];
		if (s->val[0] == 0 && s->val[1] == 0 && s->val[2] == 0 && s->val[3] == 0) {
			map[i] = UINT32_MAX;
			continue;
		}
		map[i] = (uint32_t)k;
		p->stacks.v[k++] = *s;
	}
	p->stacks.n = k;
	for (size_t i = 0; i < p->tcounts.n; i++) {
		yi_thread_count tc = p->tcounts.v[i];
		if (tc.stack < n && map[tc.stack] != UINT32_MAX) {
			tc.stack = map[tc.stack];
			p->tcounts.v[t++] = tc;
		}
	}
	p->tcounts.n = t;
	yi_free(map);
	return n - k;
}
