/*
 * internal.h: libying's internals in one include, for the unit tests only
 * (the front ends use include/ying.h alone).  Library files never include
 * it (tests/integration/layers.sh checks both): each includes the header of its own family and
 * those of the families below it (docs/architecture.md, "Source layout"):
 *   base.h   allocation, errors, vectors, output, strings, hashing, gzip,
 *            signal names
 *   model.h  the profile model, stack filters
 *   read.h   heap_v2 and pprof readers, format sniffing
 *   sym.h    symbolizer and allocator trimming
 *   write.h  flame graph tree and SVG, pprof writer internals
 *   diff.h   the NOW-minus-BASE profile
 *   leaks.h  verdicts over a series of dumps
 *   live.h   mallctl layer, growth runner, HTTP listener
 */
#ifndef YING_INTERNAL_H
#define YING_INTERNAL_H

#include "base.h"
#include "model.h"
#include "read.h"
#include "sym.h"
#include "write.h"
#include "diff.h"
#include "leaks.h"
#include "live.h"

#endif /* YING_INTERNAL_H */
