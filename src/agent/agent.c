/*
 * agent.c: libying-agent.so, the preload agent.
 *
 * Loaded with LD_PRELOAD into a program that uses jemalloc (linked, or
 * preloaded before us), its constructor reads the YING_* variables and,
 * when jemalloc's profiler is on (MALLOC_CONF=prof:true), starts one short
 * thread that brings up the HTTP endpoint (ying_http_start) and the growth
 * runner (ying_runner_start), then exits; those run on their own threads,
 * which never sample and block every signal, so the program's profile and
 * its signal handling stay its own.  YING_DUMP_SIGNAL installs a handler
 * that only pokes the runner's pipe (async-signal-safe); the dump itself is
 * taken on the runner thread.
 *
 * What the agent never does: crash, block or change the host.  A bad
 * variable, a missing jemalloc or prof:false prints one line on stderr and
 * leaves the agent inert.  After fork() the child is inert (the threads
 * stayed in the parent; the dump signal goes back to its default action in
 * the child if the handler is still ours).  A program image reached by
 * exec() starts over with its own constructor; YING_AGENT_PID (set by `ying
 * run`) keeps the agent quiet and inert in every other process, i.e. in
 * the programs CMD starts.  At exit the agent stops its threads, waiting at
 * most two seconds, so exit never hangs on it.
 *
 * The agent is linked with its own hidden copy of libying and exports only
 * ying_agent_status().
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define STOP_WAIT_SEC 2

/* Configuration, copied out of the environment in the constructor (the
 * program may change its environment later). */
static char cfg_http[256];
static char cfg_token[4097];
static char cfg_dir[PATH_MAX];
static ying_runner_opts cfg_runner = YING_RUNNER_OPTS_INIT;
static int cfg_signal;
static bool cfg_quiet;

static char agent_state[768] = "off";
static pid_t agent_pid;
static atomic_bool agent_forked;
static _Atomic(ying_runner *) agent_runner;
static ying_http *agent_http;
static struct sigaction agent_old_sa;
static atomic_bool agent_sa_installed;

/* agent_lock orders the starter and the stopper; stop_lock only guards the
 * "stopped" flag the destructor waits for, so that wait stays bounded. */
static pthread_mutex_t agent_lock = PTHREAD_MUTEX_INITIALIZER;
static bool agent_stopping;
static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stop_cond = PTHREAD_COND_INITIALIZER;
static bool agent_stopped;

__attribute__((visibility("default"))) const char *ying_agent_status(void);

const char *
ying_agent_status(void)
{
	if (atomic_load(&agent_forked))
		return "inert: forked child (the agent's threads stay in the parent)";
	return agent_state;
}

/* One line to stderr with write(2): no stdio buffering shared with the
 * program, no locks. */
static void
say(const char *fmt, ...)
{
	char buf[1200];
	va_list ap;
	int n;
	size_t len, off = 0;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	len = (size_t)n < sizeof(buf) - 1 ? (size_t)n : sizeof(buf) - 2;
	/* never more than one line */
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\n')
			buf[i] = ' ';
	buf[len++] = '\n';
	while (off < len) {
		ssize_t w = write(STDERR_FILENO, buf + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
}

static void
set_state(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(agent_state, sizeof(agent_state), fmt, ap);
	va_end(ap);
}

/* Inert: one line, and nothing else ever happens. */
static void
go_inert(const char *why)
{
	set_state("inert: %s", why);
	say("ying-agent: inert in pid %ld (%s): %s", (long)getpid(),
	    program_invocation_short_name, why);
}

static void
on_dump_signal(int sig)
{
	int saved = errno;
	ying_runner *r = atomic_load(&agent_runner);

	YI_UNUSED(sig);
	if (r && !atomic_load(&agent_forked) && getpid() == agent_pid)
		ying_runner_trigger(r);
	errno = saved;
}

static void
atfork_child(void)
{
	struct sigaction cur;

	atomic_store(&agent_forked, true);
	/* The child has no runner: give the signal its default action back,
	 * unless the program installed its own handler meanwhile. */
	if (agent_sa_installed && sigaction(cfg_signal, NULL, &cur) == 0 &&
	    cur.sa_handler == on_dump_signal)
		sigaction(cfg_signal, &agent_old_sa, NULL);
}

static void *
starter(void *arg)
{
	char b1[32], b2[32], sname[24], what[1024];
	const char *sep = "";
	size_t w = 0;
	bool http_ok = false, runner_ok = false;
	ying_runner *r = NULL;
	int rc, port = 0;

	YI_UNUSED(arg);
	yi_ctl_quiet_thread();
	pthread_setname_np(pthread_self(), "ying-agent");
	what[0] = '\0';

	pthread_mutex_lock(&agent_lock);
	if (!agent_stopping && cfg_http[0]) {
		ying_http_opts ho = YING_HTTP_OPTS_INIT;
		ho.bind = cfg_http;
		ho.token = cfg_token[0] ? cfg_token : NULL;
		if ((rc = ying_http_start(&agent_http, &ho)) != 0) {
			say("ying-agent: pid %ld: HTTP endpoint on %s not started: %s",
			    (long)getpid(), cfg_http, ying_last_error());
			agent_http = NULL;
		} else {
			http_ok = true;
			port = ying_http_port(agent_http);
		}
	}
	if (!agent_stopping && (cfg_dir[0] || cfg_signal)) {
		if ((rc = ying_runner_start(&r, &cfg_runner)) != 0) {
			say("ying-agent: pid %ld: growth reports in %s not started: %s",
			    (long)getpid(), cfg_runner.dir, ying_last_error());
		} else {
			runner_ok = true;
			atomic_store(&agent_runner, r);
		}
	}
	if (!runner_ok && agent_sa_installed) {
		/* Nobody to take the dumps: the signal gets its old action back. */
		struct sigaction cur;
		if (sigaction(cfg_signal, NULL, &cur) == 0 &&
		    cur.sa_handler == on_dump_signal)
			sigaction(cfg_signal, &agent_old_sa, NULL);
		agent_sa_installed = false;
	}
	if (http_ok) {
		/* "HOST:PORT" -> the same host with the bound port */
		const char *colon = strrchr(cfg_http, ':');
		int hl = colon ? (int)(colon - cfg_http) : 0;
		w += (size_t)snprintf(what + w, sizeof(what) - w, "%sHTTP on http://%.*s:%d/",
		    sep, hl ? hl : 9, hl ? cfg_http : "127.0.0.1", port);
		sep = "; ";
	}
	if (runner_ok && w < sizeof(what)) {
		if (cfg_runner.interval > 0)
			w += (size_t)snprintf(what + w, sizeof(what) - w, "%sgrowth reports "
			    "in %s (every %g s, at %g %% change, floor %s)", sep,
			    cfg_runner.dir, cfg_runner.interval, cfg_runner.pct,
			    yi_fmt_bytes((double)cfg_runner.floor, b1, sizeof(b1)));
		else
			w += (size_t)snprintf(what + w, sizeof(what) - w, "%sreports in %s "
			    "on request only", sep, cfg_runner.dir);
		sep = "; ";
	}
	if (runner_ok && cfg_signal && w < sizeof(what))
		w += (size_t)snprintf(what + w, sizeof(what) - w, "%s%s writes a "
		    "report set now", sep, yi_signal_name(cfg_signal, sname, sizeof(sname)));
	if (http_ok || runner_ok) {
		ying_ctl_status st;
		if (ying_ctl_status_get(&st) == 0)
			snprintf(b2, sizeof(b2), "%s", yi_fmt_bytes((double)((uint64_t)1 <<
			    (st.lg_sample < 63 ? st.lg_sample : 63)), b1, sizeof(b1)));
		else
			snprintf(b2, sizeof(b2), "?");
		set_state("active: %s", what);
		if (!cfg_quiet)
			say("ying-agent: pid %ld (%s): heap profiling on, one sample per %s; %s",
			    (long)getpid(), program_invocation_short_name, b2, what);
	} else {
		set_state("inert: nothing could be started");
	}
	pthread_mutex_unlock(&agent_lock);
	return NULL;
}

static int
copy_env(const char *name, char *dst, size_t n)
{
	const char *s = getenv(name);

	dst[0] = '\0';
	if (s == NULL || *s == '\0')
		return 0;
	if (strlen(s) >= n)
		return yi_error(YING_EINVAL, "%s is too long (%zu bytes at most)", name,
		    n - 1);
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

__attribute__((constructor)) static void
agent_init(void)
{
	const char *s;
	char why[1100];
	pthread_t t;
	pthread_attr_t attr;
	sigset_t all, old;
	int rc;

	/* Under `ying run`, only the process it started carries the agent; the
	 * programs that one starts inherit the variables but stay out. */
	if ((s = getenv("YING_AGENT_PID")) != NULL && *s &&
	    strtol(s, NULL, 10) != (long)getpid()) {
		set_state("off: YING_AGENT_PID=%s is another process", s);
		return;
	}
	cfg_quiet = (s = getenv("YING_QUIET")) != NULL && *s && strcmp(s, "0") != 0;
	if ((rc = copy_env("YING_HTTP", cfg_http, sizeof(cfg_http))) != 0 ||
	    (rc = copy_env("YING_HTTP_TOKEN", cfg_token, sizeof(cfg_token))) != 0 ||
	    (rc = copy_env("YING_REPORT_DIR", cfg_dir, sizeof(cfg_dir))) != 0 ||
	    (rc = ying_runner_opts_from_env(&cfg_runner)) != 0) {
		go_inert(ying_last_error());
		return;
	}
	if ((s = getenv("YING_DUMP_SIGNAL")) != NULL && *s &&
	    yi_signal_parse(s, &cfg_signal) != 0) {
		snprintf(why, sizeof(why), "YING_DUMP_SIGNAL: %s", ying_last_error());
		go_inert(why);
		return;
	}
	if (cfg_http[0] == '\0' && cfg_dir[0] == '\0' && cfg_signal == 0) {
		go_inert("nothing to do: set YING_HTTP, YING_REPORT_DIR or "
		    "YING_DUMP_SIGNAL (see ying-agent(7))");
		return;
	}
	if ((rc = ying_ctl_available()) != 0) {
		go_inert(ying_last_error());
		return;
	}
	if (cfg_dir[0]) {
		cfg_runner.dir = cfg_dir;
	} else if (cfg_signal) {
		/* Dumps on request only, into a private directory. */
		const char *tmp = getenv("TMPDIR");
		if (tmp == NULL || tmp[0] != '/' || strlen(tmp) > PATH_MAX - 64)
			tmp = "/tmp";
		snprintf(cfg_dir, sizeof(cfg_dir), "%s/ying-%ld", tmp, (long)getpid());
		cfg_runner.dir = cfg_dir;
		cfg_runner.interval = 0;
	}
	agent_pid = getpid();
	if (pthread_atfork(NULL, NULL, atfork_child) != 0) {
		go_inert("pthread_atfork failed");
		return;
	}
	if (cfg_signal) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_dump_signal;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (sigaction(cfg_signal, &sa, &agent_old_sa) == 0)
			agent_sa_installed = true;
	}
	set_state("starting");
	/* The starter and everything it starts block every signal. */
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&t, &attr, starter, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		snprintf(why, sizeof(why), "cannot start a thread: %s", strerror(rc));
		if (agent_sa_installed) {
			sigaction(cfg_signal, &agent_old_sa, NULL);
			agent_sa_installed = false;
		}
		go_inert(why);
	}
}

/* Stops the runner and the server; run on its own thread so that the
 * destructor can give up after STOP_WAIT_SEC. */
static void *
stopper(void *arg)
{
	ying_runner *r;
	ying_http *h;

	YI_UNUSED(arg);
	pthread_mutex_lock(&agent_lock);
	agent_stopping = true;
	r = atomic_exchange(&agent_runner, NULL);
	h = agent_http;
	agent_http = NULL;
	pthread_mutex_unlock(&agent_lock);
	ying_runner_stop(r);
	ying_http_stop(h);
	pthread_mutex_lock(&stop_lock);
	agent_stopped = true;
	pthread_cond_broadcast(&stop_cond);
	pthread_mutex_unlock(&stop_lock);
	return NULL;
}

__attribute__((destructor)) static void
agent_fini(void)
{
	struct timespec deadline;
	pthread_attr_t attr;
	pthread_t t;
	sigset_t all, old;
	int rc;

	if (agent_pid == 0 || agent_pid != getpid() || atomic_load(&agent_forked))
		return;
	if (agent_sa_installed) {
		struct sigaction cur;
		if (sigaction(cfg_signal, NULL, &cur) == 0 &&
		    cur.sa_handler == on_dump_signal)
			sigaction(cfg_signal, &agent_old_sa, NULL);
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&t, &attr, stopper, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (rc != 0)
		return;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += STOP_WAIT_SEC;
	pthread_mutex_lock(&stop_lock);
	while (!agent_stopped) {
		if (pthread_cond_timedwait(&stop_cond, &stop_lock, &deadline) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&stop_lock);
}
