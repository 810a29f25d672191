/*
 * diff_text.c: the diff as a readable text report or as JSON
 * (ying_diff_write_text): totals, flat (or --cum) lists by function or
 * line, and the stacks that grew, shrank, appeared and disappeared.
 * When either dump is sampled every delta carries its 95 % interval
 * ("±" in text; delta_lo, delta_hi, significant in JSON), "~" marks
 * changes within sampling noise and opts->significant hides them.
 */
#include <math.h>
#include <stdlib.h>

#include "diff_int.h"

/* ---- text and JSON report ------------------------------------------------ */

const char *
yi_dstr(const ying_diff *d, uint32_t id)
{
	return yi_strtab_get(&d->strs, id);
}

static double
row_delta(const drow *r)
{
	return r->flat[NOW] - r->flat[BASE];
}

static double
row_cum_delta(const drow *r)
{
	return r->cum[NOW] - r->cum[BASE];
}

static double
stack_delta(const ying_diff *d, const dstack *s)
{
	return s->val[NOW][d->idx] - s->val[BASE][d->idx];
}

/* Either side sampled (period > 1): deltas carry intervals. */
static bool
sampled(const ying_diff *d)
{
	return d->p[BASE]->period > 1 || d->p[NOW]->period > 1;
}


static int
cmp_names(const ying_diff *d, uint32_t fa, uint32_t fb)
{
	int c = strcmp(yi_dstr(d, d->funcs.v[fa].show), yi_dstr(d, d->funcs.v[fb].show));

	if (c == 0)
		c = strcmp(yi_dstr(d, d->funcs.v[fa].file), yi_dstr(d, d->funcs.v[fb].file));
	return c;
}

static int
cmp_rows(const void *a, const void *b, void *ctx)
{
	const sortctx *c = ctx;
	const drow *x = *(drow *const *)a, *y = *(drow *const *)b;
	double dx = row_delta(x), dy = row_delta(y);
	double cx = row_cum_delta(x), cy = row_cum_delta(y);
	int r;

	if (c->order == YI_ORDER_CUM_DELTA && cx != cy)
		return cx > cy ? -1 : 1;
	if (dx != dy)
		return dx > dy ? -1 : 1;
	if (cx != cy)
		return cx > cy ? -1 : 1;
	if ((r = cmp_names(c->d, x->func, y->func)) != 0)
		return r;
	return x->line < y->line ? -1 : x->line > y->line;
}

int
yi_cmp_stacks(const void *a, const void *b, void *ctx)
{
	const sortctx *c = ctx;
	const ying_diff *d = c->d;
	const dstack *x = &d->stacks.v[*(const uint32_t *)a];
	const dstack *y = &d->stacks.v[*(const uint32_t *)b];
	double vx, vy;
	uint32_t i;
	int r;

	switch (c->order) {
	case YI_ORDER_NOW: vx = x->val[NOW][d->idx]; vy = y->val[NOW][d->idx]; break;
	case YI_ORDER_BASE: vx = x->val[BASE][d->idx]; vy = y->val[BASE][d->idx]; break;
	case YI_ORDER_NAMES: vx = vy = 0; break;
	default: vx = stack_delta(d, x); vy = stack_delta(d, y); break;
	}
	if (vx != vy)
		return vx > vy ? -1 : 1;
	for (i = 0; i < x->nfuncs && i < y->nfuncs; i++) {
		uint32_t fx = x->funcs[x->nfuncs - 1 - i];
		uint32_t fy = y->funcs[y->nfuncs - 1 - i];
		if (fx != fy && (r = cmp_names(d, fx, fy)) != 0)
			return r;
	}
	if (x->nfuncs != y->nfuncs)
		return x->nfuncs < y->nfuncs ? -1 : 1;
	/* the same path in two heaps: in the heaps' order */
	return yi_dheap_index(d, x->heap) < yi_dheap_index(d, y->heap) ? -1 :
	    yi_dheap_index(d, x->heap) > yi_dheap_index(d, y->heap);
}

/* The position of diff heap `name` in d->heaps (d->heaps.n: none). */
size_t
yi_dheap_index(const ying_diff *d, uint32_t name)
{
	size_t i;

	for (i = 0; i < d->heaps.n && d->heaps.v[i].name != name; i++)
		;
	return i;
}

static const char *
unit_name(ying_sample_index idx)
{
	return yi_index_is_bytes(idx) ? "bytes" : "objects";
}

/* "+1.50 MiB", "-3", "0 B" */
const char *
yi_fmt_signed(double v, ying_sample_index idx, char *buf, size_t n)
{
	char tmp[32];

	yi_fmt_value(v, idx, tmp, sizeof(tmp));
	snprintf(buf, n, "%s%s", v > 0 ? "+" : "", tmp);
	return buf;
}

/* The "±0.4 MiB" column of a row (UTF-8: printed right-aligned to width
 * w by hand, since printf counts the sign's two bytes). */
static void
put_pm(yi_out *o, double var, ying_sample_index idx, int w)
{
	char b[40];
	int len;

	yi_fmt_value(YI_Z95 * sqrt(var > 0 ? var : 0), idx, b, sizeof(b));
	len = (int)strlen(b) + 1;
	for (; len < w; len++)
		yi_out_putc(o, ' ');
	yi_out_printf(o, "\xc2\xb1%s", b);
}

static const char *
granularity_name(ying_granularity g)
{
	return g == YING_BY_STACK ? "stack" : g == YING_BY_LINE ? "line" : "function";
}

static void
print_dfunc(yi_out *o, const ying_diff *d, uint32_t func, uint32_t line)
{
	yi_out_where(o, yi_dstr(d, d->funcs.v[func].show), yi_dstr(d, d->funcs.v[func].file), line);
}

/* Frame k of diff stack s, expanded from profile p as f: the diff's name
 * for it (the same on both sides), p's file and line. */
static void
print_pfunc(yi_out *o, const ying_diff *d, const dstack *s, size_t k,
    const ying_profile *p, const yi_frame *f)
{
	const yi_func *fn = &p->funcs.v[f->func];
	const char *name = k < s->nfuncs ? yi_dstr(d, d->funcs.v[s->funcs[k]].show) :
	    yi_profile_str(p, fn->show);

	if (f->inlined)
		yi_out_puts(o, "[inline] ");
	yi_out_where(o, name, yi_profile_str(p, fn->file), f->line);
}

/* The representative frames of a diff stack (from NOW when it has any). */
long
yi_stack_frames(const ying_diff *d, const dstack *s, const ying_profile **pp,
    yi_framevec *fr)
{
	int side = s->src[NOW] >= 0 ? NOW : BASE;

	*pp = d->p[side];
	return yi_stack_expand(d->p[side], &d->p[side]->stacks.v[s->src[side]], fr);
}

typedef struct report {
	ying_diff *d;
	const ying_diff_opts *opts;
	drow **grow, **shrink;   /* sorted, limited */
	size_t ngrow, nshrink, ngrow_all, nshrink_all;
	uint32_t *grow_st, *shrink_st; /* BY_STACK sections */
	uint32_t *new_st, *gone_st;
	size_t nnew, ngone, nnew_all, ngone_all;
	double new_sum, gone_sum;
	double new_var, gone_var;
	bool cum;                /* the lists rank by cumulative change */
	bool noisy;              /* a listed row or stack is within noise */
} report;

static void
report_free(report *r)
{
	yi_free(r->grow);
	yi_free(r->shrink);
	yi_free(r->grow_st);
	yi_free(r->shrink_st);
	yi_free(r->new_st);
	yi_free(r->gone_st);
}

static size_t
limit_of(const ying_diff_opts *o)
{
	if (o->limit)
		return o->limit;
	return o->json ? SIZE_MAX : 20;
}

/* Lists of whole stacks (new, gone, --stacks rows) carry every frame; by
 * default JSON keeps the largest 100 of each (the counts give the rest). */
static size_t
stack_limit_of(const ying_diff_opts *o)
{
	if (o->limit)
		return o->limit;
	return o->json ? 100 : 20;
}

/* The stack lists of the report, each with its selection and order. */
typedef enum stack_list {
	LIST_GROWN,     /* delta > 0, by delta desc */
	LIST_NEW,       /* only in NOW, by NOW desc */
	LIST_GONE,      /* only in BASE, by BASE desc */
	LIST_SHRUNK     /* delta < 0, most negative first */
} stack_list;

static int
select_stacks(report *r, stack_list list, uint32_t **out, size_t *nout, size_t *nall,
    double *sum, double *var)
{
	const ying_diff *d = r->d;
	sortctx c = { d, YI_ORDER_DELTA };
	size_t i, n = 0, lim = stack_limit_of(r->opts);
	uint32_t *v;

	if ((v = yi_malloc((d->stacks.n ? d->stacks.n : 1) * sizeof(*v))) == NULL)
		return yi_oom("sorting stacks");
	if (sum)
		*sum = *var = 0;
	for (i = 0; i < d->stacks.n; i++) {
		const dstack *s = &d->stacks.v[i];
		double dl = stack_delta(d, s);
		bool keep;
		if (fabs(dl) < fmax(r->opts->min_delta, MIN_CHANGE))
			continue;
		if (r->opts->significant && !yi_interval(dl, yi_stack_dvar(s), NULL, NULL))
			continue;
		switch (list) {
		case LIST_GROWN: keep = dl > 0; break;
		case LIST_NEW: keep = s->val[BASE][d->idx] == 0 && s->val[NOW][d->idx] > 0; break;
		case LIST_GONE: keep = s->val[NOW][d->idx] == 0 && s->val[BASE][d->idx] > 0; break;
		default: keep = dl < 0; break;   /* shrunk: reversed below */
		}
		if (!keep)
			continue;
		v[n++] = (uint32_t)i;
		if (sum) {
			*sum += dl;
			*var += yi_stack_dvar(s);
		}
	}
	c.order = list == LIST_NEW ? YI_ORDER_NOW : list == LIST_GONE ? YI_ORDER_BASE :
	    YI_ORDER_DELTA;
	qsort_r(v, n, sizeof(*v), yi_cmp_stacks, &c);
	if (list == LIST_SHRUNK) {   /* most negative first */
		for (i = 0; i < n / 2; i++) {
			uint32_t t = v[i];
			v[i] = v[n - 1 - i];
			v[n - 1 - i] = t;
		}
	}
	*nall = n;
	*nout = n < lim ? n : lim;
	*out = v;
	return 0;
}

static int
prepare(report *r)
{
	ying_diff *d = r->d;
	const ying_diff_opts *o = r->opts;
	drowvec *rows = o->granularity == YING_BY_LINE ? &d->sums.lines : &d->sums.funcs;
	sortctx c = { d, r->cum ? YI_ORDER_CUM_DELTA : YI_ORDER_FLAT_DELTA };
	size_t i, lim = limit_of(o), n = 0;
	drow **all;
	int rc;

	if ((rc = select_stacks(r, LIST_NEW, &r->new_st, &r->nnew, &r->nnew_all, &r->new_sum,
	    &r->new_var)) != 0 ||
	    (rc = select_stacks(r, LIST_GONE, &r->gone_st, &r->ngone, &r->ngone_all, &r->gone_sum,
	    &r->gone_var)) != 0)
		return rc;
	if (o->granularity == YING_BY_STACK) {
		if ((rc = select_stacks(r, LIST_GROWN, &r->grow_st, &r->ngrow, &r->ngrow_all,
		    NULL, NULL)) != 0 ||
		    (rc = select_stacks(r, LIST_SHRUNK, &r->shrink_st, &r->nshrink, &r->nshrink_all,
		    NULL, NULL)) != 0)
			return rc;
		return 0;
	}
	if ((all = yi_malloc((rows->n ? rows->n : 1) * sizeof(*all))) == NULL)
		return yi_oom("sorting rows");
	/* The flat lists: a row is listed when its flat value changed by at
	 * least one byte (object) and by --min-delta; ranked by that change
	 * (cum delta breaks ties).  Callers whose only change is below them
	 * are not listed: their change is their callees' flat change.  The
	 * cumulative lists do the same with the cumulative change.  With
	 * --significant, rows whose change is within sampling noise go too. */
	for (i = 0; i < rows->n; i++) {
		double dl = r->cum ? row_cum_delta(&rows->v[i]) : row_delta(&rows->v[i]);
		if (fabs(dl) < fmax(o->min_delta, MIN_CHANGE))
			continue;
		if (o->significant && !yi_interval(dl, yi_row_dvar(&rows->v[i], r->cum), NULL, NULL))
			continue;
		all[n++] = &rows->v[i];
	}
	qsort_r(all, n, sizeof(*all), cmp_rows, &c);
	for (i = 0; i < n && (r->cum ? row_cum_delta(all[i]) : row_delta(all[i])) > 0; i++)
		;
	r->ngrow_all = i;
	r->nshrink_all = n - i;
	r->ngrow = r->ngrow_all < lim ? r->ngrow_all : lim;
	r->nshrink = r->nshrink_all < lim ? r->nshrink_all : lim;
	r->grow = all;   /* growth: all[0..ngrow) */
	if ((r->shrink = yi_malloc((r->nshrink ? r->nshrink : 1) * sizeof(*r->shrink))) == NULL)
		return yi_oom("sorting rows");
	for (i = 0; i < r->nshrink; i++)   /* most negative first */
		r->shrink[i] = all[n - 1 - i];
	return 0;
}

double
yi_pct(double delta, double base)
{
	return base != 0 ? 100.0 * delta / base : 0;
}

static int
text_stack(yi_out *o, report *r, const dstack *s, yi_framevec *fr)
{
	const ying_diff *d = r->d;
	const ying_profile *p;
	char b1[80], b2[40], b3[40];
	bool sig = yi_interval(stack_delta(d, s), yi_stack_dvar(s), NULL, NULL);
	long n;
	size_t k;

	if ((n = yi_stack_frames(d, s, &p, fr)) < 0)
		return (int)n;
	if (!sig)
		r->noisy = true;
	yi_out_printf(o, "  %s%s  (base %s, now %s)",
	    yi_fmt_delta_pm(stack_delta(d, s), yi_stack_dvar(s), d->idx, b1, sizeof(b1)),
	    sig ? "" : " ~",
	    yi_fmt_value(s->val[BASE][d->idx], d->idx, b2, sizeof(b2)),
	    yi_fmt_value(s->val[NOW][d->idx], d->idx, b3, sizeof(b3)));
	if (d->has_heaps) {
		yi_out_puts(o, "  [heap ");
		yi_out_text(o, yi_dstr(d, s->heap));
		yi_out_putc(o, ']');
	}
	yi_out_putc(o, '\n');
	for (k = 0; k < fr->n; k++) {
		yi_out_puts(o, "      ");
		print_pfunc(o, d, s, k, p, &fr->v[k]);
		yi_out_putc(o, '\n');
	}
	return 0;
}

/* The rows' header.  Sampled diffs add a "±95%" column after the delta
 * the list ranks by (flat, or cum with --cum): the half width of its 95 %
 * interval, then "~" on rows whose change is within sampling noise (%11s:
 * the sign is two bytes). */
static void
text_head(yi_out *o, const report *rp, const char *what)
{
	if (!sampled(rp->d))
		yi_out_printf(o, "%13s %12s %12s %13s  %s\n", "delta", "base", "now", "cum delta", what);
	else if (rp->cum)
		yi_out_printf(o, "%13s %12s %12s %13s %11s    %s\n", "delta", "base", "now",
		    "cum delta", "\xc2\xb1" "95%", what);
	else
		yi_out_printf(o, "%13s %11s %12s %12s %13s    %s\n", "delta", "\xc2\xb1" "95%",
		    "base", "now", "cum delta", what);
}

static void
text_rows(yi_out *o, report *rp, drow **rows, size_t n)
{
	const ying_diff *d = rp->d;
	char b1[40], b2[40], b3[40], b4[40];
	size_t i;

	for (i = 0; i < n; i++) {
		const drow *r = rows[i];
		double var = yi_row_dvar(r, rp->cum);
		bool sig = yi_interval(rp->cum ? row_cum_delta(r) : row_delta(r), var, NULL, NULL);
		yi_fmt_signed(row_delta(r), d->idx, b1, sizeof(b1));
		yi_fmt_value(r->flat[BASE], d->idx, b2, sizeof(b2));
		yi_fmt_value(r->flat[NOW], d->idx, b3, sizeof(b3));
		yi_fmt_signed(row_cum_delta(r), d->idx, b4, sizeof(b4));
		if (!sampled(d)) {
			yi_out_printf(o, "%13s %12s %12s %13s  ", b1, b2, b3, b4);
		} else if (rp->cum) {
			yi_out_printf(o, "%13s %12s %12s %13s ", b1, b2, b3, b4);
			put_pm(o, var, d->idx, 10);
			yi_out_printf(o, "  %s ", sig ? " " : "~");
		} else {
			yi_out_printf(o, "%13s ", b1);
			put_pm(o, var, d->idx, 10);
			yi_out_printf(o, " %12s %12s %13s  %s ", b2, b3, b4, sig ? " " : "~");
		}
		if (sampled(d) && !sig)
			rp->noisy = true;
		print_dfunc(o, d, r->func, r->line);
		yi_out_putc(o, '\n');
	}
}

/* When either side has heaps: "Heaps: NAME BASE -> NOW (DELTA), ..." over
 * d->heaps (NOW's, then those of BASE only; the sides' unfiltered totals;
 * a side without heaps counts as the other's first heap). */
static void
text_heaps(yi_out *o, const ying_diff *d)
{
	char b1[40], b2[40], b3[80];
	size_t i;

	for (i = 0; i < d->heaps.n; i++) {
		const dheap *h = &d->heaps.v[i];
		yi_out_puts(o, i ? ", " : "Heaps: ");
		yi_out_text(o, yi_dstr(d, h->name));
		yi_out_printf(o, " %s -> %s (%s)", yi_fmt_value(h->total[BASE], d->idx, b1, sizeof(b1)),
		    yi_fmt_value(h->total[NOW], d->idx, b2, sizeof(b2)),
		    yi_fmt_delta_pm(h->total[NOW] - h->total[BASE], h->var[BASE] + h->var[NOW],
		    d->idx, b3, sizeof(b3)));
	}
	if (i)
		yi_out_putc(o, '\n');
}

static int
write_text(yi_out *o, report *r)
{
	ying_diff *d = r->d;
	const ying_diff_opts *opts = r->opts;
	yi_framevec fr = { 0 };
	double tb = d->total[BASE][d->idx], tn = d->total[NOW][d->idx];
	char b1[40], b2[40], b3[40], b4[80];
	size_t i, matched, added, gone;
	int side, rc = 0;

	ying_diff_stack_counts(&matched, &added, &gone, d);
	for (side = 0; side < 2; side++) {
		const ying_profile *p = d->p[side];
		yi_out_printf(o, "%-6s %13s  %s in %zu stacks, sample period %s: %s\n",
		    side == BASE ? "Base:" : "Now:", yi_fmt_value(d->total[side][d->idx], d->idx, b1, sizeof(b1)),
		    ying_sample_index_name(d->idx), d->nsrc[side],
		    yi_fmt_bytes((double)p->period, b2, sizeof(b2)), p->source);
	}
	yi_out_printf(o, "%-6s %13s", "Delta:", yi_fmt_signed(tn - tb, d->idx, b1, sizeof(b1)));
	if (sampled(d)) {
		double lo, hi;
		bool sig = yi_interval(tn - tb, d->var[BASE] + d->var[NOW], &lo, &hi);
		yi_out_printf(o, "  \xc2\xb1%s", yi_fmt_value(hi - (tn - tb), d->idx, b2, sizeof(b2)));
		yi_out_printf(o, " (95 %%: %s", yi_fmt_signed(lo, d->idx, b2, sizeof(b2)));
		yi_out_printf(o, " to %s%s)", yi_fmt_signed(hi, d->idx, b2, sizeof(b2)),
		    sig ? "" : ", within noise");
	}
	if (tb != 0)
		yi_out_printf(o, "  (%+.1f%%)", yi_pct(tn - tb, tb));
	if (yi_index_is_bytes(d->idx))
		yi_out_printf(o, "  %+.0f bytes", tn - tb);
	yi_out_printf(o, "\nStacks: %zu in both, %zu new in NOW, %zu gone from BASE\n",
	    matched, added, gone);
	text_heaps(o, d);
	if (d->filtered)
		yi_out_printf(o, "(--focus/--ignore: unfiltered base %s, now %s)\n",
		    yi_fmt_value(d->all[BASE], d->idx, b2, sizeof(b2)),
		    yi_fmt_value(d->all[NOW], d->idx, b3, sizeof(b3)));

	if (opts->granularity == YING_BY_STACK) {
		yi_out_printf(o, "\nTop growth by stack (%zu of %zu):\n", r->ngrow, r->ngrow_all);
		for (i = 0; i < r->ngrow && rc == 0; i++)
			rc = text_stack(o, r, &d->stacks.v[r->grow_st[i]], &fr);
		if (r->ngrow_all == 0)
			yi_out_puts(o, "  (none)\n");
		yi_out_printf(o, "\nTop shrink by stack (%zu of %zu):\n", r->nshrink, r->nshrink_all);
		for (i = 0; i < r->nshrink && rc == 0; i++)
			rc = text_stack(o, r, &d->stacks.v[r->shrink_st[i]], &fr);
		if (r->nshrink_all == 0)
			yi_out_puts(o, "  (none)\n");
	} else {
		const char *what = opts->granularity == YING_BY_LINE ?
		    "function (file:line)" : "function (file:line that changed most)";
		const char *list = r->cum ? "cumulative" : "flat";
		yi_out_printf(o, "\nTop growth, %s (%zu of %zu):\n", list, r->ngrow, r->ngrow_all);
		if (r->ngrow_all) {
			text_head(o, r, what);
			text_rows(o, r, r->grow, r->ngrow);
		} else {
			yi_out_puts(o, "  (none)\n");
		}
		yi_out_printf(o, "\nTop shrink, %s (%zu of %zu):\n", list, r->nshrink, r->nshrink_all);
		if (r->nshrink_all) {
			text_head(o, r, what);
			text_rows(o, r, r->shrink, r->nshrink);
		} else {
			yi_out_puts(o, "  (none)\n");
		}
	}
	yi_out_printf(o, "\nNew stacks in NOW (%zu of %zu, %s):\n", r->nnew, r->nnew_all,
	    yi_fmt_delta_pm(r->new_sum, r->new_var, d->idx, b4, sizeof(b4)));
	for (i = 0; i < r->nnew && rc == 0; i++)
		rc = text_stack(o, r, &d->stacks.v[r->new_st[i]], &fr);
	if (r->nnew_all == 0)
		yi_out_puts(o, "  (none)\n");
	if (r->ngone_all)
		yi_out_printf(o, "\nGone from BASE: %zu stack%s, %s (listed by --json)\n", r->ngone_all,
		    r->ngone_all == 1 ? "" : "s",
		    yi_fmt_delta_pm(r->gone_sum, r->gone_var, d->idx, b4, sizeof(b4)));
	if (r->noisy)
		yi_out_printf(o, "\n~ within sampling noise: the 95 %% interval (\xc2\xb1, from "
		    "jemalloc's sampling) includes 0; --significant hides these\n");
	yi_vec_free(&fr);
	return rc;
}

static void
json_dfunc(yi_out *o, const ying_diff *d, uint32_t func, uint32_t line)
{
	yi_out_puts(o, "\"function\":");
	yi_out_json_str(o, yi_dstr(d, d->funcs.v[func].show));
	yi_out_puts(o, ",\"full_name\":");
	yi_out_json_str(o, yi_dstr(d, d->funcs.v[func].name));
	yi_out_puts(o, ",\"file\":");
	yi_out_json_str(o, yi_dstr(d, d->funcs.v[func].file));
	yi_out_printf(o, ",\"line\":%u", line);
}

static void
json_kv(yi_out *o, const char *key, double v)
{
	yi_out_printf(o, ",\"%s\":", key);
	yi_out_json_num(o, v);
}

/* ,"PREFIXdelta_lo":..,"PREFIXdelta_hi":..,"PREFIXsignificant":.. */
static void
json_interval(yi_out *o, const char *prefix, double delta, double var)
{
	double lo, hi;
	bool sig = yi_interval(delta, var, &lo, &hi);
	char key[40];

	snprintf(key, sizeof(key), "%sdelta_lo", prefix);
	json_kv(o, key, lo);
	snprintf(key, sizeof(key), "%sdelta_hi", prefix);
	json_kv(o, key, hi);
	yi_out_printf(o, ",\"%ssignificant\":%s", prefix, sig ? "true" : "false");
}

/* ,"heap":NAME when the diff has heaps. */
static void
json_heap(yi_out *o, const ying_diff *d, const dstack *s)
{
	if (!d->has_heaps)
		return;
	yi_out_puts(o, ",\"heap\":");
	yi_out_json_str(o, yi_dstr(d, s->heap));
}

static int
json_stack(yi_out *o, const ying_diff *d, const dstack *s, yi_framevec *fr)
{
	const ying_profile *p;
	long n;
	size_t k;

	if ((n = yi_stack_frames(d, s, &p, fr)) < 0)
		return (int)n;
	yi_out_puts(o, "{\"base\":");
	yi_out_json_num(o, s->val[BASE][d->idx]);
	json_kv(o, "now", s->val[NOW][d->idx]);
	json_kv(o, "delta", stack_delta(d, s));
	json_interval(o, "", stack_delta(d, s), yi_stack_dvar(s));
	json_heap(o, d, s);
	yi_out_puts(o, ",\"frames\":[");
	for (k = 0; k < fr->n; k++) {
		const yi_func *fn = &p->funcs.v[fr->v[k].func];
		yi_out_puts(o, k ? ",{\"function\":" : "{\"function\":");
		yi_out_json_str(o, k < s->nfuncs ? yi_dstr(d, d->funcs.v[s->funcs[k]].show) :
		    yi_profile_str(p, fn->show));
		yi_out_puts(o, ",\"full_name\":");
		yi_out_json_str(o, yi_profile_str(p, fn->name));
		yi_out_puts(o, ",\"file\":");
		yi_out_json_str(o, yi_profile_str(p, fn->file));
		yi_out_printf(o, ",\"line\":%u,\"inlined\":%s}", fr->v[k].line,
		    fr->v[k].inlined ? "true" : "false");
	}
	yi_out_puts(o, "]}");
	return 0;
}

static int
json_stacks(yi_out *o, const ying_diff *d, const char *key, const uint32_t *v,
    size_t n, yi_framevec *fr)
{
	size_t i;
	int rc;

	yi_out_printf(o, ",\n\"%s\":[", key);
	for (i = 0; i < n; i++) {
		yi_out_puts(o, i ? ",\n" : "\n");
		if ((rc = json_stack(o, d, &d->stacks.v[v[i]], fr)) != 0)
			return rc;
	}
	yi_out_putc(o, ']');
	return 0;
}

static int
write_json(yi_out *o, report *r)
{
	ying_diff *d = r->d;
	const ying_diff_opts *opts = r->opts;
	yi_framevec fr = { 0 };
	double tb = d->total[BASE][d->idx], tn = d->total[NOW][d->idx];
	size_t i, matched, added, gone;
	int rc = 0;

	ying_diff_stack_counts(&matched, &added, &gone, d);
	yi_out_puts(o, "{\"base_total\":");
	yi_out_json_num(o, tb);
	json_kv(o, "now_total", tn);
	json_kv(o, "delta", tn - tb);
	json_interval(o, "", tn - tb, d->var[BASE] + d->var[NOW]);
	yi_out_puts(o, ",\"delta_percent\":");
	if (tb != 0)
		yi_out_json_num(o, yi_pct(tn - tb, tb));
	else
		yi_out_puts(o, "null");
	yi_out_printf(o, ",\"unit\":\"%s\",\"sample_index\":\"%s\",\"granularity\":\"%s\"",
	    unit_name(d->idx), ying_sample_index_name(d->idx), granularity_name(opts->granularity));
	yi_out_printf(o, ",\"rank\":\"%s\"", opts->granularity == YING_BY_STACK ? "stack" :
	    r->cum ? "cumulative" : "flat");
	yi_out_puts(o, ",\"base\":");
	yi_out_json_str(o, d->p[BASE]->source);
	yi_out_puts(o, ",\"now\":");
	yi_out_json_str(o, d->p[NOW]->source);
	yi_out_printf(o, ",\"base_period\":%llu,\"now_period\":%llu",
	    (unsigned long long)d->p[BASE]->period, (unsigned long long)d->p[NOW]->period);
	yi_out_printf(o, ",\"filtered\":%s", d->filtered ? "true" : "false");
	json_kv(o, "unfiltered_base_total", d->all[BASE]);
	json_kv(o, "unfiltered_now_total", d->all[NOW]);
	yi_out_printf(o, ",\"stacks_matched\":%zu,\"stacks_new\":%zu,\"stacks_gone\":%zu",
	    matched, added, gone);
	json_kv(o, "new_stacks_delta", r->new_sum);
	json_interval(o, "new_stacks_", r->new_sum, r->new_var);
	json_kv(o, "gone_stacks_delta", r->gone_sum);
	json_interval(o, "gone_stacks_", r->gone_sum, r->gone_var);
	yi_out_printf(o, ",\"significant_only\":%s", opts->significant ? "true" : "false");
	if (d->has_heaps) {
		yi_out_puts(o, ",\"heaps\":[");
		for (i = 0; i < d->heaps.n; i++) {
			const dheap *h = &d->heaps.v[i];
			yi_out_puts(o, i ? ",{\"name\":" : "{\"name\":");
			yi_out_json_str(o, yi_dstr(d, h->name));
			json_kv(o, "base", h->total[BASE]);
			json_kv(o, "now", h->total[NOW]);
			json_kv(o, "delta", h->total[NOW] - h->total[BASE]);
			json_interval(o, "", h->total[NOW] - h->total[BASE], h->var[BASE] + h->var[NOW]);
			yi_out_putc(o, '}');
		}
		yi_out_putc(o, ']');
	}
	yi_out_puts(o, ",\n\"rows\":[");
	if (opts->granularity == YING_BY_STACK) {
		for (i = 0; i < r->ngrow + r->nshrink && rc == 0; i++) {
			const dstack *s = &d->stacks.v[i < r->ngrow ? r->grow_st[i] :
			    r->shrink_st[r->nshrink - 1 - (i - r->ngrow)]];
			uint32_t leaf = s->funcs[0];
			yi_out_puts(o, i ? ",\n{" : "\n{");
			json_dfunc(o, d, leaf, 0);
			json_kv(o, "base", s->val[BASE][d->idx]);
			json_kv(o, "now", s->val[NOW][d->idx]);
			json_kv(o, "delta", stack_delta(d, s));
			json_interval(o, "", stack_delta(d, s), yi_stack_dvar(s));
			json_heap(o, d, s);
			yi_out_puts(o, ",\"stack\":");
			rc = json_stack(o, d, s, &fr);
			yi_out_putc(o, '}');
		}
	} else {
		/* growth rows in descending order, then shrink rows, so the array
		 * is sorted by delta (by cum_delta with opts->cum) */
		for (i = 0; i < r->ngrow + r->nshrink; i++) {
			const drow *w = i < r->ngrow ? r->grow[i] : r->shrink[r->nshrink - 1 - (i - r->ngrow)];
			yi_out_puts(o, i ? ",\n{" : "\n{");
			json_dfunc(o, d, w->func, w->line);
			json_kv(o, "base", w->flat[BASE]);
			json_kv(o, "now", w->flat[NOW]);
			json_kv(o, "delta", row_delta(w));
			json_interval(o, "", row_delta(w), yi_row_dvar(w, false));
			json_kv(o, "cum_base", w->cum[BASE]);
			json_kv(o, "cum_now", w->cum[NOW]);
			json_kv(o, "cum_delta", row_cum_delta(w));
			json_interval(o, "cum_", row_cum_delta(w), yi_row_dvar(w, true));
			yi_out_putc(o, '}');
		}
	}
	yi_out_putc(o, ']');
	if (rc == 0)
		rc = json_stacks(o, d, "new_stacks", r->new_st, r->nnew, &fr);
	if (rc == 0)
		rc = json_stacks(o, d, "gone_stacks", r->gone_st, r->ngone, &fr);
	yi_out_puts(o, "}\n");
	yi_vec_free(&fr);
	return rc;
}

int
ying_diff_write_text(ying_diff *d, const ying_diff_opts *opts,
    ying_write_fn fn, void *opaque)
{
	ying_diff_opts def = YING_DIFF_OPTS_INIT;
	report r;
	yi_out *o;
	int rc;

	yi_error_clear();
	if (d == NULL || fn == NULL)
		return yi_error(YING_EINVAL, "ying_diff_write_text: no diff or sink");
	if (opts == NULL)
		opts = &def;
	if (opts->version != YING_DIFF_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_diff_opts version %d unsupported "
		    "(use YING_DIFF_OPTS_INIT)", opts->version);
	if ((unsigned)opts->granularity > YING_BY_STACK)
		return yi_error(YING_EINVAL, "invalid granularity %d", (int)opts->granularity);
	if (!(opts->min_delta >= 0))
		return yi_error(YING_EINVAL, "min_delta must be >= 0");
	memset(&r, 0, sizeof(r));
	r.d = d;
	r.opts = opts;
	r.cum = opts->cum != 0;
	if ((rc = prepare(&r)) != 0) {
		report_free(&r);
		return rc;
	}
	if ((o = yi_malloc(sizeof(*o))) == NULL) {
		report_free(&r);
		return yi_oom("writing a diff report");
	}
	yi_out_init(o, fn, opaque);
	rc = opts->json ? write_json(o, &r) : write_text(o, &r);
	if (rc == 0)
		rc = yi_out_finish(o);
	yi_free(o);
	report_free(&r);
	return rc;
}
