/*
 * write_fold.c: ying_profile_fold, a profile folded until its pprof fits a
 * receiver's limits (Grafana Pyroscope refuses more than 16,000 samples,
 * and a profile over its 2 MiB per-profile burst for ever), its totals
 * exactly those of the input.
 *
 * The rule.  Stacks are ranked by significance, |val[sample_index]| (ties:
 * the other three values in index order, then the stack's order).  The K
 * most significant stay as they are.  Every other stack is cut to its D
 * root-side locations (of those the pprof writer writes, from `skip` on;
 * an inline chain stays whole) under one synthetic leaf frame,
 * `[ying: folded]` (a function of that name, no file, at no address); a
 * stack of D locations or fewer loses its leaf all the same (it keeps
 * all but one).  That last point refines the plain "cut to D": a short
 * stack kept whole under the marker would merge with nothing and cost a
 * sample, where cut by one it joins its siblings, and the marker always
 * means that frames were dropped below it.  (It also means the location
 * that led a stack, whose allocator lines the writer trims, never leads
 * a folded one.)  Folded stacks that became equal (the same locations,
 * heap and numeric label: the writer puts both on the sample) are one
 * stack, their raw counts and all four values summed, so every total of
 * the profile is what it was (a sum of the same numbers).  D = 0 leaves
 * the one stack `[ying: folded]` per heap and label.
 *
 * The search.  The pprof has one sample per stack; its size is measured
 * by writing it into a counting sink (the writer itself, gzip off), never
 * estimated.  K comes first: the largest K of at most 7/8 of max_samples
 * whose most folded profile (D = 0) fits the sample limit and 7/8 of the
 * bytes, leaving 1/8 of each limit to the folded stacks' detail
 * (a larger K with D = 0 would keep a few more small stacks whole and
 * leave the rest as one undifferentiated frame; the share buys every
 * folded stack its callers).  K is found by interpolating on the measured
 * sizes between a fitting and a failing K, to within 1% (at most 16
 * writes).  Then D, the largest in 0..64 that fits the whole limits, by
 * bisection (at most 7 writes); last, the samples the folded stacks left
 * unused go to more whole stacks when the bytes allow (2 writes).  A
 * trial rebuilds only the stacks: the copy of everything else (strings,
 * functions, locations, mappings) is made once, and the writer writes only
 * what the stacks use; the root-side paths are a trie built once, so a
 * folded stack finds its stack at any depth by an array look-up, and a
 * trial costs one pass over the stacks plus the write of at most
 * max_samples samples.  p itself is written only when its sample count
 * fits (its size then decides whether there is anything to do).  If 7/8 of
 * the limits cannot be met even at K = 0, the whole limits are tried
 * before the profile is declared too big (YING_ELIMIT).
 */
#include <math.h>
#include <stdlib.h>

#include "write.h"

#define FOLD_NAME "[ying: folded]"
#define FOLD_DEPTH_CAP 64u
#define FOLD_MAX_K_TRIALS 16

typedef struct folder {
	const ying_profile *p;
	ying_profile *q;          /* p without stacks, then the trial's stacks */
	ying_pprof_opts po;       /* the writer's options, gzip off */
	ying_sample_index idx;
	size_t max_samples, budget; /* budget: max_bytes - extra_bytes, 0 = none */
	uint32_t *order;          /* p's stacks, most significant first */
	uint32_t *kept;           /* per p stack: its rank (kept when < K) */
	uint32_t *newidx;         /* per p stack: its q stack (the last build) */
	uint32_t fold_loc;        /* the [ying: folded] location in q */
	unsigned maxdepth;        /* most locations a folded stack can keep */
	/* The root-side paths as a trie, built once: node = (heap, label)
	 * for depth 0, then one node per distinct (parent, location).  A
	 * folded stack at depth d is the node on its path at min(d, plen). */
	uint32_t *groot;          /* per p stack: its depth-0 node */
	uint32_t *poff;           /* per p stack: its path in `path` */
	uint8_t *plen;            /* per p stack: locations it can keep (<= 64) */
	uint32_t *path;           /* nodes at depths 1..plen, per stack */
	size_t nnodes;
	uint32_t *node_stamp;     /* per node: the trial that made its q stack */
	uint32_t *node_q;         /* per node: that q stack */
	uint32_t stamp;           /* the current trial */
	struct {                  /* what q's stacks are now (the last build) */
		bool valid, measured;
		size_t k, size;
		unsigned d;
	} last;
	YI_VEC(uint32_t) locs;
} folder;

/* ---- ranking ------------------------------------------------------------- */

static int
cmp_sig(const void *a, const void *b, void *arg)
{
	const folder *f = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const yi_stack *x = &f->p->stacks.v[i], *y = &f->p->stacks.v[j];
	double u = fabs(x->val[f->idx]), v = fabs(y->val[f->idx]);
	int k;

	if (u != v)
		return u > v ? -1 : 1;
	for (k = 0; k < 4; k++) {
		if (k == (int)f->idx)
			continue;
		u = fabs(x->val[k]);
		v = fabs(y->val[k]);
		if (u != v)
			return u > v ? -1 : 1;
	}
	return i < j ? -1 : i > j;
}

/* The first frame the pprof writer writes (write_pprof.c's
 * yi_pw_first_frame: a skip past the end writes every frame). */
static uint32_t
first_written(const yi_stack *s)
{
	return s->skip > s->nframes ? 0 : s->skip;
}

/* ---- one trial: q's stacks for (K, D) ------------------------------------ */

/* Add p's stack s (index si) to q folded at depth d. */
static int
add_folded(folder *f, size_t si, unsigned d, uint32_t *qs)
{
	const yi_stack *s = &f->p->stacks.v[si];
	unsigned r = d < f->plen[si] ? d : f->plen[si];
	uint32_t node = r ? f->path[f->poff[si] + r - 1] : f->groot[si], i;
	ying_profile *q = f->q;
	yi_stack *t;
	int rc;

	if (f->node_stamp[node] != f->stamp) {
		/* the first stack of this node: its root-side r locations under
		 * the marker (leaf first) */
		const yi_counts zero = { 0, 0, 0, 0 };
		const double val[4] = { 0, 0, 0, 0 };
		f->locs.n = 0;
		if ((rc = yi_vec_grow(&f->locs, 1 + r)) != 0)
			return rc;
		f->locs.v[f->locs.n++] = f->fold_loc;
		for (i = s->nframes - r; i < s->nframes; i++)
			f->locs.v[f->locs.n++] = f->p->frames.v[s->frame_off + i];
		if ((rc = yi_profile_add_stack(q, f->locs.v, f->locs.n, &zero, val)) != 0)
			return rc;
		f->node_stamp[node] = f->stamp;
		f->node_q[node] = (uint32_t)(q->stacks.n - 1);
		q->stacks.v[q->stacks.n - 1].heap = s->heap;
		q->stacks.v[q->stacks.n - 1].label = s->label;
	}
	*qs = f->node_q[node];
	t = &q->stacks.v[*qs];
	t->raw.objs += s->raw.objs;
	t->raw.bytes += s->raw.bytes;
	t->raw.acc_objs += s->raw.acc_objs;
	t->raw.acc_bytes += s->raw.acc_bytes;
	for (i = 0; i < 4; i++)
		t->val[i] += s->val[i];
	return 0;
}

static int
cmp_tcount(const void *a, const void *b)
{
	const yi_thread_count *x = a, *y = b;

	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

/* Per-thread splits follow their stacks; a folded stack's are summed per
 * thread. */
static int
fold_tcounts(folder *f)
{
	ying_profile *q = f->q;
	const ying_profile *p = f->p;
	size_t t, out = 0;
	int rc;

	q->tcounts.n = 0;
	if (p->tcounts.n == 0)
		return 0;
	if ((rc = yi_vec_grow(&q->tcounts, p->tcounts.n)) != 0)
		return rc;
	for (t = 0; t < p->tcounts.n; t++) {
		yi_thread_count c = p->tcounts.v[t];
		if (c.stack >= p->stacks.n)
			continue;
		c.stack = f->newidx[c.stack];
		q->tcounts.v[out++] = c;
	}
	q->tcounts.n = out;
	qsort(q->tcounts.v, q->tcounts.n, sizeof(*q->tcounts.v), cmp_tcount);
	for (t = out = 0; t < q->tcounts.n; t++) {
		yi_thread_count *c = &q->tcounts.v[t];
		if (out && q->tcounts.v[out - 1].stack == c->stack &&
		    q->tcounts.v[out - 1].uid == c->uid) {
			yi_counts *r = &q->tcounts.v[out - 1].raw;
			r->objs += c->raw.objs;
			r->bytes += c->raw.bytes;
			r->acc_objs += c->raw.acc_objs;
			r->acc_bytes += c->raw.acc_bytes;
		} else {
			q->tcounts.v[out++] = *c;
		}
	}
	q->tcounts.n = out;
	return 0;
}

/* q's stacks: p's K most significant as they are, the others folded at
 * depth d.  final: the per-thread splits too. */
static int
build(folder *f, size_t k, unsigned d, bool final)
{
	const ying_profile *p = f->p;
	ying_profile *q = f->q;
	size_t s;
	int rc;

	q->stacks.n = q->frames.n = q->tcounts.n = 0;
	f->stamp++;
	for (s = 0; s < p->stacks.n; s++) {
		const yi_stack *st = &p->stacks.v[s];
		uint32_t qs;
		if (f->kept[s] < k) {
			yi_stack *t;
			if ((rc = yi_profile_add_stack(q, st->nframes ? &p->frames.v[st->frame_off] :
			    NULL, st->nframes, &st->raw, st->val)) != 0)
				return rc;
			qs = (uint32_t)(q->stacks.n - 1);
			t = &q->stacks.v[qs];
			t->skip = st->skip;
			t->layer = st->layer;
			t->label = st->label;
			t->heap = st->heap;
		} else if ((rc = add_folded(f, s, d, &qs)) != 0) {
			return rc;
		}
		f->newidx[s] = qs;
	}
	/* add_stack sets has_accum from the counts; p's word is the rule */
	q->has_accum = p->has_accum;
	return final ? fold_tcounts(f) : 0;
}

static int
count_sink(void *opaque, const void *data, size_t len)
{
	YI_UNUSED(data);
	*(size_t *)opaque += len;
	return 0;
}

/* The uncompressed pprof size of x. */
static int
measure(folder *f, const ying_profile *x, size_t *size)
{
	*size = 0;
	return yi_pprof_write(x, &f->po, count_sink, size);
}

/* Trial (k, d): its size, and whether it fits: the whole sample limit,
 * num/8 of the byte budget.  Too many samples fail it without a write
 * (*size 0: not measured); the trial q holds already is not built again. */
static int
trial(folder *f, size_t k, unsigned d, unsigned num, size_t *size, bool *fits)
{
	int rc;

	if (!(f->last.valid && f->last.k == k && f->last.d == d)) {
		f->last.valid = false;
		if ((rc = build(f, k, d, false)) != 0)
			return rc;
		f->last.valid = true;
		f->last.measured = false;
		f->last.k = k;
		f->last.d = d;
	}
	*size = 0;
	*fits = f->max_samples == 0 || f->q->stacks.n <= f->max_samples;
	if (!*fits)
		return 0;
	if (!f->last.measured) {
		if ((rc = measure(f, f->q, &f->last.size)) != 0)
			return rc;
		f->last.measured = true;
	}
	*size = f->last.size;
	*fits = f->budget == 0 || *size <= f->budget / 8 * num + f->budget % 8 * num / 8;
	return 0;
}

/* ---- the search ------------------------------------------------------------ */

/* The largest K (within 1%) whose D = 0 profile fits (7/8 of the bytes);
 * kfail: a K known not to fit there (sfail its size, 0: not measured). */
static int
search_k(folder *f, size_t kfail, size_t sfail, size_t *kout, bool *found)
{
	size_t lo = 0, hi = kfail, slo, shi = sfail, size, k;
	unsigned n;
	bool fits;
	int rc;

	*found = false;
	if ((rc = trial(f, 0, 0, 7, &slo, &fits)) != 0)
		return rc;
	if (!fits)
		return 0;
	*found = true;
	for (n = 0; n < FOLD_MAX_K_TRIALS && hi - lo > 1 && hi - lo > hi / 100; n++) {
		/* interpolate on the size (when bytes bind and both ends are
		 * measured), else and every third step bisect */
		k = lo + (hi - lo) / 2;
		if (f->budget && shi > slo && n % 3 != 2) {
			double t = (double)(f->budget / 8 * 7) - (double)slo;
			double g = (double)lo + t * (double)(hi - lo) / (double)(shi - slo);
			k = g <= (double)lo + 1 ? lo + 1 : g >= (double)hi - 1 ? hi - 1 : (size_t)g;
		}
		if ((rc = trial(f, k, 0, 7, &size, &fits)) != 0)
			return rc;
		if (fits) {
			lo = k;
			slo = size;
		} else {
			hi = k;
			shi = size;
		}
	}
	*kout = lo;
	return 0;
}

/* The largest D in 0..maxd that fits the whole limits at K = k (D = 0 is
 * known to). */
static int
search_d(folder *f, size_t k, unsigned *dout)
{
	unsigned lo = 0, hi, d, maxd = f->maxdepth < FOLD_DEPTH_CAP ? f->maxdepth : FOLD_DEPTH_CAP;
	size_t size;
	bool fits;
	int rc;

	if (maxd == 0) {
		*dout = 0;
		return 0;
	}
	if ((rc = trial(f, k, maxd, 8, &size, &fits)) != 0)
		return rc;
	if (fits) {
		*dout = maxd;
		return 0;
	}
	hi = maxd;      /* lo fits, hi does not */
	while (hi - lo > 1) {
		d = lo + (hi - lo) / 2;
		if ((rc = trial(f, k, d, 8, &size, &fits)) != 0)
			return rc;
		if (fits)
			lo = d;
		else
			hi = d;
	}
	*dout = lo;
	return 0;
}

/* Samples the folded stacks left unused at (k, d) go to more whole stacks:
 * keeping s more can fold no more than s fewer, so the sample limit still
 * holds; the bytes are measured (one write). */
static int
fill_slack(folder *f, size_t *k, unsigned d)
{
	size_t k2, size;
	bool fits;
	int rc;

	if (f->max_samples == 0)
		return 0;
	if ((rc = trial(f, *k, d, 8, &size, &fits)) != 0)
		return rc;
	if (!fits || f->q->stacks.n >= f->max_samples)
		return 0;
	k2 = f->max_samples - f->q->stacks.n;   /* the slack, then the new K */
	k2 = k2 >= f->p->stacks.n - *k ? f->p->stacks.n : *k + k2;
	if ((rc = trial(f, k2, d, 8, &size, &fits)) != 0)
		return rc;
	if (fits)
		*k = k2;
	return 0;
}

static void
release(folder *f)
{
	ying_profile_free(f->q);
	yi_free(f->order);
	yi_free(f->kept);
	yi_free(f->newidx);
	yi_free(f->groot);
	yi_free(f->poff);
	yi_free(f->plen);
	yi_free(f->path);
	yi_free(f->node_stamp);
	yi_free(f->node_q);
	yi_vec_free(&f->locs);
}

/* Stacks a[0..n) (those with a path deeper than level - 1) into b, those
 * deeper than `level` only, grouped by their node at `level` (nodes
 * [lo, hi) of that level), stably: a counting sort.  Returns how many. */
static size_t
group_by_node(const folder *f, const uint32_t *a, size_t n, unsigned level,
    uint32_t lo, uint32_t hi, uint32_t *count, uint32_t *b)
{
	size_t i, m = 0, sum = 0;

	memset(count, 0, (size_t)(hi - lo) * sizeof(*count));
	for (i = 0; i < n; i++)
		if (f->plen[a[i]] > level)
			count[(level ? f->path[f->poff[a[i]] + level - 1] : f->groot[a[i]]) - lo]++;
	for (i = 0; i < (size_t)(hi - lo); i++) {
		size_t c = count[i];
		count[i] = (uint32_t)sum;
		sum += c;
	}
	for (i = 0; i < n; i++)
		if (f->plen[a[i]] > level) {
			uint32_t node = level ? f->path[f->poff[a[i]] + level - 1] : f->groot[a[i]];
			b[count[node - lo]++] = a[i];
			m++;
		}
	return m;
}

/* The trie of root-side paths (see folder): one node per (heap, label),
 * one per distinct (parent, location) below, each stack's path to its
 * depth min(written - 1, 64).  Built level by level without hashing: the
 * stacks deeper than the level, grouped by their parent node (a counting
 * sort), meet each location of a group once; an array over the locations,
 * stamped per group, gives the child it made. */
static int
build_trie(folder *f)
{
	const ying_profile *p = f->p;
	size_t n = p->stacks.n ? p->stacks.n : 1, nl = p->locs.n ? p->locs.n : 1, i, total = 0, m;
	uint32_t *a = NULL, *b = NULL, *count = NULL, *seen_stamp = NULL, *seen_node = NULL;
	uint32_t id, stamp = 0, lo, hi;
	yi_idset groups;
	bool added;
	unsigned j;
	int rc = 0;

	f->groot = yi_malloc(n * sizeof(*f->groot));
	f->poff = yi_malloc(n * sizeof(*f->poff));
	f->plen = yi_malloc(n);
	if (!f->groot || !f->poff || !f->plen)
		return yi_oom("folding a profile");
	yi_idset_init(&groups, NULL);
	for (i = 0; i < p->stacks.n; i++) {
		const yi_stack *s = &p->stacks.v[i];
		const uint32_t key[3] = { s->heap, (uint32_t)((uint64_t)s->label & 0xffffffffu),
			(uint32_t)((uint64_t)s->label >> 32) };
		/* what a folded stack can keep: all but the leaf */
		uint32_t w = s->nframes > first_written(s) ? s->nframes - first_written(s) - 1 : 0;
		f->plen[i] = (uint8_t)(w < FOLD_DEPTH_CAP ? w : FOLD_DEPTH_CAP);
		f->poff[i] = (uint32_t)total;   /* total <= p->frames.n < 2^32 */
		total += f->plen[i];
		if (f->plen[i] > f->maxdepth)
			f->maxdepth = f->plen[i];
		if ((rc = yi_idset_add(&groups, key, sizeof(key), &id, &added)) != 0)
			break;
		f->groot[i] = id;       /* the groups' nodes come first */
	}
	f->nnodes = yi_idset_count(&groups);
	yi_idset_release(&groups);
	if (rc != 0)
		return rc;
	f->path = yi_malloc((total ? total : 1) * sizeof(*f->path));
	a = yi_malloc(n * sizeof(*a));
	b = yi_malloc(n * sizeof(*b));
	count = yi_malloc((n + f->nnodes) * sizeof(*count));
	seen_stamp = yi_calloc(nl, sizeof(*seen_stamp));
	seen_node = yi_malloc(nl * sizeof(*seen_node));
	if (!f->path || !a || !b || !count || !seen_stamp || !seen_node) {
		rc = yi_oom("folding a profile");
		goto out;
	}
	for (i = 0; i < p->stacks.n; i++)
		a[i] = (uint32_t)i;
	m = p->stacks.n;
	lo = 0;
	hi = (uint32_t)f->nnodes;
	for (j = 1; j <= f->maxdepth; j++) {
		uint32_t *t, prev = UINT32_MAX;
		/* the stacks that reach level j, grouped by their parent */
		m = group_by_node(f, a, m, j - 1, lo, hi, count, b);
		t = a;
		a = b;
		b = t;
		lo = hi;
		for (i = 0; i < m; i++) {
			const yi_stack *s = &p->stacks.v[a[i]];
			uint32_t parent = j > 1 ? f->path[f->poff[a[i]] + j - 2] : f->groot[a[i]];
			uint32_t l = p->frames.v[s->frame_off + s->nframes - j];
			if (parent != prev) {
				prev = parent;
				stamp++;
			}
			if (seen_stamp[l] != stamp) {
				if (f->nnodes >= UINT32_MAX - 1) {
					rc = yi_error(YING_ELIMIT, "%s: too many stack prefixes to fold",
					    p->source);
					goto out;
				}
				seen_stamp[l] = stamp;
				seen_node[l] = (uint32_t)f->nnodes++;
			}
			f->path[f->poff[a[i]] + j - 1] = seen_node[l];
		}
		hi = (uint32_t)f->nnodes;
	}
	f->node_stamp = yi_calloc(f->nnodes ? f->nnodes : 1, sizeof(*f->node_stamp));
	f->node_q = yi_malloc((f->nnodes ? f->nnodes : 1) * sizeof(*f->node_q));
	if (!f->node_stamp || !f->node_q)
		rc = yi_oom("folding a profile");
out:
	yi_free(a);
	yi_free(b);
	yi_free(count);
	yi_free(seen_stamp);
	yi_free(seen_node);
	return rc;
}

static int
setup(folder *f)
{
	const ying_profile *p = f->p;
	size_t n = p->stacks.n ? p->stacks.n : 1, i;
	uint32_t func;
	yi_line ln;
	int rc;

	f->order = yi_malloc(n * sizeof(*f->order));
	f->kept = yi_malloc(n * sizeof(*f->kept));
	f->newidx = yi_malloc(n * sizeof(*f->newidx));
	if (!f->order || !f->kept || !f->newidx)
		return yi_oom("folding a profile");
	for (i = 0; i < p->stacks.n; i++)
		f->order[i] = (uint32_t)i;
	if (p->stacks.n > 1)
		qsort_r(f->order, p->stacks.n, sizeof(*f->order), cmp_sig, f);
	for (i = 0; i < p->stacks.n; i++)
		f->kept[f->order[i]] = (uint32_t)i;
	if ((rc = build_trie(f)) != 0 || (rc = yi_profile_copy_base(&f->q, p)) != 0 ||
	    (rc = yi_profile_func(f->q, FOLD_NAME, FOLD_NAME, "", &func)) != 0 ||
	    (rc = yi_profile_loc_distinct(f->q, 0, -1, &f->fold_loc)) != 0)
		return rc;
	ln.func = func;
	ln.line = 0;
	return yi_profile_set_lines(f->q, f->fold_loc, &ln, 1);
}

/* Sum of |val[idx]| of p's stacks ranked at or past k. */
static double
share(const folder *f, size_t k)
{
	double all = 0, folded = 0;
	size_t i;

	for (i = 0; i < f->p->stacks.n; i++) {
		double v = fabs(f->p->stacks.v[i].val[f->idx]);
		all += v;
		if (f->kept[i] >= k)
			folded += v;
	}
	return all > 0 ? folded / all : 0;
}

int
ying_profile_fold(ying_profile **out, const ying_profile *p,
    const ying_fold_opts *opts, ying_fold_stats *stats)
{
	ying_fold_opts def = YING_FOLD_OPTS_INIT;
	ying_fold_stats st;
	folder f;
	size_t size0, kmax, k = 0, size;
	unsigned d = 0;
	bool fits, found;
	int rc;

	yi_error_clear();
	memset(&st, 0, sizeof(st));
	if (stats)
		*stats = st;
	if (out == NULL)
		return yi_error(YING_EINVAL, "ying_profile_fold: no output");
	*out = NULL;
	if (p == NULL)
		return yi_error(YING_EINVAL, "ying_profile_fold: no profile");
	if (opts == NULL)
		opts = &def;
	if (opts->version != YING_FOLD_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_fold_opts version %d unsupported", opts->version);
	if ((rc = yi_profile_check_index(p, opts->sample_index)) != 0)
		return rc;
	memset(&f, 0, sizeof(f));
	f.p = p;
	f.idx = opts->sample_index;
	f.max_samples = opts->max_samples;
	if ((rc = yi_pprof_opts_get(&f.po, opts->pprof, "ying_profile_fold")) != 0)
		return rc;
	f.po.gzip = 0;
	if (opts->max_bytes && opts->extra_bytes >= opts->max_bytes)
		return yi_error(YING_ELIMIT, "%s: extra_bytes %zu leave nothing of max_bytes %zu",
		    p->source, opts->extra_bytes, opts->max_bytes);
	f.budget = opts->max_bytes ? opts->max_bytes - opts->extra_bytes : 0;

	st.samples_in = st.samples_out = p->stacks.n;
	size0 = 0;
	if (f.max_samples == 0 || p->stacks.n <= f.max_samples) {
		/* the samples fit: the size decides (else p is never written) */
		if ((rc = measure(&f, p, &size0)) != 0)
			goto done;
		st.bytes_out = size0;
		if (f.budget == 0 || size0 <= f.budget)
			goto done;      /* fits as it is */
	}

	if ((rc = setup(&f)) != 0)
		goto done;
	/* the largest K the samples allow with 1/8 left to folded stacks */
	kmax = p->stacks.n;
	if (f.max_samples &&
	    kmax > f.max_samples - f.max_samples / 8 - (f.max_samples % 8 != 0))
		kmax = f.max_samples - f.max_samples / 8 - (f.max_samples % 8 != 0);
	if (kmax < p->stacks.n) {
		if ((rc = trial(&f, kmax, 0, 7, &size, &fits)) != 0)
			goto done;
		found = fits;
		if (fits)
			k = kmax;
		else if ((rc = search_k(&f, kmax, size, &k, &found)) != 0)
			goto done;
	} else if ((rc = search_k(&f, kmax, size0, &k, &found)) != 0) {
		goto done;
	}
	if (!found) {
		/* not even 7/8 of the bytes at K = 0: the whole, or too big */
		if ((rc = trial(&f, 0, 0, 8, &size, &fits)) != 0)
			goto done;
		if (!fits) {
			rc = yi_error(YING_ELIMIT, "%s: folded to one stack per heap and label, the "
			    "profile still has %zu samples and %zu bytes (+%zu extra) of pprof; "
			    "the limits are %zu samples and %zu bytes (0: none)", p->source,
			    f.q->stacks.n, size, opts->extra_bytes, f.max_samples, opts->max_bytes);
			goto done;
		}
		k = 0;
	}
	if ((rc = search_d(&f, k, &d)) != 0 || (rc = fill_slack(&f, &k, d)) != 0)
		goto done;
	if (f.last.valid && f.last.measured && f.last.k == k && f.last.d == d) {
		/* q holds the chosen trial: only the per-thread splits to add */
		size = f.last.size;
		rc = fold_tcounts(&f);
	} else if ((rc = build(&f, k, d, true)) == 0) {
		rc = measure(&f, f.q, &size);
	}
	if (rc != 0)
		goto done;
	if ((f.max_samples && f.q->stacks.n > f.max_samples) || (f.budget && size > f.budget)) {
		rc = yi_error(YING_EINVAL, "%s: folding at K %zu, depth %u gave %zu samples, "
		    "%zu bytes: not what its trial measured", p->source, k, d, f.q->stacks.n, size);
		goto done;
	}
	st.samples_out = f.q->stacks.n;
	st.stacks_folded = p->stacks.n - k;
	st.bytes_out = size;
	st.depth = d;
	st.folded_share = share(&f, k);
	*out = f.q;
	f.q = NULL;
done:
	if (rc == 0 && stats)
		*stats = st;
	release(&f);
	return rc;
}
