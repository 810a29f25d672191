/*
 * leaks.h: what the leaks family (leaks*.c: verdicts over a series of
 * dumps, `ying leaks`) offers the other layers and keeps between its own
 * files.  The statistics are described in leaks.c and docs/ying.1 (LEAKS).
 */
#ifndef YING_LEAKS_H
#define YING_LEAKS_H

#include "model.h"

/* Minimum points (dumps) for a trend, and for telling a leak from a cache
 * that filled (the level-off test needs two segments of >= 3 points). */
#define YI_LEAKS_MIN_TREND 4
/* the least r2 of a leak (or a release): steady, not a wander (leaks.c) */
#define YI_LEAKS_MIN_R2 0.5
#define YI_LEAKS_MIN_LEVEL 6

typedef struct yi_leaks_pt {
	uint32_t dump;          /* index into the handle's dump times */
	double bytes;           /* unsampled bytes of the site in that dump */
	double var;             /* their sampling variance (yi_sample_var) */
} yi_leaks_pt;

typedef struct yi_leaks_site {
	uint32_t name;          /* strtab id: the function, or "a;b;c" stack */
	YI_VEC(yi_leaks_pt) pts;  /* in dump order, one per dump present */
	/* results (yi_leaks_compute) */
	int verdict;            /* a ying_leaks_verdict */
	double rate, lo, hi;    /* bytes per hour and its 95 % interval */
	double r2;              /* of the fit over all dumps */
	double rate_first, rate_last;   /* the two segments' slopes (NaN: none) */
	double first, last;     /* bytes in the first and the last dump */
	size_t present;         /* dumps that hold the site */
	const char *reason;     /* static string */
} yi_leaks_site;

struct ying_leaks {
	int by_stack;
	yi_strtab names;
	YI_VEC(uint32_t) site_of;   /* strtab id -> site index + 1 (0: none) */
	YI_VEC(yi_leaks_site) sites;
	YI_VEC(double) times;       /* per dump, seconds */
	uint64_t period;            /* the largest sampling period seen */
	YI_VEC(uint32_t) order;     /* sites ranked (after compute) */
	int computed;
};

/* A stack's sampling variance is model_noise.c's yi_sample_var (the one
 * model yingdiff's error bars use too): with mean object size
 * s = bytes/objects and p = 1 - exp(-s/R), Var = objects s^2 (1-p)/p. */
/* The two-sided 95 % quantile of Student's t with df degrees of freedom
 * (df >= 1; a table to 30, then a Cornish-Fisher expansion). */
YI_SHARED double yi_leaks_t975(double df);

/* Residuals that follow each other (a lag-1 autocorrelation rho) hold
 * less information than as many independent ones: the residual part of a
 * slope's variance is multiplied by (1 + rho) / (1 - rho), the AR(1)
 * factor for a trend (leaks.c); rho is clamped to [0, YI_LEAKS_RHO_MAX]. */
#define YI_LEAKS_RHO_MAX 0.95
YI_SHARED double yi_leaks_ar1(double rho);

/* A least-squares line y = a + b t over n points with per-point sampling
 * variances var (may be NULL): slope b, its standard error (se) from the
 * residuals (their part times infl, >= 1: yi_leaks_ar1) plus the sampling
 * variance, r2, degrees of freedom n - 2, and rho, the residuals' lag-1
 * autocorrelation (t increasing).  The sampling variance is the larger of
 * the independent model and, when vorder (the points' indices by
 * increasing var) is given, the persistent one (leaks.c).  0, or -1 when
 * the times do not spread (fewer than 2 distinct). */
typedef struct yi_leaks_fit {
	double b, se, r2;
	double rho;             /* the residuals' lag-1 autocorrelation, >= 0 */
	double rss;             /* the residual sum of squares */
	int df;
} yi_leaks_fit;
int yi_leaks_fit_line(yi_leaks_fit *f, const double *t, const double *y,
    const double *var, const uint32_t *vorder, size_t n, double infl);

/* The continuous two-segment line y = a + b (t - t0) + c (t - knot)+ by
 * least squares (df = n - 3): the slopes before (b) and after (b + c) the
 * knot with their standard errors, and that of the change c, each from
 * the residuals (times infl) plus the sampling variance (the sandwich
 * (X'X)^-1 X' V X (X'X)^-1 of the independent model, or the persistent
 * model's when vorder is given and that is larger); rho as the line's.
 * 0, or -1 when the design is singular. */
typedef struct yi_leaks_hinge {
	double before, after, se_before, se_after, se_change, rss, rho;
	int df;
} yi_leaks_hinge;
int yi_leaks_fit_hinge(yi_leaks_hinge *h, const double *t, const double *y,
    const double *var, const uint32_t *vorder, size_t n, double knot, double infl);

/* Start a new dump at time t (seconds) sampled at period (bytes); its
 * index in *dump. */
int yi_leaks_dump(ying_leaks *l, double t, uint64_t period, uint32_t *dump);
/* Add bytes (with sampling variance var) to the site `name` in the latest
 * dump. */
int yi_leaks_point(ying_leaks *l, const char *name, size_t len, double bytes,
    double var);

/* Add npts dumps at times t[0..npts) (seconds, increasing), sampled at
 * period, whose sites are the stacks of names (symbolized; their own
 * values are ignored, each stack's site key is the one ying_leaks_add
 * gives it): stack i's bytes in dump j are rows[i][j], their variance
 * rows[i][stride + j] (0 bytes: absent).  extra (may be NULL) is one more
 * row of that layout, the site extra_name.  The bounded history's way in
 * (leaks_hist.c). */
YI_SHARED int yi_leaks_add_rows(ying_leaks *l, const ying_profile *names,
    const double *t, size_t npts, uint64_t period, const float *const *rows,
    size_t stride, const float *extra, const char *extra_name);

/* ---- the bounded history of per-stack totals (leaks_hist.c) ---------------- */
/* Points kept (halved when full: every other one goes and later dumps are
 * taken every 2nd, 4th, ... time) and stacks tracked (the rest summed into
 * one row, YI_LEAKS_HIST_OTHER). */
#define YI_LEAKS_HIST_POINTS 256
#define YI_LEAKS_HIST_STACKS 512
#define YI_LEAKS_HIST_OTHER "[untracked stacks]"
typedef struct yi_leaks_hist yi_leaks_hist;
/* A new, empty history of at most max_points points and max_stacks stacks
 * (0: the defaults above; max_points even, >= 8).  Free with
 * yi_leaks_hist_free. */
YI_SHARED int yi_leaks_hist_new(yi_leaks_hist **out, size_t max_points,
    size_t max_stacks);
YI_SHARED void yi_leaks_hist_free(yi_leaks_hist *h);
/* Account the heap_v2 dump p (raw, symbolized or not: only its addresses,
 * heaps and values are read) taken at time t (seconds since the epoch). */
YI_SHARED int yi_leaks_hist_add(yi_leaks_hist *h, const ying_profile *p, double t);
/* A copy of h (the caller frees it), for a reader that must not hold the
 * writer's lock while it symbolizes. */
YI_SHARED int yi_leaks_hist_copy(yi_leaks_hist **out, const yi_leaks_hist *h);
/* The verdicts so far: a ying_leaks over h's points (computed), its sites
 * named by symbolizing the tracked stacks with sym and so against the
 * maps text maps[0..maps_len) (a heap_v2 MAPPED_LIBRARIES section: the
 * process's maps now).  YING_ENODATA when h has no point.  The caller
 * frees *out with ying_leaks_free. */
YI_SHARED int yi_leaks_hist_leaks(const yi_leaks_hist *h, const char *maps,
    size_t maps_len, ying_symbolizer *sym, const ying_symbolize_opts *so,
    int by_stack, ying_leaks **out);
typedef struct yi_leaks_hist_info {
	size_t points, max_points;  /* kept, and the bound */
	size_t stacks, max_stacks;  /* tracked, and the bound */
	unsigned stride;        /* dumps per point now (1, 2, 4, ...) */
	uint64_t dumps;         /* dumps accounted since the start */
	uint64_t evicted;       /* stacks moved into the other row */
	size_t untracked;       /* stacks of the last dump in the other row */
	double first, last;     /* times of the first and the last point */
	size_t bytes;           /* memory the history holds */
} yi_leaks_hist_info;
YI_SHARED void yi_leaks_hist_info_get(const yi_leaks_hist *h, yi_leaks_hist_info *out);

#endif /* YING_LEAKS_H */
