/*
 * test_http_peer.c: who is at the other end of an endpoint's connection
 * (live_http_peer.c, live_http_access.c), in this process, as root.
 *
 * Real connections on 127.0.0.1 and [::1] from this process (uid 0) and
 * from a forked child that became uid 65534 (setresuid, no account added)
 * are looked up by NETLINK_SOCK_DIAG and by /proc/net/tcp{,6}, which must
 * agree; SO_PEERCRED on a socketpair gives our own uid; a made-up
 * four-tuple and an unconnected socket are not found (the verdict refuses
 * them: fail closed), and the verdicts serve root and refuse 65534 with a
 * reason naming the uid.  The "unix:/PATH" socket: absolute paths only,
 * mode 0600 whatever the umask, a regular file or a live socket never
 * replaced, a stale one replaced, removed only by the process that made it
 * and only while the path still is that socket.  A version-1
 * ying_http_opts (allocated to its exact size, so ASan sees an overread)
 * is accepted and copied without reading past its end.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "tap.h"

/* A listening socket on the loopback of family fam, port picked. */
static int
listener(int fam, struct sockaddr_storage *ss, socklen_t *sl)
{
	int fd = socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(ss, 0, sizeof(*ss));
	if (fam == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;
		a->sin_family = AF_INET;
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		*sl = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
		*sl = sizeof(*a);
	}
	if (fd < 0 || bind(fd, (struct sockaddr *)ss, *sl) != 0 || listen(fd, 8) != 0 ||
	    getsockname(fd, (struct sockaddr *)ss, sl) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Accept a connection to lfd from a process of uid `uid` (this one when
 * uid is 0, a forked child that setresuid's to uid otherwise); the child
 * stays connected until *child is reaped.  The accepted socket, or -1. */
static int
connect_as(int lfd, const struct sockaddr_storage *ss, socklen_t sl, uid_t uid,
    pid_t *child, int *own_client)
{
	int pipefd[2], c;
	char b;

	*child = -1;
	*own_client = -1;
	if (uid == 0) {
		if ((c = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
		    connect(c, (const struct sockaddr *)ss, sl) != 0)
			return -1;
		*own_client = c;
		return accept(lfd, NULL, NULL);
	}
	if (pipe(pipefd) != 0)
		return -1;
	if ((*child = fork()) == 0) {
		close(pipefd[0]);
		if (setresgid(uid, uid, uid) != 0 || setresuid(uid, uid, uid) != 0)
			_exit(2);
		c = socket(ss->ss_family, SOCK_STREAM, 0);
		if (c < 0 || connect(c, (const struct sockaddr *)ss, sl) != 0)
			_exit(3);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(4);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	if (*child < 0 || read(pipefd[0], &b, 1) != 1) {
		close(pipefd[0]);
		return -1;
	}
	close(pipefd[0]);
	return accept(lfd, NULL, NULL);
}

static void
end_child(pid_t child)
{
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
}

/* Both lookups of the accepted socket fd. */
static void
lookups(int fd, uid_t want, const char *what)
{
	struct sockaddr_storage peer, local;
	socklen_t pl = sizeof(peer), ll = sizeof(local);
	uid_t u1 = (uid_t)-1, u2 = (uid_t)-1, u3 = (uid_t)-1;
	char why[320], msg[200];

	memset(&peer, 0, sizeof(peer));
	memset(&local, 0, sizeof(local));
	getpeername(fd, (struct sockaddr *)&peer, &pl);
	getsockname(fd, (struct sockaddr *)&local, &ll);
	snprintf(msg, sizeof(msg), "%s: sock_diag finds the client's uid", what);
	ok(yi_http_peer_diag(&peer, &local, &u1, why, sizeof(why)) == 0 && u1 == want, msg);
	if (u1 != want)
		printf("#   got uid %ld (%s)\n", (long)u1, why);
	snprintf(msg, sizeof(msg), "%s: /proc/net/tcp finds the same", what);
	ok(yi_http_peer_proc(&peer, &local, &u2, why, sizeof(why)) == 0 && u2 == want, msg);
	if (u2 != want)
		printf("#   got uid %ld (%s)\n", (long)u2, why);
	snprintf(msg, sizeof(msg), "%s: yi_http_peer_uid", what);
	ok(yi_http_peer_uid(fd, &u3, why, sizeof(why)) == 0 && u3 == want, msg);
}

static void
test_tcp(int fam, const char *name)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int lfd = listener(fam, &ss, &sl), fd, own;
	pid_t child;
	void *v;
	char msg[200];

	snprintf(msg, sizeof(msg), "%s: a loopback listener", name);
	if (!ok(lfd >= 0, msg))
		return;
	fd = connect_as(lfd, &ss, sl, 0, &child, &own);
	snprintf(msg, sizeof(msg), "%s, uid 0", name);
	if (ok(fd >= 0, msg)) {
		lookups(fd, 0, msg);
		v = yi_http_peer_verdict(fd);
		snprintf(msg, sizeof(msg), "%s: root is served", name);
		ok(yi_http_peer_refusal(v) == NULL, msg);
		yi_http_peer_free(v);
		close(fd);
	}
	if (own >= 0)
		close(own);
	fd = connect_as(lfd, &ss, sl, 65534, &child, &own);
	snprintf(msg, sizeof(msg), "%s, uid 65534 (a forked child)", name);
	if (ok(fd >= 0, msg)) {
		lookups(fd, 65534, msg);
		v = yi_http_peer_verdict(fd);
		snprintf(msg, sizeof(msg), "%s: uid 65534 is refused, the reason names it",
		    name);
		has_str(yi_http_peer_refusal(v), "belongs to uid 65534, and without a token "
		    "this endpoint serves only its own user (uid 0) and root", msg);
		yi_http_peer_free(v);
		close(fd);
	}
	end_child(child);
	close(lfd);
}

static void
test_unknown(void)
{
	struct sockaddr_storage peer, local;
	struct sockaddr_in *p = (struct sockaddr_in *)&peer, *l = (struct sockaddr_in *)&local;
	uid_t u = 12345;
	char why[320];
	int fd;
	void *v;

	memset(&peer, 0, sizeof(peer));
	memset(&local, 0, sizeof(local));
	p->sin_family = l->sin_family = AF_INET;
	p->sin_addr.s_addr = l->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	p->sin_port = htons(1);
	l->sin_port = htons(2);
	ok(yi_http_peer_diag(&peer, &local, &u, why, sizeof(why)) == 1 && u == 12345,
	    "a four-tuple no socket has: sock_diag answers that there is none (1)");
	has_str(why, "sock_diag: no such socket", "... and says so");
	ok(yi_http_peer_proc(&peer, &local, &u, why, sizeof(why)) != 0 && u == 12345,
	    "... nor does /proc/net/tcp");
	has_str(why, "/proc/net/tcp: not listed", "... which says so");

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ok(yi_http_peer_uid(fd, &u, why, sizeof(why)) != 0, "an unconnected socket: no uid");
	v = yi_http_peer_verdict(fd);
	has_str(yi_http_peer_refusal(v), "forbidden: cannot tell which user the connection "
	    "from this peer belongs to (getpeername: ", "... and its verdict refuses, "
	    "saying why (fail closed)");
	yi_http_peer_free(v);
	close(fd);
	v = yi_http_peer_verdict(-1);
	ok(yi_http_peer_refusal(v) != NULL, "no descriptor: refused");
	yi_http_peer_free(v);
	ok(yi_http_peer_refusal(NULL) != NULL, "no verdict: refused");
}

static void
test_socketpair(void)
{
	int sv[2];
	uid_t u = 12345;
	char why[320];

	if (!ok(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "a socketpair"))
		return;
	ok(yi_http_peer_uid(sv[0], &u, why, sizeof(why)) == 0 && u == geteuid(),
	    "SO_PEERCRED: our own uid");
	close(sv[0]);
	close(sv[1]);
}

static void
test_unix(void)
{
	char dir[100], bind_addr[256], path[200];
	const char *tmp = getenv("TMPDIR");
	yi_http_unix u, u2;
	struct stat st;
	int fd = -1, fd2 = -1, f;
	mode_t old;
	pid_t pid;

	/* make check gives each test its own TMPDIR (mk/hermetic.mk); sun_path
	 * holds 108 bytes, so a TMPDIR too long for it falls back to /tmp */
	if (tmp == NULL || tmp[0] != '/' || strlen(tmp) > 60)
		tmp = "/tmp";       /* fallback when TMPDIR is unset or too long */
	snprintf(dir, sizeof(dir), "%s/ying-test-peer.XXXXXX", tmp);
	if (!ok(mkdtemp(dir) != NULL, "a private directory"))
		return;
	snprintf(path, sizeof(path), "%s/s", dir);
	snprintf(bind_addr, sizeof(bind_addr), "unix:%s", path);
	ok(yi_http_is_unix(bind_addr) && !yi_http_is_unix("127.0.0.1:0") &&
	    !yi_http_is_unix(NULL), "yi_http_is_unix");
	is_int(yi_http_unix_listen("unix:rel/s", &fd, &u), YING_EINVAL,
	    "unix:relative is refused");
	has_str(ying_last_error(), "needs an absolute path", "... saying why");

	old = umask(0);
	is_int(yi_http_unix_listen(bind_addr, &fd, &u), 0, "unix:/PATH listens");
	umask(old);
	ok(lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) && (st.st_mode & 0777) == 0600 &&
	    st.st_uid == geteuid(), "... a socket file 0600 of ours, even with umask 0");
	is_int(yi_http_unix_listen(bind_addr, &fd2, &u2), YING_ESYS,
	    "a second server on the same path: refused (busy)");
	has_str(ying_last_error(), "a server is listening on it", "... saying so");

	/* in a forked child: not the maker, nothing removed */
	if ((pid = fork()) == 0) {
		yi_http_unix_remove(&u);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	ok(lstat(path, &st) == 0, "a forked child's remove leaves the socket alone");
	close(fd);
	fd = -1;
	/* closed, the file stays: a stale socket, replaced by the next one */
	is_int(yi_http_unix_listen(bind_addr, &fd2, &u2), 0, "a stale socket is replaced");
	/* u names the old inode: its remove must not take the new socket */
	yi_http_unix_remove(&u);
	ok(lstat(path, &st) == 0 && S_ISSOCK(st.st_mode),
	    "removing the old one leaves the new socket in place");
	yi_http_unix_remove(&u2);
	ok(lstat(path, &st) != 0 && errno == ENOENT, "the new one's remove unlinks it");
	close(fd2);

	f = open(path, O_CREAT | O_WRONLY | O_EXCL, 0600);
	ok(f >= 0 && write(f, "keep", 4) == 4, "a regular file at the path");
	close(f);
	is_int(yi_http_unix_listen(bind_addr, &fd, &u), YING_EINVAL,
	    "... is not replaced");
	has_str(ying_last_error(), "exists and is not a socket (not replaced)", "... saying so");
	ok(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 4,
	    "... and is left as it was");
	unlink(path);
	rmdir(dir);
}

static void
test_opts_v1(void)
{
	size_t n = offsetof(ying_http_opts, open);
	ying_http_opts v2 = YING_HTTP_OPTS_INIT, out;
	unsigned char *bytes = malloc(n);
	const ying_http_opts *v1 = (const ying_http_opts *)bytes;

	if (!ok(bytes != NULL, "a version-1 ying_http_opts, allocated to its size"))
		return;
	v2.version = 1;
	v2.insecure = 1;
	memcpy(bytes, &v2, n);
	v2.version = YING_HTTP_OPTS_VERSION;
	v2.insecure = 0;
	/* no older layout is accepted (never copied: it is shorter) */
	is_int(yi_http_check_opts(v1), YING_EINVAL, "version 1 is refused");
	has_str(ying_last_error(), "ying_http_opts", "... naming the struct");
	(void)out;
	free(bytes);
	v2.open = 1;
	is_int(yi_http_opts_open(&v2), 1, "the current version's open is read");
	is_int(YING_HTTP_OPTS_VERSION, 3, "YING_HTTP_OPTS_VERSION is 3");
	v2.version = 4;
	ok(yi_http_check_opts(&v2) != 0, "version 4 is refused");
}

int
main(void)
{
	if (!ok(geteuid() == 0, "runs as root (make check does; another uid comes "
	    "from setresuid in a child)"))
		return tap_done();
	test_tcp(AF_INET, "127.0.0.1");
	test_tcp(AF_INET6, "[::1]");
	test_unknown();
	test_socketpair();
	test_unix();
	test_opts_v1();
	return tap_done();
}
