/*
 * live_ctl_heaps.c: one heap_v2 text out of the dumps of several jemallocs
 * in one process (issue 26 item 1; the contract is docs/architecture.md's
 * "several heaps" and /work/notes/i26/heaps.md): the header's t* line is
 * the sum of every heap's, the per-thread header lines and the per-thread
 * lines of the records are the first heap's only (two jemallocs number
 * their threads independently), the records follow in heap order, the
 * maps are the first heap's (one process: the same), and the trailer
 * names each heap with its number of `@` records ("ying-heap: NAME N").
 * Pure: text in, text out; the control layer (live_ctl_dump.c) takes the
 * dumps.  Every dump must sample with the same period, else YING_ENOTSUP
 * (the caller then keeps the first heap alone and says why).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "live_ctl.h"

/* One line of [p, end): its length without the '\n'; *next after it. */
static size_t
hp_line(const char *p, const char *end, const char **next)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	*next = nl ? nl + 1 : end;
	return (size_t)((nl ? nl : end) - p);
}

/* "  t*: N: B [N2: B2]" (leading blanks allowed): 1 and the four numbers,
 * else 0; tstar: only "t*", else only "tDIGITS". */
static int
hp_tline(const char *s, size_t n, bool tstar, uint64_t v[4])
{
	char buf[128], *p, *e;

	if (n >= sizeof(buf))
		return 0;
	memcpy(buf, s, n);
	buf[n] = '\0';
	p = buf + strspn(buf, " \t");
	if (*p++ != 't')
		return 0;
	if (tstar) {
		if (*p++ != '*')
			return 0;
	} else {
		if (*p < '0' || *p > '9')
			return 0;
		p += strspn(p, "0123456789");
	}
	if (*p++ != ':')
		return 0;
	for (int i = 0; i < 4; i++) {
		p += strspn(p, " \t");
		if (i == 2 && *p++ != '[')
			return 0;
		p += strspn(p, " \t");
		if (*p < '0' || *p > '9')
			return 0;
		errno = 0;
		v[i] = strtoull(p, &e, 10);
		if (errno != 0)
			return 0;
		p = e;
		if ((i == 0 || i == 2) && *p++ != ':')
			return 0;
	}
	p += strspn(p, " \t");
	if (*p++ != ']')
		return 0;
	return p[strspn(p, " \t\r")] == '\0';
}

/* True when the n bytes at s are blanks only. */
static bool
hp_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

static bool
hp_name_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n < 1 || n > 32)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		    s[i] == '_' || s[i] == '.' || s[i] == '-'))
			return false;
	return true;
}

/* One dump cut into its parts. */
typedef struct hp_part {
	const char *period;          /* after "heap_v2/" */
	size_t period_len;
	uint64_t sum[4];             /* the header's t* line */
	const char *thr, *thr_end;   /* the per-thread header lines */
	const char *body, *body_end; /* from the first '@' to the maps */
	const char *maps, *maps_end; /* "MAPPED_LIBRARIES:" to the end */
} hp_part;

static int
hp_cut(const char *d, size_t len, const char *name, hp_part *p)
{
	const char *end = d + len, *s = d, *next;
	size_t n = hp_line(s, end, &next), lineno = 1;

	memset(p, 0, sizeof(*p));
	if (n < 9 || memcmp(s, "heap_v2/", 8) != 0)
		return yi_error(YING_EPARSE, "the dump of heap %s: line 1 is not "
		    "heap_v2/PERIOD", name);
	p->period = s + 8;
	p->period_len = n - 8;
	while (p->period_len > 0 && p->period[p->period_len - 1] == '\r')
		p->period_len--;
	s = next;
	n = hp_line(s, end, &next);
	lineno++;
	if (!hp_tline(s, n, true, p->sum))
		return yi_error(YING_EPARSE, "the dump of heap %s: line 2 is not the "
		    "header's t* line", name);
	s = next;
	p->thr = s;
	while (s < end) {
		n = hp_line(s, end, &next);
		lineno++;
		if (n > 0 && s[0] == '@')
			break;
		if (n >= 17 && memcmp(s, "MAPPED_LIBRARIES:", 17) == 0)
			break;
		if (!hp_blank(s, n)) {
			uint64_t v[4];
			if (!hp_tline(s, n, false, v))
				return yi_error(YING_EPARSE, "the dump of heap %s: line %zu "
				    "is neither a thread's header line nor a record", name,
				    lineno);
		}
		s = next;
	}
	p->thr_end = s;
	p->body = s;
	while (s < end) {
		n = hp_line(s, end, &next);
		if (n >= 17 && memcmp(s, "MAPPED_LIBRARIES:", 17) == 0)
			break;
		s = next;
	}
	p->body_end = s;
	p->maps = s;
	p->maps_end = end;
	return 0;
}

/* Append [s, s + n) to b; 0 or YING_ENOMEM. */
static int
hp_put(ying_membuf *b, const char *s, size_t n)
{
	return n ? ying_write_membuf(b, s, n) : 0;
}

/* Heap part's records into b (tN lines only when keep_threads; blank lines
 * dropped); *stacks counts the '@' lines. */
static int
hp_body(ying_membuf *b, const hp_part *p, bool keep_threads, size_t *stacks)
{
	const char *s = p->body, *next;
	int rc = 0;

	*stacks = 0;
	while (rc == 0 && s < p->body_end) {
		size_t n = hp_line(s, p->body_end, &next);
		uint64_t v[4];
		if (hp_blank(s, n)) {
			s = next;        /* a blank line */
			continue;
		}
		if (s[0] == '@')
			(*stacks)++;
		if (!keep_threads && hp_tline(s, n, false, v)) {
			s = next;
			continue;
		}
		if ((rc = hp_put(b, s, n)) == 0)
			rc = hp_put(b, "\n", 1);
		s = next;
	}
	return rc;
}

int
yi_ctl_heaps_combine(const char *const *dumps, const size_t *lens,
    const char *const *names, size_t n, char **out, size_t *len)
{
	ying_membuf b = YING_MEMBUF_INIT;
	hp_part *parts;
	size_t *stacks;
	uint64_t sum[4] = { 0, 0, 0, 0 };
	char line[160];
	int rc = 0;

	if (out == NULL || len == NULL)
		return yi_error(YING_EINVAL, "yi_ctl_heaps_combine: NULL out-parameter");
	*out = NULL;
	*len = 0;
	if (dumps == NULL || lens == NULL || names == NULL || n == 0 || n > 64)
		return yi_error(YING_EINVAL, "yi_ctl_heaps_combine: no dumps (or more "
		    "than 64)");
	for (size_t i = 0; i < n; i++) {
		if (!hp_name_ok(names[i]))
			return yi_error(YING_EINVAL, "heap name '%s' is not 1 to 32 of "
			    "[a-z0-9_.-]", names[i] ? names[i] : "(null)");
		if (dumps[i] == NULL)
			return yi_error(YING_EINVAL, "the dump of heap %s is NULL", names[i]);
		for (size_t j = 0; j < i; j++)
			if (strcmp(names[i], names[j]) == 0)
				return yi_error(YING_EINVAL, "two heaps are named %s", names[i]);
	}
	parts = yi_malloc(n * sizeof(*parts));
	stacks = yi_malloc(n * sizeof(*stacks));
	if (parts == NULL || stacks == NULL) {
		yi_free(parts);
		yi_free(stacks);
		return yi_oom("combining the heaps' dumps");
	}
	memset(stacks, 0, n * sizeof(*stacks));
	for (size_t i = 0; i < n && rc == 0; i++) {
		rc = hp_cut(dumps[i], lens[i], names[i], &parts[i]);
		if (rc == 0 && (parts[i].period_len != parts[0].period_len ||
		    memcmp(parts[i].period, parts[0].period, parts[0].period_len) != 0))
			rc = yi_error(YING_ENOTSUP, "heap %s samples with period %.*s, "
			    "heap %s with %.*s: one profile needs one period", names[0],
			    (int)parts[0].period_len, parts[0].period, names[i],
			    (int)parts[i].period_len, parts[i].period);
		for (int k = 0; rc == 0 && k < 4; k++) {
			if (sum[k] > UINT64_MAX - parts[i].sum[k])
				rc = yi_error(YING_EPARSE, "the dumps' header counts overflow");
			else
				sum[k] += parts[i].sum[k];
		}
	}
	if (rc == 0) {
		snprintf(line, sizeof(line), "heap_v2/%.*s\n  t*: %" PRIu64 ": %" PRIu64
		    " [%" PRIu64 ": %" PRIu64 "]\n", (int)parts[0].period_len,
		    parts[0].period, sum[0], sum[1], sum[2], sum[3]);
		rc = hp_put(&b, line, strlen(line));
	}
	if (rc == 0)
		rc = hp_put(&b, parts[0].thr, (size_t)(parts[0].thr_end - parts[0].thr));
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = hp_body(&b, &parts[i], i == 0, &stacks[i]);
	if (rc == 0)
		rc = hp_put(&b, "\n", 1);
	if (rc == 0)
		rc = hp_put(&b, parts[0].maps, (size_t)(parts[0].maps_end - parts[0].maps));
	if (rc == 0 && b.len > 0 && b.data[b.len - 1] != '\n')
		rc = hp_put(&b, "\n", 1);
	for (size_t i = 0; i < n && rc == 0; i++) {
		snprintf(line, sizeof(line), "ying-heap: %s %zu\n", names[i], stacks[i]);
		rc = hp_put(&b, line, strlen(line));
	}
	yi_free(parts);
	yi_free(stacks);
	if (rc != 0) {
		ying_membuf_release(&b);
		return rc;
	}
	*out = b.data;
	*len = b.len;
	return 0;
}
