/*
 * base_strtab.c: interned strings.
 *
 * Function names, file names, thread names and mapping paths repeat across
 * stacks and profiles; the model stores each once and refers to it by a
 * 32-bit id.  Strings live in large chunks that never move, so a pointer
 * from yi_strtab_get stays valid until the table is released.  Id 0 is "".
 */
#include "base.h"

#define CHUNK (64 * 1024)

static int
slots_grow(yi_strtab *t)
{
	size_t ncap = t->nslots ? t->nslots * 2 : 1024, i;
	uint32_t *ns = yi_calloc(ncap, sizeof(*ns));

	if (ns == NULL)
		return yi_oom("growing the string table");
	for (i = 0; i < t->strs.n; i++) {
		size_t j = yi_hash_bytes(t->strs.v[i], t->lens.v[i], 0) & (ncap - 1);
		while (ns[j])
			j = (j + 1) & (ncap - 1);
		ns[j] = (uint32_t)i + 1;
	}
	yi_free(t->slots);
	t->slots = ns;
	t->nslots = ncap;
	return 0;
}

static int
store(yi_strtab *t, const char *s, size_t len, const char **out)
{
	char *dst;

	if (t->nchunks == 0 || t->chunk_used + len + 1 > t->chunk_cap) {
		size_t cap = len + 1 > CHUNK ? len + 1 : CHUNK;
		char **nc = yi_reallocarray(t->chunks, t->nchunks + 1, sizeof(*nc));
		if (nc == NULL)
			return yi_oom("growing the string table");
		t->chunks = nc;
		if ((nc[t->nchunks] = yi_malloc(cap)) == NULL)
			return yi_oom("growing the string table");
		t->nchunks++;
		t->chunk_used = 0;
		t->chunk_cap = cap;
	}
	dst = t->chunks[t->nchunks - 1] + t->chunk_used;
	memcpy(dst, s, len);
	dst[len] = '\0';
	t->chunk_used += len + 1;
	*out = dst;
	return 0;
}

int
yi_strtab_init(yi_strtab *t)
{
	uint32_t id;

	memset(t, 0, sizeof(*t));
	return yi_strtab_intern(t, "", 0, &id);
}

void
yi_strtab_release(yi_strtab *t)
{
	size_t i;

	for (i = 0; i < t->nchunks; i++)
		yi_free(t->chunks[i]);
	yi_free(t->chunks);
	yi_vec_free(&t->strs);
	yi_vec_free(&t->lens);
	yi_free(t->slots);
	memset(t, 0, sizeof(*t));
}

int
yi_strtab_intern(yi_strtab *t, const char *s, size_t len, uint32_t *id)
{
	size_t j, mask;
	const char *copy = NULL;
	int rc;

	if ((t->strs.n + 1) * 2 > t->nslots && (rc = slots_grow(t)) != 0)
		return rc;
	mask = t->nslots - 1;
	for (j = yi_hash_bytes(s, len, 0) & mask; t->slots[j]; j = (j + 1) & mask) {
		uint32_t k = t->slots[j] - 1;
		if (t->lens.v[k] == len && memcmp(t->strs.v[k], s, len) == 0) {
			*id = k;
			return 0;
		}
	}
	if (t->strs.n >= UINT32_MAX - 1)
		return yi_error(YING_ELIMIT, "more than 4 billion distinct strings");
	if ((rc = yi_vec_grow(&t->strs, 1)) != 0 || (rc = yi_vec_grow(&t->lens, 1)) != 0)
		return rc;
	if ((rc = store(t, s, len, &copy)) != 0)
		return rc;
	t->strs.v[t->strs.n] = copy;
	t->lens.v[t->lens.n] = len;
	*id = (uint32_t)t->strs.n;
	t->slots[j] = (uint32_t)t->strs.n + 1;
	t->strs.n++;
	t->lens.n++;
	return 0;
}
