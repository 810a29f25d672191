/*
 * live_family_req.c: finding and asking a family's members (live_family.h
 * says what a family is): the members listed from the kernel's socket
 * table (/proc/net/unix: listening abstract sockets "@ying.ID.PID", each
 * checked alive and a descendant of the caller), one HTTP/1.0 request to a
 * member over its socket (the listener checked by SO_PEERCRED, every step
 * bounded in time and size, every failure an error naming the pid), and
 * what /proc says of a process (parent, user, program, title, role, start
 * time, RSS) for /debug/processes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "live_family.h"
#include "live_family_int.h"

/* ---- the members: /proc/net/unix -------------------------------------------- */

static int
pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

size_t
yi_family_parse_unix(const char *text, const char *id, pid_t *out, size_t max)
{
	char prefix[64];
	size_t pl, n = 0;
	const char *line = text;

	if (id == NULL || id[0] == '\0' || max == 0)
		return 0;
	pl = (size_t)snprintf(prefix, sizeof(prefix), "@ying.%s.", id);
	while (line && *line) {
		const char *eol = strchr(line, '\n'), *path;
		unsigned long flags = 0;
		char num[32];
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		long pid;
		char *end;

		/* "Num: RefCount Protocol Flags Type St Inode Path": the path is
		 * the eighth field; a listener has __SO_ACCEPTCON (0x10000) */
		path = memchr(line, '@', len);
		if (path && sscanf(line, "%31s %*s %*s %lx", num, &flags) == 2 &&
		    (flags & 0x10000) && (size_t)(line + len - path) > pl &&
		    strncmp(path, prefix, pl) == 0) {
			errno = 0;
			pid = strtol(path + pl, &end, 10);
			if (errno == 0 && end == line + len && pid > 0 && pid <= INT_MAX &&
			    path[pl] != '0' && path[pl] != '+' && path[pl] != '-') {
				bool dup = false;
				for (size_t i = 0; i < n && !dup; i++)
					dup = out[i] == (pid_t)pid;
				if (!dup)
					out[n++] = (pid_t)pid;
				if (n == max)
					break;
			}
		}
		line = eol ? eol + 1 : NULL;
	}
	qsort(out, n, sizeof(*out), pid_cmp);
	return n;
}

/* The whole of a /proc file (at most max bytes) into a yi_malloc'd
 * NUL-terminated buffer; NULL with errno. */
static char *
slurp(const char *path, size_t max, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = yi_malloc(cap + 1), *nb;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t k;

	if (fd < 0 || buf == NULL) {
		int e = fd < 0 ? errno : ENOMEM;
		if (fd >= 0)
			close(fd);
		yi_free(buf);
		errno = e;
		return NULL;
	}
	for (;;) {
		if (n == cap) {
			if (cap >= max)
				break;
			cap *= 2;
			if ((nb = yi_realloc(buf, cap + 1)) == NULL) {
				close(fd);
				yi_free(buf);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
		}
		k = read(fd, buf + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

int
yi_family_members(pid_t **out, size_t *n)
{
	const char *id = yi_family_id();
	pid_t *v, me = getpid();
	size_t k, m = 0;
	char *text;

	*out = NULL;
	*n = 0;
	if (id[0] == '\0')
		return 0;
	if ((text = slurp("/proc/net/unix", (size_t)64 << 20, NULL)) == NULL)
		return yi_error(YING_ESYS, "listing the members: /proc/net/unix: %s",
		    strerror(errno));
	if ((v = yi_calloc(YI_FAMILY_MAX_MEMBERS, sizeof(*v))) == NULL) {
		yi_free(text);
		return yi_oom("listing the members");
	}
	k = yi_family_parse_unix(text, id, v, YI_FAMILY_MAX_MEMBERS);
	yi_free(text);
	for (size_t i = 0; i < k; i++)
		if (v[i] != me && (kill(v[i], 0) == 0 || errno == EPERM) &&
		    yi_proc_descends(v[i], me))
			v[m++] = v[i];
	*out = v;
	*n = m;
	return 0;
}

/* ---- one request to a member ---------------------------------------------- */

static long
ms_left(const struct timespec *dl)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long)(dl->tv_sec - now.tv_sec) * 1000 + (dl->tv_nsec - now.tv_nsec) / 1000000;
}

/* Wait for fd to be ready for ev until the deadline: 0, or an error. */
static int
wait_fd(int fd, short ev, const struct timespec *dl, pid_t pid, const char *what)
{
	for (;;) {
		struct pollfd pf = { fd, ev, 0 };
		long left = ms_left(dl);
		int r;

		if (left <= 0)
			return yi_error(YING_EBUSY, "process %ld: no answer while %s "
			    "(timed out)", (long)pid, what);
		r = poll(&pf, 1, (int)(left > INT_MAX ? INT_MAX : left));
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return yi_error(YING_ESYS, "process %ld: poll while %s: %s", (long)pid,
			    what, strerror(errno));
	}
}

static int
send_all(int fd, const char *p, size_t n, const struct timespec *dl, pid_t pid)
{
	while (n > 0) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
		if (k > 0) {
			p += k;
			n -= (size_t)k;
			continue;
		}
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			int rc = wait_fd(fd, POLLOUT, dl, pid, "sending the request");
			if (rc != 0)
				return rc;
			continue;
		}
		return yi_error(YING_ESYS, "process %ld: sending the request: %s",
		    (long)pid, k < 0 ? strerror(errno) : "connection closed");
	}
	return 0;
}

int
yi_family_parse_resp(char *buf, size_t len, pid_t pid, yi_family_resp *r)
{
	char *hend = NULL, *p, *eol;
	size_t hl;
	int st;

	for (size_t i = 0; i + 3 < len || (i + 1 < len && hend == NULL); i++) {
		if (i + 3 < len && memcmp(buf + i, "\r\n\r\n", 4) == 0) {
			hend = buf + i;
			hl = 4;
			break;
		}
		if (memcmp(buf + i, "\n\n", 2) == 0) {
			hend = buf + i;
			hl = 2;
			break;
		}
	}
	if (hend == NULL)
		return yi_error(YING_EPARSE, "process %ld: malformed answer (no end of the "
		    "headers in %zu bytes)", (long)pid, len);
	*hend = '\0';
	if (strncmp(buf, "HTTP/1.", 7) != 0 || (buf[7] != '0' && buf[7] != '1') ||
	    buf[8] != ' ' || sscanf(buf + 9, "%3d", &st) != 1 || st < 100 || st > 599 ||
	    (buf[12] != ' ' && buf[12] != '\r' && buf[12] != '\n' && buf[12] != '\0'))
		return yi_error(YING_EPARSE, "process %ld: malformed answer (status line "
		    "\"%.40s\")", (long)pid, buf);
	r->status = st;
	r->ctype[0] = '\0';
	for (p = strchr(buf, '\n'); p != NULL; p = eol) {
		p++;
		eol = strchr(p, '\n');
		if (eol)
			*eol = '\0';
		if (strncasecmp(p, "Content-Type:", 13) == 0) {
			char *v = p + 13;
			size_t k;
			while (*v == ' ' || *v == '\t')
				v++;
			k = strcspn(v, "\r");
			if (k >= sizeof(r->ctype))
				k = sizeof(r->ctype) - 1;
			memcpy(r->ctype, v, k);
			r->ctype[k] = '\0';
		}
	}
	hl += (size_t)(hend - buf);
	memmove(buf, buf + hl, len - hl);
	r->len = len - hl;
	buf[r->len] = '\0';
	r->body = buf;
	return 0;
}

int
yi_family_request(pid_t pid, const char *method, const char *target,
    const char *auth, const void *body, size_t blen, size_t max, int timeout_ms,
    yi_family_resp *r)
{
	struct sockaddr_un sa;
	struct ucred cr;
	socklen_t sl, cl = sizeof(cr);
	struct timespec dl;
	char *head = NULL, *buf = NULL, *nb;
	size_t cap = 16384, n = 0, hl = 0;
	int fd = -1, rc;

	memset(r, 0, sizeof(*r));
	if (yi_family_id()[0] == '\0')
		return yi_error(YING_EINVAL, "process %ld: this process belongs to no family",
		    (long)pid);
	if (pid <= 0 || method == NULL || target == NULL || target[0] != '/' ||
	    strpbrk(target, " \r\n") || strpbrk(method, " \r\n") ||
	    (auth && strpbrk(auth, "\r\n")))
		return yi_error(YING_EINVAL, "process %ld: bad request to forward", (long)pid);
	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += timeout_ms / 1000;
	dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	sl = yi_family_addr(&sa, yi_family_id(), pid);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
		return yi_error(YING_ESYS, "process %ld: socket: %s", (long)pid,
		    strerror(errno));
	if (connect(fd, (struct sockaddr *)&sa, sl) != 0) {
		if (errno == EINPROGRESS || errno == EAGAIN) {
			int e = 0;
			socklen_t el = sizeof(e);
			if ((rc = wait_fd(fd, POLLOUT, &dl, pid, "connecting")) != 0)
				goto out;
			if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) != 0 || e != 0) {
				errno = e;
				goto refused;
			}
		} else {
refused:
			rc = yi_error(YING_ENOTFOUND, "process %ld: its endpoint does not answer "
			    "(%s): gone, or not a profiled member", (long)pid,
			    errno == ECONNREFUSED || errno == ENOENT ? "refused" : strerror(errno));
			goto out;
		}
	}
	/* the listener must be the process the name says (anyone may bind an
	 * abstract name) */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) != 0 || cr.pid != pid) {
		rc = yi_error(YING_EINVAL, "process %ld: the socket @ying.%s.%ld is held by "
		    "process %ld, not by %ld: not asked", (long)pid, yi_family_id(),
		    (long)pid, (long)cr.pid, (long)pid);
		goto out;
	}
	{
		/* the head and the body in one write */
		size_t hn = strlen(method) + strlen(target) + (auth ? strlen(auth) : 0) + 160;
		if (blen > SIZE_MAX / 2 || (head = yi_malloc(hn + (body ? blen : 0))) == NULL) {
			rc = yi_oom("a request to a member");
			goto out;
		}
		hl = (size_t)snprintf(head, hn, "%s %s HTTP/1.0\r\nHost: localhost\r\n"
		    "Connection: close\r\n%s%s%sContent-Length: %zu\r\n\r\n", method, target,
		    auth ? "Authorization: " : "", auth ? auth : "", auth ? "\r\n" : "",
		    body ? blen : 0);
	}
	if (body && blen)
		memcpy(head + hl, body, blen);
	if ((rc = send_all(fd, head, hl + (body ? blen : 0), &dl, pid)) != 0)
		goto out;
	shutdown(fd, SHUT_WR);
	if ((buf = yi_malloc(cap + 1)) == NULL) {
		rc = yi_oom("reading a member's answer");
		goto out;
	}
	for (;;) {
		ssize_t k;
		if (n == cap) {
			if (cap > max + 65536) {
				rc = yi_error(YING_ELIMIT, "process %ld: answer too large (more "
				    "than %zu bytes)", (long)pid, max);
				goto out;
			}
			cap *= 2;
			if ((nb = yi_realloc(buf, cap + 1)) == NULL) {
				rc = yi_oom("reading a member's answer");
				goto out;
			}
			buf = nb;
		}
		k = recv(fd, buf + n, cap - n, 0);
		if (k > 0) {
			n += (size_t)k;
			continue;
		}
		if (k == 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			if ((rc = wait_fd(fd, POLLIN, &dl, pid, "reading the answer")) != 0)
				goto out;
			continue;
		}
		rc = yi_error(YING_ESYS, "process %ld: reading the answer: %s", (long)pid,
		    strerror(errno));
		goto out;
	}
	if ((rc = yi_family_parse_resp(buf, n, pid, r)) != 0)
		goto out;
	if (r->len > max) {
		rc = yi_error(YING_ELIMIT, "process %ld: answer too large (%zu bytes, at most "
		    "%zu)", (long)pid, r->len, max);
		r->body = NULL;
		goto out;
	}
	buf = NULL;     /* r->body */
out:
	if (fd >= 0)
		close(fd);
	yi_free(head);
	yi_free(buf);
	if (rc != 0)
		memset(r, 0, sizeof(*r));
	return rc;
}

void
yi_family_resp_free(yi_family_resp *r)
{
	if (r == NULL)
		return;
	yi_free(r->body);
	r->body = NULL;
	r->len = 0;
}

/* ---- what /proc says of a process ------------------------------------------- */

/* The part of title that says what this process of program does: nginx's
 * "nginx: worker process" -> "worker process", postgres's "postgres: 15/main:
 * checkpointer" -> "checkpointer", a backend's "postgres: 15/main: alice db
 * [local] idle" -> "alice db [local] idle".  Empty when the title does not
 * start with "PROGRAM: " (argv not rewritten). */
void
yi_proc_role(const char *program, const char *title, char *out, size_t n)
{
	size_t pl = strlen(program), k;
	const char *r = NULL, *c;

	if (n == 0)
		return;
	out[0] = '\0';
	if (pl && strncmp(title, program, pl) == 0 && title[pl] == ':' && title[pl + 1] == ' ')
		r = title + pl + 2;
	if (r == NULL)
		return;
	/* postgres: "15/main: ROLE" (cluster name, then the role) */
	if ((c = strstr(r, ": ")) != NULL && c - r < 32 && memchr(r, ' ', (size_t)(c - r)) == NULL)
		r = c + 2;
	while (*r == ' ')
		r++;
	for (k = 0; r[k] && k + 1 < n; k++)
		out[k] = (unsigned char)r[k] < 0x20 ? ' ' : r[k];
	while (k > 0 && out[k - 1] == ' ')
		k--;
	out[k] = '\0';
}

void
yi_proc_role_slug(const char *role, char *out, size_t n)
{
	size_t k = 0;
	bool dash = false;

	for (; *role && k + 1 < n && k < 40; role++) {
		char c = *role;
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
			if (dash && k > 0 && k + 2 < n)
				out[k++] = '-';
			out[k++] = c;
			dash = false;
		} else {
			dash = true;
		}
	}
	out[k] = '\0';
}

static int64_t
boot_time(void)
{
	char *s = slurp("/proc/stat", (size_t)1 << 20, NULL), *p;
	long long bt = 0;

	if (s == NULL)
		return 0;
	if ((p = strstr(s, "\nbtime ")) != NULL)
		bt = strtoll(p + 7, NULL, 10);
	yi_free(s);
	return bt;
}

int
yi_proc_info_get(pid_t pid, yi_proc_info *pi)
{
	char path[64], buf[PATH_MAX], *s, *p;
	struct stat st;
	ssize_t k;
	size_t len;

	memset(pi, 0, sizeof(*pi));
	pi->pid = pid;
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((s = slurp(path, 8192, NULL)) == NULL)
		return yi_error(errno == ENOENT ? YING_ENOTFOUND : YING_ESYS,
		    "process %ld: %s: %s", (long)pid, path, strerror(errno));
	if ((p = strrchr(s, ')')) != NULL) {
		char *o = strchr(s, '(');
		long pp = 0;
		unsigned long long start = 0;
		if (o && o < p) {
			size_t cl = (size_t)(p - o - 1);
			if (cl >= sizeof(pi->program))
				cl = sizeof(pi->program) - 1;
			memcpy(pi->program, o + 1, cl);
			pi->program[cl] = '\0';
		}
		/* after ")": state ppid ... field 22 (starttime) is the 20th */
		if (sscanf(p + 1, " %*c %ld %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
		    "%*s %*s %*s %*s %*s %*s %llu", &pp, &start) == 2) {
			long hz = sysconf(_SC_CLK_TCK);
			pi->ppid = (pid_t)pp;
			if (hz > 0)
				pi->start_time = boot_time() + (int64_t)(start / (unsigned long long)hz);
		}
	}
	yi_free(s);
	snprintf(path, sizeof(path), "/proc/%ld", (long)pid);
	if (stat(path, &st) == 0) {
		struct passwd pw, *res = NULL;
		char pwbuf[1024];
		pi->uid = st.st_uid;
		if (getpwuid_r(st.st_uid, &pw, pwbuf, sizeof(pwbuf), &res) == 0 && res)
			snprintf(pi->user, sizeof(pi->user), "%s", res->pw_name);
		else
			snprintf(pi->user, sizeof(pi->user), "%ld", (long)st.st_uid);
	}
	snprintf(path, sizeof(path), "/proc/%ld/exe", (long)pid);
	if ((k = readlink(path, buf, sizeof(buf) - 1)) > 0) {
		char *b;
		buf[k] = '\0';
		if (k > 10 && strcmp(buf + k - 10, " (deleted)") == 0)
			buf[k - 10] = '\0';
		b = strrchr(buf, '/');
		b = b ? b + 1 : buf;
		len = strlen(b) < sizeof(pi->program) - 1 ? strlen(b) : sizeof(pi->program) - 1;
		memcpy(pi->program, b, len);
		pi->program[len] = '\0';
	}
	snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long)pid);
	if ((s = slurp(path, 4096, &len)) != NULL) {
		while (len > 0 && s[len - 1] == '\0')
			len--;
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
				s[i] = ' ';
		s[len] = '\0';
		if (len >= sizeof(pi->title))
			len = sizeof(pi->title) - 1;
		memcpy(pi->title, s, len);
		pi->title[len] = '\0';
		yi_free(s);
	}
	yi_proc_role(pi->program, pi->title, pi->role, sizeof(pi->role));
	snprintf(path, sizeof(path), "/proc/%ld/statm", (long)pid);
	if ((s = slurp(path, 4096, NULL)) != NULL) {
		unsigned long long size, res;
		long ps = sysconf(_SC_PAGESIZE);
		if (sscanf(s, "%llu %llu", &size, &res) == 2 && ps > 0)
			pi->rss = (uint64_t)res * (uint64_t)ps;
		yi_free(s);
	}
	return 0;
}
