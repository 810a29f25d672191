/*
 * write_graphviz.c: ying_graphviz_render, Graphviz `dot -Tsvg|pdf|png` run
 * on a DOT text with its output streamed to a sink.
 *
 * `dot` is spawned (posix_spawnp, so PATH decides; ENOENT is "not
 * installed") with stdin on one end of a socket pair (written with
 * MSG_NOSIGNAL: a dot that exits early is an error, never a SIGPIPE in the
 * caller's process) and stdout and stderr on pipes.  One poll loop writes
 * the input and reads both outputs as they come, so neither side can block
 * the other however big the graph or the picture; stdout goes straight to
 * the sink (nothing is held), stderr's first line is kept for the error.
 * Every descriptor is close-on-exec and registered with base_fd.c while
 * open (a fork in another thread does not keep them); the child is always
 * reaped, killed first when the sink fails.  SIGPIPE is reset to default
 * in the child, whatever the caller ignores.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "write.h"

extern char **environ;

#define ERRLINE 512

typedef struct proc {
	pid_t pid;
	int in, out, err;       /* our ends; -1 once closed */
	char errline[ERRLINE];
	size_t errlen;
	bool errdone;           /* first line complete */
} proc;

static void
close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

/* fds from pipe2 or socketpair (ok: the call succeeded), owned.  When
 * the caller has closed 0, 1 or 2 they may land there; the order of
 * creation (stdin's pair first, each pair's child end above its own) keeps
 * the child's dup2s onto 0, 1, 2 from clobbering an end not yet moved. */
static int
own_pair(int fds[2], bool ok, const char *what)
{
	if (!ok)
		return yi_error(YING_ESYS, "%s for Graphviz dot: %s", what, strerror(errno));
	return 0;
}

static void
close_pair(int fds[2])
{
	close_fd(&fds[0]);
	close_fd(&fds[1]);
}

/* Spawn `dot -T<format>`: child stdin from sv[1], stdout to po[1], stderr
 * to pe[1]. */
static int
spawn(proc *pr, const char *format)
{
	int sv[2] = { -1, -1 }, po[2] = { -1, -1 }, pe[2] = { -1, -1 };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t def, none;
	char targ[16];
	char *argv[3];
	int rc = 0, e;

	snprintf(targ, sizeof(targ), "-T%s", format);
	argv[0] = (char *)"dot";
	argv[1] = targ;
	argv[2] = NULL;
	if ((rc = own_pair(sv, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0,
	    "socketpair")) != 0)
		return rc;
	if ((rc = own_pair(po, pipe2(po, O_CLOEXEC) == 0, "pipe")) != 0 ||
	    (rc = own_pair(pe, pipe2(pe, O_CLOEXEC) == 0, "pipe")) != 0) {
		close_pair(sv);
		close_pair(po);
		return rc;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	posix_spawnattr_init(&at);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	sigemptyset(&none);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	e = posix_spawnp(&pr->pid, "dot", &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close_fd(&sv[1]);
	close_fd(&po[1]);
	close_fd(&pe[1]);
	if (e != 0) {
		close_fd(&sv[0]);
		close_fd(&po[0]);
		close_fd(&pe[0]);
		if (e == ENOENT)
			return yi_error(YING_ENOTFOUND, "Graphviz 'dot' not found on PATH: "
			    "install graphviz (apt-get install graphviz)");
		return yi_error(YING_ESYS, "cannot run Graphviz 'dot': %s", strerror(e));
	}
	pr->in = sv[0];
	pr->out = po[0];
	pr->err = pe[0];
	fcntl(pr->in, F_SETFL, fcntl(pr->in, F_GETFL) | O_NONBLOCK);
	return 0;
}

static void
keep_err(proc *pr, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n && !pr->errdone; i++) {
		if (b[i] == '\n') {
			if (pr->errlen > 0)
				pr->errdone = true;     /* skip leading empty lines */
			continue;
		}
		if (pr->errlen + 1 < ERRLINE)   /* no control byte in a message */
			pr->errline[pr->errlen++] = (unsigned char)b[i] < 0x20 ||
			    b[i] == 0x7f ? ' ' : b[i];
	}
	pr->errline[pr->errlen] = '\0';
}

/* Feed dot[0..len), stream stdout to fn; rc of the first failure. */
static int
pump(proc *pr, const char *dot, size_t len, ying_write_fn fn, void *opaque)
{
	char buf[65536];
	size_t off = 0;
	int rc = 0;

	if (len == 0)
		close_fd(&pr->in);
	while (pr->out >= 0 || pr->err >= 0) {
		struct pollfd pf[3];
		nfds_t n = 0;
		int iin = -1, iout = -1, ierr = -1;
		ssize_t r;

		if (pr->in >= 0) {
			pf[n].fd = pr->in;
			pf[n].events = POLLOUT;
			iin = (int)n++;
		}
		if (pr->out >= 0) {
			pf[n].fd = pr->out;
			pf[n].events = POLLIN;
			iout = (int)n++;
		}
		if (pr->err >= 0) {
			pf[n].fd = pr->err;
			pf[n].events = POLLIN;
			ierr = (int)n++;
		}
		if (poll(pf, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return yi_error(YING_ESYS, "poll on Graphviz dot: %s", strerror(errno));
		}
		if (iin >= 0 && pf[iin].revents) {
			r = send(pr->in, dot + off, len - off, MSG_NOSIGNAL);
			if (r > 0) {
				off += (size_t)r;
			} else if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR) {
				/* dot stopped reading (it failed: its status says why) */
				off = len;
			}
			if (off == len)
				close_fd(&pr->in);
		}
		if (iout >= 0 && pf[iout].revents) {
			r = read(pr->out, buf, sizeof(buf));
			if (r > 0) {
				if ((rc = fn(opaque, buf, (size_t)r)) != 0) {
					if (rc > 0 || ying_last_error()[0] == '\0')
						rc = yi_error(rc < 0 ? rc : YING_EIO,
						    "writing Graphviz output failed");
					return rc;
				}
			} else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
				close_fd(&pr->out);
			}
		}
		if (ierr >= 0 && pf[ierr].revents) {
			r = read(pr->err, buf, sizeof(buf));
			if (r > 0)
				keep_err(pr, buf, (size_t)r);
			else if (r == 0 || (errno != EINTR && errno != EAGAIN))
				close_fd(&pr->err);
		}
	}
	close_fd(&pr->in);
	return 0;
}

int
ying_graphviz_render(const char *format, const void *dot, size_t len,
    ying_write_fn fn, void *opaque)
{
	proc pr;
	int rc, st = 0;
	pid_t w;

	yi_error_clear();
	if (format == NULL || fn == NULL || (dot == NULL && len > 0))
		return yi_error(YING_EINVAL, "ying_graphviz_render: no format, input or sink");
	if (strcmp(format, "svg") != 0 && strcmp(format, "pdf") != 0 &&
	    strcmp(format, "png") != 0)
		return yi_error(YING_EINVAL, "Graphviz format '%.32s': svg, pdf or png", format);
	memset(&pr, 0, sizeof(pr));
	pr.in = pr.out = pr.err = -1;
	if ((rc = spawn(&pr, format)) != 0)
		return rc;
	rc = pump(&pr, dot, len, fn, opaque);
	if (rc != 0)
		kill(pr.pid, SIGKILL);
	close_fd(&pr.in);
	close_fd(&pr.out);
	close_fd(&pr.err);
	while ((w = waitpid(pr.pid, &st, 0)) < 0 && errno == EINTR)
		;
	if (rc != 0)
		return rc;
	if (w < 0)      /* SIGCHLD ignored by the caller: no status to check */
		return errno == ECHILD ? 0 :
		    yi_error(YING_ESYS, "waiting for Graphviz dot: %s", strerror(errno));
	if (WIFSIGNALED(st))
		return yi_error(YING_EPARSE, "Graphviz dot killed by signal %d%s%s",
		    WTERMSIG(st), pr.errlen ? ": " : "", pr.errline);
	if (WEXITSTATUS(st) != 0)
		return yi_error(YING_EPARSE, "Graphviz dot failed (exit %d)%s%s",
		    WEXITSTATUS(st), pr.errlen ? ": " : "", pr.errline);
	return 0;
}
