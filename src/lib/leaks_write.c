/*
 * leaks_write.c: the results of a leaks series (leaks.c): verdict names,
 * the accessors of ying_leaks_site, and the text and JSON writers of
 * `ying leaks` (ranked by rate, as ying_leaks_compute left them).
 */
#include <math.h>
#include <string.h>

#include "leaks.h"

static const char *const verdict_names[] = {
	"unknown", "leak", "filled", "churn", "released",
};

YING_EXTERN const char *
ying_leaks_verdict_name(ying_leaks_verdict v)
{
	if ((unsigned)v < sizeof(verdict_names) / sizeof(verdict_names[0]))
		return verdict_names[v];
	return "unknown";
}

YING_EXTERN int
ying_leaks_verdict_parse(ying_leaks_verdict *out, const char *name)
{
	size_t i;

	if (out == NULL || name == NULL)
		return yi_error(YING_EINVAL, "no verdict to parse");
	for (i = 0; i < sizeof(verdict_names) / sizeof(verdict_names[0]); i++)
		if (strcmp(name, verdict_names[i]) == 0) {
			*out = (ying_leaks_verdict)i;
			return 0;
		}
	return yi_error(YING_EINVAL, "'%s' is not a verdict (leak, filled, churn, "
	    "released, unknown)", name);
}

YING_EXTERN size_t
ying_leaks_ndumps(const ying_leaks *l)
{
	return l ? l->times.n : 0;
}

YING_EXTERN size_t
ying_leaks_count(const ying_leaks *l)
{
	return l && l->computed ? l->order.n : 0;
}

YING_EXTERN int
ying_leaks_site_get(const ying_leaks *l, size_t i, ying_leaks_site *out)
{
	const yi_leaks_site *s;

	if (l == NULL || out == NULL || !l->computed)
		return yi_error(YING_EINVAL, "ying_leaks_site_get: no computed series");
	if (i >= l->order.n)
		return yi_error(YING_EINVAL, "ying_leaks_site_get: site %zu of %zu", i,
		    l->order.n);
	s = &l->sites.v[l->order.v[i]];
	out->function = yi_strtab_get(&l->names, s->name);
	out->verdict = (ying_leaks_verdict)s->verdict;
	out->reason = s->reason;
	out->rate = s->rate;
	out->rate_lo = s->lo;
	out->rate_hi = s->hi;
	out->r2 = s->r2;
	out->rate_first = s->rate_first;
	out->rate_last = s->rate_last;
	out->first = s->first;
	out->last = s->last;
	out->points = l->times.n;
	out->present = s->present;
	return 0;
}

YING_EXTERN int
ying_leaks_any(const ying_leaks *l, ying_leaks_verdict v)
{
	size_t i;

	if (l == NULL || !l->computed)
		return 0;
	for (i = 0; i < l->sites.n; i++)
		if (l->sites.v[i].verdict == (int)v)
			return 1;
	return 0;
}

static void
json_num(yi_out *o, const char *key, double v)
{
	yi_out_printf(o, ",\"%s\":", key);
	if (isfinite(v))
		yi_out_json_num(o, v);
	else
		yi_out_puts(o, "null");
}

static void
span(const ying_leaks *l, double *lo, double *hi)
{
	size_t i;

	*lo = *hi = l->times.n ? l->times.v[0] : 0;
	for (i = 1; i < l->times.n; i++) {
		if (l->times.v[i] < *lo)
			*lo = l->times.v[i];
		if (l->times.v[i] > *hi)
			*hi = l->times.v[i];
	}
}

static void
write_json(yi_out *o, const ying_leaks *l, size_t n)
{
	size_t counts[5] = { 0 }, i;
	double t0, t1;

	span(l, &t0, &t1);
	for (i = 0; i < l->sites.n; i++)
		counts[l->sites.v[i].verdict]++;
	yi_out_printf(o, "{\"dumps\":%zu", l->times.n);
	json_num(o, "first_time", t0);
	json_num(o, "last_time", t1);
	json_num(o, "span_seconds", t1 - t0);
	yi_out_printf(o, ",\"period\":%llu,\"granularity\":\"%s\",\"unit\":\"bytes/hour\","
	    "\"interval\":0.95,\"counts\":{", (unsigned long long)l->period,
	    l->by_stack ? "stack" : "function");
	for (i = 0; i < 5; i++)
		yi_out_printf(o, "%s\"%s\":%zu", i ? "," : "", verdict_names[i], counts[i]);
	yi_out_puts(o, "},\"sites\":[");
	for (i = 0; i < n; i++) {
		ying_leaks_site s;
		(void)ying_leaks_site_get(l, i, &s);
		yi_out_puts(o, i ? ",\n{\"function\":" : "\n{\"function\":");
		yi_out_json_str(o, s.function);
		yi_out_printf(o, ",\"verdict\":\"%s\",\"reason\":",
		    ying_leaks_verdict_name(s.verdict));
		yi_out_json_str(o, s.reason);
		json_num(o, "rate", s.rate);
		json_num(o, "rate_lo", s.rate_lo);
		json_num(o, "rate_hi", s.rate_hi);
		json_num(o, "r2", s.r2);
		json_num(o, "rate_first", s.rate_first);
		json_num(o, "rate_last", s.rate_last);
		json_num(o, "first", s.first);
		json_num(o, "last", s.last);
		yi_out_printf(o, ",\"points\":%zu,\"present\":%zu}", s.points, s.present);
	}
	yi_out_puts(o, "]}\n");
}

/* A signed rate as "+1.2 MiB" / "-300 B" ("?" when not computed). */
static const char *
fmt_rate(double v, char *buf, size_t n)
{
	char b[40];

	if (!isfinite(v)) {
		snprintf(buf, n, "?");
		return buf;
	}
	yi_fmt_bytes(fabs(v), b, sizeof(b));
	snprintf(buf, n, "%s%s", v < 0 ? "-" : v > 0 ? "+" : "", b);
	return buf;
}

static void
write_text(yi_out *o, const ying_leaks *l, size_t n)
{
	double t0, t1;
	size_t i;

	span(l, &t0, &t1);
	yi_out_printf(o, "ying leaks: %zu dump%s over %.0f s, %zu %s%s; rates per hour, "
	    "95 %% interval\n", l->times.n, l->times.n == 1 ? "" : "s", t1 - t0, l->order.n,
	    l->by_stack ? "stack" : "function", l->order.n == 1 ? "" : "s");
	yi_out_printf(o, "%-9s %11s  %-25s %5s %10s %10s  %s\n", "verdict", "rate",
	    "interval", "r2", "first", "last", l->by_stack ? "stack" : "function");
	for (i = 0; i < n; i++) {
		ying_leaks_site s;
		char r[48], lo[48], hi[48], iv[112], f[48], la[48], r2[16];
		(void)ying_leaks_site_get(l, i, &s);
		fmt_rate(s.rate, r, sizeof(r));
		if (isfinite(s.rate_lo))
			snprintf(iv, sizeof(iv), "[%s, %s]", fmt_rate(s.rate_lo, lo, sizeof(lo)),
			    fmt_rate(s.rate_hi, hi, sizeof(hi)));
		else
			snprintf(iv, sizeof(iv), "?");
		if (isfinite(s.r2))
			snprintf(r2, sizeof(r2), "%.2f", s.r2);
		else
			snprintf(r2, sizeof(r2), "?");
		yi_out_printf(o, "%-9s %11s  %-25s %5s %10s %10s  ",
		    ying_leaks_verdict_name(s.verdict), r, iv, r2,
		    yi_fmt_bytes(s.first, f, sizeof(f)), yi_fmt_bytes(s.last, la, sizeof(la)));
		yi_out_text(o, s.function);
		if (s.verdict == YING_LEAKS_UNKNOWN || s.verdict == YING_LEAKS_FILLED) {
			yi_out_puts(o, "  (");
			yi_out_puts(o, s.reason);
			yi_out_putc(o, ')');
		}
		yi_out_putc(o, '\n');
	}
}

YING_EXTERN int
ying_leaks_write(const ying_leaks *l, int json, size_t limit, ying_write_fn fn,
    void *opaque)
{
	yi_out o;
	size_t n;

	if (l == NULL || fn == NULL || !l->computed)
		return yi_error(YING_EINVAL, "ying_leaks_write: no computed series "
		    "(call ying_leaks_compute first)");
	n = l->order.n;
	if (limit && limit < n)
		n = limit;
	yi_out_init(&o, fn, opaque);
	if (json)
		write_json(&o, l, n);
	else
		write_text(&o, l, n);
	return yi_out_finish(&o);
}
