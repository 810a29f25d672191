/*
 * live_http_page.c: the endpoint's answers for the live page: GET /
 * (index.html), /ui/app.js, /ui/flame.js and /ui/app.css, the bytes
 * compiled into the library (live_page.h).
 *
 * They hold no data, so they need no token; live_http.c calls this after
 * the Host check and the peer (owner-only) check, before the token check.
 * Every answer carries the page's Content-Security-Policy (scripts, styles
 * and fetches from this origin only, nothing inline, no framing),
 * X-Content-Type-Options: nosniff, Referrer-Policy: no-referrer,
 * Cache-Control: no-cache and an ETag; If-None-Match with that ETag is
 * answered 304 without a body.  Methods other than GET and HEAD: 405.  The
 * response points at the static bytes (no copy, nothing to free).
 *
 * GET / of an endpoint without a token also carries a Link header that
 * preloads the page's first heap request (YI_PAGE_PRELOAD): the dump is
 * made while the scripts load.  With a token the header is left out (the
 * preload could not send it: a 401 for nothing).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <microhttpd.h>

#include "live_http.h"
#include "live_page.h"

/* Does an If-None-Match value (a list of quoted tags, or "*") name etag? */
static bool
etag_matches(const char *inm, const char *etag)
{
	size_t n = strlen(etag);
	const char *p;

	if (inm == NULL)
		return false;
	if (strcmp(inm, "*") == 0)
		return true;
	for (p = inm; (p = strstr(p, etag)) != NULL; p += n) {
		const char *q = p + n;
		/* a whole tag, optionally weak (W/"..."): the comparison is weak */
		if (*q == '\0' || *q == ',' || *q == ' ')
			return true;
	}
	return false;
}

enum MHD_Result
yi_http_page_send(hreq *q, const yi_page_asset *a)
{
	struct MHD_Response *r;
	enum MHD_Result ret;
	unsigned status = MHD_HTTP_OK;
	bool get = strcmp(q->method, "GET") == 0 || strcmp(q->method, "HEAD") == 0;
	static const char not_allowed[] = "method not allowed on the page (allowed: GET, HEAD)\n";

	if (!get) {
		status = MHD_HTTP_METHOD_NOT_ALLOWED;
		r = MHD_create_response_from_buffer(sizeof(not_allowed) - 1,
		    (void *)not_allowed, MHD_RESPMEM_PERSISTENT);
	} else if (etag_matches(MHD_lookup_connection_value(q->c, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_IF_NONE_MATCH), a->etag)) {
		status = MHD_HTTP_NOT_MODIFIED;
		r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
	} else {
		r = MHD_create_response_from_buffer(a->len, (void *)a->data,
		    MHD_RESPMEM_PERSISTENT);
	}
	if (r == NULL)
		return MHD_NO;
	if (!get) {
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	} else if (status == MHD_HTTP_OK) {
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, a->ctype);
	}
	MHD_add_response_header(r, "Content-Security-Policy", YI_PAGE_CSP);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
	MHD_add_response_header(r, MHD_HTTP_HEADER_ETAG, a->etag);
	if (get && strcmp(a->path, "/") == 0 && q->h->token == NULL)
		MHD_add_response_header(r, "Link", YI_PAGE_PRELOAD_LINK);
	ret = MHD_queue_response(q->c, status, r);
	MHD_destroy_response(r);
	q->status = status;
	yi_http_conn_state(q->h, q->c, CONN_SEND);
	if (q->h->o.log)
		fprintf(q->h->o.log, "ying-http: %s %s %u (page)\n", q->method, q->url, status);
	return ret;
}
