/*
 * runner.c: the growth runner, ying-profiler's automatic reports on top of
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

#include "internal.h"

#define MIB 1048576.0
#define RUNNER_MAX_ENTRIES 100000  /* directory entries considered by prune */
#define REPORT_MAX_FRAMES 10       /* frames printed per stack */
#define PROGRAM_MAX 512            /* program label length */

struct ying_runner {
	char *dir;
	char *program;
	double interval, pct;
	uint64_t floor, max_bytes;
	unsigned max_sets, top;
	bool portable, verbose;
	FILE *log;
	pid_t pid;                 /* the process that owns the thread */

	pthread_t thread;
	int pipe_r, pipe_w;
	atomic_bool stop;
	atomic_uint triggers;      /* pending ying_runner_trigger calls */
	atomic_uint nreports;

	/* owned by the thread */
	ying_profile *prev;        /* the previous report's profile, symbolized */
	double prev_total;
	int64_t prev_time;
	bool have_prev;
	bool error_shown;          /* an error was printed; waiting for success */
};

/* ---- names ------------------------------------------------------------------ */

int
yi_runner_iso_time(char *buf, size_t n, int64_t t, bool portable)
{
	struct tm tm;
	time_t tt = (time_t)t;
	long off, oh, om;
	char sign;
	int r;

	if (buf == NULL || n == 0)
		return yi_error(YING_EINVAL, "no buffer for the time");
	buf[0] = '\0';
	if (localtime_r(&tt, &tm) == NULL)
		return yi_error(YING_EINVAL, "time %" PRId64 " cannot be represented", t);
	off = tm.tm_gmtoff;
	sign = off < 0 ? '-' : '+';
	off = off < 0 ? -off : off;
	oh = off / 3600;
	om = off % 3600 / 60;
	if (portable)
		r = snprintf(buf, n, "%04d%02d%02dT%02d%02d%02d%c%02ld%02ld",
		    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		    tm.tm_min, tm.tm_sec, sign, oh, om);
	else
		r = snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d%c%02ld:%02ld",
		    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		    tm.tm_min, tm.tm_sec, sign, oh, om);
	if (r < 0 || (size_t)r >= n)
		return yi_error(YING_EINVAL, "time buffer too small (%zu bytes)", n);
	return 0;
}

int
yi_runner_base_name(char *buf, size_t n, int64_t t, double bytes, bool portable)
{
	char ts[48];
	double mb;
	int rc, r;

	if ((rc = yi_runner_iso_time(ts, sizeof(ts), t, portable)) != 0)
		return rc;
	if (!isfinite(bytes) || bytes < 0)
		bytes = 0;
	mb = floor(bytes / MIB + 0.5);
	r = snprintf(buf, n, "ying.%s.%.0fMiB", ts, mb);
	if (r < 0 || (size_t)r >= n)
		return yi_error(YING_EINVAL, "name buffer too small (%zu bytes)", n);
	return 0;
}

static const char *const set_exts[] = { ".report", ".svg", ".heap", ".pb.gz" };
#define NEXTS (sizeof(set_exts) / sizeof(set_exts[0]))

int
yi_runner_parse_name(const char *name, size_t *base_len)
{
	size_t len, el, b, i, k;
	const char *p;

	if (name == NULL || strncmp(name, "ying.", 5) != 0)
		return 0;
	len = strlen(name);
	for (i = 0; i < NEXTS; i++) {
		el = strlen(set_exts[i]);
		if (len > el && strcmp(name + len - el, set_exts[i]) == 0)
			break;
	}
	if (i == NEXTS)
		return 0;
	b = len - el;
	/* base = "ying." TIME "." DIGITS "MiB", or "MB" (the older names of
	 * the same sizes: recognised so that they are still pruned) */
	if (b >= 5 + 1 + 1 + 1 + 3 && strncmp(name + b - 3, "MiB", 3) == 0)
		k = b - 3;
	else if (b >= 5 + 1 + 1 + 1 + 2 && strncmp(name + b - 2, "MB", 2) == 0)
		k = b - 2;
	else
		return 0;
	if (k == 0 || name[k - 1] < '0' || name[k - 1] > '9')
		return 0;
	while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
		k--;
	if (k == 0 || name[k - 1] != '.')
		return 0;
	/* TIME: digits, 'T', ':', '+', '-'; at least 8 characters */
	if (k - 1 < 5 + 8)
		return 0;
	for (p = name + 5; p < name + k - 1; p++)
		if (!((*p >= '0' && *p <= '9') || *p == 'T' || *p == ':' ||
		    *p == '+' || *p == '-'))
			return 0;
	if (base_len)
		*base_len = b;
	return 1;
}

/* ---- directories ------------------------------------------------------------ */

int
yi_mkdir_p(const char *dir)
{
	char *path, *s;
	struct stat st;
	int rc = 0;

	if (dir == NULL || dir[0] == '\0')
		return yi_error(YING_EINVAL, "no directory given");
	if ((path = yi_strdup(dir)) == NULL)
		return yi_oom("copying a directory name");
	for (s = path + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;
			*s = '\0';
			if (mkdir(path, 0700) != 0 && errno != EEXIST) {
				rc = yi_error(YING_EIO, "cannot create directory %s: %s",
				    path, strerror(errno));
				break;
			}
			*s = c;
			if (c == '\0')
				break;
		}
	}
	if (rc == 0 && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)))
		rc = yi_error(YING_EIO, "%s is not a directory", dir);
	if (rc == 0 && access(dir, W_OK | X_OK) != 0)
		rc = yi_error(YING_EIO, "cannot write into %s: %s", dir, strerror(errno));
	yi_free(path);
	return rc;
}

/* Remove ".ying-tmp.<pid>.*" files left by processes that are gone (or by
 * an earlier program image of this very pid). */
static void
clean_stale_tmp(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX];

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		long pid;
		char *end;

		if (strncmp(e->d_name, ".ying-tmp.", 10) != 0)
			continue;
		pid = strtol(e->d_name + 10, &end, 10);
		if (end == e->d_name + 10 || *end != '.')
			continue;
		if (pid != (long)getpid() && (pid <= 0 || kill((pid_t)pid, 0) == 0 ||
		    errno != ESRCH))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) <
		    sizeof(path))
			unlink(path);
	}
	closedir(d);
}

/* ---- the .report text ------------------------------------------------------- */

typedef struct stack_ref {
	uint32_t idx;
	double val;
} stack_ref;

static int
cmp_stack_ref(const void *a, const void *b)
{
	const stack_ref *x = a, *y = b;

	if (x->val != y->val)
		return x->val < y->val ? 1 : -1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void
put_frame(yi_out *o, const ying_profile *p, const yi_frame *fr)
{
	const yi_func *f = &p->funcs.v[fr->func];

	yi_out_where(o, yi_profile_str(p, f->name), yi_profile_str(p, f->file), fr->line);
	if (fr->inlined)
		yi_out_puts(o, " [inline]");
}

static int
write_top_stacks(yi_out *o, ying_profile *p, double total, unsigned top)
{
	stack_ref *refs;
	yi_framevec fv = { NULL, 0, 0 };
	size_t i, n = 0;
	char b1[32];

	if (p->stacks.n == 0) {
		yi_out_puts(o, "  (no live samples)\n");
		return 0;
	}
	if ((refs = yi_calloc(p->stacks.n, sizeof(*refs))) == NULL)
		return yi_oom("sorting stacks for a report");
	for (i = 0; i < p->stacks.n; i++) {
		double v = p->stacks.v[i].val[YING_INUSE_SPACE];
		if (v > 0) {
			refs[n].idx = (uint32_t)i;
			refs[n].val = v;
			n++;
		}
	}
	qsort(refs, n, sizeof(*refs), cmp_stack_ref);
	if (n == 0)
		yi_out_puts(o, "  (no live samples)\n");
	for (i = 0; i < n && i < top; i++) {
		const yi_stack *st = &p->stacks.v[refs[i].idx];
		long nf = yi_stack_expand(p, st, &fv);
		long k, shown;

		if (nf < 0) {
			yi_free(refs);
			yi_vec_free(&fv);
			return (int)nf;
		}
		yi_out_printf(o, "#%-2zu %10s  %5.1f%%  %.0f objects\n", i + 1,
		    yi_fmt_bytes(refs[i].val, b1, sizeof(b1)),
		    total > 0 ? 100.0 * refs[i].val / total : 0.0,
		    st->val[YING_INUSE_OBJECTS]);
		/* Frames leaf first, up to main; a function inlined into itself
		 * (the symbolizer's inline chain) is printed once. */
		for (k = 0, shown = 0; k < nf && shown < REPORT_MAX_FRAMES; k++) {
			const char *name = yi_profile_str(p, p->funcs.v[fv.v[k].func].name);
			if (k > 0 && strcmp(name, yi_profile_str(p,
			    p->funcs.v[fv.v[k - 1].func].name)) == 0)
				continue;
			yi_out_puts(o, "      ");
			put_frame(o, p, &fv.v[k]);
			yi_out_putc(o, '\n');
			shown++;
			if (strcmp(name, "main") == 0) {
				k = nf;
				break;
			}
		}
		if (k < nf)
			yi_out_printf(o, "      ... %ld more frames\n", nf - k);
	}
	if (n > top)
		yi_out_printf(o, "    ... %zu more stacks\n", n - top);
	yi_free(refs);
	yi_vec_free(&fv);
	return 0;
}

/* Flush o, run a writer into a membuf and copy its text into o. */
static int
embed(yi_out *o, ying_membuf *mb, int rc)
{
	if (rc == 0 && mb->len)
		yi_out_write(o, mb->data, mb->len);
	ying_membuf_release(mb);
	return rc;
}

int
yi_runner_write_report(ying_profile *p, double total, const yi_report_meta *m,
    ying_write_fn fn, void *opaque)
{
	yi_out *o;
	char ts[48], pts[48], b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
	const char *prog, *base;
	int rc;

	if (p == NULL || m == NULL || fn == NULL)
		return yi_error(YING_EINVAL, "yi_runner_write_report: NULL argument");
	if ((rc = yi_profile_ensure_symbolized(p)) != 0)
		return rc;
	if ((o = yi_malloc(sizeof(*o))) == NULL)
		return yi_oom("writing a report");
	yi_out_init(o, fn, opaque);
	yi_runner_iso_time(ts, sizeof(ts), m->time, false);
	prog = m->program ? m->program : "";
	base = strrchr(prog, '/');
	base = base ? base + 1 : prog;
	{
		/* the executable's basename: up to the first space */
		size_t bl = strcspn(base, " ");
		yi_out_printf(o, "ying report: %.*s (pid %ld), live heap %s\n\n",
		    (int)bl, base, m->pid, yi_fmt_bytes(total, b1, sizeof(b1)));
	}
	yi_out_printf(o, "time       %s\n", ts);
	yi_out_printf(o, "program    %s\n", prog);
	yi_out_printf(o, "pid        %ld\n", m->pid);
	yi_out_printf(o, "trigger    %s\n", m->trigger ? m->trigger : "");
	yi_out_printf(o, "live heap  %s (%.0f bytes): in use by the program, from "
	    "jemalloc's samples unsampled like jeprof --inuse_space\n",
	    yi_fmt_bytes(total, b1, sizeof(b1)), total);
	if (m->prev || m->prev_time) {
		double d = total - m->prev_total;
		yi_runner_iso_time(pts, sizeof(pts), m->prev_time, false);
		yi_out_printf(o, "previous   live heap %s at %s; change %s%s",
		    yi_fmt_bytes(m->prev_total, b1, sizeof(b1)), pts, d >= 0 ? "+" : "",
		    yi_fmt_bytes(d, b2, sizeof(b2)));
		if (m->prev_total > 0)
			yi_out_printf(o, " (%+.1f %%)", 100.0 * d / m->prev_total);
		yi_out_putc(o, '\n');
	} else {
		yi_out_puts(o, "previous   none (first report)\n");
	}
	if (m->have_stats)
		yi_out_printf(o, "jemalloc   allocated %s, active %s, resident %s, "
		    "mapped %s, retained %s (unused, still mapped), metadata %s\n",
		    yi_fmt_bytes((double)m->stats.allocated, b1, sizeof(b1)),
		    yi_fmt_bytes((double)m->stats.active, b2, sizeof(b2)),
		    yi_fmt_bytes((double)m->stats.resident, b3, sizeof(b3)),
		    yi_fmt_bytes((double)m->stats.mapped, b4, sizeof(b4)),
		    yi_fmt_bytes((double)m->stats.retained, b5, sizeof(b5)),
		    yi_fmt_bytes((double)m->stats.metadata, b6, sizeof(b6)));
	else
		yi_out_printf(o, "jemalloc   statistics unavailable: %s\n",
		    m->stats_error ? m->stats_error : "unknown error");
	{
		uint64_t period = ying_profile_period(p);
		unsigned lg = 0;
		while (lg < 63 && ((uint64_t)1 << lg) < period)
			lg++;
		yi_out_printf(o, "sampling   one sample per %s allocated on average "
		    "(lg_prof_sample %u); %zu stacks\n",
		    yi_fmt_bytes((double)period, b1, sizeof(b1)), lg, p->stacks.n);
	}
	if (m->base)
		yi_out_printf(o, "files      %s.svg (flame graph), .heap (ying top, "
		    "jeprof), .pb.gz (go tool pprof)\n", m->base);

	yi_out_printf(o, "\nTop %u stacks by live heap (innermost frame first)\n",
	    m->top ? m->top : 10);
	if ((rc = write_top_stacks(o, p, total, m->top ? m->top : 10)) != 0)
		goto out;

	yi_out_puts(o, "\nTop functions\n");
	{
		ying_membuf mb = YING_MEMBUF_INIT;
		ying_top_opts to = YING_TOP_OPTS_INIT;
		to.limit = 15;
		if ((rc = embed(o, &mb, ying_profile_write_top(p, &to,
		    ying_write_membuf, &mb))) != 0)
			goto out;
	}

	if (m->prev) {
		ying_diff *d = NULL;
		ying_membuf mb = YING_MEMBUF_INIT;
		ying_diff_opts dop = YING_DIFF_OPTS_INIT;

		yi_out_printf(o, "\nGrew since the previous report (%s, live heap %s)\n", pts,
		    yi_fmt_bytes(m->prev_total, b1, sizeof(b1)));
		dop.limit = 10;
		rc = ying_diff_new(&d, m->prev, p, YING_INUSE_SPACE);
		if (rc == 0)
			rc = ying_diff_write_text(d, &dop, ying_write_membuf, &mb);
		ying_diff_free(d);
		if ((rc = embed(o, &mb, rc)) != 0)
			goto out;
	} else {
		yi_out_puts(o, "\nGrew since the previous report\n  (first report: "
		    "nothing to compare with)\n");
	}
out:
	if (rc == 0)
		rc = yi_out_finish(o);
	yi_free(o);
	return rc;
}

/* ---- atomic report sets ----------------------------------------------------- */

typedef struct afile {
	char tmp[PATH_MAX];
	char final[PATH_MAX];
	FILE *f;
	bool done;                 /* renamed into place */
} afile;

static int
afile_open(afile *a, const char *dir, const char *base, const char *ext)
{
	int fd;

	a->f = NULL;
	a->done = false;
	if ((size_t)snprintf(a->tmp, sizeof(a->tmp), "%s/.ying-tmp.%ld.%s%s", dir,
	    (long)getpid(), base, ext) >= sizeof(a->tmp) ||
	    (size_t)snprintf(a->final, sizeof(a->final), "%s/%s%s", dir, base, ext) >=
	    sizeof(a->final))
		return yi_error(YING_EINVAL, "report path too long in %s", dir);
	fd = open(a->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return yi_error(YING_EIO, "cannot create %s: %s", a->tmp, strerror(errno));
	if ((a->f = fdopen(fd, "wb")) == NULL) {
		int e = errno;
		close(fd);
		unlink(a->tmp);
		return yi_error(YING_EIO, "cannot open %s: %s", a->tmp, strerror(e));
	}
	return 0;
}

/* Close the temporary file; 0 when everything reached the disk cache. */
static int
afile_close(afile *a, int rc)
{
	if (a->f == NULL)
		return rc;
	if (fflush(a->f) != 0 && rc == 0)
		rc = yi_error(YING_EIO, "cannot write %s: %s", a->tmp, strerror(errno));
	if (ferror(a->f) && rc == 0)
		rc = yi_error(YING_EIO, "cannot write %s", a->tmp);
	if (fclose(a->f) != 0 && rc == 0)
		rc = yi_error(YING_EIO, "cannot write %s: %s", a->tmp, strerror(errno));
	a->f = NULL;
	return rc;
}

static void
afile_discard(afile *a)
{
	if (a->f) {
		fclose(a->f);
		a->f = NULL;
	}
	unlink(a->done ? a->final : a->tmp);
}

int
yi_runner_write_set(const char *dir, const char *base, ying_profile *p,
    double total, const char *dump, size_t len, const yi_report_meta *m)
{
	enum { F_HEAP, F_PPROF, F_SVG, F_REPORT, F_N };
	static const char *const ext[F_N] = { ".heap", ".pb.gz", ".svg", ".report" };
	afile *f;
	int rc = 0, i, opened = 0;

	if (dir == NULL || base == NULL || p == NULL || m == NULL ||
	    (dump == NULL && len))
		return yi_error(YING_EINVAL, "yi_runner_write_set: NULL argument");
	if ((f = yi_calloc(F_N, sizeof(*f))) == NULL)
		return yi_oom("writing a report set");
	if ((rc = yi_profile_ensure_symbolized(p)) != 0)
		goto fail;
	for (i = 0; i < F_N && rc == 0; i++) {
		if ((rc = afile_open(&f[i], dir, base, ext[i])) != 0)
			break;
		opened = i + 1;
		switch (i) {
		case F_HEAP:
			rc = ying_write_file(f[i].f, dump, len);
			break;
		case F_PPROF:
			rc = ying_profile_write_pprof(p, NULL, ying_write_file, f[i].f);
			break;
		case F_SVG: {
			ying_svg_opts so = YING_SVG_OPTS_INIT;
			char title[256], ts[48], b1[32];
			const char *prog = m->program ? m->program : "";
			const char *pb = strrchr(prog, '/');
			pb = pb ? pb + 1 : prog;
			yi_runner_iso_time(ts, sizeof(ts), m->time, false);
			snprintf(title, sizeof(title), "%.*s (pid %ld): live heap %s at %s",
			    (int)strcspn(pb, " "), pb, m->pid,
			    yi_fmt_bytes(total, b1, sizeof(b1)), ts);
			so.title = title;
			rc = ying_profile_write_svg(p, &so, ying_write_file, f[i].f);
			break;
		}
		case F_REPORT: {
			yi_report_meta mm = *m;
			mm.base = base;
			rc = yi_runner_write_report(p, total, &mm, ying_write_file, f[i].f);
			break;
		}
		}
		rc = afile_close(&f[i], rc);
	}
	/* Everything is written: rename into place, the .report last. */
	for (i = 0; i < F_N && rc == 0; i++) {
		if (rename(f[i].tmp, f[i].final) != 0)
			rc = yi_error(YING_EIO, "cannot rename %s to %s: %s", f[i].tmp,
			    f[i].final, strerror(errno));
		else
			f[i].done = true;
	}
fail:
	if (rc != 0)
		for (i = 0; i < opened; i++)
			afile_discard(&f[i]);
	yi_free(f);
	return rc;
}

/* ---- bounding the directory ------------------------------------------------- */

typedef struct rfile {
	char *name;
	size_t base_len;
	uint64_t size;
	int64_t mtime;
} rfile;

typedef struct rset {
	size_t first, n;           /* files [first, first+n) of the sorted list */
	uint64_t bytes;
	int64_t mtime;             /* newest file */
} rset;

static int
cmp_rfile(const void *a, const void *b)
{
	const rfile *x = a, *y = b;
	size_t n = x->base_len < y->base_len ? x->base_len : y->base_len;
	int c = memcmp(x->name, y->name, n);

	if (c != 0)
		return c;
	if (x->base_len != y->base_len)
		return x->base_len < y->base_len ? -1 : 1;
	/* within a set, the .report first: it is removed first */
	c = (strcmp(x->name + x->base_len, ".report") != 0) -
	    (strcmp(y->name + y->base_len, ".report") != 0);
	return c ? c : strcmp(x->name, y->name);
}

static const rfile *cmp_rset_files;

static int
cmp_rset(const void *a, const void *b)
{
	const rset *x = a, *y = b;
	const rfile *fx = &cmp_rset_files[x->first], *fy = &cmp_rset_files[y->first];

	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(fx->name, fy->name);
}

static pthread_mutex_t prune_lock = PTHREAD_MUTEX_INITIALIZER;

int
yi_runner_prune(const char *dir, unsigned max_sets, uint64_t max_bytes,
    const char *keep)
{
	YI_VEC(rfile) files = { NULL, 0, 0 };
	YI_VEC(rset) sets = { NULL, 0, 0 };
	DIR *d;
	struct dirent *e;
	uint64_t bytes = 0;
	size_t i, nsets, keep_len = keep ? strlen(keep) : 0;
	char path[PATH_MAX];
	int rc = 0, removed = 0;

	if (dir == NULL)
		return yi_error(YING_EINVAL, "yi_runner_prune: no directory");
	if (max_sets == 0 && max_bytes == 0)
		return 0;
	if ((d = opendir(dir)) == NULL)
		return yi_error(YING_EIO, "cannot read directory %s: %s", dir, strerror(errno));
	while ((e = readdir(d)) != NULL && files.n < RUNNER_MAX_ENTRIES) {
		struct stat st;
		size_t bl;

		if (!yi_runner_parse_name(e->d_name, &bl))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if ((rc = yi_vec_grow(&files, 1)) != 0)
			break;
		if ((files.v[files.n].name = yi_strdup(e->d_name)) == NULL) {
			rc = yi_oom("listing report files");
			break;
		}
		files.v[files.n].base_len = bl;
		files.v[files.n].size = (uint64_t)st.st_size;
		files.v[files.n].mtime = (int64_t)st.st_mtime;
		files.n++;
	}
	closedir(d);
	if (rc != 0)
		goto out;
	qsort(files.v, files.n, sizeof(*files.v), cmp_rfile);
	for (i = 0; i < files.n; i++) {
		rfile *f = &files.v[i];
		rset *s = sets.n ? &sets.v[sets.n - 1] : NULL;

		if (s == NULL || files.v[s->first].base_len != f->base_len ||
		    memcmp(files.v[s->first].name, f->name, f->base_len) != 0) {
			if ((rc = yi_vec_grow(&sets, 1)) != 0)
				goto out;
			s = &sets.v[sets.n++];
			s->first = i;
			s->n = 0;
			s->bytes = 0;
			s->mtime = INT64_MIN;
		}
		s->n++;
		s->bytes += f->size;
		if (f->mtime > s->mtime)
			s->mtime = f->mtime;
		bytes += f->size;
	}
	/* qsort's comparator needs the file list; the lock keeps two runners
	 * in one process from racing on that static. */
	pthread_mutex_lock(&prune_lock);
	cmp_rset_files = files.v;
	qsort(sets.v, sets.n, sizeof(*sets.v), cmp_rset);
	cmp_rset_files = NULL;
	pthread_mutex_unlock(&prune_lock);
	nsets = sets.n;
	for (i = 0; i < sets.n; i++) {
		rset *s = &sets.v[i];
		const rfile *f0 = &files.v[s->first];
		size_t k;

		if (!((max_sets && nsets > max_sets) || (max_bytes && bytes > max_bytes)))
			break;
		if (keep && f0->base_len == keep_len && memcmp(f0->name, keep, keep_len) == 0)
			continue;
		for (k = 0; k < s->n; k++) {
			const rfile *f = &files.v[s->first + k];
			if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, f->name) <
			    sizeof(path))
				unlink(path);
		}
		nsets--;
		bytes -= s->bytes;
		removed++;
	}
out:
	for (i = 0; i < files.n; i++)
		yi_free(files.v[i].name);
	yi_vec_free(&files);
	yi_vec_free(&sets);
	return rc != 0 ? rc : removed;
}

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
	if (ying_parse_size(s, &v) != 0 || v > 1e18)
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

static void
runner_check(ying_runner *r, bool manual)
{
	char *dump = NULL, trigger[256], base[128], b1[32], b2[32], label[64];
	size_t len = 0;
	ying_profile *p = NULL;
	double total = 0;
	yi_report_meta m;
	int rc;

	if ((rc = ying_ctl_dump_mem(&dump, &len)) != 0) {
		runner_error(r, "heap dump failed");
		return;
	}
	snprintf(label, sizeof(label), "heap dump of pid %ld", (long)r->pid);
	if ((rc = ying_profile_read_mem(&p, dump, len, label)) != 0 ||
	    (rc = ying_profile_total(p, YING_INUSE_SPACE, &total)) != 0) {
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
	if ((rc = yi_runner_base_name(base, sizeof(base), m.time, total,
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
	if ((rc = yi_runner_write_set(r->dir, base, p, total, dump, len, &m)) != 0) {
		char what[PATH_MAX + 64];
		snprintf(what, sizeof(what), "cannot write a report set in %s", r->dir);
		runner_error(r, what);
		goto out;
	}
	atomic_fetch_add(&r->nreports, 1);
	if (r->error_shown) {
		r->error_shown = false;
		fprintf(r->log ? r->log : stderr, "ying runner: reports are written "
		    "again (%s/%s.report)\n", r->dir, base);
	} else if (r->verbose) {
		fprintf(r->log ? r->log : stderr, "ying runner: %s/%s.report: %s\n",
		    r->dir, base, trigger);
	}
	if (yi_runner_prune(r->dir, r->max_sets, r->max_bytes, base) < 0)
		runner_error(r, "cannot bound the report directory");
	ying_profile_free(r->prev);
	r->prev = p;
	p = NULL;
	r->prev_total = total;
	r->prev_time = m.time;
	r->have_prev = true;
out:
	ying_profile_free(p);
	yi_free(dump);
}

static void *
runner_main(void *arg)
{
	ying_runner *r = arg;
	double next = r->interval > 0 ? now_mono() + r->interval : 0;

	yi_ctl_quiet_thread();
	pthread_setname_np(pthread_self(), "ying-runner");
	while (!atomic_load(&r->stop)) {
		struct pollfd pfd = { r->pipe_r, POLLIN, 0 };
		int timeout = -1, n;

		if (r->interval > 0) {
			double left = next - now_mono();
			timeout = left <= 0 ? 0 : (left > INT_MAX / 1000.0 ? INT_MAX :
			    (int)ceil(left * 1000.0));
		}
		n = poll(&pfd, 1, timeout);
		if (atomic_load(&r->stop))
			break;
		if (n > 0) {
			char buf[64];
			while (read(r->pipe_r, buf, sizeof(buf)) > 0)
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
	if (r->pipe_r >= 0)
		close(r->pipe_r);
	if (r->pipe_w >= 0)
		close(r->pipe_w);
	ying_profile_free(r->prev);
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
	if ((rc = yi_mkdir_p(opts->dir)) != 0)
		return rc;
	if ((r = yi_calloc(1, sizeof(*r))) == NULL)
		return yi_oom("starting the runner");
	r->pipe_r = r->pipe_w = -1;
	r->dir = yi_strdup(opts->dir);
	r->program = opts->program ? yi_strdup(opts->program) : program_label();
	if (r->dir == NULL || r->program == NULL) {
		runner_free(r);
		return yi_oom("starting the runner");
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
	r->pipe_r = fds[0];
	r->pipe_w = fds[1];
	clean_stale_tmp(r->dir);
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

	/* No yi_error here: this runs in signal handlers. */
	if (r == NULL || getpid() != r->pid)
		return YING_EINVAL;
	atomic_fetch_add(&r->triggers, 1);
	/* A full pipe means a wake-up is already pending. */
	if (write(r->pipe_w, "t", 1) < 0 && errno != EAGAIN) {
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
	if (write(r->pipe_w, "s", 1) < 0) {
		/* full pipe: the thread wakes anyway */
	}
	pthread_join(r->thread, NULL);
	runner_free(r);
}

/* ---- signal names (for YING_DUMP_SIGNAL and ying run) ------------------------- */

static const struct {
	const char *name;
	int sig;
	bool ok;                   /* may be used for dump requests */
} sig_table[] = {
	{ "HUP", SIGHUP, true }, { "INT", SIGINT, true }, { "QUIT", SIGQUIT, true },
	{ "ILL", SIGILL, false }, { "TRAP", SIGTRAP, false }, { "ABRT", SIGABRT, false },
	{ "BUS", SIGBUS, false }, { "FPE", SIGFPE, false }, { "KILL", SIGKILL, false },
	{ "USR1", SIGUSR1, true }, { "SEGV", SIGSEGV, false }, { "USR2", SIGUSR2, true },
	{ "PIPE", SIGPIPE, true }, { "ALRM", SIGALRM, true }, { "TERM", SIGTERM, true },
	{ "CHLD", SIGCHLD, false }, { "CONT", SIGCONT, false }, { "STOP", SIGSTOP, false },
	{ "TSTP", SIGTSTP, false }, { "TTIN", SIGTTIN, false }, { "TTOU", SIGTTOU, false },
	{ "URG", SIGURG, true }, { "XCPU", SIGXCPU, true }, { "XFSZ", SIGXFSZ, true },
	{ "VTALRM", SIGVTALRM, true }, { "PROF", SIGPROF, true }, { "WINCH", SIGWINCH, true },
	{ "IO", SIGIO, true }, { "PWR", SIGPWR, true }, { "SYS", SIGSYS, false },
};
#define NSIGTAB (sizeof(sig_table) / sizeof(sig_table[0]))

int
yi_signal_parse(const char *s, int *sig)
{
	const char *n = s;
	char *end;
	long v = -1;
	size_t i;

	if (s == NULL || sig == NULL || *s == '\0')
		return yi_error(YING_EINVAL, "no signal given");
	if (strncasecmp(n, "SIG", 3) == 0)
		n += 3;
	if (*n >= '0' && *n <= '9') {
		v = strtol(n, &end, 10);
		if (*end != '\0')
			v = -1;
	} else if (strncasecmp(n, "RTMIN", 5) == 0) {
		v = SIGRTMIN;
		if (n[5] == '+') {
			long k = strtol(n + 6, &end, 10);
			v = (end == n + 6 || *end != '\0') ? -1 : v + k;
		} else if (n[5] != '\0') {
			v = -1;
		}
	} else if (strncasecmp(n, "RTMAX", 5) == 0) {
		v = SIGRTMAX;
		if (n[5] == '-') {
			long k = strtol(n + 6, &end, 10);
			v = (end == n + 6 || *end != '\0') ? -1 : v - k;
		} else if (n[5] != '\0') {
			v = -1;
		}
	} else {
		for (i = 0; i < NSIGTAB; i++)
			if (strcasecmp(n, sig_table[i].name) == 0) {
				v = sig_table[i].sig;
				break;
			}
	}
	if (v <= 0 || v > SIGRTMAX)
		return yi_error(YING_EINVAL, "'%s' is not a signal (try USR2, SIGUSR2, "
		    "12, RTMIN+2)", s);
	for (i = 0; i < NSIGTAB; i++)
		if (sig_table[i].sig == v && !sig_table[i].ok)
			return yi_error(YING_EINVAL, "SIG%s cannot be used to request "
			    "dumps (use USR2, USR1, HUP, PWR or a real-time signal)",
			    sig_table[i].name);
	if (v > SIGSYS && v < SIGRTMIN)
		return yi_error(YING_EINVAL, "signal %ld is reserved by the C library", v);
	*sig = (int)v;
	return 0;
}

const char *
yi_signal_name(int sig, char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < NSIGTAB; i++)
		if (sig_table[i].sig == sig) {
			snprintf(buf, n, "SIG%s", sig_table[i].name);
			return buf;
		}
	if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		snprintf(buf, n, "SIGRTMIN+%d", sig - SIGRTMIN);
	else
		snprintf(buf, n, "signal %d", sig);
	return buf;
}
