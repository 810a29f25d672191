/*
 * test_base_gz.c: gzip in and out (gz.c): a streamed round trip, the magic
 * check, the decompression bound (a gzip bomb), corrupt input, abort.
 */
#include "internal.h"
#include "tap.h"

int
main(void)
{
	ying_membuf mb = YING_MEMBUF_INIT;
	yi_gzout *g;
	void *plain = NULL;
	size_t plen = 0;
	char *zeros = calloc(1, 1 << 20);
	int i, rc, bad = 0;

	is_int(yi_gzout_new(&g, ying_write_membuf, &mb, 6), 0, "gzout new");
	for (i = 0; i < 8; i++)
		if (yi_gzout_write(g, zeros, 1 << 20) != 0)
			bad++;
	is_int(bad, 0, "8 MiB written");
	is_int(yi_gzout_finish(g), 0, "gzout finish");
	ok(yi_is_gzip(mb.data, mb.len), "gzip magic");
	ok(mb.len < (1u << 20), "zeros compress");
	ok(!yi_is_gzip("heap_v2/1", 9), "text is not gzip");
	ok(!yi_is_gzip("\x1f", 1), "one byte is not gzip");
	rc = yi_gunzip(mb.data, mb.len, 64 << 20, &plain, &plen, "z");
	ok(rc == 0 && plen == 8u << 20, "gunzip round trip");
	ok(plain && memcmp(plain, zeros, 1 << 20) == 0, "round trip bytes");
	free(plain);
	plain = NULL;
	rc = yi_gunzip(mb.data, mb.len, 1 << 20, &plain, &plen, "bomb");
	is_int(rc, YING_ELIMIT, "decompression bound enforced");
	has_str(ying_last_error(), "bomb", "the bound error names the input");
	rc = yi_gunzip("\x1f\x8bgarbage", 9, 1 << 20, &plain, &plen, "bad");
	is_int(rc, YING_EPARSE, "corrupt gzip");
	has_str(ying_last_error(), "bad", "the parse error names the input");
	/* cut in the middle */
	rc = yi_gunzip(mb.data, mb.len / 2, 64 << 20, &plain, &plen, "cut");
	ok(rc < 0, "truncated gzip is an error");
	ying_membuf_release(&mb);

	/* abort writes nothing more */
	is_int(yi_gzout_new(&g, ying_write_membuf, &mb, 6), 0, "gzout new for abort");
	is_int(yi_gzout_write(g, "hello", 5), 0, "small write");
	yi_gzout_abort(g);
	ok(mb.len < 18, "abort does not write a complete stream");
	ying_membuf_release(&mb);
	free(zeros);
	return tap_done();
}
