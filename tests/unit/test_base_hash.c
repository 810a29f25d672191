/*
 * test_base_hash.c: the u64 -> u32 map and the hash functions (base_hash.c):
 * lookups across growth, misses, put-if-absent, and keys chosen so that
 * they all land on the same home slot (a real collision chain).  The id
 * set: dense ids in insertion order across many doublings, stable key
 * copies, misses, and forced collisions (a hash that maps every key, or
 * every key of a length, to one value) told apart by content.  Hash
 * flooding: keys built by inverting the old unkeyed hashes (all in one
 * probe chain then) keep short chains under the keyed ones; two keys place
 * the same keys differently; SipHash against the paper's vector; one key
 * per process, another in the next process.  The stable hash (yi_shash)
 * keeps the values the SQL databases hold.
 */
#include "internal.h"
#include "tap.h"

/* Every key hashes the same: each lookup walks one chain and must compare
 * whole keys. */
static uint64_t
same_hash(const void *key, size_t len)
{
	(void)key;
	(void)len;
	return 0x1234567800000001ULL;
}

/* Keys of one length collide; lengths differ in the low bits only. */
static uint64_t
len_hash(const void *key, size_t len)
{
	(void)key;
	return 0xabcdef0000000000ULL | len;
}

static void
test_idset(void)
{
	yi_idset s;
	uint32_t id, id2, i;
	uint64_t frames[3] = { 1, 2, 3 }, other[3] = { 1, 2, 4 };
	const void *first;
	char buf[32];
	bool added;
	int bad = 0;

	yi_idset_init(&s, NULL);
	ok(!yi_idset_find(&s, "x", 1, &id), "empty set: miss");
	is_int(yi_idset_add(&s, "alpha", 5, &id, &added), 0, "add alpha");
	ok(added && id == 0, "first key is id 0");
	first = yi_idset_key(&s, 0);
	is_int(yi_idset_add(&s, "beta", 4, &id, &added), 0, "add beta");
	ok(added && id == 1, "second key is id 1");
	is_int(yi_idset_add(&s, "alpha", 5, &id, &added), 0, "add alpha again");
	ok(!added && id == 0, "alpha keeps id 0");
	is_int(yi_idset_add(&s, "alph", 4, &id, &added), 0, "add a prefix");
	ok(added && id == 2, "a prefix is another key");
	is_int(yi_idset_add(&s, "", 0, &id, &added), 0, "add the empty key");
	ok(added && id == 3 && yi_idset_len(&s, 3) == 0, "the empty key is a key");
	for (i = 0; i < 100000; i++) {
		snprintf(buf, sizeof(buf), "key-%u", i);
		if (yi_idset_add(&s, buf, strlen(buf), &id, &added) != 0 || !added || id != i + 4)
			bad++;
	}
	is_int(bad, 0, "100000 keys: dense ids in insertion order");
	is_int(yi_idset_count(&s), 100004, "count");
	ok(s.nslots >= 2 * 100004 && (s.nslots & (s.nslots - 1)) == 0, "grown by doubling");
	ok(yi_idset_key(&s, 0) == first && strcmp(first, "alpha") == 0,
	    "key copies never move, and are NUL-terminated");
	for (i = 0, bad = 0; i < 100000; i++) {
		snprintf(buf, sizeof(buf), "key-%u", i);
		if (!yi_idset_find(&s, buf, strlen(buf), &id) || id != i + 4 ||
		    yi_idset_len(&s, id) != strlen(buf) || memcmp(yi_idset_key(&s, id), buf, strlen(buf)))
			bad++;
	}
	is_int(bad, 0, "every key found under its id after growth");
	ok(!yi_idset_find(&s, "key-100000", 10, &id), "an absent key misses");
	ok(!yi_idset_find(&s, "alphaX", 6, &id), "a longer key misses");
	yi_idset_release(&s);
	ok(s.nslots == 0 && yi_idset_count(&s) == 0, "release empties the set");

	/* every key on one chain */
	yi_idset_init(&s, same_hash);
	for (i = 0, bad = 0; i < 2000; i++) {
		snprintf(buf, sizeof(buf), "c%u", i);
		if (yi_idset_add(&s, buf, strlen(buf), &id, &added) != 0 || !added || id != i)
			bad++;
	}
	is_int(bad, 0, "2000 keys with one hash: 2000 ids");
	for (i = 0, bad = 0; i < 2000; i++) {
		snprintf(buf, sizeof(buf), "c%u", i);
		if (yi_idset_add(&s, buf, strlen(buf), &id, &added) != 0 || added || id != i)
			bad++;
	}
	is_int(bad, 0, "each found again by content");
	ok(!yi_idset_find(&s, "c2000", 5, &id), "a miss on the full chain");
	yi_idset_release(&s);

	/* uint64_t arrays (frame keys) with colliding hashes */
	yi_idset_init(&s, len_hash);
	is_int(yi_idset_add(&s, frames, sizeof(frames), &id, &added), 0, "add frames");
	is_int(yi_idset_add(&s, other, sizeof(other), &id2, &added), 0, "add other frames");
	ok(added && id2 == id + 1, "same hash, other content: a new id");
	ok(((const uint64_t *)yi_idset_key(&s, id2))[2] == 4, "the key is an aligned uint64_t copy");
	ok(yi_idset_find(&s, frames, sizeof(frames), &id2) && id2 == id, "frames found");
	ok(!yi_idset_find(&s, frames, 2 * sizeof(*frames), &id2), "a shorter array misses");
	yi_idset_release(&s);

}

/* ---- hash flooding (issue 13, finding 3) ---------------------------------- */

/* Inverses of the steps of the old, unkeyed hashes, to build keys that all
 * collided under them: x ^= x >> s, and multiplication by an odd constant. */
static uint64_t
unxorshift(uint64_t y, int s)
{
	uint64_t x = y;
	int i;

	for (i = 0; i < 64 / s + 1; i++)
		x = y ^ (x >> s);
	return x;
}

static uint64_t
inv_mul(uint64_t c)
{
	uint64_t v = c;
	int i;

	for (i = 0; i < 6; i++)
		v *= 2 - c * v;
	return v;
}

/* yi_hash64 (splitmix64's finaliser) backwards: the old map's hash. */
static uint64_t
unsplitmix(uint64_t y)
{
	y = unxorshift(y, 31);
	y *= inv_mul(0x94d049bb133111ebULL);
	y = unxorshift(y, 27);
	y *= inv_mul(0xbf58476d1ce4e5b9ULL);
	return unxorshift(y, 30);
}

/* The 8-byte key whose old id-set hash, yi_hash_bytes(key, 8, 0) (one FNV
 * word step, then yi_hash64(h ^ 8)), is y. */
static uint64_t
old_idset_preimage(uint64_t y)
{
	uint64_t h = unsplitmix(y) ^ 8;

	h = unxorshift(h, 29);
	h *= inv_mul(0x100000001b3ULL);
	return h ^ 0xcbf29ce484222325ULL;
}

#define FLOOD 20000

static void
test_flood(void)
{
	yi_map64 m, m2;
	yi_idset s;
	uint64_t k0[2] = { 1, 2 }, k1[2] = { 3, 4 };
	size_t i, max, total, moved = 0, same = 0;
	uint32_t *slot, id;
	bool added;
	int bad = 0;

	/* the construction is right: these keys all shared a home slot */
	for (i = 0; i < FLOOD; i++)
		if ((yi_hash64(unsplitmix((uint64_t)i << 24)) & 0xffffff) != 0)
			bad++;
	is_int(bad, 0, "crafted addresses: the old map hash sends all to one home slot");
	for (i = 0, bad = 0; i < FLOOD; i++) {
		uint64_t w = old_idset_preimage((uint64_t)i << 24);
		if ((yi_hash_bytes(&w, 8, 0) & 0xffffff) != 0)
			bad++;
	}
	is_int(bad, 0, "crafted 8-byte keys: the old id-set hash sends all to one home slot");

	/* the map: short probe chains under the process key */
	yi_map64_init(&m, 0);
	for (i = 0, bad = 0; i < FLOOD; i++)
		if (yi_map64_put(&m, unsplitmix((uint64_t)i << 24), (uint32_t)i, &slot, &added) != 0 ||
		    !added)
			bad++;
	is_int(bad, 0, "20000 crafted addresses inserted");
	yi_map64_probe_stats(&m, &max, &total);
	printf("# map: max probe %zu, total %zu\n", max, total);
	ok(max < 64, "map: longest probe under 64 (unkeyed: 20000)");
	ok(total < 3 * FLOOD, "map: total probes under 3 per key (unkeyed: 2e8)");
	for (i = 0, bad = 0; i < FLOOD; i++)
		if ((slot = yi_map64_get(&m, unsplitmix((uint64_t)i << 24))) == NULL || *slot != i)
			bad++;
	is_int(bad, 0, "each crafted address found with its value");
	yi_map64_release(&m);

	/* the id set: the same for byte-string keys */
	yi_idset_init(&s, NULL);
	for (i = 0, bad = 0; i < FLOOD; i++) {
		uint64_t w = old_idset_preimage((uint64_t)i << 24);
		if (yi_idset_add(&s, &w, 8, &id, &added) != 0 || !added || id != i)
			bad++;
	}
	is_int(bad, 0, "20000 crafted keys: dense ids");
	yi_idset_probe_stats(&s, &max, &total);
	printf("# id set: max probe %zu, total %zu\n", max, total);
	ok(max < 64, "id set: longest probe under 64 (unkeyed: 20000)");
	ok(total < 3 * FLOOD, "id set: total probes under 3 per key (unkeyed: 2e8)");
	yi_idset_release(&s);

	/* two keys: other slots, same contents */
	yi_map64_init(&m, 0);
	yi_map64_init(&m2, 0);
	memcpy(m.key, k0, sizeof(k0));
	memcpy(m2.key, k1, sizeof(k1));
	for (i = 0, bad = 0; i < 1000; i++)
		if (yi_map64_put(&m, (uint64_t)i * 4096, (uint32_t)i, NULL, NULL) != 0 ||
		    yi_map64_put(&m2, (uint64_t)i * 4096, (uint32_t)i, NULL, NULL) != 0)
			bad++;
	is_int(bad, 0, "the same 1000 keys in two maps with different keys");
	ok(m.key[0] == 1 && m2.key[0] == 3, "growth keeps each map's key");
	for (i = 0; i < 1000; i++) {
		uint32_t *a = yi_map64_get(&m, (uint64_t)i * 4096);
		uint32_t *b = yi_map64_get(&m2, (uint64_t)i * 4096);
		if (a == NULL || b == NULL || *a != i || *b != i) {
			bad++;
			continue;
		}
		if ((const char *)a - (const char *)m.slots != (const char *)b - (const char *)m2.slots)
			moved++;
		else
			same++;
	}
	is_int(bad, 0, "every key found in both");
	printf("# slots: %zu differ, %zu same\n", moved, same);
	ok(moved > 900, "another key puts (almost) every key in another slot");
	yi_map64_release(&m2);
	yi_map64_init(&m2, 0);
	memcpy(m2.key, k0, sizeof(k0));
	for (i = 0; i < 1000; i++)
		yi_map64_put(&m2, (uint64_t)i * 4096, (uint32_t)i, NULL, NULL);
	for (i = 0, bad = 0; i < 1000; i++)
		if ((const char *)yi_map64_get(&m, (uint64_t)i * 4096) - (const char *)m.slots !=
		    (const char *)yi_map64_get(&m2, (uint64_t)i * 4096) - (const char *)m2.slots)
			bad++;
	is_int(bad, 0, "the same key gives the same slots");
	yi_map64_release(&m);
	yi_map64_release(&m2);
}

/* The paper's test vector (appendix A): key 00..0f, message 00..0e. */
static void
test_siphash(const char *self)
{
	uint64_t key[2], k2[2], x = 0x0706050403020100ULL;
	unsigned char msg[15], le[8];
	char cmd[4200], a[64] = "", b[64] = "";
	FILE *f;
	size_t i;

	for (i = 0; i < 15; i++)
		msg[i] = (unsigned char)i;
	key[0] = 0x0706050403020100ULL;
	key[1] = 0x0f0e0d0c0b0a0908ULL;
	is_u64(yi_siphash24(key, msg, 15), 0xa129ca6149be45e5ULL, "SipHash-2-4: the paper's vector");
	for (i = 0; i < 8; i++)
		le[i] = (unsigned char)(x >> (8 * i));
	is_u64(yi_siphash13_u64(key, x), yi_siphash13(key, le, 8),
	    "the map's 8-byte SipHash-1-3 is SipHash-1-3 of the little-endian bytes");
	ok(yi_siphash13(key, msg, 15) != yi_siphash24(key, msg, 15), "1-3 is not 2-4");
	ok(yi_siphash13(key, msg, 7) != yi_siphash13(key, msg, 8), "the length counts");

	yi_hash_key(key);
	yi_hash_key(k2);
	ok(key[0] == k2[0] && key[1] == k2[1], "one key per process");
	ok(key[0] != 0 || key[1] != 0, "the process key is not zero");
	/* two processes: two keys */
	snprintf(cmd, sizeof(cmd), "'%s' --print-key", self);
	if ((f = popen(cmd, "r")) != NULL) {
		if (fgets(a, sizeof(a), f) == NULL)
			a[0] = '\0';
		a[strcspn(a, "\n")] = '\0';
		pclose(f);
	}
	if ((f = popen(cmd, "r")) != NULL) {
		if (fgets(b, sizeof(b), f) == NULL)
			b[0] = '\0';
		b[strcspn(b, "\n")] = '\0';
		pclose(f);
	}
	printf("# keys: %s and %s\n", a, b);
	ok(a[0] && b[0] && strcmp(a, b) != 0, "two processes draw two keys");
}

/* yi_shash (moved from sql_db.c, where it was yi_sql_hash): its values are
 * the SQL databases' keys, on disk, so they must stay what they were; these
 * are the old code's (computed with sql_db.c's functions before the move). */
static void
test_shash(void)
{
	static const struct { const char *s, *hex, *fold; } v[] = {
		{ "", "b5fe1d196a51a00b10cbce567ac67613", "4122f3c591bf3406" },
		{ "a", "6020be2637c33b880dabfc3d69356d0c", "17f490d8e0996914" },
		{ "main", "305b521cfbb4612b3351e1b8c2d04479", "77ccf6c1f0d46832" },
		{ "/usr/lib/libc.so.6", "abab6ad7d7a74a2e3e1921f110cd27e9", "024ebc25b3e19bd8" },
		{ "0123456789abcdef0", "0b29ac6914961500b7219b796b198b35", "194cc45049b48699" },
	};
	char hex[33], fold[17];
	yi_shash h;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		yi_shash_init(&h);
		yi_shash_bytes(&h, v[i].s, strlen(v[i].s));
		yi_shash_hex(&h, hex);
		snprintf(fold, sizeof(fold), "%016llx", (unsigned long long)yi_shash_fold(&h));
		is_str(hex, v[i].hex, "yi_shash of a string: the value the databases hold");
		is_str(fold, v[i].fold, "its 64-bit fold (sql_import's function and module keys)");
	}
	yi_shash_init(&h);
	yi_shash_u64(&h, 1);
	yi_shash_u64(&h, 1234);
	yi_shash_u64(&h, UINT64_MAX);
	yi_shash_hex(&h, hex);
	is_str(hex, "d35d052ae66065335af54bf7e0930eb2", "yi_shash of three numbers (capture keys)");
	is_u64(yi_fib_hash(1, 6), 0x9E3779B97F4A7C15ULL >> 58, "Fibonacci hashing: the top bits");
}

int
main(int argc, char **argv)
{
	yi_map64 m;
	uint32_t *slot;
	uint64_t keys[12], k, miss = 0;
	size_t n = 0, i, mask;
	bool added;
	int bad = 0;

	if (argc > 1 && strcmp(argv[1], "--print-key") == 0) {
		uint64_t key[2];
		yi_hash_key(key);
		printf("%016llx%016llx\n", (unsigned long long)key[0], (unsigned long long)key[1]);
		return 0;
	}
	test_shash();
	/* growth */
	is_int(yi_map64_init(&m, 4), 0, "map init");
	for (i = 0; i < 100000; i++) {
		if (yi_map64_put(&m, (uint64_t)i * 4096, (uint32_t)i, &slot, &added) != 0 || !added)
			bad++;
	}
	is_int(bad, 0, "100000 distinct keys added");
	is_int(m.n, 100000, "map counts them");
	ok(yi_map64_get(&m, 4096 * 777) && *yi_map64_get(&m, 4096 * 777) == 777, "map lookup");
	ok(yi_map64_get(&m, 3) == NULL, "map miss");
	is_int(yi_map64_put(&m, 0, 5, &slot, &added), 0, "put an existing key");
	ok(!added && *slot == 0, "existing key kept");
	yi_map64_release(&m);
	ok(m.slots == NULL && m.cap == 0 && m.n == 0, "release empties the map");
	ok(yi_map64_get(&m, 0) == NULL, "lookup in a released map misses");

	/* collisions: keys whose home slot is the same in a 64-slot table */
	is_int(yi_map64_init(&m, 4), 0, "small map init");
	is_int(m.cap, 64, "64 slots");
	mask = m.cap - 1;
	for (k = 1; n < 12; k++) {
		if ((yi_siphash13_u64(m.key, k) & mask) == (yi_siphash13_u64(m.key, 1) & mask))
			keys[n++] = k;
		else if (!miss)
			miss = k;
	}
	/* one more key with the same home slot, never inserted */
	for (; (yi_siphash13_u64(m.key, k) & mask) != (yi_siphash13_u64(m.key, 1) & mask); k++)
		;
	for (i = 0; i < 12; i++)
		if (yi_map64_put(&m, keys[i], (uint32_t)(100 + i), &slot, &added) != 0 || !added)
			bad++;
	is_int(bad, 0, "12 colliding keys are 12 entries");
	is_int(m.cap, 64, "no growth: they share one home slot");
	for (i = 0, bad = 0; i < 12; i++)
		if ((slot = yi_map64_get(&m, keys[i])) == NULL || *slot != 100 + i)
			bad++;
	is_int(bad, 0, "each colliding key keeps its own value");
	ok(yi_map64_get(&m, k) == NULL, "an absent key on the same chain misses");
	ok(yi_map64_get(&m, miss) == NULL, "an absent key elsewhere misses");
	is_int(yi_map64_put(&m, keys[11], 7, &slot, &added), 0, "put the chain's last key again");
	ok(!added && *slot == 111, "found at the end of the chain, value kept");
	yi_map64_release(&m);

	/* hashes */
	ok(yi_hash64(1) != yi_hash64(2), "hash64 separates neighbours");
	ok(yi_hash_bytes("abcdefghij", 10, 0) == yi_hash_bytes("abcdefghij", 10, 0),
	    "hash_bytes is deterministic");
	ok(yi_hash_bytes("abcdefghij", 10, 0) != yi_hash_bytes("abcdefghij", 10, 1),
	    "the seed changes the hash");
	ok(yi_hash_bytes("abcdefghij", 10, 0) != yi_hash_bytes("abcdefghik", 10, 0),
	    "the tail bytes count");
	ok(yi_hash_bytes("ab", 1, 0) != yi_hash_bytes("ab", 2, 0), "the length counts");

	test_idset();
	test_flood();
	test_siphash(argv[0]);
	return tap_done();
}
