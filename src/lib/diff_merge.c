/*
 * diff_merge.c: ying_profile_merge, the sum of several profiles minus a
 * base as one new profile (ying-jeprof's "profile..." and --base, jeprof's
 * AddProfile and SubtractProfile).
 *
 * jeprof matches stacks by their raw addresses, which breaks under ASLR and
 * across builds; here, as in yingdiff, a stack is identified by its
 * symbolized, trimmed frames: the words (function << 32 | line) with the
 * inline flag in the top bit, the functions interned by (name, system
 * name, file) in the new profile so ids agree across inputs.  Each
 * distinct sequence becomes one stack of the new profile, built from the
 * first input stack that had it (its locations, inline lines, allocator
 * skip), through the model's constructors, with its four values summed
 * (the base's subtracted).  The result is marked symbolized and trimmed
 * (never symbolized again) and of format pprof (no raw counts).
 * ying_profile_merge_labeled keeps each input's stacks apart, marked with
 * the input's value of one numeric label (a service's processes by pid).
 * A stack's heap (several jemallocs in one dump) is part of its identity
 * in both: the heap's name interned in the new profile leads the key; an
 * input without heaps merged with one that has them counts as the heap
 * YI_HEAP_UNNAMED.
 */
#include "diff.h"
#include "sym.h"

typedef struct merger {
	ying_profile *q;
	const ying_profile *p;    /* the input being added */
	uint32_t *locmap;         /* its loc -> q loc, UINT32_MAX = not yet */
	uint32_t *funcmap;        /* its func -> q func */
	yi_idset keys;            /* frame words (and label) -> q stack */
	bool labeled;             /* stacks are told apart by label too */
	int64_t label;            /* the label of the input being added */
	bool heaps;               /* some input has heaps: q's stacks have one */
	YI_VEC(uint64_t) key;
	YI_VEC(uint32_t) locs;
	yi_framevec fr;
} merger;

static int
u32map(uint32_t **out, size_t n)
{
	yi_free(*out);
	if ((*out = yi_malloc((n ? n : 1) * sizeof(**out))) == NULL)
		return yi_oom("merging profiles");
	memset(*out, 0xff, (n ? n : 1) * sizeof(**out));
	return 0;
}

static int
m_func(merger *m, uint32_t func, uint32_t *out)
{
	const ying_profile *p = m->p;
	const yi_func *f = &p->funcs.v[func];
	int rc;

	if (m->funcmap[func] == UINT32_MAX &&
	    (rc = yi_profile_func(m->q, yi_profile_str(p, f->name), yi_profile_str(p, f->sysname),
	    yi_profile_str(p, f->file), &m->funcmap[func])) != 0)
		return rc;
	*out = m->funcmap[func];
	return 0;
}

static int
m_loc(merger *m, uint32_t loc, uint32_t *out)
{
	const ying_profile *p = m->p;
	const yi_loc *l = &p->locs.v[loc];
	yi_line *lv = NULL;
	size_t k;
	int rc = 0;

	if (m->locmap[loc] != UINT32_MAX) {
		*out = m->locmap[loc];
		return 0;
	}
	if (l->nlines && (lv = yi_malloc(l->nlines * sizeof(*lv))) == NULL)
		return yi_oom("merging profiles");
	for (k = 0; k < l->nlines; k++) {
		const yi_line *src = &p->lines.v[l->line_off + k];
		lv[k].line = src->line;
		if ((rc = m_func(m, src->func, &lv[k].func)) != 0)
			goto out;
	}
	/* the address is kept for --addresses; no mapping (the inputs' address
	 * spaces differ) */
	if ((rc = yi_profile_loc_distinct(m->q, l->addr, -1, out)) != 0)
		goto out;
	m->q->locs.v[*out].allocator = l->allocator;
	m->q->locs.v[*out].lskip = l->lskip;
	m->locmap[loc] = *out;
	if (l->nlines)
		rc = yi_profile_set_lines(m->q, *out, lv, l->nlines);
out:
	yi_free(lv);
	return rc;
}

/* Add every stack of p, its values times sign. */
static int
m_add(merger *m, const ying_profile *p, double sign)
{
	size_t s, i;
	int rc;

	m->p = p;
	if ((rc = u32map(&m->locmap, p->locs.n)) != 0 || (rc = u32map(&m->funcmap, p->funcs.n)) != 0)
		return rc;
	for (s = 0; s < p->stacks.n; s++) {
		const yi_stack *st = &p->stacks.v[s];
		const yi_counts raw = { 0, 0, 0, 0 };
		double val[4];
		uint32_t id, heap = 0;
		bool added;
		long n;
		int k;

		if ((n = yi_stack_expand(p, st, &m->fr)) < 0)
			return (int)n;
		m->key.n = 0;
		if ((rc = yi_vec_grow(&m->key, m->fr.n + 2)) != 0)
			return rc;
		if (m->labeled)
			m->key.v[m->key.n++] = (uint64_t)m->label;
		if (m->heaps) {
			const char *h = p->has_heaps ? yi_profile_str(p, st->heap) : YI_HEAP_UNNAMED;
			if ((rc = yi_profile_add_heap(m->q, h, strlen(h), &heap)) != 0)
				return rc;
			m->key.v[m->key.n++] = heap;
		}
		for (i = 0; i < m->fr.n; i++) {
			uint32_t f;
			if ((rc = m_func(m, m->fr.v[i].func, &f)) != 0)
				return rc;
			m->key.v[m->key.n++] = (uint64_t)f << 32 | m->fr.v[i].line |
			    (m->fr.v[i].inlined ? (uint64_t)1 << 63 : 0);
		}
		if ((rc = yi_idset_add(&m->keys, m->key.v, m->key.n * sizeof(uint64_t), &id,
		    &added)) != 0)
			return rc;
		if (added) {
			m->locs.n = 0;
			if ((rc = yi_vec_grow(&m->locs, st->nframes)) != 0)
				return rc;
			for (i = 0; i < st->nframes; i++)
				if ((rc = m_loc(m, p->frames.v[st->frame_off + i],
				    &m->locs.v[m->locs.n++])) != 0)
					return rc;
			memset(val, 0, sizeof(val));
			if ((rc = yi_profile_add_stack(m->q, m->locs.v, m->locs.n, &raw, val)) != 0)
				return rc;
			m->q->stacks.v[id].skip = st->skip;
			m->q->stacks.v[id].label = m->label;
			m->q->stacks.v[id].heap = heap;
		}
		for (k = 0; k < 4; k++)
			m->q->stacks.v[id].val[k] += sign * st->val[k];
	}
	return 0;
}

static int merge(ying_profile **out, ying_profile *const *profiles, size_t n,
    ying_profile *base, const char *key, const int64_t *values,
    const ying_merge_opts *opts);

int
ying_profile_merge(ying_profile **out, ying_profile *const *profiles, size_t n,
    ying_profile *base, const ying_merge_opts *opts)
{
	return merge(out, profiles, n, base, NULL, NULL, opts);
}

int
ying_profile_merge_labeled(ying_profile **out, ying_profile *const *profiles,
    size_t n, const char *key, const int64_t *values, const ying_merge_opts *opts)
{
	yi_error_clear();
	if (out != NULL)
		*out = NULL;
	if (key == NULL || key[0] == '\0' || strcmp(key, "bytes") == 0 || strlen(key) > 64)
		return yi_error(YING_EINVAL, "ying_profile_merge_labeled: the label key must "
		    "be 1..64 bytes and not \"bytes\" (the average size's)");
	if (values == NULL)
		return yi_error(YING_EINVAL, "ying_profile_merge_labeled: no label values");
	return merge(out, profiles, n, NULL, key, values, opts);
}

static int
merge(ying_profile **out, ying_profile *const *profiles, size_t n,
    ying_profile *base, const char *key, const int64_t *values,
    const ying_merge_opts *opts)
{
	ying_merge_opts def = YING_MERGE_OPTS_INIT;
	merger m;
	bool accum = true, m_heaps = false;
	size_t i, s;
	int rc = 0, k;

	yi_error_clear();
	if (out == NULL)
		return yi_error(YING_EINVAL, "ying_profile_merge: no output");
	*out = NULL;
	if (profiles == NULL || n == 0)
		return yi_error(YING_EINVAL, "ying_profile_merge: no profile");
	if (opts == NULL)
		opts = &def;
	if (opts->version != YING_MERGE_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_merge_opts version %d unsupported", opts->version);
	for (i = 0; i <= n; i++) {
		ying_profile *p = i < n ? profiles[i] : base;
		if (p == NULL) {
			if (i < n)
				return yi_error(YING_EINVAL, "ying_profile_merge: profile %zu is NULL", i);
			continue;
		}
		/* matched by symbolized frames: the caller's explicit step */
		if (!(p->symbolized && p->trimmed))
			return yi_error(YING_EINVAL, "ying_profile_merge: %s %zu is not symbolized "
			    "(call ying_profile_symbolize first)", i < n ? "profile" : "base", i);
		accum = accum && p->has_accum;
		m_heaps = m_heaps || p->has_heaps;
	}
	memset(&m, 0, sizeof(m));
	m.heaps = m_heaps;
	yi_idset_init(&m.keys, NULL);
	if ((rc = yi_profile_new(&m.q, base ? "merged profile minus base" : "merged profile")) != 0)
		goto done;
	m.q->format = YI_FMT_PPROF;
	m.q->symbolized = true;
	m.q->trimmed = true;
	m.q->period = profiles[0]->period;
	m.q->time = profiles[0]->time;
	if (key != NULL) {
		m.labeled = true;
		m.q->has_label = true;
		rc = yi_strtab_intern(&m.q->strs, key, strlen(key), &m.q->label_key);
	}
	for (i = 0; i < n && rc == 0; i++) {
		m.label = key ? values[i] : 0;
		rc = m_add(&m, profiles[i], 1.0);
	}
	if (rc == 0 && base)
		rc = m_add(&m, base, -1.0);
	m.q->full_names = profiles[0]->full_names;
	if (rc != 0 || (rc = yi_profile_names(m.q)) != 0)
		goto done;
	for (s = 0; s < m.q->stacks.n; s++)
		for (k = 0; k < 4; k++) {
			double *v = &m.q->stacks.v[s].val[k];
			if (!accum && k >= YING_ALLOC_SPACE)
				*v = 0;
			if (opts->drop_negative && *v < 0)
				*v = 0;
		}
	m.q->has_accum = accum;
	*out = m.q;
	m.q = NULL;
done:
	ying_profile_free(m.q);
	yi_free(m.locmap);
	yi_free(m.funcmap);
	yi_idset_release(&m.keys);
	yi_vec_free(&m.key);
	yi_vec_free(&m.locs);
	yi_vec_free(&m.fr);
	return rc;
}
