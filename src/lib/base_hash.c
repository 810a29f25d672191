/*
 * base_hash.c: the hash tables of libying and their hash functions.
 *
 * yi_map64 maps a 64-bit key (an address, a pair of ids) to a 32-bit value.
 * The parser looks up every frame of every stack (millions on a big dump),
 * so it is the hottest structure in libying: linear probing over one array
 * of {key, value} slots, power-of-two capacity, load kept under 1/2.
 *
 * yi_idset is the one content-addressed table: variable-length keys
 * (interned strings, a stack's frames, a diff stack's function ids) get
 * dense ids in insertion order.  Its slots hold the id and the upper half
 * of the key's hash, so most misses are rejected without touching a key;
 * equal hashes (whole 64-bit collisions included) fall back to comparing
 * the keys byte for byte.  Keys are copied into chunks that never move.
 */
#include "base.h"

#define EMPTY UINT32_MAX

uint64_t
yi_hash64(uint64_t x)
{
	/* splitmix64 finaliser */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

uint64_t
yi_hash_bytes(const void *p, size_t n, uint64_t seed)
{
	/* FNV-1a over 8-byte words, then mixed. */
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	for (; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ULL;
	return yi_hash64(h ^ n);
}

int
yi_map64_init(yi_map64 *m, size_t expect)
{
	size_t cap = 64, i;

	while (cap < expect * 2)
		cap *= 2;
	m->slots = yi_malloc(cap * sizeof(*m->slots));
	if (m->slots == NULL) {
		m->cap = m->n = 0;
		return yi_oom("creating a hash table");
	}
	for (i = 0; i < cap; i++)
		m->slots[i].val = EMPTY;
	m->cap = cap;
	m->n = 0;
	return 0;
}

void
yi_map64_release(yi_map64 *m)
{
	yi_free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
}

uint32_t *
yi_map64_get(const yi_map64 *m, uint64_t key)
{
	size_t mask = m->cap - 1, i;

	if (m->cap == 0)
		return NULL;
	for (i = yi_hash64(key) & mask;; i = (i + 1) & mask) {
		if (m->slots[i].val == EMPTY)
			return NULL;
		if (m->slots[i].key == key)
			return &m->slots[i].val;
	}
}

static int
rehash(yi_map64 *m)
{
	yi_map64 n;
	size_t i;
	int rc;

	if ((rc = yi_map64_init(&n, m->cap)) != 0)
		return rc;
	for (i = 0; i < m->cap; i++) {
		if (m->slots[i].val != EMPTY) {
			size_t mask = n.cap - 1, j;
			for (j = yi_hash64(m->slots[i].key) & mask; n.slots[j].val != EMPTY; j = (j + 1) & mask)
				;
			n.slots[j] = m->slots[i];
		}
	}
	n.n = m->n;
	yi_map64_release(m);
	*m = n;
	return 0;
}

int
yi_map64_put(yi_map64 *m, uint64_t key, uint32_t val, uint32_t **slot, bool *added)
{
	size_t mask, i;
	int rc;

	if (m->cap == 0 && (rc = yi_map64_init(m, 16)) != 0)
		return rc;
	if ((m->n + 1) * 2 > m->cap && (rc = rehash(m)) != 0)
		return rc;
	mask = m->cap - 1;
	for (i = yi_hash64(key) & mask;; i = (i + 1) & mask) {
		if (m->slots[i].val == EMPTY) {
			m->slots[i].key = key;
			m->slots[i].val = val;
			m->n++;
			if (slot)
				*slot = &m->slots[i].val;
			if (added)
				*added = true;
			return 0;
		}
		if (m->slots[i].key == key) {
			if (slot)
				*slot = &m->slots[i].val;
			if (added)
				*added = false;
			return 0;
		}
	}
}

/* ---- content-addressed id set -------------------------------------------- */

#define KEY_CHUNK (64 * 1024)
#define ALIGN8(n) (((n) + 7) & ~(size_t)7)

uint64_t
yi_hash_u64s(const void *key, size_t len)
{
	const unsigned char *k = key;
	uint64_t h = 0x9e3779b97f4a7c15ULL, w;
	size_t i;

	for (i = 0; i < len / 8; i++) {
		memcpy(&w, k + 8 * i, 8);
		h = yi_hash64(h ^ w) + i;
	}
	return h;
}

void
yi_idset_init(yi_idset *s, yi_idset_hash_fn hash)
{
	memset(s, 0, sizeof(*s));
	s->hash = hash;
}

void
yi_idset_release(yi_idset *s)
{
	size_t i;

	for (i = 0; i < s->nchunks; i++)
		yi_free(s->chunks[i]);
	yi_free(s->chunks);
	yi_free(s->slots);
	yi_vec_free(&s->keys);
	yi_vec_free(&s->lens);
	yi_vec_free(&s->hashes);
	memset(s, 0, sizeof(*s));
}

static uint64_t
key_hash(const yi_idset *s, const void *key, size_t len)
{
	return s->hash ? s->hash(key, len) : yi_hash_bytes(key, len, 0);
}

/* Double the slot array (or create it) and place every id again. */
static int
idset_grow(yi_idset *s)
{
	size_t ncap = s->nslots ? s->nslots * 2 : 64, mask = ncap - 1, i, j;
	uint64_t *ns;

	if (ncap > SIZE_MAX / sizeof(*ns) || (ns = yi_calloc(ncap, sizeof(*ns))) == NULL)
		return yi_oom("growing a hash table");
	for (i = 0; i < s->keys.n; i++) {
		uint64_t h = s->hashes.v[i];
		for (j = h & mask; ns[j]; j = (j + 1) & mask)
			;
		ns[j] = (h >> 32) << 32 | (uint64_t)(i + 1);
	}
	yi_free(s->slots);
	s->slots = ns;
	s->nslots = ncap;
	return 0;
}

/* Slot of key (hash h): the one holding it, or the empty one ending its
 * probe sequence.  The set has slots. */
static size_t
idset_probe(const yi_idset *s, const void *key, size_t len, uint64_t h, bool *found)
{
	size_t mask = s->nslots - 1, j;
	uint64_t tag = (h >> 32) << 32;

	for (j = h & mask; s->slots[j]; j = (j + 1) & mask) {
		uint64_t e = s->slots[j];
		size_t id = (size_t)(uint32_t)e - 1;
		if ((e & 0xffffffff00000000ULL) == tag && s->lens.v[id] == len &&
		    s->hashes.v[id] == h && (len == 0 || memcmp(s->keys.v[id], key, len) == 0)) {
			*found = true;
			return j;
		}
	}
	*found = false;
	return j;
}

/* Copy key into the chunks (NUL-terminated, the next copy 8-aligned). */
static int
idset_store(yi_idset *s, const void *key, size_t len, const char **out)
{
	size_t need = ALIGN8(len + 1);
	char *dst;

	if (len >= SIZE_MAX - 8)
		return yi_oom("storing a key");
	if (s->nchunks == 0 || s->chunk_used + need > s->chunk_cap) {
		size_t cap = need > KEY_CHUNK ? need : KEY_CHUNK;
		char **nc = yi_reallocarray(s->chunks, s->nchunks + 1, sizeof(*nc));
		if (nc == NULL)
			return yi_oom("storing a key");
		s->chunks = nc;
		if ((nc[s->nchunks] = yi_malloc(cap)) == NULL)
			return yi_oom("storing a key");
		s->nchunks++;
		s->chunk_used = 0;
		s->chunk_cap = cap;
	}
	dst = s->chunks[s->nchunks - 1] + s->chunk_used;
	if (len)
		memcpy(dst, key, len);
	dst[len] = '\0';
	s->chunk_used += need;
	*out = dst;
	return 0;
}

bool
yi_idset_find(const yi_idset *s, const void *key, size_t len, uint32_t *id)
{
	bool found;
	size_t j;

	if (s->nslots == 0)
		return false;
	j = idset_probe(s, key, len, key_hash(s, key, len), &found);
	if (found)
		*id = (uint32_t)s->slots[j] - 1;
	return found;
}

int
yi_idset_add(yi_idset *s, const void *key, size_t len, uint32_t *id, bool *added)
{
	uint64_t h = key_hash(s, key, len);
	const char *copy = NULL;
	bool found;
	size_t j;
	int rc;

	if ((s->keys.n + 1) * 2 > s->nslots && (rc = idset_grow(s)) != 0)
		return rc;
	j = idset_probe(s, key, len, h, &found);
	if (added)
		*added = !found;
	if (found) {
		*id = (uint32_t)s->slots[j] - 1;
		return 0;
	}
	if (s->keys.n >= UINT32_MAX - 1)
		return yi_error(YING_ELIMIT, "more than 4 billion distinct keys");
	if ((rc = yi_vec_grow(&s->keys, 1)) != 0 || (rc = yi_vec_grow(&s->lens, 1)) != 0 ||
	    (rc = yi_vec_grow(&s->hashes, 1)) != 0 ||
	    (rc = idset_store(s, key, len, &copy)) != 0)
		return rc;
	*id = (uint32_t)s->keys.n;
	s->keys.v[s->keys.n++] = copy;
	s->lens.v[s->lens.n++] = len;
	s->hashes.v[s->hashes.n++] = h;
	s->slots[j] = (h >> 32) << 32 | (uint64_t)s->keys.n;
	return 0;
}
