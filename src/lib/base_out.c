/*
 * base_out.c: sinks and buffered output.
 *
 * Writers never call stdio directly: they format into a yi_out, a 64 KiB
 * buffer in front of a ying_write_fn.  The first sink error is remembered and
 * later writes become no-ops, so writers check once at the end
 * (yi_out_finish) instead of after every line.  Also here: the two ready
 * sinks of the public API (FILE * and growable memory) and the escapers for
 * JSON and XML text and for text on a terminal (yi_out_text).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "base.h"

int
ying_write_file(void *opaque, const void *data, size_t len)
{
	FILE *f = opaque;

	if (len && fwrite(data, 1, len, f) != len)
		return yi_error(YING_EIO, "write failed: %s", strerror(errno));
	return 0;
}

int
ying_write_membuf(void *opaque, const void *data, size_t len)
{
	ying_membuf *b = opaque;
	size_t need, ncap;
	char *nd;

	if (len > SIZE_MAX - b->len - 1)
		return yi_oom("growing an output buffer");
	need = b->len + len + 1;
	if (b->max && need - 1 > b->max)
		return yi_error(YING_ELIMIT, "output exceeds the %zu-byte limit", b->max);
	if (need > b->cap) {
		ncap = b->cap ? b->cap : 4096;
		while (ncap < need)
			ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
		nd = yi_realloc(b->data, ncap);
		if (nd == NULL)
			return yi_oom("growing an output buffer");
		b->data = nd;
		b->cap = ncap;
	}
	memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

void
ying_membuf_release(ying_membuf *b)
{
	if (b == NULL)
		return;
	yi_free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

void
yi_out_init(yi_out *o, ying_write_fn fn, void *opaque)
{
	o->fn = fn;
	o->opaque = opaque;
	o->err = 0;
	o->len = 0;
}

static void
flush(yi_out *o)
{
	if (o->len && o->err == 0)
		o->err = o->fn(o->opaque, o->buf, o->len);
	o->len = 0;
}

void
yi_out_write(yi_out *o, const void *p, size_t n)
{
	if (o->err)
		return;
	if (n > sizeof(o->buf) - o->len) {
		flush(o);
		if (n >= sizeof(o->buf)) {
			if (o->err == 0)
				o->err = o->fn(o->opaque, p, n);
			return;
		}
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

void
yi_out_puts(yi_out *o, const char *s)
{
	yi_out_write(o, s, strlen(s));
}

void
yi_out_putc(yi_out *o, char c)
{
	if (o->len == sizeof(o->buf))
		flush(o);
	o->buf[o->len++] = c;
}

/* A ying_write_fn over a yi_out, for yi_write_vprintf. */
static int
out_sink(void *opaque, const void *data, size_t len)
{
	yi_out *o = opaque;

	yi_out_write(o, data, len);
	return o->err;
}

int
yi_write_vprintf(ying_write_fn fn, void *opaque, const char *fmt, va_list ap)
{
	char small[512], *big;
	va_list ap2;
	int n, rc;

	va_copy(ap2, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return 0;       /* an encoding error: nothing to write */
	if ((size_t)n < sizeof(small))
		return fn(opaque, small, (size_t)n);
	if ((big = yi_malloc((size_t)n + 1)) == NULL)
		return yi_oom("formatting output");
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	rc = fn(opaque, big, (size_t)n);
	yi_free(big);
	return rc;
}

void
yi_out_printf(yi_out *o, const char *fmt, ...)
{
	va_list ap;
	int n, rc;

	if (o->err)
		return;
	if (sizeof(o->buf) - o->len < 512)
		flush(o);
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, sizeof(o->buf) - o->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(o->buf) - o->len) {
		o->len += (size_t)n;
		return;
	}
	/* Longer than the free space: format into a temporary. */
	va_start(ap, fmt);
	rc = yi_write_vprintf(out_sink, o, fmt, ap);
	va_end(ap);
	if (rc != 0 && o->err == 0)
		o->err = rc;
}

/* The one UTF-8 rule (RFC 3629): no overlong forms, no surrogates, nothing
 * above U+10FFFF.  Reads at most up to the first invalid byte, so a NUL
 * terminator stops it. */
size_t
yi_utf8_len(const unsigned char *s)
{
	unsigned c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if (c == 0xe0 && s[1] < 0xa0)
			return 0;   /* overlong */
		if (c == 0xed && s[1] >= 0xa0)
			return 0;   /* surrogate */
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))
			return 0;   /* overlong, above U+10FFFF */
		return 4;
	}
	return 0;
}

void
yi_out_json_str(yi_out *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	yi_out_putc(o, '"');
	for (; *p; p++) {
		unsigned char c = *p;
		switch (c) {
		case '"': yi_out_write(o, "\\\"", 2); break;
		case '\\': yi_out_write(o, "\\\\", 2); break;
		case '\n': yi_out_write(o, "\\n", 2); break;
		case '\r': yi_out_write(o, "\\r", 2); break;
		case '\t': yi_out_write(o, "\\t", 2); break;
		default:
			if (c < 0x20 || c == 0x7f)
				yi_out_printf(o, "\\u%04x", c);
			else if (c < 0x80)
				yi_out_putc(o, (char)c);
			else {
				/* Pass valid UTF-8 through, escape stray bytes as U+FFFD. */
				size_t len = yi_utf8_len((const unsigned char *)p);
				if (len == 0) {
					yi_out_puts(o, "\\ufffd");
				} else {
					yi_out_write(o, p, len);
					p += len - 1;
				}
			}
		}
	}
	yi_out_putc(o, '"');
}

/* The text rule: strings from a profile (function, file, map and program
 * names: whatever the dump says) must not reach a terminal as control
 * sequences or break a row.  Bytes < 0x20 and 0x7f become \n, \r, \t or
 * \xHH; valid UTF-8 passes, except C1 controls (U+0080..U+009F, which some
 * terminals obey), which become \xc2\xHH like every invalid byte.  A
 * backslash stays itself, so ordinary names print unchanged. */
static size_t
text_escape_one(const unsigned char *p, char esc[16])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c = *p;
	size_t len;

	if (c == '\n' || c == '\r' || c == '\t') {
		esc[0] = '\\';
		esc[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
		esc[2] = '\0';
		return 1;
	}
	len = c < 0x20 || c == 0x7f ? 0 : yi_utf8_len(p);
	if (len == 2 && c == 0xc2 && p[1] <= 0x9f) {
		snprintf(esc, 16, "\\x%c%c\\x%c%c", hex[c >> 4], hex[c & 15],
		    hex[p[1] >> 4], hex[p[1] & 15]);
		return 2;
	}
	if (len == 0) {
		snprintf(esc, 16, "\\x%c%c", hex[c >> 4], hex[c & 15]);
		return 1;
	}
	esc[0] = '\0';     /* no escape: len bytes pass as they are */
	return len;
}

void
yi_text_escape(const char *s, ying_write_fn fn, void *opaque)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;
	char esc[16];

	while (*p) {
		size_t n = text_escape_one(p, esc);
		if (esc[0] == '\0') {
			p += n;
			continue;
		}
		if (p > run)
			fn(opaque, run, (size_t)(p - run));
		fn(opaque, esc, strlen(esc));
		p += n;
		run = p;
	}
	if (p > run)
		fn(opaque, run, (size_t)(p - run));
}

static int
out_text_sink(void *opaque, const void *data, size_t len)
{
	yi_out_write(opaque, data, len);
	return 0;
}

void
yi_out_text(yi_out *o, const char *s)
{
	yi_text_escape(s, out_text_sink, o);
}

char *
yi_text_escape_dup(const char *s)
{
	ying_membuf b = YING_MEMBUF_INIT;
	char *r;

	yi_text_escape(s, ying_write_membuf, &b);
	if (ying_write_membuf(&b, "", 1) != 0) {
		ying_membuf_release(&b);
		return NULL;
	}
	r = yi_strdup((const char *)b.data);
	ying_membuf_release(&b);
	return r;
}

void
yi_out_json_num(yi_out *o, double v)
{
	if (!isfinite(v))
		v = 0;
	if (v == floor(v) && fabs(v) < 9.007199254740992e15)
		yi_out_printf(o, "%.0f", v);
	else
		yi_out_printf(o, "%.17g", v);
}

void
yi_out_xml(yi_out *o, const char *s)
{
	const char *run = s;

	for (; *s; s++) {
		const char *rep = NULL;
		switch (*s) {
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '&': rep = "&amp;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default:
			if ((unsigned char)*s < 0x20 && *s != '\t')
				rep = " ";
		}
		if (rep) {
			yi_out_write(o, run, (size_t)(s - run));
			yi_out_puts(o, rep);
			run = s + 1;
		}
	}
	yi_out_write(o, run, (size_t)(s - run));
}

void
yi_out_where(yi_out *o, const char *name, const char *file, uint32_t line)
{
	yi_out_text(o, name);
	if (file && *file) {
		const char *base = strrchr(file, '/');
		yi_out_puts(o, " (");
		yi_out_text(o, base ? base + 1 : file);
		if (line)
			yi_out_printf(o, ":%u", line);
		yi_out_putc(o, ')');
	}
}

int
yi_out_finish(yi_out *o)
{
	flush(o);
	return o->err;
}
