/*
 * live_http_peer.c: who is at the other end of a connection of the HTTP
 * endpoint, and the Unix-domain listening socket (`unix:PATH`), with plain
 * sockets only (no libmicrohttpd here, like live_http_addr.c, so that
 * ying_http_check does not load it).
 *
 * The owner of a connection is the user id of the client's socket:
 * SO_PEERCRED for a Unix-domain peer; for TCP the kernel's socket tables,
 * asked for the client's socket by its exact four-tuple (NETLINK_SOCK_DIAG,
 * SOCK_DIAG_BY_FAMILY: the answer's idiag_uid, the uid that created the
 * socket), or, only when sock_diag is not available, /proc/net/tcp or
 * /proc/net/tcp6 (the `uid` column of the line whose local and remote
 * addresses are the client's).  A peer not found is not a local socket
 * (or is gone): its owner is unknown, and the caller refuses it
 * (live_http_access.c).
 *
 * The Unix-domain socket is created 0600 (fchmod before bind, checked
 * after), never replaces anything but a stale socket of the same user (a
 * socket file nobody listens on), and is removed by the process that made
 * it when the endpoint stops, only if the path still is that socket (same
 * device, inode and birth time).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>

#include "live.h"

/* "ADDR:PORT" / "[ADDR]:PORT" of a TCP address, for messages. */
void
yi_http_addr_text(const struct sockaddr_storage *ss, char *out, size_t n)
{
	char a[INET6_ADDRSTRLEN + 1];

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)ss;
		inet_ntop(AF_INET, &s->sin_addr, a, sizeof(a));
		snprintf(out, n, "%s:%u", a, (unsigned)ntohs(s->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)ss;
		inet_ntop(AF_INET6, &s->sin6_addr, a, sizeof(a));
		snprintf(out, n, "[%s]:%u", a, (unsigned)ntohs(s->sin6_port));
	} else if (ss->ss_family == AF_UNIX) {
		snprintf(out, n, "a Unix-domain socket");
	} else {
		snprintf(out, n, "an address of family %d", (int)ss->ss_family);
	}
}

/* The address bytes (4 or 16) and the port (network order) of ss. */
static const void *
addr_bytes(const struct sockaddr_storage *ss, size_t *len, uint16_t *port)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)ss;
		*len = 4;
		*port = s->sin_port;
		return &s->sin_addr;
	}
	const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)ss;
	*len = 16;
	*port = s->sin6_port;
	return &s->sin6_addr;
}

/* ---- NETLINK_SOCK_DIAG ------------------------------------------------------- */

int
yi_http_peer_diag(const struct sockaddr_storage *peer,
    const struct sockaddr_storage *local, uid_t *uid, char *why, size_t wn)
{
	struct {
		struct nlmsghdr nh;
		struct inet_diag_req_v2 r;
	} req;
	union {
		struct nlmsghdr nh;
		char buf[8192];
	} ans;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK }, from;
	struct timeval tv = { 1, 0 };
	const void *pa, *la;
	size_t alen, llen;
	uint16_t pport, lport;
	int fd, rc = -1;

	if ((peer->ss_family != AF_INET && peer->ss_family != AF_INET6) ||
	    peer->ss_family != local->ss_family) {
		snprintf(why, wn, "sock_diag: not a TCP connection");
		return -1;
	}
	pa = addr_bytes(peer, &alen, &pport);
	la = addr_bytes(local, &llen, &lport);
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = 1;
	req.r.sdiag_family = (uint8_t)peer->ss_family;
	req.r.sdiag_protocol = IPPROTO_TCP;
	req.r.idiag_states = ~0u;
	/* the client's socket: its source is our peer, its destination us */
	req.r.id.idiag_sport = pport;
	req.r.id.idiag_dport = lport;
	memcpy(req.r.id.idiag_src, pa, alen);
	memcpy(req.r.id.idiag_dst, la, llen);
	req.r.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
	req.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;

	if ((fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG)) < 0) {
		snprintf(why, wn, "sock_diag: %s", strerror(errno));
		return -1;
	}
	yi_fd_own(fd);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel,
	    sizeof(kernel)) != (ssize_t)sizeof(req)) {
		snprintf(why, wn, "sock_diag: %s", strerror(errno));
		goto out;
	}
	for (int round = 0; round < 4; round++) {
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(fd, &ans, sizeof(ans), 0, (struct sockaddr *)&from, &fl);
		struct nlmsghdr *h;
		size_t left;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			snprintf(why, wn, "sock_diag: %s", errno == EAGAIN ||
			    errno == EWOULDBLOCK ? "no answer within 1 s" : strerror(errno));
			goto out;
		}
		if (fl < sizeof(from) || from.nl_pid != 0)
			continue;       /* not the kernel */
		left = (size_t)n;
		for (h = &ans.nh; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_seq != 1)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);
				int en = h->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) ? -e->error : EIO;
				snprintf(why, wn, "sock_diag: %s", en == ENOENT ?
				    "no such socket on this host" : strerror(en));
				if (en == ENOENT)
					rc = 1;
				goto out;
			}
			if (h->nlmsg_type == NLMSG_DONE) {
				snprintf(why, wn, "sock_diag: no such socket on this host");
				rc = 1;
				goto out;
			}
			if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY &&
			    h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct inet_diag_msg))) {
				const struct inet_diag_msg *m = NLMSG_DATA(h);
				if (m->idiag_family == peer->ss_family &&
				    m->id.idiag_sport == pport && m->id.idiag_dport == lport &&
				    memcmp(m->id.idiag_src, pa, alen) == 0 &&
				    memcmp(m->id.idiag_dst, la, llen) == 0) {
					*uid = (uid_t)m->idiag_uid;
					rc = 0;
					goto out;
				}
			}
		}
	}
	snprintf(why, wn, "sock_diag: no answer for this connection");
out:
	yi_fd_disown(fd);
	close(fd);
	return rc;
}

/* ---- /proc/net/tcp{,6} ------------------------------------------------------- */

/* An address as /proc/net/tcp prints it: each 32-bit word of the address
 * bytes as the host reads it, %08X, then ":%04X" of the port. */
static void
proc_form(const struct sockaddr_storage *ss, char *out, size_t n)
{
	size_t len, k = 0;
	uint16_t port;
	const unsigned char *b = addr_bytes(ss, &len, &port);

	for (size_t i = 0; i < len && k + 9 < n; i += 4) {
		uint32_t w;
		memcpy(&w, b + i, 4);
		k += (size_t)snprintf(out + k, n - k, "%08X", w);
	}
	snprintf(out + k, n - k, ":%04X", (unsigned)ntohs(port));
}

int
yi_http_peer_proc(const struct sockaddr_storage *peer,
    const struct sockaddr_storage *local, uid_t *uid, char *why, size_t wn)
{
	const char *file = peer->ss_family == AF_INET6 ? "/proc/net/tcp6" : "/proc/net/tcp";
	char want_l[64], want_r[64], line[512];
	FILE *f;

	if ((peer->ss_family != AF_INET && peer->ss_family != AF_INET6) ||
	    peer->ss_family != local->ss_family) {
		snprintf(why, wn, "%s: not a TCP connection", file);
		return -1;
	}
	proc_form(peer, want_l, sizeof(want_l));    /* the client's local end */
	proc_form(local, want_r, sizeof(want_r));
	if ((f = fopen(file, "re")) == NULL) {
		snprintf(why, wn, "%s: %s", file, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char l[64], r[64];
		unsigned st;
		unsigned long u;
		if (sscanf(line, " %*u: %63s %63s %x %*s %*s %*s %lu", l, r, &st, &u) == 4 &&
		    strcasecmp(l, want_l) == 0 && strcasecmp(r, want_r) == 0) {
			fclose(f);
			*uid = (uid_t)u;
			return 0;
		}
	}
	fclose(f);
	snprintf(why, wn, "%s: not listed", file);
	return -1;
}

int
yi_http_peer_uid(int fd, uid_t *uid, char *why, size_t wn)
{
	struct sockaddr_storage peer, local;
	socklen_t pl = sizeof(peer), ll = sizeof(local);
	char w1[160], w2[160];

	memset(&peer, 0, sizeof(peer));
	memset(&local, 0, sizeof(local));
	if (getsockname(fd, (struct sockaddr *)&local, &ll) != 0) {
		snprintf(why, wn, "getsockname: %s", strerror(errno));
		return -1;
	}
	if (local.ss_family == AF_UNIX) {
		struct ucred cr;
		socklen_t cl = sizeof(cr);
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) != 0 ||
		    cl != sizeof(cr)) {
			snprintf(why, wn, "SO_PEERCRED: %s", strerror(errno));
			return -1;
		}
		*uid = cr.uid;
		return 0;
	}
	if (getpeername(fd, (struct sockaddr *)&peer, &pl) != 0) {
		snprintf(why, wn, "getpeername: %s", strerror(errno));
		return -1;
	}
	/* /proc/net/tcp only when sock_diag cannot answer: reading the whole
	 * table costs milliseconds with many sockets, not to be paid for every
	 * connection a client opens and drops */
	switch (yi_http_peer_diag(&peer, &local, uid, w1, sizeof(w1))) {
	case 0:
		return 0;
	case 1:
		snprintf(why, wn, "%s", w1);
		return -1;
	}
	if (yi_http_peer_proc(&peer, &local, uid, w2, sizeof(w2)) == 0)
		return 0;
	snprintf(why, wn, "%s; %s", w1, w2);
	return -1;
}

/* ---- the Unix-domain listening socket ---------------------------------------- */

/* The identity of the socket file at path (not followed): device, inode
 * and birth time when there is one (ext4, tmpfs, btrfs, xfs: an inode
 * number freed by an unlink is often given to the next file at once).
 * false when path is not a socket. */
static bool
sock_file_id(const char *path, yi_http_unix *id)
{
	struct statx sx;

	if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS | STATX_BTIME,
	    &sx) != 0 || !S_ISSOCK(sx.stx_mode))
		return false;
	id->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	id->ino = (ino_t)sx.stx_ino;
	id->has_btime = (sx.stx_mask & STATX_BTIME) != 0;
	id->btime_sec = id->has_btime ? sx.stx_btime.tv_sec : 0;
	id->btime_nsec = id->has_btime ? sx.stx_btime.tv_nsec : 0;
	return true;
}

bool
yi_http_is_unix(const char *bind_addr)
{
	return bind_addr != NULL && strncmp(bind_addr, "unix:", 5) == 0;
}

/* Is there a server on the socket file path?  1 yes, 0 no (stale), -1
 * cannot tell (errno). */
static int
unix_live(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), r, e;

	if (fd < 0)
		return -1;
	r = connect(fd, (const struct sockaddr *)sa, sizeof(*sa));
	e = errno;
	close(fd);
	if (r == 0)
		return 1;
	errno = e;
	return e == ECONNREFUSED ? 0 : -1;
}

/* "unix:@NAME": a socket in the abstract namespace (Linux), nothing on
 * disk to make or remove; gone with the process.  Who may connect is the
 * endpoint's peer policy (a family member's: its ancestors only). */
static int
unix_abstract_listen(const char *bind_addr, int *fd_out)
{
	const char *name = bind_addr + 6;
	struct sockaddr_un sa;
	size_t nl = strlen(name);
	socklen_t sl;
	int fd, err;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (nl == 0 || nl >= sizeof(sa.sun_path) - 1)
		return yi_error(YING_EINVAL, "bad bind address '%s': an abstract socket "
		    "name needs 1..%zu bytes (unix:@NAME)", bind_addr, sizeof(sa.sun_path) - 2);
	for (size_t i = 0; i < nl; i++)
		if ((unsigned char)name[i] <= ' ' || name[i] == 0x7f)
			return yi_error(YING_EINVAL, "bad bind address '%s': no spaces or "
			    "control bytes in an abstract socket name", bind_addr);
	memcpy(sa.sun_path + 1, name, nl);      /* sun_path[0] '\0': abstract */
	sl = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + nl);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return yi_error(YING_ESYS, "cannot listen on %s: %s", bind_addr,
		    strerror(errno));
	if (bind(fd, (struct sockaddr *)&sa, sl) != 0 || listen(fd, 64) != 0) {
		err = errno;
		close(fd);
		return yi_error(YING_ESYS, "cannot listen on %s: %s", bind_addr,
		    err == EADDRINUSE ? "the name is taken" : strerror(err));
	}
	*fd_out = fd;
	return 0;
}

int
yi_http_unix_listen(const char *bind_addr, int *fd_out, yi_http_unix *u)
{
	const char *path = bind_addr + 5;
	struct sockaddr_un sa;
	struct stat st;
	int fd, err;

	memset(u, 0, sizeof(*u));
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (path[0] == '@')
		return unix_abstract_listen(bind_addr, fd_out);
	if (path[0] != '/')
		return yi_error(YING_EINVAL, "bad bind address '%s': a Unix-domain socket "
		    "needs an absolute path (unix:/PATH)", bind_addr);
	if (strlen(path) >= sizeof(sa.sun_path) || strlen(path) >= sizeof(u->path))
		return yi_error(YING_EINVAL, "bind address '%s': the path is too long for "
		    "a Unix-domain socket (at most %zu bytes)", bind_addr,
		    sizeof(sa.sun_path) - 1);
	strcpy(sa.sun_path, path);
	if (lstat(path, &st) == 0) {
		int live;
		if (!S_ISSOCK(st.st_mode))
			return yi_error(YING_EINVAL, "cannot listen on %s: %s exists and is not "
			    "a socket (not replaced)", bind_addr, path);
		if (st.st_uid != geteuid())
			return yi_error(YING_EINVAL, "cannot listen on %s: the socket %s belongs "
			    "to uid %ld, not to this process's user (not replaced)", bind_addr,
			    path, (long)st.st_uid);
		if ((live = unix_live(&sa)) != 0)
			return yi_error(YING_ESYS, "cannot listen on %s: %s", bind_addr,
			    live > 0 ? "a server is listening on it" : strerror(errno));
		if (unlink(path) != 0 && errno != ENOENT)
			return yi_error(YING_ESYS, "cannot listen on %s: cannot remove the "
			    "stale socket: %s", bind_addr, strerror(errno));
	} else if (errno != ENOENT) {
		return yi_error(YING_ESYS, "cannot listen on %s: %s", bind_addr,
		    strerror(errno));
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return yi_error(YING_ESYS, "cannot listen on %s: %s", bind_addr,
		    strerror(errno));
	/* Linux creates the file with the socket inode's mode (less the
	 * umask): 0600 from the start, no moment when others may connect. */
	(void)fchmod(fd, 0600);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		err = errno;
		close(fd);
		return yi_error(YING_ESYS, "cannot listen on %s: %s", bind_addr,
		    strerror(err));
	}
	if (lstat(path, &st) != 0 || !S_ISSOCK(st.st_mode) ||
	    ((st.st_mode & 077) != 0 && (chmod(path, 0600) != 0 ||
	    lstat(path, &st) != 0 || (st.st_mode & 077) != 0))) {
		err = errno;
		close(fd);
		return yi_error(YING_ESYS, "cannot listen on %s: cannot make the socket "
		    "private (mode 0600): %s", bind_addr, strerror(err));
	}
	if (listen(fd, 64) != 0) {
		err = errno;
		unlink(path);
		close(fd);
		return yi_error(YING_ESYS, "cannot listen on %s: %s", bind_addr,
		    strerror(err));
	}
	if (!sock_file_id(path, u)) {
		err = errno;
		unlink(path);
		close(fd);
		return yi_error(YING_ESYS, "cannot listen on %s: %s", bind_addr,
		    strerror(err));
	}
	strcpy(u->path, path);
	u->pid = getpid();
	*fd_out = fd;
	return 0;
}

void
yi_http_unix_remove(yi_http_unix *u)
{
	yi_http_unix now;

	if (u->path[0] == '\0' || u->pid != getpid())
		return;
	if (sock_file_id(u->path, &now) && now.dev == u->dev && now.ino == u->ino &&
	    now.has_btime == u->has_btime && now.btime_sec == u->btime_sec &&
	    now.btime_nsec == u->btime_nsec)
		unlink(u->path);
	u->path[0] = '\0';
}
