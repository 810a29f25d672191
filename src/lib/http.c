/*
 * http.c: the embedded HTTP endpoint (libmicrohttpd), built with
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
 * A request goes: auth (optional bearer token, constant-time compare) ->
 * route table (404, 405 with Allow) -> body bound (413) -> handler.  Handlers
 * write into a memory buffer and the response is queued from it.  Anything
 * that dumps the heap takes the in-flight lock (one dump at a time; a second
 * one waits `busy_wait_ms`, then gets 503 with Retry-After).  Profiles are
 * symbolized with one long-lived ying_symbolizer, so module caches are shared
 * by all requests.  jeprof's remote protocol (/pprof/heap, /pprof/symbol,
 * /pprof/cmdline) and Go's symbolz (/debug/pprof/symbol) are served from the
 * same symbolizer: posted addresses are symbolized against the process's own
 * /proc/self/maps, and allocator frames are named `malloc` so that jeprof's
 * skip list removes them.  No request can name a filesystem path.
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

#include "internal.h"

#define DEFAULT_BIND "127.0.0.1:6060"
#define SNAP_NAME_MAX 64
#define SMALL_BODY 4096          /* bodies of POSTs that take no body */
#define MAX_GROWTH_INFLIGHT 4    /* concurrent ?seconds=N requests */
#define MAX_SYMBOL_ADDRS 200000

typedef struct snapshot {
	char name[SNAP_NAME_MAX + 1];
	char *data;
	size_t len;
	int64_t time;
} snapshot;

struct ying_http {
	struct MHD_Daemon *d;
	int port;
	char *token;
	size_t token_len;
	ying_http_opts o;
	ying_symbolizer *sym;
	char program[128];          /* basename of the executable, sanitized */

	pthread_mutex_t dump_mtx;   /* one dump (and its conversion) at a time */
	pthread_mutex_t snap_mtx;
	YI_VEC(snapshot) snaps;
	size_t snap_bytes;

	pthread_mutex_t stop_mtx;   /* guards `stopping`; growth waits on stop_cv */
	pthread_cond_t stop_cv;
	bool stopping;
	atomic_int growth_inflight;
	atomic_int active;          /* requests begun and not yet completed */
	atomic_ulong requests;
};

/* ---- per-request state ------------------------------------------------------ */

struct route;

typedef struct hreq {
	ying_http *h;
	struct MHD_Connection *c;
	const struct route *r;
	const char *method;
	const char *url;
	ying_membuf body;
	bool body_too_big;
	struct timespec t0;

	/* response */
	unsigned status;
	ying_membuf out;
	const char *ctype;
	char disposition[200];
	const char *allow;
	int retry_after;
	bool www_auth;
} hreq;

typedef void (*handler_fn)(hreq *q);

enum { M_GET = 1, M_POST = 2, M_DELETE = 4 };

typedef struct route {
	const char *path;
	unsigned methods;           /* GET implies HEAD */
	handler_fn fn;
	const char *allow;          /* Allow header for 405 */
	bool big_body;              /* body bounded by max_body, else SMALL_BODY */
	const char *help;           /* one line for the index page */
} route;

/* ---- small helpers ------------------------------------------------------------ */

static void
out_add(hreq *q, const void *p, size_t n)
{
	if (ying_write_membuf(&q->out, p, n) != 0)
		q->status = 500;
}

static void
out_str(hreq *q, const char *s)
{
	out_add(q, s, strlen(s));
}

static void YI_PRINTF(2, 3)
out_printf(hreq *q, const char *fmt, ...)
{
	char small[512], *big;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		out_add(q, small, (size_t)n);
		return;
	}
	if ((big = yi_malloc((size_t)n + 1)) == NULL) {
		q->status = 500;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	out_add(q, big, (size_t)n);
	yi_free(big);
}

/* Replace the response with a plain-text error. */
static void YI_PRINTF(3, 4)
fail(hreq *q, unsigned status, const char *fmt, ...)
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
	out_str(q, msg);
	out_str(q, "\n");
	if (q->status != status) {      /* out of memory while writing */
		q->status = 500;
	}
}

/* Map a libying error to an HTTP error with the detail as the body. */
static void
fail_rc(hreq *q, int rc, const char *what)
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
	fail(q, st, "%s: %s: %s", what, ying_strerror(rc), ying_last_error());
}

static const char *
arg(hreq *q, const char *key)
{
	return MHD_lookup_connection_value(q->c, MHD_GET_ARGUMENT_KIND, key);
}

/* Strict decimal in [lo, hi]; absent -> *out = def.  false on bad input. */
static bool
arg_long(hreq *q, const char *key, long lo, long hi, long def, long *out)
{
	const char *s = arg(q, key);
	char *end;
	long v;

	if (s == NULL) {
		*out = def;
		return true;
	}
	if (s[0] == '\0' || s[0] == '+' || s[0] == ' ')
		goto bad;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end != '\0' || v < lo || v > hi)
		goto bad;
	*out = v;
	return true;
bad:
	fail(q, 400, "bad parameter %s=%s: expected an integer in %ld..%ld", key,
	    s, lo, hi);
	return false;
}

static bool
arg_index(hreq *q, ying_sample_index *idx)
{
	const char *s = arg(q, "sample_index");

	*idx = YING_INUSE_SPACE;
	if (s == NULL)
		return true;
	if (ying_sample_index_parse(s, idx) != 0) {
		fail(q, 400, "bad parameter sample_index=%s: use inuse_space, "
		    "inuse_objects, alloc_space or alloc_objects", s);
		return false;
	}
	return true;
}

/* One of a fixed set of words; absent -> def (index).  -1 after a 400. */
static int
arg_choice(hreq *q, const char *key, const char *const *words, int def)
{
	const char *s = arg(q, key);
	char list[256] = "";

	if (s == NULL)
		return def;
	for (int i = 0; words[i]; i++)
		if (strcmp(s, words[i]) == 0)
			return i;
	for (int i = 0; words[i]; i++) {
		strncat(list, i ? "|" : "", sizeof(list) - strlen(list) - 1);
		strncat(list, words[i], sizeof(list) - strlen(list) - 1);
	}
	fail(q, 400, "bad parameter %s=%s: expected %s", key, s, list);
	return -1;
}

static bool
valid_snap_name(const char *s)
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
static void
set_filename(hreq *q, const char *ext)
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

static bool
stopping(ying_http *h)
{
	bool s;

	pthread_mutex_lock(&h->stop_mtx);
	s = h->stopping;
	pthread_mutex_unlock(&h->stop_mtx);
	return s;
}

/* ---- dumps under the in-flight lock --------------------------------------- */

static bool
dump_begin(hreq *q)
{
	struct timespec dl;
	int e;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += q->h->o.busy_wait_ms / 1000;
	dl.tv_nsec += (long)(q->h->o.busy_wait_ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	e = pthread_mutex_timedlock(&q->h->dump_mtx, &dl);
	if (e == 0)
		return true;
	q->retry_after = 1;
	fail(q, 503, "another heap dump is in progress; retry shortly");
	return false;
}

static void
dump_end(hreq *q)
{
	pthread_mutex_unlock(&q->h->dump_mtx);
}

/* Dump, parse and symbolize with the shared symbolizer.  Lock held. */
static ying_profile *
dump_profile(hreq *q, char **raw, size_t *rawlen)
{
	ying_profile *p = NULL;
	char *buf;
	size_t len;
	int rc;

	if ((rc = ying_ctl_dump_mem(&buf, &len)) != 0) {
		fail_rc(q, rc, "heap dump failed");
		return NULL;
	}
	rc = ying_profile_read_mem(&p, buf, len, "now");
	if (rc == 0)
		rc = ying_profile_symbolize(p, q->h->sym, NULL);
	if (rc != 0) {
		fail_rc(q, rc, "reading the heap dump failed");
		ying_profile_free(p);
		yi_free(buf);
		return NULL;
	}
	if (raw) {
		*raw = buf;
		*rawlen = len;
	} else {
		yi_free(buf);
	}
	return p;
}

/* ---- writers into the response ---------------------------------------------- */

static int
write_profile_as(hreq *q, ying_profile *p, int fmt, ying_sample_index idx)
{
	/* fmt: 1 pprof, 2 folded, 3 svg, 4 text, 5 json */
	switch (fmt) {
	case 1: {
		ying_pprof_opts o = YING_PPROF_OPTS_INIT;
		q->ctype = "application/octet-stream";
		set_filename(q, "pb.gz");
		return ying_profile_write_pprof(p, &o, ying_write_membuf, &q->out);
	}
	case 2: {
		ying_folded_opts o = YING_FOLDED_OPTS_INIT;
		o.sample_index = idx;
		q->ctype = "text/plain; charset=utf-8";
		set_filename(q, "folded");
		return ying_profile_write_folded(p, &o, ying_write_membuf, &q->out);
	}
	case 3: {
		ying_svg_opts o = YING_SVG_OPTS_INIT;
		o.sample_index = idx;
		q->ctype = "image/svg+xml";
		return ying_profile_write_svg(p, &o, ying_write_membuf, &q->out);
	}
	case 4: case 5: {
		ying_top_opts o = YING_TOP_OPTS_INIT;
		o.sample_index = idx;
		o.json = fmt == 5;
		q->ctype = fmt == 5 ? "application/json" : "text/plain; charset=utf-8";
		return ying_profile_write_top(p, &o, ying_write_membuf, &q->out);
	}
	}
	return yi_error(YING_EINVAL, "unknown format");
}

/* ---- endpoints: heap ---------------------------------------------------------- */

static const char *const heap_formats[] = {
	"raw", "pprof", "folded", "svg", "text", "json", NULL
};

static void
ep_heap(hreq *q)
{
	ying_sample_index idx;
	ying_profile *p;
	char *raw;
	size_t len;
	int fmt, rc;

	if ((fmt = arg_choice(q, "format", heap_formats, 0)) < 0 || !arg_index(q, &idx))
		return;
	if (!dump_begin(q))
		return;
	if (fmt == 0) {
		if ((rc = ying_ctl_dump_mem(&raw, &len)) != 0) {
			fail_rc(q, rc, "heap dump failed");
		} else {
			ying_membuf_release(&q->out);
			q->out.data = raw;
			q->out.len = q->out.cap = len;
			q->ctype = "application/octet-stream";
			set_filename(q, "heap");
		}
		dump_end(q);
		return;
	}
	p = dump_profile(q, NULL, NULL);
	if (p) {
		if ((rc = write_profile_as(q, p, fmt, idx)) != 0)
			fail_rc(q, rc, "writing the profile failed");
		ying_profile_free(p);
	}
	dump_end(q);
}

/* jeprof's /pprof/heap: the raw dump, nothing else. */
static void
ep_pprof_heap_raw(hreq *q)
{
	char *raw;
	size_t len;
	int rc;

	if (!dump_begin(q))
		return;
	if ((rc = ying_ctl_dump_mem(&raw, &len)) != 0) {
		fail_rc(q, rc, "heap dump failed");
	} else {
		ying_membuf_release(&q->out);
		q->out.data = raw;
		q->out.len = q->out.cap = len;
		q->ctype = "application/octet-stream";
	}
	dump_end(q);
}

/* Wait up to `secs` seconds unless the server stops; false if stopping. */
static bool
wait_seconds(ying_http *h, long secs)
{
	struct timespec dl;
	bool stop;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += secs;
	pthread_mutex_lock(&h->stop_mtx);
	while (!h->stopping) {
		if (pthread_cond_timedwait(&h->stop_cv, &h->stop_mtx, &dl) == ETIMEDOUT)
			break;
	}
	stop = h->stopping;
	pthread_mutex_unlock(&h->stop_mtx);
	return !stop;
}

/* GET /debug/pprof/heap[?seconds=N]: symbolized gzipped pprof, or growth. */
static void
ep_pprof_heap(hreq *q)
{
	ying_pprof_opts po = YING_PPROF_OPTS_INIT;
	ying_profile *base = NULL, *now = NULL;
	ying_diff *d = NULL;
	long secs;
	int rc;

	if (!arg_long(q, "seconds", 0, (long)q->h->o.max_seconds, 0, &secs))
		return;
	if (secs == 0) {
		if (!dump_begin(q))
			return;
		if ((now = dump_profile(q, NULL, NULL)) != NULL) {
			q->ctype = "application/octet-stream";
			set_filename(q, "pb.gz");
			if ((rc = ying_profile_write_pprof(now, &po, ying_write_membuf,
			    &q->out)) != 0)
				fail_rc(q, rc, "writing pprof failed");
			ying_profile_free(now);
		}
		dump_end(q);
		return;
	}
	if (atomic_fetch_add(&q->h->growth_inflight, 1) >= MAX_GROWTH_INFLIGHT) {
		atomic_fetch_sub(&q->h->growth_inflight, 1);
		q->retry_after = (int)secs;
		fail(q, 503, "too many ?seconds= profiles in progress (at most %d)",
		    MAX_GROWTH_INFLIGHT);
		return;
	}
	if (dump_begin(q)) {
		base = dump_profile(q, NULL, NULL);
		dump_end(q);
	}
	if (base == NULL)
		goto out;
	if (!wait_seconds(q->h, secs)) {
		q->retry_after = 1;
		fail(q, 503, "the server is stopping");
		goto out;
	}
	if (!dump_begin(q))
		goto out;
	if ((now = dump_profile(q, NULL, NULL)) != NULL) {
		rc = ying_diff_new(&d, base, now, YING_INUSE_SPACE);
		if (rc == 0) {
			q->ctype = "application/octet-stream";
			set_filename(q, "growth.pb.gz");
			rc = ying_diff_write_pprof(d, &po, ying_write_membuf, &q->out);
		}
		if (rc != 0)
			fail_rc(q, rc, "computing the growth profile failed");
	}
	dump_end(q);
out:
	ying_diff_free(d);
	ying_profile_free(now);
	ying_profile_free(base);
	atomic_fetch_sub(&q->h->growth_inflight, 1);
}

static void
ep_flamegraph(hreq *q)
{
	ying_sample_index idx;
	ying_profile *p;
	int rc;

	if (!arg_index(q, &idx) || !dump_begin(q))
		return;
	if ((p = dump_profile(q, NULL, NULL)) != NULL) {
		if ((rc = write_profile_as(q, p, 3, idx)) != 0)
			fail_rc(q, rc, "writing the flame graph failed");
		ying_profile_free(p);
	}
	dump_end(q);
}

/* ---- endpoints: snapshots and diff --------------------------------------- */

static void
snapshots_json(hreq *q)
{
	ying_http *h = q->h;

	q->ctype = "application/json";
	out_printf(q, "{\"count\":%zu,\"bytes\":%zu,\"max_count\":%u,"
	    "\"max_bytes\":%zu,\"snapshots\":[", h->snaps.n, h->snap_bytes,
	    h->o.max_snapshots, h->o.max_snapshot_bytes);
	for (size_t i = 0; i < h->snaps.n; i++)
		out_printf(q, "%s{\"name\":\"%s\",\"bytes\":%zu,\"time\":%" PRId64 "}",
		    i ? "," : "", h->snaps.v[i].name, h->snaps.v[i].len,
		    h->snaps.v[i].time);
	out_str(q, "]}\n");
}

static long
snap_find(ying_http *h, const char *name)
{
	for (size_t i = 0; i < h->snaps.n; i++)
		if (strcmp(h->snaps.v[i].name, name) == 0)
			return (long)i;
	return -1;
}

static void
ep_snapshot(hreq *q)
{
	ying_http *h = q->h;
	const char *name = arg(q, "name");
	char *raw = NULL;
	size_t len = 0, freed = 0;
	long at;
	int rc;

	if (strcmp(q->method, "GET") == 0 || strcmp(q->method, "HEAD") == 0) {
		pthread_mutex_lock(&h->snap_mtx);
		snapshots_json(q);
		pthread_mutex_unlock(&h->snap_mtx);
		return;
	}
	if (!valid_snap_name(name)) {
		fail(q, 400, "bad or missing parameter name=%s: 1 to %d characters of "
		    "[A-Za-z0-9._-]", name ? name : "", SNAP_NAME_MAX);
		return;
	}
	if (strcmp(q->method, "DELETE") == 0) {
		pthread_mutex_lock(&h->snap_mtx);
		if ((at = snap_find(h, name)) < 0) {
			fail(q, 404, "no snapshot named %s", name);
		} else {
			h->snap_bytes -= h->snaps.v[at].len;
			yi_free(h->snaps.v[at].data);
			memmove(&h->snaps.v[at], &h->snaps.v[at + 1],
			    (h->snaps.n - (size_t)at - 1) * sizeof(snapshot));
			h->snaps.n--;
			snapshots_json(q);
		}
		pthread_mutex_unlock(&h->snap_mtx);
		return;
	}
	if (!dump_begin(q))
		return;
	rc = ying_ctl_dump_mem(&raw, &len);
	dump_end(q);
	if (rc != 0) {
		fail_rc(q, rc, "heap dump failed");
		return;
	}
	pthread_mutex_lock(&h->snap_mtx);
	if ((at = snap_find(h, name)) >= 0)
		freed = h->snaps.v[at].len;
	if ((at < 0 && h->snaps.n >= h->o.max_snapshots) ||
	    h->snap_bytes - freed + len > h->o.max_snapshot_bytes) {
		pthread_mutex_unlock(&h->snap_mtx);
		yi_free(raw);
		fail(q, 507, "snapshot limit reached (%u snapshots, %zu bytes in "
		    "total); DELETE /debug/heap/snapshot?name=N frees one",
		    h->o.max_snapshots, h->o.max_snapshot_bytes);
		return;
	}
	if (at < 0) {
		if (yi_vec_grow(&h->snaps, 1) != 0) {
			pthread_mutex_unlock(&h->snap_mtx);
			yi_free(raw);
			fail(q, 500, "out of memory");
			return;
		}
		at = (long)h->snaps.n++;
		snprintf(h->snaps.v[at].name, sizeof(h->snaps.v[at].name), "%s", name);
	} else {
		yi_free(h->snaps.v[at].data);
	}
	h->snaps.v[at].data = raw;
	h->snaps.v[at].len = len;
	h->snaps.v[at].time = (int64_t)time(NULL);
	h->snap_bytes = h->snap_bytes - freed + len;
	q->ctype = "application/json";
	out_printf(q, "{\"name\":\"%s\",\"bytes\":%zu,\"time\":%" PRId64 "}\n",
	    name, len, h->snaps.v[at].time);
	pthread_mutex_unlock(&h->snap_mtx);
}

static const char *const diff_formats[] = {
	"text", "json", "svg", "pprof", "folded", NULL
};

static void
ep_diff(hreq *q)
{
	ying_http *h = q->h;
	const char *name = arg(q, "base");
	ying_profile *base = NULL, *now = NULL;
	ying_diff *d = NULL;
	ying_sample_index idx;
	long at, limit;
	int fmt, rc;

	if ((fmt = arg_choice(q, "format", diff_formats, 0)) < 0 ||
	    !arg_index(q, &idx) || !arg_long(q, "limit", 0, 100000, 0, &limit))
		return;
	if (!valid_snap_name(name)) {
		fail(q, 400, "bad or missing parameter base=%s: the name of a snapshot "
		    "taken with POST /debug/heap/snapshot?name=N", name ? name : "");
		return;
	}
	pthread_mutex_lock(&h->snap_mtx);
	if ((at = snap_find(h, name)) < 0) {
		pthread_mutex_unlock(&h->snap_mtx);
		fail(q, 404, "no snapshot named %s (POST /debug/heap/snapshot?name=%s "
		    "takes one)", name, name);
		return;
	}
	rc = ying_profile_read_mem(&base, h->snaps.v[at].data, h->snaps.v[at].len,
	    name);
	pthread_mutex_unlock(&h->snap_mtx);
	if (rc != 0) {
		fail_rc(q, rc, "reading the base snapshot failed");
		return;
	}
	if (!dump_begin(q))
		goto out;
	if ((rc = ying_profile_symbolize(base, h->sym, NULL)) != 0) {
		fail_rc(q, rc, "symbolizing the base failed");
		dump_end(q);
		goto out;
	}
	if ((now = dump_profile(q, NULL, NULL)) == NULL) {
		dump_end(q);
		goto out;
	}
	if ((rc = ying_diff_new(&d, base, now, idx)) == 0) {
		switch (fmt) {
		case 0: case 1: {
			ying_diff_opts o = YING_DIFF_OPTS_INIT;
			o.json = fmt == 1;
			o.limit = (size_t)limit;
			q->ctype = fmt == 1 ? "application/json" : "text/plain; charset=utf-8";
			rc = ying_diff_write_text(d, &o, ying_write_membuf, &q->out);
			break;
		}
		case 2: {
			ying_svg_opts o = YING_SVG_OPTS_INIT;
			o.sample_index = idx;
			q->ctype = "image/svg+xml";
			rc = ying_diff_write_svg(d, &o, ying_write_membuf, &q->out);
			break;
		}
		case 3: {
			ying_pprof_opts o = YING_PPROF_OPTS_INIT;
			q->ctype = "application/octet-stream";
			set_filename(q, "diff.pb.gz");
			rc = ying_diff_write_pprof(d, &o, ying_write_membuf, &q->out);
			break;
		}
		default:
			q->ctype = "text/plain; charset=utf-8";
			rc = ying_diff_write_folded(d, ying_write_membuf, &q->out);
			break;
		}
	}
	if (rc != 0)
		fail_rc(q, rc, "writing the diff failed");
	dump_end(q);
out:
	ying_diff_free(d);
	ying_profile_free(now);
	ying_profile_free(base);
}

/* ---- endpoints: control and stats ------------------------------------------ */

static void
ep_prof(hreq *q)
{
	ying_ctl_status st;
	ying_ctl_stats ss;
	yi_out *o;
	int rc, src;

	if ((rc = ying_ctl_status_get(&st)) != 0) {
		fail_rc(q, rc, "reading the profiler status failed");
		return;
	}
	src = ying_ctl_stats_get(&ss);
	if ((o = yi_malloc(sizeof(*o))) == NULL) {
		fail(q, 500, "out of memory");
		return;
	}
	yi_out_init(o, ying_write_membuf, &q->out);
	yi_out_puts(o, "{\"jemalloc\":{\"version\":");
	yi_out_json_str(o, st.version);
	yi_out_puts(o, ",\"mallctl\":");
	yi_out_json_str(o, st.mallctl_symbol);
	yi_out_printf(o, ",\"config_prof\":%s},\"prof\":{\"enabled\":%s,"
	    "\"active\":%s,\"lg_sample\":%u,\"sample_period\":%" PRIu64
	    ",\"accum\":%s,\"interval\":%" PRIu64 ",\"thread_active_init\":%s}",
	    st.config_prof ? "true" : "false", st.opt_prof ? "true" : "false",
	    st.prof_active ? "true" : "false", st.lg_sample,
	    st.lg_sample < 64 ? (uint64_t)1 << st.lg_sample : 0,
	    st.opt_prof_accum ? "true" : "false", st.interval,
	    st.thread_active_init ? "true" : "false");
	if (src == 0)
		yi_out_printf(o, ",\"stats\":{\"allocated\":%" PRIu64 ",\"active\":%"
		    PRIu64 ",\"metadata\":%" PRIu64 ",\"resident\":%" PRIu64
		    ",\"mapped\":%" PRIu64 ",\"retained\":%" PRIu64 "}", ss.allocated,
		    ss.active, ss.metadata, ss.resident, ss.mapped, ss.retained);
	pthread_mutex_lock(&q->h->snap_mtx);
	yi_out_printf(o, ",\"server\":{\"port\":%d,\"requests\":%lu,"
	    "\"snapshots\":%zu,\"snapshot_bytes\":%zu}}\n", q->h->port,
	    (unsigned long)atomic_load(&q->h->requests), q->h->snaps.n,
	    q->h->snap_bytes);
	pthread_mutex_unlock(&q->h->snap_mtx);
	rc = yi_out_finish(o);
	yi_free(o);
	if (rc != 0)
		fail_rc(q, rc, "writing the status failed");
	q->ctype = "application/json";
}

static void
ep_prof_active(hreq *q)
{
	long on;
	int old, rc;

	if (arg(q, "on") == NULL) {
		fail(q, 400, "missing parameter on=0|1");
		return;
	}
	if (!arg_long(q, "on", 0, 1, 0, &on))
		return;
	if ((rc = ying_ctl_active((int)on, &old)) != 0) {
		fail_rc(q, rc, "setting prof.active failed");
		return;
	}
	q->ctype = "application/json";
	out_printf(q, "{\"active\":%s,\"previous\":%s}\n", on ? "true" : "false",
	    old ? "true" : "false");
}

static void
ep_prof_sample(hreq *q)
{
	long lg;
	int rc;

	if (arg(q, "lg") == NULL) {
		fail(q, 400, "missing parameter lg=N (0..30; the sampling period "
		    "becomes 2^N bytes)");
		return;
	}
	if (!arg_long(q, "lg", 0, 30, 0, &lg))
		return;
	if (!dump_begin(q))
		return;
	rc = ying_ctl_reset((int)lg);
	dump_end(q);
	if (rc != 0) {
		fail_rc(q, rc, "prof.reset failed");
		return;
	}
	q->ctype = "application/json";
	out_printf(q, "{\"lg_sample\":%ld,\"sample_period\":%lu,\"reset\":true}\n",
	    lg, 1UL << lg);
}

static void
ep_stats(hreq *q)
{
	char *js;
	size_t len;
	int rc;

	if ((rc = ying_ctl_stats_json(&js, &len)) != 0) {
		fail_rc(q, rc, "malloc_stats_print failed");
		return;
	}
	ying_membuf_release(&q->out);
	q->out.data = js;
	q->out.len = q->out.cap = len;
	q->ctype = "application/json";
}

/* ---- endpoints: jeprof / Go remote symbolization ---------------------------- */

static void
ep_cmdline(hreq *q)
{
	FILE *f = fopen("/proc/self/cmdline", "re");
	char buf[4096];
	size_t n, total = 0;

	q->ctype = "text/plain; charset=utf-8";
	if (f == NULL) {
		out_printf(q, "%s\n", q->h->program);
		return;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && total < (1u << 20)) {
		for (size_t i = 0; i < n; i++)
			if (buf[i] == '\0')
				buf[i] = '\n';
		out_add(q, buf, n);
		total += n;
	}
	fclose(f);
}

static int
read_self_maps(ying_membuf *b)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char buf[8192];
	size_t n;
	int rc = 0;

	if (f == NULL)
		return yi_error(YING_ESYS, "cannot read /proc/self/maps: %s", strerror(errno));
	while (rc == 0 && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		rc = ying_write_membuf(b, buf, n);
	fclose(f);
	return rc;
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
			fail(q, 400, "bad symbol request: expected hex addresses joined "
			    "by '+' (0x7f...+0x55...) near byte %ld",
			    (long)(p - q->body.data));
			return false;
		}
		if (v.n >= MAX_SYMBOL_ADDRS) {
			yi_vec_free(&v);
			fail(q, 413, "too many addresses (at most %d)", MAX_SYMBOL_ADDRS);
			return false;
		}
		if (yi_vec_grow(&v, 1) != 0) {
			yi_vec_free(&v);
			fail(q, 500, "out of memory");
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
	ying_membuf text = YING_MEMBUF_INIT;
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
	/* A heap_v2 document with one single-frame stack per address, plus our
	 * own maps: the ordinary parser and the shared symbolizer do the rest. */
	{
		char line[96];
		int len = snprintf(line, sizeof(line), "heap_v2/1\n  t*: %zu: %zu [0: 0]\n",
		    n, n);
		rc = ying_write_membuf(&text, line, (size_t)len);
		for (size_t i = 0; rc == 0 && i < n; i++) {
			len = snprintf(line, sizeof(line), "@ 0x%" PRIx64
			    "\n  t*: 1: 1 [0: 0]\n", addrs[i]);
			rc = ying_write_membuf(&text, line, (size_t)len);
		}
		if (rc == 0)
			rc = ying_write_membuf(&text, "\nMAPPED_LIBRARIES:\n", 19);
		if (rc == 0)
			rc = read_self_maps(&text);
	}
	if (rc == 0)
		rc = ying_profile_read_mem(&p, text.data, text.len, "symbol request");
	ying_membuf_release(&text);
	so.keep_allocator_frames = 1;
	if (rc == 0)
		rc = ying_profile_symbolize(p, q->h->sym, &so);
	if (rc != 0) {
		fail_rc(q, rc, "symbolization failed");
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
		out_printf(q, "0x%016" PRIx64 "\t", addrs[i]);
		if (alloc) {
			out_str(q, "malloc\n");
			continue;
		}
		if (jeprof) {
			/* outermost (the real function) first, innermost last */
			for (int k = (int)loc->nlines - 1; k >= 0; k--) {
				const yi_line *ln = &p->lines.v[loc->line_off + (uint32_t)k];
				out_str(q, yi_profile_str(p, p->funcs.v[ln->func].name));
				if (k)
					out_str(q, "--");
			}
		} else {
			const yi_line *ln = &p->lines.v[loc->line_off + loc->nlines - 1u];
			out_str(q, yi_profile_str(p, p->funcs.v[ln->func].name));
		}
		out_str(q, "\n");
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
		out_str(q, "num_symbols: 1\n");
		return;
	}
	symbolize_post(q, jeprof);
}

static void ep_symbol_jeprof(hreq *q) { ep_symbol(q, true); }
static void ep_symbol_go(hreq *q) { ep_symbol(q, false); }

/* ---- index ------------------------------------------------------------------- */

static void ep_index(hreq *q);

static const route routes[] = {
	{ "/", M_GET, ep_index, "GET, HEAD", false, "this page" },
	{ "/debug/heap", M_GET, ep_heap, "GET, HEAD", false,
	  "heap dump; ?format=raw|pprof|folded|svg|text|json&amp;sample_index=..." },
	{ "/debug/heap/flamegraph", M_GET, ep_flamegraph, "GET, HEAD", false,
	  "SVG flame graph; ?sample_index=..." },
	{ "/debug/heap/snapshot", M_GET | M_POST | M_DELETE, ep_snapshot,
	  "GET, HEAD, POST, DELETE", false,
	  "POST ?name=N keeps a named base; GET lists; DELETE ?name=N drops" },
	{ "/debug/heap/diff", M_GET, ep_diff, "GET, HEAD", false,
	  "growth since a snapshot; ?base=N&amp;format=text|json|svg|pprof|folded" },
	{ "/debug/pprof/heap", M_GET, ep_pprof_heap, "GET, HEAD", false,
	  "gzipped symbolized pprof (go tool pprof); ?seconds=N for growth" },
	{ "/debug/pprof/allocs", M_GET, ep_pprof_heap, "GET, HEAD", false,
	  "same as /debug/pprof/heap (Grafana Alloy's default path)" },
	{ "/debug/pprof/symbol", M_GET | M_POST, ep_symbol_go, "GET, HEAD, POST",
	  true, "Go pprof remote symbolization" },
	{ "/debug/pprof/cmdline", M_GET, ep_cmdline, "GET, HEAD", false,
	  "command line" },
	{ "/debug/prof", M_GET, ep_prof, "GET, HEAD", false,
	  "profiler status and allocator statistics (JSON)" },
	{ "/debug/prof/active", M_POST, ep_prof_active, "POST", false,
	  "?on=0|1 switches sampling (prof.active)" },
	{ "/debug/prof/sample", M_POST, ep_prof_sample, "POST", false,
	  "?lg=N (0..30) resets the profile with a 2^N-byte sampling period" },
	{ "/debug/stats", M_GET, ep_stats, "GET, HEAD", false,
	  "jemalloc malloc_stats_print JSON" },
	{ "/pprof/heap", M_GET, ep_pprof_heap_raw, "GET, HEAD", false,
	  "jeprof remote: raw heap_v2 dump (jeprof --text http://HOST/pprof/heap)" },
	{ "/pprof/symbol", M_GET | M_POST, ep_symbol_jeprof, "GET, HEAD, POST", true,
	  "jeprof remote symbolization" },
	{ "/pprof/cmdline", M_GET, ep_cmdline, "GET, HEAD", false,
	  "jeprof remote: program name" },
};

static void
ep_index(hreq *q)
{
	q->ctype = "text/html; charset=utf-8";
	out_str(q, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
	    "<title>ying heap profiling</title></head><body>\n<h1>ying heap "
	    "profiling endpoint</h1>\n<table>\n");
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		if (routes[i].methods & M_GET)
			out_printf(q, "<tr><td>%s</td><td><a href=\"%s\">%s</a></td>"
			    "<td>%s</td></tr>\n", routes[i].allow, routes[i].path,
			    routes[i].path, routes[i].help);
		else
			out_printf(q, "<tr><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			    routes[i].allow, routes[i].path, routes[i].help);
	}
	out_str(q, "</table>\n<p>Usage: <code>go tool pprof -top "
	    "http://HOST/debug/pprof/heap</code>, <code>jeprof --text "
	    "http://HOST/pprof/heap</code>, <code>curl -s HOST/debug/heap &gt; "
	    "now.heap</code>.</p>\n</body></html>\n");
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
	if (q->out.data == NULL)
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
	ret = MHD_queue_response(q->c, q->status, r);
	MHD_destroy_response(r);
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

static enum MHD_Result
handle(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload_data,
    size_t *upload_data_size, void **con_cls)
{
	ying_http *h = cls;
	hreq *q = *con_cls;

	YI_UNUSED(version);
	yi_ctl_quiet_thread();
	if (q == NULL) {
		const char *cl;
		unsigned mb;

		if ((q = req_new(h, c, url, method)) == NULL)
			return MHD_NO;
		*con_cls = q;
		atomic_fetch_add(&h->requests, 1);
		atomic_fetch_add(&h->active, 1);
		if (!token_ok(h, MHD_lookup_connection_value(c, MHD_HEADER_KIND,
		    MHD_HTTP_HEADER_AUTHORIZATION))) {
			q->www_auth = true;
			fail(q, 401, "unauthorized: send the header "
			    "'Authorization: Bearer <token>'");
			return send_response(q);
		}
		for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
			if (strcmp(url, routes[i].path) == 0)
				q->r = &routes[i];
		if (q->r == NULL) {
			fail(q, 404, "no such endpoint: %s (GET / lists them)", url);
			return send_response(q);
		}
		mb = method_bit(method);
		if ((q->r->methods & mb) == 0) {
			q->allow = q->r->allow;
			fail(q, 405, "method %s not allowed on %s (allowed: %s)", method,
			    url, q->r->allow);
			return send_response(q);
		}
		q->body.max = q->r->big_body ? h->o.max_body : SMALL_BODY;
		cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
		    MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl && strtoull(cl, NULL, 10) > q->body.max) {
			fail(q, 413, "request body too large (at most %zu bytes)",
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
		fail(q, 413, "request body too large (at most %zu bytes)", q->body.max);
		return send_response(q);
	}
	if (stopping(h)) {
		q->retry_after = 1;
		fail(q, 503, "the server is stopping");
		return send_response(q);
	}
	q->r->fn(q);
	return send_response(q);
}

static void
completed(void *cls, struct MHD_Connection *c, void **con_cls,
    enum MHD_RequestTerminationCode toe)
{
	ying_http *h = cls;
	hreq *q = *con_cls;

	YI_UNUSED(c);
	YI_UNUSED(toe);
	if (q == NULL)
		return;
	atomic_fetch_sub(&h->active, 1);
	ying_membuf_release(&q->body);
	ying_membuf_release(&q->out);
	yi_free(q);
	*con_cls = NULL;
}

static enum MHD_Result
accept_policy(void *cls, const struct sockaddr *addr, socklen_t len)
{
	YI_UNUSED(cls);
	YI_UNUSED(addr);
	YI_UNUSED(len);
	yi_ctl_quiet_thread();
	return MHD_YES;
}

/* ---- start / stop ------------------------------------------------------------ */

/* "HOST:PORT", "[V6]:PORT", ":PORT" or "PORT" (loopback). */
static int
open_listener(const char *bind_addr, int *fd_out, int *family, int *port)
{
	char host[256], portstr[16];
	const char *colon, *h0 = bind_addr;
	struct addrinfo hints, *res = NULL, *ai;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int fd = -1, one = 1, e, err = 0;
	size_t hl;

	if (bind_addr[0] == '[') {
		const char *rb = strchr(bind_addr, ']');
		if (rb == NULL || rb[1] != ':')
			return yi_error(YING_EINVAL, "bad bind address '%s' (expected "
			    "[IPV6]:PORT)", bind_addr);
		h0 = bind_addr + 1;
		hl = (size_t)(rb - h0);
		colon = rb + 1;
	} else if ((colon = strrchr(bind_addr, ':')) != NULL) {
		hl = (size_t)(colon - bind_addr);
	} else {
		colon = bind_addr - 1;   /* "PORT" */
		hl = 0;
	}
	if (hl >= sizeof(host))
		return yi_error(YING_EINVAL, "bind address '%s' too long", bind_addr);
	memcpy(host, h0, hl);
	host[hl] = '\0';
	if (hl == 0)
		strcpy(host, "127.0.0.1");
	{
		const char *ps = colon + 1;
		char *end;
		long pv;
		errno = 0;
		pv = strtol(ps, &end, 10);
		if (*ps == '\0' || *end != '\0' || errno || pv < 0 || pv > 65535)
			return yi_error(YING_EINVAL, "bad port in bind address '%s' "
			    "(0..65535; 0 picks a free one)", bind_addr);
		snprintf(portstr, sizeof(portstr), "%ld", pv);
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	if ((e = getaddrinfo(host, portstr, &hints, &res)) != 0)
		return yi_error(YING_EINVAL, "cannot resolve bind address '%s': %s",
		    bind_addr, gai_strerror(e));
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			err = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ai->ai_family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 64) == 0) {
			*family = ai->ai_family;
			break;
		}
		err = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return yi_error(YING_ESYS, "cannot listen on %s: %s", bind_addr,
		    strerror(err));
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
		err = errno;
		close(fd);
		return yi_error(YING_ESYS, "getsockname failed: %s", strerror(err));
	}
	*port = ntohs(ss.ss_family == AF_INET6 ?
	    ((struct sockaddr_in6 *)&ss)->sin6_port :
	    ((struct sockaddr_in *)&ss)->sin_port);
	*fd_out = fd;
	return 0;
}

static void
program_name(char *out, size_t n)
{
	char path[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", path, sizeof(path) - 1);
	const char *base;
	size_t k = 0;

	if (len <= 0) {
		snprintf(out, n, "program");
		return;
	}
	path[len] = '\0';
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (; *base && k + 1 < n; base++) {
		char c = *base;
		bool okc = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
		out[k++] = okc ? c : '_';
	}
	out[k] = '\0';
	if (k == 0)
		snprintf(out, n, "program");
}

static void
http_free(ying_http *h)
{
	if (h == NULL)
		return;
	for (size_t i = 0; i < h->snaps.n; i++)
		yi_free(h->snaps.v[i].data);
	yi_vec_free(&h->snaps);
	ying_symbolizer_free(h->sym);
	if (h->token) {
		memset(h->token, 0, h->token_len);
		yi_free(h->token);
	}
	pthread_mutex_destroy(&h->dump_mtx);
	pthread_mutex_destroy(&h->snap_mtx);
	pthread_mutex_destroy(&h->stop_mtx);
	pthread_cond_destroy(&h->stop_cv);
	yi_free(h);
}

static int http_start(ying_http **out, const ying_http_opts *opts);

int
ying_http_start(ying_http **out, const ying_http_opts *opts)
{
	ying_http_opts def = YING_HTTP_OPTS_INIT;
	int rc, was_active;

	if (out == NULL)
		return yi_error(YING_EINVAL, "ying_http_start: out is NULL");
	*out = NULL;
	if (opts == NULL)
		opts = &def;
	if (opts->version != YING_HTTP_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_http_opts.version is %d, expected %d "
		    "(use YING_HTTP_OPTS_INIT)", opts->version, YING_HTTP_OPTS_VERSION);
	if (opts->token && (opts->token[0] == '\0' || strlen(opts->token) > 4096))
		return yi_error(YING_EINVAL, "token must be 1..4096 characters");
	if (opts->token) {
		for (const char *t = opts->token; *t; t++)
			if (*t <= ' ' || *t == 0x7f)
				return yi_error(YING_EINVAL, "token must not contain spaces "
				    "or control characters");
	}
	/* What we allocate while starting is the server's, not the caller's:
	 * keep the calling thread from sampling it. */
	if (ying_ctl_thread_active(0, &was_active) != 0) {
		was_active = -1;
		yi_error_clear();
	}
	rc = http_start(out, opts);
	if (was_active > 0)
		ying_ctl_thread_active(1, NULL);
	return rc;
}

static int
http_start(ying_http **out, const ying_http_opts *opts)
{
	ying_http *h;
	sigset_t all, old;
	unsigned flags;
	int rc, fd = -1, family = AF_INET;

	if ((h = yi_calloc(1, sizeof(*h))) == NULL)
		return yi_oom("starting the HTTP endpoint");
	h->o = *opts;
	if (h->o.bind == NULL || h->o.bind[0] == '\0')
		h->o.bind = DEFAULT_BIND;
	if (h->o.max_connections == 0)
		h->o.max_connections = 64;
	if (h->o.timeout_sec == 0)
		h->o.timeout_sec = 30;
	if (h->o.max_seconds == 0)
		h->o.max_seconds = 300;
	if (h->o.max_snapshots == 0)
		h->o.max_snapshots = 8;
	if (h->o.max_snapshot_bytes == 0)
		h->o.max_snapshot_bytes = (size_t)256 << 20;
	if (h->o.busy_wait_ms == 0)
		h->o.busy_wait_ms = 2000;
	if (h->o.max_body == 0)
		h->o.max_body = (size_t)1 << 20;
	pthread_mutex_init(&h->dump_mtx, NULL);
	pthread_mutex_init(&h->snap_mtx, NULL);
	pthread_mutex_init(&h->stop_mtx, NULL);
	{
		pthread_condattr_t ca;
		pthread_condattr_init(&ca);
		pthread_cond_init(&h->stop_cv, &ca);
		pthread_condattr_destroy(&ca);
	}
	h->o.bind = NULL;     /* not retained */
	program_name(h->program, sizeof(h->program));
	if (opts->token) {
		h->token_len = strlen(opts->token);
		if ((h->token = yi_strdup(opts->token)) == NULL) {
			http_free(h);
			return yi_oom("copying the token");
		}
	}
	h->o.token = NULL;
	if ((rc = ying_symbolizer_new(&h->sym)) != 0) {
		http_free(h);
		return rc;
	}
	if ((rc = open_listener(opts->bind && opts->bind[0] ? opts->bind : DEFAULT_BIND,
	    &fd, &family, &h->port)) != 0) {
		http_free(h);
		return rc;
	}
	flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
	    MHD_USE_POLL | MHD_USE_ITC;
	if (family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* Threads started by MHD inherit this mask: the host keeps its signals. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	h->d = MHD_start_daemon(flags, 0, accept_policy, h, handle, h,
	    MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned int)h->o.max_connections,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)h->o.timeout_sec,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)64 * 1024,
	    MHD_OPTION_NOTIFY_COMPLETED, completed, h,
	    MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (h->d == NULL) {
		close(fd);
		http_free(h);
		return yi_error(YING_ESYS, "libmicrohttpd could not start the server "
		    "on port %d", h->port);
	}
	*out = h;
	return 0;
}

int
yi_http_listen_fd(const ying_http *h)
{
	const union MHD_DaemonInfo *di;

	if (h == NULL || h->d == NULL)
		return -1;
	di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_LISTEN_FD);
	return di ? (int)di->listen_fd : -1;
}

int
ying_http_port(const ying_http *h)
{
	if (h == NULL)
		return yi_error(YING_EINVAL, "ying_http_port: h is NULL");
	return h->port;
}

void
ying_http_stop(ying_http *h)
{
	MHD_socket ls;

	if (h == NULL)
		return;
	/* Stop accepting, wake waiting requests (they answer 503), give the
	 * requests in progress up to 2 s to finish sending, then tear down. */
	ls = MHD_quiesce_daemon(h->d);
	if (ls != MHD_INVALID_SOCKET)
		close(ls);
	pthread_mutex_lock(&h->stop_mtx);
	h->stopping = true;
	pthread_cond_broadcast(&h->stop_cv);
	pthread_mutex_unlock(&h->stop_mtx);
	for (int i = 0; i < 200 && atomic_load(&h->active) > 0; i++) {
		struct timespec ts = { 0, 10 * 1000000L };
		nanosleep(&ts, NULL);
	}
	MHD_stop_daemon(h->d);    /* joins every connection thread */
	http_free(h);
}
