/*
 * synth.h: the one builder of synthetic profiles for the unit tests.
 *
 * A synthetic profile is already "symbolized" (every location carries its
 * inline chain), so that golden output depends on no compiler and no
 * binary.  Locations, functions and lines go through the model's own
 * functions (yi_profile_loc, yi_profile_func, yi_profile_set_lines);
 * mappings and stacks, for which the model has no constructor (the parsers
 * append them), are appended here in one place.  Every helper bails out of
 * the test ("Bail out!") when the model refuses, so callers need no checks.
 * The caller frees the profile with ying_profile_free.
 */
#ifndef YING_TEST_SYNTH_H
#define YING_TEST_SYNTH_H

#include "internal.h"

/* An empty, symbolized profile named `name` with sample period `period`. */
ying_profile *synth_new(const char *name, uint64_t period);

/* Append an executable mapping of `path` at [start, end), offset 0; the
 * first one becomes the main executable.  Returns its index. */
int32_t synth_map(ying_profile *p, const char *path, uint64_t start, uint64_t end);

/* The location of raw pc `pc` (`leaf`: as dumped, else looked up at pc-1,
 * as the parser does), on mapping `mapping` (-1: none).  A new location gets
 * the inline chain names[0] (innermost) .. names[n-1]; sysnames, files and
 * lines may be NULL (sysname = name, file "", line 0).  A location that
 * already has lines keeps them. */
uint32_t synth_loc_at(ying_profile *p, uint64_t pc, bool leaf, int32_t mapping,
    const char *const *names, const char *const *sysnames,
    const char *const *files, const uint32_t *lines, size_t n);

/* A leaf location at addr with no mapping and the given inline chain. */
uint32_t synth_loc(ying_profile *p, uint64_t addr, const char *const *names,
    const char *const *files, const uint32_t *lines, size_t n);

/* A leaf location with one function. */
uint32_t synth_fn(ying_profile *p, uint64_t addr, const char *name,
    const char *file, uint32_t line);

/* A stack of locations (leaf first) with raw counts `raw`, unsampled by the
 * model (yi_stack_compute_values); `skip` leading frames are allocator
 * frames.  Nonzero cumulative counts mark the profile as having them. */
void synth_stack_counts(ying_profile *p, const uint32_t *locs, size_t n,
    uint32_t skip, const yi_counts *raw);

/* A stack whose inuse_space is exactly `bytes` and inuse_objects `objs`
 * (no unsampling: the values a writer should print). */
void synth_stack_skip(ying_profile *p, const uint32_t *locs, size_t n,
    uint32_t skip, double bytes, double objs);
void synth_stack(ying_profile *p, const uint32_t *locs, size_t n, double bytes,
    double objs);

/* "fan": main -> a (600 bytes, 6 objects), main -> b (300, 3), main -> c
 * (100, 1), total 1000; functions main, a, b, c at base + 0x1000 .. 0x4000
 * in m.c:1, a.c:2, b.c:3, c.c:4 (another base: the same names elsewhere). */
ying_profile *synth_fan(uint64_t base);

/* ying_diff_build of b -> n at sample index idx, after symbolizing each
 * with the default options (b or n may be NULL: an empty side); *d is the
 * caller's to free with ying_diff_free. */
int synth_diff(ying_diff **d, ying_profile *b, ying_profile *n, ying_sample_index idx);

#endif
