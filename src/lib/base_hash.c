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
 *
 * Both tables are keyed (issue 13, finding 3): slots are chosen by
 * SipHash-1-3 (Aumasson and Bernstein, "SipHash: a fast short-input PRF",
 * written here from the paper's description) under a 128-bit key drawn once
 * per process from getrandom(2).  An unkeyed, invertible hash let crafted
 * addresses or names pile into one probe chain and made lookups quadratic;
 * with a secret key nobody outside the process can aim at a slot.  Nothing
 * user-visible walks slots (ids are dense in insertion order, map values are
 * given by the caller), so outputs do not depend on the key.  yi_hash64 and
 * yi_hash_bytes stay unkeyed and deterministic for what must be the same
 * from run to run (flame graph colours), and so does yi_shash, the stable
 * 128-bit content hash the SQL databases key their rows by (sql_*.c; it
 * lived in sql_db.c), whose values are on disk and must never change.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "base.h"

#define EMPTY UINT32_MAX

/* ---- the per-process key -------------------------------------------------- */

static uint64_t proc_key[2];
static pthread_once_t proc_key_once = PTHREAD_ONCE_INIT;

/* getrandom(2) (non-blocking, so a process started before the entropy pool
 * is ready still starts), else /dev/urandom, else a mix of what differs
 * between processes: the clock, the pid, and addresses placed by ASLR. */
static void
proc_key_init(void)
{
	uint64_t k[2] = { 0, 0 };
	size_t got = 0;
	ssize_t r;
	int fd;

	while (got < sizeof(k)) {
		r = getrandom((char *)k + got, sizeof(k) - got, GRND_NONBLOCK);
		if (r > 0)
			got += (size_t)r;
		else if (r < 0 && errno == EINTR)
			continue;
		else
			break;
	}
	if (got < sizeof(k) && (fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)) >= 0) {
		got = 0;
		while (got < sizeof(k)) {
			r = read(fd, (char *)k + got, sizeof(k) - got);
			if (r > 0)
				got += (size_t)r;
			else if (!(r < 0 && errno == EINTR))
				break;
		}
		close(fd);
	}
	if (got < sizeof(k)) {
		struct timespec ts = { 0, 0 };
		clock_gettime(CLOCK_MONOTONIC, &ts);
		k[0] ^= yi_hash64((uint64_t)ts.tv_sec << 32 ^ (uint64_t)ts.tv_nsec ^
		    (uint64_t)(uintptr_t)&ts);
		clock_gettime(CLOCK_REALTIME, &ts);
		k[1] ^= yi_hash64(k[0] ^ (uint64_t)ts.tv_nsec ^ (uint64_t)getpid() << 40 ^
		    (uint64_t)(uintptr_t)&proc_key_init);
	}
	proc_key[0] = k[0];
	proc_key[1] = k[1];
}

void
yi_hash_key(uint64_t key[2])
{
	pthread_once(&proc_key_once, proc_key_init);
	key[0] = proc_key[0];
	key[1] = proc_key[1];
}

/* ---- SipHash-c-d ----------------------------------------------------------- */

#define ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND do { \
	v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32); \
	v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2; \
	v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0; \
	v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32); \
} while (0)

static inline uint64_t
load_le64(const unsigned char *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
	    (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 |
	    (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

/* The paper's algorithm: c rounds per 8-byte little-endian word, the last
 * word holding the tail bytes and the length mod 256 in its top byte, then
 * d rounds after v2 ^= 0xff.  Inlined with constant c and d below. */
static inline uint64_t
siphash(const uint64_t key[2], int c, int d, const void *data, size_t n)
{
	const unsigned char *s = data;
	uint64_t v0 = key[0] ^ 0x736f6d6570736575ULL, v1 = key[1] ^ 0x646f72616e646f6dULL;
	uint64_t v2 = key[0] ^ 0x6c7967656e657261ULL, v3 = key[1] ^ 0x7465646279746573ULL;
	uint64_t m, b = (uint64_t)n << 56;
	size_t i = 0;
	int r;

	for (; i + 8 <= n; i += 8) {
		m = load_le64(s + i);
		v3 ^= m;
		for (r = 0; r < c; r++)
			SIPROUND;
		v0 ^= m;
	}
	switch (n - i) {
	case 7: b |= (uint64_t)s[i + 6] << 48; /* fall through */
	case 6: b |= (uint64_t)s[i + 5] << 40; /* fall through */
	case 5: b |= (uint64_t)s[i + 4] << 32; /* fall through */
	case 4: b |= (uint64_t)s[i + 3] << 24; /* fall through */
	case 3: b |= (uint64_t)s[i + 2] << 16; /* fall through */
	case 2: b |= (uint64_t)s[i + 1] << 8; /* fall through */
	case 1: b |= (uint64_t)s[i]; break;
	default: break;
	}
	v3 ^= b;
	for (r = 0; r < c; r++)
		SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	for (r = 0; r < d; r++)
		SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

uint64_t
yi_siphash13(const uint64_t key[2], const void *data, size_t n)
{
	return siphash(key, 1, 3, data, n);
}

uint64_t
yi_siphash24(const uint64_t key[2], const void *data, size_t n)
{
	return siphash(key, 2, 4, data, n);
}

/* SipHash-1-3 of x as 8 little-endian bytes, without the byte loop: the
 * map's hot path.  Equal to yi_siphash13(key, le64(x), 8). */
static inline uint64_t
sip13_u64(const uint64_t key[2], uint64_t x)
{
	uint64_t v0 = key[0] ^ 0x736f6d6570736575ULL, v1 = key[1] ^ 0x646f72616e646f6dULL;
	uint64_t v2 = key[0] ^ 0x6c7967656e657261ULL, v3 = key[1] ^ 0x7465646279746573ULL;
	const uint64_t b = (uint64_t)8 << 56;

	v3 ^= x;
	SIPROUND;
	v0 ^= x;
	v3 ^= b;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

uint64_t
yi_siphash13_u64(const uint64_t key[2], uint64_t x)
{
	return sip13_u64(key, x);
}

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
	yi_hash_key(m->key);
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
	for (i = sip13_u64(m->key, key) & mask;; i = (i + 1) & mask) {
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
	n.key[0] = m->key[0];
	n.key[1] = m->key[1];
	for (i = 0; i < m->cap; i++) {
		if (m->slots[i].val != EMPTY) {
			size_t mask = n.cap - 1, j;
			for (j = sip13_u64(n.key, m->slots[i].key) & mask; n.slots[j].val != EMPTY; j = (j + 1) & mask)
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
	for (i = sip13_u64(m->key, key) & mask;; i = (i + 1) & mask) {
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

void
yi_idset_init(yi_idset *s, yi_idset_hash_fn hash)
{
	memset(s, 0, sizeof(*s));
	s->hash = hash;
	yi_hash_key(s->key);
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
	return s->hash ? s->hash(key, len) : siphash(s->key, 1, 3, key, len);
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

/* ---- probe statistics (for tests and benchmarks) -------------------------- */

void
yi_map64_probe_stats(const yi_map64 *m, size_t *max, size_t *total)
{
	size_t mask = m->cap - 1, i, d;

	*max = *total = 0;
	for (i = 0; i < m->cap; i++) {
		if (m->slots[i].val == EMPTY)
			continue;
		d = ((i - (size_t)sip13_u64(m->key, m->slots[i].key)) & mask) + 1;
		*total += d;
		if (d > *max)
			*max = d;
	}
}

void
yi_idset_probe_stats(const yi_idset *s, size_t *max, size_t *total)
{
	size_t mask = s->nslots - 1, j, d;

	*max = *total = 0;
	for (j = 0; j < s->nslots; j++) {
		if (s->slots[j] == 0)
			continue;
		d = ((j - (size_t)s->hashes.v[(uint32_t)s->slots[j] - 1]) & mask) + 1;
		*total += d;
		if (d > *max)
			*max = d;
	}
}

/* ---- the stable hash (yi_shash: the SQL databases' keys) ------------------ */
/* Lane a: FNV-1a over 64-bit words then a murmur finalizer at the end; lane
 * b: a multiply-rotate (wyhash-like) chain.  Both are fixed functions, so a
 * hash written by one process is found by the next. */

void
yi_shash_init(yi_shash *h)
{
	h->a = 0xcbf29ce484222325ULL;
	h->b = 0x9e3779b97f4a7c15ULL;
}

void
yi_shash_u64(yi_shash *h, uint64_t v)
{
	h->a = (h->a ^ v) * 0x100000001b3ULL;
	h->a ^= h->a >> 29;
	h->b = (h->b + v) * 0xbf58476d1ce4e5b9ULL;
	h->b = (h->b << 31 | h->b >> 33) ^ 0x94d049bb133111ebULL;
}

void
yi_shash_bytes(yi_shash *h, const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t w;

	yi_shash_u64(h, n);
	while (n >= 8) {
		memcpy(&w, s, 8);
		yi_shash_u64(h, w);
		s += 8;
		n -= 8;
	}
	if (n) {
		w = 0;
		memcpy(&w, s, n);
		yi_shash_u64(h, w);
	}
}

static uint64_t
fmix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return k;
}

void
yi_shash_hex(const yi_shash *h, char buf[33])
{
	snprintf(buf, 33, "%016" PRIx64 "%016" PRIx64, fmix64(h->a), fmix64(h->b));
}

uint64_t
yi_shash_fold(const yi_shash *h)
{
	return h->a ^ (h->b * 0x9e3779b97f4a7c15ULL);
}
