/*
 * live_leakhist.c: the process's one leak history (leaks_hist.c: bounded
 * per-stack totals over the growth runner's dumps), for the verdicts so
 * far in growth reports and GET /debug/heap/leaks, and the summed rate of
 * the leaks, for the time to the memory limit (/debug/memory, reports).
 *
 * The runner's thread is the only writer (yi_leakhist_feed, one call per
 * dump it takes, before anything is symbolized).  Readers take a copy
 * under the lock and symbolize it afterwards, so the lock is held for
 * microseconds, never across symbolization or a slow client.  A forked
 * child starts empty: the history and its owner are the parent's (the
 * lock is taken around fork, so the child never inherits it held, and the
 * child forgets the parent's rows at its first use).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "live.h"
#include "leaks.h"

static pthread_mutex_t lh_mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t lh_once = PTHREAD_ONCE_INIT;
static yi_leaks_hist *lh;       /* under lh_mtx */
static pid_t lh_owner;
/* the runner's latest summary of the leaks (yi_leakhist_publish) */
static bool sum_have;
static yi_leak_sum sum_pub;

static void
lh_prepare(void)
{
	pthread_mutex_lock(&lh_mtx);
}

static void
lh_parent(void)
{
	pthread_mutex_unlock(&lh_mtx);
}

static void
lh_child(void)
{
	pthread_mutex_unlock(&lh_mtx);
	/* the rows are the parent's: dropped at the child's first use (a
	 * free here, in the fork handler, is avoided) */
	sum_have = false;
}

static void
lh_init(void)
{
	pthread_atfork(lh_prepare, lh_parent, lh_child);
}

/* lh for this process (NULL: none yet); lh_mtx held. */
static yi_leaks_hist *
mine(void)
{
	if (lh != NULL && lh_owner != getpid()) {
		yi_leaks_hist_free(lh);
		lh = NULL;
	}
	return lh;
}

void
yi_leakhist_feed(const ying_profile *p)
{
	struct timespec ts;
	double t;
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	t = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;

	pthread_once(&lh_once, lh_init);
	pthread_mutex_lock(&lh_mtx);
	if (mine() == NULL) {
		if ((rc = yi_leaks_hist_new(&lh, 0, 0)) == 0)
			lh_owner = getpid();
	}
	if (rc == 0)
		rc = yi_leaks_hist_add(lh, p, t);
	pthread_mutex_unlock(&lh_mtx);
	if (rc != 0)
		yi_error_clear();       /* out of memory: this point is lost */
}

void
yi_leakhist_verdicts(ying_symbolizer *sym, const char *frames, bool full_names,
    yi_report_meta *m, char *err, size_t errn)
{
	ying_leaks *l = NULL;
	yi_leaks_hist_info info;
	yi_leak_sum sum;

	if (yi_leakhist_leaks(sym, frames, full_names, 0, &l, &info) != 0) {
		if (m != NULL) {
			snprintf(err, errn, "%s", ying_last_error());
			m->leaks_error = err;
		}
		yi_error_clear();
		return;
	}
	yi_leak_sum_of(l, info.last, &sum);
	yi_leakhist_publish(&sum);
	if (m != NULL) {
		m->leaks = l;
		m->leaks_info = info;
	} else {
		ying_leaks_free(l);
	}
}

int
yi_leakhist_leaks(ying_symbolizer *sym, const char *frames, bool full_names,
    int by_stack, ying_leaks **out, yi_leaks_hist_info *info)
{
	ying_symbolize_opts so = YING_SYMBOLIZE_OPTS_INIT;
	yi_leaks_hist *c = NULL;
	char *maps = NULL;
	size_t mlen = 0;
	int rc = 0;

	*out = NULL;
	if (info)
		memset(info, 0, sizeof(*info));
	pthread_once(&lh_once, lh_init);
	pthread_mutex_lock(&lh_mtx);
	if (mine() == NULL)
		rc = yi_error(YING_ENODATA, "no leak history yet: the growth runner's heap "
		    "checks feed it (YING_REPORT_DIR; one check every YING_REPORT_INTERVAL, "
		    "300 s by default), and none has run in this process yet");
	else
		rc = yi_leaks_hist_copy(&c, lh);
	pthread_mutex_unlock(&lh_mtx);
	if (rc != 0)
		return rc;
	if (info)
		yi_leaks_hist_info_get(c, info);
	so.frames = frames;
	so.full_names = full_names;
	/* the maps of the moment: every tracked stack was dumped in this
	 * process (a library unloaded since leaves its frames unnamed) */
	if ((rc = yi_ctl_maps_text(0, &maps, &mlen)) == 0) {
		rc = yi_leaks_hist_leaks(c, maps, mlen, sym, &so, by_stack, out);
		/* the next use reuses the names, not the debug info */
		yi_live_cycle_end(sym);
	}
	yi_free(maps);
	yi_leaks_hist_free(c);
	return rc;
}

void
yi_leakhist_publish(const yi_leak_sum *s)
{
	pthread_once(&lh_once, lh_init);
	pthread_mutex_lock(&lh_mtx);
	sum_have = s != NULL;
	if (s != NULL)
		sum_pub = *s;
	pthread_mutex_unlock(&lh_mtx);
}

bool
yi_leakhist_published(yi_leak_sum *s)
{
	bool have;

	pthread_once(&lh_once, lh_init);
	pthread_mutex_lock(&lh_mtx);
	have = sum_have && lh_owner == getpid();
	if (have)
		*s = sum_pub;
	pthread_mutex_unlock(&lh_mtx);
	return have;
}

void
yi_leak_sum_of(const ying_leaks *l, double t, yi_leak_sum *s)
{
	ying_leaks_site site;
	double var = 0;

	memset(s, 0, sizeof(*s));
	s->time = t;
	s->dumps = ying_leaks_ndumps(l);
	for (size_t i = 0; ying_leaks_site_get(l, i, &site) == 0; i++) {
		double half;
		if (site.verdict != YING_LEAKS_LEAK || !isfinite(site.rate))
			continue;
		/* independent sites: the half-widths add in quadrature */
		half = (site.rate_hi - site.rate_lo) / 2;
		s->sites++;
		s->rate += site.rate / 3600;
		var += half / 3600 * (half / 3600);
	}
	s->rate_lo = s->rate - sqrt(var);
	s->rate_hi = s->rate + sqrt(var);
}

void
yi_leak_eta(const yi_leak_sum *s, double limit, double usage, double *eta,
    double *eta_lo, double *eta_hi)
{
	double room = limit - usage;

	*eta = *eta_lo = *eta_hi = INFINITY;
	if (room <= 0) {
		*eta = *eta_lo = *eta_hi = 0;
		return;
	}
	if (s->sites == 0)
		return;
	if (s->rate > 0)
		*eta = room / s->rate;
	if (s->rate_hi > 0)
		*eta_lo = room / s->rate_hi;
	if (s->rate_lo > 0)
		*eta_hi = room / s->rate_lo;
}
