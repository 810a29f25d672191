/*
 * test_top_stacks.c: `ying top --stacks` must keep different stacks apart
 * even when the hash it groups them by collides.
 *
 * write_top.c groups stacks in an id set (base_hash.c) keyed by the
 * expanded frames as uint64_t (func << 32 | line).  Until issue 13 the set
 * hashed them with an unkeyed chain (yi_hash_u64s, gone):
 *   h = 0x9e37..;  for frame i: h = yi_hash64(h ^ (func << 32 | line)) + i.
 * yi_hash64 is a bijection, so a collision of whole 64-bit keys could be
 * built for two-frame stacks (A:a, B:b) and (A:a', B:b'):
 *   h1  = yi_hash64(C ^ (A << 32 | a)),   h1' = yi_hash64(C ^ (A << 32 | a'));
 *   pick a != a' whose h1, h1' agree in the upper 32 bits (a birthday
 *   search over ~2^17 lines), then b' = b ^ (h1 ^ h1'), a 32-bit line:
 *   h1 ^ (B << 32 | b) == h1' ^ (B << 32 | b'), so both final keys agree.
 * The old formula is mirrored here (key_of) and the collision under it is
 * asserted; the set now hashes with SipHash under a per-process key, which
 * no input can aim at, and whole-hash collisions are exercised with a
 * forced hash in test_base_hash.c.  These stacks still must be two rows.
 * A second check groups 50,000 distinct stacks and expects 50,000 rows.
 *
 * The id set compares whole keys when hashes are equal, so the two
 * colliding stacks stay two rows.
 */
#include "internal.h"
#include "synth.h"
#include "tap.h"

static uint64_t
key_of(const uint64_t *k, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	size_t i;

	for (i = 0; i < n; i++)
		h = yi_hash64(h ^ k[i]) + i;
	return h;
}

static char *
top_stacks(ying_profile *p, int *rc)
{
	ying_membuf mb = YING_MEMBUF_INIT;
	ying_top_opts o = YING_TOP_OPTS_INIT;

	o.json = 1;
	o.granularity = YING_BY_STACK;
	o.limit = 0;
	*rc = ying_profile_write_top(p, &o, ying_write_membuf, &mb);
	return mb.data;
}

static size_t
count(const char *hay, const char *needle)
{
	size_t n = 0;

	while (hay && (hay = strstr(hay, needle)) != NULL) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

int
main(void)
{
	ying_profile *p = synth_new("collide", 1);
	uint32_t fa, fb, la = 0, la2 = 0, lb = 1, lb2, l;
	uint64_t ka, ka2, k1[2], k2[2];
	yi_map64 seen;
	uint32_t *slot;
	bool added, found = false;
	char *s, want[128];
	int rc;

	if (yi_profile_func(p, "alpha", NULL, "a.c", &fa) != 0 ||
	    yi_profile_func(p, "beta", NULL, "b.c", &fb) != 0) {
		printf("Bail out! funcs\n");
		return 1;
	}
	/* birthday search: two lines of alpha whose h1 agree in the upper half */
	yi_map64_init(&seen, 1 << 18);
	for (l = 1; l < (1u << 22) && !found; l++) {
		uint64_t h1 = yi_hash64(0x9e3779b97f4a7c15ULL ^ ((uint64_t)fa << 32 | l));
		yi_map64_put(&seen, h1 >> 32, l, &slot, &added);
		if (!added) {
			la = *slot;
			la2 = l;
			found = true;
		}
	}
	yi_map64_release(&seen);
	ok(found, "two alpha lines with the same upper hash half");
	ka = yi_hash64(0x9e3779b97f4a7c15ULL ^ ((uint64_t)fa << 32 | la));
	ka2 = yi_hash64(0x9e3779b97f4a7c15ULL ^ ((uint64_t)fa << 32 | la2));
	lb2 = (uint32_t)(lb ^ (uint32_t)(ka ^ ka2));
	k1[0] = (uint64_t)fa << 32 | la;
	k1[1] = (uint64_t)fb << 32 | lb;
	k2[0] = (uint64_t)fa << 32 | la2;
	k2[1] = (uint64_t)fb << 32 | lb2;
	ok(la != la2 || lb != lb2, "the two stacks differ");
	is_u64(key_of(k1, 2), key_of(k2, 2), "their stack keys collided under the old unkeyed hash");

	{
		const char *an = "alpha", *af = "a.c", *bn = "beta", *bf = "b.c";
		uint32_t s1[2], s2[2];
		s1[0] = synth_loc_at(p, 0x1000, true, -1, &an, NULL, &af, &la, 1);
		s1[1] = synth_loc_at(p, 0x2000, true, -1, &bn, NULL, &bf, &lb, 1);
		s2[0] = synth_loc_at(p, 0x3000, true, -1, &an, NULL, &af, &la2, 1);
		s2[1] = synth_loc_at(p, 0x4000, true, -1, &bn, NULL, &bf, &lb2, 1);
		synth_stack(p, s1, 2, 1000, 1);
		synth_stack(p, s2, 2, 3000, 3);
	}
	s = top_stacks(p, &rc);
	is_int(rc, 0, "top --stacks");
	ok(count(s, "\"frames\":") == 2, "colliding stacks stay two rows");
	snprintf(want, sizeof(want), "\"flat\":3000,\"cum\":3000,\"frames\":[{\"function\":\"alpha\",\"full_name\":\"alpha\","
	    "\"file\":\"a.c\",\"line\":%u", la2);
	ok(s && strstr(s, want) != NULL, "the bigger stack is its own row");
	snprintf(want, sizeof(want), "\"flat\":1000,\"cum\":1000,\"frames\":[{\"function\":\"alpha\",\"full_name\":\"alpha\","
	    "\"file\":\"a.c\",\"line\":%u", la);
	ok(s && strstr(s, want) != NULL, "the smaller stack is its own row");
	free(s);
	ying_profile_free(p);

	/* many distinct stacks: one row each */
	{
		const char *fn = "leaf", *file = "x.c";
		const char *cn = "caller", *cf = "y.c";
		uint32_t i, st[2], caller;
		p = synth_new("many", 1);
		caller = synth_loc_at(p, 0x10, true, -1, &cn, NULL, &cf, &lb, 1);
		for (i = 0; i < 50000; i++) {
			uint32_t line = i + 1;
			st[0] = synth_loc_at(p, 0x100000 + (uint64_t)i * 16, true, -1, &fn, NULL,
			    &file, &line, 1);
			st[1] = caller;
			synth_stack(p, st, 2, 16, 1);
		}
		s = top_stacks(p, &rc);
		is_int(rc, 0, "top --stacks over 50000 stacks");
		is_int(count(s, "\"frames\":"), 50000, "50000 distinct stacks, 50000 rows");
		free(s);
		ying_profile_free(p);
	}
	return tap_done();
}
