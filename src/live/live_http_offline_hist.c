/*
 * live_http_offline_hist.c: GET /debug/history of `ying serve`, the
 * agent's history JSON (docs/ying-http.7) over files: one point per dump
 * at its time, its columns t, rss, allocated, active, metadata, resident,
 * retained and one heap:NAME per heap of the dumps (a dump without named
 * heaps: heap:c, as the agent names a process's one plain jemalloc).  The
 * heap columns are the dump's inuse_space totals; rss is the RSS its
 * report set's .report gives ("memory of pid
 * N: RSS ... (N bytes)"), else null; jemalloc's own counters are not in a
 * dump: null.  "fine" holds the newest 600 points, its step the median
 * gap between dumps (at least 1 s); "coarse" the last point of each
 * minute, the newest 1440 minutes.  Events: every dump (kind "dump") and
 * every report (kind "report"), named by file name.  ?since=T keeps the
 * points and events after T.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "live_http.h"
#include "live_serve.h"

#define FINE_MAX 600
#define COARSE_MAX 1440

/* The rss of dump i: its report set's .report (the same base name, a few
 * entries away at most: the set is written at once). */
static double
rss_of(const yi_serve_entry *e, size_t n, size_t i)
{
	size_t lo = i > 8 ? i - 8 : 0, hi = i + 8 < n ? i + 8 : n - 1;

	if (e[i].base_len == 0)
		return NAN;
	for (size_t k = lo; k <= hi; k++)
		if (e[k].report && e[k].base_len == e[i].base_len &&
		    strncmp(e[k].name, e[i].name, e[i].base_len) == 0)
			return e[k].rss;
	return NAN;
}

static void
num_or_null(yi_out *o, double v)
{
	if (isfinite(v))
		yi_out_json_num(o, v);
	else
		yi_out_puts(o, "null");
}

static void
point(yi_out *o, const yi_serve_entry *e, size_t n, size_t i, size_t nheaps)
{
	yi_out_putc(o, '[');
	yi_out_json_num(o, e[i].t);
	yi_out_putc(o, ',');
	num_or_null(o, rss_of(e, n, i));
	yi_out_puts(o, ",null,null,null,null,null");
	for (size_t h = 0; h < nheaps; h++) {
		yi_out_putc(o, ',');
		num_or_null(o, e[i].heap[h]);
	}
	yi_out_putc(o, ']');
}

static int
dbl_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* The median gap between the dumps, at least 1 s (1 with fewer than 2). */
static double
median_step(const yi_serve_entry *e, size_t n)
{
	double *g, prev = NAN, m = 1;
	size_t k = 0;

	if (n < 2 || (g = yi_calloc(n, sizeof(*g))) == NULL)
		return 1;
	for (size_t i = 0; i < n; i++) {
		if (e[i].report)
			continue;
		if (!isnan(prev))
			g[k++] = e[i].t - prev;
		prev = e[i].t;
	}
	if (k > 0) {
		qsort(g, k, sizeof(*g), dbl_cmp);
		m = g[k / 2];
	}
	yi_free(g);
	return m >= 1 ? floor(m + 0.5) : 1;
}

void
yi_http_offline_history(hreq *q)
{
	yi_serve *s = q->h->offline;
	const yi_serve_entry *e;
	const char *sv = yi_http_arg(q, "since");
	double since = -INFINITY;
	size_t n, nh, dumps = 0, k, first;
	long pid;
	yi_out *o;

	if (sv != NULL) {
		char *end;
		since = strtod(sv, &end);
		if (end == sv || *end != '\0' || !isfinite(since)) {
			yi_http_fail(q, 400, "bad parameter since=%s: expected unix seconds", sv);
			return;
		}
	}
	yi_serve_refresh(s);
	if ((o = yi_http_offline_out(q)) == NULL)
		return;
	q->ctype = "application/json";
	yi_serve_lock(s);
	e = yi_serve_entries(s, &n);
	nh = yi_serve_nheaps(s);
	pid = yi_serve_pid(s);
	yi_out_puts(o, "{\"pid\":");
	if (pid > 0)
		yi_out_printf(o, "%ld", pid);
	else
		yi_out_puts(o, "null");
	yi_out_puts(o, ",\"now\":");
	yi_out_json_num(o, n ? e[n - 1].t : 0);
	yi_out_puts(o, ",\"limit\":null,\"mode\":\"serve\",\"columns\":[\"t\",\"rss\","
	    "\"allocated\",\"active\",\"metadata\",\"resident\",\"retained\"");
	for (size_t h = 0; h < nh; h++) {
		char col[160];
		snprintf(col, sizeof(col), "heap:%s", yi_serve_heap_name(s, h));
		yi_out_putc(o, ',');
		yi_out_json_str(o, col);
	}
	for (size_t i = 0; i < n; i++)
		dumps += !e[i].report && e[i].t > since;
	/* fine: the newest FINE_MAX dumps after since */
	yi_out_puts(o, "],\"fine\":{\"step\":");
	yi_out_json_num(o, median_step(e, n));
	yi_out_puts(o, ",\"points\":[");
	first = dumps > FINE_MAX ? dumps - FINE_MAX : 0;
	k = 0;
	for (size_t i = 0, j = 0; i < n; i++) {
		if (e[i].report || !(e[i].t > since))
			continue;
		if (j++ < first)
			continue;
		if (k++)
			yi_out_putc(o, ',');
		point(o, e, n, i, nh);
	}
	/* coarse: the last dump of each minute, the newest COARSE_MAX minutes */
	yi_out_puts(o, "]},\"coarse\":{\"step\":60,\"points\":[");
	{
		size_t minutes = 0;
		double cur = NAN;
		for (size_t i = 0; i < n; i++)
			if (!e[i].report && e[i].t > since && floor(e[i].t / 60) != cur) {
				cur = floor(e[i].t / 60);
				minutes++;
			}
		first = minutes > COARSE_MAX ? minutes - COARSE_MAX : 0;
		cur = NAN;
		k = 0;
		for (size_t i = 0, m = 0; i < n; i++) {
			size_t nx;
			if (e[i].report || !(e[i].t > since))
				continue;
			/* the last dump of its minute: the next dump is in another */
			for (nx = i + 1; nx < n && e[nx].report; nx++)
				;
			if (nx < n && floor(e[nx].t / 60) == floor(e[i].t / 60))
				continue;
			if (m++ < first)
				continue;
			if (k++)
				yi_out_putc(o, ',');
			point(o, e, n, i, nh);
		}
	}
	yi_out_puts(o, "]},\"events\":[");
	k = 0;
	for (size_t i = 0; i < n; i++) {
		if (!(e[i].t > since))
			continue;
		yi_out_puts(o, k++ ? ",{\"t\":" : "{\"t\":");
		yi_out_json_num(o, e[i].t);
		yi_out_printf(o, ",\"kind\":\"%s\",\"name\":", e[i].report ? "report" : "dump");
		yi_out_json_str(o, e[i].name);
		yi_out_putc(o, '}');
	}
	yi_out_puts(o, "]}\n");
	yi_serve_unlock(s);
	yi_http_offline_done(q, o);
}
