/*
 * base_gz.c: gzip in both directions, through zlib.
 *
 * Dumps may arrive gzipped (files, HTTP bodies) and pprof output is always
 * gzipped.  Inflation is bounded by a caller-given maximum so a small
 * hostile "zip bomb" body cannot exhaust memory; deflation streams into a
 * sink so a large pprof is never held twice.
 */
#include <zlib.h>

#include "base.h"

bool
yi_is_gzip(const void *data, size_t len)
{
	const unsigned char *d = data;
	return len >= 2 && d[0] == 0x1f && d[1] == 0x8b;
}

int
yi_gunzip(const void *data, size_t len, size_t max, void **out, size_t *outlen,
    const char *name)
{
	const unsigned char *in = data;
	z_stream zs;
	unsigned char *buf, *nb;
	size_t cap, n = 0, used;
	int zr, rc = 0;

	*out = NULL;
	*outlen = 0;
	cap = len < (SIZE_MAX - 4096) / 4 ? len * 4 + 4096 : max;
	if (cap > max)
		cap = max;
	if ((buf = yi_malloc(cap + 1)) == NULL)
		return yi_oom("decompressing gzip data");
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
		yi_free(buf);
		return yi_oom("starting gzip decompression");
	}
	zs.next_in = (Bytef *)in;
	for (;;) {
		if (n == cap) {
			if (cap >= max) {
				rc = yi_error(YING_ELIMIT, "%s: decompressed size exceeds %zu bytes", name, max);
				goto done;
			}
			cap = cap > max / 2 ? max : cap * 2;
			if ((nb = yi_realloc(buf, cap + 1)) == NULL) {
				rc = yi_oom("decompressing gzip data");
				goto done;
			}
			buf = nb;
		}
		used = (size_t)(zs.next_in - in);
		zs.avail_in = len - used > (1u << 30) ? (1u << 30) : (uInt)(len - used);
		zs.next_out = buf + n;
		zs.avail_out = cap - n > (1u << 30) ? (1u << 30) : (uInt)(cap - n);
		zr = inflate(&zs, Z_NO_FLUSH);
		n = (size_t)(zs.next_out - buf);
		used = (size_t)(zs.next_in - in);
		if (zr == Z_STREAM_END) {
			/* Concatenated gzip members continue the same stream. */
			if (used < len && yi_is_gzip(in + used, len - used)) {
				inflateReset(&zs);
				continue;
			}
			break;
		}
		if (zr == Z_OK)
			continue;
		if (zr == Z_BUF_ERROR && used == len) {
			rc = yi_error(YING_EPARSE, "%s: gzip data is truncated", name);
			goto done;
		}
		if (zr != Z_BUF_ERROR) {
			rc = yi_error(YING_EPARSE, "%s: corrupt gzip data (%s)", name,
			    zs.msg ? zs.msg : "inflate failed");
			goto done;
		}
	}
	buf[n] = '\0';
	*out = buf;
	*outlen = n;
	buf = NULL;
done:
	inflateEnd(&zs);
	yi_free(buf);
	return rc;
}

struct yi_gzout {
	z_stream zs;
	ying_write_fn fn;
	void *opaque;
	int err;
	unsigned char obuf[1 << 16];
};

int
yi_gzout_new(yi_gzout **out, ying_write_fn fn, void *opaque, int level)
{
	yi_gzout *g = yi_calloc(1, sizeof(*g));

	*out = NULL;
	if (g == NULL)
		return yi_oom("starting gzip compression");
	if (deflateInit2(&g->zs, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		yi_free(g);
		return yi_oom("starting gzip compression");
	}
	g->fn = fn;
	g->opaque = opaque;
	*out = g;
	return 0;
}

static int
pump(yi_gzout *g, int flush)
{
	int zr;

	do {
		g->zs.next_out = g->obuf;
		g->zs.avail_out = sizeof(g->obuf);
		zr = deflate(&g->zs, flush);
		if (zr == Z_STREAM_ERROR)
			return g->err = yi_error(YING_EIO, "gzip compression failed");
		if (sizeof(g->obuf) - g->zs.avail_out && g->err == 0)
			g->err = g->fn(g->opaque, g->obuf, sizeof(g->obuf) - g->zs.avail_out);
		if (g->err)
			return g->err;
	} while (g->zs.avail_out == 0 || (flush == Z_FINISH && zr != Z_STREAM_END));
	return 0;
}

int
yi_gzout_write(void *opaque, const void *data, size_t len)
{
	yi_gzout *g = opaque;
	const unsigned char *p = data;

	if (g->err)
		return g->err;
	while (len) {
		uInt chunk = len > (1u << 30) ? (1u << 30) : (uInt)len;
		g->zs.next_in = (Bytef *)p;
		g->zs.avail_in = chunk;
		if (pump(g, Z_NO_FLUSH) != 0)
			return g->err;
		p += chunk;
		len -= chunk;
	}
	return 0;
}

int
yi_gzout_finish(yi_gzout *g)
{
	int rc;

	if (g == NULL)
		return 0;
	g->zs.next_in = NULL;
	g->zs.avail_in = 0;
	rc = g->err ? g->err : pump(g, Z_FINISH);
	deflateEnd(&g->zs);
	yi_free(g);
	return rc;
}

void
yi_gzout_abort(yi_gzout *g)
{
	if (g == NULL)
		return;
	deflateEnd(&g->zs);
	yi_free(g);
}
