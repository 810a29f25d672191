/*
 * agent_fork.c: the agent across fork(), its line to `ying run`, and the
 * dump signal.
 *
 * The agent's threads stay in the parent.  A forked child closes its copy
 * of the listening socket at once (so it never holds the parent's port;
 * libying's own child handler, base_fd.c, closes the rest of what it owns:
 * the server's eventfd and connections, the runner's pipe, the uploader's
 * sockets),
 * gives the dump signal back its old action, and starts one small watcher
 * thread, which only acts if this process turns out to be the one that
 * keeps running: when its parent exits first, as a daemonizing program's
 * does, it brings the agent up here (agent.c's bring_up) on the parent's
 * port.  YING_RUN_FD is a pipe to `ying run`, identified by device and
 * inode so that a descriptor the program closed and reused is never
 * written to; the survivor names itself on it once.  The dump signal's
 * handler only pokes the runner (async-signal-safe).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

/* Fork following.  self_pid is this process; in a forked child it still
 * holds the parent's pid until atfork_child updates it.  agent_port is the
 * port the endpoint got (the survivor of a daemonizing program binds the
 * same one); http_listen_fd the socket a forked child must close. */
pid_t self_pid;
int agent_port;
int http_listen_fd = -1;
ino_t http_listen_ino;
/* Held while the endpoint starts and in fork's prepare handler, so that a
 * fork never falls between "socket open" and "http_listen_fd known". */
pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;

/* The line to `ying run` (YING_RUN_FD, a pipe): identified by device and
 * inode, so that a program that closed it and reused the number is never
 * written to. */
int run_fd = -1;
dev_t run_dev;
ino_t run_ino;

void
on_dump_signal(int sig)
{
	int saved = errno;
	ying_runner *r = atomic_load(&agent_runner);

	(void)sig;
	if (r && !atomic_load(&agent_forked) && getpid() == agent_pid)
		ying_runner_trigger(r);
	errno = saved;
}

/* True when run_fd is still the pipe `ying run` gave us. */
bool
run_fd_ok(void)
{
	struct stat st;

	return run_fd >= 0 && fstat(run_fd, &st) == 0 && S_ISFIFO(st.st_mode) &&
	    st.st_dev == run_dev && st.st_ino == run_ino;
}

/* One line to `ying run`, then the channel is closed: only the survivor of a
 * daemonizing program uses it. */
void
tell_run(const char *fmt, ...)
{
	char buf[1200];
	va_list ap;
	int n;

	if (!run_fd_ok())
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n > 0) {
		size_t len = (size_t)n < sizeof(buf) - 1 ? (size_t)n : sizeof(buf) - 2;
		for (size_t i = 0; i < len; i++)
			if (buf[i] == '\n')
				buf[i] = ' ';
		buf[len++] = '\n';
		while (write(run_fd, buf, len) < 0 && errno == EINTR)
			;
	}
	close(run_fd);
	run_fd = -1;
}

static void *watcher(void *arg);

void
atfork_prepare(void)
{
	pthread_mutex_lock(&fork_lock);
}

void
atfork_parent(void)
{
	pthread_mutex_unlock(&fork_lock);
}

void
atfork_child(void)
{
	struct sigaction cur;
	pthread_attr_t attr;
	pthread_t t;
	sigset_t all, old;
	pid_t parent = self_pid;

	self_pid = getpid();
	atomic_store(&agent_forked, true);
	pthread_mutex_init(&fork_lock, NULL);
	/* The parent's port is the parent's: drop our copy now (if that number
	 * is still the socket: the server may have been stopped since). */
	if (http_listen_fd >= 0) {
		struct stat st;
		if (fstat(http_listen_fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
		    st.st_ino == http_listen_ino)
			close(http_listen_fd);
		http_listen_fd = -1;
	}
	/* A child that execs does not pass the line to `ying run` on. */
	if (run_fd_ok())
		fcntl(run_fd, F_SETFD, FD_CLOEXEC);
	else
		run_fd = -1;
	/* Whatever the parent's threads held is held forever here: the locks
	 * start over, and the parent's server and runner are not ours (their
	 * threads are gone; their memory is left alone). */
	pthread_mutex_init(&agent_lock, NULL);
	pthread_mutex_init(&stop_lock, NULL);
	pthread_cond_init(&stop_cond, NULL);
	pthread_mutex_init(&ready_lock, NULL);
	pthread_cond_init(&ready_cond, NULL);
	agent_stopping = false;
	agent_stopped = false;
	agent_http = NULL;
	agent_pyro = NULL;
	atomic_store(&agent_runner, NULL);
	/* The child has no runner: give the signal its default action back,
	 * unless the program installed its own handler meanwhile. */
	if (agent_sa_installed && sigaction(cfg_signal, NULL, &cur) == 0 &&
	    cur.sa_handler == on_dump_signal)
		sigaction(cfg_signal, &agent_old_sa, NULL);
	/* The watcher: it only acts if the parent exits first. */
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_create(&t, &attr, watcher, (void *)(intptr_t)parent);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
}

/* A forked child's watcher: waits while the parent lives; if this process
 * outlives it, the agent moves here. */
static void *
watcher(void *arg)
{
	pid_t parent = (pid_t)(intptr_t)arg;
	struct sigaction cur;

	ying_ctl_quiet_thread();
	pthread_setname_np(pthread_self(), "ying-watch");
	while (getppid() == parent)
		sleep_ms(WATCH_POLL_MS);
	/* The middle process of a double fork is gone by now. */
	sleep_ms(FOLLOW_GRACE_MS);
	pthread_mutex_lock(&agent_lock);
	if (agent_stopping) {
		pthread_mutex_unlock(&agent_lock);
		return NULL;
	}
	agent_pid = getpid();
	atomic_store(&agent_forked, false);
	/* The dump signal is ours again, unless the program took it. */
	if (agent_sa_installed && sigaction(cfg_signal, NULL, &cur) == 0 &&
	    cur.sa_handler == agent_old_sa.sa_handler) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_dump_signal;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (sigaction(cfg_signal, &sa, NULL) != 0)
			agent_sa_installed = false;
	} else {
		agent_sa_installed = false;
	}
	pthread_mutex_unlock(&agent_lock);
	bring_up(true, parent);
	return NULL;
}

