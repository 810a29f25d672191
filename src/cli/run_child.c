/*
 * run_child.c: the child of `ying run`: the variables put into its
 * environment (run_set_env), and its life: forked with the signals ying run
 * passes on blocked, exec'd with YING_AGENT_PID and YING_RUN_FD (the pipe
 * on which the agents of CMD's processes tell what they profile and a
 * daemonizing CMD's survivor names itself) and YING_RUN_SINK (the report
 * keeper's socket: files of a process that switched user, written here),
 * as --user's user when given; then one poll loop (a signalfd, the pipe,
 * the keeper) while INT, TERM, HUP, QUIT, USR1, USR2, WINCH and ALRM sent
 * by other processes are forwarded, the agents' lines said (run_keep.c),
 * and its exit status returned (128 + N for a death by signal N); then the socket file of --http
 * unix:PATH is removed if nobody listens on it any more (run_unix_cleanup).
 * Also the agent's variables for what ying run's options asked
 * (run_agent_env), and the allocator frames the agent will read, checked
 * here (run_frames_env).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "fe.h"
#include "run.h"

int
run_set_env(const char *name, const char *value, bool verbose)
{
	if (setenv(name, value, 1) != 0) {
		fprintf(stderr, "%s: setenv %s: %s\n", cli_prog, name, strerror(errno));
		return -1;
	}
	if (verbose)
		fprintf(stderr, "%s: %s=%s\n", cli_prog, name, value);
	return 0;
}

/* ---- running the child ------------------------------------------------------ */

static const int forwarded[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH, SIGALRM
};

/* What run_child watches: the signals (a signalfd), the agents' pipe,
 * the report keeper's socket. */
typedef struct run_loop {
	int sigfd, pipe, sink;
	ying_keeper *keeper;
	run_watch w;
	bool pipe_eof;
} run_loop;

/* Serve what is waiting on the pipe and the keeper's socket. */
static void
loop_serve(run_loop *l, const struct pollfd *p)
{
	char buf[4096];
	ssize_t n;
	int r, k;

	if (l->pipe >= 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
		n = read(l->pipe, buf, sizeof(buf));
		if (n > 0)
			run_watch_feed(&l->w, buf, (size_t)n);
		else if (n == 0 || errno != EINTR)
			l->pipe_eof = true;
	}
	if (l->sink >= 0 && (p[2].revents & (POLLIN | POLLHUP | POLLERR))) {
		/* a bounded batch, so signals are not kept waiting */
		for (k = 0; k < 64 && (r = ying_keeper_serve(l->keeper, l->sink)) != 0; k++) {
			if (r == 2) {
				close(l->sink);
				l->sink = -1;
				break;
			}
			if (r < 0)
				fprintf(stderr, "%s: report keeper: %s\n", cli_prog,
				    ying_last_error());
		}
	}
}

/* Poll for up to ms (-1: until something comes); the pollfd set in p. */
static int
loop_poll(run_loop *l, struct pollfd *p, int ms)
{
	int r;

	p[0] = (struct pollfd){ l->sigfd, POLLIN, 0 };
	p[1] = (struct pollfd){ l->pipe_eof ? -1 : l->pipe, POLLIN, 0 };
	p[2] = (struct pollfd){ l->sink, POLLIN, 0 };
	while ((r = poll(p, 3, ms)) < 0 && errno == EINTR)
		;
	if (r > 0)
		loop_serve(l, p);
	return r;
}

/* After CMD's first process exited: a daemonizing program's survivor (a
 * process it forked that outlived it) says "follow PID WHAT" on the pipe
 * the agent got as YING_RUN_FD.  EOF: nothing of CMD holds the pipe any
 * more.  Waits at most FOLLOW_WAIT_MS; returns the survivor's pid or 0. */
#define FOLLOW_WAIT_MS 4000
static long
follow_daemon(run_loop *l, long first, const char *name, int code)
{
	struct pollfd p[3];
	long waited = 0;

	while (!l->pipe_eof && waited < FOLLOW_WAIT_MS) {
		int ms = l->w.follow ? 300 : 100;
		int r = loop_poll(l, p, ms);
		if (r < 0)
			break;
		if (r == 0) {
			/* a line came and then quiet: that one keeps running */
			if (l->w.follow && kill((pid_t)l->w.follow, 0) == 0)
				break;
			waited += ms;
		}
	}
	if (l->w.follow && kill((pid_t)l->w.follow, 0) == 0) {
		fprintf(stderr, "%s: %s (pid %ld) exited with status %d, but it "
		    "daemonized: pid %ld keeps running; its agent: %s\n", cli_prog,
		    name, first, code, l->w.follow, l->w.follow_what);
		return l->w.follow;
	}
	if (!l->pipe_eof)
		fprintf(stderr, "%s: %s (pid %ld) exited with status %d; a process it "
		    "started still runs, without the agent\n", cli_prog, name, first,
		    code);
	return 0;
}

/* The report keeper for a->keep_dir: *sock is the end CMD gets (-1 when
 * there is none).  Nothing kept is not an error: CMD then writes its
 * directory itself. */
static void
keeper_open(run_loop *l, const run_args *a, int *sock)
{
	int sv[2];

	*sock = -1;
	if (a->keep_dir == NULL)
		return;
	if (ying_keeper_open(&l->keeper, a->keep_dir) != 0) {
		fprintf(stderr, "%s: %s: %s; a process of CMD that switches user writes "
		    "no reports\n", cli_prog, a->keep_dir, ying_last_error());
		return;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		fprintf(stderr, "%s: socketpair: %s\n", cli_prog, strerror(errno));
		ying_keeper_close(l->keeper);
		l->keeper = NULL;
		return;
	}
	l->sink = sv[0];
	*sock = sv[1];
}

/* In the child: the pipe and the keeper's socket survive exec. */
static void
child_fds(int pipe_w, int sink)
{
	char buf[32];

	if (fcntl(pipe_w, F_SETFD, 0) == 0) {
		snprintf(buf, sizeof(buf), "%d", pipe_w);
		setenv("YING_RUN_FD", buf, 1);
	}
	if (sink >= 0 && fcntl(sink, F_SETFD, 0) == 0) {
		snprintf(buf, sizeof(buf), "%d", sink);
		setenv("YING_RUN_SINK", buf, 1);
	} else {
		unsetenv("YING_RUN_SINK");
	}
}

int
run_child(const char *path, char **argv, const run_args *a)
{
	sigset_t set, old;
	struct sigaction dfl, old_chld;
	pid_t pid, parent = getpid();
	int status = 0, pfd[2], csink = -1, rc;
	bool done = false;
	run_loop l;
	struct pollfd p[3];

	memset(&l, 0, sizeof(l));
	l.sink = -1;
	l.w.quiet = a->quiet;
	l.w.verbose = a->verbose;
	l.w.dir = a->keep_dir ? a->keep_dir : a->dir ? a->dir : getenv("YING_REPORT_DIR");
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&set, forwarded[i]);
	sigaddset(&set, SIGCHLD);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	/* SIGCHLD must not be ignored, or the child is reaped behind our back. */
	sigaction(SIGCHLD, &dfl, &old_chld);
	sigprocmask(SIG_BLOCK, &set, &old);
	if (pipe2(pfd, O_CLOEXEC) != 0) {
		fprintf(stderr, "%s: pipe: %s\n", cli_prog, strerror(errno));
		return CLI_EXIT_ERR;
	}
	if ((l.sigfd = signalfd(-1, &set, SFD_CLOEXEC)) < 0) {
		fprintf(stderr, "%s: signalfd: %s\n", cli_prog, strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return CLI_EXIT_ERR;
	}
	l.pipe = pfd[0];
	keeper_open(&l, a, &csink);
	fflush(NULL);
	if ((pid = fork()) < 0) {
		fprintf(stderr, "%s: fork: %s\n", cli_prog, strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return CLI_EXIT_ERR;
	}
	if (pid == 0) {
		char buf[32];
		child_fds(pfd[1], csink);
		sigaction(SIGCHLD, &old_chld, NULL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		/* --user: after everything was opened, right before exec (and
		 * before the death signal, which a change of user clears) */
		if (run_become_user(a) != 0)
			_exit(126);
		/* If ying run is killed, the program gets SIGTERM rather than
		 * running on unsupervised. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(128 + SIGTERM);
		snprintf(buf, sizeof(buf), "%ld", (long)getpid());
		setenv("YING_AGENT_PID", buf, 1);
		execv(path, argv);
		fprintf(stderr, "%s: cannot run %s: %s\n", cli_prog, path, strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	l.w.head = (long)pid;
	if (csink >= 0)
		close(csink);
	close(pfd[1]);
	while (!done) {
		struct signalfd_siginfo si;
		ssize_t n;

		if (loop_poll(&l, p, -1) < 0) {
			fprintf(stderr, "%s: poll: %s\n", cli_prog, strerror(errno));
			break;
		}
		if (!(p[0].revents & POLLIN))
			continue;
		if ((n = read(l.sigfd, &si, sizeof(si))) != (ssize_t)sizeof(si))
			continue;
		if ((int)si.ssi_signo == SIGCHLD) {
			if (waitpid(pid, &status, WNOHANG) == pid)
				done = true;
			continue;
		}
		/* Signals from the terminal (SI_KERNEL) reach the child directly:
		 * it is in our process group.  Pass on those sent by processes. */
		if (si.ssi_code == SI_KERNEL || (pid_t)si.ssi_pid == pid)
			continue;
		kill(pid, (int)si.ssi_signo);
	}
	/* The forwarded signals stay blocked: one that comes now, with the
	 * program gone, must not replace its exit status by our death. */
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&old, forwarded[i]);
	sigprocmask(SIG_SETMASK, &old, NULL);
	rc = CLI_EXIT_ERR;
	if (WIFEXITED(status)) {
		const char *b = strrchr(path, '/');
		follow_daemon(&l, (long)pid, b ? b + 1 : path, WEXITSTATUS(status));
		rc = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		rc = 128 + WTERMSIG(status);
	}
	/* what the last processes handed over before they went */
	while (l.sink >= 0 && loop_poll(&l, p, 0) > 0)
		;
	run_watch_summary(&l.w, (long)pid, l.keeper);
	close(pfd[0]);
	close(l.sigfd);
	if (l.sink >= 0)
		close(l.sink);
	ying_keeper_close(l.keeper);
	return rc;
}

/* Is path a socket of ours nobody listens on?  Its identity in *st. */
static bool
stale_socket(const char *path, struct stat *st)
{
	struct sockaddr_un sa;
	int fd, r, e;

	if (lstat(path, st) != 0 || !S_ISSOCK(st->st_mode) || st->st_uid != geteuid() ||
	    strlen(path) >= sizeof(sa.sun_path))
		return false;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return false;
	r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	e = errno;
	close(fd);
	return r != 0 && e == ECONNREFUSED;
}

void
run_unix_cleanup(const char *path)
{
	struct stat a, b;

	/* the same file before and after the check: a survivor that just
	 * bound a new socket there keeps it */
	if (stale_socket(path, &a) && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino && a.st_ctim.tv_sec == b.st_ctim.tv_sec &&
	    a.st_ctim.tv_nsec == b.st_ctim.tv_nsec)
		unlink(path);
}

/* --frames ENTRIES added to an inherited YING_DROP_FRAMES, then the frames
 * file and the variable checked as every command checks them: a bad entry
 * is our error (the agent would only leave it out).  0 or -1 (said). */
static int
run_frames_env(const run_args *a)
{
	const char *e = getenv("YING_DROP_FRAMES");
	char why[700], *text = NULL, *v;
	int rc = 0;

	if (a->frames != NULL) {
		if ((v = malloc((e ? strlen(e) : 0) + strlen(a->frames) + 2)) == NULL)
			return -1;
		sprintf(v, "%s%s%s", e && *e ? e : "", e && *e ? ";" : "", a->frames);
		rc = run_set_env("YING_DROP_FRAMES", v, a->verbose);
		free(v);
	}
	if (rc == 0 && (rc = yfe_frames_load(&text, true, NULL, cli_prog, why,
	    sizeof(why))) != 0)
		fprintf(stderr, "%s: %s\n", cli_prog, why);
	free(text);
	return rc;
}

/* The agent's configuration, as the variables it reads.  The token reaches
 * it as a file (its path) or, with --token, in CMD's own environment
 * (never echoed); either way the agent erases YING_HTTP_TOKEN once read,
 * so what CMD starts never inherits it.  0 or -1. */
int
run_agent_env(const run_args *a, bool user_active)
{
	const struct { const char *var, *value; bool show; } env[] = {
		{ "YING_PROF_ACTIVATE", user_active ? NULL : "1", true },
		{ "YING_HTTP", a->http, true },
		{ "YING_HTTP_REQUIRED", a->http ? "1" : NULL, true },
		{ "YING_HTTP_TOKEN_FILE", a->token_file ? a->token_path : NULL, true },
		{ "YING_HTTP_TOKEN", a->token, false },
		{ "YING_HTTP_ALLOW_HOSTS", a->allow[0] ? a->allow : NULL, true },
		{ "YING_HTTP_INSECURE", a->insecure ? "1" : NULL, true },
		{ "YING_HTTP_OPEN", a->open_all ? "1" : NULL, true },
		{ "YING_REPORT_DIR", a->dir, true },
		{ "YING_REPORT_INTERVAL", a->interval, true },
		{ "YING_REPORT_PCT", a->pct, true },
		{ "YING_REPORT_FLOOR", a->floor_s, true },
		{ "YING_REPORT_PORTABLE_NAMES", a->portable ? "1" : NULL, true },
		{ "YING_REPORT_FULL_NAMES", a->full_names ? "1" : NULL, true },
		{ "YING_LIMIT", a->limit, true },
		{ "YING_LIMIT_REPORTS", a->limit_reports, true },
		{ "YING_DUMP_SIGNAL", a->sigs, true },
		{ "YING_RECENT_MAX", a->recent_max, true },
		{ "YING_GIANT", a->giant, true },
		{ "YING_CHILDREN", a->children, true },
		{ "YING_HEAPS", a->heaps, true },
		{ "YING_QUIET", a->quiet ? "1" : NULL, true },
		{ "YING_VERBOSE", a->verbose ? "1" : NULL, true },
	};

	for (size_t i = 0; i < sizeof(env) / sizeof(env[0]); i++)
		if (env[i].value && run_set_env(env[i].var, env[i].value,
		    env[i].show && a->verbose) != 0)
			return -1;
	return run_frames_env(a);
}
