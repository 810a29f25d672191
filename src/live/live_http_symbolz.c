/*
 * live_http_symbolz.c: jeprof's remote protocol (/pprof/cmdline,
 * /pprof/symbol) and Go's symbolz (/debug/pprof/symbol): posted addresses
 * are symbolized against the process's own /proc/self/maps with the
 * server's long-lived symbolizer; allocator frames are named `malloc` so
 * that jeprof's skip list removes them.  No request can name a path.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "live_http.h"
#include "read.h"
#include "sym.h"

/* ---- endpoints: jeprof / Go remote symbolization ---------------------------- */

void
yi_http_ep_cmdline(hreq *q)
{
	FILE *f = fopen("/proc/self/cmdline", "re");
	char buf[4096];
	size_t n, total = 0;

	q->ctype = "text/plain; charset=utf-8";
	if (f == NULL) {
		yi_http_out_printf(q, "%s\n", q->h->program);
		return;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && total < (1u << 20)) {
		for (size_t i = 0; i < n; i++)
			if (buf[i] == '\0')
				buf[i] = '\n';
		yi_http_out_add(q, buf, n);
		total += n;
	}
	fclose(f);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Parse "0xA+0xB+..." (also whitespace or ',' separated). */
static bool
parse_addrs(hreq *q, uint64_t **out, size_t *n)
{
	YI_VEC(uint64_t) v = { NULL, 0, 0 };
	const char *p = q->body.data ? q->body.data : "", *end = p + q->body.len;

	while (p < end) {
		uint64_t a = 0;
		int digits = 0;
		if (*p == '+' || *p == ',' || *p == ' ' || *p == '\n' || *p == '\r' ||
		    *p == '\t') {
			p++;
			continue;
		}
		if (end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
			p += 2;
		for (; p < end; p++, digits++) {
			unsigned d;
			char c = *p;
			if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
			else if (c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
			else if (c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
			else break;
			if (a >> 60)
				digits = 99;
			a = a << 4 | d;
		}
		if (digits == 0 || digits > 16 || (p < end && *p != '+' && *p != ',' &&
		    *p != ' ' && *p != '\n' && *p != '\r' && *p != '\t')) {
			yi_vec_free(&v);
			yi_http_fail(q, 400, "bad symbol request: expected hex addresses joined "
			    "by '+' (0x7f...+0x55...) near byte %ld",
			    (long)(p - q->body.data));
			return false;
		}
		if (v.n >= MAX_SYMBOL_ADDRS) {
			yi_vec_free(&v);
			yi_http_fail(q, 413, "too many addresses (at most %d)", MAX_SYMBOL_ADDRS);
			return false;
		}
		if (yi_vec_grow(&v, 1) != 0) {
			yi_vec_free(&v);
			yi_http_fail(q, 500, "out of memory");
			return false;
		}
		v.v[v.n++] = a;
	}
	if (v.n > 1) {
		size_t k = 1;
		qsort(v.v, v.n, sizeof(uint64_t), cmp_u64);
		for (size_t i = 1; i < v.n; i++)
			if (v.v[i] != v.v[k - 1])
				v.v[k++] = v.v[i];
		v.n = k;
	}
	*out = v.v;
	*n = v.n;
	return true;
}

/*
 * POST /pprof/symbol (jeprof) and /debug/pprof/symbol (Go): one line per
 * address that falls in a mapping, "0x<addr>\t<names>".  jeprof gets the
 * inline chain outermost first joined by "--"; Go gets the function that
 * contains the address.  Allocator frames are named "malloc".
 */
static void
symbolize_post(hreq *q, bool jeprof)
{
	ying_profile *p = NULL;
	ying_symbolize_opts so = YING_SYMBOLIZE_OPTS_INIT;
	uint64_t *addrs = NULL;
	size_t n = 0;
	int rc = 0;

	if (!parse_addrs(q, &addrs, &n))
		return;
	q->ctype = "text/plain; charset=utf-8";
	if (n == 0)
		goto out;
	/* One single-frame stack per address, plus our own maps (what the
	 * heap_v2 reader made of "@ 0x<addr>\n  t*: 1: 1 [0: 0]" lines): the
	 * shared symbolizer does the rest. */
	{
		yi_counts tot = { n, n, 0, 0 }, one = { 1, 1, 0, 0 };
		char *maps = NULL;
		size_t mlen = 0;
		rc = yi_profile_new_heap(&p, "symbol request", 1, &tot);
		for (size_t i = 0; rc == 0 && i < n; i++)
			rc = yi_profile_add_pcs(p, &addrs[i], 1, &one);
		if (rc == 0 && (rc = yi_maps_read(NULL, 0, &maps, &mlen)) == 0)
			rc = yi_heap_parse_maps(p, maps, mlen, "symbol request");
		yi_free(maps);
	}
	so.keep_allocator_frames = 1;
	q->sym_used = true;
	if (rc == 0)
		rc = ying_profile_symbolize(p, q->h->sym, &so);
	if (rc != 0) {
		yi_http_fail_rc(q, rc, "symbolization failed");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t *li = yi_map64_get(&p->loc_by_addr, addrs[i]);
		const yi_loc *loc;
		bool alloc = false;

		if (li == NULL)
			continue;
		loc = &p->locs.v[*li];
		if (loc->mapping < 0 || loc->nlines == 0)
			continue;
		if (p->maps.v[loc->mapping].is_jemalloc || loc->allocator)
			alloc = true;
		for (uint16_t k = 0; !alloc && k < loc->nlines; k++) {
			const yi_line *ln = &p->lines.v[loc->line_off + k];
			if (yi_is_allocator_name(yi_profile_str(p, p->funcs.v[ln->func].name)))
				alloc = true;
		}
		yi_http_out_printf(q, "0x%016" PRIx64 "\t", addrs[i]);
		if (alloc) {
			yi_http_out_str(q, "malloc\n");
			continue;
		}
		if (jeprof) {
			/* outermost (the real function) first, innermost last */
			for (int k = (int)loc->nlines - 1; k >= 0; k--) {
				const yi_line *ln = &p->lines.v[loc->line_off + (uint32_t)k];
				yi_http_out_str(q, yi_profile_str(p, p->funcs.v[ln->func].name));
				if (k)
					yi_http_out_str(q, "--");
			}
		} else {
			const yi_line *ln = &p->lines.v[loc->line_off + loc->nlines - 1u];
			yi_http_out_str(q, yi_profile_str(p, p->funcs.v[ln->func].name));
		}
		yi_http_out_str(q, "\n");
	}
out:
	ying_profile_free(p);
	yi_free(addrs);
}

static void
ep_symbol(hreq *q, bool jeprof)
{
	if (strcmp(q->method, "POST") != 0) {
		q->ctype = "text/plain; charset=utf-8";
		yi_http_out_str(q, "num_symbols: 1\n");
		return;
	}
	symbolize_post(q, jeprof);
}

void yi_http_ep_symbol_jeprof(hreq *q) { ep_symbol(q, true); }
void yi_http_ep_symbol_go(hreq *q) { ep_symbol(q, false); }
