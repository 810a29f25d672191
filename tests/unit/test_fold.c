/*
 * test_fold.c: ying_profile_fold (write_fold.c), a profile folded until its
 * pprof fits a sample and a byte limit.
 *
 * Synthetic profiles (tests/unit/synth.h: a pool of functions, stacks whose
 * root-side frames share prefixes, heap_v2 raw counts unsampled by the
 * model) are folded under many limits.  Each result is written with the
 * real pprof writer and decoded with protobuf-c: the sample count and the
 * uncompressed size are the written ones and within the limits; every
 * total (all four sample indices, per heap, per label) is exactly the
 * input's; the stacks kept whole are an unchanged subsequence of the
 * input's and none is less significant than a folded one; folded stacks
 * lead with `[ying: folded]` and keep at most `depth` locations; the input
 * is not changed.  Edge cases: a profile that fits (no output), empty
 * profiles, stacks without frames, 1000-frame stacks, max_samples 1, two
 * heaps that cannot share one sample, limits nothing fits, bad options,
 * and 262,144 stacks to 16,000 samples and 2 MiB.
 */
#include "pprof_util.h"
#include "synth.h"

#define FOLD_NAME "[ying: folded]"

/* ---- generator ------------------------------------------------------------ */

static uint32_t rnd_state;

static uint32_t
rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

typedef struct gen_opts {
	size_t n;               /* stacks */
	unsigned mind, maxd;    /* frames per stack (every 97th has none) */
	bool accum, heaps, labels;
	uint32_t seed;
} gen_opts;

#define NPOOL 4096

static ying_profile *
gen(const gen_opts *g)
{
	ying_profile *p = synth_new("fold.heap", 524288);
	uint32_t *pool = malloc(NPOOL * sizeof(*pool)), *fr, heap[2] = { 0, 0 };
	char name[64], file[64];
	size_t i;

	rnd_state = g->seed;
	synth_map(p, "/usr/bin/foldtest", 0x400000, 0x400000 + 0x10 * (NPOOL + 16));
	for (i = 0; i < NPOOL; i++) {
		snprintf(name, sizeof(name), "fn_%zu", i);
		snprintf(file, sizeof(file), "src/f%zu.c", i % 97);
		pool[i] = synth_fn(p, 0x401000 + 0x10 * i, name, file, (uint32_t)(i % 500 + 1));
	}
	if (g->heaps && (yi_profile_add_heap(p, "c", 1, &heap[0]) != 0 ||
	    yi_profile_add_heap(p, "rust", 4, &heap[1]) != 0))
		printf("Bail out! heaps\n");
	if (g->labels) {
		p->has_label = true;
		(void)yi_strtab_intern(&p->strs, "pid", 3, &p->label_key);
	}
	fr = malloc((g->maxd + 1) * sizeof(*fr));
	for (i = 0; i < g->n; i++) {
		unsigned d = g->mind + rnd() % (g->maxd - g->mind + 1), j;
		yi_counts raw;
		yi_stack *st;
		if (i % 97 == 96)
			d = 0;
		/* root first: _start, __libc_start_main, main as in a real
		 * program, then a few choices per level, so prefixes are shared */
		for (j = 0; j < d; j++)
			fr[d - 1 - j] = pool[j < 3 ? j : (j * 131 + rnd() % 6) % NPOOL];
		if (d > 3)
			fr[0] = pool[rnd() % NPOOL];    /* the leaf: anything */
		raw.objs = 1 + rnd() % 8;
		raw.bytes = raw.objs * ((uint64_t)16 << (rnd() % 14));
		if (i % 50 == 7)
			raw.bytes *= 1000;
		raw.acc_objs = g->accum ? raw.objs + rnd() % 4 : 0;
		raw.acc_bytes = g->accum ? raw.bytes * 2 + rnd() % 4096 : 0;
		synth_stack_counts(p, fr, d, 0, &raw);
		st = &p->stacks.v[p->stacks.n - 1];
		if (g->heaps)
			st->heap = heap[i % 2];
		if (g->labels)
			st->label = 100 + (int64_t)(i % 3);
	}
	free(fr);
	free(pool);
	return p;
}

/* ---- checks --------------------------------------------------------------- */

static size_t
written(const ying_profile *p, const ying_pprof_opts *po, PB **m)
{
	ying_pprof_opts o = YING_PPROF_OPTS_INIT;
	ying_membuf mb = YING_MEMBUF_INIT;
	size_t n;

	if (po)
		o = *po;
	o.gzip = 0;
	if (ying_profile_write_pprof(p, &o, ying_write_membuf, &mb) != 0) {
		*m = NULL;
		return 0;
	}
	n = mb.len;
	*m = decode(&mb);
	ying_membuf_release(&mb);
	return n;
}

static double
sig(const yi_stack *s, ying_sample_index idx)
{
	return fabs(s->val[idx]);
}

static bool
is_folded(const ying_profile *q, const yi_stack *s)
{
	const yi_loc *l;

	if (s->nframes == 0)
		return false;
	l = &q->locs.v[q->frames.v[s->frame_off]];
	return l->nlines == 1 &&
	    strcmp(yi_profile_str(q, q->funcs.v[q->lines.v[l->line_off].func].name), FOLD_NAME) == 0;
}

static bool
same_stack(const ying_profile *p, const yi_stack *a, const ying_profile *q, const yi_stack *b)
{
	if (a->nframes != b->nframes || a->skip != b->skip || a->heap != b->heap ||
	    a->label != b->label || memcmp(a->val, b->val, sizeof(a->val)) ||
	    memcmp(&a->raw, &b->raw, sizeof(a->raw)))
		return false;
	for (uint32_t i = 0; i < a->nframes; i++) {
		const yi_loc *x = &p->locs.v[p->frames.v[a->frame_off + i]];
		const yi_loc *y = &q->locs.v[q->frames.v[b->frame_off + i]];
		if (x->addr != y->addr || x->nlines != y->nlines ||
		    (x->nlines && p->lines.v[x->line_off].func != q->lines.v[y->line_off].func))
			return false;
	}
	return true;
}

/* A fingerprint of what ying_profile_fold must not change. */
static double
fingerprint(const ying_profile *p)
{
	double h = (double)p->stacks.n * 7 + (double)p->frames.n * 3 + (double)p->locs.n +
	    (double)p->funcs.n * 11 + (double)yi_strtab_count(&p->strs) * 13;

	for (size_t i = 0; i < p->stacks.n; i++)
		h += p->stacks.v[i].val[0] * 1.5 + p->stacks.v[i].val[2] * 0.25 +
		    p->stacks.v[i].nframes + p->stacks.v[i].heap;
	return h;
}

/* Sum of val[idx] over stacks with label lab (has_label) */
static double
label_total(const ying_profile *p, int64_t lab, int idx)
{
	double t = 0;

	for (size_t i = 0; i < p->stacks.n; i++)
		if (p->stacks.v[i].label == lab)
			t += p->stacks.v[i].val[idx];
	return t;
}

typedef struct limits {
	size_t samples, bytes, extra;
	ying_sample_index idx;
	const ying_pprof_opts *po;
} limits;

/* Fold p under l and check everything; returns the fold's return code. */
static int
check_fold(ying_profile *p, const limits *l, const char *what)
{
	ying_fold_opts o = YING_FOLD_OPTS_INIT;
	ying_fold_stats st;
	ying_profile *q = NULL;
	double fp = fingerprint(p), vmin_kept = INFINITY, vmax_folded = 0;
	PB *mp = NULL;
	size_t nq, nfolded = 0, nkept = 0, i, j, bad = 0, baddepth = 0, size;
	PB *m = NULL;
	char t[256];
	int rc, k;

#define T(s) (snprintf(t, sizeof(t), "%s: %s", what, s), t)
	o.max_samples = l->samples;
	o.max_bytes = l->bytes;
	o.extra_bytes = l->extra;
	o.sample_index = l->idx;
	o.pprof = l->po;
	rc = ying_profile_fold(&q, p, &o, &st);
	is_int(rc, 0, T("folds"));
	if (rc != 0) {
		printf("# %s\n", ying_last_error());
		return rc;
	}
	ok(fingerprint(p) == fp, T("the input is not changed"));
	is_int(st.samples_in, p->stacks.n, T("samples_in"));
	if (q == NULL) {
		size = written(p, l->po, &m);
		ok((l->samples == 0 || p->stacks.n <= l->samples) &&
		    (l->bytes == 0 || size + l->extra <= l->bytes), T("no output: it fit"));
		is_int(st.bytes_out, size, T("no output: bytes_out is its size"));
		is_int(st.stacks_folded, 0, T("no output: nothing folded"));
		if (m)
			perftools__profiles__profile__free_unpacked(m, NULL);
		return 0;
	}
	nq = q->stacks.n;
	printf("# %s: %zu -> %zu samples, %zu stacks folded at depth %u (%.1f%% of the "
	    "value), %zu bytes\n", what, st.samples_in, st.samples_out, st.stacks_folded,
	    st.depth, 100 * st.folded_share, st.bytes_out);
	is_int(st.samples_out, nq, T("samples_out = the folded profile's stacks"));
	if (l->samples)
		ok(nq <= l->samples, T("samples_out <= max_samples"));
	size = written(q, l->po, &m);
	is_int(st.bytes_out, size, T("bytes_out = the pprof written, uncompressed"));
	if (l->bytes)
		ok(size + l->extra <= l->bytes, T("bytes_out + extra_bytes <= max_bytes"));
	ok(m != NULL && m->n_sample == nq, T("the pprof decodes, one sample per stack"));
	if (m && !(l->po && l->po->unsymbolized)) {
		size_t hit = 0;
		for (i = 0; i < m->n_function; i++)
			if (S(m, m->function[i]->name) && strcmp(S(m, m->function[i]->name), FOLD_NAME) == 0)
				hit++;
		is_int(hit, 1, T("the pprof has the function [ying: folded]"));
	}

	/* totals: every index, every heap, every label */
	(void)written(p, l->po, &mp);
	for (k = 0; k < 4; k++) {
		double a, b;
		if (ying_profile_total(&a, p, (ying_sample_index)k) != 0)
			continue;
		(void)ying_profile_total(&b, q, (ying_sample_index)k);
		snprintf(t, sizeof(t), "%s: %s total exactly the same", what,
		    ying_sample_index_name((ying_sample_index)k));
		ok(a == b, t);
		if (a != b)
			printf("#   %.17g != %.17g\n", a, b);
		if (m) {
			int col = type_index(m, ying_sample_index_name((ying_sample_index)k));
			ok(mp && sum_type(m, col) == sum_type(mp, type_index(mp,
			    ying_sample_index_name((ying_sample_index)k))), T("... and in the pprof"));
		}
	}
	if (mp)
		perftools__profiles__profile__free_unpacked(mp, NULL);
	is_int(ying_profile_heap_count(q), ying_profile_heap_count(p), T("the same heaps"));
	for (i = 0; i < ying_profile_heap_count(p); i++)
		for (k = 0; k < 4; k++)
			if (ying_profile_heap_total(p, i, (ying_sample_index)k) !=
			    ying_profile_heap_total(q, i, (ying_sample_index)k))
				bad++;
	if (p->has_label)
		for (int64_t lab = 100; lab < 103; lab++)
			for (k = 0; k < 4; k++)
				if (label_total(p, lab, k) != label_total(q, lab, k))
					bad++;
	is_int(bad, 0, T("per heap and per label totals exactly the same"));

	/* folded stacks: the marker leads, at most depth locations behind it */
	for (i = 0; i < nq; i++) {
		const yi_stack *s = &q->stacks.v[i];
		if (!is_folded(q, s))
			continue;
		nfolded++;
		if (s->skip != 0 || s->nframes > st.depth + 1)
			baddepth++;
	}
	is_int(baddepth, 0, T("folded stacks: [ying: folded] leads, at most depth locations"));
	ok(st.stacks_folded > 0 && nfolded > 0, T("some stacks folded"));
	ok(st.depth <= 64, T("depth <= 64"));
	ok(st.folded_share >= 0 && st.folded_share <= 1, T("folded_share in 0..1"));
	/* kept stacks: an unchanged subsequence of p's, none less significant
	 * than a folded one */
	for (i = j = 0; i < p->stacks.n; i++) {
		const yi_stack *s = &p->stacks.v[i];
		while (j < nq && is_folded(q, &q->stacks.v[j]))
			j++;
		if (j < nq && same_stack(p, s, q, &q->stacks.v[j])) {
			nkept++;
			j++;
			if (sig(s, l->idx) < vmin_kept)
				vmin_kept = sig(s, l->idx);
		} else if (sig(s, l->idx) > vmax_folded) {
			vmax_folded = sig(s, l->idx);
		}
	}
	while (j < nq && is_folded(q, &q->stacks.v[j]))
		j++;
	is_int(j, nq, T("kept stacks are p's, unchanged, in p's order"));
	is_int(nkept, p->stacks.n - st.stacks_folded, T("K = stacks - stacks_folded kept"));
	is_int(nkept + nfolded, nq, T("every stack is kept or folded"));
	ok(nkept == 0 || vmin_kept >= vmax_folded, T("no folded stack outranks a kept one"));
	if (m)
		perftools__profiles__profile__free_unpacked(m, NULL);
	ying_profile_free(q);
	return 0;
#undef T
}

static int
fold_rc(ying_profile *p, size_t samples, size_t bytes, size_t extra, ying_profile **q)
{
	ying_fold_opts o = YING_FOLD_OPTS_INIT;

	o.max_samples = samples;
	o.max_bytes = bytes;
	o.extra_bytes = extra;
	return ying_profile_fold(q, p, &o, NULL);
}

/* ---- tests ---------------------------------------------------------------- */

static void
test_fits(void)
{
	ying_profile *p = synth_fan(0x400000), *q = (ying_profile *)&q;
	ying_fold_opts o = YING_FOLD_OPTS_INIT;
	ying_fold_stats st;
	PB *m;
	size_t size = written(p, NULL, &m);
	limits l = { 0, 0, 0, YING_INUSE_SPACE, NULL };

	if (m)
		perftools__profiles__profile__free_unpacked(m, NULL);
	is_int(ying_profile_fold(&q, p, NULL, &st), 0, "fits: NULL opts");
	ok(q == NULL, "fits: *out NULL");
	is_int(st.samples_out, 3, "fits: samples_out");
	is_int(st.bytes_out, size, "fits: bytes_out = the uncompressed pprof");
	o.max_samples = 3;
	o.max_bytes = size + 10;
	o.extra_bytes = 10;
	q = (ying_profile *)&q;
	is_int(ying_profile_fold(&q, p, &o, &st), 0, "fits exactly at both limits");
	ok(q == NULL, "... nothing allocated");
	l.samples = 3;
	check_fold(p, &l, "fan, 3 samples");
	l.samples = 2;
	check_fold(p, &l, "fan, 2 samples");
	l.samples = 1;
	check_fold(p, &l, "fan, 1 sample");
	ying_profile_free(p);
}

static void
test_errors(void)
{
	ying_profile *p = synth_fan(0x400000), *q = (ying_profile *)&q, *e = NULL;
	ying_fold_opts o = YING_FOLD_OPTS_INIT;
	gen_opts g = { 6, 0, 0, false, true, false, 1 };

	ying_fold_opts_init(&o);
	is_int(o.version, YING_FOLD_OPTS_VERSION, "ying_fold_opts_init: the version");
	is_int(o.sample_index, YING_INUSE_SPACE, "... inuse_space");
	o.version = 2;
	is_int(ying_profile_fold(&q, p, &o, NULL), YING_EINVAL, "version 2: EINVAL");
	ok(q == NULL, "... *out NULL");
	has_str(ying_last_error(), "ying_fold_opts", "... naming the struct");
	is_int(ying_profile_fold(&q, NULL, NULL, NULL), YING_EINVAL, "no profile: EINVAL");
	is_int(ying_profile_fold(NULL, p, NULL, NULL), YING_EINVAL, "no output: EINVAL");
	o.version = YING_FOLD_OPTS_VERSION;
	o.sample_index = YING_ALLOC_SPACE;
	is_int(ying_profile_fold(&q, p, &o, NULL), YING_ENODATA, "alloc_space without accum: ENODATA");
	is_int(fold_rc(p, 0, 100, 100, &q), YING_ELIMIT, "extra_bytes >= max_bytes: ELIMIT");
	is_int(fold_rc(p, 0, 60, 0, &q), YING_ELIMIT, "60 bytes: nothing fits, ELIMIT");
	ok(q == NULL, "... *out NULL");
	has_str(ying_last_error(), "bytes", "... the detail gives the sizes");
	{
		ying_pprof_opts bad = YING_PPROF_OPTS_INIT;
		bad.version = 7;
		o.sample_index = YING_INUSE_SPACE;
		o.pprof = &bad;
		is_int(ying_profile_fold(&q, p, &o, NULL), YING_EINVAL, "bad pprof opts version: EINVAL");
	}

	/* empty profiles */
	if (yi_profile_new_heap(&e, "empty", 524288, NULL) == 0) {
		is_int(fold_rc(e, 1, 0, 0, &q), 0, "empty profile, 1 sample: fits");
		ok(q == NULL, "... as it is");
		is_int(fold_rc(e, 0, 1, 0, &q), YING_ELIMIT, "empty profile, 1 byte: ELIMIT");
		ying_profile_free(e);
	}
	/* two heaps cannot share one sample */
	ying_profile_free(p);
	p = gen(&g);
	is_int(fold_rc(p, 1, 0, 0, &q), YING_ELIMIT, "two heaps, max_samples 1: ELIMIT");
	has_str(ying_last_error(), "2 samples", "... 2 samples at the most folded");
	ying_profile_free(p);
}

static void
test_shapes(void)
{
	const size_t lims[] = { 1, 2, 5, 50, 500, 1900 };
	gen_opts g = { 2000, 1, 20, true, false, false, 42 };
	ying_profile *p = gen(&g), *z;
	limits l = { 0, 0, 0, YING_INUSE_SPACE, NULL };
	ying_pprof_opts un = YING_PPROF_OPTS_INIT;
	char what[128];
	size_t size, i;
	PB *m;

	for (i = 0; i < sizeof(lims) / sizeof(lims[0]); i++) {
		l.samples = lims[i];
		snprintf(what, sizeof(what), "2000 stacks, %zu samples", lims[i]);
		check_fold(p, &l, what);
	}
	size = written(p, NULL, &m);
	if (m)
		perftools__profiles__profile__free_unpacked(m, NULL);
	l.samples = 0;
	l.extra = 1000;
	for (i = 2; i <= 32; i *= 2) {
		l.bytes = size / i + l.extra;
		snprintf(what, sizeof(what), "2000 stacks, 1/%zu of the bytes", i);
		check_fold(p, &l, what);
	}
	l.samples = SIZE_MAX;
	l.bytes = size / 2;
	check_fold(p, &l, "2000 stacks, SIZE_MAX samples and 1/2 of the bytes");
	l.bytes = size / 3;
	l.samples = 700;
	check_fold(p, &l, "2000 stacks, 700 samples and 1/3 of the bytes");
	l.idx = YING_ALLOC_OBJECTS;
	check_fold(p, &l, "ranked by alloc_objects");
	l.idx = YING_INUSE_SPACE;
	un.unsymbolized = 1;
	l.po = &un;
	l.samples = 0;
	check_fold(p, &l, "measured unsymbolized");
	un.unsymbolized = 0;
	un.no_size_label = 1;
	check_fold(p, &l, "measured without the size label");
	ying_profile_free(p);

	/* heaps and labels kept apart */
	g.n = 3000;
	g.heaps = g.labels = true;
	p = gen(&g);
	memset(&l, 0, sizeof(l));
	l.samples = 6;
	check_fold(p, &l, "2 heaps x 3 labels, 6 samples");
	l.samples = 100;
	check_fold(p, &l, "2 heaps x 3 labels, 100 samples");
	ying_profile_free(p);

	/* deep stacks */
	g.n = 40;
	g.mind = g.maxd = 1000;
	g.heaps = g.labels = false;
	p = gen(&g);
	l.samples = 5;
	check_fold(p, &l, "40 stacks of 1000 frames, 5 samples");
	ying_profile_free(p);

	/* stacks without frames only */
	z = synth_new("zero", 1);
	for (i = 0; i < 5; i++)
		synth_stack(z, NULL, 0, 100.0 * (double)(i + 1), 1);
	l.samples = 1;
	check_fold(z, &l, "5 frameless stacks, 1 sample");
	ying_profile_free(z);
}

static void
test_big(void)
{
	gen_opts g = { 262144, 2, 40, true, false, false, 7 };
	ying_profile *p = gen(&g);
	limits l = { 16000, 2 << 20, 512, YING_INUSE_SPACE, NULL };

	is_int(p->stacks.n, 262144, "262,144 stacks");
	check_fold(p, &l, "262,144 stacks to 16,000 samples and 2 MiB");
	ying_profile_free(p);
}

int
main(void)
{
	test_fits();
	test_errors();
	test_shapes();
	test_big();
	return tap_done();
}
