/*
 * live_history.h: the process's memory over time (live_history.c), for
 * GET /debug/history and the live page's chart; private to the live
 * library (not installed).
 *
 * A history holds fixed-size rings, allocated once (mmap, outside the
 * program's heap): YI_HIST_FINE points a second apart (10 minutes), one
 * point per minute for YI_HIST_COARSE minutes (24 hours), and the
 * YI_HIST_EVENTS newest events (reports written, snapshots taken, limit
 * fractions crossed, new RSS peaks).  A point is the time and up to
 * YI_HIST_MAXCOL - 1 values (bytes; NaN: unknown): rss, jemalloc's
 * stats.allocated, active, metadata, resident, retained, then the
 * allocated bytes of each jemalloc heap of the process.
 */
#ifndef YI_LIVE_HISTORY_H
#define YI_LIVE_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ying.h>

#define YI_HIST_FINE 600          /* 1 point a second: 10 minutes */
#define YI_HIST_COARSE 1440       /* 1 point a minute: 24 hours */
#define YI_HIST_EVENTS 256        /* the newest events */
#define YI_HIST_HEAPS 4           /* heap columns at most (YI_CTL_MAX_HEAPS) */
#define YI_HIST_FIXED 7           /* t, rss, allocated, active, metadata,
                                   * resident, retained */
#define YI_HIST_MAXCOL (YI_HIST_FIXED + YI_HIST_HEAPS)
#define YI_HIST_NAME 64           /* an event's name, with its NUL */
#define YI_HIST_HEAPNAME 40       /* "heap:" and a heap's name, with its NUL */
/* An RSS peak event: the RSS went past the last peak by 10 % and 1 MiB. */
#define YI_HIST_PEAK_PCT 10.0
#define YI_HIST_PEAK_MIN ((double)(1u << 20))

typedef struct yi_hist yi_hist;

/* A history with nheaps (<= YI_HIST_HEAPS) heap columns named
 * heap_names[i] (shown as "heap:NAME"); *out is freed with yi_hist_free.
 * YING_EINVAL for too many heaps, YING_ENOMEM when mmap fails. */
int yi_hist_new(yi_hist **out, size_t nheaps, const char *const *heap_names);
void yi_hist_free(yi_hist *h);
/* Its size in bytes (all of it is allocated by yi_hist_new). */
size_t yi_hist_bytes(void);
/* One point: v[0] the time (unix seconds), v[1..] the columns (NaN:
 * unknown).  The fine ring takes every point (a point less than 0.5 s
 * after the previous one replaces it); when a point starts a new minute,
 * the previous minute goes to the coarse ring: its last point, with the
 * largest rss of the minute.  A new RSS peak (YI_HIST_PEAK_*) adds a
 * "peak" event.  No allocation; takes h's lock for a copy. */
void yi_hist_add(yi_hist *h, const double *v);
/* An event at time t (unix seconds) of kind ("report", "snapshot",
 * "limit", "peak", "dump") and name (cut at YI_HIST_NAME - 1 bytes); the
 * oldest is dropped past YI_HIST_EVENTS.  No allocation. */
void yi_hist_add_event(yi_hist *h, double t, const char *kind, const char *name);
/* Point and event counts (tests). */
void yi_hist_counts(yi_hist *h, size_t *fine, size_t *coarse, size_t *events);
/* The history as GET /debug/history's JSON: points and events with
 * t > since (since < 0: all), with "pid", "now" and "limit" (0: null)
 * as given.  Copies the rings under the lock (one yi_malloc of
 * yi_hist_bytes()), writes without it.  The error code. */
int yi_hist_write_json(yi_hist *h, double since, long pid, double now,
    uint64_t limit, ying_write_fn fn, void *opaque);

/* ---- the process's history (made on first use, never freed; a forked
 * child's starts empty; none at all with YING_HISTORY=0) */
/* Sample now when a second has passed since the last sample (any thread,
 * e.g. the HTTP listener's loop; a sample is a read of /proc/self/statm
 * and a few mallctl calls per heap, no lock held across them); the
 * milliseconds until the next one is due. */
int yi_hist_tick(void);
/* Record an event in the process's history (the runner's reports, the
 * endpoint's snapshots, the limit's fractions). */
void yi_hist_event(const char *kind, const char *name);
/* The same with the name printf'd (cut at YI_HIST_NAME - 1 bytes). */
void yi_hist_eventf(const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The process's history as JSON (see yi_hist_write_json; the limit is the
 * growth runner's when it has one). */
int yi_hist_json(double since, ying_write_fn fn, void *opaque);
/* The process's history, NULL when none was made yet (tests). */
yi_hist *yi_hist_global(void);
/* Sample now whatever the time, into v[YI_HIST_MAXCOL] and the process's
 * history (bench/history.sh times it; yi_hist_tick is what samples). */
void yi_hist_sample(double *v);

#endif /* YI_LIVE_HISTORY_H */
