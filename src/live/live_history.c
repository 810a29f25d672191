/*
 * live_history.c: the process's memory over time (live_history.h), kept
 * in the process for GET /debug/history and the live page's chart.
 *
 * Storage: one mmap'd block made once (yi_hist_bytes(): about 200 KiB;
 * outside the program's heap, so the heap profile never shows it), rings
 * of fixed size, nothing allocated per sample.  Who samples: the HTTP
 * endpoint's listener thread (live_http_serve.c) calls yi_hist_tick at
 * every turn of its loop and sleeps at most until the next second; a
 * sample is one read of /proc/self/statm (the RSS; no walk of smaps) and,
 * for each jemalloc heap of the process, an "epoch" and five reads of
 * stats.* (microseconds: bench/history.sh measures it), under the control
 * layer's stats lock so that they never land in the middle of
 * /debug/memory's reads (live_ctl.h); no other lock of ours is held across
 * a mallctl (a heap dump may run meanwhile); the history's lock is
 * taken to copy a point in and a history out, never across a write to a
 * client.  Events (yi_hist_event) come from the growth runner (a report
 * written, a limit fraction crossed) and the endpoint (a snapshot).
 *
 * A forked child starts empty: the lock is taken around fork, and the
 * child's handler empties its copy of the rings (no free in a fork
 * handler) and samples at its first tick.  YING_HISTORY=0 in the
 * environment turns it all off (nothing mapped, no sample: what
 * bench/history.sh compares with).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "live.h"
#include "live_ctl.h"
#include "live_history.h"
#include "live_memory.h"

typedef struct hist_event {
	double t;
	char kind[12];
	char name[YI_HIST_NAME];
} hist_event;

struct yi_hist {
	pthread_mutex_t mtx;
	size_t ncol;                         /* with t */
	char cols[YI_HIST_MAXCOL][YI_HIST_HEAPNAME];
	double fine[YI_HIST_FINE][YI_HIST_MAXCOL];
	size_t fine_head, fine_n;            /* oldest at fine_head */
	double coarse[YI_HIST_COARSE][YI_HIST_MAXCOL];
	size_t coarse_head, coarse_n;
	double pend[YI_HIST_MAXCOL];         /* the minute in progress */
	bool pend_have;
	hist_event ev[YI_HIST_EVENTS];
	size_t ev_head, ev_n;
	double peak;                         /* rss of the last peak event */
	double due;                          /* monotonic time of the next sample */
};

static const char *const fixed_cols[YI_HIST_FIXED] = {
	"t", "rss", "allocated", "active", "metadata", "resident", "retained"
};

size_t
yi_hist_bytes(void)
{
	return sizeof(struct yi_hist);
}

int
yi_hist_new(yi_hist **out, size_t nheaps, const char *const *heap_names)
{
	yi_hist *h;
	void *m;

	*out = NULL;
	if (nheaps > YI_HIST_HEAPS)
		return yi_error(YING_EINVAL, "a history of %zu heaps (at most %d)", nheaps,
		    YI_HIST_HEAPS);
	m = mmap(NULL, sizeof(*h), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);
	if (m == MAP_FAILED)
		return yi_error(YING_ENOMEM, "cannot map the memory history (%zu bytes): %s",
		    sizeof(*h), strerror(errno));
	h = m;                               /* zeroed by the kernel */
	pthread_mutex_init(&h->mtx, NULL);
	for (size_t i = 0; i < YI_HIST_FIXED; i++)
		snprintf(h->cols[i], sizeof(h->cols[i]), "%s", fixed_cols[i]);
	for (size_t i = 0; i < nheaps; i++)
		snprintf(h->cols[YI_HIST_FIXED + i], sizeof(h->cols[0]), "heap:%.32s",
		    heap_names[i] ? heap_names[i] : "heap");
	h->ncol = YI_HIST_FIXED + nheaps;
	*out = h;
	return 0;
}

void
yi_hist_free(yi_hist *h)
{
	if (h == NULL)
		return;
	pthread_mutex_destroy(&h->mtx);
	munmap(h, sizeof(*h));
}

/* Empty the rings (the lock held or not needed). */
static void
hist_clear(yi_hist *h)
{
	h->fine_head = h->fine_n = 0;
	h->coarse_head = h->coarse_n = 0;
	h->ev_head = h->ev_n = 0;
	h->pend_have = false;
	h->peak = 0;
	h->due = 0;
}

static void
ev_put(yi_hist *h, double t, const char *kind, const char *name)
{
	hist_event *e;

	if (h->ev_n == YI_HIST_EVENTS) {
		h->ev_head = (h->ev_head + 1) % YI_HIST_EVENTS;
		h->ev_n--;
	}
	e = &h->ev[(h->ev_head + h->ev_n++) % YI_HIST_EVENTS];
	e->t = t;
	snprintf(e->kind, sizeof(e->kind), "%s", kind ? kind : "");
	snprintf(e->name, sizeof(e->name), "%s", name ? name : "");
}

void
yi_hist_add(yi_hist *h, const double *v)
{
	char peak_name[YI_HIST_NAME];
	double *p, rss = v[1];
	bool peak = false;

	/* the name first: no formatting under the lock */
	if (isfinite(rss)) {
		char b[32];
		snprintf(peak_name, sizeof(peak_name), "rss %s", yi_fmt_bytes(rss, b, sizeof(b)));
	}
	pthread_mutex_lock(&h->mtx);
	if (h->pend_have && floor(v[0] / 60) != floor(h->pend[0] / 60)) {
		if (h->coarse_n == YI_HIST_COARSE) {
			h->coarse_head = (h->coarse_head + 1) % YI_HIST_COARSE;
			h->coarse_n--;
		}
		memcpy(h->coarse[(h->coarse_head + h->coarse_n++) % YI_HIST_COARSE],
		    h->pend, sizeof(h->pend));
		h->pend_have = false;
	}
	if (h->pend_have && isfinite(h->pend[1]) && (!isfinite(rss) || h->pend[1] > rss))
		rss = h->pend[1];               /* the minute's largest RSS */
	memcpy(h->pend, v, h->ncol * sizeof(*v));
	h->pend[1] = rss;
	h->pend_have = true;
	if (h->fine_n == YI_HIST_FINE) {
		h->fine_head = (h->fine_head + 1) % YI_HIST_FINE;
		h->fine_n--;
	}
	p = h->fine[(h->fine_head + h->fine_n++) % YI_HIST_FINE];
	memcpy(p, v, h->ncol * sizeof(*v));
	if (isfinite(v[1])) {
		if (h->peak == 0)
			h->peak = v[1];             /* the first point sets the mark */
		else if (v[1] >= h->peak * (1 + YI_HIST_PEAK_PCT / 100) &&
		    v[1] - h->peak >= YI_HIST_PEAK_MIN)
			peak = true;
		if (peak) {
			h->peak = v[1];
			ev_put(h, v[0], "peak", peak_name);
		}
	}
	pthread_mutex_unlock(&h->mtx);
}

void
yi_hist_add_event(yi_hist *h, double t, const char *kind, const char *name)
{
	pthread_mutex_lock(&h->mtx);
	ev_put(h, t, kind, name);
	pthread_mutex_unlock(&h->mtx);
}

void
yi_hist_counts(yi_hist *h, size_t *fine, size_t *coarse, size_t *events)
{
	pthread_mutex_lock(&h->mtx);
	*fine = h->fine_n;
	*coarse = h->coarse_n;
	*events = h->ev_n;
	pthread_mutex_unlock(&h->mtx);
}

/* ---- JSON ---------------------------------------------------------------- */

/* Is t after since as the JSON prints them (to the millisecond)?  A client
 * passes back a time it read, so a point at 12.3456 is not after
 * since=12.346, its own printed time. */
static bool
after(double t, double since)
{
	if (!(since < 1e15))            /* llround's range; no point is that late */
		return false;
	return llround(t * 1000) > llround(since * 1000);
}

static void
put_points(yi_out *o, const yi_hist *c, const double (*ring)[YI_HIST_MAXCOL],
    size_t head, size_t n, size_t cap, double since)
{
	bool first = true;

	for (size_t i = 0; i < n; i++) {
		const double *p = ring[(head + i) % cap];
		if (!after(p[0], since))
			continue;
		yi_out_puts(o, first ? "[" : ",[");
		first = false;
		yi_out_printf(o, "%.3f", p[0]);
		for (size_t k = 1; k < c->ncol; k++) {
			if (isfinite(p[k]))
				yi_out_printf(o, ",%.0f", p[k]);
			else
				yi_out_puts(o, ",null");
		}
		yi_out_putc(o, ']');
	}
}

int
yi_hist_write_json(yi_hist *h, double since, long pid, double now, uint64_t limit,
    ying_write_fn fn, void *opaque)
{
	yi_hist *c;
	yi_out *o;
	bool first = true;
	int rc;

	if ((c = yi_malloc(sizeof(*c))) == NULL)
		return yi_oom("copying the memory history");
	if ((o = yi_malloc(sizeof(*o))) == NULL) {
		yi_free(c);
		return yi_oom("writing the memory history");
	}
	pthread_mutex_lock(&h->mtx);
	memcpy(c, h, sizeof(*c));           /* c's mutex bytes are never used */
	pthread_mutex_unlock(&h->mtx);
	yi_out_init(o, fn, opaque);
	yi_out_printf(o, "{\"pid\":%ld,\"now\":%.3f,\"limit\":", pid, now);
	if (limit > 0)
		yi_out_printf(o, "%llu", (unsigned long long)limit);
	else
		yi_out_puts(o, "null");
	yi_out_puts(o, ",\"columns\":[");
	for (size_t k = 0; k < c->ncol; k++) {
		if (k)
			yi_out_putc(o, ',');
		yi_out_json_str(o, c->cols[k]);
	}
	yi_out_puts(o, "],\"fine\":{\"step\":1,\"points\":[");
	put_points(o, c, (const double (*)[YI_HIST_MAXCOL])c->fine, c->fine_head,
	    c->fine_n, YI_HIST_FINE, since);
	yi_out_puts(o, "]},\"coarse\":{\"step\":60,\"points\":[");
	put_points(o, c, (const double (*)[YI_HIST_MAXCOL])c->coarse, c->coarse_head,
	    c->coarse_n, YI_HIST_COARSE, since);
	yi_out_puts(o, "]},\"events\":[");
	for (size_t i = 0; i < c->ev_n; i++) {
		const hist_event *e = &c->ev[(c->ev_head + i) % YI_HIST_EVENTS];
		if (!after(e->t, since))
			continue;
		yi_out_printf(o, "%s{\"t\":%.3f,\"kind\":", first ? "" : ",", e->t);
		first = false;
		yi_out_json_str(o, e->kind);
		yi_out_puts(o, ",\"name\":");
		yi_out_json_str(o, e->name);
		yi_out_putc(o, '}');
	}
	yi_out_puts(o, "]}\n");
	rc = yi_out_finish(o);
	yi_free(o);
	yi_free(c);
	return rc;
}

/* ---- the process's history ------------------------------------------------ */

static pthread_mutex_t g_make = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(yi_hist *) g_hist;
static ying_mallctl_fn g_fn[YI_HIST_HEAPS];  /* set once, before g_hist */
static size_t g_nheaps;
static long g_page = 4096;
static atomic_int g_off = -1;                /* YING_HISTORY=0: 1 */

/* Is the history turned off (YING_HISTORY=0)?  Read once. */
static bool
hist_off(void)
{
	int off = atomic_load(&g_off);

	if (off < 0) {
		const char *e = getenv("YING_HISTORY");
		off = e != NULL && strcmp(e, "0") == 0;
		atomic_store(&g_off, off);
	}
	return off == 1;
}

static void
g_prepare(void)
{
	yi_hist *h = atomic_load(&g_hist);

	pthread_mutex_lock(&g_make);
	if (h)
		pthread_mutex_lock(&h->mtx);
}

static void
g_parent(void)
{
	yi_hist *h = atomic_load(&g_hist);

	if (h)
		pthread_mutex_unlock(&h->mtx);
	pthread_mutex_unlock(&g_make);
}

static void
g_child(void)
{
	yi_hist *h = atomic_load(&g_hist);

	if (h) {
		hist_clear(h);                  /* the parent's points are not ours */
		pthread_mutex_unlock(&h->mtx);
	}
	pthread_mutex_unlock(&g_make);
}

static yi_hist *
g_get(void)
{
	yi_hist *h = atomic_load(&g_hist);
	yi_ctl_heap hp[YI_CTL_MAX_HEAPS];
	const char *names[YI_HIST_HEAPS];
	size_t n = 0;

	if (h != NULL || hist_off())
		return h;
	/* the heaps first, outside our locks (finding them may dlsym) */
	if (yi_ctl_heaps(hp, &n) != 0) {
		yi_error_clear();
		n = 0;
	}
	if (n > YI_HIST_HEAPS)
		n = YI_HIST_HEAPS;
	for (size_t i = 0; i < n; i++)
		names[i] = hp[i].name;
	pthread_mutex_lock(&g_make);
	if ((h = atomic_load(&g_hist)) == NULL) {
		if (yi_hist_new(&h, n, names) == 0) {
			long pg = sysconf(_SC_PAGESIZE);
			if (pg > 0)
				g_page = pg;
			for (size_t i = 0; i < n; i++)
				g_fn[i] = hp[i].fn;
			g_nheaps = n;
			pthread_atfork(g_prepare, g_parent, g_child);
			atomic_store(&g_hist, h);
		} else {
			yi_error_clear();
			h = NULL;
		}
	}
	pthread_mutex_unlock(&g_make);
	return h;
}

yi_hist *
yi_hist_global(void)
{
	return atomic_load(&g_hist);
}

static void sample(const yi_hist *h, double *v);

void
yi_hist_sample(double *v)
{
	yi_hist *h = g_get();

	for (size_t k = 0; k < YI_HIST_MAXCOL; k++)
		v[k] = NAN;
	sample(h, v);
	if (h != NULL)
		yi_hist_add(h, v);
}

static double
now_real(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The resident set from /proc/self/statm (its second field), NaN when
 * unreadable. */
static double
rss_now(void)
{
	char buf[128];
	const char *p = buf;
	uint64_t size, pages;
	ssize_t k;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NAN;
	k = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (k <= 0)
		return NAN;
	buf[k] = '\0';
	if (!yi_mem_parse_dec(&p, &size) || *p++ != ' ' || !yi_mem_parse_dec(&p, &pages))
		return NAN;
	return (double)pages * (double)g_page;
}

static bool
stat_read(ying_mallctl_fn fn, const char *name, double *v)
{
	size_t x = 0, sz = sizeof(x);

	if (fn(name, &x, &sz, NULL, 0) != 0 || sz != sizeof(x))
		return false;
	*v = (double)x;
	return true;
}

/* One point of the process now into v (no lock of ours held). */
static void
sample(const yi_hist *h, double *v)
{
	if (h == NULL)
		return;
	static const char *const st[5] = {
		"stats.allocated", "stats.active", "stats.metadata", "stats.resident",
		"stats.retained"
	};

	for (size_t k = 0; k < YI_HIST_MAXCOL; k++)
		v[k] = NAN;
	v[0] = now_real();
	v[1] = rss_now();
	/* one snapshot of every heap's stats, not in the middle of another
	 * reader's (/debug/memory): the control layer's stats lock */
	yi_ctl_stats_lock();
	for (size_t i = 0; i < g_nheaps && YI_HIST_FIXED + i < h->ncol; i++) {
		uint64_t epoch = 1;
		double x;
		if (g_fn[i] == NULL ||
		    g_fn[i]("epoch", NULL, NULL, &epoch, sizeof(epoch)) != 0)
			continue;
		for (size_t k = 0; k < 5; k++)
			if (stat_read(g_fn[i], st[k], &x)) {
				v[2 + k] = isfinite(v[2 + k]) ? v[2 + k] + x : x;
				if (k == 0)
					v[YI_HIST_FIXED + i] = x;
			}
	}
	yi_ctl_stats_unlock();
}

int
yi_hist_tick(void)
{
	yi_hist *h = g_get();
	double v[YI_HIST_MAXCOL], t, left;

	if (h == NULL)
		return 1000;
	t = now_mono();
	pthread_mutex_lock(&h->mtx);
	if (t < h->due) {
		left = h->due - t;
		pthread_mutex_unlock(&h->mtx);
		return left * 1000 < 1 ? 1 : (int)ceil(left * 1000);
	}
	/* on the second's grid; after a stall, from now (no burst) */
	h->due = t - h->due > 1.0 ? t + 1.0 : h->due + 1.0;
	left = h->due - t;
	pthread_mutex_unlock(&h->mtx);
	sample(h, v);
	yi_hist_add(h, v);
	return left * 1000 < 1 ? 1 : (int)ceil(left * 1000);
}

void
yi_hist_event(const char *kind, const char *name)
{
	yi_hist *h = g_get();

	if (h != NULL)
		yi_hist_add_event(h, now_real(), kind, name);
}

void
yi_hist_eventf(const char *kind, const char *fmt, ...)
{
	char name[YI_HIST_NAME];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	yi_hist_event(kind, name);
}

int
yi_hist_json(double since, ying_write_fn fn, void *opaque)
{
	yi_hist *h = g_get();
	yi_limit_eta e;
	uint64_t limit = 0;
	const char *src;

	if (h == NULL && hist_off())
		return yi_error(YING_ENOTFOUND, "the memory history is off (YING_HISTORY=0 "
		    "in the process's environment)");
	if (h == NULL)
		return yi_error(YING_ENOMEM, "no memory history: it could not be mapped");
	if (!yi_limit_published(&e, &limit, &src))
		limit = 0;
	return yi_hist_write_json(h, since, (long)getpid(), now_real(), limit, fn, opaque);
}
