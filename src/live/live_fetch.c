/*
 * live_fetch.c: profiles from http:// and https:// URLs (ying_profile_read_url),
 * and the form POSTs of jeprof's symbol protocol (yi_http_post).
 *
 * The body is fetched with libcurl into memory (bounded, with a timeout, no
 * redirects; libcurl and the request set-up are live_curl.c's), then read
 * like any other buffer (ying_profile_read_mem): a
 * heap_v2 dump or a pprof profile, plain or gzipped.  A URL without a path
 * asks ying's own endpoint for /debug/pprof/heap, and so does a raw
 * /debug/heap URL with ?pid=all (a service's processes summed: served as
 * pprof only, ying-http(7)); ?pid=N passes as it is.  libcurl is loaded with
 * dlopen on first use, so that libying and the preloaded agent (which
 * carries a copy of libying) never pull libcurl and its TLS stack into a
 * process that does not fetch anything; without libcurl's headers at build
 * time, or without libcurl.so.4 at run time, the call fails with
 * YING_ENOTSUP.  Failures name the URL and say what to do: a token for a
 * 401, host:port for a refused connection.  A 503 with a Retry-After of
 * at most 10 s (an endpoint pacing its dumps, as ying's does after a
 * costly one) is asked again after that wait, up to 3 times and within
 * the request's timeout.
 *
 * The server is untrusted (issue 22): what it says reaches messages only
 * through the terminal escaper (yi_text_escape: a redirect's Location,
 * libcurl's error text, the first line of an error body), and the body
 * keeps to the decode budget (YING_MAX_MEMORY, read.h): like an inflated
 * input it may take half, so a Content-Length over that is refused before
 * the body is read (CURLOPT_MAXFILESIZE_LARGE) and an endless or chunked
 * answer is cut as soon as it passes it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "live.h"
#include "read.h"

#define FETCH_TIMEOUT 60.0
#define FETCH_MAX ((size_t)1 << 30)     /* as for pprof files */
#define FETCH_RETRIES 3                 /* 503 + Retry-After: asked again */
#define FETCH_RETRY_MAX 10              /* ... when it says at most 10 s */
#define DEFAULT_PATH "/debug/pprof/heap"

/* The parts of a URL the messages need; every string is yi_malloc'd. */
typedef struct url_parts {
	char *full;     /* the URL to fetch (default path added) */
	char *name;     /* the URL for messages (user:password hidden) */
	char *hostport; /* "host:port" */
} url_parts;

static void
url_parts_free(url_parts *u)
{
	yi_free(u->full);
	yi_free(u->name);
	yi_free(u->hostport);
}

static char *
str_cat3(const char *a, size_t na, const char *b, size_t nb, const char *c)
{
	size_t nc = strlen(c);
	char *s = yi_malloc(na + nb + nc + 1);

	if (s == NULL)
		return NULL;
	memcpy(s, a, na);
	memcpy(s + na, b, nb);
	memcpy(s + na + nb, c, nc + 1);
	return s;
}

/* Does query (from its '?', or NULL) hold the argument key=value (or,
 * value NULL, key with any value)? */
static bool
query_has(const char *query, const char *key, const char *value)
{
	size_t kl = strlen(key);

	if (query == NULL)
		return false;
	for (const char *a = query + 1; *a && *a != '#'; a += strcspn(a, "&#"), a += *a == '&') {
		size_t n = strcspn(a, "&#");
		if (n >= kl && strncmp(a, key, kl) == 0 && (a[kl] == '=' || n == kl) &&
		    (value == NULL || (n == kl + 1 + strlen(value) &&
		    strncmp(a + kl + 1, value, strlen(value)) == 0)))
			return true;
	}
	return false;
}

/* path (from its '/') is /debug/heap?...pid=all... without format=: the
 * raw heap_v2 dump is one process's, the sum is served as pprof. */
static bool
sum_of_raw(const char *path)
{
	const char *q = strchr(path, '?');

	return strncmp(path, "/debug/heap?", 12) == 0 && query_has(q, "pid", "all") &&
	    !query_has(q, "format", NULL);
}

/* Split scheme://[user@]host[:port][/path][?query]. */
static int
url_parse(const char *url, url_parts *u)
{
	const char *auth, *end, *at, *host, *port = NULL, *p;
	size_t slen;
	int https;

	memset(u, 0, sizeof(*u));
	if (strncasecmp(url, "http://", 7) == 0)
		https = 0;
	else if (strncasecmp(url, "https://", 8) == 0)
		https = 1;
	else
		return yi_error(YING_EINVAL, "%s: not an http:// or https:// URL", url);
	slen = https ? 8 : 7;
	for (p = url; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return yi_error(YING_EINVAL, "URL with a space or control character "
			    "(at byte %zu)", (size_t)(p - url));
	auth = url + slen;
	end = auth + strcspn(auth, "/?#");
	at = NULL;
	for (p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	host = at ? at + 1 : auth;
	if (host == end)
		return yi_error(YING_EINVAL, "%s: no host in the URL", url);
	if (*host == '[') {
		p = memchr(host, ']', (size_t)(end - host));
		if (p == NULL)
			return yi_error(YING_EINVAL, "%s: unterminated [IPv6 address]", url);
		if (p + 1 < end) {
			if (p[1] != ':')
				return yi_error(YING_EINVAL, "%s: junk after ']'", url);
			port = p + 2;
		}
	} else if ((p = memchr(host, ':', (size_t)(end - host))) != NULL) {
		if (p == host)
			return yi_error(YING_EINVAL, "%s: no host in the URL", url);
		port = p + 1;
	}
	if (port) {
		if (port == end)
			return yi_error(YING_EINVAL, "%s: empty port", url);
		for (p = port; p < end; p++)
			if (*p < '0' || *p > '9' || p - port >= 5)
				return yi_error(YING_EINVAL, "%s: bad port '%.*s'", url,
				    (int)(end - port), port);
	}
	/* messages: the URL without user:password */
	if (at)
		u->name = str_cat3(url, slen, "***@", 4, at + 1);
	else
		u->name = yi_strdup(url);
	if (port)
		u->hostport = str_cat3(host, (size_t)(end - host), "", 0, "");
	else
		u->hostport = str_cat3(host, (size_t)(end - host), ":", 1, https ? "443" : "80");
	/* no path, or just "/": ying's endpoint's symbolized pprof */
	if (*end != '/' || end[1] == '\0' || end[1] == '?' || end[1] == '#')
		u->full = str_cat3(url, (size_t)(end - url), DEFAULT_PATH, strlen(DEFAULT_PATH),
		    *end == '/' ? end + 1 : end);
	else if (sum_of_raw(end))   /* ?pid=all sums: the pprof endpoint's */
		u->full = str_cat3(url, (size_t)(end - url), DEFAULT_PATH, strlen(DEFAULT_PATH),
		    end + strlen("/debug/heap"));
	else
		u->full = yi_strdup(url);
	if (u->name == NULL || u->hostport == NULL || u->full == NULL) {
		url_parts_free(u);
		return yi_oom("parsing a URL");
	}
	return 0;
}

#ifdef YING_HAVE_CURL

/* libcurl (live_curl.c); fetch runs only once it has loaded */
#define lc (*yi_curl_loaded())

/* The response body, bounded. */
typedef struct body {
	char *v;
	size_t n, cap, max;
	size_t budget;          /* max is the decode budget's share: this budget */
	int over, oom;
	const char *post;       /* a form body to POST (yi_http_post), or NULL */
	size_t post_len;
} body;

/* The bound of a body: the caller's max_bytes, else FETCH_MAX, and never
 * more than half the decode budget (the share an inflated input may take;
 * the body and its decoding are held together).  When the budget's share
 * is the tighter bound, b->budget names it for the error. */
static void
fetch_limit(body *b, const ying_fetch_opts *o, size_t budget)
{
	b->max = o && o->max_bytes ? o->max_bytes : FETCH_MAX;
	b->budget = 0;
	if (budget / 2 < b->max) {
		b->max = budget / 2 ? budget / 2 : 1;
		b->budget = budget;
	}
}

static size_t
on_data(char *data, size_t size, size_t nmemb, void *opaque)
{
	body *b = opaque;
	size_t n = size * nmemb, cap;
	char *nv;

	if (n > b->max - b->n) {
		b->over = 1;
		return 0;
	}
	if (b->n + n > b->cap) {
		cap = b->cap ? b->cap : 65536;
		while (cap < b->n + n)
			cap *= 2;
		if (cap > b->max && b->n + n <= b->max)
			cap = b->max;   /* never more than the bound */
		if ((nv = yi_realloc(b->v, cap)) == NULL) {
			b->oom = 1;
			return 0;
		}
		b->v = nv;
		b->cap = cap;
	}
	memcpy(b->v + b->n, data, n);
	b->n += n;
	return n;
}

/* The first line of an error body, printable, at most 200 bytes. */
static void
first_line(const body *b, char *out, size_t cap)
{
	size_t i, j = 0;

	for (i = 0; i < b->n && b->v[i] != '\n' && b->v[i] != '\r' && j + 1 < cap && j < 200; i++)
		out[j++] = (b->v[i] >= ' ' && b->v[i] < 0x7f) ? b->v[i] : '?';
	out[j] = '\0';
}

/* A string the server chose (a Location, libcurl's text about the answer),
 * escaped for a terminal (yi_text_escape) and cut to 300 bytes, into out. */
static const char *
server_text(const char *s, char *out, size_t cap)
{
	char *e = yi_text_escape_dup(s);

	if (e == NULL)
		snprintf(out, cap, "(out of memory escaping the server's text)");
	else if (strlen(e) > 300)
		snprintf(out, cap, "%.300s...", e);
	else
		snprintf(out, cap, "%s", e);
	yi_free(e);
	return out;
}

static int
http_error(const url_parts *u, long status, const body *b, int sent_token,
    const char *redirect)
{
	char line[256], where[320];

	if (status == 401)
		return sent_token ?
		    yi_error(YING_EIO, "%s: HTTP 401: the endpoint rejected the token", u->name) :
		    yi_error(YING_EIO, "%s: HTTP 401: the endpoint wants a token: "
			"--token-file FILE (a file whose first line is the token)", u->name);
	if (status == 404)
		return yi_error(YING_ENOTFOUND, "%s: HTTP 404: no such page (ying's endpoint "
		    "serves /debug/pprof/heap, /debug/heap and /pprof/heap)", u->name);
	if (status >= 300 && status < 400)
		return yi_error(YING_EIO, "%s: HTTP %ld: redirected to %s (not followed; give "
		    "that URL)", u->name, status, redirect ?
		    server_text(redirect, where, sizeof(where)) : "(no location)");
	first_line(b, line, sizeof(line));
	return yi_error(YING_EIO, "%s: HTTP %ld%s%s", u->name, status, line[0] ? ": " : "", line);
}

static int
fetch(const url_parts *u, const ying_fetch_opts *o, body *b)
{
	char errbuf[CURL_ERROR_SIZE] = "", *auth = NULL, *redirect = NULL, etext[320];
	struct curl_slist *hdrs = NULL;
	double timeout = o && o->timeout > 0 ? o->timeout : FETCH_TIMEOUT;
	long status = 0, oserr = 0;
	double waited = 0;
	unsigned retries = 0;
	CURLcode cr;
	CURL *c;
	int rc = 0;

	if ((c = lc.easy_init()) == NULL)
		return yi_error(YING_ENOMEM, "%s: curl_easy_init failed", u->name);
	if (o && o->token) {
		size_t n = strlen(o->token);
		if ((auth = yi_malloc(n + 32)) == NULL) {
			lc.easy_cleanup(c);
			return yi_oom("the Authorization header");
		}
		snprintf(auth, n + 32, "Authorization: Bearer %s", o->token);
		if ((hdrs = lc.slist_append(NULL, auth)) == NULL) {
			memset(auth, 0, strlen(auth));
			yi_free(auth);
			lc.easy_cleanup(c);
			return yi_oom("the Authorization header");
		}
	}
	{
		yi_curl_setup cs = {
			.url = u->full, .timeout = timeout, .errbuf = errbuf,
			.write = on_data, .write_data = b, .max_bytes = b->max,
			.headers = hdrs, .post = b->post, .post_len = b->post_len,
		};
		yi_curl_set(c, &cs);
	}
	for (;;) {
		curl_off_t ra = 0;

		cr = lc.easy_perform(c);
		lc.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		/* 503 with a short Retry-After: the endpoint paces its dumps
		 * (ying's own says "retry after N s"), so wait and ask again,
		 * within the request's timeout; anything else is answered now */
		if (cr != CURLE_OK || status != 503 || retries >= FETCH_RETRIES ||
		    lc.easy_getinfo(c, CURLINFO_RETRY_AFTER, &ra) != CURLE_OK ||
		    ra <= 0 || ra > FETCH_RETRY_MAX || waited + (double)ra > timeout)
			break;
		retries++;
		waited += (double)ra;
		b->n = 0;
		b->over = b->oom = 0;
		sleep((unsigned)ra);
	}
	lc.easy_getinfo(c, CURLINFO_OS_ERRNO, &oserr);
	lc.easy_getinfo(c, CURLINFO_REDIRECT_URL, &redirect);
	if (cr == CURLE_OK) {
		if (status < 200 || status >= 300)
			rc = http_error(u, status, b, hdrs != NULL, redirect);
	} else if (b->oom) {
		rc = yi_oom("the HTTP response");
	} else if ((b->over || cr == CURLE_FILESIZE_EXCEEDED) && b->budget) {
		rc = yi_budget_error(u->name, "the HTTP response", b->budget);
	} else if (b->over || cr == CURLE_FILESIZE_EXCEEDED) {
		rc = yi_error(YING_ELIMIT, "%s: response larger than %zu bytes", u->name, b->max);
	} else if (cr == CURLE_COULDNT_CONNECT) {
		rc = yi_error(YING_EIO, "%s: cannot connect to %s: %s", u->name, u->hostport,
		    oserr ? strerror((int)oserr) : server_text(errbuf, etext, sizeof(etext)));
	} else if (cr == CURLE_COULDNT_RESOLVE_HOST) {
		rc = yi_error(YING_EIO, "%s: cannot resolve the host of %s", u->name, u->hostport);
	} else if (cr == CURLE_OPERATION_TIMEDOUT) {
		rc = yi_error(YING_EIO, "%s: no complete answer from %s within %g s", u->name,
		    u->hostport, timeout);
	} else {
		rc = yi_error(YING_EIO, "%s: %s", u->name, errbuf[0] ?
		    server_text(errbuf, etext, sizeof(etext)) : "transfer failed");
	}
	lc.easy_cleanup(c);
	lc.slist_free_all(hdrs);
	if (auth) {
		memset(auth, 0, strlen(auth));
		yi_free(auth);
	}
	return rc;
}
#endif /* YING_HAVE_CURL */

/* The checks every request makes of its options (ying_profile_read_url,
 * yi_http_post): the struct's version, a token that cannot break the
 * Authorization header, a timeout that is a number and not negative. */
static int
fetch_opts_check(const ying_fetch_opts *opts)
{
	const char *t;

	if (opts == NULL)
		return 0;
	if (opts->version != YING_FETCH_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_fetch_opts version %d unsupported", opts->version);
	if (opts->token) {
		if (opts->token[0] == '\0' || strlen(opts->token) > 4096)
			return yi_error(YING_EINVAL, "the token must be 1..4096 characters");
		for (t = opts->token; *t; t++)
			if ((unsigned char)*t <= ' ' || *t == 0x7f)
				return yi_error(YING_EINVAL, "the token must not contain spaces "
				    "or control characters");
	}
	if (opts->timeout < 0 || opts->timeout != opts->timeout)
		return yi_error(YING_EINVAL, "negative timeout");
	return 0;
}

int
ying_profile_read_url(ying_profile **out, const char *url, const ying_fetch_opts *opts)
{
	url_parts u;
	int rc;

	yi_error_clear();
	if (out == NULL)
		return yi_error(YING_EINVAL, "no output pointer");
	*out = NULL;
	if (url == NULL)
		return yi_error(YING_EINVAL, "no URL given");
	if ((rc = fetch_opts_check(opts)) != 0 || (rc = url_parse(url, &u)) != 0)
		return rc;
#ifdef YING_HAVE_CURL
	size_t budget;

	if (!lc.ok) {
		rc = yi_error(YING_ENOTSUP, "%s: cannot fetch URLs: libcurl unavailable (%s; "
		    "apt-get install libcurl4)", u.name, lc.load_error);
	} else if ((rc = yi_read_budget(&budget)) == 0) {
		body b;
		memset(&b, 0, sizeof(b));
		fetch_limit(&b, opts, budget);
		if ((rc = fetch(&u, opts, &b)) == 0 &&
		    (rc = ying_profile_read_mem(out, b.v, b.n, u.name)) == 0 && (*out)->time == 0)
			(*out)->time = (int64_t)time(NULL);
		yi_free(b.v);
	}
#else
	rc = yi_error(YING_ENOTSUP, "%s: cannot fetch URLs: libying was built without "
	    "libcurl (apt-get install libcurl4-openssl-dev and rebuild)", u.name);
#endif
	url_parts_free(&u);
	return rc;
}

/*
 * POST a form body (application/x-www-form-urlencoded, as curl -d sends it)
 * to url and return the response body (jeprof's /pprof/symbol requests,
 * sym_remote.c).  Same limits, errors and token handling as
 * ying_profile_read_url; a URL without a path is used as it is given.
 * *out is yi_malloc'd and NUL-terminated (free with yi_free).
 */
int
yi_http_post(const char *url, const ying_fetch_opts *opts, const char *data, size_t len,
    char **out, size_t *outlen)
{
	url_parts u;
	int rc;

	*out = NULL;
	*outlen = 0;
	if ((rc = fetch_opts_check(opts)) != 0 || (rc = url_parse(url, &u)) != 0)
		return rc;
#ifdef YING_HAVE_CURL
	size_t budget;

	if (!lc.ok) {
		rc = yi_error(YING_ENOTSUP, "%s: libcurl unavailable (%s; apt-get install "
		    "libcurl4)", u.name, lc.load_error);
	} else if ((rc = yi_read_budget(&budget)) == 0) {
		body b;
		memset(&b, 0, sizeof(b));
		fetch_limit(&b, opts, budget);
		b.post = data;
		b.post_len = len;
		char nul = '\0';
		yi_free(u.full);
		if ((u.full = yi_strdup(url)) == NULL)
			rc = yi_oom("a URL");
		else if ((rc = fetch(&u, opts, &b)) == 0 && on_data(&nul, 1, 1, &b) != 1)
			rc = yi_oom("the HTTP response");
		if (rc == 0) {
			*out = b.v;
			*outlen = b.n - 1;
			b.v = NULL;
		}
		yi_free(b.v);
	}
#else
	(void)opts;
	(void)data;
	(void)len;
	rc = yi_error(YING_ENOTSUP, "%s: libying was built without libcurl", u.name);
#endif
	url_parts_free(&u);
	return rc;
}

int
ying_fetch_body(char **out, size_t *len, const char *url, const ying_fetch_opts *opts)
{
	size_t n = 0;
	int rc;

	yi_error_clear();
	if (out == NULL)
		return yi_error(YING_EINVAL, "no output pointer");
	*out = NULL;
	if (len)
		*len = 0;
	if (url == NULL)
		return yi_error(YING_EINVAL, "no URL given");
	rc = yi_http_post(url, opts, NULL, 0, out, &n);
	if (len)
		*len = n;
	return rc;
}
