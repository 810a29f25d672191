/*
 * test_pprof.c: the pprof writer and reader.
 *
 * Profiles written from real dumps are decoded again with protobuf-c and
 * held to profile.proto's rules and to what `go tool pprof` expects:
 * string_table[0] == "", nonzero unique ids, every reference resolves, one
 * value per sample type in Go's order, totals equal ying_profile_total,
 * mapping[0] is the main binary with its GNU build ID, inline chains
 * innermost first.  A live dump of tests/programs/pprof_alloc (known
 * allocations in named functions) checks values per function, inline
 * frames and build IDs against the binary itself.  The reader must give the
 * same totals back, and must reject truncated, corrupt or inconsistent
 * protobuf input with YING_EPARSE (never crash).
 */
#include <elf.h>
#include <limits.h>
#include <unistd.h>

#include "internal.h"
#include "tap.h"
#include "proto/profile.pb-c.h"

typedef Perftools__Profiles__Profile PB;

/* ---- helpers ----------------------------------------------------------- */

static int
write_pb(ying_profile *p, int unsym, int keep, int gzip, ying_membuf *mb)
{
	ying_pprof_opts o = YING_PPROF_OPTS_INIT;

	o.unsymbolized = unsym;
	o.keep_allocator_frames = keep;
	o.gzip = gzip;
	memset(mb, 0, sizeof(*mb));
	return ying_profile_write_pprof(p, &o, ying_write_membuf, mb);
}

/* Decode (gunzipping when needed); NULL on failure. */
static PB *
decode(const ying_membuf *mb)
{
	void *plain = NULL;
	size_t plen = 0;
	PB *m;

	if (yi_is_gzip(mb->data, mb->len)) {
		if (yi_gunzip(mb->data, mb->len, (size_t)1 << 31, &plain, &plen, "t") != 0)
			return NULL;
		m = perftools__profiles__profile__unpack(NULL, plen, plain);
		yi_free(plain);
		return m;
	}
	return perftools__profiles__profile__unpack(NULL, mb->len, (const uint8_t *)mb->data);
}

static const char *
S(const PB *m, int64_t i)
{
	if (i < 0 || (size_t)i >= m->n_string_table)
		return NULL;
	return m->string_table[i];
}

static const Perftools__Profiles__Location *
find_loc(const PB *m, uint64_t id)
{
	size_t i;
	for (i = 0; i < m->n_location; i++)
		if (m->location[i]->id == id)
			return m->location[i];
	return NULL;
}

static const Perftools__Profiles__Function *
find_func(const PB *m, uint64_t id)
{
	size_t i;
	for (i = 0; i < m->n_function; i++)
		if (m->function[i]->id == id)
			return m->function[i];
	return NULL;
}

static const Perftools__Profiles__Mapping *
find_map(const PB *m, uint64_t id)
{
	size_t i;
	for (i = 0; i < m->n_mapping; i++)
		if (m->mapping[i]->id == id)
			return m->mapping[i];
	return NULL;
}

/* Index of a sample type by name, -1 if absent. */
static int
type_index(const PB *m, const char *name)
{
	size_t i;
	for (i = 0; i < m->n_sample_type; i++) {
		const char *t = S(m, m->sample_type[i]->type);
		if (t && strcmp(t, name) == 0)
			return (int)i;
	}
	return -1;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts ids in place. */
static int
ids_unique(uint64_t *ids, size_t n)
{
	size_t i;
	qsort(ids, n, sizeof(*ids), cmp_u64);
	for (i = 0; i < n; i++)
		if (ids[i] == 0 || (i && ids[i] == ids[i - 1]))
			return 0;
	return 1;
}

/* Leaf function name of a sample (first line of its first location). */
static const char *
leaf_name(const PB *m, const Perftools__Profiles__Sample *s)
{
	const Perftools__Profiles__Location *l;
	const Perftools__Profiles__Function *f;

	if (s->n_location_id == 0 || (l = find_loc(m, s->location_id[0])) == NULL ||
	    l->n_line == 0 || (f = find_func(m, l->line[0]->function_id)) == NULL)
		return "";
	return S(m, f->name);
}

/* Does any frame of the sample (any inline line) name `fn`? */
static int
sample_has(const PB *m, const Perftools__Profiles__Sample *s, const char *fn)
{
	size_t i, k;
	for (i = 0; i < s->n_location_id; i++) {
		const Perftools__Profiles__Location *l = find_loc(m, s->location_id[i]);
		for (k = 0; l && k < l->n_line; k++) {
			const Perftools__Profiles__Function *f = find_func(m, l->line[k]->function_id);
			if (f && strcmp(S(m, f->name), fn) == 0)
				return 1;
		}
	}
	return 0;
}

static double
sum_type(const PB *m, int col)
{
	double t = 0;
	size_t i;
	for (i = 0; col >= 0 && i < m->n_sample; i++)
		t += (double)m->sample[i]->value[col];
	return t;
}

/*
 * Every structural rule of profile.proto and of this writer.  `what`
 * prefixes the test names.
 */
static void
check_rules(ying_profile *p, const PB *m, int unsym, const char *what)
{
	static const char *const go_order[4] = {
		"alloc_objects", "alloc_space", "inuse_objects", "inuse_space"
	};
	char t[256];
	size_t i, k, bad = 0, badref = 0, badval = 0, badlab = 0;
	uint64_t *ids;
	double total;

#define T(s) (snprintf(t, sizeof(t), "%s: %s", what, s), t)
	ok(m->n_string_table > 0 && strcmp(m->string_table[0], "") == 0, T("string_table[0] is \"\""));
	{
		char **sorted = malloc(m->n_string_table * sizeof(*sorted) + 1);
		memcpy(sorted, m->string_table, m->n_string_table * sizeof(*sorted));
		qsort(sorted, m->n_string_table, sizeof(*sorted), cmp_str);
		for (i = 1; i < m->n_string_table; i++)
			if (strcmp(sorted[i], sorted[i - 1]) == 0)
				bad++;
		free(sorted);
	}
	is_int(bad, 0, T("strings are deduplicated"));

	/* sample types, in Go's order */
	is_int(m->n_sample_type, p->has_accum ? 4 : 2, T("number of sample types"));
	for (i = 0; i < m->n_sample_type && i < 4; i++) {
		const char *want = go_order[i + (p->has_accum ? 0 : 2)];
		const char *unit = strstr(want, "space") ? "bytes" : "count";
		if (!S(m, m->sample_type[i]->type) || strcmp(S(m, m->sample_type[i]->type), want) ||
		    !S(m, m->sample_type[i]->unit) || strcmp(S(m, m->sample_type[i]->unit), unit))
			bad++;
	}
	is_int(bad, 0, T("sample types alloc_objects/count, alloc_space/bytes, inuse_objects/count, inuse_space/bytes"));
	is_str(S(m, m->default_sample_type), "inuse_space", T("default_sample_type"));
	ok(m->period_type && S(m, m->period_type->type) && strcmp(S(m, m->period_type->type), "space") == 0 &&
	    strcmp(S(m, m->period_type->unit), "bytes") == 0, T("period_type space/bytes"));
	is_int(m->period, (long long)p->period, T("period"));
	is_int(m->time_nanos, (long long)p->time * 1000000000LL, T("time_nanos"));

	/* ids */
	ids = calloc(m->n_mapping + m->n_location + m->n_function + 1, sizeof(*ids));
	for (i = 0; i < m->n_mapping; i++)
		ids[i] = m->mapping[i]->id;
	ok(ids_unique(ids, m->n_mapping), T("mapping ids nonzero and unique"));
	for (i = 0; i < m->n_location; i++)
		ids[i] = m->location[i]->id;
	ok(ids_unique(ids, m->n_location), T("location ids nonzero and unique"));
	for (i = 0; i < m->n_function; i++)
		ids[i] = m->function[i]->id;
	ok(ids_unique(ids, m->n_function), T("function ids nonzero and unique"));
	free(ids);

	/* references */
	for (i = 0; i < m->n_location; i++) {
		const Perftools__Profiles__Location *l = m->location[i];
		if (l->mapping_id && !find_map(m, l->mapping_id))
			badref++;
		for (k = 0; k < l->n_line; k++)
			if (!find_func(m, l->line[k]->function_id))
				badref++;
		if (unsym && l->n_line)
			bad++;
	}
	for (i = 0; i < m->n_function; i++) {
		const Perftools__Profiles__Function *f = m->function[i];
		if (!S(m, f->name) || !S(m, f->system_name) || !S(m, f->filename))
			badref++;
	}
	for (i = 0; i < m->n_mapping; i++) {
		const Perftools__Profiles__Mapping *mp = m->mapping[i];
		if (!S(m, mp->filename) || !S(m, mp->build_id))
			badref++;
		if (unsym && (mp->has_functions || mp->has_filenames || mp->has_line_numbers ||
		    mp->has_inline_frames))
			bad++;
	}
	for (i = 0; i < m->n_sample; i++) {
		const Perftools__Profiles__Sample *s = m->sample[i];
		if (s->n_value != m->n_sample_type)
			badval++;
		for (k = 0; k < s->n_location_id; k++)
			if (!find_loc(m, s->location_id[k]))
				badref++;
		if (s->n_location_id == 0)
			badref++;
		for (k = 0; k < s->n_label; k++) {
			const Perftools__Profiles__Label *lb = s->label[k];
			if (!S(m, lb->key) || strcmp(S(m, lb->key), "bytes") || lb->num <= 0 ||
			    !S(m, lb->num_unit) || strcmp(S(m, lb->num_unit), "bytes"))
				badlab++;
		}
	}
	is_int(badref, 0, T("every id and string reference resolves"));
	is_int(badval, 0, T("each sample has one value per sample type"));
	is_int(badlab, 0, T("labels: numeric 'bytes' in bytes"));
	if (unsym) {
		is_int(m->n_function, 0, T("unsymbolized: no functions"));
		is_int(bad, 0, T("unsymbolized: no lines, has_* flags false"));
	} else {
		ok(m->n_function > 0, T("symbolized: functions present"));
	}
	is_int(m->n_sample, p->stacks.n, T("one sample per stack"));

	/* totals, per sample type */
	for (i = 0; i < 4; i++) {
		ying_sample_index idx = (ying_sample_index)i;
		int col = type_index(m, ying_sample_index_name(idx));
		if (ying_profile_total(p, idx, &total) != 0) {
			is_int(col, -1, T("no column for an index the dump lacks"));
			continue;
		}
		/* values are truncated per sample */
		snprintf(t, sizeof(t), "%s: %s total = ying_profile_total", what,
		    ying_sample_index_name(idx));
		is_near(sum_type(m, col), total, (double)p->stacks.n + 0.5, t);
	}

	/* mapping[0] is the main binary */
	if (p->main_map >= 0) {
		ok(m->n_mapping > 0 && strcmp(S(m, m->mapping[0]->filename), ying_profile_program(p)) == 0,
		    T("mapping[0] is the main executable"));
		ok(m->n_mapping > 0 && m->mapping[0]->memory_limit > m->mapping[0]->memory_start,
		    T("mapping[0] has a real address range"));
	}
#undef T
}

/* GNU build ID of an ELF file as lowercase hex, read with <elf.h> only
 * (independent of the symbolizer's libdw code). */
static int
file_build_id(const char *path, char *out, size_t outlen)
{
	size_t len;
	char *d = tap_slurp(path, &len);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)d;
	int found = 0, i;

	out[0] = '\0';
	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > len) {
		free(d);
		return 0;
	}
	for (i = 0; i < eh->e_shnum && !found; i++) {
		const Elf64_Shdr *sh = (const Elf64_Shdr *)(d + eh->e_shoff) + i;
		size_t off = sh->sh_offset;
		if (sh->sh_type != SHT_NOTE || sh->sh_offset + sh->sh_size > len)
			continue;
		while (off + sizeof(Elf64_Nhdr) <= sh->sh_offset + sh->sh_size) {
			const Elf64_Nhdr *nh = (const Elf64_Nhdr *)(d + off);
			size_t name_off = off + sizeof(*nh);
			size_t desc_off = name_off + ((nh->n_namesz + 3) & ~3u);
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(d + name_off, "GNU", 4) == 0 && desc_off + nh->n_descsz <= len) {
				size_t k, o = 0;
				for (k = 0; k < nh->n_descsz && o + 3 < outlen; k++)
					o += (size_t)snprintf(out + o, outlen - o, "%02x",
					    (unsigned char)d[desc_off + k]);
				found = 1;
				break;
			}
			off = desc_off + ((nh->n_descsz + 3) & ~3u);
		}
	}
	free(d);
	return found;
}

/* ---- fixtures: real dumps of tests/data ---------------------------------- */

static void
test_fixture(const char *file)
{
	ying_profile *p = NULL, *q = NULL;
	ying_membuf mb, raw, un, kp;
	PB *m;
	char what[128];
	int rc;
	size_t i;
	double a, b;

	rc = ying_profile_read_file(&p, tap_data(file));
	snprintf(what, sizeof(what), "%s parses", file);
	is_int(rc, 0, what);
	if (p == NULL)
		return;

	/* symbolized, gzipped */
	rc = write_pb(p, 0, 0, 1, &mb);
	snprintf(what, sizeof(what), "%s: write pprof", file);
	is_int(rc, 0, what);
	ok(yi_is_gzip(mb.data, mb.len), "output is gzipped by default");
	m = decode(&mb);
	snprintf(what, sizeof(what), "%s: decodes with protobuf-c", file);
	ok(m != NULL, what);
	if (m) {
		check_rules(p, m, 0, file);
		perftools__profiles__profile__free_unpacked(m, NULL);
	}

	/* the reader gives the same profile back */
	rc = ying_profile_read_mem(&q, mb.data, mb.len, "roundtrip.pb.gz");
	snprintf(what, sizeof(what), "%s: round trip parses", file);
	is_int(rc, 0, what);
	if (q) {
		is_int(q->format, YI_FMT_PPROF, "round trip: format is pprof");
		is_u64(q->period, p->period, "round trip: period");
		is_int(q->has_accum, p->has_accum, "round trip: has_accum");
		is_int(q->stacks.n, p->stacks.n, "round trip: stacks");
		is_int(q->time, p->time, "round trip: time");
		for (i = 0; i < 4; i++) {
			if (ying_profile_total(p, (ying_sample_index)i, &a) != 0)
				continue;
			ok(ying_profile_total(q, (ying_sample_index)i, &b) == 0 &&
			    fabs(a - b) <= (double)p->stacks.n + 0.5, "round trip: equal totals");
		}
		ok(q->main_map == 0 && strcmp(ying_profile_program(q), ying_profile_program(p)) == 0,
		    "round trip: main program");
		/* same frames, by name, for every stack */
		{
			yi_framevec fa = { 0 }, fb = { 0 };
			size_t bad = 0, k;
			ying_profile_symbolize(q, NULL, NULL);
			for (i = 0; i < p->stacks.n; i++) {
				long na = yi_stack_expand(p, &p->stacks.v[i], &fa);
				long nb = yi_stack_expand(q, &q->stacks.v[i], &fb);
				if (na != nb) {
					bad++;
					continue;
				}
				for (k = 0; k < (size_t)na; k++) {
					if (strcmp(yi_profile_str(p, p->funcs.v[fa.v[k].func].name),
					    yi_profile_str(q, q->funcs.v[fb.v[k].func].name)) ||
					    fa.v[k].line != fb.v[k].line)
						bad++;
				}
			}
			is_int(bad, 0, "round trip: same frames (names, lines) in every stack");
			yi_vec_free(&fa);
			yi_vec_free(&fb);
		}
		ying_profile_free(q);
		q = NULL;
	}

	/* uncompressed */
	rc = write_pb(p, 0, 0, 0, &raw);
	ok(rc == 0 && !yi_is_gzip(raw.data, raw.len), "--no-gzip output is plain protobuf");
	ok(rc == 0 && (m = decode(&raw)) != NULL, "plain output decodes");
	if (rc == 0 && m) {
		perftools__profiles__profile__free_unpacked(m, NULL);
		rc = yi_pprof_parse(&q, raw.data, raw.len, "plain");
		is_int(rc, 0, "plain output parses with yi_pprof_parse");
		ying_profile_free(q);
		q = NULL;
	}

	/* truncated and corrupt input */
	{
		size_t cuts[] = { 1, 7, raw.len / 3, raw.len / 2, raw.len - 1 };
		size_t bad = 0, crashes_avoided = 0;
		unsigned seed = 12345;
		char *copy = malloc(raw.len);
		for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
			rc = yi_pprof_parse(&q, raw.data, cuts[i], "cut");
			if (rc != YING_EPARSE || q != NULL)
				bad++;
			ying_profile_free(q);
			q = NULL;
		}
		is_int(bad, 0, "truncated protobuf -> YING_EPARSE");
		has_str(ying_last_error(), "cut:", "message names the input");
		/* random byte flips: either a valid profile or EPARSE, never a crash */
		for (i = 0; i < 3000; i++) {
			size_t nflip = 1 + i % 4, k;
			memcpy(copy, raw.data, raw.len);
			for (k = 0; k < nflip; k++) {
				seed = seed * 1103515245u + 12345u;
				copy[(seed >> 8) % raw.len] ^= (char)(1u << ((seed >> 4) & 7));
			}
			rc = yi_pprof_parse(&q, copy, raw.len, "flip");
			if (rc != 0 && rc != YING_EPARSE && rc != YING_ELIMIT)
				bad++;
			else
				crashes_avoided++;
			ying_profile_free(q);
			q = NULL;
		}
		is_int(bad, 0, "3000 corrupted inputs: each parses or fails with YING_EPARSE");
		free(copy);
	}

	/* unsymbolized: addresses and mappings only */
	rc = write_pb(p, 1, 0, 1, &un);
	is_int(rc, 0, "unsymbolized write");
	if (rc == 0 && (m = decode(&un)) != NULL) {
		size_t outside = 0;
		check_rules(p, m, 1, "unsymbolized");
		for (i = 0; i < m->n_location; i++) {
			const Perftools__Profiles__Location *l = m->location[i];
			const Perftools__Profiles__Mapping *mp = find_map(m, l->mapping_id);
			if (l->address && (!mp || l->address < mp->memory_start ||
			    l->address >= mp->memory_limit))
				outside++;
		}
		ok(outside * 10 <= m->n_location, "unsymbolized: addresses lie inside their mappings");
		perftools__profiles__profile__free_unpacked(m, NULL);
	}

	/* keep allocator frames: every frame of every stack */
	rc = write_pb(p, 0, 1, 1, &kp);
	is_int(rc, 0, "keep-allocator-frames write");
	if (rc == 0 && (m = decode(&kp)) != NULL) {
		size_t bad = 0;
		check_rules(p, m, 0, "keep-allocator-frames");
		for (i = 0; i < m->n_sample && i < p->stacks.n; i++) {
			size_t want = p->stacks.v[i].nframes ? p->stacks.v[i].nframes : 1;
			if (m->sample[i]->n_location_id != want)
				bad++;
		}
		is_int(bad, 0, "keep-allocator-frames: all frames written");
		perftools__profiles__profile__free_unpacked(m, NULL);
	}

	ying_membuf_release(&mb);
	ying_membuf_release(&raw);
	ying_membuf_release(&un);
	ying_membuf_release(&kp);
	ying_profile_free(p);
}

/* ---- allocation failures: every one is YING_ENOMEM, nothing leaks ------ */

extern long yi_alloc_fail_countdown;

static void
test_oom(void)
{
	ying_profile *p = NULL, *q = NULL;
	ying_membuf mb = YING_MEMBUF_INIT, plain = YING_MEMBUF_INIT;
	ying_pprof_opts o = YING_PPROF_OPTS_INIT;
	long n, bad = 0, tries = 0;
	int rc;

	if (ying_profile_read_file(&p, tap_data("heap_accum.heap")) != 0 ||
	    yi_profile_ensure_symbolized(p) != 0) {
		ok(0, "oom: fixture");
		return;
	}
	o.gzip = 0;
	for (n = 1;; n++) {
		ying_membuf_release(&mb);
		memset(&mb, 0, sizeof(mb));
		yi_alloc_fail_countdown = n;
		rc = ying_profile_write_pprof(p, NULL, ying_write_membuf, &mb);
		yi_alloc_fail_countdown = 0;
		if (rc == 0)
			break;
		tries++;
		if (rc != YING_ENOMEM)
			bad++;
	}
	ok(tries > 5 && bad == 0, "writer: each failed allocation gives YING_ENOMEM");
	rc = ying_profile_write_pprof(p, &o, ying_write_membuf, &plain);
	is_int(rc, 0, "oom: plain output for the reader");
	for (n = 1, tries = bad = 0;; n++) {
		yi_alloc_fail_countdown = n;
		rc = yi_pprof_parse(&q, plain.data, plain.len, "oom");
		yi_alloc_fail_countdown = 0;
		if (rc == 0)
			break;
		tries++;
		if (rc != YING_ENOMEM || q != NULL)
			bad++;
	}
	ok(tries > 5 && bad == 0, "reader: each failed allocation gives YING_ENOMEM");
	ying_profile_free(q);
	ying_membuf_release(&mb);
	ying_membuf_release(&plain);
	ying_profile_free(p);
}

/* ---- negative values (what the diff writer produces) ------------------- */

static void
test_negative(void)
{
	ying_profile *p = NULL;
	ying_membuf mb;
	PB *m;
	int rc;

	if (ying_profile_read_file(&p, tap_data("heap_exact.heap")) != 0) {
		ok(0, "heap_exact parses");
		return;
	}
	yi_profile_ensure_symbolized(p);
	p->stacks.v[0].val[YING_INUSE_SPACE] = -4096.7;
	p->stacks.v[0].val[YING_INUSE_OBJECTS] = -2;
	memset(&mb, 0, sizeof(mb));
	rc = yi_pprof_write(p, NULL, ying_write_membuf, &mb);
	is_int(rc, 0, "yi_pprof_write with negative values");
	if (rc == 0 && (m = decode(&mb)) != NULL) {
		int cs = type_index(m, "inuse_space"), co = type_index(m, "inuse_objects");
		is_int(m->sample[0]->value[cs], -4096, "negative bytes truncated toward zero");
		is_int(m->sample[0]->value[co], -2, "negative objects");
		ok(m->sample[0]->n_label == 1 && m->sample[0]->label[0]->num == 2048,
		    "average size label from negative pair");
		perftools__profiles__profile__free_unpacked(m, NULL);
	}
	ying_membuf_release(&mb);
	ying_profile_free(p);
}

/* ---- hand-made protobuf input ------------------------------------------- */

static int
parse_msg(PB *m, const char *name)
{
	size_t n = perftools__profiles__profile__get_packed_size(m);
	uint8_t *buf = malloc(n + 1);
	ying_profile *p = NULL;
	int rc;

	perftools__profiles__profile__pack(m, buf);
	rc = yi_pprof_parse(&p, buf, n, name);
	if (rc != 0 && p != NULL)
		rc = 99;    /* out must be NULL on failure */
	ying_profile_free(p);
	free(buf);
	return rc;
}

static void
test_handmade(void)
{
	/* A small valid Go-style heap profile, then broken variants. */
	char *strs[] = { "", "alloc_objects", "count", "alloc_space", "bytes",
		"inuse_objects", "inuse_space", "main.work", "work.go", "/bin/prog", "cpu",
		"nanoseconds", "space", "objects" };
	Perftools__Profiles__ValueType vt[4], *vtp[4];
	Perftools__Profiles__Function fn = PERFTOOLS__PROFILES__FUNCTION__INIT, *fnp = &fn;
	Perftools__Profiles__Line ln = PERFTOOLS__PROFILES__LINE__INIT, *lnp = &ln;
	Perftools__Profiles__Location loc = PERFTOOLS__PROFILES__LOCATION__INIT, *locp = &loc;
	Perftools__Profiles__Mapping map = PERFTOOLS__PROFILES__MAPPING__INIT, *mapp = &map;
	Perftools__Profiles__Sample smp = PERFTOOLS__PROFILES__SAMPLE__INIT, *smpp = &smp;
	PB m = PERFTOOLS__PROFILES__PROFILE__INIT;
	uint64_t locids[1] = { 7 };
	int64_t vals[4] = { 10, 1000, 4, 400 };
	ying_profile *p = NULL;
	size_t n, i;
	uint8_t *buf;
	double t;
	int rc;

	for (i = 0; i < 4; i++) {
		perftools__profiles__value_type__init(&vt[i]);
		vt[i].type = (int64_t)(1 + 2 * i);
		vt[i].unit = i % 2 ? 4 : 2;
		vtp[i] = &vt[i];
	}
	vt[2].type = 5;  /* inuse_objects */
	vt[3].type = 6;  /* inuse_space */
	fn.id = 3; fn.name = 7; fn.system_name = 7; fn.filename = 8;
	ln.function_id = 3; ln.line = 42;
	loc.id = 7; loc.mapping_id = 1; loc.address = 0x401234; loc.n_line = 1; loc.line = &lnp;
	map.id = 1; map.memory_start = 0x400000; map.memory_limit = 0x500000; map.filename = 9;
	map.has_functions = 1;
	smp.n_location_id = 1; smp.location_id = locids; smp.n_value = 4; smp.value = vals;
	m.n_sample_type = 4; m.sample_type = vtp;
	m.n_sample = 1; m.sample = &smpp;
	m.n_mapping = 1; m.mapping = &mapp;
	m.n_location = 1; m.location = &locp;
	m.n_function = 1; m.function = &fnp;
	m.n_string_table = sizeof(strs) / sizeof(strs[0]); m.string_table = strs;
	m.period = 524288;
	m.time_nanos = 1700000000123456789LL;

	n = perftools__profiles__profile__get_packed_size(&m);
	buf = malloc(n);
	perftools__profiles__profile__pack(&m, buf);
	rc = ying_profile_read_mem(&p, buf, n, "go.pb");
	is_int(rc, 0, "Go-style heap profile parses via ying_profile_read_mem");
	if (p) {
		is_u64(p->period, 524288, "period from the profile");
		ok(p->has_accum, "alloc_* types -> has_accum");
		is_int(p->time, 1700000000, "time from time_nanos");
		ok(ying_profile_total(p, YING_INUSE_SPACE, &t) == 0 && t == 400, "inuse_space by name");
		ok(ying_profile_total(p, YING_ALLOC_OBJECTS, &t) == 0 && t == 10, "alloc_objects by name");
		ok(ying_profile_total(p, YING_INUSE_OBJECTS, &t) == 0 && t == 4, "inuse_objects by name");
		is_str(ying_profile_program(p), "/bin/prog", "mapping[0] is the program");
		ok(p->locs.n == 1 && p->locs.v[0].addr == 0x401234 && p->locs.v[0].nlines == 1,
		    "location with its line");
		is_str(yi_profile_str(p, p->funcs.v[p->lines.v[p->locs.v[0].line_off].func].name),
		    "main.work", "function name");
		is_int(p->lines.v[p->locs.v[0].line_off].line, 42, "line number");
		ying_profile_free(p);
		p = NULL;
	}
	free(buf);

	/* legacy names "space"/"objects" */
	vt[2].type = 13; vt[3].type = 12;
	m.n_sample_type = 2; m.sample_type = &vtp[2];
	smp.n_value = 2; smp.value = &vals[2];
	n = perftools__profiles__profile__get_packed_size(&m);
	buf = malloc(n);
	perftools__profiles__profile__pack(&m, buf);
	rc = yi_pprof_parse(&p, buf, n, "legacy.pb");
	is_int(rc, 0, "legacy space/objects profile parses");
	if (p) {
		ok(!p->has_accum, "no alloc_* types -> no accum");
		ok(ying_profile_total(p, YING_INUSE_SPACE, &t) == 0 && t == 400, "'space' read as inuse_space");
		ying_profile_free(p);
		p = NULL;
	}
	free(buf);
	vt[2].type = 5; vt[3].type = 6;
	m.n_sample_type = 4; m.sample_type = vtp;
	smp.n_value = 4; smp.value = vals;

	is_int(parse_msg(&m, "ok"), 0, "restored message parses");

	strs[0] = "x";
	is_int(parse_msg(&m, "s0"), YING_EPARSE, "string_table[0] != \"\" -> EPARSE");
	has_str(ying_last_error(), "string_table[0]", "message names string_table[0]");
	strs[0] = "";

	smp.n_value = 3;
	is_int(parse_msg(&m, "nval"), YING_EPARSE, "value count != sample types -> EPARSE");
	has_str(ying_last_error(), "3 values", "message gives the count");
	smp.n_value = 4;

	locids[0] = 8;
	is_int(parse_msg(&m, "locid"), YING_EPARSE, "unknown location id -> EPARSE");
	has_str(ying_last_error(), "location id 8", "message names the id");
	locids[0] = 7;

	ln.function_id = 4;
	is_int(parse_msg(&m, "fnid"), YING_EPARSE, "unknown function id -> EPARSE");
	ln.function_id = 3;

	loc.mapping_id = 2;
	is_int(parse_msg(&m, "mapid"), YING_EPARSE, "unknown mapping id -> EPARSE");
	loc.mapping_id = 1;

	loc.id = 0;
	is_int(parse_msg(&m, "loc0"), YING_EPARSE, "location id 0 -> EPARSE");
	loc.id = 7;

	fn.name = 99;
	is_int(parse_msg(&m, "stridx"), YING_EPARSE, "string index out of range -> EPARSE");
	has_str(ying_last_error(), "string 99", "message names the index");
	fn.name = 7;

	fn.filename = -1;
	is_int(parse_msg(&m, "strneg"), YING_EPARSE, "negative string index -> EPARSE");
	fn.filename = 8;

	{
		Perftools__Profiles__Location *two[2] = { &loc, &loc };
		m.n_location = 2; m.location = two;
		is_int(parse_msg(&m, "dup"), YING_EPARSE, "duplicate location id -> EPARSE");
		has_str(ying_last_error(), "used twice", "message says duplicate");
		m.n_location = 1; m.location = &locp;
	}

	vt[0].type = 10; vt[0].unit = 11;
	m.n_sample_type = 1; smp.n_value = 1;
	is_int(parse_msg(&m, "cpu"), YING_EPARSE, "CPU profile -> EPARSE");
	has_str(ying_last_error(), "cpu/nanoseconds", "message lists the types found");
	vt[0].type = 1; vt[0].unit = 2;
	m.n_sample_type = 4; smp.n_value = 4;

	m.n_string_table = 0;
	is_int(parse_msg(&m, "nostr"), YING_EPARSE, "no string table -> EPARSE");
	m.n_string_table = sizeof(strs) / sizeof(strs[0]);

	is_int(yi_pprof_parse(&p, "\x0a\xff\xff\xff\xff\x0f", 6, "junk"), YING_EPARSE,
	    "length beyond the input -> EPARSE");
	ok(p == NULL, "out is NULL on failure");
	is_int(yi_pprof_parse(&p, "", 0, "empty"), YING_EPARSE, "empty input -> EPARSE");
	is_int(yi_pprof_parse(&p, "\x08\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80", 11, "varint"),
	    YING_EPARSE, "overlong varint -> EPARSE");
}

/* ---- live: a real program's dump, symbolized against its binary --------- */

static void
test_live(void)
{
	const char *bdir = getenv("YING_BUILDDIR");
	char prog[PATH_MAX], real[PATH_MAX], dump[PATH_MAX], cmd[2 * PATH_MAX + 512], bid[128];
	ying_profile *p = NULL;
	ying_membuf mb, kp;
	PB *m;
	size_t i, k;
	int rc;
	double big = 0, small = 0, inl = 0, churn_alloc = 0, churn_inuse = 0;
	double big_n = 0;
	int cs, co, ca, inline_ok = 0;

	snprintf(prog, sizeof(prog), "%s/tests/programs/pprof_alloc", bdir ? bdir : ".");
	snprintf(dump, sizeof(dump), "%s/ying-test-pprof-%ld.heap", tap_tmpdir(), (long)getpid());
	snprintf(cmd, sizeof(cmd), "MALLOC_CONF=prof:true,lg_prof_sample:0,prof_accum:true "
	    "'%s' '%s'", prog, dump);
	rc = system(cmd);
	is_int(rc, 0, "pprof_alloc ran and dumped (jemalloc with prof)");
	if (rc != 0)
		return;
	rc = ying_profile_read_file(&p, dump);
	unlink(dump);
	is_int(rc, 0, "live dump parses");
	if (p == NULL)
		return;
	rc = write_pb(p, 0, 0, 1, &mb);
	is_int(rc, 0, "live: write pprof");
	if (rc != 0 || (m = decode(&mb)) == NULL) {
		ok(0, "live: decodes");
		ying_profile_free(p);
		return;
	}
	check_rules(p, m, 0, "live");
	if (realpath(prog, real) == NULL)
		snprintf(real, sizeof(real), "%s", prog);
	ok(m->n_mapping > 0 && strcmp(S(m, m->mapping[0]->filename), real) == 0,
	    "live: mapping[0] is pprof_alloc");
	ok(file_build_id(real, bid, sizeof(bid)), "live: the binary has a GNU build ID");
	if (m->n_mapping > 0)
		is_str(S(m, m->mapping[0]->build_id), bid, "live: mapping[0] build_id = the binary's");
	{
		size_t with_id = 0;
		for (i = 0; i < m->n_mapping; i++)
			if (S(m, m->mapping[i]->build_id)[0])
				with_id++;
		ok(with_id >= 2, "live: shared libraries have build IDs too");
	}
	if (m->n_mapping > 0) {
		const Perftools__Profiles__Mapping *m0 = m->mapping[0];
		ok(m0->has_functions && m0->has_filenames && m0->has_line_numbers &&
		    m0->has_inline_frames, "live: mapping[0] has_functions/filenames/line_numbers/inline_frames");
		ok(m0->file_offset > 0 || m0->memory_start >= 0x400000,
		    "live: real start/offset of the text mapping");
	}

	cs = type_index(m, "inuse_space");
	co = type_index(m, "inuse_objects");
	ca = type_index(m, "alloc_space");
	for (i = 0; i < m->n_sample; i++) {
		const Perftools__Profiles__Sample *s = m->sample[i];
		const char *leaf = leaf_name(m, s);
		if (strcmp(leaf, "big_alloc") == 0) {
			big += (double)s->value[cs];
			big_n += (double)s->value[co];
		} else if (strcmp(leaf, "small_alloc") == 0) {
			small += (double)s->value[cs];
		} else if (strcmp(leaf, "inlined_alloc") == 0) {
			inl += (double)s->value[cs];
		} else if (strcmp(leaf, "churn_alloc") == 0) {
			churn_inuse += (double)s->value[cs];
			churn_alloc += (double)s->value[ca];
		}
		/* the inline chain: inlined_alloc first, mid_alloc (its caller) last */
		for (k = 0; k < s->n_location_id; k++) {
			const Perftools__Profiles__Location *l = find_loc(m, s->location_id[k]);
			const Perftools__Profiles__Function *f0, *fl;
			if (!l || l->n_line < 2)
				continue;
			f0 = find_func(m, l->line[0]->function_id);
			fl = find_func(m, l->line[l->n_line - 1]->function_id);
			if (f0 && fl && strcmp(S(m, f0->name), "inlined_alloc") == 0 &&
			    strcmp(S(m, fl->name), "mid_alloc") == 0 && l->line[0]->line > 0)
				inline_ok = 1;
		}
	}
	is_near(big, 8 << 20, 0, "live: big_alloc holds 8 MiB (allocator frames trimmed)");
	is_near(big_n, 8, 0, "live: big_alloc 8 objects");
	is_near(small, 2000 * 512, 0, "live: small_alloc holds 1024000 B");
	is_near(inl, 100 * 3072, 0, "live: inlined_alloc holds 307200 B");
	is_near(churn_inuse, 0, 0, "live: churn_alloc holds nothing");
	is_near(churn_alloc, 1000 * 4096, 0, "live: churn_alloc allocated 4096000 B (alloc_space)");
	ok(inline_ok, "live: inlined frame first, its caller last, with a line number");
	{
		size_t lab = 0;
		for (i = 0; i < m->n_sample; i++)
			if (strcmp(leaf_name(m, m->sample[i]), "big_alloc") == 0 &&
			    m->sample[i]->n_label == 1 && m->sample[i]->label[0]->num == 1 << 20)
				lab++;
		ok(lab >= 1, "live: big_alloc sample labelled bytes=1048576");
	}
	perftools__profiles__profile__free_unpacked(m, NULL);

	/* keep allocator frames: the leaf is inside the allocator again */
	rc = write_pb(p, 0, 1, 1, &kp);
	if (rc == 0 && (m = decode(&kp)) != NULL) {
		size_t leaf_user = 0, with_big = 0;
		for (i = 0; i < m->n_sample; i++) {
			if (!sample_has(m, m->sample[i], "big_alloc"))
				continue;
			with_big++;
			if (strcmp(leaf_name(m, m->sample[i]), "big_alloc") == 0)
				leaf_user++;
		}
		ok(with_big > 0 && leaf_user == 0, "live keep: allocator frames stay below big_alloc");
		perftools__profiles__profile__free_unpacked(m, NULL);
	} else {
		ok(0, "live keep: write and decode");
	}
	ying_membuf_release(&mb);
	ying_membuf_release(&kp);
	ying_profile_free(p);
}

int
main(void)
{
	ying_membuf mb = YING_MEMBUF_INIT;
	ying_pprof_opts bad = YING_PPROF_OPTS_INIT;

	is_int(ying_profile_write_pprof(NULL, NULL, ying_write_membuf, &mb), YING_EINVAL,
	    "NULL profile -> EINVAL");
	bad.version = 99;
	test_fixture("heap_exact.heap");
	test_fixture("heap_accum.heap");
	{
		ying_profile *p = NULL;
		if (ying_profile_read_file(&p, tap_data("heap_exact.heap")) == 0) {
			is_int(ying_profile_write_pprof(p, &bad, ying_write_membuf, &mb), YING_EINVAL,
			    "wrong opts version -> EINVAL");
			ying_profile_free(p);
		}
	}
	test_negative();
	test_oom();
	test_handmade();
	test_live();
	return tap_done();
}
