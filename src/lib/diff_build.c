/*
 * diff_build.c: what grew between a BASE dump and a later NOW dump (yingdiff).
 *
 * Each side keeps its own unsampled values (stack val[], computed at parse
 * time with that dump's own sample period), so dumps taken at different
 * rates subtract correctly.  Both sides are symbolized and trimmed first;
 * a stack is then identified by its expanded frames' (function name, source
 * file) sequence, leaf first.  Line numbers and addresses are deliberately
 * not part of the key: two runs of one build load at different addresses
 * (ASLR, restarts, another host), and a frame without symbols is already
 * named "module+0xoffset" by the symbolizer, which does not move with ASLR.
 * Function identities are re-interned into the diff's own string table, so
 * the two profiles never need to share ids.
 *
 * Heaps: when either side holds several heaps (a ying-heap trailer, a
 * pprof `heap` label), the stack's heap is part of its identity, so the
 * same call path in two heaps is two diff stacks (diff_heaps below).
 * Function and line rows stay summed over the heaps.
 *
 * Building a diff is one pass over each side (NOW first, so that a matched
 * stack's representative frames and lines come from NOW):
 *   - every kept stack is mapped to a diff stack (an id set keyed by the
 *     function id sequence, base_hash.c), adding its four values to that
 *     side;
 *   - per function and per function+line, flat (leaf) and cumulative values
 *     are accumulated for each side by yi_agg (model_agg.c), cumulative
 *     counted once per stack even under recursion (jeprof's ReduceProfile):
 *     the same code as `ying top`.
 * Sampling error: each source stack also adds the variance of its
 * estimate (yi_stack_var, model_noise.c, where the model is derived) to
 * its diff stack, its side's total, its heap and, through yi_agg, every
 * row it counts in; a delta's variance is the two sides' sum, and its 95 %
 * interval and significance come from yi_interval.
 * Whole numbers: a pprof file written by ying carries each stack's values
 * truncated toward zero, while a heap_v2 dump of the same data gives
 * fractional unsampled values.  When either side is a pprof file, every
 * source stack's values on both sides are truncated the same way before
 * they are summed, so the same data diffs to exactly zero.  Any change
 * smaller than one byte (one object) is no change: rows and stack lists
 * never show it.
 *
 * The report's flat lists hold the functions (or lines) whose flat value
 * changed, ranked by that change; --min-delta filters on it too.  With
 * --cum (opts->cum) the lists are cumulative: functions whose cumulative
 * value changed, ranked and filtered by that.  Stack lists rank and filter
 * by the stack's change.
 *
 * Different programs: the main executables of the two sides are compared
 * (file name, and GNU build ID when both have one); ying_diff_warning()
 * says so when they look like two different programs.
 *
 * Every writer reads this structure (diff_text.c, diff_flame.c,
 * diff_pprof.c): the text/JSON report, the two-column
 * folded form, the differential flame graph (yi_flame_* in diff mode) and a
 * pprof profile of NOW minus BASE (a synthetic, already symbolized
 * ying_profile handed to yi_pprof_write).
 */
#include <math.h>
#include <stdlib.h>

#include "diff_int.h"
#include "sym.h"

/* ---- building ----------------------------------------------------------- */

static int
map_func(ying_diff *d, const ying_profile *p, uint32_t *fmap, uint32_t func,
    uint32_t *out)
{
	const yi_func *f = &p->funcs.v[func];
	uint32_t nid, fid, *slot;
	bool added;
	int rc;

	if (fmap[func] != UINT32_MAX) {
		*out = fmap[func];
		return 0;
	}
	if ((rc = yi_strtab_intern(&d->strs, yi_profile_str(p, f->name),
	    yi_strtab_len(&p->strs, f->name), &nid)) != 0 ||
	    (rc = yi_strtab_intern(&d->strs, yi_profile_str(p, f->file),
	    yi_strtab_len(&p->strs, f->file), &fid)) != 0)
		return rc;
	if ((rc = yi_map64_put(&d->func_by_key, (uint64_t)nid << 32 | fid,
	    (uint32_t)d->funcs.n, &slot, &added)) != 0)
		return rc;
	if (added) {
		if ((rc = yi_vec_grow(&d->funcs, 1)) != 0)
			return rc;
		d->funcs.v[d->funcs.n].name = nid;
		d->funcs.v[d->funcs.n].file = fid;
		d->funcs.n++;
	}
	*out = fmap[func] = *slot;
	return 0;
}

/* What the diff's functions print: short names chosen over both sides'
 * functions at once, so a function prints the same in BASE and NOW. */
static int
diff_names(ying_diff *d)
{
	uint32_t *full;
	size_t n = d->funcs.n;
	int rc;

	if (n == 0)
		return 0;
	if ((full = yi_calloc(2 * n, sizeof(*full))) == NULL)
		return yi_oom("shortening names");
	for (size_t i = 0; i < n; i++)
		full[i] = d->funcs.v[i].name;
	if ((rc = yi_names_show(&d->strs, full, n, d->p[BASE]->full_names ||
	    d->p[NOW]->full_names, full + n)) == 0)
		for (size_t i = 0; i < n; i++)
			d->funcs.v[i].show = full[n + i];
	yi_free(full);
	return rc;
}

/* Find or add the diff stack with this function id sequence ids[0..n)
 * and, when d->has_heaps, the heap id ids[n] (its id in d->stack_ids is
 * its index in d->stacks). */
static int
find_stack(ying_diff *d, const uint32_t *ids, size_t n, uint32_t *out)
{
	size_t nkey = n + (d->has_heaps ? 1 : 0);
	dstack *ds;
	bool added;
	int rc;

	if ((rc = yi_idset_add(&d->stack_ids, ids, nkey * sizeof(*ids), out, &added)) != 0)
		return rc == YING_ELIMIT ? yi_error(YING_ELIMIT, "diff: too many stacks") : rc;
	if (!added)
		return 0;
	if ((rc = yi_vec_grow(&d->stacks, 1)) != 0)
		return rc;
	ds = &d->stacks.v[d->stacks.n++];
	memset(ds, 0, sizeof(*ds));
	ds->funcs = yi_idset_key(&d->stack_ids, *out);
	ds->nfuncs = (uint32_t)n;
	ds->heap = d->has_heaps ? ids[n] : 0;
	ds->src[BASE] = ds->src[NOW] = -1;
	return 0;
}

/* The diff heap called `name`, added (with zero totals) when new. */
static int
add_dheap(ying_diff *d, const char *name, uint32_t *id)
{
	int rc;

	if ((rc = yi_strtab_intern(&d->strs, name, strlen(name), id)) != 0)
		return rc;
	for (size_t i = 0; i < d->heaps.n; i++)
		if (d->heaps.v[i].name == *id)
			return 0;
	if ((rc = yi_vec_grow(&d->heaps, 1)) != 0)
		return rc;
	memset(&d->heaps.v[d->heaps.n], 0, sizeof(d->heaps.v[0]));
	d->heaps.v[d->heaps.n++].name = *id;
	return 0;
}

/*
 * Heaps: when either side has heaps, a stack's heap is part of its
 * identity.  A side without heaps (a dump without a ying-heap trailer: a
 * process's one, primary heap) is taken as the other side's first heap.
 * The heaps list: NOW's in dump order, then BASE's others, each with both
 * sides' unfiltered totals.
 */
static int
diff_heaps(ying_diff *d)
{
	uint32_t id;
	int rc, side;

	d->has_heaps = d->p[BASE]->has_heaps || d->p[NOW]->has_heaps;
	if (!d->has_heaps)
		return 0;
	for (side = 0; side < 2; side++) {
		const ying_profile *p = d->p[side];
		const char *first = ying_profile_heap_name(d->p[!side], 0);
		if (!p->has_heaps && (rc = add_dheap(d, first ? first : YI_HEAP_UNNAMED,
		    &d->primary)) != 0)
			return rc;
	}
	for (side = NOW; side >= BASE; side--) {
		const ying_profile *p = d->p[side];
		if (!p->has_heaps) {
			double t = 0, var = 0;
			for (size_t s = 0; s < p->stacks.n; s++) {
				t += p->stacks.v[s].val[d->idx];
				var += yi_stack_var(p->stacks.v[s].val, p->period, d->idx);
			}
			for (size_t i = 0; i < d->heaps.n; i++)
				if (d->heaps.v[i].name == d->primary) {
					d->heaps.v[i].total[side] = t;
					d->heaps.v[i].var[side] = var;
				}
			continue;
		}
		for (size_t i = 0; i < ying_profile_heap_count(p); i++) {
			double var = 0;
			if ((rc = add_dheap(d, ying_profile_heap_name(p, i), &id)) != 0)
				return rc;
			for (size_t s = 0; s < p->stacks.n; s++)
				if (p->stacks.v[s].heap == p->heaps.v[i])
					var += yi_stack_var(p->stacks.v[s].val, p->period, d->idx);
			for (size_t k = 0; k < d->heaps.n; k++)
				if (d->heaps.v[k].name == id) {
					d->heaps.v[k].total[side] =
					    ying_profile_heap_total(p, i, d->idx);
					d->heaps.v[k].var[side] = var;
				}
		}
	}
	return 0;
}

/* The diff heap id of profile p's heap (a strtab id of p), found in
 * hmap[0..p->heaps.n) (p's heaps' diff ids, in p's order). */
static uint32_t
stack_heap(const ying_diff *d, const ying_profile *p, const uint32_t *hmap,
    uint32_t heap)
{
	if (!p->has_heaps)
		return d->primary;
	for (size_t i = 0; i < p->heaps.n; i++)
		if (p->heaps.v[i] == heap)
			return hmap[i];
	return d->primary;      /* not one of p's heaps: cannot happen */
}

static int
ingest(ying_diff *d, int side, yi_filter *flt)
{
	const ying_profile *p = d->p[side];
	YI_VEC(uint32_t) ids = { 0 };
	yi_framevec fr = { 0 };
	uint32_t *fmap, *hmap = NULL;
	size_t s, i;
	int rc = 0, k;

	if ((fmap = yi_malloc((p->funcs.n ? p->funcs.n : 1) * sizeof(*fmap))) == NULL)
		return yi_oom("diffing profiles");
	memset(fmap, 0xff, (p->funcs.n ? p->funcs.n : 1) * sizeof(*fmap));
	if ((hmap = yi_calloc(p->heaps.n + 1, sizeof(*hmap))) == NULL) {
		yi_free(fmap);
		return yi_oom("diffing profiles");
	}
	for (i = 0; d->has_heaps && p->has_heaps && i < p->heaps.n; i++) {
		const char *h = yi_profile_str(p, p->heaps.v[i]);
		if ((rc = yi_strtab_intern(&d->strs, h, strlen(h), &hmap[i])) != 0)
			goto out;
	}
	for (s = 0; s < p->stacks.n; s++) {
		const yi_stack *st = &p->stacks.v[s];
		double val[4], v;
		uint32_t di = 0;
		dstack *ds;
		long n;

		double var;

		for (k = 0; k < 4; k++)
			val[k] = d->whole ? trunc(st->val[k]) : st->val[k];
		v = val[d->idx];
		var = yi_stack_var(val, p->period, d->idx);
		d->all[side] += v;
		if (val[0] == 0 && val[1] == 0 && val[2] == 0 && val[3] == 0)
			continue;
		if ((n = yi_stack_expand(p, st, &fr)) < 0) {
			rc = (int)n;
			break;
		}
		if (!yi_filter_keep(flt, p, fr.v, fr.n))
			continue;
		ids.n = 0;
		if ((rc = yi_vec_grow(&ids, fr.n + 1)) != 0)
			break;
		for (i = 0; i < fr.n; i++)
			if ((rc = map_func(d, p, fmap, fr.v[i].func, &ids.v[i])) != 0)
				goto out;
		ids.n = fr.n;
		if (d->has_heaps)       /* the key's last id, past ids.n */
			ids.v[fr.n] = stack_heap(d, p, hmap, st->heap);
		if ((rc = find_stack(d, ids.v, ids.n, &di)) != 0)
			break;
		ds = &d->stacks.v[di];
		if (ds->src[side] < 0)
			ds->src[side] = (int32_t)s;
		for (k = 0; k < 4; k++) {
			ds->val[side][k] += val[k];
			d->total[side][k] += val[k];
		}
		ds->var[side] += var;
		d->var[side] += var;
		d->nsrc[side]++;
		if (v == 0)
			continue;
		if ((rc = yi_agg_stack_var(&d->sums, side, fr.v, ids.v, fr.n, v, var)) != 0)
			break;
	}
out:
	yi_free(fmap);
	yi_free(hmap);
	yi_vec_free(&ids);
	yi_vec_free(&fr);
	return rc;
}

/* A function row shows the line whose value changed most (flat first). */
static int
pick_lines(ying_diff *d)
{
	size_t nf = d->sums.funcs.n, i;
	double *best = yi_calloc(nf ? nf : 1, sizeof(*best));

	if (best == NULL)
		return yi_oom("diffing profiles");
	for (i = 0; i < d->sums.lines.n; i++) {
		const drow *lr = &d->sums.lines.v[i];
		drow *r = &d->sums.funcs.v[lr->func];
		double score = fabs(lr->flat[NOW] - lr->flat[BASE]) * 4.0 +
		    fabs(lr->cum[NOW] - lr->cum[BASE]) + 1e-9 * (lr->cum[NOW] + lr->cum[BASE]);
		if (score > best[lr->func] || (score == best[lr->func] && lr->line && !r->line)) {
			best[lr->func] = score;
			r->line = lr->line;
		}
	}
	yi_free(best);
	return 0;
}

/*
 * jemalloc on Linux always ends a dump with MAPPED_LIBRARIES.  Without it
 * nothing can be symbolized, every frame stays a raw address, and stacks of
 * two processes can never match: the diff would be silently wrong.  A dump
 * cut at a line boundary before that section parses fine, so this is where
 * truncation is caught.
 */
static int
check_maps(const ying_profile *p)
{
	if (p->format != YI_FMT_HEAP_V2 || p->has_maps || p->locs.n == 0)
		return 0;
	return yi_error(YING_EPARSE, "%s: no MAPPED_LIBRARIES section at the end "
	    "(truncated dump?); without it frames cannot be symbolized or matched",
	    p->source);
}

/* The file name of a path ("" for NULL). */
static const char *
base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "";
}

/*
 * Two dumps of different programs diff without error but mean little; say
 * so.  The main executables differ when their file names differ, unless
 * both carry the same GNU build ID (a copied or renamed binary).  A rebuild
 * of the same program (same name, new build ID) is the normal use.
 */
static int
check_programs(ying_diff *d)
{
	const ying_profile *b = d->p[BASE], *n = d->p[NOW];
	const char *bp, *np, *bid, *nid;
	char msg[2048];

	if (b->main_map < 0 || (size_t)b->main_map >= b->maps.n ||
	    n->main_map < 0 || (size_t)n->main_map >= n->maps.n)
		return 0;
	bp = yi_profile_str(b, b->maps.v[b->main_map].path);
	np = yi_profile_str(n, n->maps.v[n->main_map].path);
	bid = yi_profile_str(b, b->maps.v[b->main_map].build_id);
	nid = yi_profile_str(n, n->maps.v[n->main_map].build_id);
	if (!*bp || !*np || strcmp(base_name(bp), base_name(np)) == 0)
		return 0;
	if (bid && nid && *bid && strcmp(bid, nid) == 0)
		return 0;
	snprintf(msg, sizeof(msg), "BASE is %s, NOW is %s: these look like different "
	    "programs", bp, np);
	if ((d->warning = yi_text_escape_dup(msg)) == NULL)   /* paths from the dumps */
		return yi_oom("diffing profiles");
	return 0;
}

/* What both builds check before anything else (opts already defaulted). */
static int
check_inputs(ying_diff **out, const ying_profile *base, const ying_profile *now,
    const ying_diff_build_opts *opts)
{
	int rc;

	yi_error_clear();
	if (out == NULL)
		return yi_error(YING_EINVAL, "ying_diff_build: no output pointer");
	*out = NULL;
	if (base == NULL || now == NULL)
		return yi_error(YING_EINVAL, "ying_diff_build: need two profiles");
	if (opts->version != YING_DIFF_BUILD_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_diff_build_opts version %d unsupported",
		    opts->version);
	if ((rc = yi_profile_check_index(base, opts->sample_index)) != 0 ||
	    (rc = yi_profile_check_index(now, opts->sample_index)) != 0 ||
	    (rc = check_maps(base)) != 0 || (rc = check_maps(now)) != 0)
		return rc;
	return 0;
}

/* The public build: both inputs as they are (never symbolized here: the
 * caller symbolizes them first, else stacks match by address). */
int
ying_diff_build(ying_diff **out, const ying_profile *base, const ying_profile *now,
    const ying_diff_build_opts *opts)
{
	return yi_diff_build(out, base, now, opts);
}

int
yi_diff_build(ying_diff **out, const ying_profile *base, const ying_profile *now,
    const ying_diff_build_opts *opts)
{
	ying_diff_build_opts def = YING_DIFF_BUILD_OPTS_INIT;
	yi_filter *flt = NULL;
	ying_diff *d;
	int rc;

	if (opts == NULL)
		opts = &def;
	if ((rc = check_inputs(out, base, now, opts)) != 0)
		return rc;
	if ((rc = yi_filter_new(&flt, opts->focus, opts->ignore)) != 0)
		return rc;
	if ((d = yi_calloc(1, sizeof(*d))) == NULL) {
		yi_filter_free(flt);
		return yi_oom("creating a diff");
	}
	d->p[BASE] = base;
	d->p[NOW] = now;
	d->idx = opts->sample_index;
	d->filtered = flt != NULL;
	d->whole = base->format == YI_FMT_PPROF || now->format == YI_FMT_PPROF;
	yi_idset_init(&d->stack_ids, NULL);
	yi_agg_init(&d->sums, YI_AGG_FUNCS | YI_AGG_LINES);
	if ((rc = check_programs(d)) != 0 ||
	    (rc = yi_strtab_init(&d->strs)) != 0 ||
	    (rc = yi_map64_init(&d->func_by_key, 1024)) != 0 ||
	    (rc = diff_heaps(d)) != 0 ||
	    (rc = ingest(d, NOW, flt)) != 0 ||
	    (rc = ingest(d, BASE, flt)) != 0 ||
	    (rc = pick_lines(d)) != 0 ||
	    (rc = diff_names(d)) != 0) {
		yi_filter_free(flt);
		ying_diff_free(d);
		return rc;
	}
	yi_filter_free(flt);
	*out = d;
	return 0;
}

void
ying_diff_free(ying_diff *d)
{
	if (d == NULL)
		return;
	yi_strtab_release(&d->strs);
	yi_vec_free(&d->funcs);
	yi_map64_release(&d->func_by_key);
	yi_idset_release(&d->stack_ids);
	yi_vec_free(&d->stacks);
	yi_vec_free(&d->heaps);
	yi_agg_release(&d->sums);
	yi_free(d->warning);
	yi_free(d);
}

/* Variances of deltas: the two sides' summed (model_noise.c). */
double
yi_stack_dvar(const dstack *s)
{
	return s->var[BASE] + s->var[NOW];
}

double
yi_row_dvar(const drow *r, bool cum)
{
	return cum ? r->cvar[BASE] + r->cvar[NOW] : r->fvar[BASE] + r->fvar[NOW];
}

const char *
yi_fmt_delta_pm(double delta, double var, ying_sample_index idx, char *buf, size_t n)
{
	char a[40], b[40];

	yi_fmt_signed(delta, idx, a, sizeof(a));
	if (var > 0)
		snprintf(buf, n, "%s \xc2\xb1%s", a, yi_fmt_value(YI_Z95 * sqrt(var), idx, b, sizeof(b)));
	else
		snprintf(buf, n, "%s", a);
	return buf;
}

const char *
ying_diff_warning(const ying_diff *d)
{
	return d ? d->warning : NULL;
}

void
ying_diff_totals(double *base, double *now, double *delta, const ying_diff *d)
{
	double b = d ? d->total[BASE][d->idx] : 0, n = d ? d->total[NOW][d->idx] : 0;

	if (base)
		*base = b;
	if (now)
		*now = n;
	if (delta)
		*delta = n - b;
}

void
ying_diff_stack_counts(size_t *matched, size_t *added, size_t *gone,
    const ying_diff *d)
{
	size_t m = 0, a = 0, g = 0, i;

	for (i = 0; d && i < d->stacks.n; i++) {
		const dstack *ds = &d->stacks.v[i];
		bool inb = ds->val[BASE][d->idx] != 0, inn = ds->val[NOW][d->idx] != 0;
		if (inb && inn)
			m++;
		else if (inn)
			a++;
		else if (inb)
			g++;
	}
	if (matched)
		*matched = m;
	if (added)
		*added = a;
	if (gone)
		*gone = g;
}
