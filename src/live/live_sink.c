/*
 * live_sink.c: the report keeper.  A process that can no longer create
 * files in its report directory (it switched to a user that does not own
 * it: a server dropping privileges, `ying run --user NAME` with the
 * starting user's directory) hands each finished file of a report set to
 * a process that still can, `ying run`, over a SOCK_SEQPACKET socket
 * (YING_RUN_SINK): one message per file, the file itself as a memfd
 * passed with SCM_RIGHTS, sent in the set's commit order (the .report
 * last), and one message asking to bound the directory as the runner
 * would (it cannot list a directory it cannot read).
 *
 * The runner's side (yi_runner_set_sink, yi_sink_*) is process-wide: the
 * socket is identified by device and inode, so a number the program
 * closed and reused is never written to.  The keeper's side (the public
 * ying_keeper_*) holds the report root open and accepts only the root
 * itself or ONE level of per-process subdirectory below it
 * ("PROGRAM.PID" or "PROGRAM.PID.ROLE", created 0700 by the keeper), names
 * of the runner's grammar only (yi_report_parse_name), regular files of
 * at most KEEPER_MAX_FILE bytes; each written 0600 under a hidden
 * temporary name, then renamed.
 *
 * Messages (text, one per datagram):
 *   "ying-keeper/1 put\nDIR\nNAME\n"                  + one descriptor
 *   "ying-keeper/1 prune MAX_SETS MAX_BYTES\nDIR\nKEEP\n"
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "live.h"

#define SINK_MAGIC "ying-keeper/1 "
#define SINK_MSG_MAX (2 * PATH_MAX + 256)
#define KEEPER_MAX_FILE (4ULL << 30)   /* bytes of one file */
#define KEEPER_MAX_SUBDIRS 4096

/* ---- the runner's side ---------------------------------------------------------- */

static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;
static int sink_fd = -1;
static dev_t sink_dev;
static ino_t sink_ino;

/* Still the socket we were given?  Under sink_lock. */
static bool
sink_same(void)
{
	struct stat st;

	return sink_fd >= 0 && fstat(sink_fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
	    st.st_dev == sink_dev && st.st_ino == sink_ino;
}

void
yi_runner_set_sink(int fd)
{
	struct stat st;
	int type = 0;
	socklen_t tl = sizeof(type);

	pthread_mutex_lock(&sink_lock);
	sink_fd = -1;
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) == 0 &&
	    type == SOCK_SEQPACKET) {
		sink_fd = fd;
		sink_dev = st.st_dev;
		sink_ino = st.st_ino;
	}
	pthread_mutex_unlock(&sink_lock);
}

bool
yi_sink_ok(void)
{
	bool ok;

	pthread_mutex_lock(&sink_lock);
	ok = sink_same();
	if (!ok)
		sink_fd = -1;          /* forgotten, never closed: not ours any more */
	pthread_mutex_unlock(&sink_lock);
	return ok;
}

/* One message with an optional descriptor. */
static int
sink_send(const char *msg, size_t len, int fd)
{
	struct msghdr mh;
	struct iovec iov = { (void *)msg, len };
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } cm;
	ssize_t n;
	int e = 0;

	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (fd >= 0) {
		memset(&cm, 0, sizeof(cm));
		mh.msg_control = cm.b;
		mh.msg_controllen = sizeof(cm.b);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	pthread_mutex_lock(&sink_lock);
	if (!sink_same()) {
		sink_fd = -1;
		pthread_mutex_unlock(&sink_lock);
		return yi_error(YING_EIO, "the report keeper (ying run's YING_RUN_SINK) "
		    "is gone");
	}
	while ((n = sendmsg(sink_fd, &mh, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	if (n < 0)
		e = errno;
	pthread_mutex_unlock(&sink_lock);
	if (n < 0)
		return yi_error(YING_EIO, "cannot hand a report file to ying run: %s",
		    strerror(e));
	return 0;
}

static bool
no_newline(const char *s)
{
	return s && strchr(s, '\n') == NULL;
}

int
yi_sink_put(const char *dir, const char *name, int fd)
{
	char msg[SINK_MSG_MAX];
	int n;

	if (!no_newline(dir) || !no_newline(name) || fd < 0)
		return yi_error(YING_EINVAL, "yi_sink_put: bad argument");
	n = snprintf(msg, sizeof(msg), SINK_MAGIC "put\n%s\n%s\n", dir, name);
	if (n < 0 || (size_t)n >= sizeof(msg))
		return yi_error(YING_EINVAL, "report path too long: %s/%s", dir, name);
	return sink_send(msg, (size_t)n, fd);
}

int
yi_sink_prune(const char *dir, unsigned max_sets, uint64_t max_bytes, const char *keep)
{
	char msg[SINK_MSG_MAX];
	int n;

	if (max_sets == 0 && max_bytes == 0)
		return 0;
	if (!no_newline(dir) || (keep && !no_newline(keep)))
		return yi_error(YING_EINVAL, "yi_sink_prune: bad argument");
	n = snprintf(msg, sizeof(msg), SINK_MAGIC "prune %u %" PRIu64 "\n%s\n%s\n",
	    max_sets, max_bytes, dir, keep ? keep : "");
	if (n < 0 || (size_t)n >= sizeof(msg))
		return yi_error(YING_EINVAL, "report path too long: %s", dir);
	return sink_send(msg, (size_t)n, -1);
}

char *
yi_sink_path(const char *path)
{
	char *r = realpath(path, NULL), *out, *parent, cwd[PATH_MAX];
	const char *slash;
	size_t pl;

	if (r != NULL)
		return r;
	/* a subdirectory we cannot see into or that is not made yet: its
	 * parent resolved, its own name kept */
	if ((slash = strrchr(path, '/')) == NULL) {
		if (getcwd(cwd, sizeof(cwd)) == NULL)
			return NULL;
		if ((out = malloc(strlen(cwd) + strlen(path) + 2)) != NULL)
			sprintf(out, "%s/%s", cwd, path);
		return out;
	}
	if (slash[1] == '\0')
		return NULL;
	pl = (size_t)(slash - path);
	if ((parent = malloc(pl + 2)) == NULL)
		return NULL;
	memcpy(parent, path, pl);
	parent[pl] = '\0';
	if (pl == 0)
		strcpy(parent, "/");
	r = realpath(parent, NULL);
	free(parent);
	if (r == NULL)
		return NULL;
	if ((out = malloc(strlen(r) + strlen(slash) + 1)) != NULL)
		sprintf(out, "%s%s", strcmp(r, "/") == 0 ? "" : r, slash);
	free(r);
	return out;
}

/* ---- names ---------------------------------------------------------------------- */

bool
yi_report_subdir_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0, i, dots = 0;
	const char *last, *pid;

	if (n == 0 || n > 200 || s[0] == '.' || s[n - 1] == '.')
		return false;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_' || c == '+'))
			return false;
		if (c == '.' && s[i + 1] == '.')
			return false;
		dots += c == '.';
	}
	if (dots == 0)
		return false;
	/* PROGRAM.PID or PROGRAM.PID.ROLE (ROLE: [a-z0-9-]) */
	last = strrchr(s, '.') + 1;
	if (strspn(last, "0123456789") == strlen(last) && strlen(last) <= 10)
		return true;
	if (strspn(last, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(last) ||
	    dots < 2)
		return false;
	for (pid = last - 2; pid > s && *pid != '.'; pid--)
		;
	if (*pid != '.')
		return false;
	pid++;
	return last - 1 - pid > 0 && last - 1 - pid <= 10 &&
	    strspn(pid, "0123456789") == (size_t)(last - 1 - pid);
}

/* ---- the keeper ---------------------------------------------------------------- */

typedef struct ksub {
	char *name;                /* "" for the root itself */
	int fd;
	unsigned sets;             /* .report files written */
} ksub;

struct ying_keeper {
	char *root;                /* realpath */
	int fd;
	dev_t dev;
	ino_t ino;
	YI_VEC(ksub) subs;
};

int
ying_keeper_open(ying_keeper **out, const char *dir)
{
	ying_keeper *k;
	yi_rdir rd;
	int rc;

	yi_error_clear();
	if (out == NULL || dir == NULL || dir[0] == '\0')
		return yi_error(YING_EINVAL, "ying_keeper_open: no directory");
	*out = NULL;
	memset(&rd, 0, sizeof(rd));
	if ((rc = yi_rdir_open(&rd, dir)) != 0)
		return rc;
	if ((k = yi_calloc(1, sizeof(*k))) == NULL || (k->root = yi_strdup(rd.real)) == NULL) {
		yi_free(k);
		yi_rdir_close(&rd);
		return yi_oom("opening the report keeper");
	}
	/* the keeper's own descriptor, not the runner's registered one */
	k->fd = fcntl(rd.fd, F_DUPFD_CLOEXEC, 3);
	k->dev = rd.dev;
	k->ino = rd.ino;
	yi_rdir_close(&rd);
	if (k->fd < 0) {
		rc = yi_error(YING_EIO, "cannot hold %s: %s", dir, strerror(errno));
		ying_keeper_close(k);
		return rc;
	}
	*out = k;
	return 0;
}

void
ying_keeper_close(ying_keeper *k)
{
	if (k == NULL)
		return;
	for (size_t i = 0; i < k->subs.n; i++) {
		if (k->subs.v[i].fd >= 0 && k->subs.v[i].fd != k->fd)
			close(k->subs.v[i].fd);
		yi_free(k->subs.v[i].name);
	}
	yi_vec_free(&k->subs);
	if (k->fd >= 0)
		close(k->fd);
	yi_free(k->root);
	yi_free(k);
}

int
ying_keeper_count(const ying_keeper *k, size_t i, const char **subdir, unsigned *sets)
{
	if (k == NULL || i >= k->subs.n)
		return -1;
	if (subdir)
		*subdir = k->subs.v[i].name;
	if (sets)
		*sets = k->subs.v[i].sets;
	return 0;
}

/* The directory dir names (the root or one subdirectory of it), made when
 * missing; NULL and an error when it is neither, or not private. */
static ksub *
keeper_dir(ying_keeper *k, const char *dir)
{
	size_t rl = strlen(k->root), i;
	const char *sub;
	struct stat st;
	ksub *s;
	int fd;

	if (strcmp(dir, k->root) == 0)
		sub = "";
	else if (strncmp(dir, k->root, rl) == 0 && dir[rl] == '/' &&
	    yi_report_subdir_ok(dir + rl + 1))
		sub = dir + rl + 1;
	else {
		yi_error(YING_EINVAL, "%s: not %s nor a per-process directory "
		    "(PROGRAM.PID[.ROLE]) in it", dir, k->root);
		return NULL;
	}
	for (i = 0; i < k->subs.n; i++)
		if (strcmp(k->subs.v[i].name, sub) == 0)
			return &k->subs.v[i];
	if (k->subs.n >= KEEPER_MAX_SUBDIRS) {
		yi_error(YING_EINVAL, "%s: more than %d per-process directories", dir,
		    KEEPER_MAX_SUBDIRS);
		return NULL;
	}
	if (sub[0] == '\0') {
		fd = k->fd;
	} else {
		if (mkdirat(k->fd, sub, 0700) != 0 && errno != EEXIST) {
			yi_error(YING_EIO, "cannot create %s: %s", dir, strerror(errno));
			return NULL;
		}
		fd = openat(k->fd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			yi_error(YING_EIO, "cannot open %s: %s", dir, strerror(errno));
			return NULL;
		}
		if (fstat(fd, &st) != 0 || st.st_uid != geteuid() ||
		    (st.st_mode & (S_IWGRP | S_IWOTH))) {
			close(fd);
			yi_error(YING_EIO, "%s is not private to uid %ld", dir, (long)geteuid());
			return NULL;
		}
	}
	if (yi_vec_grow(&k->subs, 1) != 0) {
		if (fd != k->fd)
			close(fd);
		return NULL;
	}
	s = &k->subs.v[k->subs.n];
	if ((s->name = yi_strdup(sub)) == NULL) {
		if (fd != k->fd)
			close(fd);
		yi_oom("the report keeper");
		return NULL;
	}
	s->fd = fd;
	s->sets = 0;
	k->subs.n++;
	return s;
}

/* Copy the regular file `from` (at most KEEPER_MAX_FILE bytes) into dfd/name. */
static int
keeper_put(ksub *s, const char *dir, const char *name, int from)
{
	char tmp[NAME_MAX + 1], buf[65536];
	struct stat st;
	off_t off = 0;
	int fd, rc = 0;

	if (fstat(from, &st) != 0 || !S_ISREG(st.st_mode))
		return yi_error(YING_EINVAL, "%s/%s: not a regular file", dir, name);
	if ((uint64_t)st.st_size > KEEPER_MAX_FILE)
		return yi_error(YING_EINVAL, "%s/%s: %lld bytes, more than %llu", dir, name,
		    (long long)st.st_size, (unsigned long long)KEEPER_MAX_FILE);
	if ((size_t)snprintf(tmp, sizeof(tmp), ".ying-tmp.%ld.%s", (long)getpid(),
	    name) >= sizeof(tmp))
		return yi_error(YING_EINVAL, "%s/%s: name too long", dir, name);
	if ((fd = yi_tmp_create(s->fd, tmp, 0600, true)) < 0)
		return yi_error(YING_EIO, "cannot create %s/%s: %s", dir, tmp, strerror(errno));
	while (off < st.st_size) {
		size_t want = (size_t)(st.st_size - off) < sizeof(buf) ?
		    (size_t)(st.st_size - off) : sizeof(buf);
		ssize_t n = pread(from, buf, want, off), w = 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;        /* shrunk under us: what there is */
		while (w < n) {
			ssize_t m = write(fd, buf + w, (size_t)(n - w));
			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0) {
				rc = yi_error(YING_EIO, "cannot write %s/%s: %s", dir, tmp,
				    strerror(m < 0 ? errno : ENOSPC));
				break;
			}
			w += m;
		}
		if (rc != 0)
			break;
		off += n;
	}
	if (close(fd) != 0 && rc == 0)
		rc = yi_error(YING_EIO, "cannot write %s/%s: %s", dir, tmp, strerror(errno));
	if (rc == 0 && yi_tmp_commit(s->fd, tmp, name) != 0)
		rc = yi_error(YING_EIO, "cannot rename %s/%s: %s", dir, tmp, strerror(errno));
	if (rc != 0)
		yi_tmp_discard(s->fd, tmp);
	else if (strlen(name) > 7 && strcmp(name + strlen(name) - 7, ".report") == 0)
		s->sets++;
	return rc;
}

/* The message's three lines: header, DIR, NAME (or KEEP). */
static int
keeper_do(ying_keeper *k, char *msg, int fd)
{
	char *l1 = msg, *l2, *l3, *end;
	ksub *s;
	size_t bl;

	if (strncmp(msg, SINK_MAGIC, strlen(SINK_MAGIC)) != 0 ||
	    (l2 = strchr(l1, '\n')) == NULL || (*l2++ = '\0', (l3 = strchr(l2, '\n')) == NULL) ||
	    (*l3++ = '\0', (end = strchr(l3, '\n')) == NULL) || end[1] != '\0')
		return yi_error(YING_EINVAL, "not a report keeper message");
	*end = '\0';
	l1 += strlen(SINK_MAGIC);
	if (strcmp(l1, "put") == 0) {
		if (fd < 0)
			return yi_error(YING_EINVAL, "put %s/%s: no file came with it", l2, l3);
		if (strchr(l3, '/') != NULL || l3[0] == '.' || !yi_report_parse_name(l3, &bl))
			return yi_error(YING_EINVAL, "put %s/%s: not a report file name", l2, l3);
		if ((s = keeper_dir(k, l2)) == NULL)
			return YING_EINVAL;
		return keeper_put(s, l2, l3, fd);
	}
	if (strncmp(l1, "prune ", 6) == 0) {
		unsigned long long sets, bytes;
		char *e, keep[NAME_MAX + 1];
		errno = 0;
		sets = strtoull(l1 + 6, &e, 10);
		if (errno || *e != ' ' || sets > UINT_MAX)
			return yi_error(YING_EINVAL, "prune: bad count");
		bytes = strtoull(e + 1, &e, 10);
		if (errno || *e != '\0')
			return yi_error(YING_EINVAL, "prune: bad size");
		if (l3[0] != '\0' && ((size_t)snprintf(keep, sizeof(keep), "%s.report", l3) >=
		    sizeof(keep) || strchr(l3, '/') != NULL || !yi_report_parse_name(keep, &bl)))
			return yi_error(YING_EINVAL, "prune: %s is not a report set", l3);
		if ((s = keeper_dir(k, l2)) == NULL)
			return YING_EINVAL;
		return yi_runner_prune_at(s->fd, l2, (unsigned)sets, (uint64_t)bytes,
		    l3[0] ? l3 : NULL) < 0 ? YING_EIO : 0;
	}
	return yi_error(YING_EINVAL, "unknown report keeper request '%.40s'", l1);
}

int
ying_keeper_serve(ying_keeper *k, int sock)
{
	char msg[SINK_MSG_MAX + 1];
	union { struct cmsghdr h; char b[CMSG_SPACE(4 * sizeof(int))]; } cm;
	struct iovec iov = { msg, SINK_MSG_MAX };
	struct msghdr mh;
	struct cmsghdr *c;
	int fds[8], nfd = 0, rc;
	ssize_t n;

	yi_error_clear();
	if (k == NULL || sock < 0)
		return yi_error(YING_EINVAL, "ying_keeper_serve: bad argument");
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cm.b;
	mh.msg_controllen = sizeof(cm.b);
	while ((n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT)) < 0 && errno == EINTR)
		;
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n < 0)
		return yi_error(YING_EIO, "report keeper: %s", strerror(errno));
	if (n == 0 && mh.msg_controllen == 0)
		return 2;                     /* every sender is gone */
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int) &&
			    nfd < 8; i++)
				memcpy(&fds[nfd++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
	msg[n] = '\0';
	if ((mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || nfd > 1 ||
	    memchr(msg, '\0', (size_t)n) != NULL)
		rc = yi_error(YING_EINVAL, "report keeper: a message too long, with "
		    "more than one file, or not text");
	else
		rc = keeper_do(k, msg, nfd ? fds[0] : -1);
	for (int i = 0; i < nfd; i++)
		close(fds[i]);
	return rc == 0 ? 1 : rc;
}
