/*
 * base_num.c: the one number parser, with units (base_num.h).
 *
 * Every number a user gives ying (a `ying run` flag, a YING_* variable, an
 * HTTP query parameter, YING_MAX_MEMORY) is read here, by one rule per
 * kind: a plain number, a whole count (digits only), a size in bytes with
 * binary units (k = KiB = KB = 1024), seconds with ms/s/m/h, a percentage
 * with an optional '%'.  Strict everywhere: the whole string or nothing,
 * no spaces around it (a size may have one between the number and its
 * unit, as "2 t" always worked), no '+', no '-' unless the range allows
 * negatives, no hexadecimal, "inf" or "nan", no overflow or underflow, and
 * the range inclusive.  libc only, no allocation and no error state: the
 * reason goes into the caller's buffer, so that the front ends' library
 * can compile this file under its own names (YI_NUM_NAME, base_num.h).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base_num.h"

static const char *const kind_names[] = {
	[YI_NUM_REAL] = "a number",
	[YI_NUM_COUNT] = "a whole number",
	[YI_NUM_SIZE] = "a size",
	[YI_NUM_SECONDS] = "seconds",
	[YI_NUM_PERCENT] = "a percentage",
};

static const char *const kind_examples[] = {
	[YI_NUM_REAL] = "",
	[YI_NUM_COUNT] = "",
	[YI_NUM_SIZE] = " (20MiB, 512k, 4096)",
	[YI_NUM_SECONDS] = " (300, 1.5, 500ms, 5m, 1h)",
	[YI_NUM_PERCENT] = " (10, 2.5, 10%)",
};

const char *
YI_NUM_NAME(kind_name)(yi_num_kind kind)
{
	return (unsigned)kind <= YI_NUM_PERCENT ? kind_names[kind] : "a number";
}

/* "expected seconds from 0 to 10000000 (300, ...), not 'x'" */
static int
refuse_why(yi_num_kind kind, double lo, double hi, const char *s, const char *note,
    char *why, size_t wn)
{
	if ((unsigned)kind > YI_NUM_PERCENT)
		kind = YI_NUM_REAL;
	if (why != NULL && wn > 0)
		snprintf(why, wn, "expected %s from %.15g to %.15g%s%s, not '%.48s%s'%s",
		    kind_names[kind], lo, hi, kind == YI_NUM_SIZE ? " bytes" : "",
		    kind_examples[kind], s ? s : "", s && strlen(s) > 48 ? "..." : "",
		    note);
	return -1;
}

static int
refuse(yi_num_kind kind, double lo, double hi, const char *s, char *why, size_t wn)
{
	return refuse_why(kind, lo, hi, s, "", why, wn);
}

int
YI_NUM_NAME(int64)(const char *s, int64_t lo, int64_t hi, int64_t *out, char *why,
    size_t wn)
{
	const char *p = s;
	uint64_t v = 0, lim;
	bool neg = false;
	int64_t r;

	if (s == NULL || out == NULL)
		goto bad;
	if (*p == '-' && lo < 0) {
		neg = true;
		p++;
	}
	if (*p == '\0')
		goto bad;
	/* magnitude bound: INT64_MAX, or 2^63 for a negative number */
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; *p; p++) {
		unsigned d;
		if (*p < '0' || *p > '9')
			goto bad;
		d = (unsigned)(*p - '0');
		if (v > (lim - d) / 10)
			goto bad;                  /* would overflow */
		v = v * 10 + d;
	}
	if (neg)
		r = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	else
		r = (int64_t)v;
	if (r < lo || r > hi)
		goto bad;
	*out = r;
	return 0;
bad:
	return refuse(YI_NUM_COUNT, (double)lo, (double)hi, s, why, wn);
}

/* The multiplier of the size unit at *pend ("", b, k, KiB, MB, 2 t: as
 * ying_parse_size, the front ends' old size parser, read them); 0 when it is not one. */
static double
size_unit(const char **pend)
{
	const char *e = *pend;
	double mult;

	while (*e == ' ')
		e++;
	switch (tolower((unsigned char)*e)) {
	case '\0': return e == *pend ? 1 : 0;   /* no space before nothing */
	case 'b': mult = 1; break;
	case 'k': mult = 1024.0; break;
	case 'm': mult = 1024.0 * 1024; break;
	case 'g': mult = 1024.0 * 1024 * 1024; break;
	case 't': mult = 1024.0 * 1024 * 1024 * 1024; break;
	default: return 0;
	}
	e++;
	if (mult > 1 && (strcasecmp(e, "ib") == 0 || strcasecmp(e, "b") == 0))
		e += strlen(e);
	if (*e != '\0')
		return 0;
	*pend = e;
	return mult;
}

int
YI_NUM_NAME(parse)(const char *s, yi_num_kind kind, double lo, double hi, double *out,
    char *why, size_t wn)
{
	const char *p = s, *e;
	char *end;
	double v, mult = 1;

	if (s == NULL || out == NULL || (unsigned)kind > YI_NUM_PERCENT)
		return refuse(kind, lo, hi, s, why, wn);
	if (kind == YI_NUM_COUNT) {
		int64_t n;
		double l = lo < -9e18 ? -9e18 : lo, h = hi > 9e18 ? 9e18 : hi;
		if (YI_NUM_NAME(int64)(s, (int64_t)ceil(l), (int64_t)floor(h), &n, NULL, 0) != 0)
			return refuse(kind, lo, hi, s, why, wn);
		*out = (double)n;
		return 0;
	}
	if (*p == '-' && lo < 0)
		p++;
	/* a digit or a point first: no space, sign, "inf" or "nan" */
	if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1])))
		return refuse(kind, lo, hi, s, why, wn);
	errno = 0;
	v = strtod(s, &end);
	if (end == s || (errno != 0 && fabs(v) < 1) || !isfinite(v))
		return refuse(kind, lo, hi, s, why, wn);
	if (errno != 0)
		return refuse_why(kind, lo, hi, s, " (too large)", why, wn);
	for (e = p; e < end; e++)
		if (*e == 'x' || *e == 'X' || *e == 'p' || *e == 'P')
			return refuse(kind, lo, hi, s, why, wn);   /* hexadecimal */
	e = end;
	switch (kind) {
	case YI_NUM_SIZE:
		if ((mult = size_unit(&e)) == 0)
			return refuse(kind, lo, hi, s, why, wn);
		break;
	case YI_NUM_SECONDS:
		if (strcmp(e, "ms") == 0)
			mult = 0.001, e += 2;
		else if (*e == 's' || *e == 'm' || *e == 'h')
			mult = *e == 's' ? 1 : *e == 'm' ? 60 : 3600, e++;
		break;
	case YI_NUM_PERCENT:
		if (*e == '%')
			e++;
		break;
	default:
		break;
	}
	if (*e != '\0')
		return refuse(kind, lo, hi, s, why, wn);
	v *= mult;
	if (!isfinite(v) || v > hi || (kind == YI_NUM_SIZE && v > YI_NUM_SIZE_MAX))
		return refuse_why(kind, lo, hi, s, " (too large)", why, wn);
	if (v < lo)
		return refuse_why(kind, lo, hi, s, " (too small)", why, wn);
	*out = v;
	return 0;
}
