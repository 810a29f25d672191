/*
 * base_reportname.c: the names of the growth runner's report sets,
 * "ying.<ISO time>.<N>MiB" plus one of the set's extensions (.report, .svg,
 * .heap, .pb.gz, .recent.json, .giant.json), made and parsed.  A set the
 * runner wrote for a reason other than growth says it before the size:
 * "ying.<time>.limit90.<N>MiB" (usage crossed 90 % of the memory limit),
 * "ying.<time>.hwm.<N>MiB" (a new high-water mark of the live heap).  Apart from
 * the runner (src/live/live_runner_files.c) in the base layer, so that
 * readers of report directories (`ying sql`) and the runner share one rule
 * while libying never reaches the live runtime.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base.h"

#define MIB 1048576.0

/* ---- names ------------------------------------------------------------------ */

int
yi_report_iso_time(char *buf, size_t n, int64_t t, bool portable)
{
	struct tm tm;
	time_t tt = (time_t)t;
	long off, oh, om;
	char sign;
	int r;

	if (buf == NULL || n == 0)
		return yi_error(YING_EINVAL, "no buffer for the time");
	buf[0] = '\0';
	if (localtime_r(&tt, &tm) == NULL)
		return yi_error(YING_EINVAL, "time %" PRId64 " cannot be represented", t);
	off = tm.tm_gmtoff;
	sign = off < 0 ? '-' : '+';
	off = off < 0 ? -off : off;
	oh = off / 3600;
	om = off % 3600 / 60;
	if (portable)
		r = snprintf(buf, n, "%04d%02d%02dT%02d%02d%02d%c%02ld%02ld",
		    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		    tm.tm_min, tm.tm_sec, sign, oh, om);
	else
		r = snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d%c%02ld:%02ld",
		    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		    tm.tm_min, tm.tm_sec, sign, oh, om);
	if (r < 0 || (size_t)r >= n)
		return yi_error(YING_EINVAL, "time buffer too small (%zu bytes)", n);
	return 0;
}

int
yi_report_base_name(char *buf, size_t n, int64_t t, double bytes, bool portable)
{
	return yi_report_base_name_tag(buf, n, t, bytes, portable, NULL);
}

/* A reason tag: "hwm" or "limit" and 1 to 3 digits. */
static bool
tag_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 3 && strncmp(s, "hwm", 3) == 0)
		return true;
	if (n < 6 || n > 8 || strncmp(s, "limit", 5) != 0)
		return false;
	for (i = 5; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

int
yi_report_base_name_tag(char *buf, size_t n, int64_t t, double bytes, bool portable,
    const char *tag)
{
	char ts[48];
	double mb;
	int rc, r;

	if ((rc = yi_report_iso_time(ts, sizeof(ts), t, portable)) != 0)
		return rc;
	if (!isfinite(bytes) || bytes < 0)
		bytes = 0;
	mb = floor(bytes / MIB + 0.5);
	if (tag != NULL && !tag_ok(tag, strlen(tag)))
		return yi_error(YING_EINVAL, "report name tag \"%.20s\": expected hwm or "
		    "limitN", tag);
	r = snprintf(buf, n, "ying.%s.%s%s%.0fMiB", ts, tag ? tag : "", tag ? "." : "", mb);
	if (r < 0 || (size_t)r >= n)
		return yi_error(YING_EINVAL, "name buffer too small (%zu bytes)", n);
	return 0;
}

static const char *const set_exts[] = { ".report", ".svg", ".heap", ".pb.gz",
	".recent.json", ".giant.json" };
#define NEXTS (sizeof(set_exts) / sizeof(set_exts[0]))

int
yi_report_parse_name(const char *name, size_t *base_len)
{
	size_t len, el, b, i, k;
	const char *p;

	if (name == NULL || strncmp(name, "ying.", 5) != 0)
		return 0;
	len = strlen(name);
	for (i = 0; i < NEXTS; i++) {
		el = strlen(set_exts[i]);
		if (len > el && strcmp(name + len - el, set_exts[i]) == 0)
			break;
	}
	if (i == NEXTS)
		return 0;
	b = len - el;
	/* base = "ying." TIME "." DIGITS "MiB", or "MB" (the older names of
	 * the same sizes: recognised so that they are still pruned) */
	if (b >= 5 + 1 + 1 + 1 + 3 && strncmp(name + b - 3, "MiB", 3) == 0)
		k = b - 3;
	else if (b >= 5 + 1 + 1 + 1 + 2 && strncmp(name + b - 2, "MB", 2) == 0)
		k = b - 2;
	else
		return 0;
	if (k == 0 || name[k - 1] < '0' || name[k - 1] > '9')
		return 0;
	while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
		k--;
	if (k == 0 || name[k - 1] != '.')
		return 0;
	/* an optional reason tag before the size: ".hwm." or ".limit90." */
	{
		size_t e = k - 1, t0 = e;
		while (t0 > 5 && name[t0 - 1] != '.')
			t0--;
		if (t0 > 5 && tag_ok(name + t0, e - t0))
			k = t0;
	}
	/* TIME: digits, 'T', ':', '+', '-'; at least 8 characters */
	if (k - 1 < 5 + 8)
		return 0;
	for (p = name + 5; p < name + k - 1; p++)
		if (!((*p >= '0' && *p <= '9') || *p == 'T' || *p == ':' ||
		    *p == '+' || *p == '-'))
			return 0;
	if (base_len)
		*base_len = b;
	return 1;
}
