/*
 * live_http.h: private to the embedded HTTP endpoint's files (live_http.c,
 * live_http_heap.c, live_http_diff.c, live_http_symbolz.c, live_http_param.c,
 * live_http_recent.c, live_http_giant.c, live_http_family.c,
 * live_http_history.c; not installed):
 * struct ying_http, the per-request state (hreq), the route table's
 * types, and the helpers and handlers one file offers the others.
 */
#ifndef YING_LIVE_HTTP_H
#define YING_LIVE_HTTP_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <time.h>

#include <microhttpd.h>

#include "live.h"

#define DEFAULT_BIND YI_HTTP_DEFAULT_BIND
#define SNAP_NAME_MAX 64
#define SMALL_BODY 4096          /* bodies of POSTs that take no body */
#define MAX_GROWTH_INFLIGHT 4    /* concurrent ?seconds=N requests */
#define MAX_SYMBOL_ADDRS 200000

/* Connections past max_connections that libmicrohttpd still accepts, so
 * that one can be evicted to make room (see yi_http_accept_policy). */
#define CONN_SLACK 32

/* Dump sharing (live_http_share.c; documented in ying-http(7)). */
#define YI_COALESCE_MS 250       /* a dump answers the requests of this window */
#define YI_PACE_FACTOR 3         /* a new dump waits 3x the last one's cost */
#define YI_RATE_BURST 64         /* dump requests per client address at once */
#define YI_RATE_PER_SEC 16       /* ... then this many a second */
#define YI_RATE_PEERS 64         /* client addresses remembered */
#define YI_INFLIGHT_CAP (64 << 20)    /* bytes of shared dumps being sent */
#define YI_STALL_SEC 5           /* a reader this long without progress: evictable */
#define YI_EVICT_IDLE_MS 250     /* ... a connection this long without a request */

/* What a connection is doing, for eviction: WAIT (no complete request:
 * just accepted, between keep-alive requests, or receiving a body),
 * RUN (a handler runs: never evicted), SEND (the answer is queued). */
enum { CONN_WAIT, CONN_RUN, CONN_SEND };

typedef struct yi_conn {
	struct MHD_Connection *c;
	yi_fdid id;                 /* closed by libmicrohttpd; checked before shutdown */
	int state;
	bool evicted;
	bool overflow;              /* accepted past max_connections: answered 503 */
	struct timespec since;      /* of the state (SEND: of the last progress) */
} yi_conn;

typedef struct yi_shbuf yi_shbuf;
struct yi_share;

typedef struct snapshot {
	char name[SNAP_NAME_MAX + 1];
	char *data;
	size_t len;
	int64_t time;
} snapshot;

struct yi_serve;

struct ying_http {
	/* no libmicrohttpd daemon here: one per connection, live_http_serve.c */
	int port;
	char *token;
	size_t token_len;
	char *allow_hosts;          /* comma-separated extra Host names, or NULL */
	char *frames;               /* the user's allocator frames, or NULL */
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

	pthread_mutex_t conn_mtx;   /* guards conns */
	yi_conn *conns;             /* the open connections, cap max + CONN_SLACK */
	size_t nconns, conn_cap;
	atomic_ulong evictions;
	struct yi_share *share;     /* shared dumps, pacing, rate limit (live_http_share.c) */
	/* Who may connect (live_http_access.c): true when only the process's
	 * own user and root are served (no token, not open, not insecure). */
	bool peer_check;
	/* A family member's endpoint (yi_http_member_start): on an abstract
	 * socket, serving only this process's ancestors, no token, no Host or
	 * Origin check (live_http_access.c). */
	bool member;
	yi_http_unix unix_sock;     /* a "unix:/PATH" endpoint's socket file */
	/* live_http_serve.c: our listener thread and its descriptors (yi_fdid:
	 * high numbers, checked before every use, closed in a forked child),
	 * the address to listen on again, the connection threads */
	pthread_t listener;
	bool listening;
	atomic_bool stop_listen;    /* the listener ends */
	atomic_bool closing;        /* the connection threads end */
	pthread_mutex_t wake_mtx;   /* guards replacing and writing `wake` */
	yi_fdid lfd, wake;
	struct sockaddr_storage laddr;
	socklen_t laddr_len;
	int relisten_tries;
	atomic_uint relistens;
	size_t nthreads;            /* connection threads, under conn_mtx */
	pthread_cond_t threads_cv;
	/* `ying serve`: the files served (live_serve.h), owned; their routes
	 * (live_http_offline.c) instead of the live ones.  NULL: a process's. */
	struct yi_serve *offline;
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
	bool sym_used;              /* h->sym was used: trimmed at completion */
	struct timespec t0;

	/* response */
	unsigned status;
	ying_membuf out;
	const char *ctype;
	char disposition[200];
	const char *allow;
	int retry_after;
	bool www_auth;
	bool close;                 /* Connection: close */
	yi_shbuf *shared;           /* the body, shared with other requests (or NULL) */
	char ctype_buf[128];        /* a relayed answer's Content-Type */
	char missing[256];          /* ?pid=all: members left out (X-Ying-Missing) */
	bool significant;           /* diffs: hide changes within noise */
	int by;                     /* text/json top: ying_granularity (?by=) */
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

/* ---- live_http.c */
void yi_http_out_add(hreq *q, const void *p, size_t n);
void yi_http_out_str(hreq *q, const char *s);
void YI_PRINTF(2, 3) yi_http_out_printf(hreq *q, const char *fmt, ...);
void YI_PRINTF(3, 4) yi_http_fail(hreq *q, unsigned status, const char *fmt, ...);
void yi_http_fail_rc(hreq *q, int rc, const char *what);
const char *yi_http_arg(hreq *q, const char *key);
bool yi_http_arg_index(hreq *q, ying_sample_index *idx);
/* Response formats: one table (names, content types, file names) in
 * live_http.c and one writer switch, yi_http_write. */
typedef enum yi_http_fmt {
	YI_HF_RAW, YI_HF_PPROF, YI_HF_FOLDED, YI_HF_SVG, YI_HF_TEXT, YI_HF_JSON,
	YI_HF_TREE              /* the live page's flame tree (write_tree.c) */
} yi_http_fmt;
/* ?format= among allowed[0..n) (allowed[0] when absent); -1 after a 400. */
int yi_http_arg_format(hreq *q, const yi_http_fmt *allowed, size_t n);
/* ?by=function|line|stack into q->by (the top table's rows); false after a
 * 400. */
bool yi_http_arg_by(hreq *q);
/* Write p (or, when d is not NULL, the diff d) as format f into the
 * response, setting its content type and file name.  limit: diff text rows. */
/* NOW minus BASE over sample index idx (both symbolized by the caller). */
static inline int yi_diff_of(ying_diff **d, const ying_profile *base,
    const ying_profile *now, ying_sample_index idx)
{
	ying_diff_build_opts o = YING_DIFF_BUILD_OPTS_INIT;

	o.sample_index = idx;
	return ying_diff_build(d, base, now, &o);
}

int yi_http_write(hreq *q, yi_http_fmt f, ying_profile *p, ying_diff *d,
    ying_sample_index idx, size_t limit);
bool yi_http_valid_snap_name(const char *s);
/* Where a snapshot is named, "report:NAME" names a growth report's dump
 * instead (live_http_diff.c; offline, the dump NAME). */
#define YI_HTTP_REPORT_PREFIX "report:"
void yi_http_set_filename(hreq *q, const char *ext);
bool yi_http_stopping(ying_http *h);
enum MHD_Result yi_http_handle(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload_data,
    size_t *upload_data_size, void **con_cls);
void yi_http_completed(void *cls, struct MHD_Connection *c, void **con_cls,
    enum MHD_RequestTerminationCode toe);
enum MHD_Result yi_http_accept_policy(void *cls, const struct sockaddr *addr, socklen_t len);
void yi_http_notify_conn(void *cls, struct MHD_Connection *c, void **socket_context,
    enum MHD_ConnectionNotificationCode toe);
/* The connection c is now in state (CONN_*), from its own thread. */
void yi_http_conn_state(ying_http *h, struct MHD_Connection *c, int state);
/* The answer on c made progress (restarts its stall clock). */
void yi_http_conn_progress(ying_http *h, struct MHD_Connection *c);
/* c was accepted past max_connections (to be answered 503). */
bool yi_http_conn_overflow(ying_http *h, struct MHD_Connection *c);
/* Content type and attachment name of format f (as yi_http_write sets them). */
void yi_http_set_type(hreq *q, yi_http_fmt f);
/* ---- live_http_page.c: GET / and /ui/... (the live page, live_page.h); queues
 * the answer (405 unless GET or HEAD, 304 on a matching If-None-Match). */
struct yi_page_asset;
enum MHD_Result yi_http_page_send(hreq *q, const struct yi_page_asset *a);
/* ---- live_http_access.c: who may use the endpoint */
/* Decide h->peer_check for the listening socket fd bound as opts says. */
void yi_http_peer_policy(ying_http *h, int fd, const ying_http_opts *opts);
/* At MHD_CONNECTION_NOTIFY_STARTED: judge the peer of connection fd once,
 * the verdict into *socket_context; at CLOSED: forget it. */
void yi_http_peer_judge(ying_http *h, int fd, void **socket_context);
void yi_http_peer_forget(void **socket_context);
/* May this request's connection be served?  false after a 403. */
bool yi_http_peer_allowed(hreq *q);
/* ---- live_http_param.c: the numeric query parameters, one table */
typedef enum yi_http_param_id {
	YI_PARAM_SECONDS,           /* GET /debug/pprof/heap growth */
	YI_PARAM_LG,                /* POST /debug/prof/sample */
	YI_PARAM_ON,                /* POST /debug/prof/active */
	YI_PARAM_MAX,               /* POST /debug/heap/recent */
	YI_PARAM_LIMIT,             /* GET /debug/heap/diff */
	YI_PARAM_SINCE,             /* GET /debug/heap/giant */
	YI_PARAM_SITES,             /* GET /debug/memory */
	YI_PARAM_SIGNIFICANT,       /* GET /debug/heap/diff */
	YI_PARAM_STACKS,            /* GET /debug/heap/leaks */
	YI_PARAM_COUNT
} yi_http_param_id;
typedef struct yi_http_param {
	const char *name;           /* the query key */
	const char *endpoint;       /* who takes it (index page) */
	int64_t lo, hi;             /* allowed, inclusive */
	int64_t def;                /* when absent and not required */
	bool required;
	const char *what;           /* what it means, for the 400 */
} yi_http_param;
const yi_http_param *yi_http_param_get(yi_http_param_id id);
/* The effective upper bound (seconds: also the server's max_seconds). */
int64_t yi_http_param_hi(const ying_http *h, yi_http_param_id id);
/* Strict decimal in [lo, hi]: digits only ('-' only when lo < 0), no
 * overflow.  false (and *out untouched) on anything else. */
bool yi_http_num_parse(const char *s, int64_t lo, int64_t hi, int64_t *out);
/* Parameter id of the request into *out (its default when absent and
 * optional); false after a 400 naming it and its range. */
bool yi_http_arg_num(hreq *q, yi_http_param_id id, int64_t *out);
/* The table as HTML rows, for the index page. */
void yi_http_params_html(hreq *q);
/* ---- live_http_serve.c */
/* Serve on listen_fd (taken: closed on failure) from our own threads. */
int yi_http_serve_start(ying_http *h, int listen_fd);
/* Stop accepting (joins the listener, closes its descriptors). */
void yi_http_serve_quiesce(ying_http *h);
/* End every connection and wait for their threads. */
void yi_http_serve_end(ying_http *h);
/* ---- live_http_heap.c */
bool yi_http_dump_begin(hreq *q);
void yi_http_dump_end(hreq *q);
ying_profile *yi_http_dump_profile(hreq *q, char **raw, size_t *rawlen);
/* The profile of heap dump bytes, symbolized with the shared symbolizer;
 * NULL after an error answer.  The caller frees it. */
ying_profile *yi_http_profile_of(hreq *q, const char *buf, size_t len);
/* ying_profile_symbolize with the endpoint's shared symbolizer and the
 * user's allocator frames (opts.frames); the error code. */
int yi_http_symbolize(ying_http *h, ying_profile *p);
void yi_http_ep_heap(hreq *q);
void yi_http_ep_pprof_heap_raw(hreq *q);
void yi_http_ep_pprof_heap(hreq *q);
void yi_http_ep_flamegraph(hreq *q);
void yi_http_ep_prof(hreq *q);
void yi_http_ep_prof_active(hreq *q);
void yi_http_ep_prof_sample(hreq *q);
void yi_http_ep_stats(hreq *q);
void yi_http_ep_memory(hreq *q);
/* ---- live_http_share.c */
int yi_http_share_new(ying_http *h);
void yi_http_share_free(ying_http *h);
/* Drop the cached answers (no request in flight: nothing pinned). */
void yi_http_share_idle(ying_http *h);
/* The body of format f (sample index idx) into q->shared: made once for the
 * requests of a window, paced, rate limited per client address, within the
 * in-flight cap.  false after failing q (429, 503, ...).  The caller holds
 * no dump lock.  q->shared is released by the response (or at completion). */
bool yi_http_shared_body(hreq *q, yi_http_fmt f, ying_sample_index idx);
/* A response streaming q->shared (which it then owns), or NULL. */
struct MHD_Response *yi_http_shared_response(hreq *q);
void yi_shbuf_put(yi_shbuf *b);
/* ,"dumps":{...} counters for /debug/prof. */
void yi_http_share_json(ying_http *h, yi_out *o);
/* ---- live_http_diff.c */
void yi_http_ep_snapshot(hreq *q);
void yi_http_ep_diff(hreq *q);
/* ---- live_http_leaks.c */
void yi_http_ep_leaks(hreq *q);
/* ---- live_http_symbolz.c */
void yi_http_ep_cmdline(hreq *q);
void yi_http_ep_symbol_jeprof(hreq *q);
void yi_http_ep_symbol_go(hreq *q);
/* ---- live_http_giant.c */
void yi_http_ep_giant(hreq *q);
/* ---- live_http_history.c */
void yi_http_ep_history(hreq *q);
void yi_http_ep_ui(hreq *q);
/* ---- live_http_diff.c: GET /debug/heap?snapshot=NAME: the kept
 * snapshot NAME (validated here: 400, 404) in format f instead of a dump. */
void yi_http_snap_write(hreq *q, const char *name, yi_http_fmt f, ying_sample_index idx);

/* ---- live_http_family.c: a service's processes (live_family.h) */
/* ?pid=N (a member: forwarded), ?pid=all (summed), a bad pid (400, 404):
 * true when q is answered here; false: serve it as always. */
bool yi_http_family_route(hreq *q);
void yi_http_ep_processes(hreq *q);
/* The index page's table of processes. */
void yi_http_index_processes(hreq *q);
/* ---- live_http_recent.c */
void yi_http_ep_recent(hreq *q);

/* ---- live_http_offline.c: `ying serve`'s routes over h->offline */
/* Set q->r to the offline route of q->url, true; false after failing q
 * (404 unknown or an endpoint of a process, 405 any method but GET). */
bool yi_http_offline_route(hreq *q);
/* A yi_out writing into q's response (NULL after a 500), and its end. */
yi_out *yi_http_offline_out(hreq *q);
void yi_http_offline_done(hreq *q, yi_out *o);
/* ---- live_http_offline_hist.c: GET /debug/history over the dumps */
void yi_http_offline_history(hreq *q);

#endif /* YING_LIVE_HTTP_H */
