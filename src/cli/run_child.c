/*
 * run_child.c: the child of `ying run`: the variables put into its
 * environment (run_set_env), and its life: forked with the signals ying run
 * passes on blocked, exec'd with YING_AGENT_PID and YING_RUN_FD (the pipe
 * on which the agent in a daemonizing CMD's survivor names itself), waited
 * for with sigwaitinfo while INT, TERM, HUP, QUIT, USR1, USR2, WINCH and
 * ALRM sent by other processes are forwarded, and its exit status returned
 * (128 + N for a death by signal N); then the socket file of --http
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

/* After CMD's first process exited: a daemonizing program's survivor (a
 * process it forked that outlived it) says "follow PID WHAT" on the pipe
 * the agent got as YING_RUN_FD.  EOF: nothing of CMD holds the pipe any
 * more.  Waits at most FOLLOW_WAIT_MS; returns the survivor's pid or 0. */
#define FOLLOW_WAIT_MS 4000
static long
follow_daemon(int fd, long first, const char *name, int code)
{
	char buf[2048], line[1200] = "";
	size_t len = 0;
	long pid = 0, waited = 0;
	bool eof = false;

	while (!eof && waited < FOLLOW_WAIT_MS) {
		struct pollfd p = { fd, POLLIN, 0 };
		int r = poll(&p, 1, pid ? 300 : 100);
		ssize_t n;

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0) {
			/* a line came and then quiet: that one keeps running */
			if (pid && kill((pid_t)pid, 0) == 0)
				break;
			waited += pid ? 300 : 100;
			continue;
		}
		if (r < 0)
			break;
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n <= 0) {
			eof = n == 0 || errno != EINTR;
			continue;
		}
		len += (size_t)n;
		buf[len] = '\0';
		for (char *nl; (nl = strchr(buf, '\n')) != NULL; ) {
			char *end;
			long v;
			*nl = '\0';
			if (strncmp(buf, "follow ", 7) == 0 &&
			    (v = strtol(buf + 7, &end, 10)) > 0 && *end == ' ') {
				pid = v;
				snprintf(line, sizeof(line), "%s", end + 1);
			}
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len + 1);
		}
		if (len == sizeof(buf) - 1)
			len = 0;    /* no newline in 2 KiB: not ours */
	}
	if (pid && kill((pid_t)pid, 0) == 0) {
		fprintf(stderr, "%s: %s (pid %ld) exited with status %d, but it "
		    "daemonized: pid %ld keeps running; its agent: %s\n", cli_prog,
		    name, first, code, pid, line);
		return pid;
	}
	if (!eof)
		fprintf(stderr, "%s: %s (pid %ld) exited with status %d; a process it "
		    "started still runs, without the agent\n", cli_prog, name, first,
		    code);
	return 0;
}

int
run_child(const char *path, char **argv)
{
	sigset_t set, old;
	struct sigaction dfl, old_chld;
	pid_t pid, parent = getpid();
	int status = 0, pfd[2];

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
	fflush(NULL);
	if ((pid = fork()) < 0) {
		fprintf(stderr, "%s: fork: %s\n", cli_prog, strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return CLI_EXIT_ERR;
	}
	if (pid == 0) {
		char buf[32];
		/* The agent's line back to us (see follow_daemon). */
		if (fcntl(pfd[1], F_SETFD, 0) == 0) {
			snprintf(buf, sizeof(buf), "%d", pfd[1]);
			setenv("YING_RUN_FD", buf, 1);
		}
		sigaction(SIGCHLD, &old_chld, NULL);
		sigprocmask(SIG_SETMASK, &old, NULL);
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
	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(&set, &si);

		if (sig < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "%s: sigwaitinfo: %s\n", cli_prog, strerror(errno));
			break;
		}
		if (sig == SIGCHLD) {
			pid_t r = waitpid(pid, &status, WNOHANG);
			if (r == pid)
				break;
			continue;
		}
		/* Signals from the terminal (SI_KERNEL) reach the child directly:
		 * it is in our process group.  Pass on those sent by processes. */
		if (si.si_code == SI_KERNEL || si.si_pid == pid)
			continue;
		kill(pid, sig);
	}
	/* The forwarded signals stay blocked: one that comes now, with the
	 * program gone, must not replace its exit status by our death. */
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&old, forwarded[i]);
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(pfd[1]);
	if (WIFEXITED(status)) {
		const char *b = strrchr(path, '/');
		follow_daemon(pfd[0], (long)pid, b ? b + 1 : path, WEXITSTATUS(status));
		close(pfd[0]);
		return WEXITSTATUS(status);
	}
	close(pfd[0]);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return CLI_EXIT_ERR;
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
		{ "YING_DUMP_SIGNAL", a->sigs, true },
		{ "YING_RECENT_MAX", a->recent_max, true },
		{ "YING_GIANT", a->giant, true },
		{ "YING_QUIET", a->quiet ? "1" : NULL, true },
		{ "YING_VERBOSE", a->verbose ? "1" : NULL, true },
	};

	for (size_t i = 0; i < sizeof(env) / sizeof(env[0]); i++)
		if (env[i].value && run_set_env(env[i].var, env[i].value,
		    env[i].show && a->verbose) != 0)
			return -1;
	return run_frames_env(a);
}
