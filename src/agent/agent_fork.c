/*
 * agent_fork.c: the agent across fork(), its line to `ying run`, and the
 * dump signal.
 *
 * The agent's threads stay in the parent.  A forked child closes its copy
 * of the listening socket (and of the claim to head the family) at once (so it never holds the parent's port;
 * libying's own child handler, base_fd.c, closes the rest of what it owns:
 * the server's eventfd and connections, the runner's pipe, the uploader's
 * sockets) and gives the dump signal back its old action.  It stays
 * single-threaded: a thread in it would make unshare(CLONE_NEWUSER) fail
 * with EINVAL (container and sandbox code) and would double the cost of
 * fork+_exit.  Only a child that turns out to keep running gets a
 * thread, the watcher: the survivor of a daemonizing program whose
 * parent exited first, which brings the agent up there (agent.c's
 * bring_up) on the parent's port once it wins the claim to head the
 * family (head_claim), and a child that lives on beside its parent (a
 * worker, a backend), which becomes a member of the family once it is
 * cfg_children_ms old (YING_CHILDREN; agent_member.c).
 *
 * How the child learns that its parent is gone, on its own thread and at a
 * safe point: the fork handler installs a jemalloc allocation hook
 * (experimental.hooks.install; our handler runs after jemalloc's own child
 * handler, which the constructor's first mallctl registered before ours,
 * so jemalloc's locks are usable).  At each allocation, free or in-place
 * realloc of the child the hook reads CLOCK_MONOTONIC (vDSO) and, at most
 * once per FORK_CHECK_MS, calls getppid(); once the parent has changed it
 * starts the watcher, which removes the hook, waits FOLLOW_GRACE_MS (the
 * middle process of a double fork is gone by then) and takes over.  A
 * child that has lived LONG_LIVED_MS with its parent alive (a worker of a
 * pre-forking server, a BGSAVE child) is known to be long-lived: it gets
 * the watcher thread then, which removes the hook and polls getppid()
 * every WATCH_POLL_MS as before, so no child spends more than about a
 * second on jemalloc's slow path (an installed hook costs every
 * allocation of the process about 45 ns, benchmarks.md section 16).
 * jemalloc runs hooks after the allocation is complete (free: before it
 * starts), with no lock of its own held, and suppresses hooks for what is
 * allocated inside one (pthread_create's TLS); the hook keeps errno.  Why not the
 * alternatives: no parent-side code runs when a daemonizing parent calls
 * _exit right after fork (daemon(3) does); a signal (PR_SET_PDEATHSIG, a
 * timer) would be one the host may use, PR_SET_PDEATHSIG survives exec
 * (the exec'd image would get it), and a handler cannot start a thread
 * (pthread_create is not async-signal-safe); timer_create(SIGEV_THREAD)
 * starts a helper thread at once.
 *
 * What it costs: a forked child's allocations take jemalloc's slow path
 * (hooks on) for its first second at most.  A child that calls
 * unshare(CLONE_NEWUSER) more than LONG_LIVED_MS after the fork (and
 * after an allocation since) gets EINVAL, as every child did before.  A
 * survivor that never allocates or frees after its parent died is only
 * taken over at its next allocation or free (`ying run` waits 4 s for
 * it, then says the program runs on without the agent).  When the hook
 * cannot be installed (jemalloc's four hook slots are taken, a jemalloc
 * without hooks, opt.tcache off: then jemalloc never calls hooks), or the
 * fork came while the agent installed or removed a hook (giant's at start
 * and exit, the survivor's own: jemalloc does not reset its hook lock in a
 * child, so it may be held there; agent_hooks_busy), the child gets the
 * watcher thread at once as before, which polls getppid() every
 * WATCH_POLL_MS.
 *
 * YING_RUN_FD is a pipe to `ying run`, identified by device and inode so
 * that a descriptor the program closed and reused is never written to;
 * the survivor names itself on it once.  The dump signal's handler only
 * pokes libying's static trigger slots (async-signal-safe; it never reads
 * the runner, which the stopper frees at exit).
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
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
/* The claim to head the family (head_claim, below), or -1. */
static int head_fd = -1;
/* This image was exec'd in the family (exec_watch, below). */
static bool watch_exec;

/* Remember agent_http's listening socket (number and inode), the one a
 * forked child closes; fork_lock held. */
void
listen_fd_note(void)
{
	struct stat st;

	http_listen_fd = yi_http_listen_fd(agent_http);
	if (http_listen_fd >= 0 && fstat(http_listen_fd, &st) == 0)
		http_listen_ino = st.st_ino;
	else
		http_listen_fd = -1;
}

/* The line to `ying run` (YING_RUN_FD, a pipe): identified by device and
 * inode, so that a program that closed it and reused the number is never
 * written to. */
int run_fd = -1;
dev_t run_dev;
ino_t run_ino;

/* The dump signal's handler.  It never reads the runner (the stopper frees
 * it at exit, maybe while a signal is being handled): ying_runner_trigger_all
 * pokes libying's static trigger slots, which are never freed and ignore a
 * poke once their runner is being stopped. */
void
on_dump_signal(int sig)
{
	int saved = errno;

	(void)sig;
	if (!atomic_load(&agent_forked) && getpid() == agent_pid)
		ying_runner_trigger_all();
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

/* One line to `ying run` ("follow ...", "member ...", "skip ..."); the
 * pipe stays open for the lines of the processes forked later. */
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
}

/* jemalloc's hooks_t (include/jemalloc/internal/hook.h, 5.1 to 5.3), as
 * live_giant.c lays it out. */
typedef void (*fk_alloc_fn)(void *extra, int type, void *result,
    uintptr_t result_raw, uintptr_t args_raw[3]);
typedef void (*fk_dalloc_fn)(void *extra, int type, void *address,
    uintptr_t args_raw[3]);
typedef void (*fk_expand_fn)(void *extra, int type, void *address,
    size_t old_usize, size_t new_usize, uintptr_t result_raw,
    uintptr_t args_raw[4]);
typedef struct fk_hooks {
	fk_alloc_fn alloc_hook;
	fk_dalloc_fn dalloc_hook;
	fk_expand_fn expand_hook;
	void *extra;
} fk_hooks;

/* The lazy take-over (see the top).  agent_mallctl: found in the
 * constructor; fork_hook: the installed hook's handle (a grandchild
 * inherits it, installed, and reuses it); watch_state: what this child
 * does about its parent; watch_parent: the pid it was forked from;
 * watch_last_ns: the hook's last getppid(), watch_fork_ns: the fork
 * (CLOCK_MONOTONIC). */
enum { WATCH_OFF, WATCH_HOOK, WATCH_THREAD };
ying_mallctl_fn agent_mallctl;
bool agent_fork_hook_ok;
atomic_bool agent_hooks_busy;
static void *fork_hook;
static atomic_int watch_state;
static pid_t watch_parent;
static atomic_llong watch_last_ns;
static long long watch_fork_ns;

static void *watcher(void *arg);

/* The watcher thread, every signal blocked.  0 or pthread_create's error. */
static int
start_watcher(pid_t parent)
{
	pthread_attr_t attr;
	pthread_t t;
	sigset_t all, old;
	int rc;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&t, &attr, watcher, (void *)(intptr_t)parent);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return rc;
}

static long long
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The hook's work, on whichever thread of the child allocated: cheap until
 * FORK_CHECK_MS passed since the last look.  The watcher starts once the
 * parent is gone, or once the child has lived LONG_LIVED_MS (a worker of a
 * living parent: the watcher thread polls from then on, and the child's
 * allocations leave jemalloc's slow path). */
static void
fork_check(void)
{
	long long now;
	int expect = WATCH_HOOK, saved;

	if (atomic_load_explicit(&watch_state, memory_order_relaxed) != WATCH_HOOK)
		return;
	saved = errno;
	now = mono_ns();
	if (now - atomic_load_explicit(&watch_last_ns, memory_order_relaxed) >=
	    FORK_CHECK_MS * 1000000LL) {
		atomic_store_explicit(&watch_last_ns, now, memory_order_relaxed);
		long long after = cfg_children != CHILDREN_NONE &&
		    cfg_children_ms < LONG_LIVED_MS ? cfg_children_ms : LONG_LIVED_MS;
		/* an exec'd image never follows its parent: no getppid (a
		 * sandboxed program's seccomp filter may kill for it) */
		if (((!watch_exec && getppid() != watch_parent) ||
		    now - watch_fork_ns >= after * 1000000LL) &&
		    atomic_compare_exchange_strong(&watch_state, &expect, WATCH_THREAD) &&
		    start_watcher(watch_parent) != 0)
			atomic_store(&watch_state, WATCH_HOOK);   /* next time */
	}
	errno = saved;
}

static void
fork_alloc_hook(void *extra, int type, void *result, uintptr_t result_raw,
    uintptr_t args_raw[3])
{
	(void)extra, (void)type, (void)result, (void)result_raw, (void)args_raw;
	fork_check();
}

static void
fork_dalloc_hook(void *extra, int type, void *address, uintptr_t args_raw[3])
{
	(void)extra, (void)type, (void)address, (void)args_raw;
	fork_check();
}

static void
fork_expand_hook(void *extra, int type, void *address, size_t old_usize,
    size_t new_usize, uintptr_t result_raw, uintptr_t args_raw[4])
{
	(void)extra, (void)type, (void)address, (void)old_usize, (void)new_usize,
	    (void)result_raw, (void)args_raw;
	fork_check();
}

/* In the child's fork handler: the hook (or one inherited from a parent
 * that was itself a forked child), else the watcher thread at once. */
static void
fork_watch(pid_t parent)
{
	atomic_store(&watch_state, WATCH_OFF);
	watch_parent = parent;
	atomic_store(&watch_last_ns, 0);
	watch_fork_ns = mono_ns();
	if (fork_hook == NULL && agent_mallctl && agent_fork_hook_ok &&
	    !atomic_load(&agent_hooks_busy)) {
		fk_hooks h = { fork_alloc_hook, fork_dalloc_hook, fork_expand_hook, NULL };
		void *handle = NULL;
		size_t hl = sizeof(handle);
		if (agent_mallctl("experimental.hooks.install", &handle, &hl, &h,
		    sizeof(h)) == 0)
			fork_hook = handle;
	}
	if (fork_hook) {
		atomic_store(&watch_state, WATCH_HOOK);
		return;
	}
	atomic_store(&watch_state, WATCH_THREAD);
	start_watcher(parent);
}

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
	pid_t parent = self_pid;

	self_pid = getpid();
	atomic_store(&agent_forked, true);
	pthread_mutex_init(&fork_lock, NULL);
	/* the claim to head the family is the parent's */
	if (head_fd >= 0) {
		close(head_fd);
		head_fd = -1;
	}
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
	agent_member = false;
	agent_http = NULL;
	agent_pyro = NULL;
	atomic_store(&agent_runner, NULL);
	/* The child has no runner: give the signal its default action back,
	 * unless the program installed its own handler meanwhile. */
	if (agent_sa_installed && sigaction(cfg_signal, NULL, &cur) == 0 &&
	    cur.sa_handler == on_dump_signal)
		sigaction(cfg_signal, &agent_old_sa, NULL);
	/* Single-threaded until the parent is seen gone (see the top).  The
	 * children of an exec'd image are left alone, as they always were
	 * (sshd's privilege-separated child runs under a seccomp filter that
	 * kills a process for getppid or clone): the inherited hook does
	 * nothing in them. */
	if (watch_exec)
		atomic_store(&watch_state, WATCH_OFF);
	else
		fork_watch(parent);
}

void
signal_take_back(void)
{
	struct sigaction cur;

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
}

void
signal_give_back(void)
{
	struct sigaction cur;

	if (agent_sa_installed && sigaction(cfg_signal, NULL, &cur) == 0 &&
	    cur.sa_handler == on_dump_signal)
		sigaction(cfg_signal, &agent_old_sa, NULL);
	agent_sa_installed = false;
}

/* Heading the family is claimed by binding its abstract name
 * "@ying.FAMILY.0" (yi_family_addr with pid 0: no member's name); the
 * kernel lets one process hold it, and frees it when that process is
 * gone.  The head claims it at start; a forked child closes its copy at
 * once; when the head exits, the one child that wins the claim takes
 * over (a daemon's survivor, or one of several orphaned members) and
 * the others stay what they were.  head_fd: declared at the top. */

bool
head_claim(void)
{
	struct sockaddr_un sa;
	socklen_t len;
	int fd;

	if (cfg_family[0] == '\0')
		return true;
	if (head_fd >= 0)
		return true;
	if ((fd = yi_fd_high(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0))) < 0)
		return true;    /* no socket, no contest: as before families */
	len = yi_family_addr(&sa, cfg_family, 0);
	pthread_mutex_lock(&fork_lock);
	if (bind(fd, (struct sockaddr *)&sa, len) != 0) {
		pthread_mutex_unlock(&fork_lock);
		close(fd);
		return errno != EADDRINUSE;
	}
	head_fd = fd;
	pthread_mutex_unlock(&fork_lock);
	return true;
}

/* An exec'd image of the family (cfg_exec_member): watched like a forked
 * child, from now on (watch_exec: declared at the top). */

void
exec_watch(void)
{
	watch_exec = true;
	self_pid = getpid();
	atomic_store(&agent_forked, true);
	fork_watch(getppid());
}

/* Has this process lived cfg_children_ms since the fork (or exec)? */
static bool
old_enough(void)
{
	return mono_ns() - watch_fork_ns >= (long long)cfg_children_ms * 1000000LL;
}

/* A forked child's watcher, started by the hook once the parent is gone
 * or the child long-lived, or at the fork (no hook); it waits while the
 * parent lives, and makes this process a member once it is old enough
 * (YING_CHILDREN); if this process outlives its parent and that parent
 * was the head, the agent moves here. */
static void *
watcher(void *arg)
{
	pid_t parent = (pid_t)(intptr_t)arg;
	bool member = false, told = false;

	ying_ctl_quiet_thread();
	pthread_setname_np(pthread_self(), "ying-watch");
	/* The hook's work is done: this process's allocations go back to
	 * jemalloc's fast path; its own forked children install a hook of
	 * their own. */
	if (fork_hook && agent_mallctl) {
		void *h = fork_hook;
		atomic_store(&agent_hooks_busy, true);
		if (agent_mallctl("experimental.hooks.remove", NULL, NULL, &h,
		    sizeof(h)) == 0)
			fork_hook = NULL;
		atomic_store(&agent_hooks_busy, false);
	}
	while (getppid() == parent) {
		if (!member && !told && old_enough()) {
			if (cfg_children == CHILDREN_NONE) {
				/* said once: a long-lived process left out */
				tell_run("skip %ld %ld --children=none", (long)getpid(),
				    (long)parent);
				told = true;
			} else {
				member_up(parent, watch_exec);
				member = true;
			}
		}
		sleep_ms(WATCH_POLL_MS);
	}
	/* An exec'd image, or a member whose parent was not the head (a
	 * worker's own child), stays what it is. */
	if (watch_exec || (member && parent != yi_family_head()))
		return NULL;
	/* The middle process of a double fork is gone by now. */
	sleep_ms(FOLLOW_GRACE_MS);
	/* One process takes over: the one that claims the family's head. */
	if (!head_claim())
		return NULL;
	if (member)
		member_down();
	pthread_mutex_lock(&agent_lock);
	if (agent_stopping) {
		pthread_mutex_unlock(&agent_lock);
		return NULL;
	}
	agent_pid = getpid();
	atomic_store(&agent_forked, false);
	/* The dump signal is ours again, unless the program took it. */
	signal_take_back();
	pthread_mutex_unlock(&agent_lock);
	bring_up(true, parent);
	return NULL;
}
