/*
 * test_util.c: the small pieces everything else stands on: interned strings,
 * the hash map, sinks and escapers, size parsing, gzip.
 */
#include "internal.h"
#include "tap.h"

extern long yi_alloc_fail_countdown;

int
main(void)
{
	yi_strtab t;
	yi_map64 m;
	uint32_t a, b, c, *slot;
	bool added;
	int i, rc;
	double d;
	char buf[64];

	/* strtab */
	is_int(yi_strtab_init(&t), 0, "strtab init");
	yi_strtab_intern(&t, "malloc", 6, &a);
	yi_strtab_intern(&t, "free", 4, &b);
	yi_strtab_intern(&t, "malloc", 6, &c);
	ok(a == c && a != b, "interning dedupes");
	is_str(yi_strtab_get(&t, 0), "", "id 0 is the empty string");
	for (i = 0; i < 20000; i++) {
		snprintf(buf, sizeof(buf), "fn_%d", i);
		yi_strtab_intern(&t, buf, strlen(buf), &c);
	}
	yi_strtab_intern(&t, "fn_12345", 8, &c);
	is_str(yi_strtab_get(&t, c), "fn_12345", "lookup after growth");
	is_str(yi_strtab_get(&t, a), "malloc", "old pointers survive growth");
	yi_strtab_release(&t);

	/* map64 */
	is_int(yi_map64_init(&m, 4), 0, "map init");
	for (i = 0; i < 100000; i++)
		yi_map64_put(&m, (uint64_t)i * 4096, (uint32_t)i, &slot, &added);
	ok(yi_map64_get(&m, 4096 * 777) && *yi_map64_get(&m, 4096 * 777) == 777, "map lookup");
	ok(yi_map64_get(&m, 3) == NULL, "map miss");
	yi_map64_put(&m, 0, 5, &slot, &added);
	ok(!added && *slot == 0, "existing key kept");
	yi_map64_release(&m);

	/* membuf sink and bounds */
	{
		ying_membuf mb = YING_MEMBUF_INIT;
		yi_out *o = malloc(sizeof(*o));
		yi_out_init(o, ying_write_membuf, &mb);
		yi_out_json_str(o, "a\"b\\c\n\x01<\xc3\xa9\xff");
		yi_out_putc(o, ' ');
		yi_out_xml(o, "std::map<int, char*>& \"q\"");
		yi_out_putc(o, ' ');
		yi_out_json_num(o, 125520189.0);
		yi_out_putc(o, ' ');
		yi_out_json_num(o, 0.5);
		is_int(yi_out_finish(o), 0, "membuf write");
		is_str(mb.data, "\"a\\\"b\\\\c\\n\\u0001<\xc3\xa9\\ufffd\" std::map&lt;int, char*&gt;&amp; "
		    "&quot;q&quot; 125520189 0.5", "escapes");
		ying_membuf_release(&mb);
		mb.max = 10;
		yi_out_init(o, ying_write_membuf, &mb);
		yi_out_puts(o, "0123456789abc");
		is_int(yi_out_finish(o), YING_ELIMIT, "membuf max enforced");
		ying_membuf_release(&mb);
		free(o);
	}

	/* sizes */
	is_int(ying_parse_size("10MiB", &d), 0, "10MiB");
	is_near(d, 10485760, 0, "10MiB value");
	ying_parse_size("512k", &d);
	is_near(d, 524288, 0, "512k");
	ying_parse_size("1.5GB", &d);
	is_near(d, 1610612736, 0, "1.5GB");
	ying_parse_size("4096", &d);
	is_near(d, 4096, 0, "plain bytes");
	is_int(ying_parse_size("10 parsecs", &d), YING_EINVAL, "bad unit");
	is_int(ying_parse_size("-5M", &d), YING_EINVAL, "negative");
	is_str(yi_fmt_bytes(1536, buf, sizeof(buf)), "1.50 KiB", "fmt KiB");
	is_str(yi_fmt_bytes(125520189, buf, sizeof(buf)), "119.7 MiB", "fmt MiB");
	is_str(yi_fmt_bytes(-2048, buf, sizeof(buf)), "-2.00 KiB", "fmt negative");

	/* gzip round trip and a bomb bound */
	{
		ying_membuf mb = YING_MEMBUF_INIT;
		yi_gzout *g;
		void *plain;
		size_t plen;
		char *zeros = calloc(1, 1 << 20);
		is_int(yi_gzout_new(&g, ying_write_membuf, &mb, 6), 0, "gzout new");
		for (i = 0; i < 8; i++)
			yi_gzout_write(g, zeros, 1 << 20);
		is_int(yi_gzout_finish(g), 0, "gzout finish");
		ok(yi_is_gzip(mb.data, mb.len), "gzip magic");
		rc = yi_gunzip(mb.data, mb.len, 64 << 20, &plain, &plen, "z");
		ok(rc == 0 && plen == 8u << 20, "gunzip round trip");
		free(plain);
		rc = yi_gunzip(mb.data, mb.len, 1 << 20, &plain, &plen, "bomb");
		is_int(rc, YING_ELIMIT, "decompression bound enforced");
		rc = yi_gunzip("\x1f\x8bgarbage", 9, 1 << 20, &plain, &plen, "bad");
		is_int(rc, YING_EPARSE, "corrupt gzip");
		ying_membuf_release(&mb);
		free(zeros);
	}

	/* out-of-memory paths report ENOMEM, never crash */
	{
		const char *dump = "heap_v2/1\n  t*: 1: 10 [0: 0]\n@ 0x10 0x20\n  t*: 1: 10 [0: 0]\n"
		    "\nMAPPED_LIBRARIES:\n00400000-00401000 r-xp 00000000 08:01 1 /bin/x\n";
		int n, bad = 0, enomem = 0;
		for (n = 1; n < 200; n++) {
			ying_profile *p = NULL;
			yi_alloc_fail_countdown = n;
			rc = ying_profile_read_mem(&p, dump, strlen(dump), "oom");
			yi_alloc_fail_countdown = 0;
			if (rc == YING_ENOMEM && p == NULL)
				enomem++;
			else if (rc != 0)
				bad++;
			ying_profile_free(p);
			if (rc == 0)
				break;
		}
		ok(enomem > 5 && bad == 0, "every failed allocation while parsing gives ENOMEM");
	}
	is_str(ying_strerror(YING_EPARSE), "malformed input", "strerror");
	is_str(ying_strerror(12345), "unknown error", "strerror unknown");
	return tap_done();
}
