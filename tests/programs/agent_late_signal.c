/*
 * agent_late_signal.c: a preload shim for tests/integration/agent_stop.sh
 * that looks at the process after the agent's stop at exit.
 *
 * Loaded after the agent (LD_PRELOAD="jemalloc agent this"), so that its
 * destructor runs after the agent's.  There it lists the threads still
 * there besides the main one and its own helper ("late-signal: threads
 * left: NAME... | none"; it waits up to 0.5 s for threads that are ending).
 *
 * With LATE_SIGNAL=1 it also puts a dump signal's handler exactly across
 * the agent's stop.  Its constructor blocks SIGUSR2 on the main thread and
 * starts a helper thread that takes it.  At exit (an atexit handler
 * registered at the program's first puts(), i.e. once main runs: then it
 * runs before any library's destructor) it waits until the agent is
 * active, sends SIGUSR2 to the helper, and the agent's handler runs there;
 * the first getpid() that handler makes (this getpid, which comes before
 * libc's) waits until this shim's destructor, i.e. until the agent's
 * destructor has stopped the runner.  Then the handler goes on: whatever it
 * read before the stop is used after it.  The destructor waits (at most
 * 3 s) for the handler to end and says on stderr what happened:
 * "late-signal: handler resumed after the agent's stop" (or why not).
 * Built by the test itself (cc -shared -fPIC).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_t helper;
static atomic_int helper_tid;
static atomic_bool have_helper;
static atomic_int phase;          /* 0 running, 1 handler held, 2 released */
static atomic_bool held, resumed;

static void
nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

pid_t
getpid(void)
{
	if (atomic_load(&have_helper) && pthread_equal(pthread_self(), helper) &&
	    atomic_load(&phase) == 1) {
		atomic_store(&held, true);
		for (int i = 0; i < 5000 && atomic_load(&phase) == 1; i++)
			nap(1);
		atomic_store(&resumed, true);
	}
	return (pid_t)syscall(SYS_getpid);
}

static void *
helper_main(void *arg)
{
	sigset_t s;

	(void)arg;
	atomic_store(&helper_tid, (int)syscall(SYS_gettid));
	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	for (;;)
		pause();
	return NULL;
}

static void
at_exit(void)
{
	const char *(*status)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT,
	    "ying_agent_status");

	for (int i = 0; i < 600 && status && strncmp(status(), "active", 6) != 0; i++)
		nap(50);
	if (status == NULL || strncmp(status(), "active", 6) != 0) {
		fprintf(stderr, "late-signal: the agent is not active: %s\n",
		    status ? status() : "no ying_agent_status");
		return;
	}
	atomic_store(&phase, 1);
	pthread_kill(helper, SIGUSR2);
	for (int i = 0; i < 3000 && !atomic_load(&held); i++)
		nap(1);
	if (!atomic_load(&held))
		fprintf(stderr, "late-signal: the handler never called getpid\n");
}

/* agent_exit's "hello" line: main runs, so an atexit handler registered
 * now runs before _dl_fini (the libraries' destructors), not after. */
int
puts(const char *s)
{
	static atomic_bool registered;
	int (*real)(const char *) = (int (*)(const char *))dlsym(RTLD_NEXT, "puts");

	if (!atomic_exchange(&registered, true) && getenv("LATE_SIGNAL") &&
	    strcmp(getenv("LATE_SIGNAL"), "1") == 0)
		atexit(at_exit);
	return real ? real(s) : EOF;
}

__attribute__((constructor)) static void
shim_init(void)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	if (pthread_create(&helper, NULL, helper_main, NULL) == 0)
		atomic_store(&have_helper, true);
}

/* The names of the threads other than the main one and the helper, into
 * buf (empty: none).  Their number. */
static int
threads_left(char *buf, size_t len)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int me = (int)syscall(SYS_getpid), n = 0;
	size_t off = 0;

	buf[0] = '\0';
	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		char path[300], name[64] = "?";
		int tid = atoi(e->d_name);
		FILE *f;
		if (tid <= 0 || tid == me || tid == atomic_load(&helper_tid))
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d/comm", tid);
		if ((f = fopen(path, "r")) != NULL) {
			if (fgets(name, sizeof(name), f) == NULL)
				snprintf(name, sizeof(name), "?");
			fclose(f);
		}
		name[strcspn(name, "\n")] = '\0';
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", n ? " " : "", name);
		n++;
	}
	closedir(d);
	return n;
}

__attribute__((destructor)) static void
shim_fini(void)
{
	bool was_held = atomic_load(&held);
	char names[1024];
	int n = 0;

	atomic_store(&phase, 2);
	for (int i = 0; i < 3000 && was_held && !atomic_load(&resumed); i++)
		nap(1);
	if (was_held) {
		nap(200);     /* the rest of the handler */
		if (atomic_load(&resumed))
			fprintf(stderr, "late-signal: handler resumed after the agent's stop\n");
	}
	/* a detached thread that has said it is done may still be ending */
	for (int i = 0; i < 50 && (n = threads_left(names, sizeof(names))) > 0; i++)
		nap(10);
	fprintf(stderr, "late-signal: threads left: %s\n", n > 0 ? names : "none");
}
