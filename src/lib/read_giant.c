/*
 * read_giant.c: "ying-giant/1" JSON (the giant-allocation listing of
 * GET /debug/heap/giant and the growth runner's giant.json, written by
 * live_giant.c) -> a ying_giant: the records, and a ying_profile with one
 * stack per call site.
 *
 * The JSON is read by a small recursive-descent reader that knows the
 * format's keys and skips unknown ones (bounded nesting, so hostile input
 * costs linear time and no deep recursion); every error names
 * NAME:LINE:COLUMN and what was expected.  The profile is made by the
 * heap_v2 reader itself, from a dump text written here (period 1, one '@'
 * line per call site, the listing's maps and build-id lines as its
 * MAPPED_LIBRARIES section), so mappings, build IDs and the symbolizer's
 * file checks work exactly as for a dump ying took.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read.h"

#define GJ_MAX_DEPTH 64           /* nesting of skipped values */
#define GJ_MAX_FRAMES 256         /* addresses per call site */
#define GJ_MAX_INPUT ((size_t)1 << 30)

typedef struct gj_site {
	uint64_t count, bytes;
	YI_VEC(uint64_t) pcs;
} gj_site;

typedef struct gj_rec {
	int64_t time_ns;
	uint64_t size, thread, seq;
	uint64_t site;
	char *kind;
} gj_rec;

struct ying_giant {
	uint64_t threshold, allocations, dropped;
	long pid;
	int64_t time_ns;
	YI_VEC(gj_site) sites;
	YI_VEC(gj_rec) recs;
	char *maps;
	ying_profile *prof;
};

typedef struct gj {
	const char *s;
	size_t n, i;
	const char *name;
} gj;

/* An error at the current position: NAME:LINE:COLUMN: what. */
static int YI_PRINTF(2, 3)
gj_err(gj *j, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	size_t line = 1, col = 1;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	for (size_t k = 0; k < j->i && k < j->n; k++) {
		if (j->s[k] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	if (j->i >= j->n)
		return yi_error(YING_EPARSE, "%s:%zu:%zu: %s (input ends here: truncated?)",
		    j->name, line, col, what);
	return yi_error(YING_EPARSE, "%s:%zu:%zu: %s", j->name, line, col, what);
}

static void
gj_ws(gj *j)
{
	while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\t' ||
	    j->s[j->i] == '\n' || j->s[j->i] == '\r'))
		j->i++;
}

/* Skip white space; the next character, or 0 at the end. */
static char
gj_peek(gj *j)
{
	gj_ws(j);
	return j->i < j->n ? j->s[j->i] : '\0';
}

static int
gj_expect(gj *j, char c)
{
	if (gj_peek(j) != c)
		return gj_err(j, "expected '%c'", c);
	j->i++;
	return 0;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int
gj_u4(gj *j, unsigned *v)
{
	*v = 0;
	for (int k = 0; k < 4; k++) {
		int h = j->i < j->n ? hexval(j->s[j->i]) : -1;
		if (h < 0)
			return gj_err(j, "expected 4 hex digits after '\\u'");
		*v = *v << 4 | (unsigned)h;
		j->i++;
	}
	return 0;
}

/* A string; *out (may be NULL: skipped) is yi_malloc'd, NUL-terminated. */
static int
gj_string(gj *j, char **out)
{
	YI_VEC(char) b = { NULL, 0, 0 };
	int rc = 0;

	if (out)
		*out = NULL;
	if (gj_peek(j) != '"')
		return gj_err(j, "expected a string");
	j->i++;
	for (;;) {
		char c;
		char u[4];
		size_t un = 0;

		if (j->i >= j->n) {
			rc = gj_err(j, "unterminated string");
			break;
		}
		c = j->s[j->i++];
		if (c == '"')
			break;
		if ((unsigned char)c < 0x20) {
			j->i--;
			rc = gj_err(j, "control character in a string");
			break;
		}
		if (c != '\\') {
			u[un++] = c;
		} else {
			unsigned cp;
			if (j->i >= j->n) {
				rc = gj_err(j, "unterminated string");
				break;
			}
			c = j->s[j->i++];
			switch (c) {
			case '"': case '\\': case '/': u[un++] = c; break;
			case 'b': u[un++] = '\b'; break;
			case 'f': u[un++] = '\f'; break;
			case 'n': u[un++] = '\n'; break;
			case 'r': u[un++] = '\r'; break;
			case 't': u[un++] = '\t'; break;
			case 'u':
				if ((rc = gj_u4(j, &cp)) != 0)
					goto done;
				if (cp >= 0xd800 && cp < 0xdc00) {
					unsigned lo;
					if (j->i + 1 >= j->n || j->s[j->i] != '\\' ||
					    j->s[j->i + 1] != 'u') {
						rc = gj_err(j, "expected a low surrogate");
						goto done;
					}
					j->i += 2;
					if ((rc = gj_u4(j, &lo)) != 0)
						goto done;
					if (lo < 0xdc00 || lo >= 0xe000) {
						rc = gj_err(j, "bad low surrogate");
						goto done;
					}
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				} else if (cp >= 0xdc00 && cp < 0xe000) {
					rc = gj_err(j, "lone low surrogate");
					goto done;
				}
				if (cp == 0) {
					rc = gj_err(j, "NUL character in a string");
					goto done;
				}
				if (cp < 0x80) {
					u[un++] = (char)cp;
				} else if (cp < 0x800) {
					u[un++] = (char)(0xc0 | cp >> 6);
					u[un++] = (char)(0x80 | (cp & 0x3f));
				} else if (cp < 0x10000) {
					u[un++] = (char)(0xe0 | cp >> 12);
					u[un++] = (char)(0x80 | (cp >> 6 & 0x3f));
					u[un++] = (char)(0x80 | (cp & 0x3f));
				} else {
					u[un++] = (char)(0xf0 | cp >> 18);
					u[un++] = (char)(0x80 | (cp >> 12 & 0x3f));
					u[un++] = (char)(0x80 | (cp >> 6 & 0x3f));
					u[un++] = (char)(0x80 | (cp & 0x3f));
				}
				break;
			default:
				j->i--;
				rc = gj_err(j, "bad escape '\\%c'", c);
				goto done;
			}
		}
		if (out) {
			if ((rc = yi_vec_grow(&b, un + 1)) != 0)
				break;
			memcpy(b.v + b.n, u, un);
			b.n += un;
		}
	}
done:
	if (rc != 0 || out == NULL) {
		yi_vec_free(&b);
		return rc;
	}
	if ((rc = yi_vec_grow(&b, 1)) != 0) {
		yi_vec_free(&b);
		return rc;
	}
	b.v[b.n] = '\0';
	*out = b.v;
	return 0;
}

/* A JSON number that must be an integer in [lo, hi]. */
static int
gj_int(gj *j, const char *key, int64_t lo, uint64_t hi, uint64_t *uv, int64_t *sv)
{
	size_t st;
	bool neg = false;
	uint64_t v = 0;

	gj_ws(j);
	st = j->i;
	if (j->i < j->n && j->s[j->i] == '-') {
		neg = true;
		j->i++;
	}
	if (j->i >= j->n || j->s[j->i] < '0' || j->s[j->i] > '9') {
		j->i = st;
		return gj_err(j, "expected an integer for \"%s\"", key);
	}
	while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9') {
		unsigned d = (unsigned)(j->s[j->i] - '0');
		if (v > (UINT64_MAX - d) / 10) {
			j->i = st;
			return gj_err(j, "\"%s\" is out of range", key);
		}
		v = v * 10 + d;
		j->i++;
	}
	if (j->i < j->n && (j->s[j->i] == '.' || j->s[j->i] == 'e' || j->s[j->i] == 'E')) {
		j->i = st;
		return gj_err(j, "expected an integer for \"%s\"", key);
	}
	if ((neg && (lo >= 0 || v > (uint64_t)INT64_MAX)) || (!neg && v > hi)) {
		j->i = st;
		return gj_err(j, "\"%s\" is out of range", key);
	}
	if (uv)
		*uv = v;
	if (sv)
		*sv = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

static int
gj_u64(gj *j, const char *key, uint64_t *v)
{
	return gj_int(j, key, 0, UINT64_MAX, v, NULL);
}

static int gj_skip(gj *j, int depth);

static int
gj_skip_seq(gj *j, char close, bool obj, int depth)
{
	int rc;

	j->i++;
	if (gj_peek(j) == close) {
		j->i++;
		return 0;
	}
	for (;;) {
		if (obj) {
			if ((rc = gj_string(j, NULL)) != 0 || (rc = gj_expect(j, ':')) != 0)
				return rc;
		}
		if ((rc = gj_skip(j, depth + 1)) != 0)
			return rc;
		if (gj_peek(j) == ',') {
			j->i++;
			continue;
		}
		if (gj_peek(j) == close) {
			j->i++;
			return 0;
		}
		return gj_err(j, obj ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

/* Skip any value (nesting bounded by GJ_MAX_DEPTH). */
static int
gj_skip(gj *j, int depth)
{
	char c = gj_peek(j);
	static const char *const words[] = { "true", "false", "null" };

	if (depth > GJ_MAX_DEPTH)
		return gj_err(j, "nesting deeper than %d", GJ_MAX_DEPTH);
	if (c == '"')
		return gj_string(j, NULL);
	if (c == '{')
		return gj_skip_seq(j, '}', true, depth);
	if (c == '[')
		return gj_skip_seq(j, ']', false, depth);
	if (c == '-' || (c >= '0' && c <= '9')) {
		size_t st = j->i;
		char *end;
		char tmp[64];
		size_t k = 0;
		while (j->i < j->n && k < sizeof(tmp) - 1 &&
		    strchr("+-.eE0123456789", j->s[j->i]))
			tmp[k++] = j->s[j->i++];
		tmp[k] = '\0';
		errno = 0;
		(void)strtod(tmp, &end);
		if (*end != '\0' || k == 0) {
			j->i = st;
			return gj_err(j, "bad number");
		}
		return 0;
	}
	for (size_t w = 0; w < 3; w++) {
		size_t l = strlen(words[w]);
		if (j->n - j->i >= l && memcmp(j->s + j->i, words[w], l) == 0) {
			j->i += l;
			return 0;
		}
	}
	return gj_err(j, "expected a value");
}

/* Iterate an object: calls each(j, key, arg) positioned at the value. */
typedef int (*gj_member_fn)(gj *j, const char *key, void *arg);

static int
gj_object(gj *j, gj_member_fn each, void *arg)
{
	int rc;

	if ((rc = gj_expect(j, '{')) != 0)
		return rc;
	if (gj_peek(j) == '}') {
		j->i++;
		return 0;
	}
	for (;;) {
		char *key;
		if ((rc = gj_string(j, &key)) != 0)
			return rc;
		if ((rc = gj_expect(j, ':')) == 0)
			rc = each(j, key, arg);
		yi_free(key);
		if (rc != 0)
			return rc;
		if (gj_peek(j) == ',') {
			j->i++;
			continue;
		}
		if (gj_peek(j) == '}') {
			j->i++;
			return 0;
		}
		return gj_err(j, "expected ',' or '}'");
	}
}

/* Iterate an array: calls each(j, index, arg) positioned at the element. */
typedef int (*gj_elem_fn)(gj *j, size_t idx, void *arg);

static int
gj_array(gj *j, const char *key, gj_elem_fn each, void *arg)
{
	int rc;
	size_t k = 0;

	if (gj_peek(j) != '[')
		return gj_err(j, "expected an array for \"%s\"", key);
	j->i++;
	if (gj_peek(j) == ']') {
		j->i++;
		return 0;
	}
	for (;;) {
		if ((rc = each(j, k++, arg)) != 0)
			return rc;
		if (gj_peek(j) == ',') {
			j->i++;
			continue;
		}
		if (gj_peek(j) == ']') {
			j->i++;
			return 0;
		}
		return gj_err(j, "expected ',' or ']'");
	}
}

/* ---- the format's members ------------------------------------------------ */

static int
stack_elem(gj *j, size_t idx, void *arg)
{
	gj_site *s = arg;
	char *a;
	char *end;
	size_t save = j->i;
	int rc;

	(void)idx;
	if (s->pcs.n >= GJ_MAX_FRAMES)
		return gj_err(j, "more than %d addresses in a stack", GJ_MAX_FRAMES);
	gj_ws(j);
	save = j->i;
	if ((rc = gj_string(j, &a)) != 0)
		return rc;
	errno = 0;
	if (strncmp(a, "0x", 2) != 0 || a[2] == '\0' || hexval(a[2]) < 0) {
		yi_free(a);
		j->i = save;
		return gj_err(j, "expected an address \"0x...\" in \"stack\"");
	}
	if ((rc = yi_vec_grow(&s->pcs, 1)) != 0) {
		yi_free(a);
		return rc;
	}
	s->pcs.v[s->pcs.n] = strtoull(a + 2, &end, 16);
	if (*end != '\0' || errno != 0) {
		yi_free(a);
		j->i = save;
		return gj_err(j, "expected an address \"0x...\" in \"stack\"");
	}
	yi_free(a);
	s->pcs.n++;
	return 0;
}

static int
site_member(gj *j, const char *key, void *arg)
{
	gj_site *s = arg;

	if (strcmp(key, "count") == 0)
		return gj_u64(j, key, &s->count);
	if (strcmp(key, "bytes") == 0)
		return gj_u64(j, key, &s->bytes);
	if (strcmp(key, "stack") == 0)
		return gj_array(j, key, stack_elem, s);
	if (strcmp(key, "site") == 0) {
		uint64_t v;
		return gj_u64(j, key, &v);
	}
	return gj_skip(j, 1);
}

static int
site_elem(gj *j, size_t idx, void *arg)
{
	ying_giant *g = arg;
	int rc;

	(void)idx;
	if ((rc = yi_vec_grow(&g->sites, 1)) != 0)
		return rc;
	memset(&g->sites.v[g->sites.n], 0, sizeof(gj_site));
	g->sites.n++;
	return gj_object(j, site_member, &g->sites.v[g->sites.n - 1]);
}

static int
rec_member(gj *j, const char *key, void *arg)
{
	gj_rec *r = arg;

	if (strcmp(key, "time_ns") == 0)
		return gj_int(j, key, INT64_MIN, INT64_MAX, NULL, &r->time_ns);
	if (strcmp(key, "size") == 0)
		return gj_u64(j, key, &r->size);
	if (strcmp(key, "thread") == 0)
		return gj_u64(j, key, &r->thread);
	if (strcmp(key, "seq") == 0)
		return gj_u64(j, key, &r->seq);
	if (strcmp(key, "site") == 0)
		return gj_u64(j, key, &r->site);
	if (strcmp(key, "kind") == 0) {
		yi_free(r->kind);
		r->kind = NULL;
		return gj_string(j, &r->kind);
	}
	return gj_skip(j, 1);
}

static int
rec_elem(gj *j, size_t idx, void *arg)
{
	ying_giant *g = arg;
	gj_rec *r;
	size_t st;
	int rc;

	(void)idx;
	if ((rc = yi_vec_grow(&g->recs, 1)) != 0)
		return rc;
	r = &g->recs.v[g->recs.n++];
	memset(r, 0, sizeof(*r));
	r->site = UINT64_MAX;
	gj_ws(j);
	st = j->i;
	if ((rc = gj_object(j, rec_member, r)) != 0)
		return rc;
	if (r->site == UINT64_MAX) {
		j->i = st;
		return gj_err(j, "record without \"site\"");
	}
	return 0;
}

typedef struct top_state {
	ying_giant *g;
	bool format_ok, have_sites, have_recs;
} top_state;

static int
top_member(gj *j, const char *key, void *arg)
{
	top_state *t = arg;
	ying_giant *g = t->g;
	int rc;

	if (strcmp(key, "format") == 0) {
		char *f;
		size_t st;
		gj_ws(j);
		st = j->i;
		if ((rc = gj_string(j, &f)) != 0)
			return rc;
		t->format_ok = strcmp(f, "ying-giant/1") == 0;
		yi_free(f);
		if (!t->format_ok) {
			j->i = st;
			return gj_err(j, "\"format\" is not \"ying-giant/1\"");
		}
		return 0;
	}
	if (strcmp(key, "threshold") == 0)
		return gj_u64(j, key, &g->threshold);
	if (strcmp(key, "allocations") == 0)
		return gj_u64(j, key, &g->allocations);
	if (strcmp(key, "dropped") == 0)
		return gj_u64(j, key, &g->dropped);
	if (strcmp(key, "pid") == 0) {
		uint64_t v;
		if ((rc = gj_int(j, key, 0, INT32_MAX, &v, NULL)) != 0)
			return rc;
		g->pid = (long)v;
		return 0;
	}
	if (strcmp(key, "time_ns") == 0)
		return gj_int(j, key, INT64_MIN, INT64_MAX, NULL, &g->time_ns);
	if (strcmp(key, "sites") == 0) {
		if (t->have_sites)
			return gj_err(j, "second \"sites\"");
		t->have_sites = true;
		return gj_array(j, key, site_elem, g);
	}
	if (strcmp(key, "records") == 0) {
		if (t->have_recs)
			return gj_err(j, "second \"records\"");
		t->have_recs = true;
		return gj_array(j, key, rec_elem, g);
	}
	if (strcmp(key, "maps") == 0) {
		yi_free(g->maps);
		g->maps = NULL;
		return gj_string(j, &g->maps);
	}
	return gj_skip(j, 1);
}

/* ---- the profile ----------------------------------------------------------- */

typedef YI_VEC(char) gj_buf;

static int
append(gj_buf *b, const char *fmt, ...) YI_PRINTF(2, 3);

static int
append(gj_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return yi_error(YING_EINVAL, "formatting failed");
	if ((rc = yi_vec_grow(b, (size_t)n + 1)) != 0)
		return rc;
	va_start(ap, fmt);
	vsnprintf(b->v + b->n, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)n;
	return 0;
}

/* The heap_v2 text of the call sites (one '@' each) and the maps. */
static int
make_profile(ying_giant *g, const char *name)
{
	gj_buf b = { NULL, 0, 0 };
	uint64_t tc = 0, tb = 0;
	int rc;

	for (size_t i = 0; i < g->sites.n; i++) {
		tc += g->sites.v[i].count;
		tb += g->sites.v[i].bytes;
	}
	rc = append(&b, "heap_v2/1\n  t*: %" PRIu64 ": %" PRIu64 " [0: 0]\n", tc, tb);
	for (size_t i = 0; rc == 0 && i < g->sites.n; i++) {
		gj_site *s = &g->sites.v[i];
		rc = append(&b, "@");
		for (size_t k = 0; rc == 0 && k < s->pcs.n; k++)
			rc = append(&b, " 0x%" PRIx64, s->pcs.v[k]);
		if (rc == 0)
			rc = append(&b, "\n  t*: %" PRIu64 ": %" PRIu64 " [0: 0]\n",
			    s->count, s->bytes);
	}
	if (rc == 0)
		rc = append(&b, "\nMAPPED_LIBRARIES:\n%s", g->maps ? g->maps : "");
	if (rc == 0)
		rc = yi_heap_parse_mem(&g->prof, b.v, b.n, name);
	yi_vec_free(&b);
	if (rc == 0 && g->time_ns != 0)
		g->prof->time = g->time_ns / 1000000000;
	return rc;
}

int
ying_giant_read_mem(ying_giant **out, const void *data, size_t len,
    const char *name)
{
	ying_giant *g;
	top_state t;
	gj j;
	int rc;

	yi_error_clear();
	if (out == NULL)
		return yi_error(YING_EINVAL, "ying_giant_read_mem: out is NULL");
	*out = NULL;
	if (data == NULL && len > 0)
		return yi_error(YING_EINVAL, "ying_giant_read_mem: data is NULL");
	if (name == NULL)
		name = "<giant json>";
	if ((g = yi_calloc(1, sizeof(*g))) == NULL)
		return yi_oom("reading giant records");
	j.s = data;
	j.n = len;
	j.i = 0;
	j.name = name;
	memset(&t, 0, sizeof(t));
	t.g = g;
	if (len == 0) {
		rc = gj_err(&j, "empty input, expected a \"ying-giant/1\" JSON object");
	} else if ((rc = gj_object(&j, top_member, &t)) == 0) {
		if (gj_peek(&j) != '\0')
			rc = gj_err(&j, "trailing data after the JSON object");
		else if (!t.format_ok)
			rc = yi_error(YING_EPARSE, "%s: no \"format\":\"ying-giant/1\": not "
			    "a giant-allocation listing", name);
		else if (!t.have_sites || !t.have_recs)
			rc = yi_error(YING_EPARSE, "%s: no \"%s\" array", name,
			    t.have_sites ? "records" : "sites");
	}
	for (size_t i = 0; rc == 0 && i < g->recs.n; i++)
		if (g->recs.v[i].site >= g->sites.n)
			rc = yi_error(YING_EPARSE, "%s: record %zu names site %" PRIu64
			    " of %zu", name, i, g->recs.v[i].site, g->sites.n);
	if (rc == 0)
		rc = make_profile(g, name);
	if (rc != 0) {
		ying_giant_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

int
ying_giant_read_file(ying_giant **out, const char *path)
{
	YI_VEC(char) b = { NULL, 0, 0 };
	int fd, rc = 0;
	bool std = path && strcmp(path, "-") == 0;

	yi_error_clear();
	if (out)
		*out = NULL;
	if (out == NULL || path == NULL)
		return yi_error(YING_EINVAL, "ying_giant_read_file: NULL argument");
	if (std)
		fd = STDIN_FILENO;
	else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return yi_error(errno == ENOENT ? YING_ENOTFOUND : YING_EIO,
		    "cannot open %s: %s", path, strerror(errno));
	for (;;) {
		ssize_t r;
		if (b.n >= GJ_MAX_INPUT) {
			rc = yi_error(YING_ELIMIT, "%s: more than 1 GiB", path);
			break;
		}
		if ((rc = yi_vec_grow(&b, 65536)) != 0)
			break;
		r = read(fd, b.v + b.n, b.cap - b.n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = yi_error(YING_EIO, "cannot read %s: %s", path, strerror(errno));
			break;
		}
		if (r == 0)
			break;
		b.n += (size_t)r;
	}
	if (!std)
		close(fd);
	if (rc == 0)
		rc = ying_giant_read_mem(out, b.v, b.n, std ? "<stdin>" : path);
	yi_vec_free(&b);
	return rc;
}

void
ying_giant_free(ying_giant *g)
{
	if (g == NULL)
		return;
	for (size_t i = 0; i < g->recs.n; i++)
		yi_free(g->recs.v[i].kind);
	yi_vec_free(&g->recs);
	for (size_t i = 0; i < g->sites.n; i++)
		yi_vec_free(&g->sites.v[i].pcs);
	yi_vec_free(&g->sites);
	yi_free(g->maps);
	ying_profile_free(g->prof);
	yi_free(g);
}

void
ying_giant_info(const ying_giant *g, uint64_t *threshold, long *pid,
    int64_t *time_ns, uint64_t *allocations, uint64_t *dropped)
{
	if (threshold)
		*threshold = g ? g->threshold : 0;
	if (pid)
		*pid = g ? g->pid : 0;
	if (time_ns)
		*time_ns = g ? g->time_ns : 0;
	if (allocations)
		*allocations = g ? g->allocations : 0;
	if (dropped)
		*dropped = g ? g->dropped : 0;
}

size_t
ying_giant_count(const ying_giant *g)
{
	return g ? g->recs.n : 0;
}

int
ying_giant_get(const ying_giant *g, size_t i, ying_giant_record *out)
{
	const gj_rec *r;

	if (g == NULL || out == NULL || i >= g->recs.n)
		return yi_error(YING_EINVAL, "ying_giant_get: no record %zu", i);
	r = &g->recs.v[i];
	out->time_ns = r->time_ns;
	out->size = r->size;
	out->thread = r->thread;
	out->stack = (size_t)r->site;
	out->repeats = g->sites.v[r->site].count;
	out->seq = r->seq;
	out->kind = r->kind ? r->kind : "";
	return 0;
}

ying_profile *
ying_giant_profile(ying_giant *g)
{
	return g ? g->prof : NULL;
}
