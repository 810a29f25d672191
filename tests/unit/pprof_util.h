/*
 * pprof_util.h: helpers shared by test_write_pprof.c and test_read_pprof.c:
 * write a profile as pprof into a membuf, decode pprof with protobuf-c
 * (independent of ying's reader), look up ids, and check a decoded profile
 * against profile.proto's rules and what `go tool pprof` expects
 * (check_rules); file_build_id reads an ELF build ID with <elf.h> only.
 */
#ifndef YING_PPROF_UTIL_H
#define YING_PPROF_UTIL_H

#include <elf.h>
#include <limits.h>
#include <unistd.h>

#include "internal.h"
#include "tap.h"
#include "proto/profile.pb-c.h"

#define PPROF_UNUSED __attribute__((unused))

typedef Perftools__Profiles__Profile PB;

/* ---- helpers ----------------------------------------------------------- */

PPROF_UNUSED static int
write_pb(ying_profile *p, int unsym, int keep, int gzip, ying_membuf *mb)
{
	ying_pprof_opts o = YING_PPROF_OPTS_INIT;

	o.unsymbolized = unsym;
	o.keep_allocator_frames = keep;
	o.gzip = gzip;
	memset(mb, 0, sizeof(*mb));
	/* writers never symbolize: the caller's step (a no-op when done) */
	if (!o.unsymbolized)
		(void)ying_profile_symbolize(p, NULL, NULL);
	return ying_profile_write_pprof(p, &o, ying_write_membuf, mb);
}

/* Decode (gunzipping when needed); NULL on failure. */
PPROF_UNUSED static PB *
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

PPROF_UNUSED static const char *
S(const PB *m, int64_t i)
{
	if (i < 0 || (size_t)i >= m->n_string_table)
		return NULL;
	return m->string_table[i];
}

PPROF_UNUSED static const Perftools__Profiles__Location *
find_loc(const PB *m, uint64_t id)
{
	size_t i;
	for (i = 0; i < m->n_location; i++)
		if (m->location[i]->id == id)
			return m->location[i];
	return NULL;
}

PPROF_UNUSED static const Perftools__Profiles__Function *
find_func(const PB *m, uint64_t id)
{
	size_t i;
	for (i = 0; i < m->n_function; i++)
		if (m->function[i]->id == id)
			return m->function[i];
	return NULL;
}

PPROF_UNUSED static const Perftools__Profiles__Mapping *
find_map(const PB *m, uint64_t id)
{
	size_t i;
	for (i = 0; i < m->n_mapping; i++)
		if (m->mapping[i]->id == id)
			return m->mapping[i];
	return NULL;
}

/* Index of a sample type by name, -1 if absent. */
PPROF_UNUSED static int
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

PPROF_UNUSED static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

PPROF_UNUSED static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts ids in place. */
PPROF_UNUSED static int
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
PPROF_UNUSED static const char *
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
PPROF_UNUSED static int
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

PPROF_UNUSED static double
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
PPROF_UNUSED static void
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
		if (ying_profile_total(&total, p, idx) != 0) {
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
PPROF_UNUSED static int
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


#endif
