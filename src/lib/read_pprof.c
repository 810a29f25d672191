/*
 * read_pprof.c: pprof profile.proto -> ying_profile.
 *
 * This lets every ying command take a pprof heap profile as input: ying's
 * own output, or what a Go program serves at /debug/pprof/heap.  The
 * message is decoded by protobuf-c (through an allocator that uses
 * yi_malloc, so fault injection reaches it), then checked as pprof's own
 * CheckValid does, then copied into the model: sample values by type name
 * (inuse_space/inuse_objects/alloc_space/alloc_objects, and the legacy
 * "space"/"objects"), locations with their inline chains, functions,
 * mappings, period and time.  Values in a pprof profile are already
 * unsampled, so they go to yi_stack.val[] as they are; raw counts get the
 * same numbers (there is no t*: line to keep).
 *
 * Input is untrusted (an HTTP body, a file from anywhere): every id and
 * every string index is checked before use, and any inconsistency is
 * YING_EPARSE naming the offending element.  Decoding keeps to the decode
 * budget (read.h, YING_MAX_MEMORY): a pre-count over the wire form refuses
 * a profile whose decoding would pass it, or whose samples lack values,
 * before protobuf-c allocates anything, and protobuf-c's allocator counts
 * its bytes against the same budget.
 */
#include <math.h>

#include <protobuf-c/protobuf-c.h>

#include "read.h"
#include "proto/profile.pb-c.h"

/* What one allocation costs beyond its size (malloc's header and rounding),
 * for the budget. */
#define ALLOC_OVERHEAD 16

/* protobuf-c's allocations, counted against the decode budget: past it,
 * NULL, and unpack fails cleanly.  oom records a real allocation failure;
 * over records the budget's refusal (neither is the input's fault alone). */
typedef struct pb_budget {
	size_t used, budget;
	bool oom, over;
} pb_budget;

static void *
pb_alloc(void *data, size_t size)
{
	pb_budget *b = data;
	void *ptr;

	if (size > b->budget || b->used > b->budget - size - ALLOC_OVERHEAD) {
		b->over = true;
		return NULL;
	}
	if ((ptr = yi_malloc(size)) == NULL) {
		b->oom = true;
		return NULL;
	}
	b->used += size + ALLOC_OVERHEAD;
	return ptr;
}

static void
pb_free(void *data, void *ptr)
{
	YI_UNUSED(data);
	yi_free(ptr);
}


typedef struct pr {
	const char *name;
	const Perftools__Profiles__Profile *m;
	ying_profile *p;
	yi_map64 loc_by_id;      /* pprof location id -> p->locs index */
	yi_map64 func_by_id;     /* pprof function id -> m->function index */
	yi_map64 map_by_id;      /* pprof mapping id -> p->maps index */
	uint32_t *func_model;    /* m->function index -> p->funcs index */
	int col[4];              /* value position per ying_sample_index, -1 */
	YI_VEC(yi_line) lines;   /* scratch */
	YI_VEC(uint32_t) locs;   /* scratch: a sample's locations */
	bool bare;               /* a mapped location has no lines */
	size_t spent, budget;    /* the input and protobuf-c's message; the budget */
} pr;

/* A string-table reference; NULL (with the error recorded) if invalid. */
static const char *
str_at(pr *r, int64_t idx, const char *what, size_t elem)
{
	if (idx < 0 || (uint64_t)idx >= r->m->n_string_table) {
		yi_error(YING_EPARSE, "%s: %s %zu refers to string %lld, but the string "
		    "table has %zu entries", r->name, what, elem, (long long)idx,
		    r->m->n_string_table);
		return NULL;
	}
	return r->m->string_table[idx] ? r->m->string_table[idx] : "";
}

static int
check_strings(pr *r)
{
	const Perftools__Profiles__Profile *m = r->m;

	if (m->n_string_table == 0)
		return yi_error(YING_EPARSE, "%s: not a pprof profile: the string table is "
		    "missing", r->name);
	if (m->string_table[0] == NULL || m->string_table[0][0] != '\0')
		return yi_error(YING_EPARSE, "%s: not a pprof profile: string_table[0] must be "
		    "the empty string", r->name);
	return 0;
}

static int
read_sample_types(pr *r)
{
	const Perftools__Profiles__Profile *m = r->m;
	char found[256];
	size_t i, flen = 0;

	r->col[0] = r->col[1] = r->col[2] = r->col[3] = -1;
	found[0] = '\0';
	for (i = 0; i < m->n_sample_type; i++) {
		const Perftools__Profiles__ValueType *vt = m->sample_type[i];
		const char *type, *unit;
		int idx = -1;

		if (vt == NULL)
			return yi_error(YING_EPARSE, "%s: sample_type %zu is empty", r->name, i);
		if ((type = str_at(r, vt->type, "sample_type", i)) == NULL ||
		    (unit = str_at(r, vt->unit, "sample_type", i)) == NULL)
			return YING_EPARSE;
		if (strcmp(type, "inuse_space") == 0 || strcmp(type, "space") == 0)
			idx = YING_INUSE_SPACE;
		else if (strcmp(type, "inuse_objects") == 0 || strcmp(type, "objects") == 0)
			idx = YING_INUSE_OBJECTS;
		else if (strcmp(type, "alloc_space") == 0)
			idx = YING_ALLOC_SPACE;
		else if (strcmp(type, "alloc_objects") == 0)
			idx = YING_ALLOC_OBJECTS;
		if (idx >= 0 && r->col[idx] < 0)
			r->col[idx] = (int)i;
		if (flen < sizeof(found) - 1)
			flen += (size_t)snprintf(found + flen, sizeof(found) - flen, "%s%s/%s",
			    i ? ", " : "", type, unit);
	}
	if (r->col[YING_INUSE_SPACE] < 0 && r->col[YING_ALLOC_SPACE] < 0)
		return yi_error(YING_EPARSE, "%s: not a heap profile: no inuse_space or "
		    "alloc_space sample type (found: %s)", r->name,
		    m->n_sample_type ? found : "none");
	r->p->has_accum = r->col[YING_ALLOC_SPACE] >= 0 || r->col[YING_ALLOC_OBJECTS] >= 0;
	return 0;
}

static int
read_mappings(pr *r)
{
	const Perftools__Profiles__Profile *m = r->m;
	ying_profile *p = r->p;
	size_t i;
	int rc;

	if ((rc = yi_map64_init(&r->map_by_id, m->n_mapping)) != 0)
		return rc;
	for (i = 0; i < m->n_mapping; i++) {
		const Perftools__Profiles__Mapping *pm = m->mapping[i];
		const char *file, *bid;
		yi_mapping ym;
		uint32_t *slot;
		bool added;

		if (pm == NULL || pm->id == 0)
			return yi_error(YING_EPARSE, "%s: mapping %zu has id 0", r->name, i);
		if ((file = str_at(r, pm->filename, "mapping", i)) == NULL ||
		    (bid = str_at(r, pm->build_id, "mapping", i)) == NULL)
			return YING_EPARSE;
		memset(&ym, 0, sizeof(ym));
		ym.start = pm->memory_start;
		ym.end = pm->memory_limit;
		ym.offset = pm->file_offset;
		memcpy(ym.perms, "r-xp", 5);
		ym.exec = 1;
		ym.symbolized = pm->has_functions;
		ym.is_jemalloc = strstr(file, "jemalloc") != NULL;
		if ((rc = yi_strtab_intern(&p->strs, file, strlen(file), &ym.path)) != 0)
			return rc;
		if (*bid && (rc = yi_strtab_intern(&p->strs, bid, strlen(bid), &ym.build_id)) != 0)
			return rc;
		if ((rc = yi_map64_put(&r->map_by_id, pm->id, (uint32_t)p->maps.n, &slot, &added)) != 0)
			return rc;
		if (!added)
			return yi_error(YING_EPARSE, "%s: mapping id %llu is used twice", r->name,
			    (unsigned long long)pm->id);
		if ((rc = yi_vec_grow(&p->maps, 1)) != 0)
			return rc;
		p->maps.v[p->maps.n++] = ym;
	}
	/* profile.proto: mapping[0] is the main binary. */
	if (p->maps.n)
		p->main_map = 0;
	p->has_maps = p->maps.n > 0;
	return 0;
}

static int
read_functions(pr *r)
{
	const Perftools__Profiles__Profile *m = r->m;
	size_t i;
	int rc;

	if ((rc = yi_map64_init(&r->func_by_id, m->n_function)) != 0)
		return rc;
	if ((r->func_model = yi_calloc(m->n_function ? m->n_function : 1,
	    sizeof(*r->func_model))) == NULL)
		return yi_oom("reading pprof functions");
	for (i = 0; i < m->n_function; i++) {
		const Perftools__Profiles__Function *f = m->function[i];
		const char *name, *sys, *file;
		uint32_t *slot;
		bool added;

		if (f == NULL || f->id == 0)
			return yi_error(YING_EPARSE, "%s: function %zu has id 0", r->name, i);
		if ((name = str_at(r, f->name, "function", i)) == NULL ||
		    (sys = str_at(r, f->system_name, "function", i)) == NULL ||
		    (file = str_at(r, f->filename, "function", i)) == NULL)
			return YING_EPARSE;
		if (*name == '\0')
			name = *sys ? sys : "[unknown]";
		if (*sys == '\0')
			sys = name;
		if ((rc = yi_profile_func(r->p, name, sys, file, &r->func_model[i])) != 0)
			return rc;
		if ((rc = yi_map64_put(&r->func_by_id, f->id, (uint32_t)i, &slot, &added)) != 0)
			return rc;
		if (!added)
			return yi_error(YING_EPARSE, "%s: function id %llu is used twice", r->name,
			    (unsigned long long)f->id);
	}
	return 0;
}

static int
read_locations(pr *r)
{
	const Perftools__Profiles__Profile *m = r->m;
	ying_profile *p = r->p;
	size_t i, k;
	int rc;

	if ((rc = yi_map64_init(&r->loc_by_id, m->n_location)) != 0)
		return rc;
	if (m->n_location >= UINT32_MAX - 1)
		return yi_error(YING_ELIMIT, "%s: too many locations", r->name);
	for (i = 0; i < m->n_location; i++) {
		const Perftools__Profiles__Location *l = m->location[i];
		uint32_t *slot, li, mi = UINT32_MAX;
		bool added;

		if (l == NULL || l->id == 0)
			return yi_error(YING_EPARSE, "%s: location %zu has id 0", r->name, i);
		if (l->mapping_id) {
			if ((slot = yi_map64_get(&r->map_by_id, l->mapping_id)) == NULL)
				return yi_error(YING_EPARSE, "%s: location id %llu refers to mapping "
				    "id %llu, which does not exist", r->name,
				    (unsigned long long)l->id, (unsigned long long)l->mapping_id);
			mi = *slot;
		}
		r->lines.n = 0;
		if ((rc = yi_vec_grow(&r->lines, l->n_line)) != 0)
			return rc;
		for (k = 0; k < l->n_line; k++) {
			const Perftools__Profiles__Line *ln = l->line[k];
			if (ln == NULL || (slot = yi_map64_get(&r->func_by_id, ln->function_id)) == NULL)
				return yi_error(YING_EPARSE, "%s: location id %llu, line %zu refers to "
				    "function id %llu, which does not exist", r->name,
				    (unsigned long long)l->id, k,
				    ln ? (unsigned long long)ln->function_id : 0ULL);
			r->lines.v[k].func = r->func_model[*slot];
			r->lines.v[k].line = ln->line > 0 && ln->line <= UINT32_MAX ?
			    (uint32_t)ln->line : 0;
		}
		/* One model location per pprof location: addresses need not be
		 * unique in pprof (0 for synthetic frames), so only the first
		 * location at an address is findable by address. */
		if ((rc = yi_profile_loc_distinct(p, l->address,
		    mi == UINT32_MAX ? -1 : (int32_t)mi, &li)) != 0)
			return rc;
		if (l->n_line == 0 && mi != UINT32_MAX)
			r->bare = true;
		if (l->n_line && (rc = yi_profile_set_lines(p, li, r->lines.v, l->n_line)) != 0)
			return rc;
		if ((rc = yi_map64_put(&r->loc_by_id, l->id, li, &slot, &added)) != 0)
			return rc;
		if (!added)
			return yi_error(YING_EPARSE, "%s: location id %llu is used twice", r->name,
			    (unsigned long long)l->id);
	}
	return 0;
}

static uint64_t
raw_count(double v)
{
	if (!(v > 0))
		return 0;
	if (v >= 18446744073709551615.0)
		return UINT64_MAX;
	return (uint64_t)llround(v);
}

/* Bytes a vector of `elem`-sized elements holds once it has room for
 * `need` (yi_vec_grow's doubling from `cap`). */
static size_t
grown_bytes(size_t cap, size_t need, size_t elem)
{
	size_t c = cap ? cap : 16;

	if (need > SIZE_MAX / 4 / elem)
		return SIZE_MAX / 4;
	while (c < need && c <= SIZE_MAX / 4 / elem)
		c *= 2;
	return (c < need ? need : c) * elem;
}

/* Count sample i's frames against the decode budget before expanding them
 * (issue 22): one packed location_id list of 30 M ids is a 29 KB .pb.gz,
 * and every id costs 4 bytes in the scratch list, 4 in the model's frames
 * and a yi_frame per line of its location when a writer expands the stack
 * (yi_stack_expand, whose buffer grows to the longest stack).  n ids, nexp
 * expanded frames (n, a lower bound, before the ids are looked up; then
 * the count of lines).  What is already spent: the input, protobuf-c's
 * message and the model so far. */
static int
sample_budget(pr *r, size_t i, size_t n, size_t nexp)
{
	const ying_profile *p = r->p;
	size_t have, want;
	char what[96];

	have = r->spent + yi_profile_mem(p);
	want = (n > r->locs.cap ? grown_bytes(r->locs.cap, n, sizeof(uint32_t)) -
	    r->locs.cap * sizeof(uint32_t) : 0) +
	    (p->frames.n + n > p->frames.cap ? grown_bytes(p->frames.cap, p->frames.n + n,
	    sizeof(uint32_t)) - p->frames.cap * sizeof(uint32_t) : 0) +
	    grown_bytes(0, nexp, sizeof(yi_frame));
	if (have > r->budget || want > r->budget - have) {
		snprintf(what, sizeof(what), "sample %zu's %zu frames", i, nexp);
		return yi_budget_error(r->name, what, r->budget);
	}
	return 0;
}

/* One numeric label per profile is kept (the first key other than Go's
 * "bytes", the writers' average size): a `pid` label of a profile summed
 * over a service's processes (ying_profile_merge_labeled) survives a
 * write and a read.  A string label "heap" names the sample's heap
 * (several jemallocs in one dump; the writer's); other string labels are
 * ignored. */
static int
read_heap_label(pr *r, const Perftools__Profiles__Label *l, size_t i)
{
	ying_profile *p = r->p;
	const char *key, *val;

	if ((key = str_at(r, l->key, "sample label of sample", i)) == NULL)
		return YING_EPARSE;
	if (strcmp(key, "heap") != 0)
		return 0;
	if ((val = str_at(r, l->str, "heap label of sample", i)) == NULL)
		return YING_EPARSE;
	if (!yi_heap_name_ok(val, strlen(val)))
		return yi_error(YING_EPARSE, "%s: sample %zu: heap label '%.40s' is not a heap "
		    "name ([a-z0-9_.-], 1 to 32 characters)", r->name, i, val);
	return yi_profile_add_heap(p, val, strlen(val), &p->stacks.v[p->stacks.n - 1].heap);
}

static int
read_label(pr *r, const Perftools__Profiles__Sample *s, size_t i)
{
	ying_profile *p = r->p;
	int rc;

	for (size_t k = 0; k < s->n_label; k++)
		if (s->label[k] != NULL && s->label[k]->str != 0 &&
		    (rc = read_heap_label(r, s->label[k], i)) != 0)
			return rc;
	for (size_t k = 0; k < s->n_label; k++) {
		const Perftools__Profiles__Label *l = s->label[k];
		const char *key;
		uint32_t id;

		if (l == NULL || l->str != 0)
			continue;
		if ((key = str_at(r, l->key, "sample label of sample", i)) == NULL)
			return YING_EPARSE;
		if (key[0] == '\0' || strcmp(key, "bytes") == 0)
			continue;
		if (!p->has_label) {
			if ((rc = yi_strtab_intern(&p->strs, key, strlen(key), &id)) != 0)
				return rc;
			p->has_label = true;
			p->label_key = id;
		} else if (strcmp(yi_profile_str(p, p->label_key), key) != 0) {
			continue;
		}
		p->stacks.v[p->stacks.n - 1].label = l->num;
		return 0;
	}
	return 0;
}

static int
read_samples(pr *r)
{
	const Perftools__Profiles__Profile *m = r->m;
	ying_profile *p = r->p;
	size_t i, k, nexp;
	int rc;

	for (i = 0; i < m->n_sample; i++) {
		const Perftools__Profiles__Sample *s = m->sample[i];
		yi_counts raw;
		double val[4];
		int j;

		if (s == NULL)
			return yi_error(YING_EPARSE, "%s: sample %zu is empty", r->name, i);
		if (s->n_value != m->n_sample_type)
			return yi_error(YING_EPARSE, "%s: sample %zu has %zu values, but there "
			    "are %zu sample types", r->name, i, s->n_value, m->n_sample_type);
		r->locs.n = 0;
		if ((rc = sample_budget(r, i, s->n_location_id, s->n_location_id)) != 0 ||
		    (rc = yi_vec_grow(&r->locs, s->n_location_id)) != 0)
			return rc;
		nexp = 0;
		for (k = 0; k < s->n_location_id; k++) {
			uint32_t *slot = yi_map64_get(&r->loc_by_id, s->location_id[k]);
			if (slot == NULL)
				return yi_error(YING_EPARSE, "%s: sample %zu refers to location id "
				    "%llu, which does not exist", r->name, i,
				    (unsigned long long)s->location_id[k]);
			r->locs.v[r->locs.n++] = *slot;
			if (nexp < SIZE_MAX / 2)     /* saturates: refused below */
				nexp += p->locs.v[*slot].nlines > 1 ? p->locs.v[*slot].nlines : 1;
		}
		/* inline chains: the expansion is longer than the ids */
		if (nexp > r->locs.n && (rc = sample_budget(r, i, r->locs.n, nexp)) != 0)
			return rc;
		for (j = 0; j < 4; j++)
			val[j] = r->col[j] >= 0 ? (double)s->value[r->col[j]] : 0.0;
		raw.objs = raw_count(val[YING_INUSE_OBJECTS]);
		raw.bytes = raw_count(val[YING_INUSE_SPACE]);
		raw.acc_objs = raw_count(val[YING_ALLOC_OBJECTS]);
		raw.acc_bytes = raw_count(val[YING_ALLOC_SPACE]);
		p->header.objs += raw.objs;
		p->header.bytes += raw.bytes;
		p->header.acc_objs += raw.acc_objs;
		p->header.acc_bytes += raw.acc_bytes;
		if ((rc = yi_profile_add_stack(p, r->locs.v, r->locs.n, &raw, val)) != 0)
			return rc;
		if ((rc = read_label(r, s, i)) != 0)
			return rc;
	}
	return yi_profile_heaps_complete(p);
}

static int
read_profile(pr *r)
{
	const Perftools__Profiles__Profile *m = r->m;
	ying_profile *p = r->p;
	int rc;

	if ((rc = check_strings(r)) != 0 ||
	    (rc = read_sample_types(r)) != 0 ||
	    (rc = read_mappings(r)) != 0 ||
	    (rc = read_functions(r)) != 0 ||
	    (rc = read_locations(r)) != 0 ||
	    (rc = read_samples(r)) != 0)
		return rc;
	p->period = m->period > 0 ? (uint64_t)m->period : 1;
	/* 0 = unknown; ying_profile_read_file then uses the file's mtime. */
	p->time = m->time_nanos > 0 ? m->time_nanos / 1000000000 : 0;
	/* A profile with lines for every mapped location (ying's own, Go's)
	 * needs no symbolizer; bare addresses in mappings (with build IDs) do.
	 * Trimming applies either way (ying_profile_symbolize). */
	p->symbolized = !r->bare;
	return 0;
}

/* ---- the pre-count: what unpacking would allocate ------------------------- */

/* One field of protobuf wire data at w[*i..n): its number, wire type and,
 * for LEN fields, the payload.  1 ok, 0 at the end, -1 malformed (unpack
 * then says so). */
static int
wire_next(const uint8_t *w, size_t n, size_t *i, uint64_t *field, unsigned *wt,
    const uint8_t **val, size_t *vlen)
{
	uint64_t key = 0, v = 0;
	unsigned shift;

	if (*i >= n)
		return 0;
	for (shift = 0;; shift += 7) {
		if (*i >= n || shift > 63)
			return -1;
		key |= (uint64_t)(w[*i] & 0x7f) << shift;
		if ((w[(*i)++] & 0x80) == 0)
			break;
	}
	*field = key >> 3;
	*wt = (unsigned)(key & 7);
	*val = w + *i;
	*vlen = 0;
	switch (*wt) {
	case 0:
		while (*i < n && (w[*i] & 0x80))
			(*i)++;
		if (*i >= n)
			return -1;
		(*i)++;
		return 1;
	case 1:
		if (n - *i < 8)
			return -1;
		*i += 8;
		return 1;
	case 5:
		if (n - *i < 4)
			return -1;
		*i += 4;
		return 1;
	case 2:
		for (shift = 0;; shift += 7) {
			if (*i >= n || shift > 63)
				return -1;
			v |= (uint64_t)(w[*i] & 0x7f) << shift;
			if ((w[(*i)++] & 0x80) == 0)
				break;
		}
		*val = w + *i;
		if (v > n - *i) {
			/* cut: the length it claims, for a prefix's caller */
			*vlen = v > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)v;
			return -1;
		}
		*vlen = (size_t)v;
		*i += (size_t)v;
		return 1;
	default:
		return -1;
	}
}

/* Elements of a repeated scalar field: one per unpacked occurrence, one
 * per varint of a packed one (wire type 2). */
static size_t
scalar_count(unsigned wt, const uint8_t *val, size_t vlen)
{
	size_t c = 0, i;

	if (wt != 2)
		return 1;
	for (i = 0; i < vlen; i++)
		c += (val[i] & 0x80) == 0;
	return c;
}

/* An array of n elements of size `elem` and, when `msg`, n messages. */
static size_t
cost(size_t n, size_t elem, size_t msg)
{
	if (n == 0)
		return 0;
	return n * elem + ALLOC_OVERHEAD + n * (msg ? msg + ALLOC_OVERHEAD : 0);
}

/* The bytes protobuf-c would allocate for this Profile, counted from its
 * wire form without allocating (profile.proto: sample 2 {location_id 1,
 * value 2, label 3}, location 4 {line 4}, strings 6...), each element as it
 * comes, so a bomb stops the walk as soon as it passes the budget; `used`
 * is what is already spent (the input).  Also pprof's CheckValid rule that
 * every sample has one value per sample type: an empty sample is two bytes
 * but ~100 decoded, so it is refused here rather than after unpacking
 * millions of them.  Resumable over a growing prefix (read.c's slurp calls
 * it as a file is inflated): with !complete, a field cut by the end of
 * w[0..n) waits for more. */
int
yi_pprof_count_more(yi_pprof_count *c, const void *data, size_t n, bool complete,
    const char *name, size_t used, size_t budget)
{
	/* per element: its pointer in the array, the message, malloc's share */
	const size_t per = sizeof(void *) + ALLOC_OVERHEAD;
	const uint8_t *w = data, *val, *v2;
	size_t i = c->off, vlen, j, vl2, at;
	uint64_t field, f2;
	unsigned wt, wt2;
	int r;

	if (c->total == 0)
		c->total = sizeof(Perftools__Profiles__Profile);
	for (;;) {
		at = i;
		wt = 7;
		vlen = 0;
		if ((r = wire_next(w, n, &i, &field, &wt, &val, &vlen)) != 1) {
			if (r < 0 && !complete) {
				r = 0;     /* maybe a field cut by the prefix's end */
				/* the input must hold all of a cut LEN field */
				c->need_from = wt == 2 ? (size_t)(val - w) : 0;
				c->need = wt == 2 ? c->need_from + vlen : 0;
			}
			i = at;
			break;
		}
		switch (field) {
		case 1:
			c->ntypes++;
			c->total += per + sizeof(Perftools__Profiles__ValueType);
			break;
		case 3: c->total += per + sizeof(Perftools__Profiles__Mapping); break;
		case 5: c->total += per + sizeof(Perftools__Profiles__Function); break;
		case 6: c->total += sizeof(char *) + vlen + 1 + ALLOC_OVERHEAD; break;
		case 13: c->total += sizeof(int64_t) * scalar_count(wt, val, vlen); break;
		case 2: {
			size_t nl = 0, nv = 0, nlab = 0;
			if (wt != 2)
				break;
			j = 0;
			while (wire_next(val, vlen, &j, &f2, &wt2, &v2, &vl2) == 1) {
				if (f2 == 1)
					nl += scalar_count(wt2, v2, vl2);
				else if (f2 == 2)
					nv += scalar_count(wt2, v2, vl2);
				else if (f2 == 3)
					nlab++;
			}
			/* fewer values than the sample types seen so far: never valid */
			if (nv < c->ntypes)
				return yi_error(YING_EPARSE, "%s: sample %zu has %zu values, but "
				    "there are %zu sample types", name, c->nsample, nv, c->ntypes);
			if (c->nsample == 0)
				c->first_values = nv;
			else if (nv != c->first_values && !c->bad) {
				c->bad = true;
				c->bad_sample = c->nsample;
				c->bad_values = nv;
			}
			c->nsample++;
			c->total += per + sizeof(Perftools__Profiles__Sample) +
			    cost(nl, sizeof(uint64_t), 0) + cost(nv, sizeof(int64_t), 0) +
			    cost(nlab, sizeof(void *), sizeof(Perftools__Profiles__Label));
			break;
		}
		case 4: {
			size_t nline = 0;
			if (wt != 2)
				break;
			j = 0;
			while (wire_next(val, vlen, &j, &f2, &wt2, &v2, &vl2) == 1)
				nline += f2 == 4;
			c->total += per + sizeof(Perftools__Profiles__Location) +
			    cost(nline, sizeof(void *), sizeof(Perftools__Profiles__Line));
			break;
		}
		default:
			break;
		}
		if (c->total > budget || used > budget - c->total)
			return yi_budget_error(name, "the decoded profile", budget);
	}
	c->off = i;
	if (!complete || r != 0 || c->ntypes == 0 || c->nsample == 0)
		return 0;           /* unpack or the checks after it say what is wrong */
	if (c->first_values != c->ntypes) {
		c->bad = true;
		c->bad_sample = 0;
		c->bad_values = c->first_values;
	}
	if (c->bad)
		return yi_error(YING_EPARSE, "%s: sample %zu has %zu values, but there are %zu "
		    "sample types", name, c->bad_sample, c->bad_values, c->ntypes);
	return 0;
}

int
yi_pprof_parse(ying_profile **out, const void *data, size_t len, const char *name)
{
	yi_pprof_count c;

	memset(&c, 0, sizeof(c));
	return yi_pprof_parse_counted(out, data, len, name, &c);
}

int
yi_pprof_parse_counted(ying_profile **out, const void *data, size_t len, const char *name,
    yi_pprof_count *c)
{
	Perftools__Profiles__Profile *m;
	pb_budget pb = { 0, 0, false, false };
	ProtobufCAllocator pb_allocator = { pb_alloc, pb_free, &pb };
	size_t budget;
	pr r;
	int rc;

	if (out == NULL)
		return yi_error(YING_EINVAL, "no output pointer");
	*out = NULL;
	if (name == NULL)
		name = "(memory)";
	if (data == NULL && len)
		return yi_error(YING_EINVAL, "no input buffer");
	if (len == 0)
		return yi_error(YING_EPARSE, "%s: empty input", name);
	if ((rc = yi_read_budget(&budget)) != 0)
		return rc;
	/* the input itself is part of what decoding holds; the count goes on
	 * from where a caller's prefix count stopped */
	if ((rc = yi_pprof_count_more(c, data, len, true, name, len, budget)) != 0)
		return rc;
	pb.budget = budget > len ? budget - len : 0;
	m = perftools__profiles__profile__unpack(&pb_allocator, len, data);
	if (m == NULL) {
		if (pb.over)
			return yi_budget_error(name, "the decoded profile", budget);
		if (pb.oom)
			return yi_oom("decoding a pprof profile");
		return yi_error(YING_EPARSE, "%s: not a valid pprof profile.proto message "
		    "(truncated or corrupt protobuf data, %zu bytes)", name, len);
	}
	memset(&r, 0, sizeof(r));
	r.name = name;
	r.m = m;
	r.spent = len + pb.used;
	r.budget = budget;
	if ((rc = yi_profile_new(&r.p, name)) == 0) {
		r.p->format = YI_FMT_PPROF;
		rc = read_profile(&r);
	}
	yi_map64_release(&r.loc_by_id);
	yi_map64_release(&r.func_by_id);
	yi_map64_release(&r.map_by_id);
	yi_free(r.func_model);
	yi_vec_free(&r.lines);
	yi_vec_free(&r.locs);
	perftools__profiles__profile__free_unpacked(m, &pb_allocator);
	if (rc != 0) {
		ying_profile_free(r.p);
		return rc;
	}
	*out = r.p;
	return 0;
}
