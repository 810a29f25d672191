/*
 * model_agg.c: flat and cumulative values per function and per function
 * and line, the one aggregation behind `ying top` (write_top.c) and
 * yingdiff (diff_build.c).
 *
 * A stack's value goes to the flat value of its leaf and to the cumulative
 * value of every distinct function (line) on it.  "Distinct" is a stamp per
 * row: the row remembers the last stack that counted it, so a recursive
 * function is counted once per stack, as jeprof's ReduceProfile does.
 * Function rows live in an array indexed by function id (ids are dense: no
 * hashing in the loop over millions of frames); line rows are found through
 * a u64 map keyed by (function, line), in order of first appearance, so
 * whatever walks them is independent of hash values; a small direct-mapped
 * cache in front of that map spares most of its hashing (a dump's leaves
 * repeat).
 */
#include "model.h"

void
yi_agg_init(yi_agg *a, int what)
{
	memset(a, 0, sizeof(*a));
	a->what = what;
}

void
yi_agg_release(yi_agg *a)
{
	yi_vec_free(&a->funcs);
	yi_vec_free(&a->lines);
	yi_map64_release(&a->line_of);
}

static void
row_init(yi_agg_row *r, uint32_t func, uint32_t line)
{
	memset(r, 0, sizeof(*r));
	r->func = func;
	r->line = line;
	r->stamp = UINT32_MAX;
}

/* The function row of f, creating rows up to f. */
static int
func_row(yi_agg *a, uint32_t f, yi_agg_row **out)
{
	int rc;

	if (f >= a->funcs.n) {
		size_t n = (size_t)f + 1;
		if ((rc = yi_vec_grow(&a->funcs, n - a->funcs.n)) != 0)
			return rc;
		for (; a->funcs.n < n; a->funcs.n++)
			row_init(&a->funcs.v[a->funcs.n], (uint32_t)a->funcs.n, 0);
	}
	*out = &a->funcs.v[f];
	return 0;
}

static int
line_row(yi_agg *a, uint32_t f, uint32_t line, yi_agg_row **out)
{
	uint64_t key = (uint64_t)f << 32 | line;
	unsigned h = (unsigned)yi_fib_hash(key, 6);
	uint32_t *slot;
	bool added;
	int rc;

	/* rows are only appended: a cached index stays right */
	if (a->line_cache[h].row1 != 0 && a->line_cache[h].key == key) {
		*out = &a->lines.v[a->line_cache[h].row1 - 1];
		return 0;
	}
	if (a->line_of.cap == 0 && (rc = yi_map64_init(&a->line_of, 1024)) != 0)
		return rc;
	if ((rc = yi_map64_put(&a->line_of, key,
	    (uint32_t)a->lines.n, &slot, &added)) != 0)
		return rc;
	if (added) {
		if (a->lines.n >= UINT32_MAX - 1)
			return yi_error(YING_ELIMIT, "more than 4 billion lines");
		if ((rc = yi_vec_grow(&a->lines, 1)) != 0)
			return rc;
		row_init(&a->lines.v[a->lines.n++], f, line);
	}
	a->line_cache[h].key = key;
	a->line_cache[h].row1 = *slot + 1;
	*out = &a->lines.v[*slot];
	return 0;
}

static void
count(yi_agg_row *r, int side, bool leaf, double v, double var, uint32_t stamp)
{
	if (leaf) {
		r->flat[side] += v;
		r->fvar[side] += var;
	}
	if (r->stamp != stamp) {
		r->stamp = stamp;
		r->cum[side] += v;
		r->cvar[side] += var;
	}
}

int
yi_agg_stack(yi_agg *a, int side, const yi_frame *fr, const uint32_t *funcs,
    size_t n, double v)
{
	return yi_agg_stack_var(a, side, fr, funcs, n, v, 0);
}

int
yi_agg_stack_var(yi_agg *a, int side, const yi_frame *fr, const uint32_t *funcs,
    size_t n, double v, double var)
{
	uint32_t stamp = a->stamp++;
	yi_agg_row *r = NULL;
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		uint32_t f = funcs ? funcs[i] : fr[i].func;
		if (a->what & YI_AGG_FUNCS) {
			if ((rc = func_row(a, f, &r)) != 0)
				return rc;
			count(r, side, i == 0, v, var, stamp);
		}
		if ((a->what & YI_AGG_LINES) || ((a->what & YI_AGG_LEAF_LINES) && i == 0)) {
			if ((rc = line_row(a, f, fr[i].line, &r)) != 0)
				return rc;
			count(r, side, i == 0, v, var, stamp);
		}
	}
	return 0;
}
