/*
 * test_ctl_heaps.c: yi_ctl_heaps_combine (live_ctl_heaps.c), the one
 * heap_v2 text of several jemallocs' dumps: two small dumps give exactly
 * the contract's text (t* header summed, the first heap's thread lines
 * only, the second heap's records with their t* lines, the first heap's
 * maps, the trailer); one dump alone; a period mismatch, malformed dumps
 * and bad names are refused with the right code; every truncation of a
 * dump either combines or fails, never crashes.
 */
#include <string.h>

#include "tap.h"
#include "ying-live.h"
#include "internal.h"
#include "live_ctl.h"

static const char rust[] =
"heap_v2/524288\n"
"  t*: 3: 3072 [0: 0]\n"
"  t0: 2: 2048 [0: 0]\n"
"  t1: 1: 1024 [0: 0]\n"
"@ 0x10 0x20\n"
"  t*: 2: 2048 [0: 0]\n"
"  t0: 2: 2048 [0: 0]\n"
"@ 0x30\n"
"  t*: 1: 1024 [0: 0]\n"
"  t1: 1: 1024 [0: 0]\n"
"\n"
"MAPPED_LIBRARIES:\n"
"00400000-00500000 r-xp 00000000 08:01 1 /bin/rustffi\n"
"ying-build-id: 400000 abcd\n";

static const char cee[] =
"heap_v2/524288\n"
"  t*: 5: 15000 [1: 7]\n"
"  t0: 5: 15000 [1: 7]\n"
"@ 0x40 0x50 0x60\n"
"  t*: 5: 15000 [1: 7]\n"
"  t0: 5: 15000 [1: 7]\n"
"\n"
"MAPPED_LIBRARIES:\n"
"other maps, not used\n";

static const char want[] =
"heap_v2/524288\n"
"  t*: 8: 18072 [1: 7]\n"
"  t0: 2: 2048 [0: 0]\n"
"  t1: 1: 1024 [0: 0]\n"
"@ 0x10 0x20\n"
"  t*: 2: 2048 [0: 0]\n"
"  t0: 2: 2048 [0: 0]\n"
"@ 0x30\n"
"  t*: 1: 1024 [0: 0]\n"
"  t1: 1: 1024 [0: 0]\n"
"@ 0x40 0x50 0x60\n"
"  t*: 5: 15000 [1: 7]\n"
"\n"
"MAPPED_LIBRARIES:\n"
"00400000-00500000 r-xp 00000000 08:01 1 /bin/rustffi\n"
"ying-build-id: 400000 abcd\n"
"ying-heap: rust 2\n"
"ying-heap: c 1\n";

static int
combine2(const char *a, size_t al, const char *b, size_t bl, const char *na,
    const char *nb, char **out, size_t *len)
{
	const char *d[2] = { a, b }, *n[2] = { na, nb };
	size_t l[2] = { al, bl };

	return yi_ctl_heaps_combine(d, l, n, 2, out, len);
}

int
main(void)
{
	char *out = NULL, buf[1024];
	size_t len = 0;
	int rc;

	rc = combine2(rust, strlen(rust), cee, strlen(cee), "rust", "c", &out, &len);
	is_int(rc, 0, "two heaps combine");
	is_str(out ? out : "", want, "the combined text is the contract's");
	is_int(len, strlen(want), "its length");
	yi_free(out);

	/* one dump alone: the same text plus its trailer line */
	{
		const char *d[1] = { cee }, *n[1] = { "c" };
		size_t l[1] = { strlen(cee) };
		rc = yi_ctl_heaps_combine(d, l, n, 1, &out, &len);
		is_int(rc, 0, "one heap combines");
		ok(out && strstr(out, "@ 0x40 0x50 0x60\n  t*: 5: 15000 [1: 7]\n  t0: 5:") != NULL,
		    "the first heap keeps its per-thread lines");
		ok(out && len > 15 && strcmp(out + len - 15, "ying-heap: c 1\n") == 0,
		    "its trailer line ends the text");
		yi_free(out);
	}

	/* a period mismatch */
	snprintf(buf, sizeof(buf), "%s", cee);
	memcpy(buf, "heap_v2/1048576", 15);
	memmove(buf + 15, cee + 14, strlen(cee + 14) + 1);
	rc = combine2(rust, strlen(rust), buf, strlen(buf), "rust", "c", &out, &len);
	is_int(rc, YING_ENOTSUP, "periods that differ: YING_ENOTSUP");
	ok(out == NULL, "and no text");
	ok(strstr(ying_last_error(), "1048576") != NULL &&
	    strstr(ying_last_error(), "524288") != NULL, "the error names both periods");

	/* malformed dumps, bad names */
	rc = combine2(rust, strlen(rust), "heap_v1/8\n", 10, "rust", "c", &out, &len);
	is_int(rc, YING_EPARSE, "not heap_v2: YING_EPARSE");
	ok(strstr(ying_last_error(), "heap c") != NULL, "naming the heap");
	rc = combine2(rust, strlen(rust), "heap_v2/524288\n  t*: x\n", 22, "rust", "c",
	    &out, &len);
	is_int(rc, YING_EPARSE, "a bad header t* line: YING_EPARSE");
	{
		static const char g[] = "heap_v2/524288\n  t*: 1: 2 [0: 0]\nhello\n@ 0x1\n";
		rc = combine2(rust, strlen(rust), g, sizeof(g) - 1, "rust", "c", &out, &len);
	}
	is_int(rc, YING_EPARSE, "garbage in the header: YING_EPARSE");
	ok(strstr(ying_last_error(), "line 3") != NULL, "naming the line");
	rc = combine2(rust, strlen(rust), cee, strlen(cee), "Rust", "c", &out, &len);
	is_int(rc, YING_EINVAL, "an upper-case name: YING_EINVAL");
	rc = combine2(rust, strlen(rust), cee, strlen(cee), "c", "c", &out, &len);
	is_int(rc, YING_EINVAL, "two heaps of one name: YING_EINVAL");
	rc = combine2(rust, strlen(rust), cee, strlen(cee), "rust",
	    "abcdefghijabcdefghijabcdefghijabc", &out, &len);
	is_int(rc, YING_EINVAL, "a 33-character name: YING_EINVAL");
	rc = yi_ctl_heaps_combine(NULL, NULL, NULL, 0, &out, &len);
	is_int(rc, YING_EINVAL, "no dumps: YING_EINVAL");

	/* header t* overflow */
	{
		static const char a[] = "heap_v2/1\n  t*: 18446744073709551615: 1 [0: 0]\n";
		static const char b[] = "heap_v2/1\n  t*: 1: 1 [0: 0]\n";
		rc = combine2(a, sizeof(a) - 1, b, sizeof(b) - 1, "rust", "c", &out, &len);
	}
	is_int(rc, YING_EPARSE, "header counts that overflow: YING_EPARSE");

	/* every truncation of the second dump: combined or refused */
	{
		int bad = 0;
		for (size_t n = 0; n <= strlen(cee); n++) {
			rc = combine2(rust, strlen(rust), cee, n, "rust", "c", &out, &len);
			if (rc == 0) {
				if (out == NULL || strstr(out, "ying-heap: rust 2\n") == NULL)
					bad++;
				yi_free(out);
			} else if (rc != YING_EPARSE || out != NULL) {
				bad++;
			}
		}
		is_int(bad, 0, "each truncation of a dump combines or is YING_EPARSE");
	}
	return tap_done();
}
