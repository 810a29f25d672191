/*
 * diff.c: what grew between a BASE dump and a later NOW dump (yingdiff).
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
 * Building a diff is one pass over each side (NOW first, so that a matched
 * stack's representative frames and lines come from NOW):
 *   - every kept stack is mapped to a diff stack (hash of the function id
 *     sequence, open addressing, full comparison on hit), adding its four
 *     values to that side;
 *   - per function and per function+line, flat (leaf) and cumulative values
 *     are accumulated for each side, cumulative counted once per stack even
 *     under recursion (jeprof's ReduceProfile), exactly as `ying top` does.
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
 * Every writer reads this structure: the text/JSON report, the two-column
 * folded form, the differential flame graph (yi_flame_* in diff mode) and a
 * pprof profile of NOW minus BASE (a synthetic, already symbolized
 * ying_profile handed to yi_pprof_write).
 */
#include <math.h>
#include <stdlib.h>

#include "internal.h"

enum { BASE = 0, NOW = 1 };

typedef struct dfunc {
	uint32_t name;          /* diff strtab */
	uint32_t file;          /* diff strtab */
} dfunc;

typedef struct dstack {
	uint32_t func_off;      /* first diff function id in d->ids (leaf first) */
	uint32_t nfuncs;
	uint64_t hash;
	double val[2][4];       /* [BASE/NOW][sample index], unsampled, summed */
	int32_t src[2];         /* a representative stack in each profile, -1 */
} dstack;

typedef struct drow {
	uint32_t func;          /* diff function id */
	uint32_t line;          /* BY_LINE: the line; BY_FUNCTION: most changed line */
	double flat[2], cum[2];
	double best;            /* BY_FUNCTION: score of the chosen line */
	uint32_t stamp;         /* last source stack counted in cum */
} drow;

typedef YI_VEC(drow) drowvec;

struct ying_diff {
	ying_profile *p[2];
	ying_sample_index idx;
	bool filtered;
	yi_strtab strs;
	YI_VEC(dfunc) funcs;
	yi_map64 func_by_key;     /* name id << 32 | file id -> diff function id */
	YI_VEC(uint32_t) ids;     /* function id sequences of the diff stacks */
	YI_VEC(dstack) stacks;
	uint32_t *slots;          /* stack index + 1; 0 = empty */
	size_t nslots;
	drowvec frows;            /* by function, indexed by diff function id */
	drowvec lrows;            /* by function and line */
	yi_map64 lrow_key;
	double total[2][4];       /* kept stacks */
	double all[2];            /* every stack, the diff's index (unfiltered) */
	size_t nsrc[2];           /* kept source stacks */
	uint32_t stamp;
	bool whole;               /* a side is pprof: truncate values (see top) */
	char *warning;            /* different programs, or NULL */
};

/* Changes smaller than this (one byte, one object) are no change. */
#define MIN_CHANGE 1.0

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
		if ((rc = yi_vec_grow(&d->funcs, 1)) != 0 ||
		    (rc = yi_vec_grow(&d->frows, 1)) != 0)
			return rc;
		d->funcs.v[d->funcs.n].name = nid;
		d->funcs.v[d->funcs.n].file = fid;
		memset(&d->frows.v[d->frows.n], 0, sizeof(drow));
		d->frows.v[d->frows.n].func = (uint32_t)d->funcs.n;
		d->frows.v[d->frows.n].stamp = UINT32_MAX;
		d->funcs.n++;
		d->frows.n++;
	}
	*out = fmap[func] = *slot;
	return 0;
}

static uint64_t
ids_hash(const uint32_t *ids, size_t n)
{
	uint64_t h = 0x243f6a8885a308d3ULL ^ n;
	size_t i;

	for (i = 0; i < n; i++)
		h = yi_hash64(h ^ ids[i]) + i;
	return h;
}

static int
slots_grow(ying_diff *d)
{
	size_t ncap = d->nslots ? d->nslots * 2 : 4096, i;
	uint32_t *ns = yi_calloc(ncap, sizeof(*ns));

	if (ns == NULL)
		return yi_oom("growing the diff's stack table");
	for (i = 0; i < d->stacks.n; i++) {
		size_t j = d->stacks.v[i].hash & (ncap - 1);
		while (ns[j])
			j = (j + 1) & (ncap - 1);
		ns[j] = (uint32_t)i + 1;
	}
	yi_free(d->slots);
	d->slots = ns;
	d->nslots = ncap;
	return 0;
}

/* Find or add the diff stack with this function id sequence. */
static int
find_stack(ying_diff *d, const uint32_t *ids, size_t n, uint32_t *out)
{
	uint64_t h = ids_hash(ids, n);
	dstack *ds;
	size_t j;
	int rc;

	if ((d->stacks.n + 1) * 2 > d->nslots && (rc = slots_grow(d)) != 0)
		return rc;
	for (j = h & (d->nslots - 1); d->slots[j]; j = (j + 1) & (d->nslots - 1)) {
		ds = &d->stacks.v[d->slots[j] - 1];
		if (ds->hash == h && ds->nfuncs == n &&
		    memcmp(&d->ids.v[ds->func_off], ids, n * sizeof(*ids)) == 0) {
			*out = d->slots[j] - 1;
			return 0;
		}
	}
	if (d->stacks.n >= UINT32_MAX - 1 || d->ids.n + n >= UINT32_MAX)
		return yi_error(YING_ELIMIT, "diff: too many stacks");
	if ((rc = yi_vec_grow(&d->stacks, 1)) != 0 ||
	    (rc = yi_vec_grow(&d->ids, n)) != 0)
		return rc;
	ds = &d->stacks.v[d->stacks.n];
	memset(ds, 0, sizeof(*ds));
	ds->func_off = (uint32_t)d->ids.n;
	ds->nfuncs = (uint32_t)n;
	ds->hash = h;
	ds->src[BASE] = ds->src[NOW] = -1;
	memcpy(&d->ids.v[d->ids.n], ids, n * sizeof(*ids));
	d->ids.n += n;
	d->slots[j] = (uint32_t)d->stacks.n + 1;
	*out = (uint32_t)d->stacks.n++;
	return 0;
}

static int
line_row(ying_diff *d, uint32_t func, uint32_t line, drow **out)
{
	uint32_t *slot;
	bool added;
	int rc;

	if ((rc = yi_map64_put(&d->lrow_key, (uint64_t)func << 32 | line,
	    (uint32_t)d->lrows.n, &slot, &added)) != 0)
		return rc;
	if (added) {
		if ((rc = yi_vec_grow(&d->lrows, 1)) != 0)
			return rc;
		memset(&d->lrows.v[d->lrows.n], 0, sizeof(drow));
		d->lrows.v[d->lrows.n].func = func;
		d->lrows.v[d->lrows.n].line = line;
		d->lrows.v[d->lrows.n].stamp = UINT32_MAX;
		d->lrows.n++;
	}
	*out = &d->lrows.v[*slot];
	return 0;
}

static void
count_row(drow *r, int side, bool leaf, double v, uint32_t stamp)
{
	if (leaf)
		r->flat[side] += v;
	if (r->stamp != stamp) {
		r->stamp = stamp;
		r->cum[side] += v;
	}
}

static int
ingest(ying_diff *d, int side, yi_filter *flt)
{
	ying_profile *p = d->p[side];
	YI_VEC(uint32_t) ids = { 0 };
	yi_framevec fr = { 0 };
	uint32_t *fmap;
	size_t s, i;
	int rc = 0, k;

	if ((fmap = yi_malloc((p->funcs.n ? p->funcs.n : 1) * sizeof(*fmap))) == NULL)
		return yi_oom("diffing profiles");
	memset(fmap, 0xff, (p->funcs.n ? p->funcs.n : 1) * sizeof(*fmap));
	for (s = 0; s < p->stacks.n; s++) {
		const yi_stack *st = &p->stacks.v[s];
		double val[4], v;
		uint32_t di = 0, stamp;
		dstack *ds;
		long n;

		for (k = 0; k < 4; k++)
			val[k] = d->whole ? trunc(st->val[k]) : st->val[k];
		v = val[d->idx];
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
		if ((rc = yi_vec_grow(&ids, fr.n)) != 0)
			break;
		for (i = 0; i < fr.n; i++)
			if ((rc = map_func(d, p, fmap, fr.v[i].func, &ids.v[i])) != 0)
				goto out;
		ids.n = fr.n;
		if ((rc = find_stack(d, ids.v, ids.n, &di)) != 0)
			break;
		ds = &d->stacks.v[di];
		if (ds->src[side] < 0)
			ds->src[side] = (int32_t)s;
		for (k = 0; k < 4; k++) {
			ds->val[side][k] += val[k];
			d->total[side][k] += val[k];
		}
		d->nsrc[side]++;
		if (v == 0)
			continue;
		stamp = d->stamp++;
		for (i = 0; i < fr.n; i++) {
			drow *r;
			count_row(&d->frows.v[ids.v[i]], side, i == 0, v, stamp);
			if ((rc = line_row(d, ids.v[i], fr.v[i].line, &r)) != 0)
				goto out;
			count_row(r, side, i == 0, v, stamp);
		}
	}
out:
	yi_free(fmap);
	yi_vec_free(&ids);
	yi_vec_free(&fr);
	return rc;
}

/* A function row shows the line whose value changed most (flat first). */
static void
pick_lines(ying_diff *d)
{
	size_t i;

	for (i = 0; i < d->lrows.n; i++) {
		const drow *lr = &d->lrows.v[i];
		drow *r = &d->frows.v[lr->func];
		double score = fabs(lr->flat[NOW] - lr->flat[BASE]) * 4.0 +
		    fabs(lr->cum[NOW] - lr->cum[BASE]) + 1e-9 * (lr->cum[NOW] + lr->cum[BASE]);
		if (score > r->best || (score == r->best && lr->line && !r->line)) {
			r->best = score;
			r->line = lr->line;
		}
	}
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
	if ((d->warning = yi_strdup(msg)) == NULL)
		return yi_oom("diffing profiles");
	return 0;
}

int
ying_diff_build(ying_diff **out, ying_profile *base, ying_profile *now,
    const ying_diff_build_opts *opts)
{
	ying_diff_build_opts def = YING_DIFF_BUILD_OPTS_INIT;
	yi_filter *flt = NULL;
	ying_diff *d;
	int rc;

	if (out == NULL)
		return yi_error(YING_EINVAL, "ying_diff_build: no output pointer");
	*out = NULL;
	if (base == NULL || now == NULL)
		return yi_error(YING_EINVAL, "ying_diff_build: need two profiles");
	if (opts == NULL)
		opts = &def;
	if (opts->version != YING_DIFF_BUILD_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_diff_build_opts version %d unsupported",
		    opts->version);
	if ((rc = yi_profile_check_index(base, opts->sample_index)) != 0 ||
	    (rc = yi_profile_check_index(now, opts->sample_index)) != 0 ||
	    (rc = check_maps(base)) != 0 || (rc = check_maps(now)) != 0)
		return rc;
	if ((rc = yi_profile_ensure_symbolized(base)) != 0 ||
	    (rc = yi_profile_ensure_symbolized(now)) != 0)
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
	if ((rc = check_programs(d)) != 0 ||
	    (rc = yi_strtab_init(&d->strs)) != 0 ||
	    (rc = yi_map64_init(&d->func_by_key, 1024)) != 0 ||
	    (rc = yi_map64_init(&d->lrow_key, 1024)) != 0 ||
	    (rc = ingest(d, NOW, flt)) != 0 ||
	    (rc = ingest(d, BASE, flt)) != 0) {
		yi_filter_free(flt);
		ying_diff_free(d);
		return rc;
	}
	yi_filter_free(flt);
	pick_lines(d);
	*out = d;
	return 0;
}

int
ying_diff_new(ying_diff **out, ying_profile *base, ying_profile *now,
    ying_sample_index idx)
{
	ying_diff_build_opts o = YING_DIFF_BUILD_OPTS_INIT;

	o.sample_index = idx;
	return ying_diff_build(out, base, now, &o);
}

void
ying_diff_free(ying_diff *d)
{
	if (d == NULL)
		return;
	yi_strtab_release(&d->strs);
	yi_vec_free(&d->funcs);
	yi_map64_release(&d->func_by_key);
	yi_vec_free(&d->ids);
	yi_vec_free(&d->stacks);
	yi_free(d->slots);
	yi_vec_free(&d->frows);
	yi_vec_free(&d->lrows);
	yi_map64_release(&d->lrow_key);
	yi_free(d->warning);
	yi_free(d);
}

const char *
ying_diff_warning(const ying_diff *d)
{
	return d ? d->warning : NULL;
}

void
ying_diff_totals(const ying_diff *d, double *base, double *now, double *delta)
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
ying_diff_stack_counts(const ying_diff *d, size_t *matched, size_t *added,
    size_t *gone)
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

/* ---- text and JSON report ------------------------------------------------ */

static const char *
dstr(const ying_diff *d, uint32_t id)
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

typedef struct sortctx {
	const ying_diff *d;
	int mode;               /* stacks: 1 by delta desc, 2 by NOW desc,
	                           3 by BASE desc, 5 by names only;
	                           rows: 0 by flat delta, 1 by cum delta */
} sortctx;

static int
cmp_names(const ying_diff *d, uint32_t fa, uint32_t fb)
{
	int c = strcmp(dstr(d, d->funcs.v[fa].name), dstr(d, d->funcs.v[fb].name));

	if (c == 0)
		c = strcmp(dstr(d, d->funcs.v[fa].file), dstr(d, d->funcs.v[fb].file));
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

	if (c->mode == 1 && cx != cy)
		return cx > cy ? -1 : 1;
	if (dx != dy)
		return dx > dy ? -1 : 1;
	if (cx != cy)
		return cx > cy ? -1 : 1;
	if ((r = cmp_names(c->d, x->func, y->func)) != 0)
		return r;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int
cmp_stacks(const void *a, const void *b, void *ctx)
{
	const sortctx *c = ctx;
	const ying_diff *d = c->d;
	const dstack *x = &d->stacks.v[*(const uint32_t *)a];
	const dstack *y = &d->stacks.v[*(const uint32_t *)b];
	double vx, vy;
	uint32_t i;
	int r;

	switch (c->mode) {
	case 2: vx = x->val[NOW][d->idx]; vy = y->val[NOW][d->idx]; break;
	case 3: vx = x->val[BASE][d->idx]; vy = y->val[BASE][d->idx]; break;
	case 5: vx = vy = 0; break;
	default: vx = stack_delta(d, x); vy = stack_delta(d, y); break;
	}
	if (vx != vy)
		return vx > vy ? -1 : 1;
	for (i = 0; i < x->nfuncs && i < y->nfuncs; i++) {
		uint32_t fx = d->ids.v[x->func_off + x->nfuncs - 1 - i];
		uint32_t fy = d->ids.v[y->func_off + y->nfuncs - 1 - i];
		if (fx != fy && (r = cmp_names(d, fx, fy)) != 0)
			return r;
	}
	return x->nfuncs < y->nfuncs ? -1 : x->nfuncs > y->nfuncs;
}

static const char *
unit_name(ying_sample_index idx)
{
	return yi_index_is_bytes(idx) ? "bytes" : "objects";
}

/* "+1.50 MiB", "-3", "0 B" */
static const char *
fmt_signed(double v, ying_sample_index idx, char *buf, size_t n)
{
	char tmp[32];

	yi_fmt_value(v, idx, tmp, sizeof(tmp));
	snprintf(buf, n, "%s%s", v > 0 ? "+" : "", tmp);
	return buf;
}

static const char *
granularity_name(ying_granularity g)
{
	return g == YING_BY_STACK ? "stack" : g == YING_BY_LINE ? "line" : "function";
}

static void
print_dfunc(yi_out *o, const ying_diff *d, uint32_t func, uint32_t line)
{
	yi_out_where(o, dstr(d, d->funcs.v[func].name), dstr(d, d->funcs.v[func].file), line);
}

static void
print_pfunc(yi_out *o, const ying_profile *p, const yi_frame *f)
{
	const yi_func *fn = &p->funcs.v[f->func];

	if (f->inlined)
		yi_out_puts(o, "[inline] ");
	yi_out_where(o, yi_profile_str(p, fn->name), yi_profile_str(p, fn->file), f->line);
}

/* The representative frames of a diff stack (from NOW when it has any). */
static long
stack_frames(const ying_diff *d, const dstack *s, const ying_profile **pp,
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
	bool cum;                /* the lists rank by cumulative change */
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

static int
select_stacks(report *r, int mode, uint32_t **out, size_t *nout, size_t *nall,
    double *sum)
{
	const ying_diff *d = r->d;
	sortctx c = { d, mode };
	size_t i, n = 0, lim = stack_limit_of(r->opts);
	uint32_t *v;

	if ((v = yi_malloc((d->stacks.n ? d->stacks.n : 1) * sizeof(*v))) == NULL)
		return yi_oom("sorting stacks");
	if (sum)
		*sum = 0;
	for (i = 0; i < d->stacks.n; i++) {
		const dstack *s = &d->stacks.v[i];
		double dl = stack_delta(d, s);
		bool keep;
		if (fabs(dl) < fmax(r->opts->min_delta, MIN_CHANGE))
			continue;
		switch (mode) {
		case 1: keep = dl > 0; break;
		case 2: keep = s->val[BASE][d->idx] == 0 && s->val[NOW][d->idx] > 0; break;
		case 3: keep = s->val[NOW][d->idx] == 0 && s->val[BASE][d->idx] > 0; break;
		default: keep = dl < 0; break;   /* 4: shrink, sorted ascending below */
		}
		if (!keep)
			continue;
		v[n++] = (uint32_t)i;
		if (sum)
			*sum += dl;
	}
	c.mode = mode == 4 ? 1 : mode;
	qsort_r(v, n, sizeof(*v), cmp_stacks, &c);
	if (mode == 4) {   /* most negative first */
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
	drowvec *rows = o->granularity == YING_BY_LINE ? &d->lrows : &d->frows;
	sortctx c = { d, r->cum ? 1 : 0 };
	size_t i, lim = limit_of(o), n = 0;
	drow **all;
	int rc;

	if ((rc = select_stacks(r, 2, &r->new_st, &r->nnew, &r->nnew_all, &r->new_sum)) != 0 ||
	    (rc = select_stacks(r, 3, &r->gone_st, &r->ngone, &r->ngone_all, &r->gone_sum)) != 0)
		return rc;
	if (o->granularity == YING_BY_STACK) {
		if ((rc = select_stacks(r, 1, &r->grow_st, &r->ngrow, &r->ngrow_all, NULL)) != 0 ||
		    (rc = select_stacks(r, 4, &r->shrink_st, &r->nshrink, &r->nshrink_all, NULL)) != 0)
			return rc;
		return 0;
	}
	if ((all = yi_malloc((rows->n ? rows->n : 1) * sizeof(*all))) == NULL)
		return yi_oom("sorting rows");
	/* The flat lists: a row is listed when its flat value changed by at
	 * least one byte (object) and by --min-delta; ranked by that change
	 * (cum delta breaks ties).  Callers whose only change is below them
	 * are not listed: their change is their callees' flat change.  The
	 * cumulative lists do the same with the cumulative change. */
	for (i = 0; i < rows->n; i++) {
		double dl = r->cum ? row_cum_delta(&rows->v[i]) : row_delta(&rows->v[i]);
		if (fabs(dl) >= fmax(o->min_delta, MIN_CHANGE))
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

static double
pct(double delta, double base)
{
	return base != 0 ? 100.0 * delta / base : 0;
}

static int
text_stack(yi_out *o, const ying_diff *d, const dstack *s, yi_framevec *fr)
{
	const ying_profile *p;
	char b1[40], b2[40], b3[40];
	long n;
	size_t k;

	if ((n = stack_frames(d, s, &p, fr)) < 0)
		return (int)n;
	yi_out_printf(o, "  %s  (base %s, now %s)\n", fmt_signed(stack_delta(d, s), d->idx, b1, sizeof(b1)),
	    yi_fmt_value(s->val[BASE][d->idx], d->idx, b2, sizeof(b2)),
	    yi_fmt_value(s->val[NOW][d->idx], d->idx, b3, sizeof(b3)));
	for (k = 0; k < fr->n; k++) {
		yi_out_puts(o, "      ");
		print_pfunc(o, p, &fr->v[k]);
		yi_out_putc(o, '\n');
	}
	return 0;
}

static void
text_rows(yi_out *o, const ying_diff *d, drow **rows, size_t n)
{
	char b1[40], b2[40], b3[40], b4[40];
	size_t i;

	for (i = 0; i < n; i++) {
		const drow *r = rows[i];
		yi_out_printf(o, "%13s %12s %12s %13s  ",
		    fmt_signed(row_delta(r), d->idx, b1, sizeof(b1)),
		    yi_fmt_value(r->flat[BASE], d->idx, b2, sizeof(b2)),
		    yi_fmt_value(r->flat[NOW], d->idx, b3, sizeof(b3)),
		    fmt_signed(row_cum_delta(r), d->idx, b4, sizeof(b4)));
		print_dfunc(o, d, r->func, r->line);
		yi_out_putc(o, '\n');
	}
}

static int
write_text(yi_out *o, report *r)
{
	ying_diff *d = r->d;
	const ying_diff_opts *opts = r->opts;
	yi_framevec fr = { 0 };
	double tb = d->total[BASE][d->idx], tn = d->total[NOW][d->idx];
	char b1[40], b2[40], b3[40];
	size_t i, matched, added, gone;
	int side, rc = 0;

	ying_diff_stack_counts(d, &matched, &added, &gone);
	for (side = 0; side < 2; side++) {
		const ying_profile *p = d->p[side];
		yi_out_printf(o, "%-6s %13s  %s in %zu stacks, sample period %s: %s\n",
		    side == BASE ? "Base:" : "Now:", yi_fmt_value(d->total[side][d->idx], d->idx, b1, sizeof(b1)),
		    ying_sample_index_name(d->idx), d->nsrc[side],
		    yi_fmt_bytes((double)p->period, b2, sizeof(b2)), p->source);
	}
	yi_out_printf(o, "%-6s %13s", "Delta:", fmt_signed(tn - tb, d->idx, b1, sizeof(b1)));
	if (tb != 0)
		yi_out_printf(o, "  (%+.1f%%)", pct(tn - tb, tb));
	if (yi_index_is_bytes(d->idx))
		yi_out_printf(o, "  %+.0f bytes", tn - tb);
	yi_out_printf(o, "\nStacks: %zu in both, %zu new in NOW, %zu gone from BASE\n",
	    matched, added, gone);
	if (d->filtered)
		yi_out_printf(o, "(--focus/--ignore: unfiltered base %s, now %s)\n",
		    yi_fmt_value(d->all[BASE], d->idx, b2, sizeof(b2)),
		    yi_fmt_value(d->all[NOW], d->idx, b3, sizeof(b3)));

	if (opts->granularity == YING_BY_STACK) {
		yi_out_printf(o, "\nTop growth by stack (%zu of %zu):\n", r->ngrow, r->ngrow_all);
		for (i = 0; i < r->ngrow && rc == 0; i++)
			rc = text_stack(o, d, &d->stacks.v[r->grow_st[i]], &fr);
		if (r->ngrow_all == 0)
			yi_out_puts(o, "  (none)\n");
		yi_out_printf(o, "\nTop shrink by stack (%zu of %zu):\n", r->nshrink, r->nshrink_all);
		for (i = 0; i < r->nshrink && rc == 0; i++)
			rc = text_stack(o, d, &d->stacks.v[r->shrink_st[i]], &fr);
		if (r->nshrink_all == 0)
			yi_out_puts(o, "  (none)\n");
	} else {
		const char *what = opts->granularity == YING_BY_LINE ?
		    "function (file:line)" : "function (file:line that changed most)";
		const char *list = r->cum ? "cumulative" : "flat";
		yi_out_printf(o, "\nTop growth, %s (%zu of %zu):\n", list, r->ngrow, r->ngrow_all);
		if (r->ngrow_all) {
			yi_out_printf(o, "%13s %12s %12s %13s  %s\n", "delta", "base", "now", "cum delta", what);
			text_rows(o, d, r->grow, r->ngrow);
		} else {
			yi_out_puts(o, "  (none)\n");
		}
		yi_out_printf(o, "\nTop shrink, %s (%zu of %zu):\n", list, r->nshrink, r->nshrink_all);
		if (r->nshrink_all) {
			yi_out_printf(o, "%13s %12s %12s %13s  %s\n", "delta", "base", "now", "cum delta", what);
			text_rows(o, d, r->shrink, r->nshrink);
		} else {
			yi_out_puts(o, "  (none)\n");
		}
	}
	yi_out_printf(o, "\nNew stacks in NOW (%zu of %zu, %s):\n", r->nnew, r->nnew_all,
	    fmt_signed(r->new_sum, d->idx, b1, sizeof(b1)));
	for (i = 0; i < r->nnew && rc == 0; i++)
		rc = text_stack(o, d, &d->stacks.v[r->new_st[i]], &fr);
	if (r->nnew_all == 0)
		yi_out_puts(o, "  (none)\n");
	if (r->ngone_all)
		yi_out_printf(o, "\nGone from BASE: %zu stack%s, %s (listed by --json)\n", r->ngone_all,
		    r->ngone_all == 1 ? "" : "s",
		    fmt_signed(r->gone_sum, d->idx, b1, sizeof(b1)));
	yi_vec_free(&fr);
	return rc;
}

static void
json_dfunc(yi_out *o, const ying_diff *d, uint32_t func, uint32_t line)
{
	yi_out_puts(o, "\"function\":");
	yi_out_json_str(o, dstr(d, d->funcs.v[func].name));
	yi_out_puts(o, ",\"file\":");
	yi_out_json_str(o, dstr(d, d->funcs.v[func].file));
	yi_out_printf(o, ",\"line\":%u", line);
}

static void
json_kv(yi_out *o, const char *key, double v)
{
	yi_out_printf(o, ",\"%s\":", key);
	yi_out_json_num(o, v);
}

static int
json_stack(yi_out *o, const ying_diff *d, const dstack *s, yi_framevec *fr)
{
	const ying_profile *p;
	long n;
	size_t k;

	if ((n = stack_frames(d, s, &p, fr)) < 0)
		return (int)n;
	yi_out_puts(o, "{\"base\":");
	yi_out_json_num(o, s->val[BASE][d->idx]);
	json_kv(o, "now", s->val[NOW][d->idx]);
	json_kv(o, "delta", stack_delta(d, s));
	yi_out_puts(o, ",\"frames\":[");
	for (k = 0; k < fr->n; k++) {
		const yi_func *fn = &p->funcs.v[fr->v[k].func];
		yi_out_puts(o, k ? ",{\"function\":" : "{\"function\":");
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

	ying_diff_stack_counts(d, &matched, &added, &gone);
	yi_out_puts(o, "{\"base_total\":");
	yi_out_json_num(o, tb);
	json_kv(o, "now_total", tn);
	json_kv(o, "delta", tn - tb);
	yi_out_puts(o, ",\"delta_percent\":");
	if (tb != 0)
		yi_out_json_num(o, pct(tn - tb, tb));
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
	json_kv(o, "gone_stacks_delta", r->gone_sum);
	yi_out_puts(o, ",\n\"rows\":[");
	if (opts->granularity == YING_BY_STACK) {
		for (i = 0; i < r->ngrow + r->nshrink && rc == 0; i++) {
			const dstack *s = &d->stacks.v[i < r->ngrow ? r->grow_st[i] :
			    r->shrink_st[r->nshrink - 1 - (i - r->ngrow)]];
			uint32_t leaf = d->ids.v[s->func_off];
			yi_out_puts(o, i ? ",\n{" : "\n{");
			json_dfunc(o, d, leaf, 0);
			json_kv(o, "base", s->val[BASE][d->idx]);
			json_kv(o, "now", s->val[NOW][d->idx]);
			json_kv(o, "delta", stack_delta(d, s));
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
			json_kv(o, "cum_base", w->cum[BASE]);
			json_kv(o, "cum_now", w->cum[NOW]);
			json_kv(o, "cum_delta", row_cum_delta(w));
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

	if (d == NULL || fn == NULL)
		return yi_error(YING_EINVAL, "ying_diff_write_text: no diff or sink");
	if (opts == NULL)
		opts = &def;
	/* version 1 lacks `cum` (added in 2) */
	if (opts->version != YING_DIFF_OPTS_VERSION && opts->version != 1)
		return yi_error(YING_EINVAL, "ying_diff_opts version %d unsupported", opts->version);
	if ((unsigned)opts->granularity > YING_BY_STACK)
		return yi_error(YING_EINVAL, "invalid granularity %d", (int)opts->granularity);
	if (!(opts->min_delta >= 0))
		return yi_error(YING_EINVAL, "min_delta must be >= 0");
	memset(&r, 0, sizeof(r));
	r.d = d;
	r.opts = opts;
	r.cum = opts->version >= 2 && opts->cum;
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

/* ---- two-column folded --------------------------------------------------- */

/* Folded frame names may not hold ';' (the separator) or a newline. */
static void
folded_name(yi_out *o, const char *s)
{
	size_t n;

	while (*s) {
		n = strcspn(s, ";\n\r");
		yi_out_write(o, s, n);
		s += n;
		if (*s) {
			yi_out_putc(o, *s == ';' ? ':' : ' ');
			s++;
		}
	}
}

int
ying_diff_write_folded(ying_diff *d, ying_write_fn fn, void *opaque)
{
	sortctx c;
	uint32_t *v;
	yi_out *o;
	size_t i, n = 0;
	int rc;

	if (d == NULL || fn == NULL)
		return yi_error(YING_EINVAL, "ying_diff_write_folded: no diff or sink");
	if ((v = yi_malloc((d->stacks.n ? d->stacks.n : 1) * sizeof(*v))) == NULL)
		return yi_oom("writing folded stacks");
	for (i = 0; i < d->stacks.n; i++) {
		const dstack *s = &d->stacks.v[i];
		if (llround(s->val[BASE][d->idx]) != 0 || llround(s->val[NOW][d->idx]) != 0)
			v[n++] = (uint32_t)i;
	}
	/* by name, root first: deterministic and what flamegraph.pl expects */
	c.d = d;
	c.mode = 5;
	qsort_r(v, n, sizeof(*v), cmp_stacks, &c);
	if ((o = yi_malloc(sizeof(*o))) == NULL) {
		yi_free(v);
		return yi_oom("writing folded stacks");
	}
	yi_out_init(o, fn, opaque);
	for (i = 0; i < n; i++) {
		const dstack *s = &d->stacks.v[v[i]];
		uint32_t k;
		for (k = s->nfuncs; k-- > 0;) {
			folded_name(o, dstr(d, d->funcs.v[d->ids.v[s->func_off + k]].name));
			if (k)
				yi_out_putc(o, ';');
		}
		yi_out_printf(o, " %lld %lld\n", llround(s->val[BASE][d->idx]),
		    llround(s->val[NOW][d->idx]));
	}
	rc = yi_out_finish(o);
	yi_free(o);
	yi_free(v);
	return rc;
}

/* ---- differential flame graph -------------------------------------------- */

int
ying_diff_write_svg(ying_diff *d, const ying_svg_opts *opts, ying_write_fn fn,
    void *opaque)
{
	ying_svg_opts def = YING_SVG_OPTS_INIT;
	yi_flame_meta meta;
	yi_framevec fr = { 0 };
	yi_flame *f = NULL;
	yi_out *o = NULL;
	char title[256], sub[1024], pc[40], b1[40], b2[40], b3[40];
	double tb, tn;
	size_t i;
	int rc;

	if (d == NULL || fn == NULL)
		return yi_error(YING_EINVAL, "ying_diff_write_svg: no diff or sink");
	if (opts == NULL)
		opts = &def;
	if (opts->version != YING_SVG_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_svg_opts version %d unsupported", opts->version);
	if ((rc = yi_flame_new(&f)) != 0)
		return rc;
	/* each diff stack once, drawn with its representative frames (NOW's
	 * when it has any): width NOW, colour NOW - BASE */
	for (i = 0; i < d->stacks.n; i++) {
		const dstack *s = &d->stacks.v[i];
		const ying_profile *p;
		long n;
		if (s->val[BASE][d->idx] == 0 && s->val[NOW][d->idx] == 0)
			continue;
		if ((n = stack_frames(d, s, &p, &fr)) < 0) {
			rc = (int)n;
			goto done;
		}
		if ((rc = yi_flame_add(f, p, fr.v, fr.n, s->val[NOW][d->idx],
		    s->val[BASE][d->idx])) != 0)
			goto done;
	}
	ying_diff_totals(d, &tb, &tn, NULL);
	snprintf(title, sizeof(title), "Heap growth: %s, NOW minus BASE",
	    ying_sample_index_name(d->idx));
	if (tb != 0)
		snprintf(pc, sizeof(pc), " (%+.1f%%)", pct(tn - tb, tb));
	else
		pc[0] = '\0';
	snprintf(sub, sizeof(sub), "base %s (%s), now %s (%s): %s%s; widths are NOW, "
	    "red grew, blue shrank",
	    yi_fmt_value(tb, d->idx, b1, sizeof(b1)), d->p[BASE]->source,
	    yi_fmt_value(tn, d->idx, b2, sizeof(b2)), d->p[NOW]->source,
	    fmt_signed(tn - tb, d->idx, b3, sizeof(b3)), pc);
	meta.title = opts->title ? opts->title : title;
	meta.subtitle = opts->subtitle ? opts->subtitle : sub;
	meta.idx = d->idx;
	meta.diff = true;
	if ((o = yi_malloc(sizeof(*o))) == NULL) {
		rc = yi_oom("writing a flame graph");
		goto done;
	}
	yi_out_init(o, fn, opaque);
	if ((rc = yi_flame_write_svg(f, opts, &meta, o)) == 0)
		rc = yi_out_finish(o);
done:
	yi_free(o);
	yi_vec_free(&fr);
	yi_flame_free(f);
	return rc;
}

/* ---- NOW minus BASE as pprof --------------------------------------------- */

/*
 * The pprof writer takes any symbolized ying_profile, so the diff is turned
 * into one: a profile of format YI_FMT_PPROF (never re-symbolized), with
 * NOW's mappings, one stack per diff stack whose val[] are the four deltas,
 * and the representative stack's locations, lines and functions copied.
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
	ying_profile *q = sy->q, *now = sy->d->p[NOW], *base = sy->d->p[BASE];
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
		ying_profile *p = sy->d->p[side];
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
	yi_loc nl;
	size_t k;
	int rc = 0;

	if (sy->locmap[side][loc] != UINT32_MAX) {
		*out = sy->locmap[side][loc];
		return 0;
	}
	memset(&nl, 0, sizeof(nl));
	nl.addr = l->addr;
	nl.mapping = -1;
	nl.allocator = l->allocator;
	if (l->mapping >= 0 && (size_t)l->mapping < p->maps.n) {
		nl.mapping = sy->mapmap[side][l->mapping];
		if (nl.mapping >= 0)
			nl.addr = l->addr + (uint64_t)sy->mapshift[side][l->mapping];
	}
	if (nl.mapping < 0 && side == BASE)
		nl.addr = 0;   /* a BASE address means nothing in NOW's space */
	if (q->locs.n >= UINT32_MAX - 1)
		return yi_error(YING_ELIMIT, "diff profile: too many locations");
	if (l->nlines > 64 && (lv = yi_malloc(l->nlines * sizeof(*lv))) == NULL)
		return yi_oom("writing a diff profile");
	for (k = 0; k < l->nlines; k++) {
		const yi_line *src = &p->lines.v[l->line_off + k];
		lv[k].line = src->line;
		if ((rc = synth_func(sy, side, src->func, &lv[k].func)) != 0)
			goto out;
	}
	if ((rc = yi_vec_grow(&q->locs, 1)) != 0)
		goto out;
	q->locs.v[q->locs.n] = nl;
	*out = sy->locmap[side][loc] = (uint32_t)q->locs.n++;
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
		const yi_stack *src;
		const ying_profile *p;
		yi_stack ns;
		uint32_t f;
		bool any = false;

		memset(&ns, 0, sizeof(ns));
		for (k = 0; k < 4; k++) {
			ns.val[k] = s->val[NOW][k] - s->val[BASE][k];
			any |= ns.val[k] != 0;
		}
		if (!any)
			continue;
		side = s->src[NOW] >= 0 ? NOW : BASE;
		p = d->p[side];
		src = &p->stacks.v[s->src[side]];
		if (q->frames.n + src->nframes >= UINT32_MAX || q->stacks.n >= UINT32_MAX - 1)
			return yi_error(YING_ELIMIT, "diff profile: too many frames");
		if ((rc = yi_vec_grow(&q->frames, src->nframes)) != 0)
			return rc;
		ns.frame_off = (uint32_t)q->frames.n;
		ns.nframes = src->nframes;
		ns.skip = src->skip;
		for (f = 0; f < src->nframes; f++) {
			uint32_t ql = 0;
			if ((rc = synth_loc(sy, side, p->frames.v[src->frame_off + f], &ql)) != 0)
				return rc;
			q->frames.v[q->frames.n++] = ql;
		}
		if ((rc = yi_vec_grow(&q->stacks, 1)) != 0)
			return rc;
		q->stacks.v[q->stacks.n++] = ns;
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
	ying_profile_free(sy->q);
}

int
ying_diff_write_pprof(ying_diff *d, const ying_pprof_opts *opts,
    ying_write_fn fn, void *opaque)
{
	ying_pprof_opts def = YING_PPROF_OPTS_INIT;
	synth sy;
	int rc;

	if (d == NULL || fn == NULL)
		return yi_error(YING_EINVAL, "ying_diff_write_pprof: no diff or sink");
	if (opts == NULL)
		opts = &def;
	if (opts->version != YING_PPROF_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_pprof_opts version %d unsupported", opts->version);
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
