/*
 * test_base_hash.c: the u64 -> u32 map and the hash functions (base_hash.c):
 * lookups across growth, misses, put-if-absent, and keys chosen so that
 * they all land on the same home slot (a real collision chain).  The id
 * set: dense ids in insertion order across many doublings, stable key
 * copies, misses, and forced collisions (a hash that maps every key, or
 * every key of a length, to one value) told apart by content.
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

	/* the frame hash: the formula documented in base.h */
	{
		uint64_t h = 0x9e3779b97f4a7c15ULL;
		for (i = 0; i < 3; i++)
			h = yi_hash64(h ^ frames[i]) + i;
		is_u64(yi_hash_u64s(frames, sizeof(frames)), h, "yi_hash_u64s formula");
	}
}

int
main(void)
{
	yi_map64 m;
	uint32_t *slot;
	uint64_t keys[12], k, miss = 0;
	size_t n = 0, i, mask;
	bool added;
	int bad = 0;

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
		if ((yi_hash64(k) & mask) == (yi_hash64(1) & mask))
			keys[n++] = k;
		else if (!miss)
			miss = k;
	}
	/* one more key with the same home slot, never inserted */
	for (; (yi_hash64(k) & mask) != (yi_hash64(1) & mask); k++)
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
	return tap_done();
}
