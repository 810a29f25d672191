/*
 * agent.c: libying-agent.so, the preload agent.
 *
 * Loaded with LD_PRELOAD into a program that uses jemalloc (linked, or
 * preloaded before us), its constructor reads the YING_* variables and,
 * when jemalloc's profiler is on (MALLOC_CONF=prof:true), starts one short
 * thread that brings up the HTTP endpoint (ying_http_start), the growth
 * runner (ying_runner_start) and the Pyroscope uploader
 * (ying_pyroscope_start, YING_PYROSCOPE_URL), then exits; those run on their own threads,
 * which never sample and block every signal, so the program's profile and
 * its signal handling stay its own.  YING_DUMP_SIGNAL installs a handler
 * that only pokes the runner's pipe (async-signal-safe); the dump itself is
 * taken on the runner thread.
 *
 * What the agent never does: crash, block or change the host.  A bad
 * variable, a missing jemalloc or prof:false prints one line on stderr and
 * leaves the agent inert.  The one exception is YING_HTTP_REQUIRED=1 (set
 * by `ying run --http`): then the constructor waits for the endpoint and,
 * if it cannot listen, says so and ends the process with status 1 before
 * main runs, so the program never runs without the endpoint asked for.
 *
 * fork() (agent_fork.c): the agent's threads stay in the parent; a forked
 * child stays single-threaded, and one that outlives its parent, a
 * daemonizing program's survivor, seen gone at the child's next allocation
 * (a jemalloc hook), brings the agent up again there (bring_up with
 * follow), on the same port, and
 * says so to `ying run` through YING_RUN_FD.  A child that lives on
 * beside its parent (a worker) becomes a member of the family the first
 * process heads (agent_member.c): the head's endpoint serves it through
 * ?pid=.  A program image reached by exec() starts over with its own
 * constructor; when YING_AGENT_PID (set by `ying run`) or
 * YING_FAMILY_HEAD names another process, it is no second head: it may
 * only become a member, like a forked child.  At exit the agent stops its threads, waiting
 * at most two seconds, so exit never hangs on it.  The YING_* variables are
 * read by agent_config.c.
 *
 * jemalloc is looked for once, in the constructor on the main thread
 * before any thread of the agent exists (ying_ctl_available: dlsym, then
 * the static symbol tables of the loaded objects, so a Rust release binary
 * with its statically linked `_rjem_` jemalloc is found too); with
 * YING_VERBOSE the agent says which one it found.
 *
 * YING_PROF_ACTIVATE=1 (set by `ying run`, which starts the program with
 * prof_active:false) turns jemalloc's sampling on in the constructor, after
 * the agent's own libraries (libmicrohttpd, gnutls, p11-kit, libdw) have run
 * their initializers, so their start-up allocations are not in the host's
 * profile.
 *
 * The agent is linked with its own hidden copy of libying and exports only
 * ying_agent_status().  Shared state and helpers: agent.h.
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

/* ying_agent_status()'s text: a pointer to an immutable string, swapped
 * atomically.  Each set_state formats into a buffer of its own that is
 * never written again (STATE_BUFS of them: a process changes state a few
 * times, each survivor of a daemonizing program once more), so a caller
 * that got the pointer may read it while the agent's starter changes the
 * state: no torn text, no data race.  Once the buffers are used up the
 * status is the bare word ("active", "inert"). */
#define STATE_BUFS 16
#define STATE_LEN 768
static char state_bufs[STATE_BUFS][STATE_LEN];
static atomic_uint state_used;
static _Atomic(const char *) agent_state = "off";
pid_t agent_pid;
atomic_bool agent_forked;
_Atomic(ying_runner *) agent_runner;
ying_http *agent_http;
ying_pyroscope *agent_pyro;
bool agent_giant;
struct sigaction agent_old_sa;
atomic_bool agent_sa_installed;

pthread_mutex_t ready_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t ready_cond = PTHREAD_COND_INITIALIZER;
int ready_state;

pthread_mutex_t agent_lock = PTHREAD_MUTEX_INITIALIZER;
bool agent_stopping;
pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t stop_cond = PTHREAD_COND_INITIALIZER;
bool agent_stopped;

__attribute__((visibility("default"))) const char *ying_agent_status(void);

const char *
ying_agent_status(void)
{
	if (atomic_load(&agent_forked))
		return cfg_exec_member ? atomic_load_explicit(&agent_state,
		    memory_order_acquire) : "inert: forked child (the agent's threads "
		    "stay in the parent; it is profiled once it lives on)";
	return atomic_load_explicit(&agent_state, memory_order_acquire);
}

/* One line to stderr with write(2): no stdio buffering shared with the
 * program, no locks. */
void
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

void
set_state(const char *fmt, ...)
{
	unsigned i = atomic_fetch_add(&state_used, 1);
	va_list ap;

	if (i >= STATE_BUFS) {
		char word[16];
		va_start(ap, fmt);
		vsnprintf(word, sizeof(word), fmt, ap);
		va_end(ap);
		atomic_store_explicit(&agent_state, strncmp(word, "active", 6) == 0 ?
		    "active" : strncmp(word, "inert", 5) == 0 ? "inert" : "starting",
		    memory_order_release);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(state_bufs[i], STATE_LEN, fmt, ap);
	va_end(ap);
	atomic_store_explicit(&agent_state, state_bufs[i], memory_order_release);
}

/* Inert: one line, and nothing else ever happens. */
void
go_inert(const char *why)
{
	set_state("inert: %s", why);
	if (cfg_required && cfg_http[0]) {
		/* YING_HTTP_REQUIRED: the program does not run without it. */
		say("ying-agent: pid %ld (%s): HTTP endpoint on %s not started: %s; "
		    "YING_HTTP_REQUIRED is set: stopping the program", (long)getpid(),
		    program_invocation_short_name, cfg_http, why);
		_exit(1);
	}
	say("ying-agent: inert in pid %ld (%s): %s", (long)getpid(),
	    program_invocation_short_name, why);
}

void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* The HTTP endpoint: "HOST:PORT" (host length hl) or "unix:/PATH".  The
 * survivor of a daemonizing program (follow) serves on the port its parent
 * had, retrying while the parent's socket goes away.  addr gets the
 * address tried; err (errn bytes) why it failed.  agent_lock held. */
static bool
http_up(bool follow, int hl, bool unix_sock, char *addr, size_t addrn, char *err,
    size_t errn)
{
	ying_http_opts ho = YING_HTTP_OPTS_INIT;
	int tries = follow && (agent_port > 0 || unix_sock) ? REBIND_TRIES : 1, rc;

	if (follow && agent_port > 0 && !unix_sock)
		snprintf(addr, addrn, "%.*s:%d", hl, cfg_http, agent_port);
	else
		snprintf(addr, addrn, "%s", cfg_http);
	ho.bind = addr;
	ho.token = cfg_token[0] ? cfg_token : NULL;
	ho.allow_hosts = cfg_allow_hosts[0] ? cfg_allow_hosts : NULL;
	ho.insecure = cfg_insecure;
	ho.open = cfg_open;
	ho.frames = cfg_frames;
	for (int i = 0; i < tries; i++) {
		if (i > 0)
			sleep_ms(100);
		pthread_mutex_lock(&fork_lock);
		if ((rc = ying_http_start(&agent_http, &ho)) == 0) {
			listen_fd_note();
			pthread_mutex_unlock(&fork_lock);
			break;
		}
		pthread_mutex_unlock(&fork_lock);
		agent_http = NULL;
		if (rc != YING_ESYS)
			break;    /* only a busy port is worth a retry */
	}
	if (agent_http == NULL) {
		snprintf(err, errn, "%s", ying_last_error());
		say("ying-agent: pid %ld: HTTP endpoint on %s not started: %s%s",
		    (long)getpid(), addr, err, cfg_required && !follow ?
		    "; YING_HTTP_REQUIRED is set: stopping the program" : "");
		return false;
	}
	agent_port = ying_http_port(agent_http);
	if (cfg_insecure && ho.token == NULL && !follow)
		say("ying-agent: pid %ld: warning: YING_HTTP_INSECURE is set: the "
		    "endpoint on %s takes no token; whoever can reach it can read "
		    "the heap and change the profiler", (long)getpid(), addr);
	else if (cfg_open && ho.token == NULL && !follow)
		say("ying-agent: pid %ld: warning: YING_HTTP_OPEN is set: every "
		    "local user can read the heap on %s and change the profiler",
		    (long)getpid(), addr);
	return true;
}

/* The growth runner (reports, the dump signal) and the uploader.
 * agent_lock held. */
static bool
runner_up(void)
{
	ying_runner *r = NULL;

	if (ying_runner_start(&r, &cfg_runner) != 0) {
		say("ying-agent: pid %ld: growth reports in %s not started: %s",
		    (long)getpid(), cfg_runner.dir, ying_last_error());
		return false;
	}
	atomic_store(&agent_runner, r);
	return true;
}

static bool
pyro_up(void)
{
	if (ying_pyroscope_start(&agent_pyro, &cfg_pyro) != 0) {
		say("ying-agent: pid %ld: Pyroscope uploads not started: %s",
		    (long)getpid(), ying_last_error());
		agent_pyro = NULL;
		return false;
	}
	return true;
}

/* What runs, in one line: "HTTP on ...; growth reports in ...; ...". */
static void
describe(char *what, size_t wn, bool http_ok, bool runner_ok, bool pyro_ok,
    bool follow, int hl, bool unix_sock, int port)
{
	char b1[32], sname[24];
	const char *sep = "";
	size_t w = 0;

	what[0] = '\0';
	if (http_ok && unix_sock) {
		w += (size_t)snprintf(what + w, wn - w, "%sHTTP on %s", sep, cfg_http);
		sep = "; ";
	} else if (http_ok) {
		w += (size_t)snprintf(what + w, wn - w, "%sHTTP on http://%.*s:%d/",
		    sep, hl ? hl : 9, hl ? cfg_http : "127.0.0.1", port);
		sep = "; ";
	}
	if (runner_ok && w < wn) {
		if (cfg_runner.interval > 0)
			w += (size_t)snprintf(what + w, wn - w, "%sgrowth reports "
			    "in %s (every %g s, at %g %% change, floor %s)", sep,
			    cfg_runner.dir, cfg_runner.interval, cfg_runner.pct,
			    ying_format_bytes((double)cfg_runner.floor, b1, sizeof(b1)));
		else
			w += (size_t)snprintf(what + w, wn - w, "%sreports in %s "
			    "on request only", sep, cfg_runner.dir);
		sep = "; ";
	}
	if (runner_ok && cfg_signal && w < wn)
		w += (size_t)snprintf(what + w, wn - w, "%s%s writes a "
		    "report set now", sep, yfe_signal_name(cfg_signal, sname, sizeof(sname)));
	if (pyro_ok && w < wn) {
		/* the URL without user:password@ */
		const char *u = cfg_pyro.url, *a = strstr(u, "://"), *at;
		size_t sl = a ? (size_t)(a - u) + 3 : 0;
		at = a ? strchr(a + 3, '@') : NULL;
		if (at && strchr(a + 3, '/') && strchr(a + 3, '/') < at)
			at = NULL;
		w += (size_t)snprintf(what + w, wn - w, "%sPyroscope %s to %.*s%s "
		    "every %g s as %s", sep, cfg_pyro.api ? cfg_pyro.api : "push", (int)sl, u,
		    at ? at + 1 : u + sl, cfg_pyro.interval > 0 ? cfg_pyro.interval : 15.0,
		    cfg_pyro.service ? cfg_pyro.service : program_invocation_short_name);
		sep = "; ";
	}
	if (agent_giant && !follow && w < wn)
		snprintf(what + w, wn - w, "%sgiant allocations from %s logged", sep,
		    ying_format_bytes((double)cfg_giant, b1, sizeof(b1)));
}

/* The state and the one line that says it (to `ying run` too, for a
 * survivor).  any: something runs. */
static void
announce(bool any, bool follow, pid_t parent, const char *what, const char *err)
{
	char b1[32], b2[32];
	ying_ctl_status st;

	if (!any) {
		set_state("inert: nothing could be started");
		if (follow) {
			say("ying-agent: pid %ld (%s) outlived pid %ld but nothing could "
			    "be started in it%s%s", (long)getpid(),
			    program_invocation_short_name, (long)parent,
			    err[0] ? ": " : "", err);
			tell_run("follow %ld nothing could be started%s%s", (long)getpid(),
			    err[0] ? ": HTTP: " : "", err);
		}
		return;
	}
	if (ying_ctl_status_get(&st) == 0)
		snprintf(b2, sizeof(b2), "%s", ying_format_bytes((double)((uint64_t)1 <<
		    (st.lg_sample < 63 ? st.lg_sample : 63)), b1, sizeof(b1)));
	else
		snprintf(b2, sizeof(b2), "?");
	set_state("active: %s", what);
	if (follow) {
		/* Said even with YING_QUIET: the endpoint moved. */
		say("ying-agent: following daemonized pid %ld (%s; pid %ld that "
		    "forked it exited): %s", (long)getpid(),
		    program_invocation_short_name, (long)parent, what);
		tell_run("follow %ld %s%s%s", (long)getpid(), what,
		    err[0] ? "; HTTP not started: " : "", err);
	} else if (!cfg_quiet) {
		say("ying-agent: pid %ld (%s): heap profiling on, one sample per %s; %s",
		    (long)getpid(), program_invocation_short_name, b2, what);
	}
}

/* Bring the HTTP endpoint, the runner and the dump signal up in this
 * process.  follow: this is a forked child that outlived its parent
 * (pid parent), a daemonizing program's survivor. */
void
bring_up(bool follow, pid_t parent)
{
	char what[1024], addr[300], err[600];
	bool http_ok = false, runner_ok = false, pyro_ok = false;
	/* "HOST:PORT" -> host length; "unix:/PATH" is a socket file */
	const char *colon = strrchr(cfg_http, ':');
	int hl = colon ? (int)(colon - cfg_http) : 0;
	bool unix_sock = strncmp(cfg_http, "unix:", 5) == 0;

	what[0] = err[0] = '\0';
	pthread_mutex_lock(&agent_lock);
	if (follow)
		yi_family_set(cfg_family, getpid());   /* the survivor heads it now */
	else if (!head_claim())
		say("ying-agent: pid %ld (%s): another process of family %s claims to "
		    "head it", (long)getpid(), program_invocation_short_name, cfg_family);
	if (!agent_stopping && cfg_http[0])
		http_ok = http_up(follow, hl, unix_sock, addr, sizeof(addr), err, sizeof(err));
	if (!follow) {
		pthread_mutex_lock(&ready_lock);
		ready_state = http_ok || !cfg_http[0] ? 1 : -1;
		pthread_cond_broadcast(&ready_cond);
		pthread_mutex_unlock(&ready_lock);
		if (!http_ok && cfg_http[0] && cfg_required) {
			/* the constructor ends the process */
			pthread_mutex_unlock(&agent_lock);
			return;
		}
	}
	if (!agent_stopping && (cfg_dir[0] || cfg_signal))
		runner_ok = runner_up();
	if (!agent_stopping && cfg_pyro.url)
		pyro_ok = pyro_up();
	if (!runner_ok && agent_sa_installed) {
		/* Nobody to take the dumps: the signal gets its old action back. */
		struct sigaction cur;
		if (sigaction(cfg_signal, NULL, &cur) == 0 &&
		    cur.sa_handler == on_dump_signal)
			sigaction(cfg_signal, &agent_old_sa, NULL);
		agent_sa_installed = false;
	}
	describe(what, sizeof(what), http_ok, runner_ok, pyro_ok, follow, hl, unix_sock,
	    agent_port);
	announce(http_ok || runner_ok || pyro_ok || (agent_giant && !follow), follow,
	    parent, what, err);
	pthread_mutex_unlock(&agent_lock);
}

static void *
starter(void *arg)
{
	(void)arg;
	ying_ctl_quiet_thread();
	pthread_setname_np(pthread_self(), "ying-agent");
	bring_up(false, 0);
	return NULL;
}

/* YING_VERBOSE: which jemalloc the agent talks to, in the words of
 * `ying run -v` ("jemalloc: SYMBOL (TABLE of FILE)"). */
static void
say_jemalloc(void)
{
	ying_ctl_status st;

	if (ying_ctl_status_get(&st) != 0) {
		ying_error_clear();
		return;
	}
	say("ying-agent: pid %ld (%s): jemalloc: %s (%s of %s)", (long)getpid(),
	    program_invocation_short_name, st.mallctl_symbol,
	    strcmp(st.mallctl_how, "dlsym") == 0 ? ".dynsym" : st.mallctl_how,
	    st.mallctl_file[0] ? st.mallctl_file : "?");
}

/* The family this process heads: YING_FAMILY's (set by an earlier
 * image of this same process, or by whoever started it) or a new one;
 * both variables are (re)set here, in the constructor, so that images
 * exec'd later join it.  false: inert (said). */
static bool
family_start(void)
{
	char head[24];

	if (cfg_family[0] == '\0' && yi_family_new_id(cfg_family, sizeof(cfg_family)) != 0) {
		go_inert(ying_last_error());
		return false;
	}
	snprintf(head, sizeof(head), "%ld", (long)getpid());
	if (setenv("YING_FAMILY", cfg_family, 1) != 0 ||
	    setenv("YING_FAMILY_HEAD", head, 1) != 0 ||
	    yi_family_set(cfg_family, getpid()) != 0) {
		go_inert("cannot set YING_FAMILY");
		return false;
	}
	return true;
}

static void
agent_setup(void)
{
	char why[1100];
	pthread_t t;
	pthread_attr_t attr;
	sigset_t all, old;
	int rc;

	if (!agent_config_read())
		return;
	/* jemalloc is looked for here, on the main thread, before any thread
	 * of ours exists (dlsym, then the loaded objects' .symtab). */
	if ((rc = ying_ctl_available()) != 0) {
		go_inert(ying_last_error());
		return;
	}
	if (cfg_verbose)
		say_jemalloc();
	/* For forked children's hook (agent_fork.c).  ying_ctl_available's
	 * mallctl has initialised jemalloc, so its fork handlers are
	 * registered before ours (below) and its child handler runs first. */
	if ((agent_mallctl = ying_ctl_mallctl()) != NULL) {
		bool tc = false;
		size_t sz = sizeof(tc);
		agent_fork_hook_ok = agent_mallctl("opt.tcache", &tc, &sz, NULL, 0) == 0 &&
		    tc;
	}
	if (cfg_recent_max != YING_RECENT_KEEP && ying_ctl_recent_max(NULL, cfg_recent_max) != 0)
		say("ying-agent: pid %ld: YING_RECENT_MAX=%lld not applied: %s", (long)getpid(),
		    (long long)cfg_recent_max, ying_last_error());
	if (!agent_config_dir())
		return;
	if (cfg_exec_member) {
		/* an image exec'd in the family: a member once old enough */
		const char *h = getenv("YING_FAMILY_HEAD");
		yi_family_set(cfg_family, h ? (pid_t)atol(h) : 0);
		if (pthread_atfork(atfork_prepare, atfork_parent, atfork_child) == 0)
			exec_watch();
		return;
	}
	if (!family_start())
		return;
	agent_pid = getpid();
	if (cfg_giant) {
		/* Installed here, on the main thread, before main() runs: every
		 * allocation of the program is seen.  A failure (jemalloc's four
		 * hook slots taken, no hooks in this jemalloc) is one warning;
		 * everything else goes on. */
		ying_giant_capture_opts go = YING_GIANT_CAPTURE_OPTS_INIT;
		char b[32];
		go.threshold = cfg_giant;
		atomic_store(&agent_hooks_busy, true);
		rc = ying_giant_capture_start(&go);
		atomic_store(&agent_hooks_busy, false);
		if (rc == 0) {
			agent_giant = true;
		} else {
			say("ying-agent: pid %ld (%s): warning: giant allocations (from %s) "
			    "not recorded: %s", (long)getpid(), program_invocation_short_name,
			    ying_format_bytes((double)cfg_giant, b, sizeof(b)), ying_last_error());
			ying_error_clear();
		}
	}
	if (pthread_atfork(atfork_prepare, atfork_parent, atfork_child) != 0) {
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
		return;
	}
	if (cfg_required && cfg_http[0]) {
		/* No endpoint, no program: wait for the starter's bind. */
		struct timespec deadline;
		int st = 0;
		clock_gettime(CLOCK_REALTIME, &deadline);
		deadline.tv_sec += REQUIRED_WAIT_SEC;
		pthread_mutex_lock(&ready_lock);
		while (ready_state == 0) {
			if (pthread_cond_timedwait(&ready_cond, &ready_lock, &deadline) ==
			    ETIMEDOUT)
				break;
		}
		st = ready_state;
		pthread_mutex_unlock(&ready_lock);
		if (st == 0)
			say("ying-agent: pid %ld: HTTP endpoint on %s not up after %d s; "
			    "YING_HTTP_REQUIRED is set: stopping the program", (long)getpid(),
			    cfg_http, REQUIRED_WAIT_SEC);
		if (st != 1)
			_exit(1);
	}
}

__attribute__((constructor)) static void
agent_init(void)
{
	agent_setup();
	/* `ying run` starts the program with prof_active:false: our libraries'
	 * initializers and our own set-up have run by now, so sampling starts
	 * here (in every process that inherits the setting, as prof:true alone
	 * would). */
	if (env_true("YING_PROF_ACTIVATE") && ying_ctl_active(NULL, 1) != 0)
		ying_error_clear();
}

static double
mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Stops everything; run on its own thread so that the destructor can give
 * up after STOP_WAIT_SEC.  The order keeps that wait enough: the HTTP
 * endpoint first (its libmicrohttpd threads end; no request reaches the
 * runner, the giant records or the uploader's counters after it), the
 * giant records' last lines, the runner, and last the uploader, whose
 * flush gets what is left of STOP_BUDGET_SEC (1.5 s) less
 * PYRO_ABORT_SLACK_SEC
 * (libcurl notices an abandoned transfer at its next progress call, up to
 * a second later), so that no libcurl or libmicrohttpd thread still runs
 * when the destructor returns and the process exits. */
/* Under `ying run`: where the RSS went at exit, one "memory PID LINE"
 * per line of the compact breakdown, for ying run's exit summary (no
 * dump: jemalloc's counters and smaps, a few milliseconds). */
static void
tell_memory(void)
{
	ying_memory_opts mo = YING_MEMORY_OPTS_INIT;
	ying_membuf mb = YING_MEMBUF_INIT;
	ying_memory *m = NULL;
	char *s, *e;

	if (!run_fd_ok() || ying_memory_get(&m, &mo) != 0)
		return;
	if (ying_memory_write_text(m, 1, ying_write_membuf, &mb) == 0 && mb.data) {
		for (s = mb.data; (e = memchr(s, '\n', mb.len - (size_t)(s - mb.data))) != NULL;
		    s = e + 1) {
			*e = '\0';
			tell_run("memory %ld %s", (long)getpid(), s);
		}
	}
	ying_membuf_release(&mb);
	ying_memory_free(m);
}

static void *
stopper(void *arg)
{
	ying_runner *r;
	ying_http *h;
	ying_pyroscope *py;
	double deadline = mono_now() + STOP_BUDGET_SEC;

	(void)arg;
	/* on this thread of the agent's, which never samples: the program's
	 * final dump (prof_final) must not hold the breakdown's allocations */
	ying_ctl_quiet_thread();
	tell_memory();
	pthread_mutex_lock(&agent_lock);
	agent_stopping = true;
	r = atomic_exchange(&agent_runner, NULL);
	h = agent_http;
	agent_http = NULL;
	py = agent_pyro;
	agent_pyro = NULL;
	pthread_mutex_unlock(&agent_lock);
	ying_http_stop(h);
	/* the last giant records are logged before the program ends */
	if (agent_giant) {
		/* (jemalloc's hook lock is not reset in a forked child) */
		atomic_store(&agent_hooks_busy, true);
		ying_giant_capture_stop();
		atomic_store(&agent_hooks_busy, false);
	}
	ying_runner_stop(r);
	if (py)
		ying_pyroscope_stop_within(py, deadline - PYRO_ABORT_SLACK_SEC - mono_now());
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
		/* The program is exiting: a dump signal from now on must not
		 * change its exit status.  Its own earlier handler comes back;
		 * a default action (death) becomes "ignored". */
		struct sigaction cur, ign = agent_old_sa;
		if (ign.sa_handler == SIG_DFL && !(ign.sa_flags & SA_SIGINFO))
			ign.sa_handler = SIG_IGN;
		if (sigaction(cfg_signal, NULL, &cur) == 0 &&
		    cur.sa_handler == on_dump_signal)
			sigaction(cfg_signal, &ign, NULL);
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
