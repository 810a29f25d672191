/*
 * test_alloc_delta.c: alloc_* as per-interval deltas (model_delta.c): the
 * uploader's yi_alloc_delta_apply, ying_profile_subtract_alloc for `ying
 * upload`, and yi_profile_drop_zero.
 *
 * Profiles are built in memory as the heap_v2 reader builds them
 * (yi_profile_new_heap + yi_profile_add_pcs, raw counts unsampled at
 * period 1, so the values are the counts): a stack's delta is its
 * cumulative values minus the same stack's in the dump before; a new stack
 * keeps its own; a stack whose values went down (prof.reset) keeps its
 * own; the same addresses in two heaps are two stacks; inuse values are
 * never touched; the values are recomputed from the raw counts, so a dump
 * whose val[] already holds deltas still gives its totals; prime only
 * remembers; a dump without accum data forgets the state.  drop_zero keeps
 * the per-thread counts of the stacks it keeps.
 */
#include <string.h>

#include "tap.h"
#include "../../src/lib/internal.h"

/* A profile with stacks (pcs of stack i: 0x1000 + i, 0x2000), counts
 * {objs, bytes, acc_objs, acc_bytes} per stack. */
static ying_profile *
make(size_t n, const uint64_t (*c)[4], const char *heap_of_last)
{
	ying_profile *p = NULL;
	uint32_t hid = 0;

	if (yi_profile_new_heap(&p, "t", 1, NULL) != 0)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		uint64_t pcs[2] = { 0x1000 + (i % 4), 0x2000 };
		yi_counts r = { c[i][0], c[i][1], c[i][2], c[i][3] };
		if (yi_profile_add_pcs(p, pcs, 2, &r) != 0)
			return NULL;
		if (c[i][2] || c[i][3])
			p->has_accum = true;
	}
	if (heap_of_last) {
		uint32_t first;
		yi_profile_add_heap(p, "rust", 4, &first);
		yi_profile_add_heap(p, heap_of_last, strlen(heap_of_last), &hid);
		for (size_t i = 0; i < n; i++)
			p->stacks.v[i].heap = i + 1 == n ? hid : first;
	}
	return p;
}

static double
aval(const ying_profile *p, size_t i, ying_sample_index idx)
{
	return p->stacks.v[i].val[idx];
}

int
main(void)
{
	static const uint64_t c1[][4] = { { 1, 100, 5, 500 }, { 2, 200, 10, 1000 },
	    { 0, 0, 3, 300 } };
	static const uint64_t c2[][4] = { { 1, 100, 7, 700 }, { 2, 200, 4, 400 },
	    { 0, 0, 3, 300 }, { 9, 900, 9, 900 } };
	yi_alloc_delta d;
	ying_profile *a, *b, *b2;
	size_t changed = 0;

	memset(&d, 0, sizeof(d));
	a = make(3, c1, NULL);
	b = make(4, c2, NULL);
	ok(a && b, "profiles built");
	if (!a || !b)
		return tap_done();
	is_near(aval(a, 0, YING_ALLOC_SPACE), 500, 0.5, "period 1: values are the counts");

	is_int(yi_alloc_delta_apply(&d, a, true, &changed), 0, "prime");
	is_near(aval(a, 0, YING_ALLOC_SPACE), 500, 0.5, "... leaves the profile alone");
	is_int(yi_alloc_delta_apply(&d, b, false, &changed), 0, "apply to the next dump");
	is_near(aval(b, 0, YING_ALLOC_SPACE), 200, 0.5, "stack 0: 700 - 500 = 200 bytes");
	is_near(aval(b, 0, YING_ALLOC_OBJECTS), 2, 0.01, "... 7 - 5 = 2 objects");
	is_near(aval(b, 0, YING_INUSE_SPACE), 100, 0.5, "... inuse untouched");
	is_near(aval(b, 1, YING_ALLOC_SPACE), 400, 0.5, "stack 1 went down (reset): its own 400");
	is_near(aval(b, 2, YING_ALLOC_SPACE), 0, 0.5, "stack 2: nothing allocated since");
	is_near(aval(b, 3, YING_ALLOC_SPACE), 900, 0.5, "stack 3 is new: its own 900");
	is_int(changed, 2, "two stacks changed (0 and 2)");

	/* the next dump after b: against b's totals, not b's deltas */
	{
		static const uint64_t c3[][4] = { { 1, 100, 8, 800 }, { 2, 200, 4, 400 },
		    { 0, 0, 3, 300 }, { 9, 900, 10, 1000 } };
		ying_profile *c = make(4, c3, NULL);
		is_int(yi_alloc_delta_apply(&d, c, false, NULL), 0, "a third dump");
		is_near(aval(c, 0, YING_ALLOC_SPACE), 100, 0.5, "stack 0: 800 - 700 (b's total, not its delta)");
		is_near(aval(c, 3, YING_ALLOC_SPACE), 100, 0.5, "stack 3: 1000 - 900");
		ying_profile_free(c);
	}
	yi_alloc_delta_release(&d);

	/* the public call, chained as ying upload does: b already holds deltas */
	b2 = make(4, c2, NULL);
	{
		static const uint64_t c3[][4] = { { 1, 100, 8, 800 }, { 2, 200, 4, 400 },
		    { 0, 0, 3, 300 }, { 9, 900, 10, 1000 } };
		ying_profile *c = make(4, c3, NULL);
		is_int(ying_profile_subtract_alloc(b2, a, &changed), 0, "subtract_alloc(b, a)");
		is_int(ying_profile_subtract_alloc(c, b2, &changed), 0, "subtract_alloc(c, b) with b's values already deltas");
		is_near(aval(c, 0, YING_ALLOC_SPACE), 100, 0.5, "... against b's totals: 100");
		is_int(changed, 4, "... four stacks changed");
		ying_profile_free(c);
	}
	ying_profile_free(b2);

	/* heaps: the same addresses in another heap are another stack */
	{
		static const uint64_t h1[][4] = { { 1, 1, 10, 1000 }, { 1, 1, 10, 1000 } };
		static const uint64_t h2[][4] = { { 1, 1, 30, 3000 }, { 1, 1, 11, 1100 } };
		/* stacks 0 and 1 share pcs only when i % 4 matches: use 0 and 4 */
		ying_profile *x = NULL, *y = NULL;
		uint64_t pcs[2] = { 0x1000, 0x2000 };
		uint32_t hr, hc;
		if (yi_profile_new_heap(&x, "x", 1, NULL) == 0 && yi_profile_new_heap(&y, "y", 1, NULL) == 0) {
			for (int k = 0; k < 2; k++) {
				yi_counts r1 = { h1[k][0], h1[k][1], h1[k][2], h1[k][3] };
				yi_counts r2 = { h2[k][0], h2[k][1], h2[k][2], h2[k][3] };
				yi_profile_add_pcs(x, pcs, 2, &r1);
				yi_profile_add_pcs(y, pcs, 2, &r2);
			}
			x->has_accum = y->has_accum = true;
			yi_profile_add_heap(x, "rust", 4, &hr);
			yi_profile_add_heap(x, "c", 1, &hc);
			x->stacks.v[0].heap = hr;
			x->stacks.v[1].heap = hc;
			yi_profile_add_heap(y, "rust", 4, &hr);
			yi_profile_add_heap(y, "c", 1, &hc);
			y->stacks.v[0].heap = hr;
			y->stacks.v[1].heap = hc;
			is_int(ying_profile_subtract_alloc(y, x, NULL), 0, "two heaps, the same addresses");
			is_near(aval(y, 0, YING_ALLOC_SPACE), 2000, 0.5, "... rust: 3000 - 1000");
			is_near(aval(y, 1, YING_ALLOC_SPACE), 100, 0.5, "... c: 1100 - 1000 (its own heap's)");
		}
		ying_profile_free(x);
		ying_profile_free(y);
	}

	/* no accum data: nothing happens, and the state is forgotten */
	{
		static const uint64_t n1[][4] = { { 1, 100, 0, 0 } };
		ying_profile *z = make(1, n1, NULL);
		memset(&d, 0, sizeof(d));
		yi_alloc_delta_apply(&d, a, true, NULL);
		is_int(yi_alloc_delta_apply(&d, z, false, NULL), 0, "a dump without accum");
		ok(!d.primed, "... forgets the state");
		ying_profile *b3 = make(4, c2, NULL);
		yi_alloc_delta_apply(&d, b3, false, NULL);
		is_near(aval(b3, 0, YING_ALLOC_SPACE), 700, 0.5, "... the next accum dump counts from zero");
		ying_profile_free(b3);
		yi_alloc_delta_release(&d);
		ying_profile_free(z);
	}

	/* bad calls */
	is_int(ying_profile_subtract_alloc(NULL, a, NULL), YING_EINVAL, "NULL profile: YING_EINVAL");

	/* drop_zero */
	{
		yi_thread_count tc[3] = { { 0, 1, { 0 } }, { 2, 1, { 0 } }, { 3, 1, { 0 } } };
		memset(&d, 0, sizeof(d));
		yi_alloc_delta_apply(&d, a, true, NULL);
		ying_profile *e = make(4, c2, NULL);
		yi_alloc_delta_apply(&d, e, false, NULL);
		/* stack 2 now holds nothing and allocated nothing */
		yi_vec_grow(&e->tcounts, 3);
		memcpy(e->tcounts.v, tc, sizeof(tc));
		e->tcounts.n = 3;
		is_int(yi_profile_drop_zero(e), 1, "drop_zero drops the one all-zero stack");
		is_int(e->stacks.n, 3, "... three left");
		is_near(aval(e, 2, YING_ALLOC_SPACE), 900, 0.5, "... the last one moved up");
		is_int(e->tcounts.n, 2, "... its thread count dropped with it");
		ok(e->tcounts.n == 2 && e->tcounts.v[0].stack == 0 && e->tcounts.v[1].stack == 2,
		    "... the others follow their stacks");
		ying_profile_free(e);
		yi_alloc_delta_release(&d);
	}
	(void)make;
	ying_profile_free(a);
	ying_profile_free(b);
	return tap_done();
}
