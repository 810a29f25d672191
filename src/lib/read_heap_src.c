/*
 * read_heap_src.c: the heap_v2 reader's input side: a byte source over
 * memory or a gzFile (plain files pass through), read line by line through
 * a 1 MiB window, and the parsers of single fields (hex addresses, the
 * counts of a `t*:` line, thread tags), each naming the source, the line
 * and what was expected on error.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "read_heap.h"

/* ---- byte sources: memory, or a gzFile (plain files pass through) ------- */


static int
src_fill(src *s)
{
	size_t keep = s->end - s->start;

	if (s->start > 0) {
		memmove(s->buf, s->buf + s->start, keep);
		s->start = 0;
		s->end = keep;
	}
	if (s->eof || s->end == WINDOW)
		return 0;
	if (s->gz) {
		int n = gzread(s->gz, s->buf + s->end, (unsigned)(WINDOW - s->end));
		if (n < 0) {
			int zerr;
			const char *m = gzerror(s->gz, &zerr);
			return yi_error(zerr == Z_ERRNO ? YING_EIO : YING_EPARSE,
			    "%s: read failed: %s", s->name, zerr == Z_ERRNO ? strerror(errno) : m);
		}
		if (n == 0) {
			/* zlib reports a cut-off gzip stream only through gzerror. */
			int zerr;
			gzerror(s->gz, &zerr);
			if (zerr == Z_BUF_ERROR)
				return yi_error(YING_EPARSE, "%s: gzip data is truncated "
				    "(the file ends inside the compressed stream)", s->name);
			s->eof = true;
		}
		s->end += (size_t)n;
	} else {
		size_t n = s->memlen - s->mempos;
		if (n > WINDOW - s->end)
			n = WINDOW - s->end;
		memcpy(s->buf + s->end, s->mem + s->mempos, n);
		s->mempos += n;
		s->end += n;
		if (s->mempos == s->memlen)
			s->eof = true;
	}
	return 0;
}

/*
 * Next line, without its '\n' (and a trailing '\r'), NUL-terminated in
 * place.  *line = NULL at end of input.  *complete says whether the line
 * ended with '\n' (a final line without it means a truncated file).
 */
int
yi_heap_src_line(src *s, char **line, size_t *len, bool *complete)
{
	char *nl;
	int rc;

	for (;;) {
		nl = memchr(s->buf + s->start, '\n', s->end - s->start);
		if (nl || s->eof)
			break;
		if (s->end - s->start == WINDOW)
			return yi_error(YING_EPARSE, "%s:%lu: line longer than %u bytes",
			    s->name, s->lineno + 1, WINDOW);
		if ((rc = src_fill(s)) != 0)
			return rc;
	}
	if (nl == NULL && s->start == s->end) {
		*line = NULL;
		return 0;
	}
	s->lineno++;
	*line = s->buf + s->start;
	if (nl) {
		*len = (size_t)(nl - *line);
		*complete = true;
		s->start = (size_t)(nl - s->buf) + 1;
	} else {
		/* Last line without newline: terminate it in the spare byte. */
		*len = s->end - s->start;
		*complete = false;
		s->start = s->end;
	}
	(*line)[*len] = '\0';
	if (*len && (*line)[*len - 1] == '\r')
		(*line)[--*len] = '\0';
	return 0;
}

/* ---- field parsers ------------------------------------------------------- */

int
yi_heap_perr(const src *s, const char *what, const char *at, const char *line)
{
	return yi_error(YING_EPARSE, "%s:%lu:%ld: %s", s->name, s->lineno,
	    (long)(at - line) + 1, what);
}

/* Digit values plus one (0: not a digit of that base); no locale, no
 * branches per digit class (yi_heap_hex1: read_heap.h's inline hex parser). */
static const uint8_t dec1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
};
const uint8_t yi_heap_hex1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* Unsigned decimal; false (and *pp unmoved) on no digit or overflow. */
bool
yi_heap_parse_u64(const char **pp, uint64_t *out)
{
	const unsigned char *p = (const unsigned char *)*pp;
	const uint64_t lim = UINT64_MAX / 10;      /* 1844674407370955161 */
	uint64_t v = 0;
	unsigned d;

	if (dec1[*p] == 0)
		return false;
	for (; (d = dec1[*p]) != 0; p++) {
		d--;
		/* v * 10 + d <= UINT64_MAX unless v > lim or (v == lim, d > 5) */
		if (v >= lim && (v > lim || d > UINT64_MAX % 10))
			return false;
		v = v * 10 + d;
	}
	*pp = (const char *)p;
	*out = v;
	return true;
}

/*
 * "<c>: <b> [<ac>: <ab>]" after the "t*:" / "tN:" tag.  *rest points past
 * the closing bracket (thread names follow there).
 */
int
yi_heap_parse_counts(const src *s, const char *line, const char *p, yi_counts *c,
    const char **rest)
{
	p = yi_heap_skip_ws(p);
	if (!yi_heap_parse_u64(&p, &c->objs))
		return yi_heap_perr(s, "expected an object count (unsigned decimal)", p, line);
	if (*p != ':')
		return yi_heap_perr(s, "expected ':' after the object count", p, line);
	p = yi_heap_skip_ws(p + 1);
	if (!yi_heap_parse_u64(&p, &c->bytes))
		return yi_heap_perr(s, "expected a byte count (unsigned decimal)", p, line);
	p = yi_heap_skip_ws(p);
	if (*p != '[')
		return yi_heap_perr(s, "expected '[' before the cumulative counts", p, line);
	p = yi_heap_skip_ws(p + 1);
	if (!yi_heap_parse_u64(&p, &c->acc_objs))
		return yi_heap_perr(s, "expected a cumulative object count", p, line);
	if (*p != ':')
		return yi_heap_perr(s, "expected ':' after the cumulative object count", p, line);
	p = yi_heap_skip_ws(p + 1);
	if (!yi_heap_parse_u64(&p, &c->acc_bytes))
		return yi_heap_perr(s, "expected a cumulative byte count", p, line);
	p = yi_heap_skip_ws(p);
	if (*p != ']')
		return yi_heap_perr(s, "expected ']' after the cumulative counts", p, line);
	*rest = p + 1;
	return 0;
}

/* A thread line tag: "t*:" (uid = NULL) or "t<uid>:". */
int
yi_heap_parse_tag(const src *s, const char *line, const char **pp, bool *star, uint64_t *uid)
{
	const char *p = yi_heap_skip_ws(*pp);

	if (*p != 't')
		return yi_heap_perr(s, "expected 't*:' or 't<thread>:'", p, line);
	p++;
	if (*p == '*') {
		*star = true;
		p++;
	} else {
		*star = false;
		if (!yi_heap_parse_u64(&p, uid))
			return yi_heap_perr(s, "expected '*' or a thread number after 't'", p, line);
	}
	if (*p != ':')
		return yi_heap_perr(s, "expected ':' after the thread tag", p, line);
	*pp = p + 1;
	return 0;
}

bool
yi_heap_is_thread_line(const char *line)
{
	const char *p = yi_heap_skip_ws(line);
	return p != line && p[0] == 't' && (p[1] == '*' || isdigit((unsigned char)p[1]));
}
