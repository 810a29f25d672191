/*
 * sym_remote.c: names from a server speaking jeprof's symbol protocol
 * (ying_profile_symbolize_remote), for a dump fetched from a machine whose
 * binaries are not here.
 *
 * jeprof's protocol (its FetchSymbols): POST to BASE/pprof/symbol the
 * unique addresses, each "0x" and 16 hex digits, joined by '+'; the answer
 * is lines "0xADDRESS NAME" (leading zeros may differ; the names of an
 * inline chain outermost first, joined by "--"), other lines ignored, a
 * line starting with "---" ends it.  BASE is the profile URL up to its
 * "/pprof/" path (jeprof's ParseProfileURL), so a prefix such as
 * http://h/some/prefix/pprof/heap works.  The addresses sent are the
 * locations' (callers already at pc - 1, as jeprof sends them).  Each
 * location named this way gets its inline chain and its mapping (so a
 * jemalloc mapping is still trimmed); what the server does not name is
 * left for ying_profile_symbolize, which skips named locations.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "live.h"
#include "read.h"
#include "sym.h"

typedef struct rsym {
	uint64_t addr;
	const char *names;      /* into the response */
	size_t len;
} rsym;
typedef YI_VEC(rsym) rsymvec;
typedef YI_VEC(yi_line) linevec;

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
cmp_rsym(const void *a, const void *b)
{
	return cmp_u64(&((const rsym *)a)->addr, &((const rsym *)b)->addr);
}

/* The "pid=VALUE" argument of url's query (its length into *n), or NULL. */
static const char *
pid_arg(const char *url, size_t *n)
{
	const char *q = strchr(url, '?'), *a;

	if (q == NULL)
		return NULL;
	for (a = q + 1; *a && *a != '#'; a += strcspn(a, "&#"), a += *a == '&') {
		if (strncmp(a, "pid=", 4) == 0) {
			*n = strcspn(a, "&#");
			return a;
		}
	}
	return NULL;
}

/* BASE/pprof/symbol for a profile URL; a ?pid=N of the profile's URL (one
 * process of a service, ying-http(7)) goes along: its addresses are that
 * process's. */
static char *
symbol_url(const char *url)
{
	const char *scheme = strstr(url, "://"), *path, *cut, *q;
	size_t n;
	char *s;

	path = scheme ? strchr(scheme + 3, '/') : NULL;
	q = strpbrk(url, "?#");
	n = q ? (size_t)(q - url) : strlen(url);
	if (path && path < url + n) {
		cut = NULL;
		for (q = path; (q = strstr(q, "/pprof/")) != NULL && q < url + n; q++)
			cut = q;
		if (cut)
			n = (size_t)(cut - url);
	}
	while (n > 0 && url[n - 1] == '/')
		n--;
	{
		size_t pn = 0;
		const char *pa = pid_arg(url, &pn);
		if ((s = yi_malloc(n + sizeof("/pprof/symbol") + 1 + pn)) == NULL)
			return NULL;
		memcpy(s, url, n);
		memcpy(s + n, "/pprof/symbol", sizeof("/pprof/symbol"));
		if (pa) {
			size_t k = n + sizeof("/pprof/symbol") - 1;
			s[k] = '?';
			memcpy(s + k + 1, pa, pn);
			s[k + 1 + pn] = '\0';
		}
	}
	return s;
}

/* The answer's "0xADDR NAMES" lines, sorted by address. */
static int
parse_answer(char *text, rsymvec *out)
{
	char *line = text, *next, *e;
	int rc;

	for (; line && *line; line = next) {
		uint64_t addr;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, "---", 3) == 0)
			break;
		if (line[0] != '0' || (line[1] != 'x' && line[1] != 'X'))
			continue;
		addr = strtoull(line + 2, &e, 16);
		if (e == line + 2 || (*e != ' ' && *e != '\t'))
			continue;
		while (*e == ' ' || *e == '\t')
			e++;
		if ((rc = yi_vec_grow(out, 1)) != 0)
			return rc;
		out->v[out->n].addr = addr;
		out->v[out->n].names = e;
		out->v[out->n].len = strcspn(e, "\r");
		if (out->v[out->n].len)
			out->n++;
	}
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(rsym), cmp_rsym);
	return 0;
}

/* Give location li the names "a--b--c" (outermost first). */
static int
name_loc(ying_profile *p, uint32_t li, const rsym *r)
{
	linevec lines = { 0 };
	const char *s = r->names, *end = r->names + r->len;
	char *name = NULL;
	size_t i;
	int rc = 0;

	while (s < end && rc == 0) {
		const char *sep = s, *stop;
		for (; sep + 1 < end && !(sep[0] == '-' && sep[1] == '-'); sep++)
			;
		stop = sep + 1 < end ? sep : end;
		if (stop > s) {
			yi_free(name);
			if ((name = yi_malloc((size_t)(stop - s) + 1)) == NULL) {
				rc = yi_oom("naming addresses");
				break;
			}
			memcpy(name, s, (size_t)(stop - s));
			name[stop - s] = '\0';
			if ((rc = yi_vec_grow(&lines, 1)) != 0)
				break;
			lines.v[lines.n].line = 0;
			rc = yi_profile_func(p, name, name, "", &lines.v[lines.n].func);
			lines.n++;
		}
		s = stop + 2;
	}
	/* the model keeps inline chains innermost first */
	for (i = 0; rc == 0 && i < lines.n / 2; i++) {
		yi_line t = lines.v[i];
		lines.v[i] = lines.v[lines.n - 1 - i];
		lines.v[lines.n - 1 - i] = t;
	}
	if (rc == 0 && lines.n)
		rc = yi_profile_set_lines(p, li, lines.v, lines.n);
	yi_free(name);
	yi_vec_free(&lines);
	return rc;
}

int
ying_profile_symbolize_remote(size_t *named, ying_profile *p,
    const char *url, const ying_fetch_opts *opts)
{
	YI_VEC(uint64_t) addrs = { 0 };
	rsymvec ans = { 0 };
	YI_VEC(char) req = { 0 };
	uint32_t *order = NULL;
	size_t i, k, norder = 0, len = 0, count = 0;
	char *surl = NULL, *text = NULL;
	int rc = 0;

	yi_error_clear();
	if (named)
		*named = 0;
	if (p == NULL || url == NULL)
		return yi_error(YING_EINVAL, "ying_profile_symbolize_remote: no profile or URL");
	if (p->symbolized)
		return 0;
	for (i = 0; i < p->locs.n; i++) {
		if (p->locs.v[i].nlines)
			continue;
		if ((rc = yi_vec_grow(&addrs, 1)) != 0)
			goto out;
		addrs.v[addrs.n++] = p->locs.v[i].addr;
	}
	if (addrs.n == 0)
		goto out;
	qsort(addrs.v, addrs.n, sizeof(uint64_t), cmp_u64);
	if ((rc = yi_vec_grow(&req, addrs.n * 19 + 1)) != 0)
		goto out;
	for (i = 0; i < addrs.n; i++) {
		if (i && addrs.v[i] == addrs.v[i - 1])
			continue;
		req.n += (size_t)snprintf(req.v + req.n, 20, "%s0x%016" PRIx64, req.n ? "+" : "",
		    addrs.v[i]);
	}
	if ((surl = symbol_url(url)) == NULL) {
		rc = yi_oom("a URL");
		goto out;
	}
	if ((rc = yi_http_post(surl, opts, req.v, req.n, &text, &len)) != 0)
		goto out;
	if ((rc = parse_answer(text, &ans)) != 0)
		goto out;
	if (ans.n == 0) {
		rc = yi_error(YING_ENODATA, "%s: no names for the %zu addresses posted", surl,
		    addrs.n);
		goto out;
	}
	if (p->maps.n && (order = yi_malloc(p->maps.n * sizeof(*order))) == NULL) {
		rc = yi_oom("naming addresses");
		goto out;
	}
	for (i = 0; i < p->maps.n; i++)
		if (p->maps.v[i].exec)
			order[norder++] = (uint32_t)i;
	yi_maps_sort(p, order, norder);
	for (i = 0; i < p->locs.n && rc == 0; i++) {
		yi_loc *l = &p->locs.v[i];
		size_t lo = 0, hi = ans.n;
		if (l->nlines)
			continue;
		while (lo < hi) {
			k = lo + (hi - lo) / 2;
			if (ans.v[k].addr < l->addr)
				lo = k + 1;
			else
				hi = k;
		}
		if (lo == ans.n || ans.v[lo].addr != l->addr)
			continue;
		if (l->mapping < 0 && norder)
			l->mapping = yi_maps_find(p, order, norder, l->addr);
		if ((rc = name_loc(p, (uint32_t)i, &ans.v[lo])) == 0)
			count++;
	}
	if (named)
		*named = count;
out:
	yi_free(order);
	yi_free(surl);
	yi_free(text);
	yi_vec_free(&addrs);
	yi_vec_free(&ans);
	yi_vec_free(&req);
	return rc;
}
