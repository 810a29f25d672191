/*
 * ying.h: the public API of libying, jemalloc-native heap profiling.
 *
 * The data flow is one direction and one model:
 *
 *   heap_v2 dump (file, memory, HTTP body, gzip or not)
 *     -> ying_profile_read_*()          parse, keep raw counts and mappings
 *     -> ying_profile_symbolize()       elfutils, inline frames, allocator frames trimmed
 *     -> ying_profile_write_*()         top table, pprof, folded, SVG flame graph
 *     -> ying_diff_*()                  NOW minus BASE, matched by symbols
 *
 * Conventions (every function follows them):
 *  - Functions that can fail return 0 (YING_OK) or a negative ying_err code.
 *    ying_strerror() gives fixed text for the code; ying_last_error() gives the
 *    detail of the last failure on the calling thread ("now.heap:17: expected
 *    '@' line").  Test the code, never the message.
 *  - Out-parameters come first and are set to NULL on failure.
 *  - Handles are opaque.  Whoever gets a handle from a *_new or *_read call
 *    releases it with the matching *_free; *_free(NULL) is a no-op.
 *  - Buffers returned through a `char **` or `void **` out-parameter are
 *    malloc'd by the library; the caller releases them with ying_free().
 *  - Output is written through a ying_write_fn sink, so one writer serves a
 *    FILE *, a memory buffer or an HTTP response.
 *  - Option structs start with `int version` and have an _INIT macro; pass
 *    NULL for defaults.
 *
 * Thread safety: distinct handles may be used from distinct threads at once.
 * One handle must not be used from two threads at once unless its section
 * says so.
 */
#ifndef YING_H
#define YING_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && __GNUC__ >= 4
#define YING_EXTERN __attribute__((visibility("default")))
#else
#define YING_EXTERN
#endif

#define YING_VERSION_MAJOR 0
#define YING_VERSION_MINOR 1
#define YING_VERSION_PATCH 0
#define YING_VERSION_STRING "0.1.0"

/** The library's version string ("0.1.0"); static, never freed. */
YING_EXTERN const char *ying_version(void);

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

typedef enum ying_err {
	YING_OK = 0,
	YING_EINVAL = -1,       /**< bad argument or option value */
	YING_ENOMEM = -2,       /**< out of memory */
	YING_EIO = -3,          /**< read or write failed (file, socket, sink) */
	YING_EPARSE = -4,       /**< malformed input; detail names where */
	YING_ENODATA = -5,      /**< the profile lacks what was asked for */
	YING_ENOTFOUND = -6,    /**< no such file, symbol, snapshot, ... */
	YING_ENOJEMALLOC = -7,  /**< no jemalloc (mallctl) in this process */
	YING_ENOPROF = -8,      /**< jemalloc without profiling, or prof:false */
	YING_EBUSY = -9,        /**< another operation is in flight */
	YING_ENOTSUP = -10,     /**< feature not compiled in or not possible */
	YING_ELIMIT = -11,      /**< a configured bound was exceeded */
	YING_ESYS = -12         /**< a system call failed; detail has errno */
} ying_err;

/** Fixed text for an error code; static, never NULL, never freed. */
YING_EXTERN const char *ying_strerror(int err);

/**
 * Detail of the last error on this thread, e.g. "now.heap:17: expected
 * 't*:' after '@' line".  Never NULL ("" when there is none).  Owned by the
 * library; valid until the next libying call on this thread.
 */
YING_EXTERN const char *ying_last_error(void);

/** Release a buffer that libying returned through an out-parameter. */
YING_EXTERN void ying_free(void *p);

/* ------------------------------------------------------------------------ */
/* Sinks                                                                     */
/* ------------------------------------------------------------------------ */

/**
 * A sink receives output bytes.  Return 0 on success or a negative ying_err;
 * the writer stops at the first failure and returns that code.
 */
typedef int (*ying_write_fn)(void *opaque, const void *data, size_t len);

/** A ready sink for a FILE *: pass the FILE * as opaque. */
YING_EXTERN int ying_write_file(void *opaque, const void *data, size_t len);

/**
 * A growable memory buffer usable as a sink with ying_write_membuf.
 * Initialise with YING_MEMBUF_INIT.  `data` is malloc'd by the library and
 * NUL-terminated; take it (and free it with ying_free) or release the buffer
 * with ying_membuf_release().  `max` bounds the size (0 = unbounded); a
 * write past it fails with YING_ELIMIT.
 */
typedef struct ying_membuf {
	char *data;
	size_t len;
	size_t cap;
	size_t max;
} ying_membuf;
#define YING_MEMBUF_INIT { NULL, 0, 0, 0 }
YING_EXTERN int ying_write_membuf(void *opaque, const void *data, size_t len);
YING_EXTERN void ying_membuf_release(ying_membuf *b);

/* ------------------------------------------------------------------------ */
/* Profiles                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct ying_profile ying_profile;

/** Which value a report shows (jeprof's --inuse_space etc.). */
typedef enum ying_sample_index {
	YING_INUSE_SPACE = 0,   /**< bytes live at dump time (default) */
	YING_INUSE_OBJECTS = 1, /**< objects live at dump time */
	YING_ALLOC_SPACE = 2,   /**< bytes allocated since start; needs prof_accum */
	YING_ALLOC_OBJECTS = 3  /**< objects allocated since start; needs prof_accum */
} ying_sample_index;

/** Parse "inuse_space", "inuse_objects", "alloc_space", "alloc_objects". */
YING_EXTERN int ying_sample_index_parse(const char *name,
    ying_sample_index *out);
/** The name of a sample index; static string. */
YING_EXTERN const char *ying_sample_index_name(ying_sample_index idx);

/**
 * Read a profile from a file: a jemalloc heap_v2 dump, plain or gzipped, or
 * a pprof profile written by ying (gzipped profile.proto).  "-" reads stdin.
 * On success *out is a new profile; release it with ying_profile_free().
 */
YING_EXTERN int ying_profile_read_file(ying_profile **out, const char *path);

/**
 * Read a profile from memory (same formats).  `name` labels error messages
 * and reports (may be NULL).  The buffer is not retained.
 */
YING_EXTERN int ying_profile_read_mem(ying_profile **out, const void *data,
    size_t len, const char *name);

YING_EXTERN void ying_profile_free(ying_profile *p);

/** Sampling period in bytes (2^lg_prof_sample; 1 = every allocation). */
YING_EXTERN uint64_t ying_profile_period(const ying_profile *p);
/** 1 when the dump carries cumulative (prof_accum) counts, else 0. */
YING_EXTERN int ying_profile_has_alloc(const ying_profile *p);
/** Number of distinct stacks in the dump. */
YING_EXTERN size_t ying_profile_nstacks(const ying_profile *p);
/** Dump time in seconds since the epoch (file mtime or read time). */
YING_EXTERN int64_t ying_profile_time(const ying_profile *p);
/** Program path (main executable from the mappings); owned by p; may be "". */
YING_EXTERN const char *ying_profile_program(const ying_profile *p);

/**
 * Unsampled total for a sample index, computed exactly like jeprof's
 * AdjustSamples (per stack, double precision, summed).  Fails with
 * YING_ENODATA for alloc_* on a dump without prof_accum data.
 */
YING_EXTERN int ying_profile_total(const ying_profile *p,
    ying_sample_index idx, double *out);

/* ------------------------------------------------------------------------ */
/* Symbolization                                                             */
/* ------------------------------------------------------------------------ */

/**
 * A symbolizer caches opened ELF modules and resolved addresses, so that a
 * long-running process (the HTTP endpoint) pays for each module once.  It is
 * safe to use one symbolizer from several threads; calls are serialised.
 */
typedef struct ying_symbolizer ying_symbolizer;

YING_EXTERN int ying_symbolizer_new(ying_symbolizer **out);
YING_EXTERN void ying_symbolizer_free(ying_symbolizer *s);

#define YING_SYMBOLIZE_OPTS_VERSION 1
typedef struct ying_symbolize_opts {
	int version;
	/** Path that replaces the main executable's path from the mappings
	 *  (jeprof's program argument).  NULL keeps the dump's path. */
	const char *binary;
	/** Extended regex; leading frames whose function matches are dropped
	 *  too (in addition to jemalloc and allocator entry points). */
	const char *drop_frames;
	/** Keep jemalloc and allocator frames (do not trim). */
	int keep_allocator_frames;
	/** Print warnings (missing binaries, ...) to this stream; NULL = none. */
	FILE *warnings;
} ying_symbolize_opts;
#define YING_SYMBOLIZE_OPTS_INIT { YING_SYMBOLIZE_OPTS_VERSION, NULL, NULL, 0, NULL }

/**
 * Resolve every address of p to functions, inline frames and file:line, and
 * trim allocator frames.  `s` may be NULL (a private symbolizer is used and
 * freed).  A missing or moved binary is not an error: its frames become
 * "module+0xoffset" and one warning is printed.  Calling it twice is a
 * no-op.  Every writer symbolizes on demand with default options, so calling
 * this is only needed for non-default options or a shared cache.
 */
YING_EXTERN int ying_profile_symbolize(ying_profile *p, ying_symbolizer *s,
    const ying_symbolize_opts *opts);

/* ------------------------------------------------------------------------ */
/* Reports: top table                                                        */
/* ------------------------------------------------------------------------ */

typedef enum ying_granularity {
	YING_BY_FUNCTION = 0,  /**< one row per function */
	YING_BY_LINE = 1,      /**< one row per function and file:line */
	YING_BY_STACK = 2      /**< one row per whole stack */
} ying_granularity;

#define YING_TOP_OPTS_VERSION 1
typedef struct ying_top_opts {
	int version;
	ying_sample_index sample_index;
	ying_granularity granularity;
	size_t limit;           /**< rows to print; 0 = all */
	const char *focus;      /**< keep stacks with a frame matching (ERE) */
	const char *ignore;     /**< drop stacks with a frame matching (ERE) */
	int json;               /**< one JSON object instead of text */
	int sort_cum;           /**< sort by cumulative value */
} ying_top_opts;
#define YING_TOP_OPTS_INIT { YING_TOP_OPTS_VERSION, YING_INUSE_SPACE, \
	YING_BY_FUNCTION, 0, NULL, NULL, 0, 0 }

/**
 * Write the per-function (or per-line, per-stack) table of p.  Text output
 * starts with a summary line; JSON output is one object:
 * {"total":N,"unit":"bytes"|"objects","sample_index":"...","rows":[
 *  {"function":..,"file":..,"line":..,"flat":..,"cum":..}, ...]}.
 */
YING_EXTERN int ying_profile_write_top(ying_profile *p,
    const ying_top_opts *opts, ying_write_fn fn, void *opaque);

/* ------------------------------------------------------------------------ */
/* Formats: pprof, folded, SVG flame graph                                   */
/* ------------------------------------------------------------------------ */

#define YING_PPROF_OPTS_VERSION 1
typedef struct ying_pprof_opts {
	int version;
	int unsymbolized;          /**< addresses and mappings only */
	int keep_allocator_frames; /**< do not trim jemalloc/malloc frames */
	int gzip;                  /**< gzip the output (default 1) */
} ying_pprof_opts;
#define YING_PPROF_OPTS_INIT { YING_PPROF_OPTS_VERSION, 0, 0, 1 }

/** Write p as a pprof profile.proto (gzipped unless opts->gzip is 0). */
YING_EXTERN int ying_profile_write_pprof(ying_profile *p,
    const ying_pprof_opts *opts, ying_write_fn fn, void *opaque);

#define YING_FOLDED_OPTS_VERSION 1
typedef struct ying_folded_opts {
	int version;
	ying_sample_index sample_index;
	int lines;                 /**< append (file:line) to frame names */
} ying_folded_opts;
#define YING_FOLDED_OPTS_INIT { YING_FOLDED_OPTS_VERSION, YING_INUSE_SPACE, 0 }

/** Collapsed stacks: root first, ';'-joined, space, integer value. */
YING_EXTERN int ying_profile_write_folded(ying_profile *p,
    const ying_folded_opts *opts, ying_write_fn fn, void *opaque);

#define YING_SVG_OPTS_VERSION 1
typedef struct ying_svg_opts {
	int version;
	ying_sample_index sample_index;
	unsigned width;            /**< pixels; 0 = 1200 */
	const char *title;         /**< NULL = a default naming the index */
	const char *subtitle;      /**< NULL = total, rate, program, time */
	int icicle;                /**< root at the top */
	double min_width;          /**< prune frames narrower (pixels); 0 = 0.1 */
} ying_svg_opts;
#define YING_SVG_OPTS_INIT { YING_SVG_OPTS_VERSION, YING_INUSE_SPACE, 0, \
	NULL, NULL, 0, 0.0 }

/** One self-contained interactive SVG flame graph. */
YING_EXTERN int ying_profile_write_svg(ying_profile *p,
    const ying_svg_opts *opts, ying_write_fn fn, void *opaque);

/* ------------------------------------------------------------------------ */
/* Diff                                                                      */
/* ------------------------------------------------------------------------ */

typedef struct ying_diff ying_diff;

/**
 * NOW minus BASE, each unsampled at its own rate, stacks matched by their
 * symbolized frames (addresses only where no symbol exists).  Both profiles
 * are symbolized on demand and must outlive the diff.  Release with
 * ying_diff_free().
 */
YING_EXTERN int ying_diff_new(ying_diff **out, ying_profile *base,
    ying_profile *now, ying_sample_index idx);
YING_EXTERN void ying_diff_free(ying_diff *d);

/** Totals of the diff's sample index: base, now, now - base. */
YING_EXTERN void ying_diff_totals(const ying_diff *d, double *base,
    double *now, double *delta);

#define YING_DIFF_OPTS_VERSION 1
typedef struct ying_diff_opts {
	int version;
	size_t limit;              /**< rows per section; 0 = 20 */
	double min_delta;          /**< hide rows with |delta| below this */
	int json;
	ying_granularity granularity;
} ying_diff_opts;
#define YING_DIFF_OPTS_INIT { YING_DIFF_OPTS_VERSION, 0, 0.0, 0, \
	YING_BY_FUNCTION }

YING_EXTERN int ying_diff_write_text(ying_diff *d, const ying_diff_opts *opts,
    ying_write_fn fn, void *opaque);
/** Two-column folded form: "stack base now" per line. */
YING_EXTERN int ying_diff_write_folded(ying_diff *d, ying_write_fn fn,
    void *opaque);
/** Differential flame graph: widths from NOW, red grew, blue shrank. */
YING_EXTERN int ying_diff_write_svg(ying_diff *d, const ying_svg_opts *opts,
    ying_write_fn fn, void *opaque);
/** NOW minus BASE as pprof (negative values allowed). */
YING_EXTERN int ying_diff_write_pprof(ying_diff *d,
    const ying_pprof_opts *opts, ying_write_fn fn, void *opaque);

/* ------------------------------------------------------------------------ */
/* Size parsing helper (shared by the front ends)                            */
/* ------------------------------------------------------------------------ */

/** Parse "10MiB", "512k", "1.5GB", "4096" into bytes (binary units). */
YING_EXTERN int ying_parse_size(const char *s, double *out);

#ifdef __cplusplus
}
#endif
#endif /* YING_H */
