/*
 * live_pyro.h: private to the Pyroscope uploader's files (not installed):
 * live_pyro_req.c builds requests (options and ying_pyroscope_check,
 * labels, the push body, the ingest query and multipart body, UUIDs, the
 * backoff schedule), live_pyro_http.c sends them with libcurl (one request,
 * the retries, the one-shot ying_pyroscope_upload), live_pyro.c is the
 * uploader (threads, queue, counters, start/stop/stats).
 */
#ifndef YING_LIVE_PYRO_H
#define YING_LIVE_PYRO_H

#include <stdatomic.h>

#include "live.h"

#define YI_PYRO_INTERVAL 15.0       /* seconds between uploads */
#define YI_PYRO_TIMEOUT 10.0        /* seconds per request */
#define YI_PYRO_QUEUE 4             /* profiles waiting */
#define YI_PYRO_QUEUE_MAX 1024
#define YI_PYRO_RETRIES 4           /* retries per profile */
#define YI_PYRO_MAX_TAGS 24
#define YI_PYRO_BACKOFF_BASE 1.0    /* first retry after 0.5..1 s */
#define YI_PYRO_BACKOFF_CAP 30.0    /* never more than 30 s */
#define YI_PYRO_MAX_SAMPLES 16000   /* Pyroscope's default samples_limit */
#define YI_PYRO_MAX_BYTES ((size_t)2 << 20) /* its per-profile ingestion burst */
#define YI_PYRO_MAX_AGE 3600.0      /* its reject-older-than */

typedef enum { YI_PYRO_PUSH = 0, YI_PYRO_INGEST = 1 } yi_pyro_api;

typedef struct yi_pyro_label {
	char *name, *value;
} yi_pyro_label;

/* Checked options, every string a private copy (yi_pyro_cfg_init). */
typedef struct yi_pyro_cfg {
	char *url;          /* base URL, no trailing '/' */
	char *url_name;     /* the URL for messages (user:password hidden) */
	char *service;
	yi_pyro_api api;
	YI_VEC(yi_pyro_label) tags;     /* the user's, in their order */
	char *hostname;
	char session[17];   /* __session_id__; "" = none (one-shot uploads) */
	size_t max_samples, max_bytes;
	double max_age;     /* < 0: no check */
	double interval, timeout;
	int queue, retries;
	char *user, *password, *token, *tenant;
	char *frames;       /* the user's allocator frames, or NULL */
	YI_VEC(char *) headers;
	FILE *log;
} yi_pyro_cfg;

/* Check o and copy it into c (defaults filled in, hostname and pid
 * taken now); YING_EINVAL names the bad field.  Release with
 * yi_pyro_cfg_release (also after a failure). */
int yi_pyro_cfg_init(yi_pyro_cfg *c, const ying_pyroscope_opts *o);
void yi_pyro_cfg_release(yi_pyro_cfg *c);

/* Every label of a push series, in order: __name__=memory, service_name,
 * the tags, hostname, __session_id__ (unless c->session is ""),
 * __delta__=false.  *out is yi_malloc'd (the strings point into c); free
 * it with yi_free. */
int yi_pyro_labels(const yi_pyro_cfg *c, yi_pyro_label **out, size_t *n);
/* The bytes the series labels add to a profile (Pyroscope counts them
 * against its per-profile burst): names and values, a little per pair. */
size_t yi_pyro_labels_size(const yi_pyro_cfg *c);

/* A profile as it is sent: folded to c's limits, alloc_* as the caller
 * left them, no "bytes" label, time_nanos = until_ms, duration_nanos =
 * until_ms - from_ms (0: none), gzipped pprof into *out; comment (may be
 * NULL) as the profile's comment.  *fst: what the folding did.  A profile
 * that does not fit even folded: YING_ELIMIT (the detail says the sizes). */
int yi_pyro_pprof(const yi_pyro_cfg *c, const ying_profile *p, int64_t from_ms,
    int64_t until_ms, const char *comment, ying_membuf *out, ying_fold_stats *fst);

/* One request, ready to send: every field yi_malloc'd. */
typedef struct yi_pyro_req {
	char *url;
	char *ctype;        /* the Content-Type header value */
	unsigned char *body;
	size_t len;
} yi_pyro_req;
/* The request carrying `pprof` (len bytes, gzipped profile.proto) for
 * the configured API; from/until: milliseconds since the epoch.  Release with
 * yi_pyro_req_release (also after a failure). */
int yi_pyro_req_build(yi_pyro_req *r, const yi_pyro_cfg *c, const void *pprof,
    size_t len, int64_t from, int64_t until);
void yi_pyro_req_release(yi_pyro_req *r);

/* A random (version 4) UUID, "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx". */
void yi_pyro_uuid(char out[37]);
/* A uniform random number in [0, 1). */
double yi_pyro_random(void);
/* Seconds to wait before retry number `attempt` (1, 2, ...): the
 * exponential step min(CAP, BASE * 2^(attempt-1)) times (0.5 + rnd / 2),
 * rnd in [0, 1): "equal jitter", never less than half the step. */
double yi_pyro_backoff(int attempt, double rnd);

/* ---- live_pyro_http.c: one request */
typedef struct yi_pyro_result {
	long status;        /* HTTP status; 0 when none came */
	bool retryable;     /* 429, 5xx, network: worth another try */
	double duration;    /* seconds */
	double retry_after; /* the server's Retry-After, seconds; 0 = none */
} yi_pyro_result;
/* Send r; 0 on a 2xx answer, else YING_EIO (YING_ENOTSUP without
 * libcurl) with the detail naming the URL and the status or network
 * error.  abort_ms (may be NULL): a CLOCK_MONOTONIC time in ms after which
 * the transfer is abandoned (0 = none), for stop. */
int yi_pyro_send(const yi_pyro_cfg *c, const yi_pyro_req *r,
    const atomic_llong *abort_ms, yi_pyro_result *res);
/* CLOCK_MONOTONIC in seconds. */
double yi_pyro_now(void);
/* What the caller of yi_pyro_deliver sees of its tries (all may be NULL). */
typedef struct yi_pyro_hooks {
	void *opaque;
	const atomic_llong *abort_ms;   /* for yi_pyro_send */
	/* after each attempt: its result and the request's body length */
	void (*attempt)(void *opaque, int rc, const yi_pyro_result *res, size_t len);
	/* wait `delay` seconds before the next retry; false: give up */
	bool (*wait)(void *opaque, double delay);
} yi_pyro_hooks;
/* Build the request for `pprof` and send it, retrying 429, 5xx and
 * network errors up to c->retries times after yi_pyro_backoff's delays
 * (or the server's Retry-After, within the same cap).  h NULL: sleep
 * between tries.  0, or the last error. */
int yi_pyro_deliver(const yi_pyro_cfg *c, const void *pprof, size_t len,
    int64_t from_ms, int64_t until_ms, const yi_pyro_hooks *h);
/* Milliseconds since the epoch (CLOCK_REALTIME). */
int64_t yi_pyro_epoch_ms(void);

#endif /* YING_LIVE_PYRO_H */
