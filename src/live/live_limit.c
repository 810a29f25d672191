/*
 * live_limit.c: the process's memory limit and how close it is, for the
 * growth runner's limit reports (live_runner.c) and for whatever else
 * wants the limit (time to the limit).
 *
 * The limit is the memory cgroup's (v2 memory.max, v1
 * memory.limit_in_bytes, found through /proc/self/cgroup under the cgroup
 * mount: live_memory_cgroup.c, the reader the memory breakdown uses), or
 * the one given (`ying run --limit`, YING_LIMIT), the smaller of the two
 * when both are known.  "Usage" is measured against the limit that was
 * chosen: the cgroup's usage (memory.current, memory.usage_in_bytes) for
 * the cgroup's limit, since that is what its OOM killer compares, else
 * the process's resident set (/proc/self/statm's second field).  Both are
 * one open and one short read of a file the kernel fills from counters it
 * keeps anyway (no walk of the mappings), a few microseconds: the runner
 * reads it at every tick (YI_LIMIT_POLL_MS) on its own thread, never on
 * the program's.
 *
 * Each fraction (percent of the limit; default 80 and 90) fires once when
 * usage crosses it upward and is re-armed when usage falls below it by
 * YI_LIMIT_REARM_PCT points of the limit, so usage hovering at the line
 * writes one report, not one per tick.  A jump over several fractions at
 * once fires the highest one and disarms all it passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "live.h"
#include "live_memory.h"

int
yi_limit_init(yi_limit *l, uint64_t given, const double *fracs, unsigned nfracs,
    const char *proc_root, const char *cg_root)
{
	char path[PATH_MAX];
	uint64_t cgl = UINT64_MAX, usage;
	long page;
	int r, ver = 0;

	memset(l, 0, sizeof(*l));
	if (nfracs > YI_LIMIT_MAX_FRACS)
		return yi_error(YING_EINVAL, "%u limit report fractions (at most %d)",
		    nfracs, YI_LIMIT_MAX_FRACS);
	for (unsigned i = 0; i < nfracs; i++) {
		if (!isfinite(fracs[i]) || fracs[i] <= 0 || fracs[i] > 100)
			return yi_error(YING_EINVAL, "limit report fraction %g %%: expected "
			    "a percentage above 0 and at most 100", fracs[i]);
		l->frac[i] = fracs[i];
		l->armed[i] = true;
	}
	l->nfrac = nfracs;
	page = sysconf(_SC_PAGESIZE);
	l->page = page > 0 ? (uint64_t)page : 4096;
	if (proc_root == NULL)
		proc_root = "/proc";
	if (cg_root == NULL)
		cg_root = "/sys/fs/cgroup";
	if ((size_t)snprintf(l->statm, sizeof(l->statm), "%s/self/statm", proc_root) >=
	    sizeof(l->statm) ||
	    (size_t)snprintf(path, sizeof(path), "%s/self/cgroup", proc_root) >= sizeof(path))
		return yi_error(YING_EINVAL, "proc root %.100s: name too long", proc_root);
	r = yi_mem_cgroup_locate(path, cg_root, l->cg_dir, sizeof(l->cg_dir), &ver, NULL, 0);
	if (r < 0)
		return r;
	if (r > 0 && (r = yi_mem_cgroup_limit(l->cg_dir, ver, &cgl)) < 0)
		return r;
	if (r > 0 && cgl != UINT64_MAX && cgl > 0)
		l->cg_version = ver;
	if (l->cg_version && (given == 0 || cgl <= given)) {
		l->limit = cgl;
		l->source = YI_LIMIT_CGROUP;
	} else if (given > 0) {
		l->limit = given;
		l->source = YI_LIMIT_GIVEN;
	}
	/* a limit whose usage cannot be read is no limit to watch */
	if (l->source != YI_LIMIT_NONE && (r = yi_limit_usage(l, &usage)) != 0) {
		l->source = YI_LIMIT_NONE;
		l->limit = 0;
		return r;
	}
	return 0;
}

/* The second field of statm, in pages: 1, 0 when unreadable, or EPARSE. */
static int
read_statm(const char *path, uint64_t *pages)
{
	char buf[128];
	const char *p = buf;
	uint64_t size;
	ssize_t k;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	k = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (k <= 0)
		return 0;
	buf[k] = '\0';
	if (!yi_mem_parse_dec(&p, &size) || *p++ != ' ' || !yi_mem_parse_dec(&p, pages))
		return yi_error(YING_EPARSE, "%s: not \"SIZE RESIDENT ...\": \"%.40s\"", path,
		    buf);
	return 1;
}

int
yi_limit_usage(const yi_limit *l, uint64_t *usage)
{
	uint64_t pages = 0;
	int r;

	*usage = 0;
	switch (l->source) {
	case YI_LIMIT_CGROUP:
		if ((r = yi_mem_cgroup_usage(l->cg_dir, l->cg_version, usage)) < 0)
			return r;
		if (r == 0)
			return yi_error(YING_EIO, "%s: cannot read the cgroup's usage "
			    "(memory.%s)", l->cg_dir, l->cg_version == 2 ? "current" :
			    "usage_in_bytes");
		return 0;
	case YI_LIMIT_GIVEN:
		if ((r = read_statm(l->statm, &pages)) < 0)
			return r;
		if (r == 0)
			return yi_error(YING_EIO, "%s: cannot read the resident set: %s",
			    l->statm, strerror(errno));
		*usage = pages > UINT64_MAX / l->page ? UINT64_MAX : pages * l->page;
		return 0;
	default:
		return yi_error(YING_EINVAL, "no memory limit is known");
	}
}

int
yi_limit_step(yi_limit *l, uint64_t usage)
{
	int fire = -1;
	double pct;

	if (l->source == YI_LIMIT_NONE || l->limit == 0)
		return -1;
	pct = 100.0 * (double)usage / (double)l->limit;
	for (unsigned i = 0; i < l->nfrac; i++) {
		if (l->armed[i] && pct >= l->frac[i]) {
			l->armed[i] = false;
			if (fire < 0 || l->frac[i] > l->frac[fire])
				fire = (int)i;
		} else if (!l->armed[i] && pct < l->frac[i] - YI_LIMIT_REARM_PCT) {
			l->armed[i] = true;
		}
	}
	return fire;
}

const char *
yi_limit_source_name(const yi_limit *l)
{
	switch (l->source) {
	case YI_LIMIT_CGROUP:
		return l->cg_version == 2 ? "the cgroup's memory.max" :
		    "the cgroup's memory.limit_in_bytes";
	case YI_LIMIT_GIVEN:
		return "--limit (YING_LIMIT)";
	default:
		return "none";
	}
}

const char *
yi_limit_usage_name(const yi_limit *l)
{
	switch (l->source) {
	case YI_LIMIT_CGROUP:
		return l->cg_version == 2 ? "the cgroup's memory.current" :
		    "the cgroup's memory.usage_in_bytes";
	case YI_LIMIT_GIVEN:
		return "the process's resident set";
	default:
		return "none";
	}
}

/* ---- time to the limit ----------------------------------------------------- */

/*
 * The usage's trend is the least-squares slope of the last YI_LIMIT_HIST
 * usage points (one a second at most: 5 minutes), with the 95 % interval
 * b +- t(0.975, n-2) se(b) from the residuals.  When the usage reaches the
 * limit at that rate: (limit - usage) / rate, its interval from the rate's
 * (the slower rate gives the later time; a rate interval that holds 0 has
 * no upper time).  This is the trend of the whole process's usage, the
 * figure the OOM killer compares, not any one call site's: a process that
 * grows in steps or saw-tooths is fitted by a line, so the interval, not
 * the point estimate, is what to read.
 */
void
yi_limit_record(yi_limit *l, double t, uint64_t usage)
{
	unsigned last;

	if (l->hist_n > 0) {
		last = (l->hist_head + l->hist_n - 1) % YI_LIMIT_HIST;
		if (t - l->hist_t[last] < YI_LIMIT_HIST_STEP)
			return;
	}
	if (l->hist_n == YI_LIMIT_HIST) {
		l->hist_head = (l->hist_head + 1) % YI_LIMIT_HIST;
		l->hist_n--;
	}
	last = (l->hist_head + l->hist_n) % YI_LIMIT_HIST;
	l->hist_t[last] = t;
	l->hist_u[last] = (double)usage;
	l->hist_n++;
}

void
yi_limit_eta_get(const yi_limit *l, yi_limit_eta *e)
{
	double mt = 0, mu = 0, sxx = 0, sxy = 0, ssr = 0, b, a, se, t975, left, t0;
	unsigned n = l->hist_n;

	memset(e, 0, sizeof(*e));
	e->eta = e->eta_lo = e->eta_hi = INFINITY;
	if (n == 0 || l->limit == 0)
		return;
	t0 = l->hist_t[l->hist_head];
	e->points = n;
	e->usage = l->hist_u[(l->hist_head + n - 1) % YI_LIMIT_HIST];
	e->span = l->hist_t[(l->hist_head + n - 1) % YI_LIMIT_HIST] - t0;
	if (n < YI_LIMIT_ETA_MIN || e->span < YI_LIMIT_ETA_MIN_S)
		return;
	for (unsigned i = 0; i < n; i++) {
		unsigned k = (l->hist_head + i) % YI_LIMIT_HIST;
		mt += l->hist_t[k] - t0;
		mu += l->hist_u[k];
	}
	mt /= n;
	mu /= n;
	for (unsigned i = 0; i < n; i++) {
		unsigned k = (l->hist_head + i) % YI_LIMIT_HIST;
		double dt = l->hist_t[k] - t0 - mt;
		sxx += dt * dt;
		sxy += dt * (l->hist_u[k] - mu);
	}
	if (!(sxx > 0))
		return;
	b = sxy / sxx;
	a = mu - b * mt;
	for (unsigned i = 0; i < n; i++) {
		unsigned k = (l->hist_head + i) % YI_LIMIT_HIST;
		double r = l->hist_u[k] - (a + b * (l->hist_t[k] - t0));
		ssr += r * r;
	}
	se = sqrt(ssr / (n - 2) / sxx);
	t975 = yi_leaks_t975((double)(n - 2));
	e->known = true;
	e->rate = b;
	e->rate_lo = b - t975 * se;
	e->rate_hi = b + t975 * se;
	left = (double)l->limit - e->usage;
	if (left <= 0) {
		e->eta = e->eta_lo = e->eta_hi = 0;
		return;
	}
	if (e->rate > 0)
		e->eta = left / e->rate;
	if (e->rate_hi > 0)
		e->eta_lo = left / e->rate_hi;
	if (e->rate_lo > 0)
		e->eta_hi = left / e->rate_lo;
}


void
yi_limit_eta_text(const yi_limit_eta *e, char *out, size_t n)
{
	char t[32], lo[32], hi[32], r[32], rl[32], rh[32], span[32];

	out[0] = '\0';
	if (!e->known)
		return;
	yi_fmt_duration(e->eta, false, t, sizeof(t));
	yi_fmt_duration(e->eta_lo, false, lo, sizeof(lo));
	yi_fmt_duration(e->eta_hi, false, hi, sizeof(hi));
	yi_fmt_bytes(fabs(e->rate), r, sizeof(r));
	yi_fmt_bytes(fabs(e->rate_lo), rl, sizeof(rl));
	yi_fmt_bytes(fabs(e->rate_hi), rh, sizeof(rh));
	yi_fmt_duration(e->span, false, span, sizeof(span));
	if (isfinite(e->eta))
		snprintf(out, n, "in %s (95 %%: %s to %s) at %s%s/s (%s%s to %s%s/s) over the last %s",
		    t, lo, hi, e->rate < 0 ? "-" : "+", r, e->rate_lo < 0 ? "-" : "+", rl,
		    e->rate_hi < 0 ? "-" : "+", rh, span);
	else
		snprintf(out, n, "not at the current trend, %s%s/s (95 %%: %s%s to %s%s/s) over the "
		    "last %s%s%s", e->rate < 0 ? "-" : "+", r, e->rate_lo < 0 ? "-" : "+", rl,
		    e->rate_hi < 0 ? "-" : "+", rh, span, isfinite(e->eta_lo) ? "; at the fastest, in " : "",
		    isfinite(e->eta_lo) ? lo : "");
}

/* ---- the running runner's trend, for /debug/memory ------------------------- */

static pthread_mutex_t pub_mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t pub_once = PTHREAD_ONCE_INIT;
static bool pub_have;
static yi_limit_eta pub_eta;
static uint64_t pub_limit;
static const char *pub_source;

static void
pub_child(void)
{
	/* a forked child's runner is its own (or none): nothing published */
	pthread_mutex_init(&pub_mtx, NULL);
	pub_have = false;
}

static void
pub_init(void)
{
	pthread_atfork(NULL, NULL, pub_child);
}

void
yi_limit_publish(const yi_limit *l)
{
	yi_limit_eta e;

	memset(&e, 0, sizeof(e));
	pthread_once(&pub_once, pub_init);
	if (l != NULL)
		yi_limit_eta_get(l, &e);
	pthread_mutex_lock(&pub_mtx);
	pub_have = l != NULL && l->source != YI_LIMIT_NONE;
	if (pub_have) {
		pub_eta = e;
		pub_limit = l->limit;
		pub_source = yi_limit_source_name(l);
	}
	pthread_mutex_unlock(&pub_mtx);
}

bool
yi_limit_published(yi_limit_eta *e, uint64_t *limit, const char **source)
{
	bool have;

	pthread_once(&pub_once, pub_init);
	pthread_mutex_lock(&pub_mtx);
	if ((have = pub_have)) {
		*e = pub_eta;
		*limit = pub_limit;
		*source = pub_source;
	}
	pthread_mutex_unlock(&pub_mtx);
	return have;
}
