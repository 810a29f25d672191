/*
 * live_runner.c: the growth runner, ying-profiler's automatic reports on top of
 * jemalloc's own sampling profiler.
 *
 * One background thread (which never samples: yi_ctl_quiet_thread) wakes
 * every `interval` seconds, or when ying_runner_trigger() writes a byte into
 * its pipe, takes a dump into memory and parses it (no symbols yet: that is
 * the cheap part).  The dump's unsampled inuse_space total is the "live
 * heap" (bytes in use by the program, as jeprof --inuse_space estimates it
 * from the samples; not jemalloc's stats.retained, which is memory jemalloc
 * keeps mapped but unused).  When it has moved by `pct` percent since the
 * previous report, or
 * reaches `floor` for the first time, or a report was asked for, the thread
 * symbolizes the profile and writes a report set named after the local time
 * and the live heap in MiB (2^20 bytes), so that `ls -l` tells the story:
 *
 *     ying.2026-09-09T16:45:05-04:00.152MiB.{heap,pb.gz,svg,report}
 *
 * Sets named by older versions (".152MB.", also MiB) are still recognised,
 * so pruning after an upgrade removes them too.
 *
 * Every file is written under a hidden temporary name in the same directory
 * and renamed only when the whole set was written, the .report last, so a
 * reader never sees a partial file and a full disk leaves nothing behind.
 * After each set the directory is bounded (oldest sets first), touching only
 * names that parse as ours.  The previous report's profile stays in memory
 * so the .report can say what grew since then (a ying_diff).  Errors never
 * leave the thread: the first one is printed once, the runner keeps trying.
 *
 * This file: options (ying_runner_opts_from_env), the thread, the public
 * API.  Names, directories and report sets on disk: live_runner_files.c;
 * the .report text: live_runner_report.c.
 *
 * The program may close the pipe (a daemon closing every descriptor) and
 * reuse its numbers for its own files: both ends sit at high numbers and
 * are checked (device, inode) before every read and write, and the thread
 * wakes every CHECK_MS to notice a closure even when nothing writes.  A
 * lost pipe is never touched again; the thread then polls every
 * LOST_POLL_MS for triggers, so the dump signal keeps working.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "live_runner.h"
#include "model.h"

#define MIB 1048576.0
#define RUNNER_MAX_ENTRIES 100000  /* directory entries considered by prune */
#define REPORT_MAX_FRAMES 10       /* frames printed per stack */
#define PROGRAM_MAX 512            /* program label length */

struct ying_runner {
	char *dir;
	yi_rdir rdir;              /* dir, held open (live_runner_files.c) */
	atomic_bool dir_gone;      /* removed or replaced: no more reports */
	char *program;
	double interval, pct;
	uint64_t floor, max_bytes;
	unsigned max_sets, top;
	bool portable, verbose;
	FILE *log;
	pid_t pid;                 /* the process that owns the thread */

	pthread_t thread;
	/* the wake-up pipe, checked before every use (the program may close
	 * it: yi_fdid); once lost, the thread polls every LOST_POLL_MS */
	yi_fdid pipe_r, pipe_w;
	atomic_bool pipe_lost;
	atomic_bool stop;
	atomic_uint triggers;      /* pending ying_runner_trigger calls */
	atomic_uint nreports;

	/* owned by the thread */
	ying_profile *prev;        /* the previous report's profile, symbolized */
	double prev_total;
	int64_t prev_time;
	bool have_prev;
	bool error_shown;          /* an error was printed; waiting for success */
	uint64_t giant_since;      /* the next giant record to report */
	ying_symbolizer *sym;      /* the process's shared one (live_sym.c) */
};

/* ---- options ------------------------------------------------------------------ */

static int
env_double(const char *var, double *out, double lo, double hi)
{
	const char *s = getenv(var);
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return 0;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || *end != '\0' || v < lo || v > hi)
		return yi_error(YING_EINVAL, "%s=%s: expected a number from %g to %g",
		    var, s, lo, hi);
	*out = v;
	return 0;
}

static int
env_seconds(const char *var, double *out)
{
	const char *s = getenv(var);
	char *end;
	double v, mult = 1;

	if (s == NULL || *s == '\0')
		return 0;
	errno = 0;
	v = strtod(s, &end);
	if (end != s && errno == 0 && isfinite(v)) {
		if (*end == 's')
			end++;
		else if (*end == 'm')
			mult = 60, end++;
		else if (*end == 'h')
			mult = 3600, end++;
	}
	if (end == s || errno || !isfinite(v) || *end != '\0' || v * mult > 1e7)
		return yi_error(YING_EINVAL, "%s=%s: expected seconds (300, 1.5, 5m, "
		    "1h; 0 = only on demand)", var, s);
	*out = v * mult;
	return 0;
}

static int
env_size(const char *var, uint64_t *out)
{
	const char *s = getenv(var);
	double v;

	if (s == NULL || *s == '\0')
		return 0;
	if (ying_parse_size(&v, s) != 0 || v > 1e18)
		return yi_error(YING_EINVAL, "%s=%s: expected a size (20MiB, 512k, "
		    "4096)", var, s);
	*out = (uint64_t)v;
	return 0;
}

static int
env_uint(const char *var, unsigned *out, unsigned hi)
{
	double v = -1;
	int rc;

	if ((rc = env_double(var, &v, 0, hi)) != 0)
		return rc;
	if (v >= 0) {
		if (v != floor(v))
			return yi_error(YING_EINVAL, "%s=%s: expected a whole number",
			    var, getenv(var));
		*out = (unsigned)v;
	}
	return 0;
}

static int
env_flag(const char *var, int *out)
{
	const char *s = getenv(var);

	if (s == NULL || *s == '\0')
		return 0;
	if (strcmp(s, "1") == 0 || strcmp(s, "yes") == 0 || strcmp(s, "true") == 0)
		*out = 1;
	else if (strcmp(s, "0") == 0 || strcmp(s, "no") == 0 || strcmp(s, "false") == 0)
		*out = 0;
	else
		return yi_error(YING_EINVAL, "%s=%s: expected 1 or 0", var, s);
	return 0;
}

int
ying_runner_opts_from_env(ying_runner_opts *o)
{
	const char *dir;
	int rc;

	yi_error_clear();
	if (o == NULL)
		return yi_error(YING_EINVAL, "ying_runner_opts_from_env: o is NULL");
	if ((dir = getenv("YING_REPORT_DIR")) != NULL && *dir)
		o->dir = dir;
	if ((rc = env_seconds("YING_REPORT_INTERVAL", &o->interval)) != 0 ||
	    (rc = env_double("YING_REPORT_PCT", &o->pct, 0, 1e6)) != 0 ||
	    (rc = env_size("YING_REPORT_FLOOR", &o->floor)) != 0 ||
	    (rc = env_size("YING_REPORT_MAX_BYTES", &o->max_bytes)) != 0 ||
	    (rc = env_flag("YING_REPORT_PORTABLE_NAMES", &o->portable_names)) != 0 ||
	    (rc = env_uint("YING_REPORT_MAX_SETS", &o->max_sets, 1000000)) != 0 ||
	    (rc = env_uint("YING_REPORT_TOP", &o->top, 1000)) != 0 ||
	    (rc = env_flag("YING_VERBOSE", &o->verbose)) != 0)
		return rc;
	return 0;
}

/* "/usr/bin/redis-server *:6379": the executable and its arguments. */
static char *
program_label(void)
{
	char exe[PATH_MAX], buf[PROGRAM_MAX], cmd[PROGRAM_MAX], *out;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1), r = 0;
	size_t len, k;
	int fd;

	if (n <= 0)
		snprintf(exe, sizeof(exe), "(unknown program)");
	else
		exe[n] = '\0';
	len = strnlen(exe, sizeof(buf) - 1);
	memcpy(buf, exe, len);
	buf[len] = '\0';
	if ((fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC)) >= 0) {
		r = read(fd, cmd, sizeof(cmd) - 1);
		close(fd);
	}
	if (r > 0) {
		cmd[r] = '\0';
		/* skip argv[0]; NULs separate the arguments */
		for (k = strlen(cmd) + 1; k < (size_t)r && len + 2 < sizeof(buf); k++) {
			char c = cmd[k];
			if (k > 0 && cmd[k - 1] == '\0')
				buf[len++] = ' ';
			if (c != '\0' && len + 1 < sizeof(buf))
				buf[len++] = (unsigned char)c < ' ' ? '?' : c;
		}
		while (len > 0 && buf[len - 1] == ' ')
			len--;
		buf[len] = '\0';
	}
	if ((out = yi_strdup(buf)) == NULL)
		yi_oom("copying the program name");
	return out;
}

/* ---- the thread --------------------------------------------------------------- */

static double
now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Print an error once; later ones stay quiet until a report succeeds. */
static void
runner_error(ying_runner *r, const char *what)
{
	if (r->error_shown)
		return;
	r->error_shown = true;
	fprintf(r->log ? r->log : stderr, "ying runner: %s: %s (reported once; "
	    "the program is not affected, the runner keeps trying)\n", what,
	    ying_last_error());
	fflush(r->log ? r->log : stderr);
}

/* Wait until time() has passed `last`, so two sets never share a name. */
static int64_t
next_second(int64_t last)
{
	int64_t t = (int64_t)time(NULL);
	int spins = 0;

	while (t == last && spins++ < 30) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		t = (int64_t)time(NULL);
	}
	return t;
}

/* Never write into a directory that is no longer the one we were given
 * (removed, replaced by a symlink or by someone else's), nor through a
 * descriptor number the program closed: say so once and stop. */
static bool
dir_usable(ying_runner *r)
{
	if (atomic_load(&r->dir_gone))
		return false;
	if (yi_rdir_check(&r->rdir) == 0)
		return true;
	atomic_store(&r->dir_gone, true);
	fprintf(r->log ? r->log : stderr, "ying runner: %s; no more reports are "
	    "written (the program is not affected)\n", ying_last_error());
	fflush(r->log ? r->log : stderr);
	return false;
}

static void
runner_check(ying_runner *r, bool manual)
{
	char *dump = NULL, trigger[256], base[128], b1[32], b2[32], label[64];
	size_t len = 0;
	ying_profile *p = NULL;
	double total = 0;
	yi_report_meta m;
	ying_membuf giant = YING_MEMBUF_INIT;
	uint64_t giant_next = 0;
	bool symbolized = false;
	int rc;

	if (!dir_usable(r))
		return;
	if ((rc = ying_ctl_dump_mem(&dump, &len)) != 0) {
		runner_error(r, "heap dump failed");
		return;
	}
	snprintf(label, sizeof(label), "heap dump of pid %ld", (long)r->pid);
	if ((rc = ying_profile_read_mem(&p, dump, len, label)) != 0 ||
	    (rc = ying_profile_total(&total, p, YING_INUSE_SPACE)) != 0) {
		runner_error(r, "cannot read the heap dump");
		goto out;
	}
	trigger[0] = '\0';
	if (manual) {
		snprintf(trigger, sizeof(trigger), "requested (dump signal or "
		    "ying_runner_trigger)");
	} else if (!r->have_prev || r->prev_total <= 0) {
		if (total >= (double)r->floor && total > 0)
			snprintf(trigger, sizeof(trigger), "first report: live heap "
			    "reached the floor of %s", yi_fmt_bytes((double)r->floor, b1,
			    sizeof(b1)));
	} else {
		double change = 100.0 * (total - r->prev_total) / r->prev_total;
		if (fabs(change) >= r->pct)
			snprintf(trigger, sizeof(trigger), "live heap %s %.1f %% "
			    "since the previous report (%s -> %s; threshold %g %%)",
			    change >= 0 ? "grew" : "shrank", fabs(change),
			    yi_fmt_bytes(r->prev_total, b1, sizeof(b1)),
			    yi_fmt_bytes(total, b2, sizeof(b2)), r->pct);
	}
	if (trigger[0] == '\0')
		goto out;

	memset(&m, 0, sizeof(m));
	m.time = r->have_prev ? next_second(r->prev_time) : (int64_t)time(NULL);
	m.pid = (long)r->pid;
	m.program = r->program;
	m.trigger = trigger;
	m.portable = r->portable;
	m.top = r->top;
	if (ying_ctl_stats_get(&m.stats) == 0)
		m.have_stats = true;
	else
		m.stats_error = ying_last_error();
	if (r->have_prev) {
		m.prev = r->prev;
		m.prev_time = r->prev_time;
		m.prev_total = r->prev_total;
	}
	if ((rc = yi_report_base_name(base, sizeof(base), m.time, total,
	    r->portable)) != 0) {
		runner_error(r, "cannot name the report");
		goto out;
	}
	/* Name the profile after its file, for the diff's "Base:"/"Now:" lines. */
	{
		char src[160];
		char *s;
		snprintf(src, sizeof(src), "%s.heap", base);
		if ((s = yi_strdup(src)) != NULL) {
			yi_free(p->source);
			p->source = s;
		}
	}
	p->time = m.time;
	/* giant allocations since the previous report (YING_GIANT) */
	if (ying_giant_capture_threshold() != 0) {
		if (ying_giant_capture_write_json(&giant_next, r->sym, r->giant_since,
		    ying_write_membuf, &giant) == 0) {
			m.giant_json = giant.data;
			m.giant_len = giant.len;
		} else {
			yi_error_clear();
		}
	}
	/* the explicit symbolization step; the report set only reads p */
	m.sym = r->sym;
	symbolized = true;
	/* the directory again: symbolizing may have taken a while */
	if ((rc = ying_profile_symbolize(p, r->sym, NULL)) == 0 && !dir_usable(r))
		goto out;
	if (rc != 0 ||
	    (rc = yi_runner_write_recent(r->rdir.fd, r->dir, base, &m.recent)) != 0 ||
	    (rc = yi_runner_write_set_at(r->rdir.fd, r->dir, base, p, total, dump, len,
	    &m)) != 0) {
		char what[PATH_MAX + 64];
		snprintf(what, sizeof(what), "cannot write a report set in %s", r->dir);
		runner_error(r, what);
		goto out;
	}
	atomic_fetch_add(&r->nreports, 1);
	if (m.giant_json)
		r->giant_since = giant_next;
	if (r->error_shown) {
		r->error_shown = false;
		fprintf(r->log ? r->log : stderr, "ying runner: reports are written "
		    "again (%s/%s.report)\n", r->dir, base);
	} else if (r->verbose) {
		fprintf(r->log ? r->log : stderr, "ying runner: %s/%s.report: %s\n",
		    r->dir, base, trigger);
	}
	if (yi_runner_prune_at(r->rdir.fd, r->dir, r->max_sets, r->max_bytes, base) < 0)
		runner_error(r, "cannot bound the report directory");
	ying_profile_free(r->prev);
	r->prev = p;
	p = NULL;
	r->prev_total = total;
	r->prev_time = m.time;
	r->have_prev = true;
out:
	ying_membuf_release(&giant);
	ying_profile_free(p);
	yi_free(dump);
	/* the next report reuses the names, not the debug info */
	if (symbolized)
		yi_live_cycle_end(r->sym);
}

#define CHECK_MS 1000
#define LOST_POLL_MS 200

/* The pipe still is ours; else mark it lost (the trigger stops writing
 * first) and forget both ends without closing them. */
static bool
pipe_check(ying_runner *r)
{
	if (atomic_load(&r->pipe_lost))
		return false;
	if (yi_fdid_ok(&r->pipe_r) && yi_fdid_ok(&r->pipe_w))
		return true;
	atomic_store(&r->pipe_lost, true);
	yi_fdid_forget(&r->pipe_r);
	yi_fdid_forget(&r->pipe_w);
	return false;
}

static void *
runner_main(void *arg)
{
	ying_runner *r = arg;
	double next = r->interval > 0 ? now_mono() + r->interval : 0;

	yi_ctl_quiet_thread();
	pthread_setname_np(pthread_self(), "ying-runner");
	while (!atomic_load(&r->stop)) {
		bool have_pipe = pipe_check(r);
		struct pollfd pfd = { have_pipe ? r->pipe_r.fd : -1, POLLIN, 0 };
		int timeout = -1, n, cap = have_pipe ? CHECK_MS : LOST_POLL_MS;

		if (r->interval > 0) {
			double left = next - now_mono();
			timeout = left <= 0 ? 0 : (left > INT_MAX / 1000.0 ? INT_MAX :
			    (int)ceil(left * 1000.0));
		}
		if (timeout < 0 || timeout > cap)
			timeout = cap;
		n = poll(&pfd, 1, timeout);
		if (atomic_load(&r->stop))
			break;
		if (n > 0 && (pfd.revents & POLLIN) && pipe_check(r)) {
			char buf[64];
			while (read(r->pipe_r.fd, buf, sizeof(buf)) > 0)
				;
		}
		if (atomic_exchange(&r->triggers, 0) > 0)
			runner_check(r, true);
		if (r->interval > 0 && now_mono() >= next) {
			runner_check(r, false);
			next = now_mono() + r->interval;
		}
		yi_error_clear();
	}
	return NULL;
}

/* ---- public API --------------------------------------------------------------- */

static void
runner_free(ying_runner *r)
{
	if (r == NULL)
		return;
	yi_fdid_close(&r->pipe_r);
	yi_fdid_close(&r->pipe_w);
	ying_profile_free(r->prev);
	yi_live_sym_put(r->sym);
	yi_rdir_close(&r->rdir);
	yi_free(r->dir);
	yi_free(r->program);
	yi_free(r);
}

int
ying_runner_start(ying_runner **out, const ying_runner_opts *opts)
{
	ying_runner *r;
	sigset_t all, old;
	int rc, fds[2];

	yi_error_clear();
	if (out == NULL)
		return yi_error(YING_EINVAL, "ying_runner_start: out is NULL");
	*out = NULL;
	if (opts == NULL)
		return yi_error(YING_EINVAL, "ying_runner_start: options are required "
		    "(at least the report directory)");
	if (opts->version != YING_RUNNER_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_runner_opts version %d, expected %d "
		    "(use YING_RUNNER_OPTS_INIT)", opts->version, YING_RUNNER_OPTS_VERSION);
	if (opts->dir == NULL || opts->dir[0] == '\0')
		return yi_error(YING_EINVAL, "no report directory given");
	if (strlen(opts->dir) > PATH_MAX - 160)
		return yi_error(YING_EINVAL, "report directory name too long");
	if (!isfinite(opts->interval) || opts->interval > 1e7)
		return yi_error(YING_EINVAL, "interval %g s out of range", opts->interval);
	if (!isfinite(opts->pct) || opts->pct < 0)
		return yi_error(YING_EINVAL, "pct %g must be a number >= 0", opts->pct);
	if (opts->top > 1000)
		return yi_error(YING_EINVAL, "top %u out of range (0..1000)", opts->top);
	if ((rc = ying_ctl_available()) != 0)
		return rc;
	if ((r = yi_calloc(1, sizeof(*r))) == NULL)
		return yi_oom("starting the runner");
	r->pipe_r.fd = r->pipe_w.fd = -1;
	r->rdir.fd = -1;
	if ((rc = yi_rdir_open(&r->rdir, opts->dir)) != 0) {
		runner_free(r);
		return rc;
	}
	r->dir = yi_strdup(opts->dir);
	r->program = opts->program ? yi_strdup(opts->program) : program_label();
	if (r->dir == NULL || r->program == NULL) {
		runner_free(r);
		return yi_oom("starting the runner");
	}
	if ((rc = yi_live_sym_get(&r->sym)) != 0) {
		runner_free(r);
		return rc;
	}
	r->interval = opts->interval;
	r->pct = opts->pct;
	r->floor = opts->floor;
	r->max_sets = opts->max_sets;
	r->max_bytes = opts->max_bytes;
	r->top = opts->top ? opts->top : 10;
	r->portable = opts->portable_names != 0;
	r->verbose = opts->verbose != 0;
	r->log = opts->log;
	r->pid = getpid();
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
		rc = yi_error(YING_ESYS, "pipe2: %s", strerror(errno));
		runner_free(r);
		return rc;
	}
	/* high numbers, checked before use; a forked child closes its copies
	 * (base_fd.c) */
	if (yi_fdid_take(&r->pipe_r, fds[0]) != 0 || yi_fdid_take(&r->pipe_w, fds[1]) != 0) {
		if (r->pipe_r.fd < 0)
			close(fds[1]);
		rc = yi_error(YING_ESYS, "the runner's pipe: %s", strerror(errno));
		runner_free(r);
		return rc;
	}
	yi_clean_stale_tmp(&r->rdir);
	/* The thread blocks every signal: the program's signals go to its own
	 * threads, and no handler of the program ever runs on ours. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&r->thread, NULL, runner_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		rc = yi_error(YING_ESYS, "cannot start the runner thread: %s", strerror(rc));
		runner_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int
ying_runner_trigger(ying_runner *r)
{
	int saved = errno;

	/* No yi_error (nor yi_error_clear) here: this runs in signal handlers. */
	if (r == NULL || getpid() != r->pid)
		return YING_EINVAL;
	atomic_fetch_add(&r->triggers, 1);
	/* A lost pipe is never written (its number may be the program's
	 * file now): the thread polls for triggers instead.  A full pipe
	 * means a wake-up is already pending. */
	if (atomic_load(&r->pipe_lost) || !yi_fdid_ok(&r->pipe_w)) {
		errno = saved;
		return 0;
	}
	if (write(r->pipe_w.fd, "t", 1) < 0 && errno != EAGAIN) {
		errno = saved;
		return YING_EIO;
	}
	errno = saved;
	return 0;
}

unsigned
ying_runner_reports(const ying_runner *r)
{
	return r ? atomic_load(&((ying_runner *)r)->nreports) : 0;
}

void
ying_runner_stop(ying_runner *r)
{
	if (r == NULL)
		return;
	atomic_store(&r->stop, true);
	/* unless the pipe is lost: the thread wakes within LOST_POLL_MS */
	if (!atomic_load(&r->pipe_lost) && yi_fdid_ok(&r->pipe_w) &&
	    write(r->pipe_w.fd, "s", 1) < 0) {
		/* full pipe: the thread wakes anyway */
	}
	pthread_join(r->thread, NULL);
	runner_free(r);
}
