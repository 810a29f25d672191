/*
 * test_base_num.c: the one number parser (base_num.c): each kind's units,
 * the ranges (inclusive), and the refusals every kind shares: empty,
 * spaces, signs, hexadecimal, inf/nan, overflow, trailing garbage; the
 * digits-only integer parser (the HTTP parameters, counts) and its
 * INT64_MAX bound; the message naming what was expected.
 */
#include <stdint.h>

#include "internal.h"
#include "tap.h"

static int
parse(const char *s, yi_num_kind k, double lo, double hi, double *v)
{
	return yi_num_parse(s, k, lo, hi, v, NULL, 0);
}

int
main(void)
{
	double v = -1;
	int64_t n = -1;
	char why[200];

	/* seconds */
	is_int(parse("300", YI_NUM_SECONDS, 0, 1e7, &v), 0, "300 s");
	is_near(v, 300, 0, "300");
	is_int(parse("1.5", YI_NUM_SECONDS, 0, 1e7, &v), 0, "1.5 s");
	is_near(v, 1.5, 0, "1.5");
	is_int(parse("5m", YI_NUM_SECONDS, 0, 1e7, &v), 0, "5m");
	is_near(v, 300, 0, "5m = 300 s");
	is_int(parse("1h", YI_NUM_SECONDS, 0, 1e7, &v), 0, "1h");
	is_near(v, 3600, 0, "1h = 3600 s");
	is_int(parse("15s", YI_NUM_SECONDS, 0, 1e7, &v), 0, "15s");
	is_near(v, 15, 0, "15s");
	is_int(parse("500ms", YI_NUM_SECONDS, 0, 1e7, &v), 0, "500ms");
	is_near(v, 0.5, 1e-12, "500ms = 0.5 s");
	is_int(parse("50ms", YI_NUM_SECONDS, 0.1, 1e6, &v), -1, "50ms below 0.1 s refused");
	is_int(parse("0.1", YI_NUM_SECONDS, 0.1, 1e6, &v), 0, "the low end is inclusive");
	is_int(parse("1e7", YI_NUM_SECONDS, 0, 1e7, &v), 0, "the high end is inclusive");
	is_int(parse("3000h", YI_NUM_SECONDS, 0, 1e7, &v), -1, "3000h > 1e7 s refused");
	is_int(parse("5 m", YI_NUM_SECONDS, 0, 1e7, &v), -1, "no space before a time unit");
	is_int(parse("5min", YI_NUM_SECONDS, 0, 1e7, &v), -1, "5min refused");
	is_int(parse("5M", YI_NUM_SECONDS, 0, 1e7, &v), -1, "5M (a size unit) refused");
	is_int(parse("m", YI_NUM_SECONDS, 0, 1e7, &v), -1, "a unit alone refused");
	is_int(parse("-1", YI_NUM_SECONDS, 0, 1e7, &v), -1, "negative refused");

	/* sizes: binary, as ying_parse_size always read them */
	is_int(parse("10MiB", YI_NUM_SIZE, 0, 1e18, &v), 0, "10MiB");
	is_near(v, 10485760, 0, "10MiB value");
	is_int(parse("512k", YI_NUM_SIZE, 0, 1e18, &v), 0, "512k");
	is_near(v, 524288, 0, "512k value");
	is_int(parse("1.5GB", YI_NUM_SIZE, 0, 1e18, &v), 0, "1.5GB");
	is_near(v, 1610612736, 0, "1.5GB value");
	is_int(parse("2 t", YI_NUM_SIZE, 0, 1e18, &v), 0, "a space before a size unit");
	is_near(v, 2199023255552.0, 0, "2 t value");
	is_int(parse("7b", YI_NUM_SIZE, 0, 1e18, &v), 0, "7b");
	is_near(v, 7, 0, "7b value");
	is_int(parse("4096", YI_NUM_SIZE, 0, 1e18, &v), 0, "plain bytes");
	is_int(parse("1e18", YI_NUM_SIZE, 0, 1e18, &v), 0, "1e18 bytes is the largest");
	is_int(parse("2e18", YI_NUM_SIZE, 0, 1e30, &v), -1, "2e18 refused whatever the range");
	is_int(parse("1e300T", YI_NUM_SIZE, 0, 1e18, &v), -1, "1e300T refused");
	is_int(parse("0", YI_NUM_SIZE, 1, 1e18, &v), -1, "0 below a minimum of 1 refused");
	is_int(parse("10 parsecs", YI_NUM_SIZE, 0, 1e18, &v), -1, "bad unit");
	is_int(parse("5MiBs", YI_NUM_SIZE, 0, 1e18, &v), -1, "trailing junk");
	is_int(parse("5 ", YI_NUM_SIZE, 0, 1e18, &v), -1, "a trailing space");
	is_int(parse("-5M", YI_NUM_SIZE, 0, 1e18, &v), -1, "negative size");

	/* percentages and plain numbers */
	is_int(parse("10", YI_NUM_PERCENT, 0, 1e6, &v), 0, "10 %");
	is_int(parse("2.5%", YI_NUM_PERCENT, 0, 1e6, &v), 0, "2.5%");
	is_near(v, 2.5, 0, "2.5% value");
	is_int(parse("10%%", YI_NUM_PERCENT, 0, 1e6, &v), -1, "10%% refused");
	is_int(parse("2.5", YI_NUM_REAL, 0, 10, &v), 0, "a real");
	is_int(parse("2.5%", YI_NUM_REAL, 0, 10, &v), -1, "no unit on a plain number");
	is_int(parse("-2.5", YI_NUM_REAL, -10, 10, &v), 0, "negative where the range allows");
	is_near(v, -2.5, 0, "-2.5");

	/* counts: digits only */
	is_int(parse("64", YI_NUM_COUNT, 0, 1000000, &v), 0, "64");
	is_near(v, 64, 0, "64 value");
	is_int(parse("1.5", YI_NUM_COUNT, 0, 1000000, &v), -1, "a fraction is not a count");
	is_int(parse("1e3", YI_NUM_COUNT, 0, 1000000, &v), -1, "1e3 is not a count");
	is_int(parse("10001", YI_NUM_COUNT, 0, 10000, &v), -1, "count above the range");

	/* refusals every kind shares */
	for (int k = YI_NUM_REAL; k <= YI_NUM_PERCENT; k++) {
		static const char *const bad[] = { "", " 5", "+5", "0x10", "inf", "nan",
		    "1e400", "5x", ".", "5..", NULL };
		int refused = 0, total = 0;
		for (int i = 0; bad[i]; i++, total++)
			refused += parse(bad[i], (yi_num_kind)k, 0, 1e18, &v) == -1;
		is_int(refused, total, yi_num_kind_name((yi_num_kind)k));
	}
	v = 42;
	parse("junk", YI_NUM_SECONDS, 0, 1e7, &v);
	is_near(v, 42, 0, "a refusal leaves *out alone");
	is_int(yi_num_parse(NULL, YI_NUM_SIZE, 0, 1e18, &v, why, sizeof(why)), -1, "NULL");

	/* the message */
	yi_num_parse("5x", YI_NUM_SECONDS, 0, 1e7, &v, why, sizeof(why));
	is_str(why, "expected seconds from 0 to 10000000 (300, 1.5, 500ms, 5m, 1h), "
	    "not '5x'", "the message says what was expected and what was given");
	yi_num_parse("x", YI_NUM_SIZE, 1, 1e18, &v, why, sizeof(why));
	has_str(why, "a size from 1 to 1e+18 bytes", "a size's message");

	/* the integer parser */
	yi_num_parse("1e300T", YI_NUM_SIZE, 0, 1e18, &v, why, sizeof(why));
	has_str(why, "(too large)", "1e300T: too large");
	yi_num_parse("0.01", YI_NUM_SECONDS, 0.1, 1e6, &v, why, sizeof(why));
	has_str(why, "(too small)", "0.01 s below 0.1: too small");
	is_int(yi_num_int64("9223372036854775807", 0, INT64_MAX, &n, NULL, 0), 0, "INT64_MAX");
	ok(n == INT64_MAX, "INT64_MAX value");
	is_int(yi_num_int64("9223372036854775808", 0, INT64_MAX, &n, NULL, 0), -1,
	    "INT64_MAX + 1 refused, no wrap-around");
	is_int(yi_num_int64("-9223372036854775808", INT64_MIN, 0, &n, NULL, 0), 0, "INT64_MIN");
	ok(n == INT64_MIN, "INT64_MIN value");
	is_int(yi_num_int64("-1", 0, 10, &n, NULL, 0), -1, "no sign where lo >= 0");
	is_int(yi_num_int64("65535", 0, 65535, &n, NULL, 0), 0, "65535");
	is_int(yi_num_int64("65536", 0, 65535, &n, NULL, 0), -1, "65536 > 65535");
	is_int(yi_num_int64("", 0, 10, &n, NULL, 0), -1, "empty");
	is_int(yi_num_int64("1 ", 0, 10, &n, NULL, 0), -1, "trailing space");
	return tap_done();
}
