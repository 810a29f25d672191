/*
 * base_format.c: numbers for people and the size parser the front ends share.
 *
 * Sizes are binary (KiB = 1024 B) both ways: yi_fmt_bytes prints "1.5 MiB",
 * ying_parse_size accepts "10MiB", "10M", "10MB", "512k", "4096".  Also the
 * one compiler of users' regular expressions (yi_regex_compile).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <strings.h>

#include "base.h"

/* Largest size accepted (10^18 B, about 888 PiB): beyond it a size is a typo, and a double
 * that large no longer converts to uint64_t. */
#define YI_SIZE_MAX 1e18

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

int
ying_parse_size(double *out, const char *s)
{
	char *end;
	double v, mult = 1;

	yi_error_clear();
	if (s == NULL || out == NULL)
		return yi_error(YING_EINVAL, "no size given");
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v < 0)
		return yi_error(YING_EINVAL, "'%s' is not a size (try 10MiB, 512k, 4096)", s);
	while (isspace((unsigned char)*end))
		end++;
	switch (tolower((unsigned char)*end)) {
	case '\0': mult = 1; break;
	case 'b': mult = 1; end++; break;
	case 'k': mult = 1024.0; end++; break;
	case 'm': mult = 1024.0 * 1024; end++; break;
	case 'g': mult = 1024.0 * 1024 * 1024; end++; break;
	case 't': mult = 1024.0 * 1024 * 1024 * 1024; end++; break;
	default:
		return yi_error(YING_EINVAL, "'%s': unknown size unit (use B, KiB, MiB, GiB, TiB)", s);
	}
	if (mult > 1) {
		if (strcasecmp(end, "ib") == 0 || strcasecmp(end, "b") == 0 || *end == '\0')
			end += strlen(end);
	}
	if (*end != '\0')
		return yi_error(YING_EINVAL, "'%s': unknown size unit (use B, KiB, MiB, GiB, TiB)", s);
	if (v * mult > YI_SIZE_MAX)
		return yi_error(YING_EINVAL, "'%s': too large (at most 10^18 bytes)", s);
	*out = v * mult;
	return 0;
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
