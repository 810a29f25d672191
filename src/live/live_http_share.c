/*
 * live_http_share.c: what many clients asking for the heap at once cost
 * the host.  A dump answer (raw, pprof, folded, svg, text, json; per
 * sample index) is made once and shared: an immutable refcounted buffer
 * (yi_shbuf) that every request arriving while it is made, or within the
 * coalescing window after, answers with, streamed to each connection from
 * the one copy (MHD_create_response_from_callback).  New dumps are paced:
 * after one that took C ms of wall time, the next may start only 3C ms
 * later (a quarter of a core at most, whatever the number of clients).
 * Each client address has a token bucket of dump requests (429 with
 * Retry-After when empty).  The bytes of every live shared buffer (each
 * counted once, however many readers hold it) are capped: past the cap a
 * new dump is refused with 503 and Retry-After, so readers that never
 * read cannot make the host keep one copy each.
 */
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <microhttpd.h>

#include "live_http.h"

#define NFMT 7                   /* the yi_http_fmt formats */
#define NIDX 4
#define NBY 3                    /* text/json rows: function, line, stack */
#define SHARE_KEYS (NFMT * NIDX * NBY)

/* One body per format, sample index (not for raw and pprof, which hold
 * them all) and, for the top table, rows (?by=). */
static int
share_key(yi_http_fmt f, ying_sample_index idx, int by)
{
	bool all = f == YI_HF_RAW || f == YI_HF_PPROF, top = f == YI_HF_TEXT || f == YI_HF_JSON;

	return ((int)f * NIDX + (all ? 0 : (int)idx % NIDX)) * NBY + (top ? by % NBY : 0);
}

struct yi_shbuf {
	atomic_int refs;
	char *data;
	size_t len;
	atomic_size_t *inflight;    /* the server's count, less len when freed */
	struct timespec fresh_until;
};

typedef struct peer {
	unsigned char addr[16];
	int family;
	double tokens;
	struct timespec last;
} peer;

struct yi_share {
	pthread_mutex_t mtx;        /* guards everything below but the atomics */
	yi_shbuf *cache[SHARE_KEYS];
	size_t last_len[SHARE_KEYS];
	struct timespec next_ok;    /* no new dump before this */
	peer peers[YI_RATE_PEERS];
	size_t npeers;
	atomic_size_t inflight;
	atomic_ulong made, coalesced, limited, over_budget;
};

static double
ms_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

static struct timespec
ts_plus_ms(struct timespec t, double ms)
{
	long long ns = (long long)(ms * 1e6);

	t.tv_sec += (time_t)(ns / 1000000000LL);
	t.tv_nsec += (long)(ns % 1000000000LL);
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

static bool
before_ts(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

int
yi_http_share_new(ying_http *h)
{
	if ((h->share = yi_calloc(1, sizeof(*h->share))) == NULL)
		return yi_oom("starting the HTTP endpoint");
	pthread_mutex_init(&h->share->mtx, NULL);
	return 0;
}

void
yi_http_share_free(ying_http *h)
{
	if (h == NULL || h->share == NULL)
		return;
	yi_http_share_idle(h);
	pthread_mutex_destroy(&h->share->mtx);
	yi_free(h->share);
	h->share = NULL;
}

void
yi_shbuf_put(yi_shbuf *b)
{
	if (b == NULL || atomic_fetch_sub(&b->refs, 1) != 1)
		return;
	atomic_fetch_sub(b->inflight, b->len);
	yi_free(b->data);
	yi_free(b);
}

static yi_shbuf *
shbuf_get(yi_shbuf *b)
{
	atomic_fetch_add(&b->refs, 1);
	return b;
}

void
yi_http_share_idle(ying_http *h)
{
	yi_shbuf *drop[SHARE_KEYS];
	size_t n = 0;

	if (h->share == NULL)
		return;
	pthread_mutex_lock(&h->share->mtx);
	for (size_t i = 0; i < SHARE_KEYS; i++)
		if (h->share->cache[i]) {
			drop[n++] = h->share->cache[i];
			h->share->cache[i] = NULL;
		}
	pthread_mutex_unlock(&h->share->mtx);
	while (n > 0)
		yi_shbuf_put(drop[--n]);
}

/* The fresh entry for key, referenced, or NULL; `since`: also accept an
 * entry made after that time (it was made while the caller waited). */
static yi_shbuf *
lookup(struct yi_share *s, int key, const struct timespec *since)
{
	struct timespec now;
	yi_shbuf *b, *stale = NULL;

	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&s->mtx);
	b = s->cache[key];
	if (b && (before_ts(&now, &b->fresh_until) ||
	    (since && before_ts(since, &b->fresh_until)))) {
		shbuf_get(b);
	} else {
		stale = b;
		s->cache[key] = NULL;
		b = NULL;
	}
	pthread_mutex_unlock(&s->mtx);
	yi_shbuf_put(stale);
	return b;
}

/* Per client address: YI_RATE_BURST dump requests, refilled at
 * YI_RATE_PER_SEC a second.  false after a 429. */
static bool
rate_ok(hreq *q)
{
	struct yi_share *s = q->h->share;
	const union MHD_ConnectionInfo *ci;
	unsigned char addr[16] = { 0 };
	int family = 0;
	struct timespec now;
	peer *p = NULL;
	double wait = 0;

	ci = MHD_get_connection_info(q->c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (ci && ci->client_addr) {
		family = ci->client_addr->sa_family;
		if (family == AF_INET)
			memcpy(addr, &((const struct sockaddr_in *)(const void *)
			    ci->client_addr)->sin_addr, 4);
		else if (family == AF_INET6)
			memcpy(addr, &((const struct sockaddr_in6 *)(const void *)
			    ci->client_addr)->sin6_addr, 16);
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&s->mtx);
	for (size_t i = 0; i < s->npeers && p == NULL; i++)
		if (s->peers[i].family == family && memcmp(s->peers[i].addr, addr, 16) == 0)
			p = &s->peers[i];
	if (p == NULL) {
		if (s->npeers < YI_RATE_PEERS) {
			p = &s->peers[s->npeers++];
		} else {            /* forget the client seen longest ago */
			p = &s->peers[0];
			for (size_t i = 1; i < s->npeers; i++)
				if (before_ts(&s->peers[i].last, &p->last))
					p = &s->peers[i];
		}
		memcpy(p->addr, addr, 16);
		p->family = family;
		p->tokens = YI_RATE_BURST;
		p->last = now;
	}
	p->tokens += ms_between(&p->last, &now) / 1e3 * YI_RATE_PER_SEC;
	if (p->tokens > YI_RATE_BURST)
		p->tokens = YI_RATE_BURST;
	p->last = now;
	if (p->tokens >= 1)
		p->tokens -= 1;
	else
		wait = (1 - p->tokens) / YI_RATE_PER_SEC;
	pthread_mutex_unlock(&s->mtx);
	if (wait <= 0)
		return true;
	atomic_fetch_add(&s->limited, 1);
	q->retry_after = (int)ceil(wait);
	yi_http_fail(q, 429, "too many heap dump requests from this address (at most "
	    "%d at once, then %d a second); retry after %d s", YI_RATE_BURST,
	    YI_RATE_PER_SEC, q->retry_after);
	return false;
}

/* Make the body for (f, idx) into q->out; dump lock held.  false after
 * failing q. */
static bool
produce(hreq *q, yi_http_fmt f, ying_sample_index idx)
{
	yi_shbuf *raw;
	ying_profile *p = NULL;
	char *buf;
	size_t len;
	int rc;

	if (f == YI_HF_RAW) {
		if ((rc = ying_ctl_dump_mem(&buf, &len)) != 0) {
			yi_http_fail_rc(q, rc, "heap dump failed");
			return false;
		}
		ying_membuf_release(&q->out);
		q->out.data = buf;
		q->out.len = q->out.cap = len;
		return true;
	}
	/* the raw dump of this window, if another format made one */
	if ((raw = lookup(q->h->share, share_key(YI_HF_RAW, 0, 0), NULL)) != NULL) {
		p = yi_http_profile_of(q, raw->data, raw->len);
		yi_shbuf_put(raw);
		if (p == NULL)
			return false;
	} else if ((p = yi_http_dump_profile(q, NULL, NULL)) == NULL) {
		return false;
	}
	rc = yi_http_write(q, f, p, NULL, idx, 0);
	ying_profile_free(p);
	if (rc != 0) {
		yi_http_fail_rc(q, rc, "writing the profile failed");
		return false;
	}
	return true;
}

bool
yi_http_shared_body(hreq *q, yi_http_fmt f, ying_sample_index idx)
{
	struct yi_share *s = q->h->share;
	int key = share_key(f, idx, q->by);
	struct timespec arrived, now, t1;
	yi_shbuf *b, *old;
	size_t est, inflight;
	double pace_ms, cost;

	if (!rate_ok(q))
		return false;
	clock_gettime(CLOCK_MONOTONIC, &arrived);
	if ((b = lookup(s, key, NULL)) != NULL)
		goto hit;
	if (!yi_http_dump_begin(q))
		return false;
	/* made while we waited for the lock: the same dump for everyone */
	if ((b = lookup(s, key, &arrived)) != NULL) {
		yi_http_dump_end(q);
		goto hit;
	}
	pthread_mutex_lock(&s->mtx);
	est = s->last_len[key];
	clock_gettime(CLOCK_MONOTONIC, &now);
	pace_ms = before_ts(&now, &s->next_ok) ? ms_between(&now, &s->next_ok) : 0;
	pthread_mutex_unlock(&s->mtx);
	inflight = atomic_load(&s->inflight);
	if (inflight > 0 && inflight + est > YI_INFLIGHT_CAP) {
		yi_http_dump_end(q);
		atomic_fetch_add(&s->over_budget, 1);
		q->retry_after = 2;
		yi_http_fail(q, 503, "%zu MiB of heap dumps are still being sent to "
		    "clients (at most %d MiB in flight); retry shortly", inflight >> 20,
		    YI_INFLIGHT_CAP >> 20);
		return false;
	}
	if (pace_ms > (double)q->h->o.busy_wait_ms) {
		yi_http_dump_end(q);
		q->retry_after = (int)ceil(pace_ms / 1e3);
		yi_http_fail(q, 503, "heap dumps are paced (the last one was costly); "
		    "retry after %d s", q->retry_after);
		return false;
	}
	if (pace_ms > 0) {
		struct timespec ts = ts_plus_ms((struct timespec){ 0, 0 }, pace_ms);
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!produce(q, f, idx)) {
		yi_http_dump_end(q);
		return false;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cost = ms_between(&now, &t1);
	if ((b = yi_calloc(1, sizeof(*b))) == NULL) {
		yi_http_dump_end(q);
		return true;            /* q->out holds the body: send it unshared */
	}
	atomic_init(&b->refs, 2);   /* the cache's and this request's */
	b->data = q->out.data;
	b->len = q->out.len;
	b->inflight = &s->inflight;
	atomic_fetch_add(&s->inflight, b->len);
	b->fresh_until = ts_plus_ms(t1, fmax(YI_COALESCE_MS, 3 * cost));
	q->out.data = NULL;
	q->out.len = q->out.cap = 0;
	pthread_mutex_lock(&s->mtx);
	old = s->cache[key];
	s->cache[key] = b;
	s->last_len[key] = b->len;
	s->next_ok = ts_plus_ms(t1, YI_PACE_FACTOR * cost);
	pthread_mutex_unlock(&s->mtx);
	yi_shbuf_put(old);
	atomic_fetch_add(&s->made, 1);
	yi_http_dump_end(q);
	q->shared = b;
	return true;
hit:
	atomic_fetch_add(&s->coalesced, 1);
	q->shared = b;
	return true;
}

/* ---- streaming a shared buffer ------------------------------------------------ */

typedef struct stream {
	yi_shbuf *b;
	ying_http *h;
	struct MHD_Connection *c;
} stream;

static ssize_t
stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	stream *st = cls;
	size_t n;

	if (pos >= st->b->len)
		return MHD_CONTENT_READER_END_OF_STREAM;
	n = st->b->len - (size_t)pos;
	if (n > max)
		n = max;
	memcpy(buf, st->b->data + pos, n);
	yi_http_conn_progress(st->h, st->c);
	return (ssize_t)n;
}

static void
stream_free(void *cls)
{
	stream *st = cls;

	yi_shbuf_put(st->b);
	yi_free(st);
}

struct MHD_Response *
yi_http_shared_response(hreq *q)
{
	struct MHD_Response *r;
	stream *st = yi_calloc(1, sizeof(*st));

	if (st == NULL)
		return NULL;
	st->b = q->shared;
	st->h = q->h;
	st->c = q->c;
	r = MHD_create_response_from_callback(st->b->len, 64 * 1024, stream_read, st,
	    stream_free);
	if (r == NULL) {
		yi_free(st);
		return NULL;
	}
	q->shared = NULL;       /* the response's now */
	return r;
}

void
yi_http_share_json(ying_http *h, yi_out *o)
{
	struct yi_share *s = h->share;

	yi_out_printf(o, ",\"dumps\":{\"made\":%lu,\"coalesced\":%lu,\"rate_limited\":%lu,"
	    "\"over_budget\":%lu,\"inflight_bytes\":%zu}",
	    (unsigned long)atomic_load(&s->made), (unsigned long)atomic_load(&s->coalesced),
	    (unsigned long)atomic_load(&s->limited),
	    (unsigned long)atomic_load(&s->over_budget), atomic_load(&s->inflight));
}
