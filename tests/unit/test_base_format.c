/*
 * test_base_format.c: number formatting and size parsing (format.c):
 * sizes as the front ends read them (yi_num_parse's YI_NUM_SIZE, which
 * replaced ying_parse_size: the same units and refusals), yi_fmt_bytes /
 * yi_fmt_value.
 */
#include "internal.h"
#include "tap.h"

static char size_why[200];

/* ying_parse_size as it was: 0 or YING_EINVAL, at most 10^18 bytes */
static int
parse_size(double *d, const char *s)
{
	size_why[0] = '\0';
	return yi_num_parse(s, YI_NUM_SIZE, 0, YI_NUM_SIZE_MAX, d, size_why,
	    sizeof(size_why)) == 0 ? 0 : YING_EINVAL;
}

int
main(void)
{
	double d;
	char buf[64];

	is_int(parse_size(&d, "10MiB"), 0, "10MiB");
	is_near(d, 10485760, 0, "10MiB value");
	is_int(parse_size(&d, "512k"), 0, "512k parses");
	is_near(d, 524288, 0, "512k");
	is_int(parse_size(&d, "1.5GB"), 0, "1.5GB parses");
	is_near(d, 1610612736, 0, "1.5GB");
	is_int(parse_size(&d, "4096"), 0, "plain bytes parse");
	is_near(d, 4096, 0, "plain bytes");
	is_int(parse_size(&d, "2 t"), 0, "space before a unit");
	is_near(d, 2199023255552.0, 0, "2 t");
	is_int(parse_size(&d, "7b"), 0, "b suffix");
	is_near(d, 7, 0, "7b");
	d = -1;
	is_int(parse_size(&d, "10 parsecs"), YING_EINVAL, "bad unit");
	has_str(size_why, "10 parsecs", "the error names the input");
	is_near(d, -1, 0, "output untouched on error");
	is_int(parse_size(&d, "-5M"), YING_EINVAL, "negative");
	is_int(parse_size(&d, ""), YING_EINVAL, "empty");
	is_int(parse_size(&d, "5MiBs"), YING_EINVAL, "trailing junk");
	is_int(parse_size(&d, NULL), YING_EINVAL, "NULL");
	d = -1;
	is_int(parse_size(&d, "1e300T"), YING_EINVAL, "1e300T (infinite) refused");
	has_str(size_why, "too large", "... as too large");
	is_near(d, -1, 0, "... output untouched");
	is_int(parse_size(&d, "1e18"), 0, "1e18 bytes is the largest size");
	is_int(parse_size(&d, "2e18"), YING_EINVAL, "2e18 refused");
	is_int(parse_size(&d, "1000000T"), YING_EINVAL, "1000000T (> 10^18) refused");
	is_str(yi_fmt_bytes(1536, buf, sizeof(buf)), "1.50 KiB", "fmt KiB");
	is_str(yi_fmt_bytes(125520189, buf, sizeof(buf)), "119.7 MiB", "fmt MiB");
	is_str(yi_fmt_bytes(-2048, buf, sizeof(buf)), "-2.00 KiB", "fmt negative");
	is_str(yi_fmt_bytes(1023, buf, sizeof(buf)), "1023 B", "fmt bytes under a KiB");
	is_str(yi_fmt_value(3, YING_INUSE_OBJECTS, buf, sizeof(buf)), "3", "objects are plain counts");
	is_str(yi_fmt_value(2048, YING_ALLOC_SPACE, buf, sizeof(buf)), "2.00 KiB", "alloc_space is bytes");
	return tap_done();
}
