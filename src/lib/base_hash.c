/*
 * base_hash.c: an open-addressing map from 64-bit keys to 32-bit values, and
 * the hash functions the other tables use.
 *
 * The parser looks up every frame of every stack (millions on a big dump),
 * so this is the hottest structure in libying: linear probing over one
 * array of {key, value} slots, power-of-two capacity, load kept under 1/2.
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
