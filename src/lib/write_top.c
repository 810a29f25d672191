/*
 * write_top.c: the "what holds the memory" table (`ying top`).
 *
 * One pass over the stacks aggregates flat (the stack's leaf frame) and
 * cumulative (every distinct frame of the stack, counted once even under
 * recursion, as jeprof's ReduceProfile does) values per function, per
 * function+line, or per whole stack.  The total printed is the unfiltered
 * sum of all stacks, exactly jeprof's `Total:`; percentages are relative to
 * the stacks that pass --focus/--ignore (also as jeprof does).  For a
 * function row the file:line shown is the line that contributed most, which
 * for a leaking function is the allocation call itself.
 */
#include <math.h>
#include <stdlib.h>

#include "write.h"

typedef struct row {
	uint32_t func;
	uint32_t line;          /* for BY_LINE; best line for BY_FUNCTION */
	uint32_t stack;         /* for BY_STACK: a representative stack */
	double flat, cum;
	uint32_t stamp;         /* last stack counted in cum (dedupe) */
	uint32_t first, nframes; /* for BY_STACK: the row's frames in agg.frames */
} row;

typedef YI_VEC(row) rowvec;

typedef struct agg {
	const ying_profile *p;
	ying_sample_index idx;
	rowvec rows;
	yi_map64 by_key;
	/* per (func,line) table used to pick a function's best line */
	rowvec lines;
	yi_map64 line_key;
	double kept_total;
	/* for BY_STACK: every row's frames, to tell apart stacks whose keys collide */
	yi_framevec frames;
} agg;

static int
get_row(rowvec *rows, yi_map64 *m, uint64_t key, row **out, bool *added)
{
	uint32_t *slot;
	int rc;

	if ((slot = yi_map64_get(m, key)) != NULL) {
		*out = &rows->v[*slot];
		*added = false;
		return 0;
	}
	if ((rc = yi_vec_grow(rows, 1)) != 0)
		return rc;
	if ((rc = yi_map64_put(m, key, (uint32_t)rows->n, &slot, added)) != 0)
		return rc;
	memset(&rows->v[rows->n], 0, sizeof(row));
	rows->v[rows->n].stamp = UINT32_MAX;
	*out = &rows->v[rows->n++];
	*added = true;
	return 0;
}

/* Hash of a stack's expanded frames (function and line), for BY_STACK. */
static uint64_t
frames_key(const yi_frame *f, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	size_t i;

	for (i = 0; i < n; i++)
		h = yi_hash64(h ^ ((uint64_t)f[i].func << 32 | f[i].line)) + i;
	return h;
}

/*
 * The BY_STACK row of frames f[0..n): the key is only a hash, so on a hit
 * the row's frames are compared and, if they differ (a collision), the next
 * key in a probe sequence derived from the first is tried.
 */
static int
stack_row(agg *a, const yi_frame *f, size_t n, row **out, bool *added)
{
	uint64_t key = frames_key(f, n);
	uint32_t *slot;
	size_t i;
	int rc;

	while ((slot = yi_map64_get(&a->by_key, key)) != NULL) {
		const row *r = &a->rows.v[*slot];
		const yi_frame *g = a->frames.v + r->first;
		if (r->nframes == n) {
			for (i = 0; i < n; i++)
				if (g[i].func != f[i].func || g[i].line != f[i].line)
					break;
			if (i == n) {
				*out = &a->rows.v[*slot];
				*added = false;
				return 0;
			}
		}
		key = yi_hash64(key + 0x632be59bd9b4e019ULL);
	}
	if (a->frames.n + n > UINT32_MAX)
		return yi_oom("grouping stacks");
	if ((rc = yi_vec_grow(&a->frames, n)) != 0)
		return rc;
	if ((rc = get_row(&a->rows, &a->by_key, key, out, added)) != 0)
		return rc;
	(*out)->first = (uint32_t)a->frames.n;
	(*out)->nframes = (uint32_t)n;
	if (n)
		memcpy(a->frames.v + a->frames.n, f, n * sizeof(*f));
	a->frames.n += n;
	return 0;
}

static int
cmp_rows(const void *a, const void *b, void *ctx)
{
	const row *x = a, *y = b;
	const ying_profile *p = ((void **)ctx)[0];
	bool by_cum = *(bool *)((void **)ctx)[1];
	double vx = by_cum ? x->cum : x->flat, vy = by_cum ? y->cum : y->flat;
	int c;

	if (vx != vy)
		return vx > vy ? -1 : 1;
	if (x->cum != y->cum)
		return x->cum > y->cum ? -1 : 1;
	c = strcmp(yi_profile_str(p, p->funcs.v[x->func].name),
	    yi_profile_str(p, p->funcs.v[y->func].name));
	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

/*
 * Per-function aggregation works on arrays indexed by function id (ids are
 * dense), which keeps the hot loop free of hashing: a 200,000-stack dump has
 * millions of frames.  The best line of a function is the leaf line with the
 * most flat value, else the line of the biggest stack passing through it.
 */
static int
aggregate_functions(agg *a, yi_filter *flt)
{
	const ying_profile *p = a->p;
	size_t nf = p->funcs.n, s, i;
	double *flat = yi_calloc(nf, sizeof(double)), *cum = yi_calloc(nf, sizeof(double));
	double *bestv = yi_calloc(nf, sizeof(double)), *leafbest = yi_calloc(nf, sizeof(double));
	uint32_t *stamp = yi_malloc(nf * sizeof(uint32_t)), *bestline = yi_calloc(nf, sizeof(uint32_t));
	yi_framevec fr = { 0 };
	int rc = 0;

	if (!flat || !cum || !bestv || !leafbest || !stamp || !bestline) {
		rc = yi_oom("aggregating functions");
		goto out;
	}
	memset(stamp, 0xff, nf * sizeof(uint32_t));
	for (s = 0; s < p->stacks.n; s++) {
		const yi_stack *st = &p->stacks.v[s];
		double v = st->val[a->idx];
		long n;
		if (v == 0)
			continue;
		if ((n = yi_stack_expand(p, st, &fr)) < 0) {
			rc = (int)n;
			goto out;
		}
		if (!yi_filter_keep(flt, p, fr.v, fr.n))
			continue;
		a->kept_total += v;
		flat[fr.v[0].func] += v;
		for (i = 0; i < fr.n; i++) {
			uint32_t f = fr.v[i].func;
			if (stamp[f] != (uint32_t)s) {
				stamp[f] = (uint32_t)s;
				cum[f] += v;
			}
			if (fabs(v) > bestv[f]) {
				bestv[f] = fabs(v);
				bestline[f] = fr.v[i].line;
			}
		}
		/* leaf lines, to name the allocation site of a function */
		{
			row *lr;
			bool added;
			uint64_t lkey = (uint64_t)fr.v[0].func << 32 | fr.v[0].line;
			if ((rc = get_row(&a->lines, &a->line_key, lkey, &lr, &added)) != 0)
				goto out;
			if (added) {
				lr->func = fr.v[0].func;
				lr->line = fr.v[0].line;
			}
			lr->flat += v;
		}
	}
	for (i = 0; i < a->lines.n; i++) {
		const row *lr = &a->lines.v[i];
		if (fabs(lr->flat) > leafbest[lr->func]) {
			leafbest[lr->func] = fabs(lr->flat);
			bestline[lr->func] = lr->line;
		}
	}
	for (i = 0; i < nf; i++) {
		row *r;
		if (flat[i] == 0 && cum[i] == 0)
			continue;
		if ((rc = yi_vec_grow(&a->rows, 1)) != 0)
			goto out;
		r = &a->rows.v[a->rows.n++];
		memset(r, 0, sizeof(*r));
		r->func = (uint32_t)i;
		r->line = bestline[i];
		r->flat = flat[i];
		r->cum = cum[i];
	}
out:
	yi_vec_free(&fr);
	yi_free(flat);
	yi_free(cum);
	yi_free(bestv);
	yi_free(leafbest);
	yi_free(stamp);
	yi_free(bestline);
	return rc;
}

/* Per line or per stack: hash tables keyed by (function, line) or frames. */
static int
aggregate(agg *a, const ying_top_opts *o, yi_filter *flt)
{
	const ying_profile *p = a->p;
	yi_framevec fr = { 0 };
	size_t s, i;
	int rc = 0;

	if (o->granularity == YING_BY_FUNCTION)
		return aggregate_functions(a, flt);
	for (s = 0; s < p->stacks.n; s++) {
		const yi_stack *st = &p->stacks.v[s];
		double v = st->val[a->idx];
		long n;
		row *r;
		bool added;

		if (v == 0)
			continue;
		if ((n = yi_stack_expand(p, st, &fr)) < 0) {
			rc = (int)n;
			break;
		}
		if (!yi_filter_keep(flt, p, fr.v, fr.n))
			continue;
		a->kept_total += v;
		if (o->granularity == YING_BY_STACK) {
			if ((rc = stack_row(a, fr.v, fr.n, &r, &added)) != 0)
				break;
			if (added) {
				r->stack = (uint32_t)s;
				r->func = fr.v[0].func;
				r->line = fr.v[0].line;
			}
			r->flat += v;
			r->cum += v;
			continue;
		}
		for (i = 0; i < fr.n; i++) {
			uint64_t lkey = (uint64_t)fr.v[i].func << 32 | fr.v[i].line;
			if ((rc = get_row(&a->rows, &a->by_key, lkey, &r, &added)) != 0)
				goto out;
			if (added) {
				r->func = fr.v[i].func;
				r->line = fr.v[i].line;
			}
			if (i == 0)
				r->flat += v;
			if (r->stamp != s) {
				r->stamp = (uint32_t)s;
				r->cum += v;
			}
		}
	}
out:
	yi_vec_free(&fr);
	return rc;
}

static const char *
unit_name(ying_sample_index idx)
{
	return yi_index_is_bytes(idx) ? "bytes" : "objects";
}

static void
print_where(yi_out *o, const ying_profile *p, uint32_t func, uint32_t line)
{
	const yi_func *f = &p->funcs.v[func];

	yi_out_where(o, yi_profile_str(p, f->name), yi_profile_str(p, f->file), line);
}

static void
json_frame(yi_out *o, const ying_profile *p, uint32_t func, uint32_t line)
{
	const yi_func *f = &p->funcs.v[func];

	yi_out_puts(o, "\"function\":");
	yi_out_json_str(o, yi_profile_str(p, f->name));
	yi_out_puts(o, ",\"file\":");
	yi_out_json_str(o, yi_profile_str(p, f->file));
	yi_out_printf(o, ",\"line\":%u", line);
}

static double
pct(double v, double total)
{
	return total != 0 ? 100.0 * v / total : 0;
}

static int
write_json(yi_out *o, const agg *a, const ying_top_opts *opts, double total, size_t nrows)
{
	const ying_profile *p = a->p;
	yi_framevec fr = { 0 };
	size_t i, k;

	yi_out_puts(o, "{\"total\":");
	yi_out_json_num(o, total);
	yi_out_printf(o, ",\"unit\":\"%s\",\"sample_index\":\"%s\",\"period\":%llu",
	    unit_name(a->idx), ying_sample_index_name(a->idx), (unsigned long long)p->period);
	yi_out_puts(o, ",\"filtered_total\":");
	yi_out_json_num(o, a->kept_total);
	yi_out_printf(o, ",\"stacks\":%zu,\"granularity\":\"%s\",\"program\":", p->stacks.n,
	    opts->granularity == YING_BY_STACK ? "stack" :
	    opts->granularity == YING_BY_LINE ? "line" : "function");
	yi_out_json_str(o, ying_profile_program(p));
	yi_out_puts(o, ",\"rows\":[");
	for (i = 0; i < nrows; i++) {
		const row *r = &a->rows.v[i];
		yi_out_puts(o, i ? ",\n{" : "\n{");
		json_frame(o, p, r->func, r->line);
		yi_out_puts(o, ",\"flat\":");
		yi_out_json_num(o, r->flat);
		yi_out_puts(o, ",\"cum\":");
		yi_out_json_num(o, r->cum);
		if (opts->granularity == YING_BY_STACK) {
			long n = yi_stack_expand(p, &p->stacks.v[r->stack], &fr);
			if (n < 0) {
				yi_vec_free(&fr);
				return (int)n;
			}
			yi_out_puts(o, ",\"frames\":[");
			for (k = 0; k < fr.n; k++) {
				yi_out_puts(o, k ? ",{" : "{");
				json_frame(o, p, fr.v[k].func, fr.v[k].line);
				yi_out_printf(o, ",\"inlined\":%s}", fr.v[k].inlined ? "true" : "false");
			}
			yi_out_putc(o, ']');
		}
		yi_out_putc(o, '}');
	}
	yi_out_puts(o, "]}\n");
	yi_vec_free(&fr);
	return 0;
}

static int
write_text(yi_out *o, const agg *a, const ying_top_opts *opts, double total, size_t nrows)
{
	const ying_profile *p = a->p;
	yi_framevec fr = { 0 };
	char b1[32], b2[32], b3[32];
	double running = 0;
	size_t i, k;

	yi_out_printf(o, "Total: %s", yi_fmt_value(total, a->idx, b1, sizeof(b1)));
	if (yi_index_is_bytes(a->idx))
		yi_out_printf(o, " (%.0f bytes)", floor(total));
	yi_out_printf(o, " %s in %zu stacks; sample period %s", ying_sample_index_name(a->idx),
	    p->stacks.n, yi_fmt_bytes((double)p->period, b2, sizeof(b2)));
	if (*ying_profile_program(p))
		yi_out_printf(o, "; %s", ying_profile_program(p));
	yi_out_putc(o, '\n');
	if (a->kept_total != total)
		yi_out_printf(o, "Shown: %s (%.1f%%) after --focus/--ignore; percentages are of this\n",
		    yi_fmt_value(a->kept_total, a->idx, b3, sizeof(b3)), pct(a->kept_total, total));
	if (opts->granularity == YING_BY_STACK) {
		for (i = 0; i < nrows; i++) {
			const row *r = &a->rows.v[i];
			long n = yi_stack_expand(p, &p->stacks.v[r->stack], &fr);
			if (n < 0) {
				yi_vec_free(&fr);
				return (int)n;
			}
			running += r->flat;
			yi_out_printf(o, "\n%s  %5.1f%%  (sum %5.1f%%)\n",
			    yi_fmt_value(r->flat, a->idx, b1, sizeof(b1)),
			    pct(r->flat, a->kept_total), pct(running, a->kept_total));
			for (k = 0; k < fr.n; k++) {
				yi_out_puts(o, fr.v[k].inlined ? "    [inline] " : "    ");
				print_where(o, p, fr.v[k].func, fr.v[k].line);
				yi_out_putc(o, '\n');
			}
		}
		yi_vec_free(&fr);
		return 0;
	}
	yi_out_printf(o, "%12s %6s %6s %12s %6s  %s\n", "flat", "flat%", "sum%", "cum", "cum%",
	    opts->granularity == YING_BY_LINE ? "function (file:line)" : "function (file:line of most memory)");
	for (i = 0; i < nrows; i++) {
		const row *r = &a->rows.v[i];
		running += r->flat;
		yi_out_printf(o, "%12s %5.1f%% %5.1f%% %12s %5.1f%%  ",
		    yi_fmt_value(r->flat, a->idx, b1, sizeof(b1)), pct(r->flat, a->kept_total),
		    pct(running, a->kept_total), yi_fmt_value(r->cum, a->idx, b2, sizeof(b2)),
		    pct(r->cum, a->kept_total));
		print_where(o, p, r->func, r->line);
		yi_out_putc(o, '\n');
	}
	if (nrows < a->rows.n)
		yi_out_printf(o, "... %zu more rows (use -n 0 for all)\n", a->rows.n - nrows);
	return 0;
}

int
yi_write_top(const ying_profile *p, const ying_top_opts *opts,
    ying_write_fn fn, void *opaque)
{
	ying_top_opts def = YING_TOP_OPTS_INIT;
	yi_filter *flt = NULL;
	yi_out *o = NULL;
	agg a;
	double total;
	size_t nrows, i;
	bool by_cum;
	void *ctx[2];
	int rc;

	yi_error_clear();
	if (p == NULL || fn == NULL)
		return yi_error(YING_EINVAL, "ying_profile_write_top: no profile or sink");
	if (opts == NULL)
		opts = &def;
	if (opts->version != YING_TOP_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_top_opts version %d unsupported", opts->version);
	if ((unsigned)opts->granularity > YING_BY_STACK)
		return yi_error(YING_EINVAL, "invalid granularity %d", (int)opts->granularity);
	if ((rc = yi_profile_check_index(p, opts->sample_index)) != 0)
		return rc;
	if ((rc = yi_filter_new(&flt, opts->focus, opts->ignore)) != 0)
		return rc;
	memset(&a, 0, sizeof(a));
	a.p = p;
	a.idx = opts->sample_index;
	if ((rc = yi_map64_init(&a.by_key, 1024)) != 0 ||
	    (rc = yi_map64_init(&a.line_key, 1024)) != 0)
		goto done;
	if ((rc = aggregate(&a, opts, flt)) != 0)
		goto done;
	ying_profile_total(&total, p, opts->sample_index);

	/* drop empty rows, sort, limit */
	for (i = nrows = 0; i < a.rows.n; i++)
		if (a.rows.v[i].flat != 0 || a.rows.v[i].cum != 0)
			a.rows.v[nrows++] = a.rows.v[i];
	a.rows.n = nrows;
	by_cum = opts->sort_cum != 0;
	ctx[0] = (void *)p;
	ctx[1] = &by_cum;
	if (a.rows.n > 1)
		qsort_r(a.rows.v, a.rows.n, sizeof(row), cmp_rows, ctx);
	nrows = opts->limit && opts->limit < a.rows.n ? opts->limit : a.rows.n;

	if ((o = yi_malloc(sizeof(*o))) == NULL) {
		rc = yi_oom("writing a report");
		goto done;
	}
	yi_out_init(o, fn, opaque);
	rc = opts->json ? write_json(o, &a, opts, total, nrows) : write_text(o, &a, opts, total, nrows);
	if (rc == 0)
		rc = yi_out_finish(o);
done:
	yi_free(o);
	yi_filter_free(flt);
	yi_vec_free(&a.rows);
	yi_vec_free(&a.lines);
	yi_map64_release(&a.by_key);
	yi_vec_free(&a.frames);
	yi_map64_release(&a.line_key);
	return rc;
}
