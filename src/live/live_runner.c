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
 * Every check also feeds the leak history (live_leakhist.c): each report
 * names the leak verdicts so far, and with a limit the leaks' summed rate
 * is published for /debug/memory at most every LEAKS_EVERY_S.
 *
 * With a memory limit (the cgroup's or opts->limit: live_limit.c) the
 * thread also wakes every YI_LIMIT_POLL_MS to read the usage (one small
 * file) and jemalloc's stats.allocated (one mallctl epoch): a crossing of
 * one of the limit's fractions writes a set named ".limit90.", a heap
 * hwm_pct above its size after the previous set (at most one per
 * hwm_interval) one named ".hwm.", so the profile from just before an OOM
 * kill is on disk.  Each file of a set is fsync'd before its rename and
 * the directory after (live_runner_files.c); a limit set's .heap goes
 * first, on its own, before the symbolization that grows the resident set.
 *
 * This file: the thread and the public API (the options are the front
 * ends' to fill: the agent reads YING_REPORT_* by the settings table,
 * src/common).  Option errors name the ying_runner_opts field.  Names, directories and report sets on disk: live_runner_files.c;
 * the .report text: live_runner_report.c.
 *
 * The program may close the pipe (a daemon closing every descriptor) and
 * reuse its numbers for its own files: both ends sit at high numbers and
 * are checked (device, inode) before every read and write, and the thread
 * wakes every CHECK_MS to notice a closure even when nothing writes.  A
 * lost pipe is never touched again; the thread then polls every
 * LOST_POLL_MS for triggers, so the dump signal keeps working.
 *
 * What a trigger touches is static and never freed (as live_giant.c's
 * ring): a runner takes one of TRIG_SLOTS slots (its pipe, its pending
 * count, an "armed" flag and the owning pid), and a signal handler that
 * pokes a slot (ying_runner_trigger_all, the agent's dump signal) never
 * reads the runner itself, which ying_runner_stop frees.  A slot is
 * disarmed before its runner stops; its pipe stays open for the next
 * runner that takes the slot, so a poke that raced with the stop writes
 * one byte into a pipe of ours, never into a closed or reused number.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "live_history.h"
#include "live_runner.h"
#include "model.h"

#define MIB 1048576.0
#define RUNNER_MAX_ENTRIES 100000  /* directory entries considered by prune */
#define REPORT_MAX_FRAMES 10       /* frames printed per stack */

struct ying_runner {
	char *dir;
	yi_rdir rdir;              /* dir, held open (live_runner_files.c) */
	atomic_bool dir_gone;      /* removed or replaced: no more reports */
	char *program;
	char *frames;              /* the user's allocator frames, or NULL */
	double interval, pct;
	uint64_t floor, max_bytes;
	unsigned max_sets, top;
	bool portable, verbose, full_names;
	FILE *log;
	pid_t pid;                 /* the process that owns the thread */

	pthread_t thread;
	/* the trigger slot: its wake-up pipe, checked before every use (the
	 * program may close it: yi_fdid; once lost, the thread polls every
	 * LOST_POLL_MS) and its pending count (static, never freed) */
	struct trig_slot *slot;
	atomic_bool stop;
	atomic_uint nreports;

	/* owned by the thread */
	ying_profile *prev;        /* the previous report's profile, symbolized */
	double prev_total;
	int64_t prev_time;
	bool have_prev;
	bool error_shown;          /* an error was printed; waiting for success */
	uint64_t giant_since;      /* the next giant record to report */
	ying_symbolizer *sym;      /* the process's shared one (live_sym.c) */
	/* the memory limit (lim.source YI_LIMIT_NONE: none) and the
	 * high-water marks: stats.allocated after the last set */
	yi_limit lim;
	double hwm_pct, hwm_interval, hwm_last;
	uint64_t hwm_mark;
	double leaks_last;         /* monotonic time of the last verdicts */
	char leaks_err[256];
};

/* Why runner_check looks (limit: usage crossed frac % of the limit; hwm:
 * a new high-water mark of the heap). */
enum { CHK_PERIODIC, CHK_MANUAL, CHK_LIMIT, CHK_HWM };

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

/* Never write into a directory that is no longer the one we were given
 * (removed, replaced by a symlink or by someone else's), nor through a
 * descriptor number the program closed: say so once and stop. */
static bool
dir_usable(ying_runner *r)
{
	if (atomic_load(&r->dir_gone))
		return false;
	bool was_sink = r->rdir.sink;

	if (yi_rdir_check(&r->rdir) == 0) {
		if (r->rdir.sink && !was_sink && r->verbose) {
			fprintf(r->log ? r->log : stderr, "ying runner: pid %ld can no longer "
			    "write %s (it runs as uid %ld now): ying run writes its reports\n",
			    (long)getpid(), r->dir, (long)geteuid());
			fflush(r->log ? r->log : stderr);
		}
		return true;
	}
	atomic_store(&r->dir_gone, true);
	fprintf(r->log ? r->log : stderr, "ying runner: %s; no more reports are "
	    "written (the program is not affected)\n", ying_last_error());
	fflush(r->log ? r->log : stderr);
	return false;
}

/* jemalloc's stats.allocated now, or 0. */
static uint64_t
allocated_now(void)
{
	ying_ctl_stats st;

	if (ying_ctl_stats_get(&st) != 0) {
		yi_error_clear();
		return 0;
	}
	return st.allocated;
}

#define LEAKS_EVERY_S 10.0        /* between verdicts outside reports */

/* The verdicts so far into m (a report), or without m only the leaks'
 * summed rate for /debug/memory: at most every LEAKS_EVERY_S, only with
 * a limit to project.  m->leaks is the caller's to free. */
static void
runner_leaks(ying_runner *r, yi_report_meta *m)
{
	if (m == NULL && (r->lim.source == YI_LIMIT_NONE ||
	    now_mono() - r->leaks_last < LEAKS_EVERY_S))
		return;
	r->leaks_last = now_mono();
	yi_leakhist_verdicts(r->sym, r->frames, r->full_names, m, r->leaks_err,
	    sizeof(r->leaks_err));
}

static void
runner_check(ying_runner *r, int why, double frac, uint64_t usage)
{
	char *dump = NULL, trigger[256], base[128], b1[32], b2[32], label[64], tag[16];
	char memerr[256];
	bool manual = why == CHK_MANUAL;
	size_t len = 0;
	ying_profile *p = NULL;
	double total = 0;
	yi_report_meta m = { 0 };
	ying_membuf giant = YING_MEMBUF_INIT;
	ying_memory *mem = NULL;
	uint64_t giant_next = 0;
	bool symbolized = false;
	ying_symbolize_opts so = YING_SYMBOLIZE_OPTS_INIT;
	const char *wdir;
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
	/* every check feeds the leak history (addresses only: cheap) */
	yi_leakhist_feed(p);
	trigger[0] = tag[0] = '\0';
	if (why == CHK_LIMIT) {
		snprintf(tag, sizeof(tag), "limit%d", (int)frac);
		snprintf(trigger, sizeof(trigger), "usage %s crossed %g %% of the memory "
		    "limit of %s (%s; usage: %s)", yi_fmt_bytes((double)usage, b1,
		    sizeof(b1)), frac, yi_fmt_bytes((double)r->lim.limit, b2, sizeof(b2)),
		    yi_limit_source_name(&r->lim), yi_limit_usage_name(&r->lim));
	} else if (why == CHK_HWM) {
		snprintf(tag, sizeof(tag), "hwm");
		snprintf(trigger, sizeof(trigger), "new high-water mark: jemalloc's "
		    "allocated %s, %g %% or more above its %s after the previous report",
		    yi_fmt_bytes((double)usage, b1, sizeof(b1)), r->hwm_pct,
		    yi_fmt_bytes((double)r->hwm_mark, b2, sizeof(b2)));
	} else if (manual) {
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
	if (trigger[0] == '\0') {
		runner_leaks(r, NULL);
		goto out;
	}

	memset(&m, 0, sizeof(m));
	/* where the RSS goes, before symbolizing (whose debug info would be
	 * counted); the dump's text and profile are in it, as they are in
	 * the process at every check */
	{
		ying_memory_opts mo = YING_MEMORY_OPTS_INIT;
		if (ying_memory_get(&mem, &mo) == 0) {
			m.memory = mem;
		} else {
			snprintf(memerr, sizeof(memerr), "%s", ying_last_error());
			m.memory_error = memerr;
			yi_error_clear();
		}
	}
	m.time = r->have_prev ? yi_runner_next_second(r->prev_time) : (int64_t)time(NULL);
	m.pid = (long)r->pid;
	m.program = r->program;
	m.trigger = trigger;
	m.portable = r->portable;
	m.full_names = r->full_names;
	m.top = r->top;
	if (r->lim.source != YI_LIMIT_NONE) {
		m.limit = &r->lim;
		m.frac = why == CHK_LIMIT ? frac : 0;
		m.usage = usage;
		if (why != CHK_LIMIT && yi_limit_usage(&r->lim, &m.usage) != 0)
			yi_error_clear();
	}
	if (ying_ctl_stats_get(&m.stats) == 0)
		m.have_stats = true;
	else
		m.stats_error = ying_last_error();
	if (r->have_prev) {
		m.prev = r->prev;
		m.prev_time = r->prev_time;
		m.prev_total = r->prev_total;
	}
	if ((rc = yi_report_base_name_tag(base, sizeof(base), m.time, total,
	    r->portable, tag[0] ? tag : NULL)) != 0) {
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
	/* a limit report's dump first, on disk before symbolizing (which maps
	 * debug information: the resident set grows for a moment) */
	wdir = r->rdir.sink ? r->rdir.real : r->dir;
	if (why == CHK_LIMIT) {
		if (yi_runner_write_heap(r->rdir.fd, wdir, base, dump, len) == 0)
			m.heap_written = true;
		else
			yi_error_clear();
	}
	/* the explicit symbolization step; the report set only reads p */
	m.sym = r->sym;
	symbolized = true;
	/* the directory again: symbolizing may have taken a while */
	so.frames = r->frames;
	so.full_names = r->full_names;
	if ((rc = ying_profile_symbolize(p, r->sym, &so)) == 0 && !dir_usable(r))
		goto out;
	/* the verdicts so far, named by the same symbolizer */
	if (rc == 0)
		runner_leaks(r, &m);
	/* the fragmented classes' sites from the symbolized p */
	if (rc == 0 && mem != NULL && ying_memory_set_profile(mem, p) != 0)
		yi_error_clear();
	/* in sink mode the keeper is told the directory's absolute name
	 * (wdir, above) */
	if (rc != 0 ||
	    (rc = yi_runner_write_recent(r->rdir.fd, wdir, base, &m.recent)) != 0 ||
	    (rc = yi_runner_write_set_at(r->rdir.fd, wdir, base, p, total, dump, len,
	    &m)) != 0) {
		char what[PATH_MAX + 64];
		snprintf(what, sizeof(what), "cannot write a report set in %s", r->dir);
		runner_error(r, what);
		goto out;
	}
	atomic_fetch_add(&r->nreports, 1);
	yi_hist_eventf("report", "%s.heap", base);    /* the live page's marker */
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
	if (yi_runner_prune_at(r->rdir.fd, wdir, r->max_sets, r->max_bytes, base) < 0)
		runner_error(r, "cannot bound the report directory");
	ying_profile_free(r->prev);
	r->prev = p;
	p = NULL;
	r->prev_total = total;
	r->prev_time = m.time;
	r->have_prev = true;
	if (r->lim.source != YI_LIMIT_NONE) {
		/* the next high-water mark counts from here (the symbolizer's
		 * debug info is in it now) */
		r->hwm_mark = allocated_now();
		if (why == CHK_HWM)
			r->hwm_last = now_mono();
	}
out:
	ying_leaks_free((ying_leaks *)m.leaks);
	ying_membuf_release(&giant);
	ying_memory_free(mem);
	ying_profile_free(p);
	yi_free(dump);
	/* the next report reuses the names, not the debug info */
	if (symbolized)
		yi_live_cycle_end(r->sym);
}

#define CHECK_MS 1000
#define LOST_POLL_MS 200

/* ---- the trigger slots: static, never freed ---------------------------------- */

#define TRIG_SLOTS 16

/* owner: the pid of the process whose runner holds the slot (0: free; a
 * forked child finds its parent's slots held by another pid and may take
 * them: their threads stayed in the parent).  armed: that runner's thread
 * reads the pipe; a poke checks it (acquire) before it reads the pipe's
 * fields.  inflight: pokes between that check and their write; the pipe
 * fields are only rewritten (a new pipe for a lost or never-made one)
 * while the slot is disarmed and no poke is in flight.  The pipe itself
 * is never closed while the process lives: a late poke writes into it. */
typedef struct trig_slot {
	atomic_int owner;
	atomic_bool armed;
	atomic_int inflight;
	atomic_uint triggers;      /* pending pokes */
	atomic_bool lost;          /* the program closed or reused an end */
	yi_fdid r, w;
} trig_slot;

static trig_slot trig_slots[TRIG_SLOTS];

/* Count a trigger and wake the slot's thread.  Async-signal-safe: no lock,
 * no allocation, errno kept; a disarmed or foreign slot is left alone.  A
 * lost pipe is never written (its number may be the program's file now):
 * the thread polls for triggers instead.  A full pipe means a wake-up is
 * already pending.  0, YING_EINVAL (not armed here) or YING_EIO. */
static int
trig_poke(trig_slot *t)
{
	int saved = errno, rc = 0;

	atomic_fetch_add(&t->inflight, 1);
	if (!atomic_load_explicit(&t->armed, memory_order_acquire) ||
	    atomic_load(&t->owner) != (int)getpid()) {
		rc = YING_EINVAL;
	} else {
		atomic_fetch_add(&t->triggers, 1);
		if (!atomic_load(&t->lost) && yi_fdid_ok(&t->w) &&
		    write(t->w.fd, "t", 1) < 0 && errno != EAGAIN)
			rc = YING_EIO;
	}
	atomic_fetch_sub(&t->inflight, 1);
	errno = saved;
	return rc;
}

/* The slot's pipe still is ours; else mark it lost (pokes stop writing)
 * and forget both ends without closing them.  The runner's thread only
 * (and trig_take before the thread exists). */
static bool
trig_pipe_ok(trig_slot *t)
{
	if (atomic_load(&t->lost))
		return false;
	if (yi_fdid_ok(&t->r) && yi_fdid_ok(&t->w))
		return true;
	atomic_store(&t->lost, true);
	yi_fdid_forget(&t->r);
	yi_fdid_forget(&t->w);
	return false;
}

/* A new pipe for the slot (never made, lost, or closed in a forked child
 * by base_fd.c): high numbers, checked before use, closed by a fork. */
static int
trig_new_pipe(trig_slot *t)
{
	int fds[2];

	t->r.fd = t->w.fd = -1;
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
		return yi_error(YING_ESYS, "pipe2: %s", strerror(errno));
	if (yi_fdid_take(&t->r, fds[0]) != 0) {
		close(fds[1]);
		return yi_error(YING_ESYS, "the runner's pipe: %s", strerror(errno));
	}
	if (yi_fdid_take(&t->w, fds[1]) != 0) {
		yi_fdid_close(&t->r);
		return yi_error(YING_ESYS, "the runner's pipe: %s", strerror(errno));
	}
	atomic_store(&t->lost, false);
	return 0;
}

/* Take a free slot for this process, with a usable, empty pipe, disarmed:
 * *out.  0 or the error. */
static int
trig_take(trig_slot **out)
{
	int me = (int)getpid(), rc;
	trig_slot *t = NULL;
	char buf[64];

	*out = NULL;
	for (size_t i = 0; i < TRIG_SLOTS && t == NULL; i++) {
		int o = atomic_load(&trig_slots[i].owner);
		if ((o == 0 || o != me) &&
		    atomic_compare_exchange_strong(&trig_slots[i].owner, &o, me))
			t = &trig_slots[i];
	}
	if (t == NULL)
		return yi_error(YING_ELIMIT, "more than %d growth runners in one "
		    "process", TRIG_SLOTS);
	atomic_store(&t->armed, false);
	/* a poke that saw the slot armed for its previous runner ends first
	 * (a few instructions; bounded: a forked child's copy may count a
	 * poke of a thread that stayed in the parent) */
	for (int i = 0; i < 100000 && atomic_load(&t->inflight) > 0; i++)
		sched_yield();
	atomic_store(&t->inflight, 0);
	if (!trig_pipe_ok(t) && (rc = trig_new_pipe(t)) != 0) {
		atomic_store(&t->owner, 0);
		return rc;
	}
	while (read(t->r.fd, buf, sizeof(buf)) > 0)
		;
	atomic_store(&t->triggers, 0);
	*out = t;
	return 0;
}

/* Give the slot back; its pipe stays open for the next runner. */
static void
trig_release(trig_slot *t)
{
	if (t == NULL)
		return;
	atomic_store(&t->armed, false);
	atomic_store(&t->owner, 0);
}

/* ---- the thread (continued) --------------------------------------------------- */

/* With a limit, every YI_LIMIT_POLL_MS: the usage against the limit's
 * fractions, then the heap against its high-water mark. */
static void
limit_tick(ying_runner *r)
{
	uint64_t usage, alloc;
	int f;

	if (yi_limit_usage(&r->lim, &usage) != 0) {
		runner_error(r, "cannot read the memory usage");
		return;
	}
	yi_limit_record(&r->lim, now_mono(), usage);   /* the trend: time to the limit */
	yi_limit_publish(&r->lim);
	if ((f = yi_limit_step(&r->lim, usage)) >= 0) {
		yi_hist_eventf("limit", "%g %% of the limit", r->lim.frac[f]);
		runner_check(r, CHK_LIMIT, r->lim.frac[f], usage);
		return;
	}
	if (r->hwm_pct <= 0 || (alloc = allocated_now()) < r->floor)
		return;
	if (r->hwm_mark == 0) {
		r->hwm_mark = alloc;
		return;
	}
	if ((double)alloc >= (double)r->hwm_mark * (1.0 + r->hwm_pct / 100.0) &&
	    (r->hwm_last == 0 || now_mono() - r->hwm_last >= r->hwm_interval))
		runner_check(r, CHK_HWM, 0, alloc);
}

static void *
runner_main(void *arg)
{
	ying_runner *r = arg;
	trig_slot *t = r->slot;
	double next = r->interval > 0 ? now_mono() + r->interval : 0, next_limit = 0;

	yi_ctl_quiet_thread();
	pthread_setname_np(pthread_self(), "ying-runner");
	while (!atomic_load(&r->stop)) {
		bool have_pipe = trig_pipe_ok(t);
		struct pollfd pfd = { have_pipe ? t->r.fd : -1, POLLIN, 0 };
		int timeout = -1, n, cap = have_pipe ? CHECK_MS : LOST_POLL_MS;

		if (r->lim.source != YI_LIMIT_NONE && cap > YI_LIMIT_POLL_MS)
			cap = YI_LIMIT_POLL_MS;

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
		if (n > 0 && (pfd.revents & POLLIN) && trig_pipe_ok(t)) {
			char buf[64];
			while (read(t->r.fd, buf, sizeof(buf)) > 0)
				;
		}
		if (atomic_exchange(&t->triggers, 0) > 0)
			runner_check(r, CHK_MANUAL, 0, 0);
		if (r->interval > 0 && now_mono() >= next) {
			runner_check(r, CHK_PERIODIC, 0, 0);
			next = now_mono() + r->interval;
		}
		if (r->lim.source != YI_LIMIT_NONE && now_mono() >= next_limit) {
			limit_tick(r);
			next_limit = now_mono() + YI_LIMIT_POLL_MS / 1000.0;
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
	yi_reports_remove(r);
	trig_release(r->slot);
	ying_profile_free(r->prev);
	yi_live_sym_put(r->sym);
	yi_rdir_close(&r->rdir);
	yi_free(r->dir);
	yi_free(r->program);
	yi_free(r->frames);
	yi_free(r);
}

int
ying_runner_start(ying_runner **out, const ying_runner_opts *opts)
{
	ying_runner *r;
	sigset_t all, old;
	int rc;

	yi_error_clear();
	if (out == NULL)
		return yi_error(YING_EINVAL, "ying_runner_start: out is NULL");
	*out = NULL;
	if (opts == NULL)
		return yi_error(YING_EINVAL, "ying_runner_start: options are required "
		    "(at least the report directory)");
	/* version 2 (no limit fields) is still read */
	if (opts->version != YING_RUNNER_OPTS_VERSION && opts->version != 2)
		return yi_error(YING_EINVAL, "ying_runner_opts version %d, expected %d "
		    "(use YING_RUNNER_OPTS_INIT)", opts->version, YING_RUNNER_OPTS_VERSION);
	if (opts->version >= 3 && (!isfinite(opts->hwm_pct) || opts->hwm_pct < 0 ||
	    !isfinite(opts->hwm_interval) || opts->hwm_interval < 0))
		return yi_error(YING_EINVAL, "ying_runner_opts.hwm_pct %g, hwm_interval %g: "
		    "expected numbers >= 0", opts->hwm_pct, opts->hwm_interval);
	if (opts->dir == NULL || opts->dir[0] == '\0')
		return yi_error(YING_EINVAL, "ying_runner_opts.dir: no report directory given");
	if (strlen(opts->dir) > PATH_MAX - 160)
		return yi_error(YING_EINVAL, "ying_runner_opts.dir: report directory name too long");
	if (!isfinite(opts->interval) || opts->interval > 1e7)
		return yi_error(YING_EINVAL, "ying_runner_opts.interval %g s out of range "
		    "(at most 1e7)", opts->interval);
	if (!isfinite(opts->pct) || opts->pct < 0)
		return yi_error(YING_EINVAL, "ying_runner_opts.pct %g must be a number >= 0",
		    opts->pct);
	if (opts->top > 1000)
		return yi_error(YING_EINVAL, "ying_runner_opts.top %u out of range (0..1000)",
		    opts->top);
	if ((rc = yi_live_frames_check(opts->frames, "ying_runner_opts.frames")) != 0)
		return rc;
	if ((rc = ying_ctl_available()) != 0)
		return rc;
	if ((r = yi_calloc(1, sizeof(*r))) == NULL)
		return yi_oom("starting the runner");
	r->rdir.fd = -1;
	if ((rc = yi_rdir_open(&r->rdir, opts->dir)) != 0) {
		runner_free(r);
		return rc;
	}
	r->dir = yi_strdup(opts->dir);
	r->program = opts->program ? yi_strdup(opts->program) : yi_runner_program_label();
	r->frames = opts->frames && opts->frames[0] ? yi_strdup(opts->frames) : NULL;
	if (r->dir == NULL || r->program == NULL ||
	    (opts->frames && opts->frames[0] && r->frames == NULL)) {
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
	r->full_names = opts->full_names != 0;
	r->verbose = opts->verbose != 0;
	r->log = opts->log;
	r->pid = getpid();
	{
		static const double def_fracs[] = { 80, 90 };
		bool v3 = opts->version >= 3;
		const double *fr = v3 && opts->limit_fracs ? opts->limit_fracs : def_fracs;
		unsigned nf = v3 && opts->limit_fracs ? opts->n_limit_fracs : 2;
		if ((rc = yi_limit_init(&r->lim, v3 ? opts->limit : 0, fr, nf, NULL,
		    v3 ? opts->cgroup_root : NULL)) != 0) {
			if (rc == YING_EINVAL) {
				runner_free(r);
				return rc;
			}
			/* an unreadable cgroup: no limit, said once */
			runner_error(r, "cannot read the memory limit");
			yi_error_clear();
		}
		r->hwm_pct = v3 ? opts->hwm_pct : 10;
		r->hwm_interval = v3 ? opts->hwm_interval : 60;
	}
	if ((rc = trig_take(&r->slot)) != 0) {
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
	atomic_store_explicit(&r->slot->armed, true, memory_order_release);
	yi_reports_add(r, &r->rdir);       /* its dumps: the live page's points */
	*out = r;
	return 0;
}

int
ying_runner_trigger(ying_runner *r)
{
	/* No yi_error (nor yi_error_clear) here: this runs in signal handlers. */
	if (r == NULL || getpid() != r->pid)
		return YING_EINVAL;
	return trig_poke(r->slot) == YING_EIO ? YING_EIO : 0;
}

int
ying_runner_trigger_all(void)
{
	int n = 0;

	/* No yi_error here either; only the static slots are read. */
	for (size_t i = 0; i < TRIG_SLOTS; i++)
		if (trig_poke(&trig_slots[i]) != YING_EINVAL)
			n++;
	return n;
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
	/* pokes from now on are no-ops; the slot and its pipe stay */
	atomic_store(&r->slot->armed, false);
	atomic_store(&r->stop, true);
	/* unless the pipe is lost: the thread wakes within LOST_POLL_MS */
	if (!atomic_load(&r->slot->lost) && yi_fdid_ok(&r->slot->w) &&
	    write(r->slot->w.fd, "s", 1) < 0) {
		/* full pipe: the thread wakes anyway */
	}
	pthread_join(r->thread, NULL);
	if (r->lim.source != YI_LIMIT_NONE)
		yi_limit_publish(NULL);
	yi_leakhist_publish(NULL);
	runner_free(r);
}
