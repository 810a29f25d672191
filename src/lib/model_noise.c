/*
 * model_noise.c: the sampling error of an unsampled estimate (the 95 %
 * intervals that yingdiff and the growth reports print on every delta).
 *
 * The model.  jemalloc samples by bytes: each thread draws the distance to
 * its next sample from a geometric distribution of mean R = 2^lg_prof_sample
 * bytes; an allocation of usable size S is sampled when it crosses that
 * point, and the distance is drawn afresh after each sample (the overshoot
 * is dropped).  The distance being memoryless, every allocation is sampled
 * independently of the others with probability
 *     p(S) = 1 - (1 - 1/R)^S  ~=  1 - e^(-S/R).
 * A stack's estimate (jeprof's AdjustSamples, jemalloc 5.3's internal
 * unbiasing: the same thing) is the Horvitz-Thompson sum over the sampled
 * allocations I_i of S_i / p_i (bytes) and 1 / p_i (objects).  It is
 * unbiased, and as a sum of independent terms its variance is
 *     Var(bytes) = sum over ALL allocations of S^2 (1 - p) / p
 *     Var(objs)  = sum over ALL allocations of (1 - p) / p,
 * which the sampled ones estimate without bias as the same sums of
 * S^2 (1-p)/p^2 and (1-p)/p^2 over the samples.
 *
 * What a dump holds.  A heap_v2 line is one (count, bytes) pair per stack,
 * not the sizes of its samples, and in 5.3 (prof_unbias, on by default)
 * even those are pre-distorted so that AdjustSamples gives back jemalloc's
 * internal unbiased sums N = sum 1/p_i and B = sum S_i/p_i.  So every
 * object of a stack is approximated by the stack's mean size s = B / N
 * (the same s the dump's own pre-distortion uses), and then
 *     Var(B) ~= N s^2 (1-p)/p = B s e^(-s/R) / (1 - e^(-s/R))
 *     Var(N) ~= N (1-p)/p     = N e^(-s/R) / (1 - e^(-s/R)),  p = p(s).
 * How good is the approximation: with x = S/R, S^2 (1-p)/p = R^2 phi(x),
 * phi(x) = x^2 / (e^x - 1), which is about R*S for small objects (so for
 * a stack of objects well below R only the bytes matter, and the mean is
 * exact), and concave up to x ~ 3.5, so for sizes below ~3.5 R Jensen's
 * inequality makes the mean-size figure an over-estimate (conservative).
 * It under-estimates only for a stack that mixes small objects with
 * objects far above R (whose samples are certain): the mean lands in the
 * tail where phi is ~0 while the small ones still vary.
 *
 * A delta NOW - BASE is taken as the difference of two independent
 * estimates: Var = Var(NOW) + Var(BASE).  Dumps of two processes (or
 * across a prof.reset) are independent.  Two dumps of one process are
 * not: an object live at both times was sampled (or not) once, so it
 * cancels exactly, and the true variance is only that of the objects
 * allocated or freed in between, which is at most the sum.  The sum is the
 * conservative choice: an interval may be too wide for a growing heap of
 * one process, never too narrow.  A row made of several stacks (function
 * rows, flat or cumulative, a stack counted once in cum; totals; flame
 * graph frames) sums their variances: stacks are sampled independently.
 *
 * The interval is delta +- 1.96 sqrt(Var) (normal approximation: good when
 * the estimate rests on a few dozen samples or more; with a handful it is
 * rough, and a stack with no sample at all is invisible).  A delta is
 * significant when that interval excludes 0.  Exact dumps (R = 1, every
 * allocation sampled) have variance 0.
 */
#include <math.h>

#include "model.h"

double
yi_sample_var(double objs, double bytes, uint64_t period, bool want_bytes)
{
	double s, x, q, p;

	if (period <= 1 || !(objs > 0) || !(bytes > 0))
		return 0;
	s = bytes / objs;
	x = s / (double)period;
	q = exp(-x);            /* 1 - p */
	p = -expm1(-x);
	if (!(p > 0))
		return 0;
	return want_bytes ? bytes * s * (q / p) : objs * (q / p);
}

double
yi_stack_var(const double *val, uint64_t period, ying_sample_index idx)
{
	switch (idx) {
	case YING_INUSE_SPACE:
		return yi_sample_var(val[YING_INUSE_OBJECTS], val[YING_INUSE_SPACE], period, true);
	case YING_INUSE_OBJECTS:
		return yi_sample_var(val[YING_INUSE_OBJECTS], val[YING_INUSE_SPACE], period, false);
	case YING_ALLOC_SPACE:
		return yi_sample_var(val[YING_ALLOC_OBJECTS], val[YING_ALLOC_SPACE], period, true);
	case YING_ALLOC_OBJECTS:
		return yi_sample_var(val[YING_ALLOC_OBJECTS], val[YING_ALLOC_SPACE], period, false);
	}
	return 0;
}

bool
yi_interval(double delta, double var, double *lo, double *hi)
{
	double h = var > 0 ? YI_Z95 * sqrt(var) : 0;

	if (lo)
		*lo = delta - h;
	if (hi)
		*hi = delta + h;
	return delta - h > 0 || delta + h < 0;
}
