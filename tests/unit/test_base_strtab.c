/*
 * test_base_strtab.c: interned strings (strtab.c): dedup, id 0, lookups
 * and pointer stability across growth, embedded lengths.
 */
#include "internal.h"
#include "tap.h"

int
main(void)
{
	yi_strtab t;
	uint32_t a, b, c, d, e;
	const char *malloc_ptr;
	int i, bad = 0;
	char buf[64];

	is_int(yi_strtab_init(&t), 0, "strtab init");
	is_int(yi_strtab_intern(&t, "malloc", 6, &a), 0, "intern malloc");
	is_int(yi_strtab_intern(&t, "free", 4, &b), 0, "intern free");
	is_int(yi_strtab_intern(&t, "malloc", 6, &c), 0, "intern malloc again");
	ok(a == c && a != b, "interning dedupes");
	is_str(yi_strtab_get(&t, 0), "", "id 0 is the empty string");
	is_int(yi_strtab_intern(&t, "", 0, &d), 0, "intern the empty string");
	is_int(d, 0, "the empty string is id 0");
	/* a prefix is a different string: the length is part of the key */
	is_int(yi_strtab_intern(&t, "mallocx", 4, &e), 0, "intern a prefix");
	ok(e != a && e != b, "'mall' is not 'malloc'");
	is_str(yi_strtab_get(&t, e), "mall", "only len bytes are interned");
	is_int(yi_strtab_len(&t, e), 4, "its length");
	malloc_ptr = yi_strtab_get(&t, a);
	for (i = 0; i < 20000; i++) {
		snprintf(buf, sizeof(buf), "fn_%d", i);
		if (yi_strtab_intern(&t, buf, strlen(buf), &c) != 0)
			bad++;
	}
	is_int(bad, 0, "20000 interns succeed");
	is_int(yi_strtab_intern(&t, "fn_12345", 8, &c), 0, "intern after growth");
	is_str(yi_strtab_get(&t, c), "fn_12345", "lookup after growth");
	is_str(yi_strtab_get(&t, a), "malloc", "old ids survive growth");
	ok(yi_strtab_get(&t, a) == malloc_ptr, "old pointers survive growth");
	/* every string is still found under its own id */
	for (i = 0, bad = 0; i < 20000; i++) {
		snprintf(buf, sizeof(buf), "fn_%d", i);
		if (yi_strtab_intern(&t, buf, strlen(buf), &c) != 0 ||
		    strcmp(yi_strtab_get(&t, c), buf) != 0)
			bad++;
	}
	is_int(bad, 0, "re-interning finds every string");
	yi_strtab_release(&t);
	return tap_done();
}
