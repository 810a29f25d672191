/*
 * live_pyro_http.c: one Pyroscope request over HTTP(S), with libcurl.
 *
 * libcurl is loaded and every request set up by live_curl.c (yi_curl,
 * yi_curl_set: a timeout, connecting included, no redirect, http and https
 * only, sockets high and registered with yi_fd_own so that a forked child
 * closes them); a request here can also be abandoned when the uploader
 * stops (a progress callback compares the clock with abort_ms).
 *
 * A program may close
 * every descriptor during a request (a daemon closing fds >= 3): our
 * sockets sit at high numbers and are closed only while still ours, and
 * libcurl's own wake-up socket pair, which it closes itself, is noted
 * when the connection opens (the sockets that appeared since the request
 * began); when one of them is no longer the same file after the
 * transfer, the handle is abandoned, never cleaned up, so that libcurl
 * does not close what is now the program's file (said once).
 *
 * The host name is resolved here, on the calling (quiet) thread, and
 * handed to libcurl with CURLOPT_RESOLVE: libcurl's threaded resolver
 * would otherwise start a thread of its own for each request, and that
 * thread's allocations would be sampled into the program's profile.
 *
 * yi_pyro_deliver wraps it in the retry loop (for the uploader's sender
 * thread and for ying_pyroscope_upload, the one-shot upload of `ying
 * upload`, both here so that they link no control layer).
 *
 * The answer is classified for the retry loop: 2xx is success; 429, 5xx
 * and network errors (refused, reset, timed out, DNS) are worth a retry;
 * any other status is final.  The detail names the URL, the status and the
 * first line of the server's message (Pyroscope answers errors as JSON
 * {"code":...,"message":...}).
 *
 * The server is untrusted (issue 22): its answer is read up to ANSWER_READ
 * bytes (a Content-Length over that is refused by libcurl before the body,
 * an endless or chunked answer is cut there) and the transfer then stops;
 * the status decides as usual, so a 2xx whose answer goes on is a delivered
 * upload.  What the server says reaches the message printable only.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "live_pyro.h"
#include "model.h"
#include "live.h"
#include "read.h"

double
yi_pyro_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#ifdef YING_HAVE_CURL

#define ANSWER_MAX 1024     /* bytes of the answer kept for the message */
#define ANSWER_READ (64 * 1024) /* bytes of the answer read at most */

/* libcurl's sockets: opened close-on-exec and registered with yi_fd_own
 * (base_fd.c), so neither an exec'd program nor a forked child keeps a
 * connection to the server.  They sit at high numbers (out of reach of a
 * program closing its descriptors and of its next open), and one is
 * closed only while it still is the socket opened: a program that closed
 * it may have a file of its own on that number. */
/* The sockets open before the request (numbers below CFD_MAX), and the
 * ones libcurl made itself by the time it opens a connection. */
#define CFD_MAX 65536
#define CFD_OWN 8
typedef struct curl_fds {
	unsigned char before[CFD_MAX / 8];
	yi_fdid own[CFD_OWN];
	size_t nown;
	bool noted;
} curl_fds;

/* Call f(fd, st, arg) for every socket in /proc/self/fd below CFD_MAX. */
static void
each_socket(void (*f)(int, const struct stat *, void *), void *arg)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		struct stat st;
		int fd = atoi(e->d_name);
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dirfd(d) ||
		    fd >= CFD_MAX || fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode))
			continue;
		f(fd, &st, arg);
	}
	closedir(d);
}

static void
note_before(int fd, const struct stat *st, void *arg)
{
	curl_fds *cf = arg;

	YI_UNUSED(st);
	cf->before[fd / 8] |= (unsigned char)(1u << (fd % 8));
}

static void
note_curl(int fd, const struct stat *st, void *arg)
{
	curl_fds *cf = arg;

	if ((cf->before[fd / 8] & (1u << (fd % 8))) || cf->nown == CFD_OWN)
		return;
	cf->own[cf->nown].fd = fd;
	cf->own[cf->nown].dev = st->st_dev;
	cf->own[cf->nown].ino = st->st_ino;
	cf->nown++;
}

static bool
curl_fds_lost(const curl_fds *cf)
{
	for (size_t i = 0; i < cf->nown; i++)
		if (!yi_fdid_ok(&cf->own[i]))
			return true;
	return false;
}

static curl_socket_t
on_open_socket(void *cls, curlsocktype purpose, struct curl_sockaddr *a)
{
	curl_fds *cf = cls;

	if (cf != NULL && !cf->noted) {
		each_socket(note_curl, cf);
		cf->noted = true;
	}
	return yi_curl_open_socket(NULL, purpose, a);
}

typedef struct answer {
	char v[ANSWER_MAX + 1];
	size_t n;
	size_t total;       /* bytes of the answer read */
	bool cut;           /* stopped at ANSWER_READ */
} answer;

static size_t
on_answer(char *data, size_t size, size_t nmemb, void *opaque)
{
	answer *a = opaque;
	size_t n = size * nmemb, k = n;

	if (n > ANSWER_READ - a->total) {
		a->cut = true;
		return 0;       /* CURLE_WRITE_ERROR: the transfer stops here */
	}
	a->total += n;

	if (k > ANSWER_MAX - a->n)
		k = ANSWER_MAX - a->n;
	memcpy(a->v + a->n, data, k);
	a->n += k;
	return n;
}

static int
on_progress(void *opaque, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	const atomic_llong *abort_ms = opaque;
	long long at;

	(void)dt, (void)dn, (void)ut, (void)un;
	if (abort_ms == NULL || (at = atomic_load(abort_ms)) == 0)
		return 0;
	return yi_pyro_now() * 1000.0 >= (double)at;
}

/* The first line of the answer, printable, at most 200 bytes. */
static void
answer_line(const answer *a, char *out, size_t cap)
{
	size_t i, j = 0;

	for (i = 0; i < a->n && a->v[i] != '\n' && a->v[i] != '\r' && j + 1 < cap &&
	    j < 200; i++)
		out[j++] = (a->v[i] >= ' ' && a->v[i] < 0x7f) ? a->v[i] : '?';
	out[j] = '\0';
}

/* "host:port" of url into host[] (brackets kept off) and *port. */
static bool
url_host(const char *url, char *host, size_t cap, long *port)
{
	const char *a = strstr(url, "://"), *end, *at, *h, *p = NULL;
	bool https = strncasecmp(url, "https", 5) == 0;
	size_t n;

	if (a == NULL)
		return false;
	a += 3;
	end = a + strcspn(a, "/");
	h = a;
	for (at = a; at < end; at++)
		if (*at == '@')
			h = at + 1;
	if (*h == '[') {
		const char *rb = memchr(h, ']', (size_t)(end - h));
		if (rb == NULL)
			return false;
		n = (size_t)(rb - h - 1);
		if (n >= cap)
			return false;
		memcpy(host, h + 1, n);
		host[n] = '\0';
		if (rb + 1 < end && rb[1] == ':')
			p = rb + 2;
	} else {
		const char *colon = memchr(h, ':', (size_t)(end - h));
		n = (size_t)((colon ? colon : end) - h);
		if (n == 0 || n >= cap)
			return false;
		memcpy(host, h, n);
		host[n] = '\0';
		if (colon)
			p = colon + 1;
	}
	*port = p ? strtol(p, NULL, 10) : https ? 443 : 80;
	return *port > 0 && *port < 65536;
}

/* "HOST:PORT:ADDR[,ADDR...]" for CURLOPT_RESOLVE, or "" for an address
 * literal (libcurl starts no thread for those).  Resolving fails as a
 * network error (retryable). */
static int
resolve(const yi_pyro_cfg *c, const char *url, char *out, size_t cap)
{
	char host[256], addr[INET6_ADDRSTRLEN];
	struct addrinfo hints, *res = NULL, *ai;
	unsigned char buf[sizeof(struct in6_addr)];
	long port;
	size_t w;
	int e, k = 0;

	out[0] = '\0';
	if (!url_host(url, host, sizeof(host), &port))
		return yi_error(YING_EINVAL, "%s: cannot find the host in the URL", c->url_name);
	if (inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1)
		return 0;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if ((e = getaddrinfo(host, NULL, &hints, &res)) != 0)
		return yi_error(YING_EIO, "%s: cannot resolve %s: %s", c->url_name, host,
		    gai_strerror(e));
	w = (size_t)snprintf(out, cap, "%s:%ld:", host, port);
	for (ai = res; ai && k < 4 && w < cap; ai = ai->ai_next) {
		const void *src = ai->ai_family == AF_INET ?
		    (const void *)&((struct sockaddr_in *)ai->ai_addr)->sin_addr :
		    (const void *)&((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr;
		if (inet_ntop(ai->ai_family, src, addr, sizeof(addr)) == NULL)
			continue;
		w += (size_t)snprintf(out + w, cap - w, ai->ai_family == AF_INET6 ?
		    "%s[%s]" : "%s%s", k ? "," : "", addr);
		k++;
	}
	freeaddrinfo(res);
	if (k == 0 || w >= cap)
		out[0] = '\0';
	return 0;
}

static const char *
status_hint(long status)
{
	switch (status) {
	case 401: return " (the server wants credentials: user and password, or a token)";
	case 403: return " (the credentials were refused)";
	case 404: return " (no such route: is this the Pyroscope base URL, and the API right?)";
	case 413: return " (the profile is larger than the server accepts)";
	case 429: return " (rate limited)";
	default: return "";
	}
}

int
yi_pyro_send(const yi_pyro_cfg *c, const yi_pyro_req *r, const atomic_llong *abort_ms,
    yi_pyro_result *res)
{
	const yi_curl_api *lc;
	struct curl_slist *hdrs = NULL, *rsl = NULL, *t;
	char errbuf[CURL_ERROR_SIZE] = "", line[300], rs[512], *hbuf = NULL;
	const char *route = c->api == YI_PYRO_PUSH ? "push" : "ingest";
	curl_off_t retry_after = 0;
	long status = 0, oserr = 0;
	answer *ans = NULL;
	curl_fds *cf = NULL;
	double t0;
	CURLcode cr;
	CURL *h = NULL;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	if ((lc = yi_curl()) == NULL)
		return yi_error(YING_ENOTSUP, "%s: cannot upload: %s", c->url_name,
		    ying_last_error());
	if ((rc = resolve(c, r->url, rs, sizeof(rs))) != 0) {
		res->retryable = rc == YING_EIO;
		return rc;
	}
	if ((ans = yi_calloc(1, sizeof(*ans))) == NULL ||
	    (cf = yi_calloc(1, sizeof(*cf))) == NULL ||
	    (hbuf = yi_malloc(strlen(r->ctype) + 4200)) == NULL) {
		rc = yi_oom("the request");
		goto out;
	}
	if ((h = lc->easy_init()) == NULL) {
		rc = yi_error(YING_ENOMEM, "%s: curl_easy_init failed", c->url_name);
		goto out;
	}
#define ADD(s) do { \
		if ((t = lc->slist_append(hdrs, (s))) == NULL) { \
			rc = yi_oom("the request headers"); \
			goto out; \
		} \
		hdrs = t; \
	} while (0)
	snprintf(hbuf, strlen(r->ctype) + 4200, "Content-Type: %s", r->ctype);
	ADD(hbuf);
	ADD("Expect:");     /* no 100-continue round trip */
	if (c->api == YI_PYRO_PUSH)
		ADD("Connect-Protocol-Version: 1");
	if (c->token) {
		snprintf(hbuf, strlen(r->ctype) + 4200, "Authorization: Bearer %s", c->token);
		ADD(hbuf);
	}
	if (c->tenant) {
		snprintf(hbuf, strlen(r->ctype) + 4200, "X-Scope-OrgID: %s", c->tenant);
		ADD(hbuf);
	}
	for (size_t i = 0; i < c->headers.n; i++)
		ADD(c->headers.v[i]);
	if (rs[0]) {
		if ((rsl = lc->slist_append(NULL, rs)) == NULL) {
			rc = yi_oom("the request");
			goto out;
		}
	}
#undef ADD
	{
		yi_curl_setup cs = {
			.url = r->url, .timeout = c->timeout, .errbuf = errbuf,
			.write = on_answer, .write_data = ans, .max_bytes = ANSWER_READ,
			.headers = hdrs, .post = r->body, .post_len = r->len,
			.open_socket = on_open_socket, .socket_data = cf,
		};
		yi_curl_set(h, &cs);
	}
	lc->easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	lc->easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	lc->easy_setopt(h, CURLOPT_XFERINFODATA, (void *)abort_ms);
	if (rsl)
		lc->easy_setopt(h, CURLOPT_RESOLVE, rsl);
	if (c->user) {
		lc->easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		lc->easy_setopt(h, CURLOPT_USERNAME, c->user);
		lc->easy_setopt(h, CURLOPT_PASSWORD, c->password ? c->password : "");
	}
	each_socket(note_before, cf);
	t0 = yi_pyro_now();
	cr = lc->easy_perform(h);
	res->duration = yi_pyro_now() - t0;
	lc->easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	lc->easy_getinfo(h, CURLINFO_OS_ERRNO, &oserr);
	if (lc->easy_getinfo(h, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK &&
	    retry_after > 0)
		res->retry_after = (double)retry_after;
	/* an answer over ANSWER_READ (cut here, or refused by its
	 * Content-Length): the status line came, and decides */
	if ((cr == CURLE_WRITE_ERROR && ans->cut) ||
	    (cr == CURLE_FILESIZE_EXCEEDED && status >= 100)) {
		ans->cut = true;
		cr = CURLE_OK;
	}
	res->status = cr == CURLE_OK ? status : 0;
	if (cr == CURLE_OK) {
		if (status >= 200 && status < 300)
			goto out;
		res->retryable = status == 429 || status >= 500;
		answer_line(ans, line, sizeof(line));
		rc = yi_error(YING_EIO, "%s: %s: HTTP %ld%s%s%s%s", c->url_name, route, status,
		    status_hint(status), line[0] ? ": " : "", line, ans->cut ?
		    " (an answer over 64 KiB: not read further)" : "");
	} else if (cr == CURLE_ABORTED_BY_CALLBACK) {
		rc = yi_error(YING_EIO, "%s: %s: abandoned (the uploader is stopping)",
		    c->url_name, route);
	} else {
		res->retryable = true;
		if (cr == CURLE_COULDNT_CONNECT)
			rc = yi_error(YING_EIO, "%s: %s: cannot connect: %s", c->url_name, route,
			    oserr ? strerror((int)oserr) : errbuf);
		else if (cr == CURLE_OPERATION_TIMEDOUT)
			rc = yi_error(YING_EIO, "%s: %s: no answer within %g s", c->url_name,
			    route, c->timeout);
		else {
			char *e = errbuf[0] ? yi_text_escape_dup(errbuf) : NULL;
			rc = yi_error(YING_EIO, "%s: %s: %s", c->url_name, route, e ? e :
			    "transfer failed");
			yi_free(e);
		}
	}
out:
	if (h && cf && curl_fds_lost(cf)) {
		/* the program closed (maybe reused) libcurl's own descriptors:
		 * never cleaned up (that would close the program's files) */
		static atomic_bool said;
		yi_abandon(h);
		if (!atomic_exchange(&said, true))
			fprintf(stderr, "ying pyroscope: the program closed libcurl's "
			    "descriptors during an upload; its handle is left as it is "
			    "(said once)\n");
		h = NULL;
	}
	yi_free(cf);
	if (h)
		lc->easy_cleanup(h);
	if (hdrs)
		lc->slist_free_all(hdrs);
	if (rsl)
		lc->slist_free_all(rsl);
	if (hbuf) {
		memset(hbuf, 0, strlen(r->ctype) + 4200);
		yi_free(hbuf);
	}
	yi_free(ans);
	return rc;
}

#else /* !YING_HAVE_CURL */


int
yi_pyro_send(const yi_pyro_cfg *c, const yi_pyro_req *r, const atomic_llong *abort_ms,
    yi_pyro_result *res)
{
	(void)r, (void)abort_ms;
	memset(res, 0, sizeof(*res));
	return yi_error(YING_ENOTSUP, "%s: cannot upload: libying was built without "
	    "libcurl (apt-get install libcurl4-openssl-dev and rebuild)", c->url_name);
}

#endif

/* ---- delivery with retries, one-shot uploads ----------------------------------- */

int
yi_pyro_deliver(const yi_pyro_cfg *c, const void *pprof, size_t len, int64_t from,
    int64_t until, const yi_pyro_hooks *h)
{
	yi_pyro_req req;
	yi_pyro_result res;
	int rc, attempt = 0;

	if ((rc = yi_pyro_req_build(&req, c, pprof, len, from, until)) != 0) {
		yi_pyro_req_release(&req);
		return rc;
	}
	for (;;) {
		double delay;

		rc = yi_pyro_send(c, &req, h ? h->abort_ms : NULL, &res);
		if (h && h->attempt)
			h->attempt(h->opaque, rc, &res, req.len);
		if (rc == 0 || !res.retryable || attempt >= c->retries)
			break;
		attempt++;
		delay = yi_pyro_backoff(attempt, yi_pyro_random());
		if (res.retry_after > delay)
			delay = res.retry_after < YI_PYRO_BACKOFF_CAP ? res.retry_after :
			    YI_PYRO_BACKOFF_CAP;
		if (h && h->wait) {
			if (!h->wait(h->opaque, delay))
				break;
		} else {
			struct timespec ts = { (time_t)delay,
			    (long)((delay - (double)(time_t)delay) * 1e9) };
			while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
				;
		}
	}
	yi_pyro_req_release(&req);
	return rc;
}

/* "2026-12-02 15:04:05 UTC" */
static void
utc_text(int64_t t, char *out, size_t n)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (gmtime_r(&tt, &tm) == NULL || strftime(out, n, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
		snprintf(out, n, "%" PRId64 " s since the epoch", t);
}


int
ying_pyroscope_upload(const ying_pyroscope_opts *opts, const ying_profile *prof,
    double from, double until)
{
	ying_membuf mb = YING_MEMBUF_INIT;
	ying_fold_stats fst;
	char comment[96], when[48];
	int64_t own_ms, t_ms, f_ms, now_ms = yi_pyro_epoch_ms();
	bool restamped = false;
	yi_pyro_cfg c;
	int rc;

	yi_error_clear();
	if (prof == NULL)
		return yi_error(YING_EINVAL, "ying_pyroscope_upload: no profile");
	if (!prof->symbolized)
		return yi_error(YING_EINVAL, "%s: not symbolized (call ying_profile_symbolize "
		    "first: Pyroscope cannot name bare addresses)", prof->source ?
		    prof->source : "profile");
	if (!(from >= 0) || !(until >= 0) || from > 1e12 || until > 1e12)
		return yi_error(YING_EINVAL, "from/until: seconds since the epoch expected");
	if ((rc = ying_pyroscope_check(opts)) != 0)
		return rc;
	if ((rc = yi_pyro_cfg_init(&c, opts)) != 0) {
		yi_pyro_cfg_release(&c);
		return rc;
	}
	c.session[0] = '\0';   /* this process did not make the profile */
	own_ms = prof->time > 0 ? prof->time * 1000 : now_ms;
	t_ms = until > 0 ? (int64_t)(until * 1000) : own_ms;
	f_ms = from > 0 ? (int64_t)(from * 1000) : t_ms;
	if (until > 0 && prof->time > 0 && (t_ms - own_ms > 999 || own_ms - t_ms > 999)) {
		/* stamped with another time: the dump's own is kept */
		utc_text(prof->time, when, sizeof(when));
		snprintf(comment, sizeof(comment), "ying: dumped at %s", when);
		restamped = true;
	}
	if (c.max_age >= 0 && (double)(now_ms - t_ms) / 1000.0 > c.max_age) {
		char age[40], win[40];
		yi_fmt_duration((double)(now_ms - t_ms) / 1000.0, true, age, sizeof(age));
		yi_fmt_duration(c.max_age, true, win, sizeof(win));
		utc_text(t_ms / 1000, when, sizeof(when));
		rc = yi_error(YING_EINVAL, "%s: dumped %s ago (%s), outside the ingestion "
		    "window of %s that Pyroscope accepts by default (reject-older-than): "
		    "the server would answer 400 not_in_ingestion_window.  Stamp it with "
		    "the upload's time (ying upload --time now: the dump's time is kept as "
		    "a comment of the profile), or give the window your server has "
		    "(--max-age)", prof->source ? prof->source : "profile", age, when, win);
		yi_pyro_cfg_release(&c);
		return rc;
	}
	memset(&fst, 0, sizeof(fst));
	if ((rc = yi_pyro_pprof(&c, prof, f_ms < t_ms ? f_ms : 0, t_ms, restamped ?
	    comment : NULL, &mb, &fst)) == 0)
		rc = yi_pyro_deliver(&c, mb.data, mb.len, f_ms, t_ms, NULL);
	ying_membuf_release(&mb);
	yi_pyro_cfg_release(&c);
	return rc;
}
