/*
 * base_format.c: numbers for people.
 *
 * Sizes are binary (KiB = 1024 B) both ways: yi_fmt_bytes prints "1.5 MiB",
 * yi_num_parse (base_num.c) reads "10MiB", "10M", "10MB", "512k", "4096".  Also the
 * one compiler of users' regular expressions (yi_regex_compile).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <strings.h>

#include "base.h"

const char *
yi_fmt_bytes(double v, char *buf, size_t n)
{
	static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double a = fabs(v);
	int u = 0;

	while (a >= 1024.0 && u < 5) {
		a /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, n, "%.0f B", v);
	else
		snprintf(buf, n, "%s%.*f %s", v < 0 ? "-" : "", a < 10 ? 2 : 1, a, units[u]);
	return buf;
}

const char *
yi_fmt_value(double v, ying_sample_index idx, char *buf, size_t n)
{
	if (yi_index_is_bytes(idx))
		return yi_fmt_bytes(v, buf, n);
	snprintf(buf, n, "%.0f", v);
	return buf;
}

const char *
ying_format_bytes(double v, char *buf, size_t n)
{
	return yi_fmt_bytes(v, buf, n);
}

int
yi_regex_compile(regex_t *re, const char *src, const char *what)
{
	char msg[256];
	int r = regcomp(re, src, REG_EXTENDED | REG_NOSUB);

	if (r != 0) {
		regerror(r, re, msg, sizeof(msg));
		return yi_error(YING_EINVAL, "bad %s regex '%s': %s", what, src, msg);
	}
	return 0;
}

const char *
yi_fmt_duration(double s, bool coarse, char *out, size_t n)
{
	if (!isfinite(s))
		snprintf(out, n, "never");
	else if (s >= 86400 * 2)
		snprintf(out, n, coarse ? "%.0f days" : "%.1f days", s / 86400);
	else if (s >= 3600)
		snprintf(out, n, "%d h %d min", (int)(s / 3600), (int)(s / 60) % 60);
	else if (s >= 60 && coarse)
		snprintf(out, n, "%d min", (int)(s / 60));
	else if (s >= 60)
		snprintf(out, n, "%d min %d s", (int)(s / 60), (int)s % 60);
	else if (s >= 10 || coarse)
		snprintf(out, n, "%.0f s", s);
	else
		snprintf(out, n, "%.1f s", s);
	return out;
}
