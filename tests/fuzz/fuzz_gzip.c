/*
 * fuzz_gzip.c: the gzip decoder (yi_gunzip, base_gz.c) with a 16 MiB
 * bound, and the encoder round trip: what yi_gzout compresses, yi_gunzip
 * must give back byte for byte (abort otherwise).  Input: any bytes; the
 * first byte picks the compression level of the round trip.
 */
#include "fuzz.h"

static int
to_membuf(void *opaque, const void *p, size_t n)
{
	return ying_write_membuf(opaque, p, n);
}

FUZZ_TARGET(gzip)
{
	void *out = NULL;
	size_t outlen = 0;
	ying_membuf z = YING_MEMBUF_INIT;
	yi_gzout *g = NULL;

	/* decode: gzip bytes or not */
	if (yi_gunzip(data, size, (size_t)16 << 20, &out, &outlen, "fuzz") == 0)
		yi_free(out);
	out = NULL;
	yi_error_clear();

	/* round trip */
	if (yi_gzout_new(&g, to_membuf, &z, size ? data[0] % 10 : 6) != 0)
		abort();
	if (yi_gzout_write(g, data, size) != 0 || yi_gzout_finish(g) != 0)
		abort();
	if (yi_gunzip(z.data, z.len, size + 1, &out, &outlen, "round trip") != 0)
		abort();
	if (outlen != size || (size && memcmp(out, data, size) != 0))
		abort();
	yi_free(out);
	ying_membuf_release(&z);
	yi_error_clear();
	return 0;
}
