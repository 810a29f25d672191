/*
 * live_http_listen.c: the embedded HTTP endpoint's listener and life
 * cycle: the listening socket (loopback unless told otherwise), the
 * libmicrohttpd daemon in thread-per-connection mode, the connection
 * table that lets a new client evict an idle one, ying_http_start,
 * ying_http_stop (which waits for requests in flight) and the accessors.
 * The address parsing and the listening socket are in live_http_addr.c
 * (plain sockets, no libmicrohttpd), shared with ying_http_check.
 * The threads that accept and serve connections, and the descriptors
 * they own, are in live_http_serve.c (libmicrohttpd runs no thread of its
 * own: a program closing its descriptors must never have one used).
 * Every descriptor of the server is registered with yi_fd_own (base_fd.c),
 * so a forked child closes its copies at once.
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
#include <sys/stat.h>

#include <microhttpd.h>

#include "live_family.h"
#include "live_http.h"
#include "live_serve.h"

/* ---- the connection table ---------------------------------------------------- */

/* Idle connections must not lock the endpoint out: 64 clients that connect
 * and send nothing (or half a request, or a byte a second) used to hold
 * every slot until the 30 s timeout, and the next client was refused.
 * libmicrohttpd accepts up to max_connections + CONN_SLACK; the accept
 * policy makes room for a new client beyond max_connections by evicting the
 * connection that has waited longest (at least YI_EVICT_IDLE_MS) without a
 * complete request, else the answer stalled longest (YI_STALL_SEC without
 * progress); a running handler and a moving answer are never evicted:
 * shutdown(2) of its socket wakes its thread, which closes it.  With no
 * victim the client is accepted all the same, marked overflow, and its
 * request is answered 503 (yi_http_handle), not left unanswered.  The
 * descriptor is safe to use under conn_mtx: libmicrohttpd notifies
 * MHD_CONNECTION_NOTIFY_CLOSED, which drops the entry under that lock,
 * before it closes the socket. */

static yi_conn *
conn_find(ying_http *h, struct MHD_Connection *c)
{
	for (size_t i = 0; i < h->nconns; i++)
		if (h->conns[i].c == c)
			return &h->conns[i];
	return NULL;
}

static bool
older(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

void
yi_http_notify_conn(void *cls, struct MHD_Connection *c, void **socket_context,
    enum MHD_ConnectionNotificationCode toe)
{
	ying_http *h = cls;
	const union MHD_ConnectionInfo *ci;
	yi_conn *k;

	/* Connections are registered (yi_fd_own: closed in a forked child)
	 * when accepted (live_http_serve.c); disowned before libmicrohttpd
	 * closes them. */
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (ci != NULL && toe != MHD_CONNECTION_NOTIFY_STARTED)
		yi_fd_disown((int)ci->connect_fd);
	/* who is at the other end: judged once (live_http_access.c) */
	if (toe == MHD_CONNECTION_NOTIFY_STARTED)
		yi_http_peer_judge(h, ci ? (int)ci->connect_fd : -1, socket_context);
	else
		yi_http_peer_forget(socket_context);
	pthread_mutex_lock(&h->conn_mtx);
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		if (ci != NULL && h->nconns < h->conn_cap) {
			size_t live = 0;
			for (size_t i = 0; i < h->nconns; i++)
				live += !h->conns[i].evicted && !h->conns[i].overflow;
			k = &h->conns[h->nconns++];
			k->overflow = live >= h->o.max_connections;
			k->c = c;
			struct stat st;
			k->id.fd = -1;
			if (fstat((int)ci->connect_fd, &st) == 0) {
				k->id.fd = (int)ci->connect_fd;
				k->id.dev = st.st_dev;
				k->id.ino = st.st_ino;
			}
			k->state = CONN_WAIT;
			k->evicted = false;
			clock_gettime(CLOCK_MONOTONIC, &k->since);
		}
	} else if ((k = conn_find(h, c)) != NULL) {
		*k = h->conns[--h->nconns];     /* its socket is closed next */
	}
	pthread_mutex_unlock(&h->conn_mtx);
}

void
yi_http_conn_progress(ying_http *h, struct MHD_Connection *c)
{
	yi_conn *k;

	pthread_mutex_lock(&h->conn_mtx);
	if ((k = conn_find(h, c)) != NULL)
		clock_gettime(CLOCK_MONOTONIC, &k->since);
	pthread_mutex_unlock(&h->conn_mtx);
}

bool
yi_http_conn_overflow(ying_http *h, struct MHD_Connection *c)
{
	yi_conn *k;
	bool o;

	pthread_mutex_lock(&h->conn_mtx);
	o = (k = conn_find(h, c)) != NULL && k->overflow;
	pthread_mutex_unlock(&h->conn_mtx);
	return o;
}

void
yi_http_conn_state(ying_http *h, struct MHD_Connection *c, int state)
{
	yi_conn *k;

	pthread_mutex_lock(&h->conn_mtx);
	if ((k = conn_find(h, c)) != NULL && k->state != state) {
		k->state = state;
		clock_gettime(CLOCK_MONOTONIC, &k->since);
	}
	pthread_mutex_unlock(&h->conn_mtx);
}

enum MHD_Result
yi_http_accept_policy(void *cls, const struct sockaddr *addr, socklen_t len)
{
	ying_http *h = cls;
	yi_conn *victim = NULL;
	size_t live = 0;
	enum MHD_Result ret = MHD_YES;

	struct timespec now;

	YI_UNUSED(addr);
	YI_UNUSED(len);
	yi_ctl_quiet_thread();
	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&h->conn_mtx);
	for (size_t i = 0; i < h->nconns; i++) {
		yi_conn *k = &h->conns[i];
		if (k->evicted || k->overflow)
			continue;
		live++;
		/* a running handler and an answer still moving are never cut
		 * off (only one stalled YI_STALL_SEC), nor a connection just
		 * accepted whose request may be on its way */
		if (k->state == CONN_RUN || (k->state == CONN_SEND &&
		    now.tv_sec - k->since.tv_sec < YI_STALL_SEC) ||
		    (k->state == CONN_WAIT && (double)(now.tv_sec - k->since.tv_sec) * 1e3 +
		    (double)(now.tv_nsec - k->since.tv_nsec) / 1e6 < YI_EVICT_IDLE_MS))
			continue;
		/* WAIT before SEND, then the oldest */
		if (victim == NULL || (k->state == CONN_WAIT && victim->state != CONN_WAIT) ||
		    (k->state == victim->state && older(&k->since, &victim->since)))
			victim = k;
	}
	if (live >= h->o.max_connections) {
		if (victim != NULL) {
			if (yi_fdid_ok(&victim->id))
				shutdown(victim->id.fd, SHUT_RDWR);
			victim->evicted = true;
			atomic_fetch_add(&h->evictions, 1);
		} else {
			/* every slot is busy: accepted all the same (up to CONN_SLACK
			 * more), to be answered 503 rather than closed */
			ret = h->nconns < h->conn_cap ? MHD_YES : MHD_NO;
		}
	}
	pthread_mutex_unlock(&h->conn_mtx);
	return ret;
}

/* ---- start / stop ------------------------------------------------------------ */

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
	yi_http_share_free(h);
	yi_serve_free(h->offline);
	yi_live_sym_put(h->sym);
	yi_free(h->allow_hosts);
	yi_free(h->frames);
	if (h->token) {
		memset(h->token, 0, h->token_len);
		yi_free(h->token);
	}
	pthread_mutex_destroy(&h->dump_mtx);
	pthread_mutex_destroy(&h->snap_mtx);
	pthread_mutex_destroy(&h->stop_mtx);
	pthread_cond_destroy(&h->stop_cv);
	pthread_mutex_destroy(&h->conn_mtx);
	pthread_mutex_destroy(&h->wake_mtx);
	pthread_cond_destroy(&h->threads_cv);
	yi_free(h->conns);
	yi_free(h);
}

static int http_start(ying_http **out, const ying_http_opts *opts, bool member,
    yi_serve *offline);

/* offline: `ying serve`'s files (taken, freed on failure), or NULL. */
static int
start(ying_http **out, const ying_http_opts *opts, bool member, yi_serve *offline)
{
	ying_http_opts def = YING_HTTP_OPTS_INIT;
	int rc, was_active;

	if (out == NULL)
		return yi_error(YING_EINVAL, "ying_http_start: out is NULL");
	*out = NULL;
	if (opts == NULL)
		opts = &def;
	if ((rc = yi_http_check_opts(opts)) != 0) {
		yi_serve_free(offline);
		return rc;
	}
	/* What we allocate while starting is the server's, not the caller's:
	 * keep the calling thread from sampling it. */
	if (ying_ctl_thread_active(&was_active, 0) != 0) {
		was_active = -1;
		yi_error_clear();
	}
	rc = http_start(out, opts, member, offline);
	if (was_active > 0)
		ying_ctl_thread_active(NULL, 1);
	return rc;
}

int
ying_http_start(ying_http **out, const ying_http_opts *opts)
{
	yi_error_clear();
	return start(out, opts, false, NULL);
}

int
ying_http_serve_files(ying_http **out, const ying_http_opts *http,
    const char *const *inputs, size_t n, const ying_serve_opts *opts)
{
	yi_serve *s = NULL;
	int rc;

	yi_error_clear();
	if (out == NULL)
		return yi_error(YING_EINVAL, "ying_http_serve_files: out is NULL");
	*out = NULL;
	if (opts != NULL && opts->version != YING_SERVE_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_serve_opts: version %d, expected %d",
		    opts->version, YING_SERVE_OPTS_VERSION);
	if (http != NULL && (rc = yi_http_check_opts(http)) != 0)
		return rc;
	if ((rc = yi_serve_new(&s, inputs, n, opts)) != 0)
		return rc;
	return start(out, http, false, s);
}

int
yi_http_member_start(ying_http **out, const ying_http_opts *opts)
{
	ying_http_opts o = YING_HTTP_OPTS_INIT;
	char bind[96];

	yi_error_clear();
	if (yi_family_id()[0] == '\0')
		return yi_error(YING_EINVAL, "a member's endpoint needs a family "
		    "(yi_family_set first)");
	if (opts != NULL) {
		if (opts->version != YING_HTTP_OPTS_VERSION)
			return yi_http_check_opts(opts);
		o = *opts;
	}
	yi_family_bind_name(bind, sizeof(bind), yi_family_id(), getpid());
	o.bind = bind;
	o.token = NULL;         /* the head judged its client */
	o.open = 0;
	o.insecure = 0;
	o.allow_hosts = NULL;
	return start(out, &o, true, NULL);
}

static int
http_start(ying_http **out, const ying_http_opts *opts, bool member, yi_serve *offline)
{
	ying_http *h;
	int rc, fd = -1, family = AF_INET;

	if ((h = yi_calloc(1, sizeof(*h))) == NULL) {
		yi_serve_free(offline);
		return yi_oom("starting the HTTP endpoint");
	}
	yi_http_opts_copy(&h->o, opts);
	h->member = member;
	h->offline = offline;       /* freed with h */
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
	pthread_mutex_init(&h->conn_mtx, NULL);
	pthread_mutex_init(&h->wake_mtx, NULL);
	pthread_cond_init(&h->threads_cv, NULL);
	{
		pthread_condattr_t ca;
		pthread_condattr_init(&ca);
		pthread_cond_init(&h->stop_cv, &ca);
		pthread_condattr_destroy(&ca);
	}
	h->o.bind = NULL;     /* not retained */
	h->lfd.fd = h->wake.fd = -1;
	program_name(h->program, sizeof(h->program));
	if (opts->token) {
		h->token_len = strlen(opts->token);
		if ((h->token = yi_strdup(opts->token)) == NULL) {
			http_free(h);
			return yi_oom("copying the token");
		}
	}
	h->o.token = NULL;
	if (yi_http_share_new(h) != 0) {
		http_free(h);
		return YING_ENOMEM;
	}
	h->conn_cap = (size_t)h->o.max_connections + CONN_SLACK;
	if ((h->conns = yi_calloc(h->conn_cap, sizeof(*h->conns))) == NULL) {
		http_free(h);
		return yi_oom("starting the HTTP endpoint");
	}
	if (opts->allow_hosts && opts->allow_hosts[0] &&
	    (h->allow_hosts = yi_strdup(opts->allow_hosts)) == NULL) {
		http_free(h);
		return yi_oom("copying the allowed hosts");
	}
	h->o.allow_hosts = NULL;
	if (opts->frames && opts->frames[0] && (h->frames = yi_strdup(opts->frames)) == NULL) {
		http_free(h);
		return yi_oom("copying the allocator frames");
	}
	h->o.frames = NULL;
	if ((rc = yi_live_sym_get(&h->sym)) != 0) {
		http_free(h);
		return rc;
	}
	if (yi_http_is_unix(opts->bind)) {
		family = AF_UNIX;
		rc = yi_http_unix_listen(opts->bind, &fd, &h->unix_sock);
	} else {
		rc = yi_http_listen(opts->bind && opts->bind[0] ? opts->bind : DEFAULT_BIND,
		    &fd, &family, &h->port);
	}
	if (rc != 0) {
		http_free(h);
		return rc;
	}
	yi_http_peer_policy(h, fd, opts);
	if ((rc = yi_http_bind_policy(fd, opts, opts->bind && opts->bind[0] ? opts->bind :
	    DEFAULT_BIND)) != 0) {
		close(fd);
		yi_http_unix_remove(&h->unix_sock);
		http_free(h);
		return rc;
	}
	if ((rc = yi_http_serve_start(h, fd)) != 0) {
		yi_http_unix_remove(&h->unix_sock);
		http_free(h);
		return rc;
	}
	*out = h;
	return 0;
}

int
yi_http_listen_fd(const ying_http *h)
{
	return h != NULL && yi_fdid_ok(&h->lfd) ? h->lfd.fd : -1;
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
	if (h == NULL)
		return;
	/* Stop accepting, wake waiting requests (they answer 503), give the
	 * requests in progress up to 2 s to finish sending, then end every
	 * connection.  No descriptor is touched unless it still is ours. */
	yi_http_serve_quiesce(h);
	yi_http_unix_remove(&h->unix_sock);     /* "unix:/PATH": the file goes too */
	pthread_mutex_lock(&h->stop_mtx);
	h->stopping = true;
	pthread_cond_broadcast(&h->stop_cv);
	pthread_mutex_unlock(&h->stop_mtx);
	for (int i = 0; i < 200 && atomic_load(&h->active) > 0; i++) {
		struct timespec ts = { 0, 10 * 1000000L };
		nanosleep(&ts, NULL);
	}
	yi_http_serve_end(h);     /* waits for every connection thread */
	http_free(h);
}
