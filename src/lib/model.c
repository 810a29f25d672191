/*
 * model.c: the profile model and the public profile calls.
 *
 * A ying_profile is built by a reader (heap_parse.c for jemalloc's heap_v2,
 * pprof_read.c for ying's own pprof), then symbolized in place
 * (symbolize.c, trim.c) and read by every writer.  This file owns the
 * model's invariants: locations are unique per caller-adjusted address,
 * functions unique per (name, file), and the four unsampled values of each
 * stack are computed once, with jeprof's AdjustSamples, when the stack is
 * added.
 */
#include <math.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "read.h"
#include "sym.h"

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
	yi_vec_free(&p->frames);
	yi_vec_free(&p->locs);
	yi_map64_release(&p->loc_by_addr);
	yi_vec_free(&p->maps);
	yi_vec_free(&p->lines);
	yi_vec_free(&p->funcs);
	yi_map64_release(&p->func_by_key);
	yi_strtab_release(&p->strs);
	yi_free(p->maps_text);
	yi_free(p);
}

const char *
yi_profile_str(const ying_profile *p, uint32_t id)
{
	return yi_strtab_get(&p->strs, id);
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
	if (p->locs.n >= UINT32_MAX - 1)
		return yi_error(YING_ELIMIT, "%s: more than 4 billion distinct addresses", p->source);
	if ((rc = yi_vec_grow(&p->locs, 1)) != 0)
		return rc;
	if ((rc = yi_map64_put(&p->loc_by_addr, addr, (uint32_t)p->locs.n, &slot, &added)) != 0)
		return rc;
	memset(&p->locs.v[p->locs.n], 0, sizeof(yi_loc));
	p->locs.v[p->locs.n].addr = addr;
	p->locs.v[p->locs.n].mapping = -1;
	*loc = (uint32_t)p->locs.n++;
	return 0;
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
 */
void
yi_unsample(uint64_t n, uint64_t s, uint64_t period, double *n_out, double *s_out)
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

void
yi_stack_compute_values(const ying_profile *p, yi_stack *st)
{
	yi_unsample(st->raw.objs, st->raw.bytes, p->period,
	    &st->val[YING_INUSE_OBJECTS], &st->val[YING_INUSE_SPACE]);
	yi_unsample(st->raw.acc_objs, st->raw.acc_bytes, p->period,
	    &st->val[YING_ALLOC_OBJECTS], &st->val[YING_ALLOC_SPACE]);
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

int
yi_profile_ensure_symbolized(ying_profile *p)
{
	if (p->symbolized)
		return 0;
	return ying_profile_symbolize(p, NULL, NULL);
}

/* A pprof profile ying wrote has every location's lines; one from another
 * tool may have bare addresses in mappings (with build IDs), which are
 * symbolized and trimmed like a heap dump's. */
static bool
pprof_needs_symbols(const ying_profile *p)
{
	for (size_t i = 0; i < p->locs.n; i++)
		if (p->locs.v[i].nlines == 0 && p->locs.v[i].mapping >= 0)
			return true;
	return false;
}

int
ying_profile_symbolize(ying_profile *p, ying_symbolizer *s,
    const ying_symbolize_opts *opts)
{
	ying_symbolize_opts def = YING_SYMBOLIZE_OPTS_INIT;
	int rc;

	yi_error_clear();
	if (p == NULL)
		return yi_error(YING_EINVAL, "no profile");
	if (p->symbolized)
		return 0;
	if (opts == NULL)
		opts = &def;
	if (opts->version < 1 || opts->version > YING_SYMBOLIZE_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_symbolize_opts version %d unsupported", opts->version);
	if (opts->version < 2) {
		/* a caller built against version 1 has no search_path */
		memcpy(&def, opts, offsetof(ying_symbolize_opts, search_path));
		def.search_path = NULL;
		opts = &def;
	}
	if (p->format != YI_FMT_PPROF || pprof_needs_symbols(p)) {
		if ((rc = yi_symbolize_trim(p, s, opts)) != 0)
			return rc;
	}
	p->symbolized = true;
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
		if ((rc = yi_vec_grow(buf, nl)) != 0)
			return rc;
		for (k = 0; k < nl; k++) {
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

/* ---- public accessors ---------------------------------------------------- */

/* The wire types profile.proto's top-level fields may have (packed repeated
 * comment: LEN or VARINT); 0 for a field number it does not have. */
static int
pprof_field_ok(uint64_t field, unsigned wt)
{
	switch (field) {
	case 1: case 2: case 3: case 4: case 5: case 6: case 11:
		return wt == 2;
	case 7: case 8: case 9: case 10: case 12: case 14: case 15:
		return wt == 0;
	case 13:
		return wt == 0 || wt == 2;
	default:
		return 0;
	}
}

/* Read a varint at d[*i..n); 1 ok, 0 runs past n, -1 malformed. */
static int
sniff_varint(const unsigned char *d, size_t n, size_t *i, uint64_t *v)
{
	unsigned shift;

	*v = 0;
	for (shift = 0; shift < 70; shift += 7) {
		if (*i >= n)
			return 0;
		*v |= (uint64_t)(d[*i] & 0x7f) << (shift < 64 ? shift : 63);
		if ((d[(*i)++] & 0x80) == 0)
			return 1;
	}
	return -1;
}

yi_sniff_kind
yi_sniff(const void *data, size_t n, bool complete)
{
	const unsigned char *d = data;
	size_t i, fields = 0;
	uint64_t tag, v;
	int r = 1;

	if (n == 0)
		return complete ? YI_SNIFF_NEITHER : YI_SNIFF_HEAP;
	/* heap_v2 (or something starting like it: "heap_v3/", gperftools'
	 * "heap profile:"), for the heap parser's precise messages */
	if (memcmp(d, "heap", n < 4 ? n : 4) == 0)
		return YI_SNIFF_HEAP;
	/* text: profile.proto always has control bytes (tags 0x08, 0x10 of
	 * its ValueType and Sample messages) near the start */
	for (i = 0; i < n && i < 512; i++)
		if ((d[i] < 0x20 && d[i] != '\t' && d[i] != '\n' && d[i] != '\r') || d[i] == 0x7f)
			break;
	if (i == n || i == 512)
		return YI_SNIFF_NEITHER;
	/* walk the top-level fields: every tag must be one of profile.proto's */
	for (i = 0; i < n; fields++) {
		if ((r = sniff_varint(d, n, &i, &tag)) <= 0)
			break;
		if (!pprof_field_ok(tag >> 3, (unsigned)(tag & 7)))
			return YI_SNIFF_NEITHER;
		if ((r = sniff_varint(d, n, &i, &v)) <= 0)
			break;
		if ((tag & 7) == 2) {
			if (v > n - i) {
				r = 0;
				break;
			}
			i += (size_t)v;
		}
	}
	if (i == n && fields > 0)
		return YI_SNIFF_PPROF;
	if (r < 0)
		return YI_SNIFF_NEITHER;
	/* runs past the end: the rest is unseen, or the data was cut after
	 * some well-formed fields (a truncated profile: the pprof reader says so) */
	return !complete || fields >= 3 ? YI_SNIFF_PPROF : YI_SNIFF_NEITHER;
}

bool
yi_looks_like_pprof(const void *data, size_t n)
{
	return yi_sniff(data, n, false) == YI_SNIFF_PPROF;
}

int
yi_not_a_profile(const char *name, size_t n)
{
	return yi_error(YING_EPARSE, "%s: %snot a heap profile (expected heap_v2 or pprof)",
	    name, n == 0 ? "empty input, " : "");
}

int
ying_profile_read_mem(ying_profile **out, const void *data, size_t len,
    const char *name)
{
	void *plain = NULL;
	size_t plen = 0;
	int rc;

	yi_error_clear();
	if (out == NULL)
		return yi_error(YING_EINVAL, "no output pointer");
	*out = NULL;
	if (data == NULL && len)
		return yi_error(YING_EINVAL, "no input buffer");
	if (name == NULL)
		name = "(memory)";
	if (yi_is_gzip(data, len)) {
		if ((rc = yi_gunzip(data, len, (size_t)4 << 30, &plain, &plen, name)) != 0)
			return rc;
		data = plain;
		len = plen;
	}
	switch (yi_sniff(data, len, true)) {
	case YI_SNIFF_PPROF: rc = yi_pprof_parse(out, data, len, name); break;
	case YI_SNIFF_HEAP: rc = yi_heap_parse_mem(out, data, len, name); break;
	default: rc = yi_not_a_profile(name, len); break;
	}
	yi_free(plain);
	return rc;
}

int
ying_profile_read_file(ying_profile **out, const char *path)
{
	yi_error_clear();
	if (out == NULL || path == NULL)
		return yi_error(YING_EINVAL, "no path given");
	*out = NULL;
	return yi_heap_parse_file(out, path);
}

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
