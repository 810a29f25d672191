/*
 * test_base_hash.c: the u64 -> u32 map and the hash functions (base_hash.c):
 * lookups across growth, misses, put-if-absent, and keys chosen so that
 * they all land on the same home slot (a real collision chain).
 */
#include "internal.h"
#include "tap.h"

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
	return tap_done();
}
