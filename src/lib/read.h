/*
 * read.h: the read family (read_heap.c, read_pprof.c, read_url.c): bytes
 * -> ying_profile, for jemalloc's heap_v2 dumps and pprof profile.proto
 * (format sniffing, gzip detection).
 */
#ifndef YING_READ_H
#define YING_READ_H

#include "model.h"

/* ---- parser (read_heap.c) ------------------------------------------------ */
/* A byte source with gzip detection, used by the heap_v2 and pprof readers. */
int yi_heap_parse_mem(ying_profile **out, const void *data, size_t len,
    const char *name);
int yi_heap_parse_file(ying_profile **out, const char *path);
/* ying's own dumps end their MAPPED_LIBRARIES section with one line per
 * loaded object that has a GNU build ID: "ying-build-id: <start> <hex>",
 * <start> (hex, no 0x) the first address the object maps.  jeprof and
 * go tool pprof skip such lines (no address range, no '='). */
#define YI_BUILD_ID_TAG "ying-build-id:"

/* true when (gunzipped) data looks like profile.proto rather than heap_v2 */
bool yi_looks_like_pprof(const void *data, size_t n);
/* What the (gunzipped) first n bytes of an input are; complete: n is all of
 * it.  HEAP: starts with "heap" (the heap parser names what is wrong);
 * PPROF: well-formed top-level profile.proto fields (to the end, or cut
 * after a few: the pprof reader says truncated); NEITHER: empty, text, or
 * bytes that are no profile.proto. */
typedef enum { YI_SNIFF_HEAP, YI_SNIFF_PPROF, YI_SNIFF_NEITHER } yi_sniff_kind;
yi_sniff_kind yi_sniff(const void *data, size_t n, bool complete);
/* "NAME: not a heap profile (expected heap_v2 or pprof)"; YING_EPARSE. */
int yi_not_a_profile(const char *name, size_t n);

/* ---- pprof reader (read_pprof.c) ----------------------------------------- */
/* data is the (already gunzipped) profile.proto. */
int yi_pprof_parse(ying_profile **out, const void *data, size_t len,
    const char *name);

#endif /* YING_READ_H */
