/*
 * live_http_offline.c: the endpoint's routes when it serves files
 * (`ying serve`, ying_http_serve_files): the same server, doors and
 * answers as the agent's (live_http.c: Host, peer, token, Origin, limits,
 * error bodies), with this table of routes consulted instead of the live
 * one, over a source of dumps (live_serve_src.c) instead of mallctl:
 *
 *   GET /debug/                the list of these (the page, GET / and /ui/...,
 *                              is live_http_page.c's, as for a process)
 *   GET /debug/ui              {"mode":"serve", "pid", "program", ...}
 *   GET /debug/history         one point per dump at its time (heap
 *                              columns from the dump's totals, rss from
 *                              its report set's .report, else null);
 *                              events: "dump" and "report" by file name
 *   GET /debug/heap            ?format=...&snapshot=NAME (default: newest)
 *   GET /debug/heap/snapshot   the dumps, as the snapshot list
 *   GET /debug/heap/diff       ?base=N[&now=M] (default now: the newest)
 *   GET /debug/heap/leaks      ying leaks over every dump
 *   GET /debug/pprof/heap, /pprof/heap: the newest dump (go tool pprof,
 *                              jeprof)
 *
 * The endpoints of a process (memory, control, giant and recent
 * allocations, processes, symbolization) answer 404 "offline: no
 * process"; any method but GET and HEAD is 405 saying the server is
 * offline.  The history's JSON is live_http_offline_hist.c's.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "live_http.h"
#include "live_serve.h"

static void ep_index(hreq *q);
static void ep_ui(hreq *q);
static void ep_heap(hreq *q);
static void ep_pprof(hreq *q);
static void ep_snapshots(hreq *q);
static void ep_diff(hreq *q);
static void ep_leaks(hreq *q);

static const route offline_routes[] = {
	{ "/debug/", M_GET, ep_index, "GET, HEAD", false, "this list" },
	{ "/debug/ui", M_GET, ep_ui, "GET, HEAD", false,
	  "what this endpoint is (JSON): mode \"serve\", the program, the dumps" },
	{ "/debug/history", M_GET, yi_http_offline_history, "GET, HEAD", false,
	  "memory over time, one point per dump (JSON); ?since=T" },
	{ "/debug/heap", M_GET, ep_heap, "GET, HEAD", false,
	  "a dump; ?snapshot=NAME (default: the newest)&amp;format=raw|pprof|folded|svg|"
	  "text|json|tree&amp;sample_index=..." },
	{ "/debug/heap/flamegraph", M_GET, ep_heap, "GET, HEAD", false,
	  "SVG flame graph of a dump; ?snapshot=NAME" },
	{ "/debug/heap/snapshot", M_GET, ep_snapshots, "GET, HEAD", false,
	  "the dumps, each a snapshot named by its file name" },
	{ "/debug/heap/diff", M_GET, ep_diff, "GET, HEAD", false,
	  "growth from dump base to dump now; ?base=N&amp;now=M (default: the newest)"
	  "&amp;format=text|json|svg|pprof|folded|tree&amp;significant=1" },
	{ "/debug/heap/leaks", M_GET, ep_leaks, "GET, HEAD", false,
	  "leak verdicts over every dump (ying leaks); ?format=json|text&amp;stacks=1"
	  "&amp;limit=N" },
	{ "/debug/pprof/heap", M_GET, ep_pprof, "GET, HEAD", false,
	  "the newest dump as gzipped pprof (go tool pprof)" },
	{ "/pprof/heap", M_GET, ep_pprof, "GET, HEAD", false,
	  "the newest dump as it is (jeprof)" },
};
#define NROUTES (sizeof(offline_routes) / sizeof(offline_routes[0]))

/* The agent's endpoints that need the process. */
static const char *const process_only[] = {
	"/debug/memory", "/debug/prof", "/debug/prof/active", "/debug/prof/sample",
	"/debug/stats", "/debug/processes", "/debug/heap/giant", "/debug/heap/recent",
	"/debug/pprof/allocs", "/debug/pprof/symbol", "/debug/pprof/cmdline",
	"/pprof/symbol", "/pprof/cmdline",
};

bool
yi_http_offline_route(hreq *q)
{
	bool get = strcmp(q->method, "GET") == 0 || strcmp(q->method, "HEAD") == 0;

	for (size_t i = 0; i < NROUTES; i++)
		if (strcmp(q->url, offline_routes[i].path) == 0)
			q->r = &offline_routes[i];
	if (q->r == NULL) {
		for (size_t i = 0; i < sizeof(process_only) / sizeof(process_only[0]); i++)
			if (strcmp(q->url, process_only[i]) == 0) {
				yi_http_fail(q, 404, "offline: no process (ying serve reads dumps "
				    "from %s; %s is an endpoint of a running process's agent)",
				    yi_serve_what(q->h->offline), q->url);
				return false;
			}
		yi_http_fail(q, 404, "no such endpoint: %s (ying serve, offline: GET "
		    "/debug/ lists them)", q->url);
		return false;
	}
	if (!get) {
		q->allow = "GET, HEAD";
		yi_http_fail(q, 405, "method %s not allowed on %s: ying serve is offline "
		    "(it serves the dumps of %s; nothing can be changed or taken), only GET "
		    "and HEAD", q->method, q->url, yi_serve_what(q->h->offline));
		return false;
	}
	return true;
}

static void
ep_index(hreq *q)
{
	q->ctype = "text/html; charset=utf-8";
	yi_http_out_str(q, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
	    "<title>ying serve</title></head><body>\n<h1>ying serve (offline)</h1>\n"
	    "<table>\n");
	for (size_t i = 0; i < NROUTES; i++)
		yi_http_out_printf(q, "<tr><td>%s</td><td><a href=\"%s\">%s</a></td>"
		    "<td>%s</td></tr>\n", offline_routes[i].allow, offline_routes[i].path,
		    offline_routes[i].path, offline_routes[i].help);
	yi_http_out_str(q, "</table>\n</body></html>\n");
}

/* A new yi_out on the response, or NULL after a 500. */
yi_out *
yi_http_offline_out(hreq *q)
{
	yi_out *o = yi_malloc(sizeof(*o));

	if (o == NULL) {
		yi_http_fail(q, 500, "out of memory");
		return NULL;
	}
	yi_out_init(o, ying_write_membuf, &q->out);
	return o;
}

void
yi_http_offline_done(hreq *q, yi_out *o)
{
	if (yi_out_finish(o) != 0)
		yi_http_fail(q, 500, "out of memory writing the answer");
	yi_free(o);
}

static void
ep_ui(hreq *q)
{
	yi_serve *s = q->h->offline;
	yi_out *o;
	char newest[512];
	size_t n;
	long pid;

	yi_serve_refresh(s);
	if ((o = yi_http_offline_out(q)) == NULL)
		return;
	q->ctype = "application/json";
	yi_serve_lock(s);
	n = yi_serve_ndumps(s, newest, sizeof(newest));
	pid = yi_serve_pid(s);
	yi_out_puts(o, "{\"mode\":\"serve\",\"pid\":");
	if (pid > 0)
		yi_out_printf(o, "%ld", pid);
	else
		yi_out_puts(o, "null");
	yi_out_puts(o, ",\"program\":");
	yi_out_json_str(o, yi_serve_program(s));
	yi_out_puts(o, ",\"source\":");
	yi_out_json_str(o, yi_serve_what(s));
	yi_out_printf(o, ",\"dumps\":%zu,\"newest\":", n);
	yi_out_json_str(o, newest);
	yi_out_puts(o, ",\"fetch_error\":");
	if (yi_serve_fetch_error(s)[0])
		yi_out_json_str(o, yi_serve_fetch_error(s));
	else
		yi_out_puts(o, "null");
	yi_out_puts(o, "}\n");
	yi_serve_unlock(s);
	yi_http_offline_done(q, o);
}

/* ?name= of a dump: any file name (no '/'), or NULL after a 400. */
static bool
dump_arg(hreq *q, const char *key, const char **out)
{
	const char *v = yi_http_arg(q, key);

	/* "report:NAME", the live endpoint's name of a report point, is the
	 * dump NAME here (every dump is a point) */
	if (v != NULL && strncmp(v, YI_HTTP_REPORT_PREFIX, strlen(YI_HTTP_REPORT_PREFIX)) == 0)
		v += strlen(YI_HTTP_REPORT_PREFIX);
	*out = v;
	if (v == NULL)
		return true;
	if (v[0] == '\0' || strchr(v, '/') != NULL || strlen(v) > 255) {
		yi_http_fail(q, 400, "bad parameter %s=%s: the file name of a dump "
		    "(GET /debug/heap/snapshot lists them)", key, v);
		return false;
	}
	return true;
}

/* The dump of ?key= (the newest without it), symbolized; NULL after an
 * error answer (404 naming an unknown one). */
static const ying_profile *
get_dump(hreq *q, const char *name)
{
	const ying_profile *p = NULL;
	int rc;

	q->sym_used = true;
	rc = yi_serve_get(q->h->offline, name, q->h->sym, q->h->frames, &p);
	if (rc != 0) {
		yi_http_fail_rc(q, rc, name ? name : "the newest dump");
		return NULL;
	}
	return p;
}

static void
raw_dump(hreq *q, const char *name)
{
	char *data = NULL;
	size_t len = 0;
	int rc;

	if ((rc = yi_serve_raw(q->h->offline, name, &data, &len)) != 0) {
		yi_http_fail_rc(q, rc, name ? name : "the newest dump");
		return;
	}
	if (len < 8 || memcmp(data, "heap_v2/", 8) != 0) {
		yi_free(data);
		yi_http_fail(q, 400, "%s is not a plain heap_v2 dump (gzipped, or a "
		    "pprof profile): format=pprof or json reads it", name ? name :
		    "the newest dump");
		return;
	}
	yi_http_set_type(q, YI_HF_RAW);
	yi_http_out_add(q, data, len);
	yi_free(data);
}

static const yi_http_fmt heap_formats[] = {
	YI_HF_RAW, YI_HF_PPROF, YI_HF_FOLDED, YI_HF_SVG, YI_HF_TEXT, YI_HF_JSON, YI_HF_TREE
};

static void
ep_heap(hreq *q)
{
	const ying_profile *p;
	const char *name;
	ying_sample_index idx;
	int fmt, rc;

	if (strcmp(q->url, "/debug/heap/flamegraph") == 0)
		fmt = YI_HF_SVG;
	else if ((fmt = yi_http_arg_format(q, heap_formats,
	    sizeof(heap_formats) / sizeof(heap_formats[0]))) < 0)
		return;
	if (!yi_http_arg_index(q, &idx) || !yi_http_arg_by(q) || !dump_arg(q, "snapshot", &name))
		return;
	yi_serve_refresh(q->h->offline);
	if (fmt == YI_HF_RAW) {
		raw_dump(q, name);
		return;
	}
	if ((p = get_dump(q, name)) == NULL)
		return;
	rc = yi_http_write(q, (yi_http_fmt)fmt, (ying_profile *)p, NULL, idx, 0);
	yi_serve_put(q->h->offline, p);
	if (rc != 0)
		yi_http_fail_rc(q, rc, "writing the dump failed");
}

static void
ep_pprof(hreq *q)
{
	const ying_profile *p;
	int rc;

	if (yi_http_arg(q, "seconds") != NULL) {
		yi_http_fail(q, 404, "offline: no process, no growth over ?seconds= (ying "
		    "serve: GET /debug/heap/diff?base=N between two dumps)");
		return;
	}
	yi_serve_refresh(q->h->offline);
	if (strcmp(q->url, "/pprof/heap") == 0) {
		raw_dump(q, NULL);
		return;
	}
	if ((p = get_dump(q, NULL)) == NULL)
		return;
	rc = yi_http_write(q, YI_HF_PPROF, (ying_profile *)p, NULL, YING_INUSE_SPACE, 0);
	yi_serve_put(q->h->offline, p);
	if (rc != 0)
		yi_http_fail_rc(q, rc, "writing the dump failed");
}

static void
ep_snapshots(hreq *q)
{
	yi_serve *s = q->h->offline;
	const yi_serve_entry *e;
	size_t n, k = 0, bytes = 0;
	yi_out *o;

	yi_serve_refresh(s);
	if ((o = yi_http_offline_out(q)) == NULL)
		return;
	q->ctype = "application/json";
	yi_serve_lock(s);
	e = yi_serve_entries(s, &n);
	for (size_t i = 0; i < n; i++)
		if (!e[i].report) {
			k++;
			bytes += e[i].len;
		}
	yi_out_printf(o, "{\"count\":%zu,\"bytes\":%zu,\"max_count\":%zu,\"max_bytes\":%zu,"
	    "\"offline\":true,\"snapshots\":[", k, bytes, k, bytes);
	k = 0;
	for (size_t i = 0; i < n; i++) {
		if (e[i].report)
			continue;
		yi_out_puts(o, k++ ? ",{\"name\":" : "{\"name\":");
		yi_out_json_str(o, e[i].name);
		yi_out_printf(o, ",\"bytes\":%zu,\"time\":%" PRId64 ",\"t\":", e[i].len,
		    (int64_t)floor(e[i].t));
		yi_out_json_num(o, e[i].t);
		yi_out_puts(o, ",\"total\":");
		yi_out_json_num(o, e[i].total);
		yi_out_puts(o, "}");
	}
	yi_out_puts(o, "]}\n");
	yi_serve_unlock(s);
	yi_http_offline_done(q, o);
}

static const yi_http_fmt diff_formats[] = {
	YI_HF_TEXT, YI_HF_JSON, YI_HF_SVG, YI_HF_PPROF, YI_HF_FOLDED, YI_HF_TREE
};

static void
ep_diff(hreq *q)
{
	const ying_profile *base = NULL, *now = NULL;
	const char *bname, *nname;
	ying_diff *d = NULL;
	ying_sample_index idx;
	int64_t limit, sig;
	int fmt, rc;

	if ((fmt = yi_http_arg_format(q, diff_formats,
	    sizeof(diff_formats) / sizeof(diff_formats[0]))) < 0 ||
	    !yi_http_arg_index(q, &idx) || !yi_http_arg_num(q, YI_PARAM_LIMIT, &limit) ||
	    !yi_http_arg_num(q, YI_PARAM_SIGNIFICANT, &sig) ||
	    !dump_arg(q, "base", &bname) || !dump_arg(q, "now", &nname))
		return;
	q->significant = sig != 0;
	if (bname == NULL) {
		yi_http_fail(q, 400, "missing parameter base=N: the file name of a dump "
		    "(GET /debug/heap/snapshot lists them)");
		return;
	}
	yi_serve_refresh(q->h->offline);
	if ((base = get_dump(q, bname)) == NULL || (now = get_dump(q, nname)) == NULL)
		goto out;
	if ((rc = yi_diff_of(&d, base, now, idx)) == 0)
		rc = yi_http_write(q, (yi_http_fmt)fmt, NULL, d, idx, (size_t)limit);
	if (rc != 0)
		yi_http_fail_rc(q, rc, "writing the diff failed");
out:
	ying_diff_free(d);
	yi_serve_put(q->h->offline, now);
	yi_serve_put(q->h->offline, base);
}

static void
ep_leaks(hreq *q)
{
	static const yi_http_fmt fmts[] = { YI_HF_JSON, YI_HF_TEXT };
	ying_membuf mb = YING_MEMBUF_INIT;
	ying_leaks *l = NULL;
	int64_t stacks = 0, limit = 0;
	int f, rc;

	if ((f = yi_http_arg_format(q, fmts, 2)) < 0 ||
	    !yi_http_arg_num(q, YI_PARAM_STACKS, &stacks) ||
	    !yi_http_arg_num(q, YI_PARAM_LIMIT, &limit))
		return;
	yi_serve_refresh(q->h->offline);
	q->sym_used = true;
	if ((rc = yi_serve_leaks(q->h->offline, q->h->sym, q->h->frames, stacks != 0,
	    &l)) != 0) {
		yi_http_fail_rc(q, rc, "the leak verdicts failed");
		return;
	}
	rc = ying_leaks_write(l, f == YI_HF_JSON, (size_t)limit, ying_write_membuf, &mb);
	if (rc != 0) {
		ying_leaks_free(l);
		ying_membuf_release(&mb);
		yi_http_fail_rc(q, rc, "writing the leak verdicts failed");
		return;
	}
	if (f == YI_HF_JSON && mb.len > 0 && mb.data[0] == '{') {
		yi_http_out_printf(q, "{\"source\":{\"offline\":true,\"dumps\":%zu},",
		    ying_leaks_ndumps(l));
		yi_http_out_add(q, mb.data + 1, mb.len - 1);
		q->ctype = "application/json";
	} else {
		yi_http_out_printf(q, "leak verdicts over %zu dumps of %s (ying serve)\n",
		    ying_leaks_ndumps(l), yi_serve_what(q->h->offline));
		yi_http_out_add(q, mb.data, mb.len);
		q->ctype = "text/plain; charset=utf-8";
	}
	ying_leaks_free(l);
	ying_membuf_release(&mb);
}
