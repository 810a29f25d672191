/*
 * live_http_serve.c: the HTTP endpoint's own threads, which own every
 * descriptor of the server, so that a program that closes its descriptors
 * (a daemon closing every fd >= 3, close_range, closefrom) and reuses the
 * numbers for its own files never has one of them read, written, polled
 * or closed by the endpoint.
 *
 * libmicrohttpd's internal threads kept descriptors ying cannot check: its
 * wake-up eventfd, written on every connection's end, on quiesce and on
 * stop (into the program's file once the number was reused; and it aborts
 * the program when the write fails: "failed to signal quiesce"), and the
 * listening socket it polled (POLLNVAL once closed: a core at 100 %).  So
 * libmicrohttpd no longer runs a thread nor holds a long-lived descriptor:
 *
 *  - the listener thread (ours) polls the listening socket and its wake-up
 *    eventfd, both yi_fdid (high numbers, device and inode checked before
 *    every use, and every CHECK_MS while idle).  A lost wake-up is replaced;
 *    a lost listening socket is forgotten (never closed: it may be the
 *    program's now) and the endpoint listens again on the same address and
 *    port, saying so in one line on stderr, or says once that it stopped;
 *  - each accepted connection gets a thread of its own (as before: a slow
 *    request holds only its connection) running a libmicrohttpd daemon in
 *    external mode with no listening socket (epoll: no wake-up eventfd)
 *    that serves that one connection; before every libmicrohttpd call the
 *    thread checks the connection and the epoll descriptor, and abandons
 *    the daemon without calling into it again when one was lost.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <microhttpd.h>

#include "live_http.h"
#include "live_history.h"

#define CHECK_MS 1000          /* idle wake-up: the descriptors are checked */
#define RELISTEN_TRIES 5

typedef struct conn_job {
	ying_http *h;
	yi_fdid fd;
	struct sockaddr_storage sa;
	socklen_t salen;
} conn_job;


/* Drop the table entry of the connection id (its daemon was abandoned:
 * libmicrohttpd will not say it closed). */
static void
conn_drop(ying_http *h, const yi_fdid *id)
{
	pthread_mutex_lock(&h->conn_mtx);
	for (size_t i = 0; i < h->nconns; i++)
		if (h->conns[i].id.fd == id->fd && h->conns[i].id.dev == id->dev &&
		    h->conns[i].id.ino == id->ino) {
			h->conns[i] = h->conns[--h->nconns];
			break;
		}
	pthread_mutex_unlock(&h->conn_mtx);
}

static void *
conn_main(void *arg)
{
	conn_job *j = arg;
	ying_http *h = j->h;
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *di;
	yi_fdid ep = { -1, 0, 0 };
	unsigned flags = MHD_USE_EPOLL | MHD_USE_NO_LISTEN_SOCKET;
	bool lost = false, closed = false;

	yi_ctl_quiet_thread();
	if (j->sa.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	d = MHD_start_daemon(flags, 0, NULL, NULL, yi_http_handle, h,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)h->o.timeout_sec,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)64 * 1024,
	    MHD_OPTION_NOTIFY_COMPLETED, yi_http_completed, h,
	    MHD_OPTION_NOTIFY_CONNECTION, yi_http_notify_conn, h,
	    MHD_OPTION_END);
	if (d == NULL) {
		yi_fdid_close(&j->fd);
		goto out;
	}
	if ((di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_EPOLL_FD)) != NULL) {
		struct stat st;
		if (fstat(di->epoll_fd, &st) == 0) {
			ep.fd = di->epoll_fd;
			ep.dev = st.st_dev;
			ep.ino = st.st_ino;
			yi_fd_own(ep.fd);       /* closed in a forked child */
		}
	}
	/* libmicrohttpd closes the socket itself, on failure too; it is
	 * disowned when libmicrohttpd says it closes it (notify CLOSED) */
	if (!yi_fdid_ok(&j->fd) || MHD_add_connection(d, j->fd.fd,
	    (const struct sockaddr *)&j->sa, j->salen) != MHD_YES) {
		yi_fdid_forget(&j->fd);
	} else {
		for (;;) {
			if (!yi_fdid_ok(&j->fd) || (ep.fd >= 0 && !yi_fdid_ok(&ep))) {
				lost = true;
				break;
			}
			if (atomic_load(&h->closing))
				break;
			MHD_run_wait(d, CHECK_MS);
			di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
			if (di == NULL || di->num_connections == 0) {
				closed = true;  /* closed and disowned by libmicrohttpd */
				break;
			}
		}
	}
	if (closed)
		j->fd.fd = -1;
	if (!lost && ep.fd >= 0 && !yi_fdid_ok(&ep))
		lost = true;            /* MHD_stop_daemon would close it */
	if (lost) {
		/* the program closed (and maybe reused) a number: libmicrohttpd
		 * must not write, read nor close it */
		if (j->fd.fd >= 0)
			conn_drop(h, &j->fd);
		yi_fdid_forget(&j->fd);
		yi_fdid_forget(&ep);
		yi_abandon(d);   /* never called again, never freed */
	} else {
		yi_fdid_forget(&ep);     /* MHD_stop_daemon closes it */
		MHD_stop_daemon(d);     /* closes a connection still open */
	}
out:
	yi_free(j);
	pthread_mutex_lock(&h->conn_mtx);
	h->nthreads--;
	pthread_cond_broadcast(&h->threads_cv);
	pthread_mutex_unlock(&h->conn_mtx);
	return NULL;
}

static void
serve(ying_http *h, int c, const struct sockaddr_storage *sa, socklen_t salen)
{
	conn_job *j;
	pthread_attr_t at;
	pthread_t t;
	bool room;
	int rc;

	if (yi_http_accept_policy(h, (const struct sockaddr *)sa, salen) != MHD_YES) {
		close(c);
		return;
	}
	if ((j = yi_calloc(1, sizeof(*j))) == NULL) {
		close(c);
		return;
	}
	j->h = h;
	j->sa = *sa;
	j->salen = salen;
	if (yi_fdid_take(&j->fd, c) != 0) {
		yi_free(j);
		return;
	}
	pthread_mutex_lock(&h->conn_mtx);
	room = h->nthreads < h->conn_cap;
	if (room)
		h->nthreads++;
	pthread_mutex_unlock(&h->conn_mtx);
	if (!room) {
		yi_fdid_close(&j->fd);
		yi_free(j);
		return;
	}
	/* signals stay blocked: inherited from the listener */
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&t, &at, conn_main, j);
	pthread_attr_destroy(&at);
	if (rc != 0) {
		yi_fdid_close(&j->fd);
		yi_free(j);
		pthread_mutex_lock(&h->conn_mtx);
		h->nthreads--;
		pthread_cond_broadcast(&h->threads_cv);
		pthread_mutex_unlock(&h->conn_mtx);
	}
}

/* Listen again on the address the lost socket had; 0 or an errno. */
static int
relisten(ying_http *h)
{
	int fd, one = 1, e;

	if (h->laddr.ss_family == AF_UNIX) {
		/* our socket file is still there (the program closed only the
		 * descriptor): removed if it still is ours, then made again */
		char bind_addr[sizeof(h->unix_sock.path) + 8];
		if (h->unix_sock.path[0] == '\0')
			return ENOENT;
		snprintf(bind_addr, sizeof(bind_addr), "unix:%s", h->unix_sock.path);
		yi_http_unix_remove(&h->unix_sock);
		if (yi_http_unix_listen(bind_addr, &fd, &h->unix_sock) != 0)
			return EADDRINUSE;
		return yi_fdid_take(&h->lfd, fd) == 0 ? 0 : EBADF;
	}
	fd = socket(h->laddr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (h->laddr.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)&h->laddr, h->laddr_len) != 0 ||
	    listen(fd, 64) != 0) {
		e = errno;
		close(fd);
		return e;
	}
	return yi_fdid_take(&h->lfd, fd) == 0 ? 0 : EBADF;
}

/* "port N" or the Unix socket's path, for the messages. */
static const char *
where(const ying_http *h, char *buf, size_t n)
{
	if (h->laddr.ss_family == AF_UNIX)
		snprintf(buf, n, "%s", h->unix_sock.path);
	else
		snprintf(buf, n, "port %d", h->port);
	return buf;
}

/* The listening socket was lost: listen again, or say once it stopped. */
static void
listener_lost(ying_http *h)
{
	char buf[sizeof(h->unix_sock.path) + 16];
	int e;

	yi_fdid_forget(&h->lfd);
	if (h->relisten_tries >= RELISTEN_TRIES)
		return;
	if ((e = relisten(h)) == 0) {
		atomic_fetch_add(&h->relistens, 1);
		fprintf(stderr, "ying http: the program closed the endpoint's listening "
		    "socket; listening again on %s\n", where(h, buf, sizeof(buf)));
		return;
	}
	if (++h->relisten_tries == RELISTEN_TRIES)
		fprintf(stderr, "ying http: the program closed the endpoint's listening "
		    "socket and %s cannot be bound again (%s): the endpoint stopped\n",
		    where(h, buf, sizeof(buf)), strerror(e));
}

/* The wake-up eventfd was lost: a new one (under wake_mtx: ying_http_stop
 * writes it). */
static void
wake_lost(ying_http *h)
{
	pthread_mutex_lock(&h->wake_mtx);
	yi_fdid_forget(&h->wake);
	(void)yi_fdid_take(&h->wake, eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
	pthread_mutex_unlock(&h->wake_mtx);
}

static void *
listen_main(void *arg)
{
	ying_http *h = arg;

	yi_ctl_quiet_thread();
	pthread_setname_np(pthread_self(), "ying-http");
	while (!atomic_load(&h->stop_listen)) {
		struct pollfd p[2];
		bool lok, wok;
		int wait_ms;

		if (!(wok = yi_fdid_ok(&h->wake)))
			wake_lost(h);
		if (!(lok = yi_fdid_ok(&h->lfd)) &&
		    (h->lfd.fd >= 0 || h->relisten_tries < RELISTEN_TRIES))
			listener_lost(h);
		p[0] = (struct pollfd){ h->lfd.fd, POLLIN, 0 };
		p[1] = (struct pollfd){ h->wake.fd, POLLIN, 0 };
		/* the memory history's sample, when a second has passed
		 * (microseconds: live_history.c) */
		wait_ms = yi_hist_tick();
		if (wait_ms > CHECK_MS)
			wait_ms = CHECK_MS;
		if (poll(p, 2, wait_ms) <= 0 || atomic_load(&h->stop_listen))
			continue;
		if ((p[1].revents & POLLIN) && yi_fdid_ok(&h->wake)) {
			uint64_t v;
			if (read(h->wake.fd, &v, sizeof(v)) < 0) {
				/* EAGAIN: another reader; nothing to do */
			}
		}
		if ((p[0].revents & POLLIN) && yi_fdid_ok(&h->lfd)) {
			struct sockaddr_storage sa;
			socklen_t sl = sizeof(sa);
			int c = accept4(h->lfd.fd, (struct sockaddr *)&sa, &sl,
			    SOCK_CLOEXEC | SOCK_NONBLOCK);
			if (c >= 0)
				serve(h, c, &sa, sl);
		}
	}
	return NULL;
}

int
yi_http_serve_start(ying_http *h, int listen_fd)
{
	sigset_t all, old;
	int rc;

	h->laddr_len = sizeof(h->laddr);
	if (getsockname(listen_fd, (struct sockaddr *)&h->laddr, &h->laddr_len) != 0) {
		rc = errno;
		close(listen_fd);
		return yi_error(YING_ESYS, "getsockname failed: %s", strerror(rc));
	}
	if (yi_fdid_take(&h->lfd, listen_fd) != 0)
		return yi_error(YING_ESYS, "the listening socket: %s", strerror(errno));
	if (yi_fdid_take(&h->wake, eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) != 0) {
		rc = errno;
		yi_fdid_close(&h->lfd);
		return yi_error(YING_ESYS, "eventfd: %s", strerror(rc));
	}
	/* Our threads block every signal: the host keeps its signals. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&h->listener, NULL, listen_main, h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		yi_fdid_close(&h->lfd);
		yi_fdid_close(&h->wake);
		return yi_error(YING_ESYS, "cannot start the HTTP thread: %s", strerror(rc));
	}
	h->listening = true;
	return 0;
}

/* Stop accepting: the listener is woken (only through a wake-up that still
 * is ours; else it wakes within CHECK_MS), joined, and the socket closed
 * if it still is ours. */
void
yi_http_serve_quiesce(ying_http *h)
{
	uint64_t one = 1;

	if (!h->listening)
		return;
	atomic_store(&h->stop_listen, true);
	pthread_mutex_lock(&h->wake_mtx);
	if (yi_fdid_ok(&h->wake) && write(h->wake.fd, &one, sizeof(one)) < 0) {
		/* a full counter wakes it as well */
	}
	pthread_mutex_unlock(&h->wake_mtx);
	pthread_join(h->listener, NULL);
	h->listening = false;
	yi_fdid_close(&h->lfd);
	yi_fdid_close(&h->wake);
}

/* End every connection and wait for their threads: each is woken by a
 * shutdown of its socket (when still ours) or within CHECK_MS. */
void
yi_http_serve_end(ying_http *h)
{
	atomic_store(&h->closing, true);
	pthread_mutex_lock(&h->conn_mtx);
	for (size_t i = 0; i < h->nconns; i++)
		if (yi_fdid_ok(&h->conns[i].id))
			shutdown(h->conns[i].id.fd, SHUT_RDWR);
	while (h->nthreads > 0)
		pthread_cond_wait(&h->threads_cv, &h->conn_mtx);
	pthread_mutex_unlock(&h->conn_mtx);
}
