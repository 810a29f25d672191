/*
 * live_runner_report.c: the growth runner's readable .report text: the
 * live heap, what grew since the previous report (a ying_diff), the top
 * stacks, jemalloc's own statistics, the leak verdicts so far (and the
 * time to the limit at the leaks' rate), where the RSS goes, and the giant
 * allocations since the previous report (with YING_GIANT); and the report's
 * time, never one an earlier set of the runner has (its name).
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

	yi_out_where(o, yi_profile_str(p, f->show), yi_profile_str(p, f->file), fr->line);
	if (fr->inlined)
		yi_out_puts(o, " [inline]");
}

static int
write_top_stacks(yi_out *o, const ying_profile *p, double total, unsigned top)
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

/* The giant allocations since the previous report (m->giant_json, read
 * back and symbolized here): one line per record, at most GIANT_LINES. */
#define GIANT_LINES 20
static void
write_giant(yi_out *o, const yi_report_meta *m)
{
	ying_giant *g = NULL;
	ying_profile *gp;
	yi_framevec fv = { NULL, 0, 0 };
	uint64_t thr = 0, allocs = 0, dropped = 0;
	size_t n;
	char b1[32], ts[48];

	if (ying_giant_read_mem(&g, m->giant_json, m->giant_len, "giant.json") != 0) {
		yi_out_printf(o, "\nGiant allocations since the previous report\n  "
		    "(cannot read them: %s)\n", ying_last_error());
		yi_error_clear();
		return;
	}
	{
		ying_giant_info gi;
		ying_giant_info_get(&gi, g);
		thr = gi.threshold; allocs = gi.allocations; dropped = gi.dropped;
	}
	n = ying_giant_count(g);
	gp = ying_giant_profile(g);
	yi_out_printf(o, "\nGiant allocations since the previous report (at least %s; "
	    "%s%s.giant.json): %zu\n", yi_fmt_bytes((double)thr, b1, sizeof(b1)),
	    m->base ? m->base : "", m->base ? "" : "ying", n);
	ying_symbolize_opts so = YING_SYMBOLIZE_OPTS_INIT;
	so.full_names = m->full_names;
	if (n > 0 && ying_profile_symbolize(gp, m->sym, &so) != 0)
		yi_error_clear();
	for (size_t i = 0; i < n && i < GIANT_LINES; i++) {
		ying_giant_record r;
		long nf;
		if (ying_giant_get(&r, g, i) != 0)
			break;
		yi_report_iso_time(ts, sizeof(ts), r.time_ns / 1000000000, m->portable);
		yi_out_printf(o, "  %s  %10s  %-14s thread %-8" PRIu64 " ", ts,
		    yi_fmt_bytes((double)r.size, b1, sizeof(b1)), r.kind, r.thread);
		nf = yi_stack_expand(gp, &gp->stacks.v[r.stack], &fv);
		if (nf > 0) {
			put_frame(o, gp, &fv.v[0]);
			if (nf > 1) {
				yi_out_puts(o, " <- ");
				put_frame(o, gp, &fv.v[1]);
			}
		} else {
			yi_out_puts(o, "[unknown]");
		}
		yi_out_putc(o, '\n');
	}
	if (n > GIANT_LINES)
		yi_out_printf(o, "  ... %zu more\n", n - GIANT_LINES);
	if (dropped)
		yi_out_printf(o, "  (%" PRIu64 " of %" PRIu64 " giant allocations since "
		    "the start were not kept)\n", dropped, allocs);
	yi_vec_free(&fv);
	ying_giant_free(g);
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

/* "at the leaks' rate": when the usage reaches the limit if it grows as
 * fast as the sites said to leak (their summed rate). */
static void
write_leak_eta(yi_out *o, const yi_report_meta *m, double usage)
{
	yi_leak_sum s;
	double eta, lo, hi;
	char t[32], tl[32], th[32], r[32], rl[32], rh[32];

	yi_leak_sum_of(m->leaks, 0, &s);
	if (s.sites == 0) {
		yi_out_puts(o, "           at the leaks' rate: no site is a leak so far\n");
		return;
	}
	yi_leak_eta(&s, (double)m->limit->limit, usage, &eta, &lo, &hi);
	yi_fmt_duration(eta, false, t, sizeof(t));
	yi_fmt_duration(lo, false, tl, sizeof(tl));
	yi_fmt_duration(hi, false, th, sizeof(th));
	yi_fmt_bytes(s.rate * 3600, r, sizeof(r));
	yi_fmt_bytes(s.rate_lo * 3600, rl, sizeof(rl));
	yi_fmt_bytes(s.rate_hi * 3600, rh, sizeof(rh));
	yi_out_printf(o, "           at the leaks' rate: in %s (95 %%: %s to %s), %zu "
	    "leak site%s growing %s/h (%s to %s/h)\n", t, tl, th, s.sites,
	    s.sites == 1 ? "" : "s", r, rl, rh);
}

/* "Leak verdicts so far": the history's sites that are not churn. */
static int
write_leaks(yi_out *o, const yi_report_meta *m)
{
	const yi_leaks_hist_info *in = &m->leaks_info;
	ying_leaks_site s;
	char span[32], b1[32], b2[32], b3[32];
	size_t shown = 0, quiet = 0;

	if (m->leaks == NULL) {
		if (m->leaks_error)
			yi_out_printf(o, "\nLeak verdicts so far: not known (%s)\n",
			    m->leaks_error);
		return 0;
	}
	yi_fmt_duration(in->last - in->first, false, span, sizeof(span));
	yi_out_printf(o, "\nLeak verdicts so far (%zu points over %s, one per %u "
	    "heap check%s; %zu stacks tracked; `ying leaks` on the .heap files, "
	    "GET /debug/heap/leaks)\n", in->points, span, in->stride,
	    in->stride == 1 ? "" : "s", in->stacks);
	for (size_t i = 0; ying_leaks_site_get(m->leaks, i, &s) == 0; i++) {
		if (s.verdict == YING_LEAKS_CHURN || (s.verdict == YING_LEAKS_UNKNOWN &&
		    !(s.last > 0))) {
			quiet++;
			continue;
		}
		if (shown == 10) {
			quiet++;
			continue;
		}
		if (shown++ == 0)
			yi_out_puts(o, "  verdict         rate/h (95 %)                 "
			    "now       function\n");
		if (isfinite(s.rate)) {
			char iv[64];
			snprintf(iv, sizeof(iv), "%s%s (%s%s to %s%s)", s.rate < 0 ? "-" : "+",
			    yi_fmt_bytes(fabs(s.rate), b1, sizeof(b1)), s.rate_lo < 0 ? "-" : "+",
			    yi_fmt_bytes(fabs(s.rate_lo), b2, sizeof(b2)), s.rate_hi < 0 ? "-" : "+",
			    yi_fmt_bytes(fabs(s.rate_hi), b3, sizeof(b3)));
			yi_out_printf(o, "  %-9s %-36s %9s %s%s%s%s\n", ying_leaks_verdict_name(
			    (ying_leaks_verdict)s.verdict), iv, yi_fmt_bytes(s.last, b1,
			    sizeof(b1)), s.function, s.verdict == YING_LEAKS_UNKNOWN ? " (" : "",
			    s.verdict == YING_LEAKS_UNKNOWN ? s.reason : "",
			    s.verdict == YING_LEAKS_UNKNOWN ? ")" : "");
		} else {
			yi_out_printf(o, "  %-9s %-36s %9s %s\n", ying_leaks_verdict_name(
			    (ying_leaks_verdict)s.verdict), s.reason, yi_fmt_bytes(s.last, b1,
			    sizeof(b1)), s.function);
		}
	}
	if (shown == 0)
		yi_out_printf(o, "  no site grows or shrinks significantly (%zu site%s, "
		    "all churn)\n", quiet, quiet == 1 ? "" : "s");
	else if (quiet)
		yi_out_printf(o, "  (%zu more site%s: churn, or not shown)\n", quiet,
		    quiet == 1 ? "" : "s");
	return 0;
}

int
yi_runner_write_report(const ying_profile *p, double total, const yi_report_meta *m,
    ying_write_fn fn, void *opaque)
{
	yi_out *o;
	char ts[48], pts[48], b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
	const char *prog, *base;
	int rc;

	if (p == NULL || m == NULL || fn == NULL)
		return yi_error(YING_EINVAL, "yi_runner_write_report: NULL argument");
	if ((o = yi_malloc(sizeof(*o))) == NULL)
		return yi_oom("writing a report");
	yi_out_init(o, fn, opaque);
	yi_report_iso_time(ts, sizeof(ts), m->time, false);
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
	if (m->limit != NULL && m->limit->limit > 0) {
		yi_out_printf(o, "limit      %s (%s); usage %s (%s), %.1f %% of it",
		    yi_fmt_bytes((double)m->limit->limit, b1, sizeof(b1)),
		    yi_limit_source_name(m->limit),
		    yi_fmt_bytes((double)m->usage, b2, sizeof(b2)),
		    yi_limit_usage_name(m->limit),
		    100.0 * (double)m->usage / (double)m->limit->limit);
		if (m->frac > 0)
			yi_out_printf(o, "; crossed %g %%", m->frac);
		yi_out_putc(o, '\n');
		{
			/* when, at the usage's trend (live_limit.c) */
			yi_limit_eta e;
			char eta[256];
			yi_limit_eta_get(m->limit, &e);
			yi_limit_eta_text(&e, eta, sizeof(eta));
			yi_out_printf(o, "reached    %s\n", eta[0] ? eta : "(not enough usage "
			    "history yet for a trend: 5 points over 4 s)");
			if (m->leaks != NULL)
				write_leak_eta(o, m, e.known ? e.usage : (double)m->usage);
		}
	}
	if (m->prev || m->prev_time) {
		double d = total - m->prev_total;
		yi_report_iso_time(pts, sizeof(pts), m->prev_time, false);
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
		    "jeprof), .pb.gz (go tool pprof)%s\n", m->base,
		    m->recent ? ", .recent.json (ying lifetimes)" : "");

	yi_out_printf(o, "\nTop %u stacks by live heap (innermost frame first)\n",
	    m->top ? m->top : 10);
	if ((rc = write_top_stacks(o, p, total, m->top ? m->top : 10)) != 0)
		goto out;

	yi_out_puts(o, "\nTop functions\n");
	{
		ying_membuf mb = YING_MEMBUF_INIT;
		ying_top_opts to = YING_TOP_OPTS_INIT;
		to.limit = 15;
		if ((rc = embed(o, &mb, yi_write_top(p, &to,
		    ying_write_membuf, &mb))) != 0)
			goto out;
	}

	if (m->prev) {
		ying_diff *d = NULL;
		ying_membuf mb = YING_MEMBUF_INIT;
		ying_diff_opts dop = YING_DIFF_OPTS_INIT;
		ying_diff_build_opts bo = YING_DIFF_BUILD_OPTS_INIT;

		bo.sample_index = YING_INUSE_SPACE;
		yi_out_printf(o, "\nGrew since the previous report (%s, live heap %s)\n", pts,
		    yi_fmt_bytes(m->prev_total, b1, sizeof(b1)));
		/* the intervals of model_noise.c: both dumps are of this one
		 * process, so objects live in both cancel and the sum of the
		 * two variances over-states the noise (never under-states) */
		if (ying_profile_period(p) > 1 || ying_profile_period(m->prev) > 1)
			yi_out_puts(o, "(\xc2\xb1: 95 % interval from jemalloc's sampling, "
			    "conservative for two dumps of one process; ~: change within it)\n");
		dop.limit = 10;
		rc = yi_diff_build(&d, m->prev, p, &bo);
		if (rc == 0)
			rc = ying_diff_write_text(d, &dop, ying_write_membuf, &mb);
		ying_diff_free(d);
		if ((rc = embed(o, &mb, rc)) != 0)
			goto out;
	} else {
		yi_out_puts(o, "\nGrew since the previous report\n  (first report: "
		    "nothing to compare with)\n");
	}
	if ((rc = write_leaks(o, m)) != 0)
		goto out;
	if (m->memory) {
		ying_membuf mb = YING_MEMBUF_INIT;
		yi_out_puts(o, "\nWhere the RSS goes (parts of at least 1 %; "
		    "GET /debug/memory for all)\n");
		if ((rc = embed(o, &mb, ying_memory_write_text(m->memory, 1,
		    ying_write_membuf, &mb))) != 0)
			goto out;
	} else if (m->memory_error) {
		yi_out_printf(o, "\nWhere the RSS goes: not known (%s)\n", m->memory_error);
	}
	if (m->giant_json)
		write_giant(o, m);
	/* the last line: a reader can tell a whole report from a cut one */
	yi_out_puts(o, "\n(end of report)\n");
out:
	if (rc == 0)
		rc = yi_out_finish(o);
	yi_free(o);
	return rc;
}

/* Wait until time() has passed `last`, so two sets never share a name. */
int64_t
yi_runner_next_second(int64_t last)
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
