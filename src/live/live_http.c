/*
 * live_http.c: the embedded HTTP endpoint (libmicrohttpd), built with
 * --enable-http.
 *
 * ying_http_start() binds a listening socket (loopback unless told
 * otherwise) and hands it to libmicrohttpd in thread-per-connection mode, so
 * a slow request (a 300-second growth profile, a big symbolization) only
 * holds its own connection; the connection limit bounds the threads.  Every
 * server thread turns its own jemalloc sampling off the first time it runs
 * ying code (the accept callback for the listening thread, the request
 * handler for connection threads), so profiles show the program, not the
 * server.  All signals are blocked in those threads, so the host keeps its
 * signal handling; this is what lets the preload agent start the server from
 * a constructor-spawned thread without the host's cooperation.
 *
 * A request goes: Host check (403 unless loopback, the connection's own
 * address or an allowed name: DNS rebinding) -> peer (without a token or
 * open mode, 403 unless the connection's user is the process's own or
 * root: live_http_access.c) -> auth (optional bearer token, constant-time
 * compare) -> route table (404, 405 with Allow) ->
 * Origin check on state-changing methods (403 cross-origin: CSRF) -> query
 * bytes (400) -> body bound (413) -> handler.  Handlers
 * write into a memory buffer and the response is queued from it.  Anything
 * that dumps the heap takes the in-flight lock (one dump at a time; a second
 * one waits `busy_wait_ms`, then gets 503 with Retry-After); plain dump
 * answers are shared by the requests of a window, paced, rate limited per
 * client address and capped in flight (live_http_share.c).  A connection
 * past the limit is answered 503, not closed.  Profiles are
 * symbolized with the process's shared ying_symbolizer (live_sym.c: the
 * runner, the uploader and the giant writer use it too), so resolved
 * addresses are shared by all requests; it is trimmed when a request that
 * used it completes (no debug info held between requests).  jeprof's remote protocol (/pprof/heap, /pprof/symbol,
 * /pprof/cmdline) and Go's symbolz (/debug/pprof/symbol) are served from the
 * same symbolizer: posted addresses are symbolized against the process's own
 * /proc/self/maps, and allocator frames are named `malloc` so that jeprof's
 * skip list removes them.  No request can name a filesystem path.
 *
 * This file: per-request state and helpers, request plumbing (auth,
 * routing, responses) and the index of endpoints (GET /debug/; GET / is the
 * live page, live_http_page.c, served without a token after the Host and
 * peer checks).  The listener, start and stop:
 * live_http_listen.c.  The endpoints: live_http_heap.c (heap, growth, control, stats),
 * live_http_diff.c (snapshots and diff), live_http_symbolz.c (jeprof and
 * Go remote symbolization), live_http_family.c (/debug/processes, ?pid=),
 * live_http_history.c (/debug/history, /debug/ui).
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
#include "live_page.h"

/* ---- small helpers ------------------------------------------------------------ */

void
yi_http_out_add(hreq *q, const void *p, size_t n)
{
	if (ying_write_membuf(&q->out, p, n) != 0)
		q->status = 500;
}

void
yi_http_out_str(hreq *q, const char *s)
{
	yi_http_out_add(q, s, strlen(s));
}

void YI_PRINTF(2, 3)
yi_http_out_printf(hreq *q, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (yi_write_vprintf(ying_write_membuf, &q->out, fmt, ap) != 0)
		q->status = 500;
	va_end(ap);
}

/* Replace the response with a plain-text error. */
void YI_PRINTF(3, 4)
yi_http_fail(hreq *q, unsigned status, const char *fmt, ...)
{
	char msg[1200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	q->out.len = 0;
	if (q->out.data)
		q->out.data[0] = '\0';
	q->status = status;
	q->ctype = "text/plain; charset=utf-8";
	q->disposition[0] = '\0';
	yi_http_out_str(q, msg);
	yi_http_out_str(q, "\n");
	if (q->status != status) {      /* out of memory while writing */
		q->status = 500;
	}
}

/* Map a libying error to an HTTP error with the detail as the body. */
void
yi_http_fail_rc(hreq *q, int rc, const char *what)
{
	unsigned st;

	switch (rc) {
	case YING_EINVAL: case YING_ENODATA: st = 400; break;
	case YING_ENOTFOUND: st = 404; break;
	case YING_ENOJEMALLOC: case YING_ENOPROF: st = 409; break;
	case YING_EBUSY: st = 503; q->retry_after = 1; break;
	case YING_ELIMIT: st = 507; break;
	case YING_ENOTSUP: st = 501; break;
	default: st = 500; break;
	}
	yi_http_fail(q, st, "%s: %s: %s", what, ying_strerror(rc), ying_last_error());
}

const char *
yi_http_arg(hreq *q, const char *key)
{
	return MHD_lookup_connection_value(q->c, MHD_GET_ARGUMENT_KIND, key);
}

bool
yi_http_arg_index(hreq *q, ying_sample_index *idx)
{
	const char *s = yi_http_arg(q, "sample_index");

	*idx = YING_INUSE_SPACE;
	if (s == NULL)
		return true;
	if (ying_sample_index_parse(idx, s) != 0) {
		yi_http_fail(q, 400, "bad parameter sample_index=%s: use inuse_space, "
		    "inuse_objects, alloc_space or alloc_objects", s);
		return false;
	}
	return true;
}

/* One of a fixed set of words; absent -> def (index).  -1 after a 400. */
/* ---- response formats ------------------------------------------------------- */

static const struct {
	const char *name, *ctype;
	const char *file, *diff_file;   /* attachment name suffix, NULL: inline */
} formats[] = {
	[YI_HF_RAW] = { "raw", "application/octet-stream", "heap", NULL },
	[YI_HF_PPROF] = { "pprof", "application/octet-stream", "pb.gz", "diff.pb.gz" },
	[YI_HF_FOLDED] = { "folded", "text/plain; charset=utf-8", "folded", NULL },
	[YI_HF_SVG] = { "svg", "image/svg+xml", NULL, NULL },
	[YI_HF_TEXT] = { "text", "text/plain; charset=utf-8", NULL, NULL },
	[YI_HF_JSON] = { "json", "application/json", NULL, NULL },
	[YI_HF_TREE] = { "tree", "application/json", NULL, NULL },
};

int
yi_http_arg_format(hreq *q, const yi_http_fmt *allowed, size_t n)
{
	const char *s = yi_http_arg(q, "format");
	char list[256] = "";
	size_t i;

	if (s == NULL)
		return (int)allowed[0];
	for (i = 0; i < n; i++)
		if (strcmp(s, formats[allowed[i]].name) == 0)
			return (int)allowed[i];
	for (i = 0; i < n; i++) {
		strncat(list, i ? "|" : "", sizeof(list) - strlen(list) - 1);
		strncat(list, formats[allowed[i]].name, sizeof(list) - strlen(list) - 1);
	}
	yi_http_fail(q, 400, "bad parameter format=%s: expected %s", s, list);
	return -1;
}

bool
yi_http_arg_by(hreq *q)
{
	static const char *const names[] = { "function", "line", "stack" };
	const char *s = yi_http_arg(q, "by");
	int i;

	q->by = YING_BY_FUNCTION;
	if (s == NULL)
		return true;
	for (i = 0; i < 3; i++)
		if (strcmp(s, names[i]) == 0) {
			q->by = i == 0 ? YING_BY_FUNCTION : i == 1 ? YING_BY_LINE : YING_BY_STACK;
			return true;
		}
	yi_http_fail(q, 400, "bad parameter by=%s: expected function|line|stack", s);
	return false;
}

void
yi_http_set_type(hreq *q, yi_http_fmt f)
{
	q->ctype = formats[f].ctype;
	if (formats[f].file)
		yi_http_set_filename(q, formats[f].file);
}

int
yi_http_write(hreq *q, yi_http_fmt f, ying_profile *p, ying_diff *d,
    ying_sample_index idx, size_t limit)
{
	const char *file = d ? formats[f].diff_file : formats[f].file;

	q->ctype = formats[f].ctype;
	if (file)
		yi_http_set_filename(q, file);
	switch (f) {
	case YI_HF_PPROF: {
		ying_pprof_opts o = YING_PPROF_OPTS_INIT;
		/* no mean-size label: it changes between two scrapes, and a
		 * puller that takes deltas by matching labels (Grafana Alloy)
		 * would see every stack as new */
		o.no_size_label = 1;
		return d ? ying_diff_write_pprof(d, &o, ying_write_membuf, &q->out) :
		    ying_profile_write_pprof(p, &o, ying_write_membuf, &q->out);
	}
	case YI_HF_FOLDED: {
		ying_folded_opts o = YING_FOLDED_OPTS_INIT;
		o.sample_index = idx;
		return d ? ying_diff_write_folded(d, ying_write_membuf, &q->out) :
		    ying_profile_write_folded(p, &o, ying_write_membuf, &q->out);
	}
	case YI_HF_SVG: {
		ying_svg_opts o = YING_SVG_OPTS_INIT;
		o.sample_index = idx;
		return d ? ying_diff_write_svg(d, &o, ying_write_membuf, &q->out) :
		    ying_profile_write_svg(p, &o, ying_write_membuf, &q->out);
	}
	case YI_HF_TEXT: case YI_HF_JSON:
		if (d) {
			ying_diff_opts o = YING_DIFF_OPTS_INIT;
			o.json = f == YI_HF_JSON;
			o.limit = limit;
			o.significant = q->significant;
			return ying_diff_write_text(d, &o, ying_write_membuf, &q->out);
		} else {
			ying_top_opts o = YING_TOP_OPTS_INIT;
			o.sample_index = idx;
			o.granularity = (ying_granularity)q->by;
			o.json = f == YI_HF_JSON;
			return ying_profile_write_top(p, &o, ying_write_membuf, &q->out);
		}
	case YI_HF_TREE:
		return d ? yi_diff_write_tree(d, ying_write_membuf, &q->out) :
		    yi_write_tree(p, idx, ying_write_membuf, &q->out);
	case YI_HF_RAW:
		break;
	}
	return yi_error(YING_EINVAL, "unknown format");
}

bool
yi_http_valid_snap_name(const char *s)
{
	size_t n = 0;

	if (s == NULL)
		return false;
	for (; s[n]; n++) {
		char c = s[n];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			return false;
		if (n >= SNAP_NAME_MAX)
			return false;
	}
	return n > 0;
}

/* "<program>.<pid>.<UTC time>.<ext>" as an attachment file name. */
void
yi_http_set_filename(hreq *q, const char *ext)
{
	char when[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(q->disposition, sizeof(q->disposition),
	    "attachment; filename=\"%s.%ld.%s.%s\"", q->h->program, (long)getpid(),
	    when, ext);
}

bool
yi_http_stopping(ying_http *h)
{
	bool s;

	pthread_mutex_lock(&h->stop_mtx);
	s = h->stopping;
	pthread_mutex_unlock(&h->stop_mtx);
	return s;
}

/* ---- index ------------------------------------------------------------------- */

static void ep_index(hreq *q);

static const route routes[] = {
	{ "/debug/", M_GET, ep_index, "GET, HEAD", false, "this list" },
	{ "/debug/heap", M_GET, yi_http_ep_heap, "GET, HEAD", false,
	  "heap dump; ?format=raw|pprof|folded|svg|text|json|tree&amp;sample_index=...&amp;snapshot=N" },
	{ "/debug/heap/flamegraph", M_GET, yi_http_ep_flamegraph, "GET, HEAD", false,
	  "SVG flame graph; ?sample_index=..." },
	{ "/debug/heap/snapshot", M_GET | M_POST | M_DELETE, yi_http_ep_snapshot,
	  "GET, HEAD, POST, DELETE", false,
	  "POST ?name=N keeps a named base; GET lists; DELETE ?name=N drops" },
	{ "/debug/heap/diff", M_GET, yi_http_ep_diff, "GET, HEAD", false,
	  "growth since a snapshot; ?base=N&amp;now=M&amp;format=text|json|svg|pprof|folded|tree&amp;significant=1" },
	{ "/debug/heap/leaks", M_GET, yi_http_ep_leaks, "GET, HEAD", false,
	  "leak verdicts so far from the growth runner's heap checks; ?format=json|text&amp;stacks=1&amp;limit=N" },
	{ "/debug/heap/recent", M_GET | M_POST, yi_http_ep_recent, "GET, HEAD, POST", false,
	  "recent sampled allocations with lifetimes (JSON capture); POST ?max=N keeps N" },
	{ "/debug/heap/giant", M_GET, yi_http_ep_giant, "GET, HEAD", false,
	  "giant allocations (YING_GIANT) with their stacks, JSON; ?since=SEQ" },
	{ "/debug/history", M_GET, yi_http_ep_history, "GET, HEAD", false,
	  "memory over time (RSS, jemalloc, each heap; 1/s for 10 min, 1/min for "
	  "24 h) and events, JSON; ?since=T" },
	{ "/debug/ui", M_GET, yi_http_ep_ui, "GET, HEAD", false,
	  "what the live page talks to: mode, pid, program (JSON)" },
	{ "/debug/pprof/heap", M_GET, yi_http_ep_pprof_heap, "GET, HEAD", false,
	  "gzipped symbolized pprof (go tool pprof); ?seconds=N for growth" },
	{ "/debug/pprof/allocs", M_GET, yi_http_ep_pprof_heap, "GET, HEAD", false,
	  "same as /debug/pprof/heap (Grafana Alloy's default path)" },
	{ "/debug/pprof/symbol", M_GET | M_POST, yi_http_ep_symbol_go, "GET, HEAD, POST",
	  true, "Go pprof remote symbolization" },
	{ "/debug/pprof/cmdline", M_GET, yi_http_ep_cmdline, "GET, HEAD", false,
	  "command line" },
	{ "/debug/processes", M_GET, yi_http_ep_processes, "GET, HEAD", false,
	  "the service's profiled processes (JSON); every endpoint takes ?pid=N, "
	  "the pprof ones ?pid=all" },
	{ "/debug/prof", M_GET, yi_http_ep_prof, "GET, HEAD", false,
	  "profiler status and allocator statistics (JSON)" },
	{ "/debug/prof/active", M_POST, yi_http_ep_prof_active, "POST", false,
	  "?on=0|1 switches sampling (prof.active)" },
	{ "/debug/prof/sample", M_POST, yi_http_ep_prof_sample, "POST", false,
	  "?lg=N resets the profile with a 2^N-byte sampling period" },
	{ "/debug/stats", M_GET, yi_http_ep_stats, "GET, HEAD", false,
	  "jemalloc malloc_stats_print JSON" },
	{ "/debug/memory", M_GET, yi_http_ep_memory, "GET, HEAD", false,
	  "where the RSS goes: parts that sum to it, advice; ?format=json|text&amp;sites=0|1" },
	{ "/pprof/heap", M_GET, yi_http_ep_pprof_heap_raw, "GET, HEAD", false,
	  "jeprof remote: raw heap_v2 dump (jeprof --text http://HOST/pprof/heap)" },
	{ "/pprof/symbol", M_GET | M_POST, yi_http_ep_symbol_jeprof, "GET, HEAD, POST", true,
	  "jeprof remote symbolization" },
	{ "/pprof/cmdline", M_GET, yi_http_ep_cmdline, "GET, HEAD", false,
	  "jeprof remote: program name" },
};

static void
ep_index(hreq *q)
{
	q->ctype = "text/html; charset=utf-8";
	yi_http_out_str(q, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
	    "<title>ying heap profiling</title></head><body>\n<h1>ying heap "
	    "profiling endpoint</h1>\n<table>\n");
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		if (routes[i].methods & M_GET)
			yi_http_out_printf(q, "<tr><td>%s</td><td><a href=\"%s\">%s</a></td>"
			    "<td>%s</td></tr>\n", routes[i].allow, routes[i].path,
			    routes[i].path, routes[i].help);
		else
			yi_http_out_printf(q, "<tr><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			    routes[i].allow, routes[i].path, routes[i].help);
	}
	yi_http_out_str(q, "</table>\n<p>Usage: <code>go tool pprof -top "
	    "http://HOST/debug/pprof/heap</code>, <code>jeprof --text "
	    "http://HOST/pprof/heap</code>, <code>curl -s HOST/debug/heap &gt; "
	    "now.heap</code>.</p>\n");
	yi_http_index_processes(q);
	yi_http_params_html(q);
	yi_http_out_str(q, "</body></html>\n");
}

/* ---- request plumbing -------------------------------------------------------- */

static bool
token_ok(ying_http *h, const char *hdr)
{
	const char *t;
	size_t n, i;
	unsigned char diff = 0;

	if (h->token == NULL)
		return true;
	if (hdr == NULL || strncasecmp(hdr, "Bearer ", 7) != 0)
		return false;
	t = hdr + 7;
	while (*t == ' ')
		t++;
	n = strlen(t);
	/* Constant time in the token's length: every byte of the configured
	 * token is compared whatever the presented one holds. */
	diff = (unsigned char)(n != h->token_len);
	for (i = 0; i < h->token_len; i++)
		diff |= (unsigned char)(h->token[i] ^ (i < n ? t[i] : 0));
	return diff == 0;
}

/* Printable copy of a header value for an error message. */
static void
show_value(const char *v, char *out, size_t n)
{
	size_t k = 0;

	for (; *v && k + 1 < n; v++)
		out[k++] = (*v >= 0x20 && *v < 0x7f) ? *v : '?';
	out[k] = '\0';
}

/* DNS rebinding: a page of evil.example whose name was made to resolve to
 * 127.0.0.1 reaches us with "Host: evil.example".  Only loopback names,
 * the address the connection came in on and the operator's allowed names
 * are served; a request without Host (HTTP/1.0) is. */
static bool
host_ok(hreq *q)
{
	const char *hv = MHD_lookup_connection_value(q->c, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_HOST);
	const union MHD_ConnectionInfo *ci;
	char host[256], local[64], shown[128];

	if (hv == NULL)
		return true;
	local[0] = '\0';
	ci = MHD_get_connection_info(q->c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (ci == NULL || !yi_http_fd_local(ci->connect_fd, local, sizeof(local), NULL))
		local[0] = '\0';
	if (yi_http_host_part(hv, host, sizeof(host)) &&
	    yi_http_host_allowed(host, local, q->h->allow_hosts))
		return true;
	show_value(hv, shown, sizeof(shown));
	yi_http_fail(q, 403, "Host '%s' is not served: only localhost, loopback and "
	    "this endpoint's own address are, plus names allowed with "
	    "YING_HTTP_ALLOW_HOSTS or ying run --http-allow-host (DNS rebinding "
	    "protection)", shown);
	return false;
}

/* CSRF: a browser page on another origin can POST here without a CORS
 * preflight (text/plain, forms).  A request that changes something (every
 * method but GET and HEAD; no GET changes state) carrying an Origin other
 * than "http://" + its own Host, or Sec-Fetch-Site other than same-origin
 * or none, is refused.  curl, jeprof and go tool pprof send neither. */
static bool
origin_ok(hreq *q, const char *method)
{
	const char *o, *sfs, *hv;
	char shown[128];

	if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0)
		return true;
	sfs = MHD_lookup_connection_value(q->c, MHD_HEADER_KIND, "Sec-Fetch-Site");
	if (sfs && strcasecmp(sfs, "same-origin") != 0 && strcasecmp(sfs, "none") != 0) {
		show_value(sfs, shown, sizeof(shown));
		yi_http_fail(q, 403, "cross-site %s refused (Sec-Fetch-Site: %s): requests "
		    "that change state are accepted only from this endpoint's own origin",
		    method, shown);
		return false;
	}
	o = MHD_lookup_connection_value(q->c, MHD_HEADER_KIND, "Origin");
	if (o == NULL)
		return true;
	hv = MHD_lookup_connection_value(q->c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	if (hv && strncasecmp(o, "http://", 7) == 0 && strcasecmp(o + 7, hv) == 0)
		return true;
	show_value(o, shown, sizeof(shown));
	yi_http_fail(q, 403, "cross-origin %s refused (Origin: %s): requests that change "
	    "state are accepted only from this endpoint's own origin (http://HOST:PORT) "
	    "or without an Origin header", method, shown);
	return false;
}

static unsigned
method_bit(const char *m)
{
	if (strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0)
		return M_GET;
	if (strcmp(m, "POST") == 0)
		return M_POST;
	if (strcmp(m, "DELETE") == 0)
		return M_DELETE;
	return 0;
}

static void
free_body(void *p)
{
	yi_free(p);
}

static enum MHD_Result
send_response(hreq *q)
{
	struct MHD_Response *r;
	enum MHD_Result ret;
	char num[32];

	if (q->status == 0)
		q->status = 200;
	if (q->shared != NULL && q->status == 200)
		r = yi_http_shared_response(q);     /* one copy for every reader */
	else if (q->out.data == NULL)
		r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
	else
		r = MHD_create_response_from_buffer_with_free_callback(q->out.len,
		    q->out.data, free_body);
	if (r == NULL)
		return MHD_NO;
	q->out.data = NULL;
	q->out.len = q->out.cap = 0;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
	    q->ctype ? q->ctype : "text/plain; charset=utf-8");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	if (q->disposition[0] && q->status == 200)
		MHD_add_response_header(r, "Content-Disposition", q->disposition);
	if (q->allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, q->allow);
	if (q->retry_after > 0) {
		snprintf(num, sizeof(num), "%d", q->retry_after);
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, num);
	}
	if (q->www_auth)
		MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
		    "Bearer realm=\"ying\"");
	if (q->close)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	if (q->missing[0])      /* ?pid=all: the members that did not answer */
		MHD_add_response_header(r, "X-Ying-Missing", q->missing);
	ret = MHD_queue_response(q->c, q->status, r);
	MHD_destroy_response(r);
	yi_http_conn_state(q->h, q->c, CONN_SEND);
	if (q->h->o.log) {
		struct timespec t1;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		fprintf(q->h->o.log, "ying-http: %s %s %u %.1f ms\n", q->method, q->url,
		    q->status, (double)(t1.tv_sec - q->t0.tv_sec) * 1e3 +
		    (double)(t1.tv_nsec - q->t0.tv_nsec) / 1e6);
	}
	return ret;
}

static hreq *
req_new(ying_http *h, struct MHD_Connection *c, const char *url,
    const char *method)
{
	hreq *q = yi_calloc(1, sizeof(*q));

	if (q == NULL)
		return NULL;
	q->h = h;
	q->c = c;
	q->method = method;
	q->url = url;
	clock_gettime(CLOCK_MONOTONIC, &q->t0);
	return q;
}

/* Query arguments are percent-decoded by libmicrohttpd: "name=a%00b" would
 * reach a handler as "a" (a C string stops at the NUL) and "%1b" as an
 * escape byte.  Any key or value holding a NUL or another control byte
 * (< 0x20, 0x7f) fails the request; the offending key, with such bytes as
 * '?', goes to cls (a char[64]). */
static enum MHD_Result
arg_clean(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
    const char *value, size_t value_size)
{
	char *bad = cls;
	size_t i;
	bool ok = true;

	YI_UNUSED(kind);
	for (i = 0; i < key_size && ok; i++)
		ok = (unsigned char)key[i] >= 0x20 && key[i] != 0x7f;
	for (i = 0; value != NULL && i < value_size && ok; i++)
		ok = (unsigned char)value[i] >= 0x20 && value[i] != 0x7f;
	if (ok)
		return MHD_YES;
	for (i = 0; i < key_size && i < 63; i++)
		bad[i] = ((unsigned char)key[i] < 0x20 || key[i] == 0x7f) ? '?' : key[i];
	bad[i] = '\0';
	return MHD_NO;
}

enum MHD_Result
yi_http_handle(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload_data,
    size_t *upload_data_size, void **con_cls)
{
	ying_http *h = cls;
	hreq *q = *con_cls;

	YI_UNUSED(version);
	yi_ctl_quiet_thread();
	if (q == NULL) {
		const char *cl;
		char bad_arg[64];
		unsigned mb;
		const yi_page_asset *page;

		if ((q = req_new(h, c, url, method)) == NULL)
			return MHD_NO;
		*con_cls = q;
		atomic_fetch_add(&h->requests, 1);
		atomic_fetch_add(&h->active, 1);
		if (yi_http_conn_overflow(h, c)) {
			/* past the connection limit: an answer, not a closed socket */
			q->close = true;
			q->retry_after = 1;
			yi_http_fail(q, 503, "too many connections (at most %u); retry shortly",
			    h->o.max_connections);
			return send_response(q);
		}
		if (!h->member && !host_ok(q))     /* a member: no browser reaches it */
			return send_response(q);
		if (!yi_http_peer_allowed(q))       /* without a token: owner and root */
			return send_response(q);
		/* the page (/, /ui/...): no data, no token (live_http_page.c) */
		if (!h->member && (page = yi_page_find(url)) != NULL)
			return yi_http_page_send(q, page);
		if (!token_ok(h, MHD_lookup_connection_value(c, MHD_HEADER_KIND,
		    MHD_HTTP_HEADER_AUTHORIZATION))) {
			q->www_auth = true;
			yi_http_fail(q, 401, "unauthorized: send the header "
			    "'Authorization: Bearer <token>'");
			return send_response(q);
		}
		if (h->offline != NULL) {       /* ying serve: live_http_offline.c */
			if (!yi_http_offline_route(q))
				return send_response(q);
		}
		for (size_t i = 0; h->offline == NULL && i < sizeof(routes) / sizeof(routes[0]); i++)
			if (strcmp(url, routes[i].path) == 0)
				q->r = &routes[i];
		if (q->r == NULL) {
			yi_http_fail(q, 404, "no such endpoint: %s (GET /debug/ lists them)", url);
			return send_response(q);
		}
		mb = method_bit(method);
		if ((q->r->methods & mb) == 0) {
			q->allow = q->r->allow;
			yi_http_fail(q, 405, "method %s not allowed on %s (allowed: %s)", method,
			    url, q->r->allow);
			return send_response(q);
		}
		if (!h->member && !origin_ok(q, method))
			return send_response(q);
		bad_arg[0] = '\1';
		MHD_get_connection_values_n(c, MHD_GET_ARGUMENT_KIND, arg_clean, bad_arg);
		if (bad_arg[0] != '\1') {
			yi_http_fail(q, 400, "query parameter '%s': a NUL or control byte "
			    "(after percent-decoding) is not accepted", bad_arg);
			return send_response(q);
		}
		q->body.max = q->r->big_body ? h->o.max_body : SMALL_BODY;
		cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
		    MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl && strtoull(cl, NULL, 10) > q->body.max) {
			yi_http_fail(q, 413, "request body too large (at most %zu bytes)",
			    q->body.max);
			return send_response(q);
		}
		return MHD_YES;
	}
	if (q->status != 0) {   /* an early error is already queued */
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (*upload_data_size) {
		if (!q->body_too_big && ying_write_membuf(&q->body, upload_data,
		    *upload_data_size) != 0)
			q->body_too_big = true;
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (q->body_too_big) {
		yi_http_fail(q, 413, "request body too large (at most %zu bytes)", q->body.max);
		return send_response(q);
	}
	if (yi_http_stopping(h)) {
		q->retry_after = 1;
		yi_http_fail(q, 503, "the server is stopping");
		return send_response(q);
	}
	yi_http_conn_state(h, c, CONN_RUN);
	if (h->offline != NULL || !yi_http_family_route(q))   /* ?pid=: another process's */
		q->r->fn(q);
	return send_response(q);
}

void
yi_http_completed(void *cls, struct MHD_Connection *c, void **con_cls,
    enum MHD_RequestTerminationCode toe)
{
	ying_http *h = cls;
	hreq *q = *con_cls;
	bool sym_used;

	YI_UNUSED(toe);
	yi_http_conn_state(h, c, CONN_WAIT);
	if (q == NULL)
		return;
	sym_used = q->sym_used;
	ying_membuf_release(&q->body);
	ying_membuf_release(&q->out);
	yi_shbuf_put(q->shared);        /* when no response took it */
	yi_free(q);
	*con_cls = NULL;
	/* once the answer is sent: the next request reuses the names, not the
	 * debug info, and what this one freed leaves the process */
	if (sym_used)
		yi_live_cycle_end(h->sym);
	/* the last request done: no shared dump stays pinned */
	if (atomic_fetch_sub(&h->active, 1) == 1)
		yi_http_share_idle(h);
}

