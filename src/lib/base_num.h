/*
 * base_num.h: the one number parser (base_num.c), with units: plain
 * numbers, whole counts, sizes, durations and percentages, each within an
 * inclusive range.  Standalone (libc types only) so that the front ends'
 * library (src/common) can compile the same source under its own names:
 * YI_NUM_NAME(parse) is yi_num_parse in libying and yfe_num_parse in
 * libying_fe (src/common/fe_num.c defines YI_NUM_NAME before including
 * base_num.c), so neither exports or needs the other's symbol.
 *
 * Nothing allocates.  A refusal returns -1 and writes one phrase into
 * why[wn], without the value's name ("expected seconds from 0 to 1e+07
 * (300, 1.5, 500ms, 5m, 1h), not '5x'"): the caller names the field,
 * flag or variable in front of it.
 */
#ifndef YING_BASE_NUM_H
#define YING_BASE_NUM_H

#include <stddef.h>
#include <stdint.h>

/* libying exports them to libying-live (base.h's YI_SHARED); the front
 * ends' copy is a static library, where it changes nothing. */
#ifndef YI_SHARED
#define YI_SHARED __attribute__((visibility("default")))
#endif
#ifndef YI_NUM_NAME
#define YI_NUM_NAME(x) yi_num_##x
#endif

typedef enum yi_num_kind {
	YI_NUM_REAL,     /* a decimal number: 1, 1.5, 2e3 */
	YI_NUM_COUNT,    /* a whole number, decimal digits only: 0, 64 */
	YI_NUM_SIZE,     /* bytes, binary units: 4096, 7b, 512k, 10MiB, 1.5GB, 2 t */
	YI_NUM_SECONDS,  /* seconds: 300, 1.5, 500ms, 15s, 5m, 1h */
	YI_NUM_PERCENT,  /* a percentage: 10, 2.5, 10% */
} yi_num_kind;

/* The largest size accepted: 10^18 bytes (about 888 PiB); beyond it a
 * size is a typo, and a larger double no longer converts to uint64_t. */
#define YI_NUM_SIZE_MAX 1e18

/* Parse all of s as a `kind` in [lo, hi] into *out (in bytes, seconds or
 * percent).  Strict for every kind: no leading or trailing space or
 * garbage, no sign other than a leading '-' where lo < 0, no "0x", "inf"
 * or "nan", no overflow.  0, or -1 with the reason in why[wn] (why may be
 * NULL). */
YI_SHARED int YI_NUM_NAME(parse)(const char *s, yi_num_kind kind, double lo, double hi,
    double *out, char *why, size_t wn);
/* Decimal digits only (a leading '-' where lo < 0), within [lo, hi],
 * stopping at the first digit that would pass INT64_MAX: no wrap-around.
 * 0, or -1 (why as above). */
YI_SHARED int YI_NUM_NAME(int64)(const char *s, int64_t lo, int64_t hi, int64_t *out,
    char *why, size_t wn);
/* What a `kind` looks like, for messages and the settings table:
 * "seconds", "a size", ... */
YI_SHARED const char *YI_NUM_NAME(kind_name)(yi_num_kind kind);

#endif /* YING_BASE_NUM_H */
