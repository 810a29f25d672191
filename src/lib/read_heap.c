/*
 * read_heap.c: jemalloc's heap_v2 dump -> ying_profile.
 *
 * The format (jemalloc 5.3 prof_data.c / prof_sys.c):
 *
 *   heap_v2/<R>                          R = 2^lg_prof_sample
 *     t*: <c>: <b> [<ac>: <ab>]           process-wide totals
 *     t<uid>: <c>: <b> [<ac>: <ab>] name  one per thread; name may hold spaces
 *   @ 0x<pc0> 0x<pc1> ...                one per stack, innermost first
 *     t*: <c>: <b> [<ac>: <ab>]           this stack's totals (what counts)
 *     t<uid>: ...                         its per-thread split
 *   <blank>
 *   MAPPED_LIBRARIES:
 *   <copy of /proc/<pid>/maps>
 *   ying-build-id: <start> <hex>          ying's own dumps only (live_ctl_dump.c)
 *
 * Input is streamed through a 1 MiB window (a 50 MB dump is never copied
 * whole); gzip is detected from the magic bytes and inflated on the fly.
 * A bare "@" (unwinding gave no frames) is its own empty stack, unlike
 * jeprof, which silently adds it to the previous one.  Every error names the
 * source, the line and what was expected; nothing in the input can make the
 * parser read out of bounds or loop.
 *
 * This file: the sections and the entry points; the byte sources and the
 * field parsers are in read_heap_src.c.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "read_heap.h"

/* ---- sections ------------------------------------------------------------- */

static int
parse_header(src *s, ying_profile *p, const char *line)
{
	const char *q = line;

	if (strncmp(line, "heap_v2/", 8) != 0) {
		if (strncmp(line, "heap profile:", 13) == 0)
			return yi_error(YING_EPARSE, "%s:1: this is a gperftools/Go legacy heap "
			    "profile, not a jemalloc heap_v2 dump", s->name);
		if (strncmp(line, "--- ", 4) == 0)
			return yi_error(YING_EPARSE, "%s:1: this is a jeprof --raw file; pass the "
			    "heap_v2 dump itself", s->name);
		return yi_error(YING_EPARSE, "%s:1: expected 'heap_v2/<sample period>' header "
		    "(is this a jemalloc heap profile?)", s->name);
	}
	q += 8;
	if (!yi_heap_parse_u64(&q, &p->period) || p->period == 0)
		return yi_heap_perr(s, "expected a positive sample period after 'heap_v2/'", q, line);
	q = yi_heap_skip_ws(q);
	if (*q)
		return yi_heap_perr(s, "unexpected text after the sample period", q, line);
	return 0;
}

static int
add_thread(src *s, ying_profile *p, const char *line, const char *rest,
    uint64_t uid, const yi_counts *c)
{
	yi_thread *t;
	int rc;

	if ((rc = yi_vec_grow(&p->threads, 1)) != 0)
		return rc;
	t = &p->threads.v[p->threads.n];
	t->uid = uid;
	t->raw = *c;
	t->name = 0;
	/* The name is everything after "] " (jemalloc writes it raw). */
	if (*rest == ' ')
		rest++;
	if (*rest && (rc = yi_strtab_intern(&p->strs, rest, strlen(rest), &t->name)) != 0)
		return rc;
	p->threads.n++;
	YI_UNUSED(s);
	YI_UNUSED(line);
	return 0;
}

/* yi_profile_loc through the reader's cache (an address keeps its location
 * for the whole parse: the model never renumbers them). */
static int
stack_loc(src *s, ying_profile *p, uint64_t pc, bool leaf, uint32_t *loc)
{
	struct yi_heap_lc *e = &s->lcache[yi_fib_hash(pc, LCACHE_BITS)];
	int rc;

	if (e->loc1 != 0 && e->pc == pc && e->leaf == (uint32_t)leaf) {
		*loc = e->loc1 - 1;
		return 0;
	}
	if ((rc = yi_profile_loc(p, pc, leaf, loc)) != 0)
		return rc;
	e->pc = pc;
	e->leaf = leaf;
	e->loc1 = *loc + 1;
	return 0;
}

/* yi_unsample(n, b, p->period) through the reader's cache: the same
 * function of the same numbers, so the same doubles (the period is the
 * header's, fixed before the first stack). */
static void
unsample_cached(src *s, const ying_profile *p, uint64_t n, uint64_t b,
    double *n_out, double *s_out)
{
	struct yi_heap_uc *e = &s->ucache[((n * UINT64_C(0x9E3779B97F4A7C15)) ^
	    (b * UINT64_C(0xC2B2AE3D27D4EB4F))) >> (64 - UCACHE_BITS)];

	if (e->n != n || e->s != b) {
		yi_unsample(n, b, p->period, &e->n_out, &e->s_out);
		e->n = n;
		e->s = b;
	}
	*n_out = e->n_out;
	*s_out = e->s_out;
}

static int
parse_stack_line(src *s, ying_profile *p, const char *line)
{
	const char *q = line + 1;
	uint32_t depth = 0, loc;
	uint64_t pc;
	int rc;

	if (*q && *q != ' ' && *q != '\t')
		return yi_heap_perr(s, "expected ' ' after '@'", q, line);
	s->locs.n = 0;
	for (;;) {
		q = yi_heap_skip_ws(q);
		if (*q == '\0')
			break;
		if (q[0] != '0' || (q[1] != 'x' && q[1] != 'X'))
			return yi_heap_perr(s, "expected a 0x-prefixed hex address", q, line);
		q += 2;
		if (!yi_heap_parse_hex(&q, &pc))
			return yi_heap_perr(s, "expected 1 to 16 hex digits after '0x'", q, line);
		if (*q && *q != ' ' && *q != '\t')
			return yi_heap_perr(s, "unexpected character in address", q, line);
		if ((rc = stack_loc(s, p, pc, depth == 0, &loc)) != 0)
			return rc;
		if (s->locs.n == s->locs.cap && (rc = yi_vec_grow(&s->locs, 1)) != 0)
			return rc;
		s->locs.v[s->locs.n++] = loc;
		depth++;
	}
	return 0;
}

static bool
looks_like_shlib(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	return strstr(b, ".so") != NULL;
}

/* "start-end perms offset dev inode [path]" */
static int
parse_maps_line(src *s, ying_profile *p, const char *line)
{
	const char *q = line, *path;
	yi_mapping m;
	uint64_t dummy, dev;
	size_t plen;
	int rc, i;

	memset(&m, 0, sizeof(m));
	if (!yi_heap_parse_hex(&q, &m.start) || *q != '-')
		return yi_heap_perr(s, "expected 'start-end' address range in MAPPED_LIBRARIES", q, line);
	q++;
	if (!yi_heap_parse_hex(&q, &m.end) || (*q != ' ' && *q != '\t'))
		return yi_heap_perr(s, "expected the end address of the range", q, line);
	q = yi_heap_skip_ws(q);
	for (i = 0; i < 4 && *q && *q != ' '; i++, q++)
		m.perms[i] = *q;
	m.perms[i] = '\0';
	if (i != 4 || (*q != ' ' && *q != '\t'))
		return yi_heap_perr(s, "expected 4 permission characters (e.g. r-xp)", q, line);
	q = yi_heap_skip_ws(q);
	if (!yi_heap_parse_hex(&q, &m.offset))
		return yi_heap_perr(s, "expected the file offset (hex)", q, line);
	q = yi_heap_skip_ws(q);
	/* device "fe:00" */
	if (!yi_heap_parse_hex(&q, &dev) || *q != ':')
		return yi_heap_perr(s, "expected the device (major:minor)", q, line);
	q++;
	if (!yi_heap_parse_hex(&q, &dummy))
		return yi_heap_perr(s, "expected the device minor number", q, line);
	if (dev <= UINT32_MAX && dummy <= UINT32_MAX) {
		m.has_dev = 1;
		m.dev_major = (uint32_t)dev;
		m.dev_minor = (uint32_t)dummy;
	}
	q = yi_heap_skip_ws(q);
	if (!yi_heap_parse_u64(&q, &m.inode))
		return yi_heap_perr(s, "expected the inode number", q, line);
	path = yi_heap_skip_ws(q);
	plen = strlen(path);
	m.exec = m.perms[2] == 'x';
	if (plen == 0 && !m.exec)
		return 0;     /* anonymous data: irrelevant to symbols */
	if (m.end < m.start)
		return yi_heap_perr(s, "address range ends before it starts", line, line);
	if ((rc = yi_strtab_intern(&p->strs, path, plen, &m.path)) != 0)
		return rc;
	m.is_jemalloc = strstr(path, "jemalloc") != NULL && looks_like_shlib(path);
	if ((rc = yi_vec_grow(&p->maps, 1)) != 0)
		return rc;
	p->maps.v[p->maps.n] = m;
	if (p->main_map < 0 && plen && path[0] == '/' && !looks_like_shlib(path))
		p->main_map = (int)p->maps.n;
	p->maps.n++;
	return 0;
}

/*
 * "ying-build-id: <start> <hex>" (YI_BUILD_ID_TAG, written by ctl.c after
 * the maps lines): the build ID of the object whose first mapping starts at
 * <start>; it goes to every mapping of that file.  A line naming no mapping
 * of the dump is ignored (the object may have no named mapping).
 */
static int
parse_build_id_line(src *s, ying_profile *p, const char *line)
{
	const char *q = yi_heap_skip_ws(line + sizeof(YI_BUILD_ID_TAG) - 1), *h;
	uint64_t start;
	uint32_t id, path = 0;
	size_t n, i;
	int rc;
	bool found = false;

	if (!yi_heap_parse_hex(&q, &start) || (*q != ' ' && *q != '\t'))
		return yi_heap_perr(s, "expected the object's start address (hex) after '"
		    YI_BUILD_ID_TAG "'", q, line);
	h = q = yi_heap_skip_ws(q);
	while ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f'))
		q++;
	n = (size_t)(q - h);
	if (n == 0 || n % 2 != 0 || n > 128 || *yi_heap_skip_ws(q) != '\0')
		return yi_heap_perr(s, "expected the build ID (an even number of lowercase hex digits)",
		    q, line);
	for (i = 0; i < p->maps.n; i++) {
		if (p->maps.v[i].start == start && p->maps.v[i].path != 0) {
			path = p->maps.v[i].path;
			found = true;
			break;
		}
	}
	if (!found)
		return 0;
	if ((rc = yi_strtab_intern(&p->strs, h, n, &id)) != 0)
		return rc;
	for (i = 0; i < p->maps.n; i++)
		if (p->maps.v[i].path == path)
			p->maps.v[i].build_id = id;
	return 0;
}

static int
append_maps_text(ying_profile *p, const char *line, size_t len, size_t *cap)
{
	if (p->maps_text_len + len + 2 > *cap) {
		size_t ncap = *cap ? *cap * 2 : 16384;
		char *nt;
		while (ncap < p->maps_text_len + len + 2)
			ncap *= 2;
		if ((nt = yi_realloc(p->maps_text, ncap)) == NULL)
			return yi_oom("keeping the MAPPED_LIBRARIES section");
		p->maps_text = nt;
		*cap = ncap;
	}
	memcpy(p->maps_text + p->maps_text_len, line, len);
	p->maps_text_len += len;
	p->maps_text[p->maps_text_len++] = '\n';
	p->maps_text[p->maps_text_len] = '\0';
	return 0;
}

/*
 * Sizing the big vectors from the input (issue 16).  Growing the stacks,
 * frames and per-thread counts by doubling moves them (realloc -> mremap)
 * about twenty times on a 117 MB dump, and the pages of a moved block cost
 * a fault again at their next touch (on a shadow-paged VM a few
 * microseconds each: trimming's first pass over 262k stacks took 50 ms).
 * So once RESERVE_AT stacks are in, the input's remaining size tells how
 * many more to expect (by the bytes per stack, frame and thread line so
 * far, plus 1/16 for slack) and each vector gets that capacity at once;
 * an underestimate falls back to doubling.  Untouched capacity costs
 * address space, not memory, but it counts against the decode budget
 * (yi_profile_mem), so nothing is reserved beyond what the budget allows.
 */
#define RESERVE_AT 4096

/* Capacity `want` (elements of `elem` bytes) for a vector of `cap`; false
 * when realloc fails (the vector is unchanged: a hint, not a need). */
static bool
reserve_vec(void **v, size_t *cap, size_t want, size_t elem)
{
	void *nv;

	if (want <= *cap)
		return true;
	if ((nv = yi_reallocarray(*v, want, elem)) == NULL)
		return false;
	yi_vec_huge_hint(nv, want * elem);
	*v = nv;
	*cap = want;
	return true;
}
#define RESERVE(vec, want) \
	reserve_vec((void **)&(vec)->v, &(vec)->cap, (want), sizeof(*(vec)->v))

/* `done` bytes of s->size_hint read: reserve for the rest (see above). */
static void
reserve_from_size(const src *s, ying_profile *p, size_t done, size_t budget)
{
	double scale, bytes;
	size_t ns, nf, nt;

	if (s->size_hint <= done || done == 0)
		return;
	scale = (double)s->size_hint / (double)done * (17.0 / 16.0);
	bytes = scale * ((double)p->stacks.n * sizeof(*p->stacks.v) +
	    (double)p->frames.n * sizeof(*p->frames.v) +
	    (double)p->tcounts.n * sizeof(*p->tcounts.v));
	if (bytes + (double)yi_profile_mem(p) + WINDOW > (double)budget)
		return;     /* let doubling grow them, and the budget check speak */
	ns = (size_t)((double)p->stacks.n * scale) + 16;
	nf = (size_t)((double)p->frames.n * scale) + 16;
	nt = p->tcounts.n ? (size_t)((double)p->tcounts.n * scale) + 16 : 0;
	(void)(RESERVE(&p->stacks, ns) && RESERVE(&p->frames, nf) &&
	    RESERVE(&p->tcounts, nt));
}

enum state { S_HEADER, S_THREADS, S_STACK_TOTAL, S_STACK_THREADS, S_AFTER_BLANK, S_MAPS };

/* The parser's position between lines. */
typedef struct pstate {
	enum state st;
	yi_counts cur;             /* the current stack's total */
	size_t maps_cap;           /* p->maps_text's allocation */
	size_t budget, since, done;   /* the decode budget; input since the
	                                 last check, and in all */
	bool seen_header_total;
} pstate;

/* The overall cap of a streamed dump: what the model holds so far,
 * checked every 4096 lines or 256 KiB of input (a byte of input adds tens
 * of bytes to the model at most). */
static inline int
check_budget(src *s, ying_profile *p, pstate *ps, size_t len)
{
	ps->since += len + 1;
	ps->done += len + 1;
	if (((s->lineno & 4095) == 0 || ps->since > (256u << 10)) &&
	    (ps->since = 0, yi_profile_mem(p) + WINDOW > ps->budget)) {
		char b[32];
		return yi_error(YING_ELIMIT, "%s:%lu: the decoded profile would need more "
		    "than %s (the decode budget; raise it with YING_MAX_MEMORY=SIZE)",
		    s->name, s->lineno, ying_format_bytes((double)ps->budget, b, sizeof(b)));
	}
	return 0;
}

/* A line after MAPPED_LIBRARIES: a mapping or a build-id line, kept as
 * text too. */
static int
maps_section_line(src *s, ying_profile *p, pstate *ps, const char *line, size_t len,
    bool complete)
{
	int rc;

	if (!complete || len == 0)
		return 0;     /* a cut-off last maps line carries nothing */
	/* the several-heaps trailer (issue 26): read by branch i26-model;
	 * until then passed over, so that a combined dump still reads */
	if (strncmp(line, "ying-heap:", 10) == 0)
		return 0;
	if (strncmp(line, YI_BUILD_ID_TAG, sizeof(YI_BUILD_ID_TAG) - 1) == 0)
		rc = parse_build_id_line(s, p, line);
	else
		rc = parse_maps_line(s, p, line);
	if (rc == 0)
		rc = append_maps_text(p, line, len, &ps->maps_cap);
	return rc;
}

/* The "  t*: <objects>: <bytes> [...]" total after an '@' line: the
 * stack, with its unsampled values, joins the model. */
static int
stack_total_line(src *s, ying_profile *p, pstate *ps, const char *line)
{
	const char *q = line, *rest;
	double val[4];
	bool star;
	uint64_t uid;
	int rc;

	if (!yi_heap_is_thread_line(line))
		return yi_error(YING_EPARSE, "%s:%lu: expected '  t*: <objects>: <bytes> "
		    "[...]' after the '@' line", s->name, s->lineno);
	if ((rc = yi_heap_parse_tag(s, line, &q, &star, &uid)) != 0)
		return rc;
	if (!star)
		return yi_error(YING_EPARSE, "%s:%lu: expected the stack's 't*:' total "
		    "before per-thread lines", s->name, s->lineno);
	if ((rc = yi_heap_parse_counts(s, line, q, &ps->cur, &rest)) != 0)
		return rc;
	if (*yi_heap_skip_ws(rest))
		return yi_heap_perr(s, "unexpected text after the stack's counts", rest, line);
	unsample_cached(s, p, ps->cur.objs, ps->cur.bytes, &val[YING_INUSE_OBJECTS],
	    &val[YING_INUSE_SPACE]);
	unsample_cached(s, p, ps->cur.acc_objs, ps->cur.acc_bytes, &val[YING_ALLOC_OBJECTS],
	    &val[YING_ALLOC_SPACE]);
	if ((rc = yi_profile_add_stack(p, s->locs.v, s->locs.n, &ps->cur, val)) != 0)
		return rc;
	if (p->stacks.n == RESERVE_AT && s->size_hint)
		reserve_from_size(s, p, ps->done, ps->budget);
	ps->st = S_STACK_THREADS;
	return 0;
}

/* A "t<thread>:" counts line: in the header (the process-wide total, or
 * one thread's), or under a stack (one thread's share of it). */
static int
thread_line(src *s, ying_profile *p, pstate *ps, const char *line)
{
	const char *q = line, *rest;
	bool star;
	uint64_t uid = 0;
	yi_counts c;
	yi_thread_count *t;
	int rc;

	if ((rc = yi_heap_parse_tag(s, line, &q, &star, &uid)) != 0)
		return rc;
	if ((rc = yi_heap_parse_counts(s, line, q, &c, &rest)) != 0)
		return rc;
	if (ps->st == S_THREADS) {
		if (!star)
			return add_thread(s, p, line, rest, uid, &c);
		if (ps->seen_header_total)
			return yi_error(YING_EPARSE, "%s:%lu: second 't*:' line in "
			    "the header", s->name, s->lineno);
		ps->seen_header_total = true;
		p->header = c;
		if (c.acc_objs || c.acc_bytes)
			p->has_accum = true;
		return 0;
	}
	if (star)
		return yi_error(YING_EPARSE, "%s:%lu: second 't*:' line for one stack",
		    s->name, s->lineno);
	if (*yi_heap_skip_ws(rest))
		return yi_heap_perr(s, "unexpected text after the per-thread counts", rest, line);
	if ((rc = yi_vec_grow(&p->tcounts, 1)) != 0)
		return rc;
	t = &p->tcounts.v[p->tcounts.n++];
	t->stack = (uint32_t)(p->stacks.n - 1);
	t->uid = uid;
	t->raw = c;
	return 0;
}

/* A line of the header's thread list or of a stack's (S_THREADS,
 * S_STACK_THREADS): a blank line, an '@' stack line, MAPPED_LIBRARIES:
 * or a counts line. */
static int
body_line(src *s, ying_profile *p, pstate *ps, const char *line, size_t len)
{
	int rc;

	if (len == 0) {
		ps->st = S_AFTER_BLANK;
		return 0;
	}
	if (line[0] == '@') {
		memset(&ps->cur, 0, sizeof(ps->cur));
		if ((rc = parse_stack_line(s, p, line)) != 0)
			return rc;
		if (p->stacks.n >= UINT32_MAX - 1)
			return yi_error(YING_ELIMIT, "%s: too many stacks", s->name);
		ps->st = S_STACK_TOTAL;
		return 0;
	}
	if (strcmp(line, "MAPPED_LIBRARIES:") == 0) {
		ps->st = S_MAPS;
		p->has_maps = true;
		return 0;
	}
	if (yi_heap_is_thread_line(line))
		return thread_line(s, p, ps, line);
	return yi_error(YING_EPARSE, "%s:%lu: expected an '@ <addresses>' stack line, a "
	    "'t<thread>:' counts line or a blank line before MAPPED_LIBRARIES",
	    s->name, s->lineno);
}

/* One line, by state. */
static inline int
dispatch_line(src *s, ying_profile *p, pstate *ps, const char *line, size_t len,
    bool complete)
{
	int rc;

	switch (ps->st) {
	case S_HEADER:
		if ((rc = parse_header(s, p, line)) != 0)
			return rc;
		ps->st = S_THREADS;
		return 0;
	case S_MAPS:
		return maps_section_line(s, p, ps, line, len, complete);
	case S_AFTER_BLANK:
		if (len == 0)
			return 0;
		if (strcmp(line, "MAPPED_LIBRARIES:") == 0) {
			ps->st = S_MAPS;
			p->has_maps = true;
			return 0;
		}
		return yi_error(YING_EPARSE, "%s:%lu: expected 'MAPPED_LIBRARIES:' after "
		    "the blank line", s->name, s->lineno);
	case S_STACK_TOTAL:
		return stack_total_line(s, p, ps, line);
	default:
		return body_line(s, p, ps, line, len);
	}
}

/* The end of the input: what a complete dump must have had. */
static int
check_end(const src *s, const pstate *ps)
{
	if (ps->st == S_HEADER)
		return yi_error(YING_EPARSE, "%s: empty input (expected 'heap_v2/<sample period>' "
		    "header)", s->name);
	if (ps->st == S_STACK_TOTAL)
		return yi_error(YING_EPARSE, "%s:%lu: input ends after an '@' line; expected its "
		    "'t*:' counts (truncated dump?)", s->name, s->lineno);
	if (!ps->seen_header_total)
		return yi_error(YING_EPARSE, "%s:2: expected the process-wide 't*:' line after "
		    "the header", s->name);
	return 0;
}

static int
parse_stream(src *s, ying_profile *p)
{
	pstate ps;
	char *line = NULL;
	size_t len = 0;
	bool complete = true;
	int rc;

	memset(&ps, 0, sizeof(ps));
	ps.st = S_HEADER;
	if ((rc = yi_read_budget(&ps.budget)) != 0)
		return rc;
	for (;;) {
		if ((rc = yi_heap_src_line(s, &line, &len, &complete)) != 0)
			return rc;
		if (line == NULL)
			break;
		if ((rc = check_budget(s, p, &ps, len)) != 0)
			return rc;
		if (!complete && ps.st != S_MAPS)
			return yi_error(YING_EPARSE, "%s:%lu: file ends in the middle of a line "
			    "(truncated dump?)", s->name, s->lineno);
		if ((rc = dispatch_line(s, p, &ps, line, len, complete)) != 0)
			return rc;
	}
	return check_end(s, &ps);
}

static int
run(src *s, ying_profile **out)
{
	ying_profile *p;
	int rc;

	if ((rc = yi_profile_new(&p, s->name)) != 0)
		return rc;
	p->format = YI_FMT_HEAP_V2;
	if ((s->buf == NULL && (s->buf = yi_malloc(WINDOW + 1)) == NULL) ||
	    (s->lcache = yi_calloc((size_t)1 << LCACHE_BITS, sizeof(*s->lcache))) == NULL ||
	    (s->ucache = yi_calloc((size_t)1 << UCACHE_BITS, sizeof(*s->ucache))) == NULL) {
		yi_free(s->lcache);
		s->lcache = NULL;
		yi_free(s->buf);
		s->buf = NULL;
		ying_profile_free(p);
		return yi_oom("allocating the read buffer");
	}
	rc = parse_stream(s, p);
	yi_free(s->buf);
	s->buf = NULL;
	yi_free(s->lcache);
	s->lcache = NULL;
	yi_free(s->ucache);
	s->ucache = NULL;
	yi_vec_free(&s->locs);
	if (rc != 0) {
		ying_profile_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int
yi_heap_parse_mem(ying_profile **out, const void *data, size_t len, const char *name)
{
	src s;

	*out = NULL;
	memset(&s, 0, sizeof(s));
	s.name = name ? name : "(memory)";
	s.mem = data;
	s.memlen = len;
	s.eof = len == 0;
	s.size_hint = len;
	return run(&s, out);
}

int
yi_heap_parse_maps(ying_profile *p, const char *text, size_t len, const char *name)
{
	char *line = NULL;
	size_t n = 0, cap = p->maps_text ? p->maps_text_len + 1 : 0;
	bool complete = true;
	src s;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	s.name = name ? name : "(maps)";
	s.mem = text;
	s.memlen = len;
	s.eof = len == 0;
	if ((s.buf = yi_malloc(WINDOW + 1)) == NULL)
		return yi_oom("allocating the read buffer");
	p->has_maps = true;
	/* parse_stream's S_MAPS, line for line */
	while ((rc = yi_heap_src_line(&s, &line, &n, &complete)) == 0 && line != NULL) {
		if (!complete || n == 0)
			continue;
		if (strncmp(line, YI_BUILD_ID_TAG, sizeof(YI_BUILD_ID_TAG) - 1) == 0)
			rc = parse_build_id_line(&s, p, line);
		else
			rc = parse_maps_line(&s, p, line);
		if (rc != 0 || (rc = append_maps_text(p, line, n, &cap)) != 0)
			break;
	}
	yi_free(s.buf);
	return rc;
}

int
yi_heap_parse_gz(ying_profile **out, gzFile gz, const void *head, size_t n,
    const char *name)
{
	return yi_heap_parse_gz_sized(out, gz, head, n, name, 0);
}

int
yi_heap_parse_gz_sized(ying_profile **out, gzFile gz, const void *head, size_t n,
    const char *name, size_t size_hint)
{
	src s;

	*out = NULL;
	memset(&s, 0, sizeof(s));
	s.name = name;
	s.gz = gz;
	s.size_hint = size_hint;
	if (n > WINDOW)
		return yi_error(YING_EINVAL, "%s: %zu bytes read ahead, more than the window", name, n);
	if ((s.buf = yi_malloc(WINDOW + 1)) == NULL)
		return yi_oom("allocating the read buffer");
	memcpy(s.buf, head, n);
	s.end = n;
	s.eof = n == 0;
	return run(&s, out);
}
