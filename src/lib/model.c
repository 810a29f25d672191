/*
 * model.c: the profile model and the public profile calls.
 *
 * A ying_profile is built by a reader (read_heap.c for jemalloc's heap_v2,
 * read_pprof.c for pprof) through the constructors here, then symbolized
 * and trimmed in place (sym_pass.c, sym_trim.c) and read by every writer.
 * This file depends on the base family only and owns the model's
 * invariants: locations are unique per caller-adjusted address (or, for
 * pprof, one per pprof location, the first findable by address), functions
 * unique per (name, file), stacks are added only by yi_profile_add_stack,
 * which computes the four unsampled values once, with jeprof's
 * AdjustSamples, unless the reader has them.  yi_profile_new_heap and
 * yi_profile_add_pcs build, from addresses and counts, the profile the
 * heap_v2 reader would make of the same '@' and 't*:' lines (the live
 * listings, the symbol endpoint and the offline recent/giant readers use
 * them instead of printing heap_v2 text to parse it again).
 * yi_profile_copy_base copies a profile without its stacks, for
 * ying_profile_fold to add stacks of its own choosing to.
 */
#include <math.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "model.h"

static const char *index_names[] = {
	"inuse_space", "inuse_objects", "alloc_space", "alloc_objects"
};

int
ying_sample_index_parse(ying_sample_index *out, const char *name)
{
	int i;

	yi_error_clear();
	for (i = 0; i < 4; i++) {
		if (name && strcmp(name, index_names[i]) == 0) {
			*out = (ying_sample_index)i;
			return 0;
		}
	}
	return yi_error(YING_EINVAL, "unknown sample index '%s' (use inuse_space, "
	    "inuse_objects, alloc_space or alloc_objects)", name ? name : "(null)");
}

const char *
ying_sample_index_name(ying_sample_index idx)
{
	if ((unsigned)idx > 3)
		return "?";
	return index_names[idx];
}

int
yi_profile_new(ying_profile **out, const char *source)
{
	ying_profile *p;
	int rc;

	*out = NULL;
	if ((p = yi_calloc(1, sizeof(*p))) == NULL)
		return yi_oom("creating a profile");
	p->main_map = -1;
	p->period = 1;
	p->time = (int64_t)time(NULL);
	if ((p->source = yi_strdup(source ? source : "(memory)")) == NULL) {
		yi_free(p);
		return yi_oom("creating a profile");
	}
	if ((rc = yi_strtab_init(&p->strs)) != 0 ||
	    (rc = yi_map64_init(&p->loc_by_addr, 1024)) != 0 ||
	    (rc = yi_map64_init(&p->func_by_key, 256)) != 0 ||
	    (rc = yi_profile_func(p, "[unknown]", "[unknown]", "", &p->unknown_func)) != 0) {
		ying_profile_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void
ying_profile_free(ying_profile *p)
{
	if (p == NULL)
		return;
	yi_free(p->source);
	yi_vec_free(&p->threads);
	yi_vec_free(&p->tcounts);
	yi_vec_free(&p->stacks);
	yi_vec_free(&p->heaps);
	yi_vec_free(&p->frames);
	yi_vec_free(&p->locs);
	yi_map64_release(&p->loc_by_addr);
	yi_vec_free(&p->maps);
	yi_vec_free(&p->lines);
	yi_vec_free(&p->funcs);
	yi_map64_release(&p->func_by_key);
	yi_strtab_release(&p->strs);
	yi_free(p->maps_text);
	yi_free(p->sym_opts);
	yi_free(p);
}

const char *
yi_profile_str(const ying_profile *p, uint32_t id)
{
	return yi_strtab_get(&p->strs, id);
}

/* Append a new location at addr (already caller-adjusted). */
static int
loc_append(ying_profile *p, uint64_t addr, uint32_t *loc)
{
	int rc;

	if (p->locs.n >= UINT32_MAX - 1)
		return yi_error(YING_ELIMIT, "%s: more than 4 billion distinct addresses", p->source);
	if ((rc = yi_vec_grow(&p->locs, 1)) != 0)
		return rc;
	memset(&p->locs.v[p->locs.n], 0, sizeof(yi_loc));
	p->locs.v[p->locs.n].addr = addr;
	p->locs.v[p->locs.n].mapping = -1;
	*loc = (uint32_t)p->locs.n++;
	return 0;
}

int
yi_profile_loc(ying_profile *p, uint64_t pc, bool leaf, uint32_t *loc)
{
	uint64_t addr = leaf || pc == 0 ? pc : pc - 1;
	uint32_t *slot;
	bool added;
	int rc;

	if ((slot = yi_map64_get(&p->loc_by_addr, addr)) != NULL) {
		*loc = *slot;
		return 0;
	}
	if ((rc = loc_append(p, addr, loc)) != 0)
		return rc;
	return yi_map64_put(&p->loc_by_addr, addr, *loc, &slot, &added);
}

int
yi_profile_loc_distinct(ying_profile *p, uint64_t addr, int32_t mapping, uint32_t *loc)
{
	uint32_t *slot;
	bool added;
	int rc;

	if ((rc = loc_append(p, addr, loc)) != 0)
		return rc;
	p->locs.v[*loc].mapping = mapping;
	if (addr == 0 || yi_map64_get(&p->loc_by_addr, addr) != NULL)
		return 0;
	return yi_map64_put(&p->loc_by_addr, addr, *loc, &slot, &added);
}

int
yi_profile_func(ying_profile *p, const char *name, const char *sysname,
    const char *file, uint32_t *func)
{
	uint32_t nid, sid, fid, *slot;
	uint64_t key;
	bool added;
	int rc;

	if (sysname == NULL)
		sysname = name;
	if (file == NULL)
		file = "";
	if ((rc = yi_strtab_intern(&p->strs, name, strlen(name), &nid)) != 0 ||
	    (rc = yi_strtab_intern(&p->strs, file, strlen(file), &fid)) != 0)
		return rc;
	key = (uint64_t)nid << 32 | fid;
	if ((slot = yi_map64_get(&p->func_by_key, key)) != NULL) {
		*func = *slot;
		return 0;
	}
	if ((rc = yi_strtab_intern(&p->strs, sysname, strlen(sysname), &sid)) != 0)
		return rc;
	if ((rc = yi_vec_grow(&p->funcs, 1)) != 0)
		return rc;
	if ((rc = yi_map64_put(&p->func_by_key, key, (uint32_t)p->funcs.n, &slot, &added)) != 0)
		return rc;
	p->funcs.v[p->funcs.n].name = nid;
	p->funcs.v[p->funcs.n].sysname = sid;
	p->funcs.v[p->funcs.n].file = fid;
	p->funcs.v[p->funcs.n].show = nid;
	*func = (uint32_t)p->funcs.n++;
	return 0;
}

int
yi_profile_set_lines(ying_profile *p, uint32_t loc, const yi_line *lines, size_t n)
{
	int rc;

	if (n > UINT16_MAX)
		n = UINT16_MAX;
	if ((rc = yi_vec_grow(&p->lines, n)) != 0)
		return rc;
	memcpy(&p->lines.v[p->lines.n], lines, n * sizeof(*lines));
	p->locs.v[loc].line_off = (uint32_t)p->lines.n;
	p->locs.v[loc].nlines = (uint16_t)n;
	p->lines.n += n;
	return 0;
}

/*
 * jeprof's AdjustSamples (sampling algorithm 2, heap_v2): per line, with
 * ratio = (s/n)/R, both numbers are scaled by 1/(1 - e^-ratio).  jemalloc's
 * prof_unbias pre-distorts the printed integers so that this gives back its
 * internal unbiased totals; applying anything else would disagree with jeprof.
 * These are jeprof's own fractional estimates (ying-jeprof sums them, as
 * jeprof does: ying_profile_use_jeprof_values).
 */
void
yi_unsample_exact(uint64_t n, uint64_t s, uint64_t period, double *n_out, double *s_out)
{
	double ratio, f;

	if (n == 0) {
		*n_out = (double)n;
		*s_out = (double)s;
		return;
	}
	ratio = ((double)s / (double)n) / (double)period;
	f = 1.0 / (1.0 - exp(-ratio));
	if (!isfinite(f))   /* s == 0 with n > 0: nothing to scale */
		f = 1.0;
	*n_out = (double)n * f;
	*s_out = (double)s * f;
}

/*
 * The one rounding rule: a stack's estimate is rounded once, here, to the
 * nearest whole object and byte (halves away from zero).  Every total,
 * row, delta, pprof sample and SQL value is a sum of these integers, so
 * the same heap has the same number in every output (a double holds every
 * integer below 2^53 exactly), and the same counts always give the same
 * value, so an unchanged stack differs by exactly 0 in a diff.  A sum of
 * n stacks is within n/2 bytes of jeprof's sum of unrounded estimates.
 */
static double
round_once(double v)
{
	return v >= 0 ? floor(v + 0.5) : -floor(-v + 0.5);
}

void
yi_unsample(uint64_t n, uint64_t s, uint64_t period, double *n_out, double *s_out)
{
	yi_unsample_exact(n, s, period, n_out, s_out);
	*n_out = round_once(*n_out);
	*s_out = round_once(*s_out);
}

void
yi_stack_compute_values(const ying_profile *p, yi_stack *st)
{
	yi_unsample(st->raw.objs, st->raw.bytes, p->period,
	    &st->val[YING_INUSE_OBJECTS], &st->val[YING_INUSE_SPACE]);
	yi_unsample(st->raw.acc_objs, st->raw.acc_bytes, p->period,
	    &st->val[YING_ALLOC_OBJECTS], &st->val[YING_ALLOC_SPACE]);
}

int
yi_profile_add_stack(ying_profile *p, const uint32_t *locs, size_t n,
    const yi_counts *raw, const double *val)
{
	yi_stack *st;
	int rc;

	if (p->stacks.n >= UINT32_MAX - 1)
		return yi_error(YING_ELIMIT, "%s: too many stacks", p->source);
	if (n > UINT32_MAX || p->frames.n + n > UINT32_MAX)
		return yi_error(YING_ELIMIT, "%s: more than 4 billion frames", p->source);
	for (size_t i = 0; i < n; i++)
		if (locs[i] >= p->locs.n)
			return yi_error(YING_EINVAL, "%s: stack names location %u of %zu",
			    p->source, locs[i], p->locs.n);
	if ((rc = yi_vec_grow(&p->frames, n)) != 0 ||
	    (rc = yi_vec_grow(&p->stacks, 1)) != 0)
		return rc;
	if (n)
		memcpy(&p->frames.v[p->frames.n], locs, n * sizeof(*locs));
	st = &p->stacks.v[p->stacks.n];
	memset(st, 0, sizeof(*st));
	st->frame_off = (uint32_t)p->frames.n;
	st->nframes = (uint32_t)n;
	st->raw = *raw;
	if (val != NULL)
		memcpy(st->val, val, sizeof(st->val));
	else
		yi_stack_compute_values(p, st);
	if (raw->acc_objs || raw->acc_bytes)
		p->has_accum = true;
	p->frames.n += n;
	p->stacks.n++;
	return 0;
}

int
yi_profile_new_heap(ying_profile **out, const char *source, uint64_t period,
    const yi_counts *total)
{
	ying_profile *p;
	int rc;

	*out = NULL;
	if (period == 0)
		return yi_error(YING_EINVAL, "%s: sample period 0", source ? source : "(profile)");
	if ((rc = yi_profile_new(&p, source)) != 0)
		return rc;
	p->format = YI_FMT_HEAP_V2;
	p->period = period;
	if (total != NULL) {
		p->header = *total;
		if (total->acc_objs || total->acc_bytes)
			p->has_accum = true;
	}
	*out = p;
	return 0;
}

int
yi_profile_add_pcs(ying_profile *p, const uint64_t *pcs, size_t n, const yi_counts *raw)
{
	uint32_t small[128], *locs = small;
	double val[4];
	int rc = 0;

	if (n > sizeof(small) / sizeof(small[0]) &&
	    (locs = yi_reallocarray(NULL, n, sizeof(*locs))) == NULL)
		return yi_oom("adding a stack");
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = yi_profile_loc(p, pcs[i], i == 0, &locs[i]);
	if (rc == 0) {
		/* the heap_v2 reader's two calls (read_heap.c, S_STACK_TOTAL) */
		yi_unsample(raw->objs, raw->bytes, p->period, &val[YING_INUSE_OBJECTS],
		    &val[YING_INUSE_SPACE]);
		yi_unsample(raw->acc_objs, raw->acc_bytes, p->period, &val[YING_ALLOC_OBJECTS],
		    &val[YING_ALLOC_SPACE]);
		rc = yi_profile_add_stack(p, locs, n, raw, val);
	}
	if (locs != small)
		yi_free(locs);
	return rc;
}

int
yi_profile_check_index(const ying_profile *p, ying_sample_index idx)
{
	if ((unsigned)idx > 3)
		return yi_error(YING_EINVAL, "invalid sample index %d", (int)idx);
	if ((idx == YING_ALLOC_SPACE || idx == YING_ALLOC_OBJECTS) && !p->has_accum)
		return yi_error(YING_ENODATA, "%s: %s needs cumulative data, but this dump "
		    "has none (start the program with MALLOC_CONF=prof:true,prof_accum:true)",
		    p->source, ying_sample_index_name(idx));
	return 0;
}

long
yi_stack_expand(const ying_profile *p, const yi_stack *s, yi_framevec *buf)
{
	uint32_t i, k;
	int rc;

	buf->n = 0;
	for (i = s->skip; i < s->nframes; i++) {
		const yi_loc *l = &p->locs.v[p->frames.v[s->frame_off + i]];
		uint32_t nl = l->nlines ? l->nlines : 1;
		if (buf->n + nl > buf->cap && (rc = yi_vec_grow(buf, nl)) != 0)
			return rc;
		/* the leading frame drops the allocator functions inlined into it */
		for (k = i == s->skip && l->lskip < nl ? l->lskip : 0; k < nl; k++) {
			yi_frame *f = &buf->v[buf->n++];
			if (l->nlines) {
				f->func = p->lines.v[l->line_off + k].func;
				f->line = p->lines.v[l->line_off + k].line;
			} else {
				f->func = p->unknown_func;
				f->line = 0;
			}
			f->loc = p->frames.v[s->frame_off + i];
			f->inlined = k + 1 < nl;
		}
	}
	if (buf->n == 0) {
		if ((rc = yi_vec_grow(buf, 1)) != 0)
			return rc;
		buf->v[0].func = p->unknown_func;
		buf->v[0].line = 0;
		buf->v[0].loc = UINT32_MAX;
		buf->v[0].inlined = 0;
		buf->n = 1;
	}
	return (long)buf->n;
}

/* ---- a copy without stacks (ying_profile_fold) -------------------------- */

/* The vector src into the empty or fresh vector dst (same element type),
 * replacing what dst held. */
static int
copy_vec_(void **dv, size_t *dn, size_t *dcap, const void *sv, size_t sn, size_t elem)
{
	int rc;

	*dn = 0;
	if (sn == 0)
		return 0;
	if ((rc = yi_vec_grow_(dv, dcap, 0, sn, elem)) != 0)
		return rc;
	memcpy(*dv, sv, sn * elem);
	*dn = sn;
	return 0;
}
#define COPY_VEC(dst, src) copy_vec_((void **)&(dst)->v, &(dst)->n, &(dst)->cap, \
	(src)->v, (src)->n, sizeof(*(src)->v))

int
yi_profile_copy_base(ying_profile **out, const ying_profile *p)
{
	ying_profile *q;
	uint32_t id, *slot;
	bool added;
	size_t i;
	int rc;

	*out = NULL;
	if ((rc = yi_profile_new(&q, p->source)) != 0)
		return rc;
	/* strings: interned in p's order into a fresh table, so every id is
	 * p's (p's strings are distinct; id 0 is "" in both) */
	yi_strtab_release(&q->strs);
	if ((rc = yi_strtab_init(&q->strs)) != 0)
		goto fail;
	for (i = 1; i < yi_strtab_count(&p->strs); i++) {
		if ((rc = yi_strtab_intern(&q->strs, yi_strtab_get(&p->strs, (uint32_t)i),
		    yi_strtab_len(&p->strs, (uint32_t)i), &id)) != 0)
			goto fail;
		if (id != i) {
			rc = yi_error(YING_EINVAL, "%s: string %zu interned twice", p->source, i);
			goto fail;
		}
	}
	if ((rc = COPY_VEC(&q->funcs, &p->funcs)) != 0 ||
	    (rc = COPY_VEC(&q->locs, &p->locs)) != 0 ||
	    (rc = COPY_VEC(&q->lines, &p->lines)) != 0 ||
	    (rc = COPY_VEC(&q->maps, &p->maps)) != 0 ||
	    (rc = COPY_VEC(&q->threads, &p->threads)) != 0 ||
	    (rc = COPY_VEC(&q->heaps, &p->heaps)) != 0) {
		rc = yi_oom("copying a profile");
		goto fail;
	}
	/* the lookups, as p's: first location by address, function by key */
	yi_map64_release(&q->func_by_key);
	if ((rc = yi_map64_init(&q->func_by_key, p->funcs.n)) != 0)
		goto fail;
	for (i = 0; i < p->funcs.n; i++) {
		const yi_func *f = &p->funcs.v[i];
		if ((rc = yi_map64_put(&q->func_by_key, (uint64_t)f->name << 32 | f->file,
		    (uint32_t)i, &slot, &added)) != 0)
			goto fail;
	}
	for (i = 0; i < p->locs.n; i++) {
		const uint32_t *v = yi_map64_get(&p->loc_by_addr, p->locs.v[i].addr);
		if (v && *v == i && (rc = yi_map64_put(&q->loc_by_addr, p->locs.v[i].addr,
		    (uint32_t)i, &slot, &added)) != 0)
			goto fail;
	}
	if ((p->maps_text && (q->maps_text = yi_strndup(p->maps_text, p->maps_text_len)) == NULL) ||
	    (p->sym_opts && (q->sym_opts = yi_strdup(p->sym_opts)) == NULL)) {
		rc = yi_oom("copying a profile");
		goto fail;
	}
	q->maps_text_len = p->maps_text ? p->maps_text_len : 0;
	q->format = p->format;
	q->period = p->period;
	q->has_accum = p->has_accum;
	q->symbolized = p->symbolized;
	q->trimmed = p->trimmed;
	q->kept_allocators = p->kept_allocators;
	q->full_names = p->full_names;
	q->time = p->time;
	q->header = p->header;
	q->main_map = p->main_map;
	q->has_maps = p->has_maps;
	q->unknown_func = p->unknown_func;
	q->has_label = p->has_label;
	q->label_key = p->label_key;
	q->has_heaps = p->has_heaps;
	*out = q;
	return 0;
fail:
	ying_profile_free(q);
	return rc;
}

/* ---- public accessors ---------------------------------------------------- */

uint64_t
ying_profile_period(const ying_profile *p)
{
	return p->period;
}

int
ying_profile_has_alloc(const ying_profile *p)
{
	return p->has_accum;
}

size_t
ying_profile_nstacks(const ying_profile *p)
{
	return p->stacks.n;
}

int64_t
ying_profile_time(const ying_profile *p)
{
	return p->time;
}

const char *
ying_profile_program(const ying_profile *p)
{
	if (p->main_map < 0)
		return "";
	return yi_profile_str(p, p->maps.v[p->main_map].path);
}

int
ying_profile_use_jeprof_values(ying_profile *p)
{
	size_t i;

	if (p == NULL)
		return yi_error(YING_EINVAL, "ying_profile_use_jeprof_values: no profile");
	if (p->format != YI_FMT_HEAP_V2)
		return 0;
	for (i = 0; i < p->stacks.n; i++) {
		yi_stack *st = &p->stacks.v[i];
		yi_unsample_exact(st->raw.objs, st->raw.bytes, p->period,
		    &st->val[YING_INUSE_OBJECTS], &st->val[YING_INUSE_SPACE]);
		yi_unsample_exact(st->raw.acc_objs, st->raw.acc_bytes, p->period,
		    &st->val[YING_ALLOC_OBJECTS], &st->val[YING_ALLOC_SPACE]);
	}
	return 0;
}

int
ying_profile_total(double *out, const ying_profile *p, ying_sample_index idx)
{
	double sum = 0;
	size_t i;
	int rc;

	if ((rc = yi_profile_check_index(p, idx)) != 0)
		return rc;
	for (i = 0; i < p->stacks.n; i++)
		sum += p->stacks.v[i].val[idx];
	*out = sum;
	return 0;
}

/* ---- mappings by address --------------------------------------------------- */

static int
cmp_map_start(const void *a, const void *b, void *arg)
{
	const ying_profile *p = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	uint64_t x = p->maps.v[i].start, y = p->maps.v[j].start;

	if (x != y)
		return x < y ? -1 : 1;
	return i < j ? -1 : i > j;
}

void
yi_maps_sort(const ying_profile *p, uint32_t *idx, size_t n)
{
	if (n > 1)
		qsort_r(idx, n, sizeof(*idx), cmp_map_start, (void *)p);
}

int32_t
yi_maps_find(const ying_profile *p, const uint32_t *idx, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;
	const yi_mapping *m;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->maps.v[idx[mid]].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	m = &p->maps.v[idx[lo - 1]];
	return addr < m->end ? (int32_t)idx[lo - 1] : -1;
}
