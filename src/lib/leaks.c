/*
 * leaks.c: verdicts over a series of dumps (`ying leaks`, ying_leaks_*).
 *
 * Each dump adds one point per call site (the leaf function after
 * allocator trimming, the row identity of `ying top`'s function rows; or
 * the whole stack): its unsampled live bytes, summed over its stacks, and
 * the sampling variance of that sum (yi_sample_var per stack, summed: the
 * stacks are sampled independently).  A site missing from a dump counts as
 * 0 bytes there (jemalloc lists every stack with a live sampled object).
 *
 * The rate is the least-squares slope of bytes over time, over all dumps.
 * Its variance is the residual one (RSS/(n-2)/Sxx) PLUS the sampling
 * variance propagated through the slope's weights w_i = (t_i - mean
 * t)/Sxx, the larger of two models of how the dumps' sampling errors go
 * together:
 *   independent  every dump a fresh draw (objects turned over between
 *                dumps): sum w_i^2 Var_i;
 *   persistent   jemalloc draws an object once, when it is allocated, and
 *                an object live in two dumps is in both or in neither: the
 *                errors of a site whose objects stay (a leak, a cache) add
 *                up from dump to dump, Cov_ij = min(Var_i, Var_j) (exact
 *                when each dump's objects are still live in the dumps with
 *                more variance), sum_ij w_i w_j min(Var_i, Var_j).
 * For a leak the second is about n/5 times the first (n dumps): the
 * independent model alone gave a 95 % interval that held a real leak's
 * rate about half the time.  For churn the second is near 0 (the same
 * variance throughout cancels in a slope) and the first stands; it is
 * conservative there, the residuals already holding the sampling noise,
 * but it keeps a few points that happen to lie on a line from looking
 * exact.
 * Both treat the residuals as independent.  A site whose live bytes
 * wander (a pool that grows and shrinks with the load, minutes at a time)
 * has residuals that follow each other, and over an hour such a walk often
 * has a least-squares trend that is no leak.  So the residual part of every
 * variance is multiplied by the AR(1) factor (1 + rho) / (1 - rho), rho the
 * lag-1 autocorrelation of the residuals of the better fit (the hinge
 * below when there are dumps enough, else the line; at least 0, at most
 * 0.95): about 1 for independent noise, large for a wander.  A cache that
 * fills leaves the line residuals that follow each other but not the
 * hinge, which is why the hinge's rho is the one used.  A leak's own
 * residuals follow each other too (its sampling errors accumulate), but
 * its growth is far above them.  The 95 % interval is b +- t(0.975, n-2)
 * se.
 *
 * A leak is steady growth: a trend that is significant but explains less
 * than half of the series' variance (r2 < YI_LEAKS_MIN_R2) is a site that
 * wanders more than it grows, churn (likewise a fall).  On the benchmark's
 * programs (benchmarks.md 25) a real leak's r2 was 0.96 to 1.00, a
 * wandering pool's significant trends 0.13 to 0.38.
 *
 * Verdicts, in this order:
 *   unknown   fewer than YI_LEAKS_MIN_TREND dumps, times that do not
 *             spread, or growth with fewer than YI_LEAKS_MIN_LEVEL dumps
 *             (too few to tell a leak from a cache that fills);
 *   released  the interval is below 0;
 *   churn     the interval holds 0, or the fitted growth over the span is
 *             below the noise floor max(R, 4096 bytes) (R the period);
 *   filled    the interval is above 0 and the growth levelled off: in the
 *             continuous two-segment fit y = a + b t + c (t - knot)+ whose
 *             knot (at a dump, at least the last third of the dumps after
 *             it; at most 64 knots tried, evenly spaced) leaves the least
 *             squares, the slope fell significantly
 *             (-c > t(0.975, n-3) se(c), each se as the rate's: the
 *             residuals plus the larger sampling model), to at most half
 *             (b + c <= b/2),
 *             and the slope after the knot is not significantly above 0;
 *   leak      the interval is above 0 and the growth did not level off.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "leaks.h"

double
yi_leaks_t975(double df)
{
	static const double tab[30] = {
		12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060,
		2.2622, 2.2281, 2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199,
		2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739, 2.0687, 2.0639,
		2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
	};
	const double z = 1.959963985;
	double z3 = z * z * z, z5 = z3 * z * z;

	if (!(df >= 1))
		return tab[0];
	if (df <= 30 && df == floor(df))
		return tab[(int)df - 1];
	/* Cornish-Fisher: good to 1e-4 above 30 */
	return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df * df);
}

/* The step of the persistent model at sorted position k: Var of the k-th
 * smallest less the one below it (0 below the smallest; negatives as 0).
 * sum_ij g_i g_j min(V_i, V_j) = sum_k step_k (sum_{m >= k} g_(m))^2. */
static double
var_step(const double *var, const uint32_t *vorder, size_t k)
{
	double v = fmax(var[vorder[k]], 0), below = k > 0 ? fmax(var[vorder[k - 1]], 0) : 0;

	return v - below;
}

double
yi_leaks_ar1(double rho)
{
	rho = rho > 0 ? fmin(rho, YI_LEAKS_RHO_MAX) : 0;
	return (1 + rho) / (1 - rho);
}

int
yi_leaks_fit_line(yi_leaks_fit *f, const double *t, const double *y,
    const double *var, const uint32_t *vorder, size_t n, double infl)
{
	double mt = 0, my = 0, sxx = 0, sxy = 0, syy = 0, rss = 0, sv = 0, sp = 0, a;
	double num = 0, den = 0, prev = 0;
	size_t i;

	memset(f, 0, sizeof(*f));
	if (n < 2)
		return -1;
	for (i = 0; i < n; i++) {
		mt += t[i];
		my += y[i];
	}
	mt /= (double)n;
	my /= (double)n;
	for (i = 0; i < n; i++) {
		sxx += (t[i] - mt) * (t[i] - mt);
		sxy += (t[i] - mt) * (y[i] - my);
		syy += (y[i] - my) * (y[i] - my);
	}
	if (!(sxx > 0))
		return -1;
	f->b = sxy / sxx;
	a = my - f->b * mt;
	for (i = 0; i < n; i++) {
		double r = y[i] - (a + f->b * t[i]), w = (t[i] - mt) / sxx;
		rss += r * r;
		if (var)
			sv += w * w * var[i];
		den += r * r;
		if (i > 0)
			num += r * prev;
		prev = r;
	}
	if (var && vorder) {
		double run = 0;
		for (i = n; i-- > 0;) {
			run += (t[vorder[i]] - mt) / sxx;
			sp += var_step(var, vorder, i) * run * run;
		}
	}
	f->df = (int)n - 2;
	f->rss = rss;
	f->rho = den > 0 && num > 0 ? fmin(num / den, YI_LEAKS_RHO_MAX) : 0;
	f->se = sqrt((f->df > 0 ? rss / f->df / sxx : 0) * (infl >= 1 ? infl : 1) +
	    fmax(sv, sp));
	f->r2 = syy > 0 ? 1 - rss / syy : 0;
	if (f->r2 < 0)
		f->r2 = 0;
	return 0;
}

/* The inverse of a symmetric 3x3 matrix; 0, or -1 when singular. */
static int
inv3(const double a[3][3], double r[3][3])
{
	double det;
	int i, j;

	r[0][0] = a[1][1] * a[2][2] - a[1][2] * a[2][1];
	r[0][1] = a[0][2] * a[2][1] - a[0][1] * a[2][2];
	r[0][2] = a[0][1] * a[1][2] - a[0][2] * a[1][1];
	r[1][0] = a[1][2] * a[2][0] - a[1][0] * a[2][2];
	r[1][1] = a[0][0] * a[2][2] - a[0][2] * a[2][0];
	r[1][2] = a[0][2] * a[1][0] - a[0][0] * a[1][2];
	r[2][0] = a[1][0] * a[2][1] - a[1][1] * a[2][0];
	r[2][1] = a[0][1] * a[2][0] - a[0][0] * a[2][1];
	r[2][2] = a[0][0] * a[1][1] - a[0][1] * a[1][0];
	det = a[0][0] * r[0][0] + a[0][1] * r[1][0] + a[0][2] * r[2][0];
	if (!(fabs(det) > 1e-12 * (fabs(a[0][0] * a[1][1] * a[2][2]) + 1e-300)))
		return -1;
	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++)
			r[i][j] /= det;
	return 0;
}

int
yi_leaks_fit_hinge(yi_leaks_hinge *h, const double *t, const double *y,
    const double *var, const uint32_t *vorder, size_t n, double knot, double infl)
{
	double xtx[3][3] = { { 0 } }, xty[3] = { 0 }, inv[3][3], w[3], rss = 0, s2, t0;
	double cov[3][3] = { { 0 } }, pb = 0, pc = 0, pa = 0, num = 0, prev = 0;
	size_t i;
	int a, b;

	memset(h, 0, sizeof(*h));
	if (n < 4)
		return -1;
	t0 = t[0];
	for (i = 0; i < n; i++) {
		double x[3] = { 1, t[i] - t0, t[i] > knot ? t[i] - knot : 0 };
		for (a = 0; a < 3; a++) {
			xty[a] += x[a] * y[i];
			for (b = 0; b < 3; b++)
				xtx[a][b] += x[a] * x[b];
		}
	}
	if (inv3(xtx, inv) != 0)
		return -1;
	for (a = 0; a < 3; a++)
		w[a] = inv[a][0] * xty[0] + inv[a][1] * xty[1] + inv[a][2] * xty[2];
	for (i = 0; i < n; i++) {
		double x[3] = { 1, t[i] - t0, t[i] > knot ? t[i] - knot : 0 };
		double r = y[i] - (w[0] + w[1] * x[1] + w[2] * x[2]);
		double g[3];
		rss += r * r;
		if (i > 0)
			num += r * prev;
		prev = r;
		/* the sampling part: (X'X)^-1 X' diag(var) X (X'X)^-1 */
		for (a = 0; a < 3; a++)
			g[a] = inv[a][0] * x[0] + inv[a][1] * x[1] + inv[a][2] * x[2];
		for (a = 0; a < 3 && var; a++)
			for (b = 0; b < 3; b++)
				cov[a][b] += g[a] * g[b] * var[i];
	}
	/* the persistent model, for the slope before (row 1 of the
	 * estimator), the change (row 2) and the slope after (their sum) */
	if (var && vorder) {
		double rb = 0, rc = 0, dv;
		for (i = n; i-- > 0;) {
			double ti = t[vorder[i]];
			double x[3] = { 1, ti - t0, ti > knot ? ti - knot : 0 };
			rb += inv[1][0] * x[0] + inv[1][1] * x[1] + inv[1][2] * x[2];
			rc += inv[2][0] * x[0] + inv[2][1] * x[1] + inv[2][2] * x[2];
			dv = var_step(var, vorder, i);
			pb += dv * rb * rb;
			pc += dv * rc * rc;
			pa += dv * (rb + rc) * (rb + rc);
		}
	}
	h->df = (int)n - 3;
	s2 = (h->df > 0 ? rss / h->df : 0) * (infl >= 1 ? infl : 1);
	h->rss = rss;
	h->rho = rss > 0 && num > 0 ? fmin(num / rss, YI_LEAKS_RHO_MAX) : 0;
	h->before = w[1];
	h->after = w[1] + w[2];
	h->se_before = sqrt(fmax(s2 * inv[1][1] + fmax(cov[1][1], pb), 0));
	h->se_change = sqrt(fmax(s2 * inv[2][2] + fmax(cov[2][2], pc), 0));
	h->se_after = sqrt(fmax(s2 * (inv[1][1] + inv[2][2] + 2 * inv[1][2]) +
	    fmax(cov[1][1] + cov[2][2] + 2 * cov[1][2], pa), 0));
	return 0;
}

YING_EXTERN int
ying_leaks_new(ying_leaks **out, int by_stack)
{
	ying_leaks *l;
	int rc;

	if (out == NULL)
		return yi_error(YING_EINVAL, "ying_leaks_new: no handle to fill");
	*out = NULL;
	if ((l = yi_calloc(1, sizeof(*l))) == NULL)
		return yi_oom("a leaks series");
	l->by_stack = by_stack != 0;
	if ((rc = yi_strtab_init(&l->names)) != 0) {
		yi_free(l);
		return rc;
	}
	*out = l;
	return 0;
}

YING_EXTERN void
ying_leaks_free(ying_leaks *l)
{
	size_t i;

	if (l == NULL)
		return;
	for (i = 0; i < l->sites.n; i++)
		yi_vec_free(&l->sites.v[i].pts);
	yi_vec_free(&l->sites);
	yi_vec_free(&l->site_of);
	yi_vec_free(&l->times);
	yi_vec_free(&l->order);
	yi_strtab_release(&l->names);
	yi_free(l);
}

int
yi_leaks_dump(ying_leaks *l, double t, uint64_t period, uint32_t *dump)
{
	int rc;

	if (!isfinite(t) || t <= 0)
		return yi_error(YING_EINVAL, "leaks: dump %zu has no usable time (%g)",
		    l->times.n + 1, t);
	if (l->times.n >= UINT32_MAX - 1)
		return yi_error(YING_ELIMIT, "leaks: too many dumps");
	if ((rc = yi_vec_grow(&l->times, 1)) != 0)
		return rc;
	*dump = (uint32_t)l->times.n;
	if (period > l->period)
		l->period = period;
	l->times.v[l->times.n++] = t;
	l->computed = 0;
	return 0;
}

int
yi_leaks_point(ying_leaks *l, const char *name, size_t len, double bytes,
    double var)
{
	uint32_t id, dump;
	yi_leaks_site *s;
	int rc;

	if (l->times.n == 0)
		return yi_error(YING_EINVAL, "leaks: a point before any dump");
	if (!isfinite(bytes) || !isfinite(var))
		return yi_error(YING_EINVAL, "leaks: a value that is not a number");
	dump = (uint32_t)(l->times.n - 1);
	if ((rc = yi_strtab_intern(&l->names, name, len, &id)) != 0)
		return rc;
	if (id >= l->site_of.n) {
		size_t k = (size_t)id + 1 - l->site_of.n;
		if ((rc = yi_vec_grow(&l->site_of, k)) != 0)
			return rc;
		memset(l->site_of.v + l->site_of.n, 0, k * sizeof(uint32_t));
		l->site_of.n = (size_t)id + 1;
	}
	if (l->site_of.v[id] == 0) {
		if ((rc = yi_vec_grow(&l->sites, 1)) != 0)
			return rc;
		s = &l->sites.v[l->sites.n++];
		memset(s, 0, sizeof(*s));
		s->name = id;
		l->site_of.v[id] = (uint32_t)l->sites.n;
	}
	s = &l->sites.v[l->site_of.v[id] - 1];
	if (s->pts.n == 0 || s->pts.v[s->pts.n - 1].dump != dump) {
		if ((rc = yi_vec_grow(&s->pts, 1)) != 0)
			return rc;
		s->pts.v[s->pts.n].dump = dump;
		s->pts.v[s->pts.n].bytes = 0;
		s->pts.v[s->pts.n++].var = 0;
	}
	s->pts.v[s->pts.n - 1].bytes += bytes;
	s->pts.v[s->pts.n - 1].var += var;
	l->computed = 0;
	return 0;
}

/* The site key of one stack: its leaf function's name, or every frame's
 * name leaf first, ';'-separated. */
typedef YI_VEC(char) key_buf;

static int
site_key(const ying_profile *p, const yi_framevec *fr, int by_stack,
    key_buf *key)
{
	size_t i, n = by_stack ? fr->n : 1;
	int rc;

	key->n = 0;
	for (i = 0; i < n; i++) {
		const char *s = yi_profile_str(p, p->funcs.v[fr->v[i].func].show);
		size_t len = strlen(s);
		if ((rc = yi_vec_grow(key, len + 2)) != 0)
			return rc;
		if (i > 0)
			key->v[key->n++] = ';';
		memcpy(key->v + key->n, s, len);
		key->n += len;
	}
	return 0;
}

YING_EXTERN int
ying_leaks_add_at(ying_leaks *l, const ying_profile *p, double t)
{
	yi_stack_walk w;
	key_buf key = { 0 };
	uint32_t dump;
	int rc;

	if (l == NULL || p == NULL)
		return yi_error(YING_EINVAL, "ying_leaks_add: no series or no profile");
	if (!isfinite(t) || t <= 0)
		return yi_error(YING_EINVAL, "%s: the dump has no usable time (%g)",
		    p->source ? p->source : "profile", t);
	if ((rc = yi_leaks_dump(l, t, p->period, &dump)) != 0)
		return rc;
	w = (yi_stack_walk)YI_STACK_WALK_INIT(p, NULL, YING_INUSE_SPACE);
	while ((rc = yi_stack_walk_next(&w)) > 0) {
		const yi_stack *st = &p->stacks.v[w.s];
		if (w.fr.n == 0 || w.v == 0)
			continue;
		if ((rc = site_key(p, &w.fr, l->by_stack, &key)) != 0)
			break;
		if ((rc = yi_leaks_point(l, key.v, key.n, w.v,
		    yi_sample_var(st->val[YING_INUSE_OBJECTS], st->val[YING_INUSE_SPACE],
		    p->period, true))) != 0)
			break;
	}
	yi_stack_walk_end(&w);
	yi_vec_free(&key);
	return rc < 0 ? rc : 0;
}

int
yi_leaks_add_rows(ying_leaks *l, const ying_profile *names, const double *t,
    size_t npts, uint64_t period, const float *const *rows, size_t stride,
    const float *extra, const char *extra_name)
{
	yi_stack_walk w;
	key_buf key = { 0 };
	YI_VEC(char) keys = { 0 };      /* the stacks' keys, '\0'-separated */
	YI_VEC(size_t) at = { 0 };      /* per stack: its key's offset + 1 (0: none) */
	uint32_t dump;
	int rc = 0;

	if (l == NULL || names == NULL || (npts && (t == NULL || stride < npts)))
		return yi_error(YING_EINVAL, "yi_leaks_add_rows: bad arguments");
	if ((rc = yi_vec_grow(&at, names->stacks.n + 1)) != 0)
		return rc;
	memset(at.v, 0, (names->stacks.n + 1) * sizeof(size_t));
	w = (yi_stack_walk)YI_STACK_WALK_INIT(names, NULL, YING_INUSE_SPACE);
	while ((rc = yi_stack_walk_next(&w)) > 0) {
		if (w.fr.n == 0)
			continue;
		if ((rc = site_key(names, &w.fr, l->by_stack, &key)) != 0 ||
		    (rc = yi_vec_grow(&keys, key.n + 1)) != 0)
			break;
		at.v[w.s] = keys.n + 1;
		memcpy(keys.v + keys.n, key.v, key.n);
		keys.n += key.n;
		keys.v[keys.n++] = '\0';
	}
	yi_stack_walk_end(&w);
	rc = rc < 0 ? rc : 0;
	for (size_t j = 0; rc == 0 && j < npts; j++) {
		if ((rc = yi_leaks_dump(l, t[j], period, &dump)) != 0)
			break;
		for (size_t i = 0; rc == 0 && i < names->stacks.n; i++) {
			const char *k;
			if (at.v[i] == 0 || rows[i][j] == 0)
				continue;
			k = keys.v + at.v[i] - 1;
			rc = yi_leaks_point(l, k, strlen(k), rows[i][j], rows[i][stride + j]);
		}
		if (rc == 0 && extra != NULL && extra[j] != 0)
			rc = yi_leaks_point(l, extra_name, strlen(extra_name), extra[j],
			    extra[stride + j]);
	}
	yi_vec_free(&key);
	yi_vec_free(&keys);
	yi_vec_free(&at);
	return rc;
}

YING_EXTERN int
ying_leaks_add(ying_leaks *l, const ying_profile *p)
{
	if (l == NULL || p == NULL)
		return yi_error(YING_EINVAL, "ying_leaks_add: no series or no profile");
	return ying_leaks_add_at(l, p, (double)ying_profile_time(p));
}

/* Verdict of one site from its dense series y[0..n) at times t. */
static void
judge(yi_leaks_site *s, const double *t, const double *y, const double *v,
    const uint32_t *vorder, size_t n, uint64_t period)
{
	yi_leaks_fit all;
	yi_leaks_hinge h = { 0 };
	double tq, span, floor_b, best, knot = 0, infl;
	size_t m, k, step;

	s->verdict = YING_LEAKS_UNKNOWN;
	s->rate = s->lo = s->hi = s->r2 = NAN;
	s->rate_first = s->rate_last = NAN;
	if (n < YI_LEAKS_MIN_TREND) {
		s->reason = "too few dumps for a trend (need 4)";
		return;
	}
	if (yi_leaks_fit_line(&all, t, y, v, vorder, n, 1) != 0) {
		s->reason = "the dumps' times do not spread";
		return;
	}
	/* the two-segment (hinge) fit: the knot, at a dump, that leaves the
	 * least squares, with at least the last third after it */
	best = INFINITY;
	if (n >= YI_LEAKS_MIN_LEVEL) {
		m = (n + 2) / 3;
		if (m < 3)
			m = 3;
		/* at most ~64 knots: O(64 n) per site, however long the series */
		step = (n - m - 2) / 64 + 1;
		for (k = 2; k + m < n; k += step) {
			yi_leaks_hinge hk;
			if (t[k] <= t[0] || t[k] >= t[n - 1] ||
			    yi_leaks_fit_hinge(&hk, t, y, v, vorder, n, t[k], 1) != 0)
				continue;
			if (hk.rss < best) {
				best = hk.rss;
				h = hk;
				knot = t[k];
			}
		}
	}
	/* residuals that follow each other about the better of the two fits
	 * (a wandering site's, a leak's accumulating sampling errors) widen
	 * every interval by the AR(1) factor; a cache that fills leaves the
	 * line with residuals that follow each other too, but not the hinge */
	infl = yi_leaks_ar1(isfinite(best) ? h.rho : all.rho);
	if (infl > 1) {
		yi_leaks_fit_line(&all, t, y, v, vorder, n, infl);
		if (isfinite(best))
			yi_leaks_fit_hinge(&h, t, y, v, vorder, n, knot, infl);
	}
	tq = yi_leaks_t975(all.df);
	s->rate = all.b * 3600;
	s->lo = (all.b - tq * all.se) * 3600;
	s->hi = (all.b + tq * all.se) * 3600;
	s->r2 = all.r2;
	span = t[n - 1] - t[0];
	floor_b = (period > 4096 ? (double)period : 4096.0) / (span > 0 ? span : 1);
	if (s->hi < 0) {
		s->verdict = all.r2 >= YI_LEAKS_MIN_R2 ? YING_LEAKS_RELEASED : YING_LEAKS_CHURN;
		s->reason = all.r2 >= YI_LEAKS_MIN_R2 ? "significant decrease" :
		    "fell, but wanders more than it fell (r2 below 0.5)";
		return;
	}
	if (!(s->lo > 0)) {
		s->verdict = YING_LEAKS_CHURN;
		s->reason = "no significant trend";
		return;
	}
	if (all.b < floor_b) {
		s->verdict = YING_LEAKS_CHURN;
		s->reason = "growth below the noise floor";
		return;
	}
	if (n < YI_LEAKS_MIN_LEVEL) {
		s->reason = "growing, but too few dumps to tell a leak from a "
		    "cache that fills (need 6)";
		return;
	}
	if (!isfinite(best)) {
		s->verdict = all.r2 >= YI_LEAKS_MIN_R2 ? YING_LEAKS_LEAK : YING_LEAKS_CHURN;
		s->reason = all.r2 >= YI_LEAKS_MIN_R2 ?
		    "steady growth (no knot to test levelling off)" :
		    "grew, but wanders more than it grew (r2 below 0.5)";
		return;
	}
	s->rate_first = h.before * 3600;
	s->rate_last = h.after * 3600;
	tq = yi_leaks_t975(h.df);
	if (h.before - h.after > tq * h.se_change && h.after <= h.before / 2 &&
	    !(h.after - tq * h.se_after > 0)) {
		s->verdict = YING_LEAKS_FILLED;
		s->reason = "grew, then levelled off";
		return;
	}
	if (all.r2 < YI_LEAKS_MIN_R2) {
		s->verdict = YING_LEAKS_CHURN;
		s->reason = "grew, but wanders more than it grew (r2 below 0.5)";
		return;
	}
	s->verdict = YING_LEAKS_LEAK;
	s->reason = "steady growth that does not level off";
}

/* Ranking: by rate (unknown rates last), then bytes in the last dump,
 * then name. */
typedef struct rank_key {
	double rate, last;
	const char *name;
	uint32_t site;
} rank_key;

static int
rank_cmp(const void *x, const void *y)
{
	const rank_key *a = x, *b = y;

	if (a->rate != b->rate)
		return a->rate > b->rate ? -1 : 1;
	if (a->last != b->last)
		return a->last > b->last ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The order of the dumps by time (stable: equal times keep their order). */
static int
time_cmp(const void *x, const void *y)
{
	const double *a = x, *b = y;

	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return a[1] < b[1] ? -1 : a[1] > b[1];
}

YING_EXTERN int
ying_leaks_compute(ying_leaks *l)
{
	size_t n, i, j, k;
	double *t = NULL, *y = NULL, *v = NULL, *tk = NULL;
	uint32_t *pos = NULL, *vorder = NULL;
	rank_key *keys = NULL;
	int rc = 0;

	if (l == NULL)
		return yi_error(YING_EINVAL, "ying_leaks_compute: no series");
	n = l->times.n;
	if (n == 0)
		return yi_error(YING_ENODATA, "leaks: no dumps");
	if ((t = yi_calloc(n, sizeof(double))) == NULL ||
	    (y = yi_calloc(n, sizeof(double))) == NULL ||
	    (v = yi_calloc(n, sizeof(double))) == NULL ||
	    (tk = yi_calloc(n, 2 * sizeof(double))) == NULL ||
	    (pos = yi_calloc(n, sizeof(uint32_t))) == NULL ||
	    (vorder = yi_calloc(n, sizeof(uint32_t))) == NULL ||
	    (keys = yi_calloc(l->sites.n + 1, sizeof(rank_key))) == NULL) {
		rc = yi_oom("the leaks series");
		goto out;
	}
	for (j = 0; j < n; j++) {
		tk[2 * j] = l->times.v[j];
		tk[2 * j + 1] = (double)j;
	}
	qsort(tk, n, 2 * sizeof(double), time_cmp);
	for (j = 0; j < n; j++) {
		t[j] = tk[2 * j];
		pos[(size_t)tk[2 * j + 1]] = (uint32_t)j;
	}
	l->order.n = 0;
	if ((rc = yi_vec_grow(&l->order, l->sites.n)) != 0)
		goto out;
	for (i = 0; i < l->sites.n; i++) {
		yi_leaks_site *s = &l->sites.v[i];
		/* a dense series in time order; absent = 0 bytes */
		memset(y, 0, n * sizeof(double));
		memset(v, 0, n * sizeof(double));
		for (k = 0; k < s->pts.n; k++) {
			y[pos[s->pts.v[k].dump]] = s->pts.v[k].bytes;
			v[pos[s->pts.v[k].dump]] = s->pts.v[k].var;
		}
		/* the dumps by sampling variance, for the persistent model: in
		 * time order when that is already increasing (a leak, a cache),
		 * else sorted (tk reused; ties by time) */
		for (j = 0; j < n; j++)
			vorder[j] = (uint32_t)j;
		for (j = 1; j < n && v[j - 1] <= v[j]; j++)
			;
		if (j < n) {
			for (j = 0; j < n; j++) {
				tk[2 * j] = v[j];
				tk[2 * j + 1] = (double)j;
			}
			qsort(tk, n, 2 * sizeof(double), time_cmp);
			for (j = 0; j < n; j++)
				vorder[j] = (uint32_t)tk[2 * j + 1];
		}
		s->present = s->pts.n;
		s->first = y[0];
		s->last = y[n - 1];
		judge(s, t, y, v, vorder, n, l->period);
		keys[i].rate = isnan(s->rate) ? -INFINITY : s->rate;
		keys[i].last = s->last;
		keys[i].name = yi_strtab_get(&l->names, s->name);
		keys[i].site = (uint32_t)i;
	}
	qsort(keys, l->sites.n, sizeof(rank_key), rank_cmp);
	for (i = 0; i < l->sites.n; i++)
		l->order.v[l->order.n++] = keys[i].site;
	l->computed = 1;
out:
	yi_free(t);
	yi_free(y);
	yi_free(v);
	yi_free(tk);
	yi_free(pos);
	yi_free(vorder);
	yi_free(keys);
	return rc;
}
