/*
 * write_top.c: the "what holds the memory" table (`ying top`).
 *
 * One pass over the stacks aggregates flat (the stack's leaf frame) and
 * cumulative (every distinct frame of the stack, counted once even under
 * recursion, as jeprof's ReduceProfile does) values per function or per
 * function+line (yi_agg, model_agg.c: the rule yingdiff shares), or per
 * whole stack (an id set keyed by the stack's frames).  The total printed is the unfiltered
 * sum of all stacks, exactly jeprof's `Total:`; percentages are relative to
 * the stacks that pass --focus/--ignore (also as jeprof does).  For a
 * function row the file:line shown is the line that contributed most, which
 * for a leaking function is the allocation call itself.
 */
#include <math.h>
#include <stdlib.h>

#include "sym.h"
#include "write.h"

typedef struct row {
	uint32_t func;
	uint32_t line;          /* for BY_LINE; best line for BY_FUNCTION */
	uint32_t stack;         /* for BY_STACK: a representative stack */
	uint32_t layer;         /* the standard-library layer trimmed below the
	                           row's flat stacks, the one holding most
	                           (yi_layer_kind_id), 0 for none */
	uint32_t heap;          /* for BY_STACK with heaps: the heap's position
	                           in p->heaps (ties of one path, in order) */
	double flat, cum;
} row;

/* One stack's vote for the layer of its leaf function's row. */
typedef struct vote {
	uint32_t func, layer;
	double v;
} vote;

static int
cmp_votes(const void *a, const void *b)
{
	const vote *x = a, *y = b;

	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	return x->layer < y->layer ? -1 : x->layer > y->layer;
}

/* Per function, the layer of the votes (sorted) that hold the most. */
static void
count_votes(vote *v, size_t n, uint32_t *layer)
{
	size_t i = 0, j;

	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_votes);
	while (i < n) {
		double best = 0;
		uint32_t f = v[i].func;
		for (; i < n && v[i].func == f; i = j) {
			double sum = 0;
			for (j = i; j < n && v[j].func == f && v[j].layer == v[i].layer; j++)
				sum += v[j].v;
			if (sum > best) {
				best = sum;
				layer[f] = v[i].layer;
			}
		}
	}
}

typedef YI_VEC(row) rowvec;

typedef struct agg {
	const ying_profile *p;
	ying_sample_index idx;
	rowvec rows;
	double kept_total;
} agg;

static int
add_row(agg *a, uint32_t func, uint32_t line, double flat, double cum)
{
	row *r;
	int rc;

	if ((rc = yi_vec_grow(&a->rows, 1)) != 0)
		return rc;
	r = &a->rows.v[a->rows.n++];
	memset(r, 0, sizeof(*r));
	r->func = func;
	r->line = line;
	r->flat = flat;
	r->cum = cum;
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
	c = strcmp(yi_profile_str(p, p->funcs.v[x->func].show),
	    yi_profile_str(p, p->funcs.v[y->func].show));
	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->heap < y->heap ? -1 : x->heap > y->heap;
}

/*
 * Per function and per line: flat and cum come from yi_agg (model_agg.c).
 * The best line of a function is the leaf line with the most flat value,
 * else the line of the biggest stack passing through it.
 */
static int
aggregate_rows(agg *a, ying_granularity g, yi_filter *flt)
{
	const ying_profile *p = a->p;
	size_t nf = p->funcs.n, i;
	double *bestv = NULL, *leafbest = NULL;
	uint32_t *bestline = NULL, *layer = NULL;
	YI_VEC(vote) votes = { 0 };
	yi_stack_walk w = YI_STACK_WALK_INIT(p, flt, a->idx);
	yi_agg sums;
	int rc = 0;

	yi_agg_init(&sums, g == YING_BY_LINE ? YI_AGG_LINES : YI_AGG_FUNCS | YI_AGG_LEAF_LINES);
	if (g == YING_BY_FUNCTION && ((bestv = yi_calloc(nf, sizeof(double))) == NULL ||
	    (leafbest = yi_calloc(nf, sizeof(double))) == NULL ||
	    (bestline = yi_calloc(nf, sizeof(uint32_t))) == NULL)) {
		rc = yi_oom("aggregating functions");
		goto out;
	}
	if (nf && (layer = yi_calloc(nf, sizeof(uint32_t))) == NULL) {
		rc = yi_oom("aggregating functions");
		goto out;
	}
	while ((rc = yi_stack_walk_next(&w)) > 0) {
		const yi_framevec fr = w.fr;     /* a view: the walk owns it */
		double v = w.v;
		uint32_t sl = p->stacks.v[w.s].layer;

		a->kept_total += v;
		if (sl != 0 && fr.n > 0 && v != 0) {
			if ((rc = yi_vec_grow(&votes, 1)) != 0)
				goto out;
			votes.v[votes.n].func = fr.v[0].func;
			votes.v[votes.n].layer = sl;
			votes.v[votes.n++].v = fabs(v);
		}
		if ((rc = yi_agg_stack(&sums, 0, fr.v, NULL, fr.n, v)) != 0)
			goto out;
		for (i = 0; bestv && i < fr.n; i++) {
			uint32_t f = fr.v[i].func;
			if (fabs(v) > bestv[f]) {
				bestv[f] = fabs(v);
				bestline[f] = fr.v[i].line;
			}
		}
	}
	if (rc < 0)
		goto out;
	count_votes(votes.v, votes.n, layer);
	if (g == YING_BY_LINE) {
		for (i = 0; i < sums.lines.n; i++) {
			const yi_agg_row *r = &sums.lines.v[i];
			if ((rc = add_row(a, r->func, r->line, r->flat[0], r->cum[0])) != 0)
				goto out;
			a->rows.v[a->rows.n - 1].layer = r->flat[0] != 0 ? layer[r->func] : 0;
		}
		goto out;
	}
	/* leaf lines name the allocation site of a function */
	for (i = 0; i < sums.lines.n; i++) {
		const yi_agg_row *lr = &sums.lines.v[i];
		if (fabs(lr->flat[0]) > leafbest[lr->func]) {
			leafbest[lr->func] = fabs(lr->flat[0]);
			bestline[lr->func] = lr->line;
		}
	}
	for (i = 0; i < sums.funcs.n; i++) {
		const yi_agg_row *r = &sums.funcs.v[i];
		if (r->flat[0] == 0 && r->cum[0] == 0)
			continue;
		if ((rc = add_row(a, (uint32_t)i, bestline[i], r->flat[0], r->cum[0])) != 0)
			goto out;
		a->rows.v[a->rows.n - 1].layer = layer[i];
	}
out:
	yi_stack_walk_end(&w);
	yi_agg_release(&sums);
	yi_free(bestv);
	yi_free(leafbest);
	yi_free(bestline);
	yi_free(layer);
	yi_vec_free(&votes);
	return rc;
}

/*
 * Per stack: one row per distinct sequence of expanded frames (function
 * and line), found through an id set whose key is that sequence as
 * uint64_t (func << 32 | line), then the stack's heap when the profile has
 * heaps (the same path in two heaps is two rows), so stacks whose hashes
 * collide are still told apart; row i is the set's id i.
 */
/* The position of heap (a strtab id) in p->heaps. */
static uint32_t
heap_pos(const ying_profile *p, uint32_t heap)
{
	uint32_t i;

	for (i = 0; i < p->heaps.n && p->heaps.v[i] != heap; i++)
		;
	return i;
}

static int
aggregate_stacks(agg *a, yi_filter *flt)
{
	YI_VEC(uint64_t) key = { 0 };
	yi_stack_walk w = YI_STACK_WALK_INIT(a->p, flt, a->idx);
	yi_idset set;
	size_t i;
	int rc;

	yi_idset_init(&set, NULL);
	while ((rc = yi_stack_walk_next(&w)) > 0) {
		const yi_framevec fr = w.fr;     /* a view: the walk owns it */
		double v = w.v;
		uint32_t id;
		bool added;

		a->kept_total += v;
		key.n = 0;
		if ((rc = yi_vec_grow(&key, fr.n + 1)) != 0)
			break;
		for (i = 0; i < fr.n; i++)
			key.v[i] = (uint64_t)fr.v[i].func << 32 | fr.v[i].line;
		key.n = fr.n;
		if (a->p->has_heaps)    /* the heap is part of the identity */
			key.v[key.n++] = a->p->stacks.v[w.s].heap;
		if ((rc = yi_idset_add(&set, key.v, key.n * sizeof(*key.v), &id, &added)) != 0)
			break;
		if (added) {
			if ((rc = add_row(a, fr.v[0].func, fr.v[0].line, 0, 0)) != 0)
				break;
			a->rows.v[id].stack = (uint32_t)w.s;
			a->rows.v[id].layer = a->p->stacks.v[w.s].layer;
			a->rows.v[id].heap = heap_pos(a->p, a->p->stacks.v[w.s].heap);
		}
		a->rows.v[id].flat += v;
		a->rows.v[id].cum += v;
	}
	yi_idset_release(&set);
	yi_vec_free(&key);
	yi_stack_walk_end(&w);
	return rc;
}

static int
aggregate(agg *a, const ying_top_opts *o, yi_filter *flt)
{
	if (o->granularity == YING_BY_STACK)
		return aggregate_stacks(a, flt);
	return aggregate_rows(a, o->granularity, flt);
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

	yi_out_where(o, yi_profile_str(p, f->show), yi_profile_str(p, f->file), line);
}

static void
json_frame(yi_out *o, const ying_profile *p, uint32_t func, uint32_t line)
{
	const yi_func *f = &p->funcs.v[func];

	yi_out_puts(o, "\"function\":");
	yi_out_json_str(o, yi_profile_str(p, f->show));
	yi_out_puts(o, ",\"full_name\":");
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
	if (ying_profile_heap_count(p)) {
		yi_out_puts(o, ",\"heaps\":[");
		for (i = 0; i < ying_profile_heap_count(p); i++) {
			yi_out_puts(o, i ? ",{\"name\":" : "{\"name\":");
			yi_out_json_str(o, ying_profile_heap_name(p, i));
			yi_out_puts(o, ",\"bytes\":");
			yi_out_json_num(o, ying_profile_heap_total(p, i, a->idx));
			yi_out_putc(o, '}');
		}
		yi_out_putc(o, ']');
	}
	yi_out_puts(o, ",\"rows\":[");
	for (i = 0; i < nrows; i++) {
		const row *r = &a->rows.v[i];
		yi_out_puts(o, i ? ",\n{" : "\n{");
		json_frame(o, p, r->func, r->line);
		yi_out_puts(o, ",\"flat\":");
		yi_out_json_num(o, r->flat);
		yi_out_puts(o, ",\"cum\":");
		yi_out_json_num(o, r->cum);
		if (r->layer != 0) {
			yi_out_puts(o, ",\"layer\":");
			yi_out_json_str(o, yi_layer_kind_name(r->layer));
		}
		if (opts->granularity == YING_BY_STACK) {
			long n = yi_stack_expand(p, &p->stacks.v[r->stack], &fr);
			if (n < 0) {
				yi_vec_free(&fr);
				return (int)n;
			}
			if (p->has_heaps) {
				yi_out_puts(o, ",\"heap\":");
				yi_out_json_str(o, yi_profile_str(p, p->stacks.v[r->stack].heap));
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
	if (*ying_profile_program(p)) {
		yi_out_puts(o, "; ");
		yi_out_text(o, ying_profile_program(p));
	}
	yi_out_putc(o, '\n');
	for (i = 0; i < ying_profile_heap_count(p); i++) {
		double h = ying_profile_heap_total(p, i, a->idx);
		yi_out_puts(o, i ? ", " : "Heaps: ");
		yi_out_text(o, ying_profile_heap_name(p, i));
		yi_out_printf(o, " %s (%.1f %%)", yi_fmt_value(h, a->idx, b3, sizeof(b3)),
		    pct(h, total));
	}
	if (i)
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
			yi_out_printf(o, "\n%s  %5.1f%%  (sum %5.1f%%)",
			    yi_fmt_value(r->flat, a->idx, b1, sizeof(b1)),
			    pct(r->flat, a->kept_total), pct(running, a->kept_total));
			if (p->has_heaps) {
				yi_out_puts(o, "  [heap ");
				yi_out_text(o, yi_profile_str(p, p->stacks.v[r->stack].heap));
				yi_out_putc(o, ']');
			}
			yi_out_putc(o, '\n');
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
	return rc;
}
