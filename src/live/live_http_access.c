/*
 * live_http_access.c: who may use the embedded HTTP endpoint.
 *
 * The heap dump shows the memory map and the stacks of the process (which
 * /proc/PID/maps denies to other users), and the control endpoints change
 * the host (the sampling rate, recent-allocation records).  So, without a
 * token, the endpoint serves only the process's own effective user and
 * root: each connection's peer is judged once, when libmicrohttpd
 * announces it (MHD_CONNECTION_NOTIFY_STARTED, before its first request),
 * by the owner of the client's socket (live_http_peer.c: SO_PEERCRED, the
 * kernel's TCP socket table), and the verdict stays with the connection
 * (its socket context).  Every request of a refused connection is 403 with
 * a one-line reason, after the Host check and before routing, so another
 * user learns nothing of the endpoints either.  A peer whose owner cannot
 * be found is refused (fail closed).  With a token the token alone decides
 * (as before); `open` (YING_HTTP_OPEN=1, ying run --http-open) serves every
 * user, and so does an insecure non-loopback bind (anyone who can reach
 * it, by definition).  A family member's endpoint (an abstract socket,
 * yi_http_member_start) serves only the processes it descends from.
 */
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <microhttpd.h>

#include "live_family.h"
#include "live_http.h"

typedef struct peer_verdict {
	bool ok;
	char why[1024];
} peer_verdict;

/* Shared verdicts: never freed. */
static peer_verdict verdict_ok = { true, "" };
static peer_verdict verdict_nomem = { false, "forbidden: out of memory while "
    "identifying this connection's user; only this endpoint's own user and root "
    "are served" };

#define WAYS_OUT "set a token (YING_HTTP_TOKEN_FILE, ying run --token-file) or " \
    "serve every local user (YING_HTTP_OPEN=1, ying run --http-open)"

void
yi_http_peer_policy(ying_http *h, int fd, const ying_http_opts *opts)
{
	char a[64];
	bool lb = false, remote;

	remote = yi_http_fd_local(fd, a, sizeof(a), &lb) && !lb;
	if (h->member) {
		h->peer_check = true;       /* ancestors only: member_verdict */
		return;
	}
	h->peer_check = opts->token == NULL && !yi_http_opts_open(opts) &&
	    !(opts->insecure && remote);
}

void *
yi_http_peer_verdict(int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char why[320], from[80];
	uid_t uid, me = geteuid();
	peer_verdict *v;
	int rc;

	rc = yi_http_peer_uid(fd, &uid, why, sizeof(why));
	if (rc == 0 && (uid == me || uid == 0))
		return &verdict_ok;
	if ((v = yi_malloc(sizeof(*v))) == NULL)
		return &verdict_nomem;
	memset(&ss, 0, sizeof(ss));
	if (fd < 0 || getpeername(fd, (struct sockaddr *)&ss, &sl) != 0)
		snprintf(from, sizeof(from), "this peer");
	else
		yi_http_addr_text(&ss, from, sizeof(from));
	v->ok = false;
	if (rc == 0)
		snprintf(v->why, sizeof(v->why), "forbidden: the connection from %s belongs "
		    "to uid %ld, and without a token this endpoint serves only its own "
		    "user (uid %ld) and root; " WAYS_OUT, from, (long)uid, (long)me);
	else
		snprintf(v->why, sizeof(v->why), "forbidden: cannot tell which user the "
		    "connection from %s belongs to (%s), and without a token this endpoint "
		    "serves only its own user (uid %ld) and root; " WAYS_OUT, from, why,
		    (long)me);
	return v;
}

const char *
yi_http_peer_refusal(const void *verdict)
{
	const peer_verdict *v = verdict;

	if (v == NULL)
		return "forbidden: this connection's user was not identified, and without "
		    "a token this endpoint serves only its own user and root; " WAYS_OUT;
	return v->ok ? NULL : v->why;
}

void
yi_http_peer_free(void *verdict)
{
	if (verdict != NULL && verdict != &verdict_ok && verdict != &verdict_nomem)
		yi_free(verdict);
}

/* A member's endpoint serves only processes this one descends from (the
 * head, or a member between): the peer's pid by SO_PEERCRED (the kernel's
 * word, as of connect), then the ppid chain in /proc. */
static void *
member_verdict(int fd)
{
	struct ucred cr = { .pid = -1 };
	socklen_t cl = sizeof(cr);
	peer_verdict *v;

	if (fd >= 0 && getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0 &&
	    cr.pid > 0 && yi_proc_descends(getpid(), cr.pid))
		return &verdict_ok;
	if ((v = yi_malloc(sizeof(*v))) == NULL)
		return &verdict_nomem;
	v->ok = false;
	snprintf(v->why, sizeof(v->why), "forbidden: this is the endpoint of process "
	    "%ld, a member of a profiled service; only its ancestors (the head's "
	    "endpoint: GET /debug/processes, ?pid=%ld) are served, and process %ld "
	    "is not one", (long)getpid(), (long)getpid(), (long)cr.pid);
	return v;
}

void
yi_http_peer_judge(ying_http *h, int fd, void **socket_context)
{
	/* whichever thread libmicrohttpd announces it from: not sampled */
	yi_ctl_quiet_thread();
	if (h->member)
		*socket_context = member_verdict(fd);
	else
		*socket_context = h->peer_check ? yi_http_peer_verdict(fd) : NULL;
}

void
yi_http_peer_forget(void **socket_context)
{
	yi_http_peer_free(*socket_context);
	*socket_context = NULL;
}

bool
yi_http_peer_allowed(hreq *q)
{
	const union MHD_ConnectionInfo *ci;
	const char *why;

	if (!q->h->peer_check)
		return true;
	ci = MHD_get_connection_info(q->c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if ((why = yi_http_peer_refusal(ci ? ci->socket_context : NULL)) == NULL)
		return true;
	yi_http_fail(q, 403, "%s", why);
	return false;
}
