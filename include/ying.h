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
 *    '@' line").  Every entry point that can fail clears the detail when it
 *    starts, so after a success it is empty, never a stale earlier failure
 *    (ying_runner_trigger, which runs in signal handlers, leaves it alone).
 *    Test the code, never the message.
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
YING_EXTERN int ying_sample_index_parse(ying_sample_index *out,
    const char *name);
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
YING_EXTERN int ying_profile_total(double *out, const ying_profile *p,
    ying_sample_index idx);

/* ------------------------------------------------------------------------ */
/* Symbolization                                                             */
/* ------------------------------------------------------------------------ */

/**
 * A symbolizer caches opened ELF modules and resolved addresses, so that a
 * long-running process (the HTTP endpoint) pays for each module once.  It is
 * safe to use one symbolizer from several threads; calls are serialised.
 */
typedef struct ying_symbolizer ying_symbolizer;

/**
 * On success *out is a new, empty symbolizer; release it with
 * ying_symbolizer_free() once no call uses it any more.  It keeps at most
 * 64 ELF files open (least recently used closed first) and a bounded
 * address cache per file; profiles never point into it.
 */
YING_EXTERN int ying_symbolizer_new(ying_symbolizer **out);
YING_EXTERN void ying_symbolizer_free(ying_symbolizer *s);
/**
 * Drop what s can read again, keep what it has resolved: closes every
 * cached file's ELF and separate debug info (libdw's decompressed DWARF,
 * the sorted symbol table, the per-unit indexes), keeps the name, file and
 * line of every address already resolved.  A later call checks each file
 * as always (device, inode, size, time; the call sites through a plain
 * read-only mapping) and opens it with its debug info again only for an
 * address not resolved before; a profile whose addresses were all resolved
 * reads no debug info.  Frees nothing the caller holds; s stays usable.  Thread
 * safe: waits for a symbolization running on s in another thread.
 * 0, or YING_EINVAL when s is NULL; the thread's last error detail is left
 * as it was, so it may follow a failed call.
 */
YING_EXTERN int ying_symbolizer_trim(ying_symbolizer *s);

#define YING_SYMBOLIZE_OPTS_VERSION 2
typedef struct ying_symbolize_opts {
	int version;
	/** Path that replaces the main executable's path from the mappings
	 *  (jeprof's program argument).  NULL keeps the dump's path.  It is
	 *  checked like any file (build ID, layout, call sites); one that does
	 *  not match, or that no mapping uses, gets a warning. */
	const char *binary;
	/** Extended regex; leading frames whose function matches are dropped
	 *  too (in addition to jemalloc and allocator entry points). */
	const char *drop_frames;
	/** Keep jemalloc and allocator frames, and the leading frames of
	 *  well-known allocator wrappers (zmalloc, _PyObject_Malloc, g_malloc,
	 *  CRYPTO_malloc, xmalloc, ...: ying(1) ALLOCATOR FRAMES); by default
	 *  they are trimmed. */
	int keep_allocator_frames;
	/** Print warnings (missing binaries, ...) to this stream; NULL = none. */
	FILE *warnings;
	/** (version >= 2) Directories, separated by ':', searched for the
	 *  files the dump mapped before the dump's own paths: DIR/PATH (a copy
	 *  of the machine's tree), then DIR/BASENAME.  A file found there is
	 *  checked like --binary (build ID, layout, call sites).  NULL = none.
	 *  The string is the caller's; it is not kept after the call. */
	const char *search_path;
} ying_symbolize_opts;
#define YING_SYMBOLIZE_OPTS_INIT { YING_SYMBOLIZE_OPTS_VERSION, NULL, NULL, 0, NULL, NULL }

/**
 * Resolve every address of p to functions, inline frames and file:line, and
 * trim allocator frames.  `s` may be NULL (a private symbolizer is used and
 * freed).  A missing or moved binary is not an error: its frames become
 * "module+0xoffset" and one warning is printed.  So do the frames of a file
 * that is not the one the dump mapped (other build ID, replaced, modified
 * after the dump, other layout): never a name from the wrong file.  Calling it twice is a
 * no-op.  A pprof profile with function names needs no symbolizer, but its
 * frames are trimmed (and opts' drop_frames / keep_allocator_frames
 * honoured) like a dump's.  The public writers and ying_diff_build run this
 * step with default options on a profile not symbolized yet, so calling it
 * is only needed for non-default options or a shared cache.  p is modified
 * in place; nothing to free.
 */
YING_EXTERN int ying_profile_symbolize(ying_profile *p, ying_symbolizer *s,
    const ying_symbolize_opts *opts);

/* ------------------------------------------------------------------------ */
/* Reports: top table                                                        */
/* ------------------------------------------------------------------------ */

typedef enum ying_granularity {
	YING_BY_FUNCTION = 0,  /**< one row per function */
	YING_BY_LINE = 1,      /**< one row per function and file:line */
	YING_BY_STACK = 2,     /**< one row per whole stack */
	YING_BY_ADDRESS = 3,   /**< one row per address (ying_jeprof_opts only) */
	YING_BY_FILE = 4       /**< one row per source file (ying_jeprof_opts only) */
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
	/** Deprecated: trimming is ying_profile_symbolize's
	 *  (ying_symbolize_opts.keep_allocator_frames); the writer writes
	 *  the frames the profile holds and ignores this.  Only with
	 *  `unsymbolized` it still leaves out the drop_frames regex that asks
	 *  pprof to drop allocator frames after symbolizing (left out too
	 *  when p was trimmed with keep_allocator_frames). */
	int keep_allocator_frames;
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

/**
 * Collapsed stacks: one line per distinct stack, function names root first
 * joined by ';', a space, and the value of opts->sample_index truncated
 * toward zero (jeprof --collapsed).  Inlined frames carry the suffix
 * "[inline]"; opts->lines appends " (file:line)".  Lines are sorted by
 * their text; equal stacks are summed first; zero lines are left out.
 * ';' in a name is written as ':'.  Nothing is allocated for the caller.
 */
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
	const char *focus;         /**< keep stacks with a frame matching (ERE) */
	const char *ignore;        /**< drop stacks with a frame matching (ERE) */
} ying_svg_opts;
#define YING_SVG_OPTS_INIT { YING_SVG_OPTS_VERSION, YING_INUSE_SPACE, 0, \
	NULL, NULL, 0, 0.0, NULL, NULL }

/**
 * One self-contained interactive SVG flame graph of p (no external files,
 * fonts or scripts): hover for details, click to zoom, Ctrl-F to search.
 * Colours are a hash of the function name, so they agree across files; the
 * same profile and options always give the same bytes.  Frames narrower
 * than opts->min_width pixels are left out.  Nothing is allocated for the
 * caller.
 */
YING_EXTERN int ying_profile_write_svg(ying_profile *p,
    const ying_svg_opts *opts, ying_write_fn fn, void *opaque);

/* ------------------------------------------------------------------------ */
/* Call graph: DOT (jeprof --dot) and Graphviz rendering                     */
/* ------------------------------------------------------------------------ */

#define YING_DOT_OPTS_VERSION 1
typedef struct ying_dot_opts {
	int version;
	ying_sample_index sample_index;
	ying_granularity granularity;  /**< YING_BY_FUNCTION or YING_BY_LINE
	                                    (function + file:line nodes);
	                                    others: YING_EINVAL */
	size_t nodecount;              /**< keep at most this many nodes;
	                                    0 = 80 (jeprof) */
	double nodefraction;           /**< drop nodes whose cum < this
	                                    fraction of the total; < 0 = 0.005 */
	double edgefraction;           /**< drop edges below this fraction of
	                                    the total; < 0 = 0.001 */
	int maxdegree;                 /**< keep at most this many in- and
	                                    out-edges per node; 0 = 8 */
	const char *focus;             /**< keep stacks with a frame matching (ERE) */
	const char *ignore;            /**< drop stacks with a frame matching (ERE) */
	const char *title;             /**< NULL = program name from the profile */
	int show_bytes;                /**< space values in bytes instead of MB */
} ying_dot_opts;
#define YING_DOT_OPTS_INIT { YING_DOT_OPTS_VERSION, YING_INUSE_SPACE, \
	YING_BY_FUNCTION, 0, -1.0, -1.0, 0, NULL, NULL, NULL, 0 }

/**
 * The call graph of p as a Graphviz DOT text, jeprof --dot's graph: one
 * node per function (or function and line) sized by its flat value, one
 * edge per caller -> callee pair weighted by the value flowing along it,
 * nodes and edges selected like jeprof (nodefraction, nodecount,
 * edgefraction, maxdegree) and a legend (program, Total, what was
 * dropped).  Values may be negative (a subtracted profile): sizes use the
 * absolute value, labels the signed one.  The same profile and options
 * always give the same bytes.  Symbolizes p with defaults first when it
 * has not been.  Nothing is allocated for the caller.
 */
YING_EXTERN int ying_profile_write_dot(ying_profile *p,
    const ying_dot_opts *opts, ying_write_fn fn, void *opaque);

/**
 * Run Graphviz `dot -T<format>` (format "svg", "pdf" or "png") on the DOT
 * text dot[0..len) and stream its output to fn.  Errors: YING_EINVAL
 * (another format), YING_ENOTFOUND when `dot` is not on PATH (detail
 * "Graphviz 'dot' not found on PATH: install graphviz (apt-get install
 * graphviz)"), YING_EPARSE when dot exits non-zero (detail: the first line
 * of its stderr), YING_ESYS / YING_EIO, or fn's own error.  Nothing is
 * allocated for the caller.  Not async-signal-safe (spawns a process).
 */
YING_EXTERN int ying_graphviz_render(const char *format, const void *dot,
    size_t len, ying_write_fn fn, void *opaque);

/* ------------------------------------------------------------------------ */
/* Diff                                                                      */
/* ------------------------------------------------------------------------ */

typedef struct ying_diff ying_diff;

/**
 * NOW minus BASE, each unsampled at its own rate, stacks matched by their
 * symbolized frames (addresses only where no symbol exists).  Both profiles
 * are symbolized on demand and must outlive the diff.  Release with
 * ying_diff_free().  A thin wrapper kept for compatibility: exactly
 * ying_diff_build() with options that set only sample_index = idx.
 */
YING_EXTERN int ying_diff_new(ying_diff **out, ying_profile *base,
    ying_profile *now, ying_sample_index idx);
YING_EXTERN void ying_diff_free(ying_diff *d);

#define YING_DIFF_BUILD_OPTS_VERSION 1
typedef struct ying_diff_build_opts {
	int version;
	ying_sample_index sample_index;
	/** Keep only stacks (on both sides) with a frame matching this ERE
	 *  (function name or file:line); NULL = all.  Totals, rows and
	 *  every output then cover the kept stacks only. */
	const char *focus;
	/** Drop stacks (on both sides) with a frame matching this ERE. */
	const char *ignore;
} ying_diff_build_opts;
#define YING_DIFF_BUILD_OPTS_INIT { YING_DIFF_BUILD_OPTS_VERSION, \
	YING_INUSE_SPACE, NULL, NULL }

/**
 * The one diff constructor (ying_diff_new() is a wrapper of it): NOW minus
 * BASE with options (sample index, --focus, --ignore); opts may be NULL.  The strings in opts are not retained.  Both profiles must
 * outlive the diff; release it with ying_diff_free().
 */
YING_EXTERN int ying_diff_build(ying_diff **out, ying_profile *base,
    ying_profile *now, const ying_diff_build_opts *opts);

/** Totals of the diff's sample index: base, now, now - base.  With a
 *  focus/ignore filter these cover the kept stacks.  Any pointer may be
 *  NULL. */
YING_EXTERN void ying_diff_totals(const ying_diff *d, double *base,
    double *now, double *delta);

/** Stacks after matching: in both dumps, only in NOW (new), only in BASE
 *  (gone), counted over the diff's sample index.  Any pointer may be NULL. */
YING_EXTERN void ying_diff_stack_counts(const ying_diff *d, size_t *matched,
    size_t *added, size_t *gone);

/** A warning about the diff, or NULL: "BASE is /x/foo, NOW is /y/bar: these
 *  look like different programs" when the main executables' file names
 *  differ (and they do not share a GNU build ID).  The diff is still
 *  valid.  The string belongs to the diff (freed by ying_diff_free()). */
YING_EXTERN const char *ying_diff_warning(const ying_diff *d);

#define YING_DIFF_OPTS_VERSION 2   /* 2 added `cum`; 1 is still accepted */
typedef struct ying_diff_opts {
	int version;
	/** Rows per section (growth, shrink, new stacks); 0 = 20 for text;
	 *  for JSON 0 = every row and the largest 100 stacks of each stack
	 *  list (new_stacks, gone_stacks, stack rows); SIZE_MAX = all. */
	size_t limit;
	/** Hide rows and stacks whose change is below this: rows by the
	 *  change they are ranked by (flat delta, or cum delta with `cum`),
	 *  stacks by their delta.  Changes below one byte (one object) are
	 *  never listed. */
	double min_delta;
	/** One JSON object: {"base_total","now_total","delta","unit",
	 *  "sample_index","rows":[{"function","file","line","base","now",
	 *  "delta","cum_base","cum_now","cum_delta"}],"new_stacks":[...]};
	 *  rows are the functions (lines) whose flat value changed. */
	int json;
	ying_granularity granularity;
	/** 0: flat lists (functions whose flat value changed, ranked and
	 *  min_delta-filtered by it); 1: cumulative lists (the same with the
	 *  cumulative value).  Ignored by YING_BY_STACK. */
	int cum;
} ying_diff_opts;
#define YING_DIFF_OPTS_INIT { YING_DIFF_OPTS_VERSION, 0, 0.0, 0, \
	YING_BY_FUNCTION, 0 }

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
/* jeprof's reports (ying-jeprof)                                            */
/* ------------------------------------------------------------------------ */

#define YING_JEPROF_OPTS_VERSION 1
typedef struct ying_jeprof_opts {
	int version;
	ying_sample_index sample_index;
	/** YING_BY_FUNCTION (jeprof --functions, the default), YING_BY_LINE
	 *  (--lines), YING_BY_ADDRESS (--addresses) or YING_BY_FILE (--files);
	 *  YING_BY_STACK is YING_EINVAL. */
	ying_granularity granularity;
	const char *focus;      /**< keep stacks with a frame matching (ERE) */
	const char *ignore;     /**< drop stacks with a frame matching (ERE) */
	int sort_cum;           /**< sort by cumulative value (--cum) */
	int show_bytes;         /**< space in bytes ("B"), not MB (--show_bytes) */
	/** ERE: instead of the table, the annotated source of every function
	 *  whose name matches (jeprof --list); NULL = the table. */
	const char *list;
} ying_jeprof_opts;
#define YING_JEPROF_OPTS_INIT { YING_JEPROF_OPTS_VERSION, YING_INUSE_SPACE, \
	YING_BY_FUNCTION, NULL, NULL, 0, 0, NULL }

/**
 * jeprof's text report of p (jeprof --text): "Total: 119.7 MB" (left out
 * when the total is 0; MB with one decimal, or "B" with show_bytes, or
 * "objects"), then one row per function (line, address, file) as
 * "%8s %6s %6s %8s %6s %s": flat, flat%, running sum%, cum, cum%, name,
 * sorted by flat (or cum) descending, ties by name, percentages of the
 * stacks kept by focus/ignore, rows with flat = cum = 0 left out.  Inlined
 * frames are named "NAME (inline)" as jeprof does.  With opts->list, the
 * annotated source instead (jeprof --list): for every matching function a
 * "ROUTINE ====== NAME in FILE" header, its flat / cumulative total, and
 * the source lines around the lines holding memory with their values
 * ("." for none), or a note when the source file cannot be read.  Names
 * come from ying's symbolization (p is symbolized with defaults first when
 * it is not yet).  Nothing is allocated for the caller.
 */
YING_EXTERN int ying_profile_write_jeprof(ying_profile *p,
    const ying_jeprof_opts *opts, ying_write_fn fn, void *opaque);

/**
 * jeprof's symbolized-profile form (jeprof --raw): a "--- symbol" section
 * ("binary=PROGRAM" when program is not NULL, then one "0xADDRESS NAME"
 * line per address, the names of an inline chain outermost first joined by
 * "--"), "---", "--- heap", then p as a heap_v2 dump whose stacks hold the
 * frames ying keeps (allocator frames trimmed) and its MAPPED_LIBRARIES.
 * `jeprof --text FILE` reads it without the binaries.  p must come from a
 * heap_v2 dump (YING_ENOTSUP otherwise: a pprof or a merged profile has no
 * raw counts).  Nothing is allocated for the caller.
 */
YING_EXTERN int ying_profile_write_raw(ying_profile *p, const char *program,
    ying_write_fn fn, void *opaque);

#define YING_MERGE_OPTS_VERSION 1
typedef struct ying_merge_opts {
	int version;
	/** Stacks whose value would be negative get 0 (jeprof --drop_negative). */
	int drop_negative;
} ying_merge_opts;
#define YING_MERGE_OPTS_INIT { YING_MERGE_OPTS_VERSION, 0 }

/**
 * A new profile: the sum of profiles[0..n) (n >= 1) minus base (NULL =
 * none), jeprof's "several profiles are summed" and --base.  Stacks are
 * matched by their symbolized frames (function, line, inline flag), as
 * yingdiff matches them, so ASLR and redeploys do not break the match;
 * each profile is symbolized with defaults first unless it was already
 * (symbolize first for --binary and other options).  Each of the four
 * values is summed after unsampling at each profile's own rate; alloc_*
 * are there only when every input has them.  The result is symbolized and
 * trimmed, may hold negative values, and has no raw counts (so
 * ying_profile_write_raw refuses it).  The inputs are only read and may be
 * freed afterwards; release *out with ying_profile_free().
 */
YING_EXTERN int ying_profile_merge(ying_profile **out,
    ying_profile *const *profiles, size_t n, ying_profile *base,
    const ying_merge_opts *opts);

/* ------------------------------------------------------------------------ */
/* Control (the running jemalloc, through mallctl)                          */
/* ------------------------------------------------------------------------ */

/*
 * These calls talk to the jemalloc inside the calling process.  mallctl is
 * found at run time: the function given to ying_ctl_use(), otherwise
 * dlsym(RTLD_DEFAULT) of "mallctl", "_rjem_mallctl", "je_mallctl", otherwise
 * the same names in the static symbol table (.symtab) of each loaded object
 * (a statically linked jemalloc: Rust's jemalloc-sys, libjemalloc.a),
 * accepted only if it answers "version".  libying never loads jemalloc itself.
 * Errors: YING_ENOJEMALLOC (none found; a stripped program that links
 * jemalloc statically needs its symbols or ying_ctl_use), YING_ENOPROF (built without --enable-prof, or
 * the process was started without MALLOC_CONF=prof:true; use
 * prof:true,prof_active:false for a zero-cost standby).  The detail names
 * the fix.  Every ying_ctl_* call is thread-safe; dumps are serialised.
 */

/** jemalloc's mallctl signature. */
typedef int (*ying_mallctl_fn)(const char *name, void *oldp, size_t *oldlenp,
    void *newp, size_t newlen);
/** jemalloc's malloc_stats_print signature. */
typedef void (*ying_stats_print_fn)(void (*write_cb)(void *, const char *),
    void *cbopaque, const char *opts);

/**
 * Use this mallctl (e.g. tikv_jemalloc_sys::mallctl, which is
 * `_rjem_mallctl`) instead of searching with dlsym.  Fails with YING_EINVAL
 * if fn does not answer "version" like jemalloc.  NULL returns to dlsym.
 */
YING_EXTERN int ying_ctl_use(ying_mallctl_fn fn);
/** Same for malloc_stats_print (otherwise found with the mallctl prefix). */
YING_EXTERN void ying_ctl_use_stats_print(ying_stats_print_fn fn);

/**
 * The mallctl the ying_ctl_* calls use (found as above), for a caller that
 * needs a node libying has no call for (the agent: experimental.hooks.*);
 * NULL when there is none (the reason in ying_last_error()).  Nothing to
 * free; the function stays valid for the life of the process.
 */
YING_EXTERN ying_mallctl_fn ying_ctl_mallctl(void);
/** 0 when heap profiling can be used, else YING_ENOJEMALLOC/YING_ENOPROF
 *  with the reason and its fix in ying_last_error(). */
YING_EXTERN int ying_ctl_available(void);

/** The profiler's state (filled by ying_ctl_status_get; nothing to free). */
typedef struct ying_ctl_status {
	char version[128];        /**< jemalloc's version string */
	char mallctl_symbol[32];  /**< "mallctl", "_rjem_mallctl", ... or "caller" */
	int config_prof;          /**< built with --enable-prof */
	int opt_prof;             /**< started with prof:true */
	int prof_active;          /**< prof.active: sampling on */
	int opt_prof_accum;       /**< cumulative counts are kept */
	int thread_active_init;   /**< new threads sample */
	unsigned lg_sample;       /**< prof.lg_sample: period is 2^lg_sample bytes */
	uint64_t interval;        /**< prof.interval in bytes; 0 = no interval dumps */
	char mallctl_how[16];     /**< how it was found: "dlsym", ".symtab" (or
	                               ".dynsym" of an object dlsym does not see), "caller" */
	char mallctl_file[256];   /**< the object defining it ("" for "caller") */
} ying_ctl_status;

/** Read the status.  Needs jemalloc only (works without prof:true). */
YING_EXTERN int ying_ctl_status_get(ying_ctl_status *st);

/**
 * prof.active: on = 1 starts sampling, 0 stops it, -1 only reads.  The
 * previous value goes to *old (may be NULL).  Dumps work either way.
 */
YING_EXTERN int ying_ctl_active(int *old, int on);

/** thread.prof.active of the calling thread (same on/old convention). */
YING_EXTERN int ying_ctl_thread_active(int *old, int on);

/**
 * prof.reset: drop every sample collected so far and sample from now on
 * with a period of 2^lg_sample bytes (0..63; -1 keeps the current rate).
 */
YING_EXTERN int ying_ctl_reset(int lg_sample);

/** thread.prof.name of the calling thread (printable characters, space,
 *  tab).  YING_ENOTSUP when jemalloc runs with prof_sys_thread_name. */
YING_EXTERN int ying_ctl_thread_name_set(const char *name);
/** The calling thread's profile name ("" if unset) in a new buffer; the
 *  caller frees *out with ying_free(). */
YING_EXTERN int ying_ctl_thread_name_get(char **out);

/** Dump the heap profile (heap_v2) to a file that jemalloc creates or
 *  truncates with mode 0644; libying then appends one "ying-build-id:"
 *  line per loaded object with a GNU build ID (jeprof and pprof skip
 *  them; ying checks the files against them). */
YING_EXTERN int ying_ctl_dump_file(const char *path);

/**
 * Dump the heap profile into memory (memfd, or a private 0700 temporary
 * directory that is removed again).  *out is a NUL-terminated heap_v2 text
 * of *len bytes, ending with the "ying-build-id:" lines of
 * ying_ctl_dump_file(); the caller frees it with ying_free().
 */
YING_EXTERN int ying_ctl_dump_mem(char **out, size_t *len);

/** Dump and parse: *out is a new profile; release it with
 *  ying_profile_free(). */
YING_EXTERN int ying_ctl_dump_profile(ying_profile **out);

/** Allocator statistics in bytes, refreshed (`epoch`) by each call. */
typedef struct ying_ctl_stats {
	uint64_t allocated, active, metadata, resident, mapped, retained;
} ying_ctl_stats;
YING_EXTERN int ying_ctl_stats_get(ying_ctl_stats *st);

/** malloc_stats_print(..., "J"): jemalloc's full statistics as JSON in a
 *  new NUL-terminated buffer (*len bytes, len may be NULL); the caller frees
 *  *out with ying_free(). */
YING_EXTERN int ying_ctl_stats_json(char **out, size_t *len);

/** Where an ELF file defines jemalloc (ying_jem_elf.where). */
enum {
	YING_JEM_NONE = 0,      /**< no jemalloc defined in the file */
	YING_JEM_DYNSYM = 1,    /**< exported (.dynsym): dlsym finds it */
	YING_JEM_SYMTAB = 2,    /**< only in .symtab: linked statically, not exported */
	YING_JEM_STRIPPED = 3   /**< linked statically (its strings are there), but
	                             no .symtab: nothing can find its functions */
};
/** What jemalloc an ELF file defines (ying_jem_elf_read; nothing to free). */
typedef struct ying_jem_elf {
	int where;              /**< YING_JEM_* */
	char symbol[32];        /**< "mallctl", "_rjem_mallctl", "je_mallctl";
	                             "" unless DYNSYM or SYMTAB */
	char prefix[16];        /**< "", "_rjem_", "je_" (not NONE) */
	char conf_var[32];      /**< its variable: "MALLOC_CONF",
	                             "_RJEM_MALLOC_CONF", ... ("" for NONE) */
	int stripped;           /**< 1: the file has no .symtab */
} ying_jem_elf;
/**
 * Read path's .dynsym and .symtab (and, without .symtab, its read-only
 * strings) and say which jemalloc it defines: the same rule the control
 * layer applies to the loaded objects when dlsym finds no mallctl, so that
 * a launcher (`ying run`) decides as the agent will.  0 with *out filled
 * (where may be YING_JEM_NONE), or YING_ENOTFOUND / YING_EIO (cannot
 * open), YING_EPARSE (not ELF).
 */
YING_EXTERN int ying_jem_elf_read(const char *path, ying_jem_elf *out);

/* ------------------------------------------------------------------------ */
/* HTTP endpoint                                                             */
/* ------------------------------------------------------------------------ */

/*
 * An embedded HTTP server (libmicrohttpd; YING_ENOTSUP when libying was
 * built without it) serving heap dumps in every format, growth profiles,
 * named snapshots and diffs, profiler control, and jeprof's and Go pprof's
 * remote protocols.  Endpoints (GET / lists them): /debug/heap
 * (?format=raw|pprof|folded|svg|text|json), /debug/pprof/heap (gzipped
 * pprof; ?seconds=N for growth over N seconds), /debug/heap/flamegraph,
 * /debug/heap/snapshot (POST ?name=N), /debug/heap/diff?base=N, /debug/prof,
 * POST /debug/prof/active?on=0|1, POST /debug/prof/sample?lg=N,
 * /debug/stats, /pprof/heap, /pprof/symbol, /pprof/cmdline,
 * /debug/pprof/symbol.  The server's threads never sample, block every
 * signal, and may be started from any thread (e.g. one spawned by a
 * constructor).
 */
typedef struct ying_http ying_http;

#define YING_HTTP_OPTS_VERSION 2   /* 2 added `open`; 1 is still accepted */
typedef struct ying_http_opts {
	int version;
	/** "HOST:PORT", "[V6]:PORT" or ":PORT"; NULL = "127.0.0.1:6060".  Port 0
	 *  picks a free port (see ying_http_port).  "unix:/PATH": a Unix-domain
	 *  socket, created mode 0600 (an existing stale socket of this user is
	 *  replaced, anything else refused) and removed by ying_http_stop.
	 *  Copied. */
	const char *bind;
	/** When set, every request needs "Authorization: Bearer <token>"
	 *  (401 otherwise), and the token alone decides.  Without a token
	 *  (and without `open`) only the process's own effective user and
	 *  root are served: the owner of each connection's client socket is
	 *  looked up once per connection (SO_PEERCRED; for TCP the kernel's
	 *  socket table, NETLINK_SOCK_DIAG, else /proc/net/tcp), and any other
	 *  user, or a peer whose owner cannot be found, gets 403.  Copied. */
	const char *token;
	unsigned max_connections;   /**< concurrent connections; 0 = 64 (a new
	                                 client evicts the longest-idle one) */
	unsigned timeout_sec;       /**< idle connection timeout; 0 = 30 */
	unsigned max_seconds;       /**< bound of ?seconds=N; 0 = 300 */
	unsigned max_snapshots;     /**< named snapshots kept; 0 = 8 */
	size_t max_snapshot_bytes;  /**< their total size; 0 = 256 MiB */
	unsigned busy_wait_ms;      /**< wait for an in-flight dump, then 503; 0 = 2000 */
	size_t max_body;            /**< symbol POST body bound; 0 = 1 MiB */
	FILE *log;                  /**< one line per request; NULL = quiet */
	/** Comma-separated host names (or literal addresses) a request's
	 *  Host header may name besides loopback (localhost, 127.0.0.0/8,
	 *  [::1]) and the address the connection came in on; any other Host
	 *  is 403 (DNS rebinding).  NULL = none.  Copied. */
	const char *allow_hosts;
	/** Allow a non-loopback bind without a token (refused otherwise,
	 *  YING_EINVAL); such an endpoint serves every peer, as `open`. */
	int insecure;
	/** Serve every local user, not only the process's own user and root
	 *  (version 2; a version-1 struct has no such field: 0). */
	int open;
} ying_http_opts;
#define YING_HTTP_OPTS_INIT { YING_HTTP_OPTS_VERSION, NULL, NULL, 0, 0, 0, \
	0, 0, 0, 0, NULL, NULL, 0, 0 }

/** Start serving.  *out is the server; stop and free it with
 *  ying_http_stop(). */
YING_EXTERN int ying_http_start(ying_http **out, const ying_http_opts *opts);
/** The bound TCP port (useful with port 0; 0 for a Unix-domain socket), or
 *  a negative ying_err. */
YING_EXTERN int ying_http_port(const ying_http *h);
/** Stop: wake waiting requests, join every server thread, free h.  NULL is
 *  a no-op. */
YING_EXTERN void ying_http_stop(ying_http *h);
/** Would ying_http_start(opts) get its address?  Checks the options (token),
 *  parses and resolves opts->bind and listens there with a plain socket,
 *  then closes it; 0, or the error ying_http_start would give (YING_EINVAL
 *  for a bad address, option or unresolvable host, YING_ESYS when it cannot
 *  listen, YING_ENOTSUP without HTTP support).  Neither starts a server nor
 *  loads libmicrohttpd; nothing to free. */
YING_EXTERN int ying_http_check(const ying_http_opts *opts);
/** The listening socket of a running endpoint (still owned by h: never
 *  close it except in a forked child that drops its copy), or -1. */
YING_EXTERN int ying_http_listen_fd(const ying_http *h);

/* ------------------------------------------------------------------------ */
/* Growth runner                                                             */
/* ------------------------------------------------------------------------ */

/*
 * The growth runner watches the calling process's own heap from a
 * background thread and writes a report set whenever retained memory has
 * moved by opts->pct percent since the previous report (the first one once
 * it reaches opts->floor), so that `ls -l DIR` tells the story:
 *
 *   ying.2026-09-09T16:45:05-04:00.152MB.report   readable summary
 *   ying.2026-09-09T16:45:05-04:00.152MB.svg      flame graph
 *   ying.2026-09-09T16:45:05-04:00.152MB.heap     jemalloc's heap_v2 dump
 *   ying.2026-09-09T16:45:05-04:00.152MB.pb.gz    pprof (go tool pprof)
 *
 * The time is local time with its UTC offset; portable_names writes the
 * ISO 8601 basic form instead (ying.20260909T164505-0400.152MB.report), so
 * no ':' appears.  <N>MB is retained memory in MiB, rounded.
 *
 * "Retained memory" is the live heap: the unsampled inuse_space total of a
 * fresh dump (what `ying top` prints as Total), i.e. the bytes the program
 * holds, estimated from jemalloc's samples exactly like jeprof.  It leaves
 * out the runner's own work (its thread never samples), which
 * stats.allocated would not; jemalloc's own counters (allocated, active,
 * resident, mapped, retained) are printed in each .report for comparison.
 * Each check costs one dump (jemalloc: ~2 ms per 1000 stacks) and a parse;
 * symbolization and writing happen only for a report.
 *
 * Files appear atomically (written under a hidden temporary name in DIR,
 * then renamed; the .report last).  DIR is created with mode 0700 if
 * missing.  Only the runner's own files are ever removed: the oldest report
 * sets go once there are more than max_sets of them or they take more than
 * max_bytes.  A write error (full disk, ...) is reported once on opts->log
 * and never reaches the program; the runner keeps trying at each check.
 * Use one directory per process.
 */
typedef struct ying_runner ying_runner;

#define YING_RUNNER_OPTS_VERSION 1
typedef struct ying_runner_opts {
	int version;
	/** Report directory (created 0700 if missing).  Required; copied. */
	const char *dir;
	/** Seconds between checks (default 300).  <= 0: no periodic checks,
	 *  reports only on ying_runner_trigger(). */
	double interval;
	/** Change since the previous report, in percent of it, that triggers
	 *  a report (default 10; growth and shrinkage alike). */
	double pct;
	/** No report until retained memory reaches this many bytes for the
	 *  first time (default 20 MiB). */
	uint64_t floor;
	/** Names without ':' (ISO 8601 basic time). */
	int portable_names;
	/** Report sets kept in dir (default 64; 0 = no bound). */
	unsigned max_sets;
	/** Bytes of report files kept in dir (default 512 MiB; 0 = no bound). */
	uint64_t max_bytes;
	/** Stacks listed in each .report (default 10). */
	unsigned top;
	/** Where notices go (errors, once; with verbose, a line per report);
	 *  NULL = stderr. */
	FILE *log;
	/** One notice line per report set written. */
	int verbose;
	/** Program label for reports; NULL = the executable and its command
	 *  line from /proc/self.  Copied. */
	const char *program;
} ying_runner_opts;
#define YING_RUNNER_OPTS_INIT { YING_RUNNER_OPTS_VERSION, NULL, 300.0, 10.0, \
	(uint64_t)20 << 20, 0, 64, (uint64_t)512 << 20, 10, NULL, 0, NULL }

/**
 * Start the runner thread.  Fails with YING_ENOJEMALLOC/YING_ENOPROF when
 * heap profiling is not available (see ying_ctl_available), YING_EINVAL on
 * bad options, YING_EIO when dir cannot be created.  *out is the runner;
 * stop and free it with ying_runner_stop().
 */
YING_EXTERN int ying_runner_start(ying_runner **out,
    const ying_runner_opts *opts);

/**
 * Ask for a report set now, whatever the growth (the runner thread does the
 * work).  Async-signal-safe: meant for a signal handler.  Calls from a
 * forked child are ignored (the runner belongs to the parent).
 */
YING_EXTERN int ying_runner_trigger(ying_runner *r);

/** Report sets written so far. */
YING_EXTERN unsigned ying_runner_reports(const ying_runner *r);

/** Stop the thread (an in-progress report is finished first) and free r.
 *  NULL is a no-op.  Never call it in a forked child of the process that
 *  started the runner. */
YING_EXTERN void ying_runner_stop(ying_runner *r);

/* ------------------------------------------------------------------------ */
/* Agent                                                                     */
/* ------------------------------------------------------------------------ */

/*
 * libying-agent.so puts the HTTP endpoint, the growth runner and an on-demand
 * dump signal into any program that uses jemalloc, without changing it:
 *
 *   LD_PRELOAD=libying-agent.so MALLOC_CONF=prof:true \
 *       YING_HTTP=127.0.0.1:6060 YING_REPORT_DIR=/var/tmp/ying ./service
 *
 * (`ying run` sets all of this up, and preloads libjemalloc for programs
 * that do not link it.)  Its constructor reads YING_HTTP, YING_HTTP_TOKEN,
 * YING_REPORT_*, YING_DUMP_SIGNAL,
 * YING_PYROSCOPE_* (the uploader below; secrets are read, then wiped from
 * the environment), YING_AGENT_PID and YING_QUIET, and starts its work on its own threads,
 * which never sample and block every signal; see ying-agent(7).  Without
 * jemalloc or without prof:true it prints one line on stderr and stays
 * inert.  The agent carries its own hidden copy of libying; it exports only
 * the status function below, which a host may look up with
 * dlsym(RTLD_DEFAULT, YING_AGENT_STATUS_SYMBOL).
 */
/** "active: ...", "inert: <reason>" or "off" (not configured); static. */
typedef const char *(*ying_agent_status_fn)(void);
#define YING_AGENT_STATUS_SYMBOL "ying_agent_status"

/* ------------------------------------------------------------------------ */
/* Profiles from a URL (libcurl)                                             */
/* ------------------------------------------------------------------------ */

/** Options of ying_profile_read_url().  Nothing is retained after the call. */
typedef struct ying_fetch_opts {
	int version;            /**< YING_FETCH_OPTS_VERSION */
	/** Sent as "Authorization: Bearer <token>" (ying's endpoint, --token);
	 *  NULL sends none.  Owned by the caller; never logged or echoed. */
	const char *token;
	/** Seconds for connecting and the whole transfer; 0 = 60. */
	double timeout;
	/** Largest accepted response body in bytes; 0 = 1 GiB.  Never more
	 *  than half the decode budget (YING_MAX_MEMORY, default 1 GiB). */
	size_t max_bytes;
} ying_fetch_opts;
#define YING_FETCH_OPTS_VERSION 1
#define YING_FETCH_OPTS_INIT { YING_FETCH_OPTS_VERSION, NULL, 0, 0 }

/**
 * Fetch a profile over HTTP(S) and read it like ying_profile_read_mem()
 * (heap_v2 or pprof, plain or gzipped); the URL names it in messages.  Only
 * http:// and https:// URLs; redirects are not followed.  A URL without a
 * path (or with just "/") fetches "/debug/pprof/heap", the symbolized pprof
 * profile of ying's HTTP endpoint (see ying-http(7)).  opts may be NULL.
 * Errors: YING_EINVAL (bad URL or options), YING_EIO (cannot connect, time
 * out, HTTP error status; the detail names host:port or the status and what
 * to do, e.g. a token for 401), YING_ENOTFOUND (HTTP 404), YING_ELIMIT (body
 * over max_bytes), YING_EPARSE (not a profile), YING_ENOTSUP (libying was
 * built without libcurl).  On success *out is a new profile; release it
 * with ying_profile_free().
 */
YING_EXTERN int ying_profile_read_url(ying_profile **out, const char *url,
    const ying_fetch_opts *opts);

/**
 * Name p's addresses through a server speaking jeprof's symbol protocol:
 * the unique addresses still without names are POSTed to BASE/pprof/symbol,
 * BASE being `url` up to its "/pprof/" path (jeprof's rule; e.g.
 * "http://h:6060/pprof/heap" -> "http://h:6060/pprof/symbol"), and each
 * "0xADDRESS NAME[--NAME...]" line of the answer names its location (an
 * inline chain outermost first).  For a dump fetched from a machine whose
 * binaries are not here; ying's endpoint serves /pprof/symbol.  Run it
 * before ying_profile_symbolize, which then names what is left and trims
 * allocator frames.  A profile already symbolized is left alone.  *named
 * (may be NULL) is the number of locations named.  Errors as
 * ying_profile_read_url's, and YING_ENODATA when the answer names nothing.
 * Nothing to free.
 */
YING_EXTERN int ying_profile_symbolize_remote(ying_profile *p, const char *url,
    const ying_fetch_opts *opts, size_t *named);

/* ------------------------------------------------------------------------ */
/* Helpers for front ends (the ying CLI, the agent, embedders)               */
/* ------------------------------------------------------------------------ */

/**
 * A signal for dump requests: "USR2", "SIGUSR2", "12", "RTMIN+2" into *sig.
 * Only USR1, USR2, WINCH, URG and RTMIN..RTMAX (offsets: plain digits
 * within the range) are accepted: every other signal (TERM, INT, HUP, PIPE,
 * XFSZ, KILL, SEGV, ...) would change what it does to the program once
 * caught and is YING_EINVAL, with the reason in ying_last_error().
 * Nothing to free.
 */
YING_EXTERN int ying_signal_parse(const char *s, int *sig);
/** "SIGUSR2", "SIGRTMIN+2", "signal 40" written into the caller's buf (at
 *  least 24 bytes); returns buf. */
YING_EXTERN const char *ying_signal_name(int sig, char *buf, size_t n);
/** A byte count for people ("1.50 MiB", "12.0 GiB", "512 B") written into
 *  the caller's buf (at least 32 bytes); returns buf. */
YING_EXTERN const char *ying_format_bytes(double v, char *buf, size_t n);
/** Turn jemalloc sampling off for the calling thread (a tool's own thread:
 *  its allocations are not the program's); once per thread, later calls
 *  are free.  Never fails (no jemalloc: nothing to do). */
YING_EXTERN void ying_ctl_quiet_thread(void);
/** Forget this thread's error detail (ying_last_error() is "" again), e.g.
 *  after an error the caller handled. */
YING_EXTERN void ying_error_clear(void);

/* ------------------------------------------------------------------------ */
/* Continuous upload to Grafana Pyroscope (libcurl)                          */
/* ------------------------------------------------------------------------ */

/*
 * An uploader dumps the calling process's heap every `interval` seconds on
 * a background thread (which never samples and blocks every signal),
 * symbolizes it (with the symbolizer the process's runner, HTTP endpoint
 * and giant writer share: resolved addresses are kept, debug info is
 * dropped after each upload), writes it as a gzipped pprof and queues it;
 * a second thread sends the queue to Pyroscope.  The queue is bounded (`queue` profiles; when it
 * is full the oldest is dropped and counted), each request has a timeout,
 * and 429, 5xx and network errors are retried with exponential backoff and
 * jitter (other 4xx are not: counted as failed, the error kept).  Nothing
 * of it ever blocks or fails the program.
 *
 * APIs:
 *  - "push" (default): POST {url}/push.v1.PusherService/Push, Connect
 *    unary, Content-Type application/proto, a push.v1.PushRequest with one
 *    series (labels __name__=memory, service_name, the tags, hostname, pid,
 *    __delta__=false) holding one sample (the gzipped pprof, a random UUID
 *    as ID).
 *  - "ingest" (legacy): POST {url}/ingest?name=SERVICE{tags,hostname,pid}
 *    &from=&until=&spyName=ying, multipart/form-data with the pprof in the
 *    part "profile" and a sample_type_config part.
 * libcurl.so.4 is loaded with dlopen when the first request is sent, so
 * programs that never upload never load it.  The counters also appear in
 * the HTTP endpoint's /debug/prof (key "pyroscope") while both run.
 */
typedef struct ying_pyroscope ying_pyroscope;

#define YING_PYROSCOPE_OPTS_VERSION 1
/** Options; every field 0/NULL means its default.  Strings are copied by
 *  ying_pyroscope_start; none is kept by the other calls. */
typedef struct ying_pyroscope_opts {
	/** YING_PYROSCOPE_OPTS_VERSION, or 0 (the same). */
	int version;
	/** Base URL, http:// or https://, e.g. "http://127.0.0.1:4040" (a
	 *  path prefix is kept: ".../pyroscope").  Required. */
	const char *url;
	/** service_name: [A-Za-z0-9_./-], 1..128 characters; NULL = the
	 *  program's name (characters outside the set become '_'). */
	const char *service;
	/** "k=v,k=v": names [A-Za-z_][A-Za-z0-9_.]* (reserved: __name__,
	 *  service_name, hostname, pid and every name starting with "__"),
	 *  values without ',', '{', '}', '=', spaces or control characters;
	 *  at most 24 tags.  NULL = none. */
	const char *tags;
	/** "push" (default) or "ingest". */
	const char *api;
	/** Seconds between uploads (default 15; at least 0.1). */
	double interval;
	/** Basic auth (user, and password or ""), or NULL. */
	const char *user, *password;
	/** Sent as "Authorization: Bearer <token>"; not with user. */
	const char *token;
	/** Sent as X-Scope-OrgID (multi-tenant Pyroscope), or NULL. */
	const char *tenant;
	/** Extra header lines "Name: value", NULL-terminated array, or NULL. */
	const char *const *headers;
	/** Profiles waiting to be sent (default 4, at most 1024). */
	int queue;
	/** Seconds per request, connecting included (default 10). */
	double timeout;
	/** Retries of one profile after its first attempt (default 4;
	 *  -1 = none). */
	int retries;
	/** Notices (the first failure after a success, and recovery), one
	 *  line each; NULL = stderr. */
	FILE *log;
} ying_pyroscope_opts;
#define YING_PYROSCOPE_OPTS_INIT { YING_PYROSCOPE_OPTS_VERSION, NULL, NULL, \
	NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, NULL }

/**
 * Check opts as ying_pyroscope_start would (URL, service, tags, API,
 * numbers, auth), without starting anything or loading libcurl: 0 or
 * YING_EINVAL naming the bad field, YING_ENOTSUP without libcurl's headers
 * at build time.  Nothing to free.
 */
YING_EXTERN int ying_pyroscope_check(const ying_pyroscope_opts *opts);

/**
 * Start uploading (two threads).  Fails with YING_EINVAL (bad options),
 * YING_ENOJEMALLOC/YING_ENOPROF (no heap profiling here), YING_ENOTSUP
 * (built without libcurl).  *out is the uploader; stop and free it with
 * ying_pyroscope_stop().
 */
YING_EXTERN int ying_pyroscope_start(ying_pyroscope **out,
    const ying_pyroscope_opts *opts);

/**
 * Stop taking dumps, send what is queued (giving up after opts->timeout
 * seconds; an unsent profile counts as dropped), join the threads and free
 * p.  NULL is a no-op (0).  Returns 0, or YING_EIO when profiles were
 * dropped at stop.  Never call it in a forked child.
 */
YING_EXTERN int ying_pyroscope_stop(ying_pyroscope *p);

/** Counters of an uploader (nothing to free). */
typedef struct ying_pyroscope_stats {
	uint64_t sent;          /**< profiles the server accepted (2xx) */
	uint64_t failed;        /**< profiles given up: a 4xx other than 429,
	                             or still failing after the retries; and
	                             heap dumps that failed */
	uint64_t retried;       /**< retry attempts (429, 5xx, network) */
	uint64_t dropped;       /**< profiles dropped: queue full, or at stop */
	uint64_t bytes;         /**< request bodies of the sent profiles */
	double last_duration;   /**< seconds of the last request */
	char last_error[256];   /**< the last failure ("" when none yet) */
	uint64_t collected;     /**< profiles dumped and queued */
	double last_collect;    /**< seconds of the last dump+symbolize+pprof */
	unsigned queued;        /**< profiles waiting now */
} ying_pyroscope_stats;

/** Copy p's counters into *out (safe from any thread). */
YING_EXTERN int ying_pyroscope_stats_get(const ying_pyroscope *p,
    ying_pyroscope_stats *out);

/**
 * Upload one profile now, on the calling thread (`ying upload`): a
 * symbolized profile (ying_profile_symbolize; YING_EINVAL otherwise),
 * written as gzipped pprof and sent with opts (interval and queue are
 * ignored; retries as for the uploader).  The labels are the uploader's
 * without pid (this process did not make the profile).  from/until: seconds since the
 * epoch the profile covers (0 = the profile's time).  Errors: YING_EIO
 * (network or HTTP status: the detail names the URL and the status and
 * the server's message), YING_EINVAL, YING_ENOTSUP.  Nothing to free.
 */
YING_EXTERN int ying_pyroscope_upload(const ying_pyroscope_opts *opts,
    const ying_profile *prof, double from, double until);

/* ------------------------------------------------------------------------ */
/* Recent allocations and lifetimes (jemalloc's prof_recent, prof log)      */
/* ------------------------------------------------------------------------ */

/*
 * jemalloc (5.3) keeps the last N sampled allocations with their allocation
 * and (once freed) deallocation time, thread and stack
 * (experimental.prof_recent.alloc_max = N, 0 by default), and can log every
 * sampled allocation freed between prof.log_start and prof.log_stop.
 * ying reads three forms of these records into a ying_recent:
 *
 *  - ying's capture (ying_ctl_recent_dump, GET /debug/heap/recent):
 *      {"ying_recent":1,"pid":N,"program":"/path","time_resolution":
 *       "default"|"high","clock":"CLOCK_MONOTONIC_COARSE"|"CLOCK_REALTIME",
 *       "captured_prof_ns":N,"captured_wall_ns":N,
 *       "maps":"<the process's /proc/self/maps, then ying-build-id: lines>",
 *       "jemalloc":{ ...experimental.prof_recent.alloc_dump's JSON... }}
 *    The maps make offline symbolization possible; the two clock readings
 *    (taken together right after the dump) convert jemalloc's times to
 *    wall-clock time;
 *  - jemalloc's raw alloc_dump JSON ({"sample_interval":..,
 *    "recent_alloc_max":..,"recent_alloc":[...]}): no maps (frames stay
 *    addresses unless symbolized against this process), no wall clock;
 *  - the prof log JSON (prof.log_stop; {"info":{..},"threads":[..],
 *    "stack_traces":[..],"allocations":[..]}): freed allocations only, no
 *    requested size (size = usize); wall clock when its
 *    prof_time_resolution is "high".
 *
 * The stacks the records name are the stacks of a ying_profile owned by
 * the ying_recent (one stack per distinct trace, leaf first, in order of
 * first use), so the symbolizer, yi_stack_expand and every frame walker
 * work on them as on a dump's.  Stack values (raw and unsampled alike, no
 * scaling): inuse = the records allocated at that stack and still live at
 * capture, alloc = all records allocated there (objects, and bytes as the
 * usize sum); 0 for a stack that is only ever a free stack.
 */
typedef struct ying_recent ying_recent;

/** Input forms (ying_recent_info.format). */
enum {
	YING_RECENT_CAPTURE = 0,   /**< ying's capture format */
	YING_RECENT_RAW = 1,       /**< jemalloc's prof_recent alloc_dump JSON */
	YING_RECENT_LOG = 2        /**< jemalloc's prof log JSON */
};

/**
 * Read records from a file (any of the three forms, sniffed; gzip is
 * accepted; "-" reads stdin).  Bad input is YING_EPARSE naming the file and
 * the byte offset (and the field) where it went wrong; nesting deeper than
 * 64, numbers that do not fit 64 bits, a stack index out of range are
 * errors, never crashes.  *out is new; release it with ying_recent_free().
 */
YING_EXTERN int ying_recent_read_file(ying_recent **out, const char *path);
/** The same from memory; `name` labels messages (may be NULL).  The
 *  buffer is not retained. */
YING_EXTERN int ying_recent_read_mem(ying_recent **out, const void *data,
    size_t len, const char *name);
YING_EXTERN void ying_recent_free(ying_recent *r);

/** What a capture says about itself (nothing to free; strings owned by r,
 *  valid until ying_recent_free). */
typedef struct ying_recent_info {
	int format;                /**< YING_RECENT_* */
	int64_t pid;               /**< -1 when unknown */
	const char *program;       /**< "" when unknown */
	const char *time_resolution; /**< "default", "high" or "" */
	uint64_t sample_interval;  /**< bytes (2^lg_prof_sample); 0 unknown */
	int64_t recent_alloc_max;  /**< alloc_max at the dump; -1 unlimited; 0 unknown */
	int has_prof_now;          /**< captured_prof_ns is known */
	uint64_t captured_prof_ns; /**< the prof clock when captured */
	int has_wall;              /**< record times convert to wall clock */
	int64_t captured_wall_ns;  /**< CLOCK_REALTIME (ns since the epoch) */
	int has_maps;              /**< the capture carries the mappings */
} ying_recent_info;
YING_EXTERN int ying_recent_info_get(const ying_recent *r,
    ying_recent_info *out);

/** Number of records (oldest first). */
YING_EXTERN size_t ying_recent_count(const ying_recent *r);

/** One record (filled by ying_recent_get; strings owned by r). */
typedef struct ying_recent_record {
	uint64_t size;             /**< requested bytes (prof log: = usize) */
	uint64_t usize;            /**< bytes jemalloc gave (size class) */
	int released;              /**< 1: freed; the free_* fields are valid */
	uint64_t alloc_thread;     /**< jemalloc's thread uid */
	const char *alloc_thread_name; /**< "" when unnamed */
	uint64_t free_thread;
	const char *free_thread_name;
	uint64_t alloc_ns;         /**< prof clock (see info.time_resolution) */
	uint64_t free_ns;          /**< prof clock; 0 unless released */
	int64_t alloc_wall_ns;     /**< ns since the epoch, when info.has_wall */
	int64_t free_wall_ns;      /**< same, when released and has_wall */
	int64_t alloc_stack;       /**< stack index in ying_recent_profile */
	int64_t free_stack;        /**< stack index, -1 unless released */
} ying_recent_record;
/** Record i (0 <= i < ying_recent_count) into *out; YING_EINVAL out of range. */
YING_EXTERN int ying_recent_get(const ying_recent *r, size_t i,
    ying_recent_record *out);

/** The profile holding the records' stacks (owned by r: never free it;
 *  valid until ying_recent_free).  Its mappings come from the capture's
 *  "maps" (none for the raw and log forms). */
YING_EXTERN ying_profile *ying_recent_profile(ying_recent *r);

/** ying_profile_symbolize() on ying_recent_profile(r).  Without maps,
 *  frames stay addresses (not an error). */
YING_EXTERN int ying_recent_symbolize(ying_recent *r, ying_symbolizer *s,
    const ying_symbolize_opts *opts);

#define YING_LIFETIMES_OPTS_VERSION 1
typedef struct ying_lifetimes_opts {
	int version;
	size_t top;                /**< call sites listed; 0 = 20 */
	int stacks;                /**< group by whole alloc stack, not call site */
	int json;                  /**< text writer: one JSON object instead */
	unsigned width;            /**< SVG pixels; 0 = 1200 */
	const char *title;         /**< SVG title; NULL = a default */
} ying_lifetimes_opts;
#define YING_LIFETIMES_OPTS_INIT { YING_LIFETIMES_OPTS_VERSION, 0, 0, 0, 0, NULL }

/*
 * Lifetimes per call site: records grouped by the alloc stack's first
 * frame after allocator trimming (the call site; opts->stacks: the whole
 * stack), each with counts and bytes (usize) in the buckets
 * <1ms, <10ms, <100ms, <1s, <10s, <100s, >=100s and "live" (not freed at
 * capture), sorted by bytes.  Both writers symbolize r with default
 * options first when it is not yet.  Nothing is allocated for the caller.
 */
YING_EXTERN int ying_recent_write_lifetimes(ying_recent *r,
    const ying_lifetimes_opts *opts, ying_write_fn fn, void *opaque);
/** The same as a self-contained SVG (one row per call site, a stacked bar
 *  per bucket, names escaped). */
YING_EXTERN int ying_recent_write_lifetimes_svg(ying_recent *r,
    const ying_lifetimes_opts *opts, ying_write_fn fn, void *opaque);

/* ---- capture (the running jemalloc) ---- */

/**
 * experimental.prof_recent.alloc_max: set it to max (0 = off, at most
 * YING_RECENT_MAX_LIMIT) unless max is YING_RECENT_KEEP (only read); the
 * previous value goes to *old (may be NULL; it is -1 when jemalloc was
 * started with prof_recent_alloc_max:-1).  jemalloc's -1 (unlimited) is
 * refused like any count out of range (YING_EINVAL naming the range): the
 * record would grow without bound, and jemalloc holds a lock that every
 * mallctl("epoch") caller waits for while it dumps the record.  Needs
 * prof:true (YING_ENOPROF); YING_ENOTSUP for a jemalloc without it
 * (before 5.3).
 */
#define YING_RECENT_KEEP INT64_MIN
/** The most recent-allocation records ying asks jemalloc to keep (the
 *  bound of ying_ctl_recent_max, YING_RECENT_MAX, ying run --recent-max
 *  and POST /debug/heap/recent?max=N). */
#define YING_RECENT_MAX_LIMIT 10000
YING_EXTERN int ying_ctl_recent_max(int64_t *old, int64_t max);

/**
 * Dump the recent records in ying's capture format (above) to fn.
 * jemalloc's JSON is gathered into memory first (jemalloc 5.3 holds its
 * prof_recent_dump mutex while it walks the record and calls back; the
 * callback only appends to fixed-size chunks, never copies what it has,
 * and fn is never called under it); then the wrapper with the maps and
 * both clocks is written to fn.  A record allowed to hold more than
 * YING_RECENT_MAX_LIMIT entries (prof_recent_alloc_max:-1 or larger,
 * from MALLOC_CONF) is not dumped: YING_ELIMIT, naming the fix.  Dumps
 * are serialised with heap dumps.  Nothing is allocated for the caller.
 */
YING_EXTERN int ying_ctl_recent_dump(ying_write_fn fn, void *opaque);

/**
 * prof.log_start: log every sampled allocation freed from now on, to path
 * (NULL: jemalloc's <prefix>.<pid>.<seq>.json) when ying_ctl_log_stop()
 * is called or at exit.  Refused (YING_EBUSY) while prof.gdump is on:
 * jemalloc 5.3 deadlocks when a logged free triggers a gdump; and
 * YING_EBUSY when a log is already running.
 */
YING_EXTERN int ying_ctl_log_start(const char *path);
/** prof.log_stop: write the log; YING_EINVAL when none is running. */
YING_EXTERN int ying_ctl_log_stop(void);
/* SQLite databases of dumps (`ying sql`; docs/sql.md has the schema)        */
/* ------------------------------------------------------------------------ */

/**
 * A database of dumps: a SQLite file holding dumps, their deduplicated
 * symbolized stacks, samples, threads and mappings, and views over them
 * (docs/sql.md).  One handle per thread.
 */
typedef struct ying_sql ying_sql;

/**
 * Open the database at `path`, creating the file and the schema when
 * missing.  A file that is not a SQLite database, or one whose schema is
 * not ying's, fails with YING_EPARSE (detail names the file).  On success
 * *out is a new handle; release it with ying_sql_close().
 */
YING_EXTERN int ying_sql_open(ying_sql **out, const char *path);
/** Close the database (NULL: no-op). */
YING_EXTERN void ying_sql_close(ying_sql *db);

#define YING_SQL_IMPORT_OPTS_VERSION 1
typedef struct ying_sql_import_opts {
	int version;
	/** Options of the symbolization step run on each profile first
	 *  (NULL: defaults).  Strings are the caller's; not kept. */
	const ying_symbolize_opts *symbolize;
	/** A symbolizer shared across the imports (NULL: a private one per
	 *  call).  The caller keeps and frees it. */
	ying_symbolizer *symbolizer;
	/** One line per dump skipped as already imported ("PATH: already in
	 *  the database as dump N, skipped"); NULL = silent. */
	FILE *messages;
} ying_sql_import_opts;
#define YING_SQL_IMPORT_OPTS_INIT { YING_SQL_IMPORT_OPTS_VERSION, NULL, NULL, NULL }

/** What an import did (counts add up over the calls that fill it). */
typedef struct ying_sql_stats {
	size_t dumps_added;     /**< new rows in dumps */
	size_t dumps_skipped;   /**< dumps already in the database */
	size_t stacks_added;    /**< new rows in stacks */
	size_t samples_added;   /**< new rows in samples */
	int64_t last_dump;      /**< id of the last dump added or found */
} ying_sql_stats;

/**
 * Import one profile: symbolize it (in place, with opts' options), then
 * add it to dumps, stacks, frames, samples, threads and mappings in one
 * transaction.  `path` is stored as dumps.path (the file or URL it came
 * from; may be NULL: the profile's source label).  A profile whose content
 * (counts, addresses, threads, mappings) is already in the database is not
 * added again: stats->dumps_skipped counts it and the call succeeds.  On
 * any failure the transaction is rolled back: no part of the dump stays.
 * `stats` may be NULL.  p stays the caller's.
 */
YING_EXTERN int ying_sql_import_profile(ying_sql *db, ying_profile *p,
    const char *path, const ying_sql_import_opts *opts, ying_sql_stats *stats);

/**
 * Import a dump file (anything ying_profile_read_file reads) or a report
 * directory written by the growth runner (`ying run`): every dump set
 * (ying.TIME.NMiB.heap) in time order, each in its own transaction, with
 * the set's BASE.giant.json (ying_sql_import_giant) and BASE.recent.json
 * (ying_sql_import_recent) when present.  A directory without dumps fails
 * with YING_ENOTFOUND.  Errors name the file;
 * dumps imported before a failure stay, the failing one is rolled back.
 * `stats` may be NULL.
 */
YING_EXTERN int ying_sql_import_path(ying_sql *db, const char *path,
    const ying_sql_import_opts *opts, ying_sql_stats *stats);

/**
 * Import recent-allocation records (any form ying_recent_read_file reads:
 * ying's capture, jemalloc's prof_recent JSON, the prof log JSON) into
 * captures and allocations, their stacks symbolized (opts) and stored in
 * stacks/frames like a dump's, in one transaction.  A file whose records
 * are already in the database is skipped like a dump (counted in
 * stats->dumps_skipped; stats->dumps_added counts captures too).
 */
YING_EXTERN int ying_sql_import_recent(ying_sql *db, const char *path,
    const ying_sql_import_opts *opts, ying_sql_stats *stats);

/**
 * Import a giant-allocation listing ("ying-giant/1": GET /debug/heap/giant,
 * the runner's BASE.giant.json) into captures and giant, the call sites'
 * stacks symbolized (opts) and stored like a dump's, in one transaction.
 * A record already in the database (same pid, sequence number and time:
 * listings may overlap) is not added twice; a listing already imported
 * whole is skipped like a dump.  ying_sql_import_path imports the
 * BASE.giant.json of each dump of a report directory with it (giant.dump
 * names that dump).
 */
YING_EXTERN int ying_sql_import_giant(ying_sql *db, const char *path,
    const ying_sql_import_opts *opts, ying_sql_stats *stats);

/* ------------------------------------------------------------------------ */
/* Giant allocations                                                         */
/* ------------------------------------------------------------------------ */

/*
 * Every allocation of at least a threshold (64 MiB, ...) recorded with its
 * stack, size, thread and wall-clock time, through jemalloc's allocation
 * hooks (experimental.hooks.install; needs jemalloc >= 5.1, not prof:true).
 * The hook runs for every allocation of the process but only compares the
 * size with the threshold and returns; for a giant one it unwinds the
 * stack (libgcc's _Unwind_Backtrace, warmed up at start: no allocation)
 * into a fixed lock-free ring and returns.  A background thread (which
 * never samples) takes the records out of the ring every 100 ms, keeps
 * the last 4096 records and 1024 call sites (distinct stacks), and logs
 * the first allocation of each place (the first frame kept after the
 * allocator's: function and file:line) once, on opts->log: "ying: giant
 * allocation of N bytes at FUNC (FILE:LINE), thread T".  Symbolization
 * happens there and when the records are listed, never in the hook.
 *
 * The records are listed as JSON (ying_giant_write_json: the HTTP
 * endpoint's GET /debug/heap/giant, the growth runner's giant.json) in
 * the format "ying-giant/1":
 *
 *   {"format":"ying-giant/1","pid":P,"program":"/path/exe",
 *    "time_ns":T,                 now, CLOCK_REALTIME, ns since the epoch
 *    "threshold":BYTES,
 *    "allocations":N,             giant allocations seen since the start
 *    "dropped":D,                 of them, not listed (ring full, or more
 *                                 than 4096 kept / 1024 call sites)
 *    "since":S,                   records listed start at sequence S
 *    "sites":[{"site":I,"count":C,"bytes":B,
 *              "stack":["0x7f..",...],     return addresses, leaf first,
 *                                          as in a heap_v2 dump's '@' line
 *              "frames":[{"function":F,"file":"...","line":L,
 *                         "inlined":false},...]},...],  symbolized,
 *                                          allocator frames trimmed
 *    "records":[{"seq":Q,"time_ns":T,"size":S,"thread":TID,
 *                "kind":"malloc"|"calloc"|"realloc"|...,"site":I,
 *                "function":F},...],      oldest first
 *    "maps":"..."}                the process's /proc/self/maps text and
 *                                 its "ying-build-id:" lines, so that the
 *                                 stacks can be symbolized again offline
 *
 * ying_giant_read_* read that JSON back into records plus a ying_profile
 * holding one stack per call site (heap_v2 model, sample period 1, each
 * stack's objects and bytes the site's count and bytes), so that the
 * symbolizer, the writers and `ying sql` walk its frames exactly as a
 * dump's.  A process has at most one capture (the hook is global).
 */
typedef struct ying_giant ying_giant;

#define YING_GIANT_OPTS_VERSION 1
typedef struct ying_giant_opts {
	int version;
	/** Allocations of at least this many bytes are recorded (> 0). */
	uint64_t threshold;
	/** The once-per-call-site lines and the install warning go here;
	 *  NULL = stderr. */
	FILE *log;
	/** No once-per-call-site lines (records are still kept). */
	int quiet;
} ying_giant_opts;
#define YING_GIANT_OPTS_INIT { YING_GIANT_OPTS_VERSION, 0, NULL, 0 }

/**
 * Install the hook and start the background thread.  Errors:
 * YING_EINVAL (threshold 0), YING_EBUSY (already started),
 * YING_ENOJEMALLOC, YING_ENOTSUP (this jemalloc has no
 * experimental.hooks.install: ENOENT), YING_ELIMIT (jemalloc's 4 hook
 * slots are taken: EAGAIN), YING_ESYS; the detail says which.  Nothing
 * is changed in the process on failure.
 */
YING_EXTERN int ying_giant_start(const ying_giant_opts *opts);

/**
 * Remove the hook, take the last records out of the ring (logging new
 * call sites), stop the thread and forget the records.  No-op when not
 * started.  Never call it in a forked child.
 */
YING_EXTERN void ying_giant_stop(void);

/** The threshold of the running capture, 0 when none runs. */
YING_EXTERN uint64_t ying_giant_threshold_active(void);

/**
 * Write the records kept with sequence >= since (0 = all) as one
 * "ying-giant/1" JSON object (above), symbolized with s (NULL: the
 * capture's own symbolizer).  *next (may be NULL) is the sequence
 * following the last one listed, for the next call.  YING_ENODATA when
 * no capture runs.  Nothing to free.
 */
YING_EXTERN int ying_giant_write_json(ying_symbolizer *s, uint64_t since,
    uint64_t *next, ying_write_fn fn, void *opaque);

/**
 * Read "ying-giant/1" JSON (a file: "-" is stdin; or memory, `name`
 * labelling errors, may be NULL).  Malformed or truncated input is
 * YING_EPARSE naming where ("giant.json:1:532: expected ',' or '}'").
 * On success *out is new; release it with ying_giant_free().
 */
YING_EXTERN int ying_giant_read_file(ying_giant **out, const char *path);
YING_EXTERN int ying_giant_read_mem(ying_giant **out, const void *data,
    size_t len, const char *name);
YING_EXTERN void ying_giant_free(ying_giant *g);

/** One recorded allocation (ying_giant_get; strings owned by g). */
typedef struct ying_giant_record {
	int64_t time_ns;        /**< CLOCK_REALTIME, ns since the epoch */
	uint64_t size;          /**< bytes asked for (calloc: nmemb * size;
	                             realloc in place: the new usable size) */
	uint64_t thread;        /**< kernel thread id (gettid) */
	size_t stack;           /**< its call site: stack index in
	                             ying_giant_profile(g) */
	uint64_t repeats;       /**< giant allocations at that call site */
	uint64_t seq;           /**< sequence number in the process */
	const char *kind;       /**< "malloc", "calloc", "realloc", ... */
} ying_giant_record;

/** Threshold, pid, time (ns) of the listing; allocations seen and
 *  dropped (any pointer may be NULL). */
YING_EXTERN void ying_giant_info(const ying_giant *g, uint64_t *threshold,
    long *pid, int64_t *time_ns, uint64_t *allocations, uint64_t *dropped);
/** Number of records. */
YING_EXTERN size_t ying_giant_count(const ying_giant *g);
/** Record i (< ying_giant_count) into *out; YING_EINVAL otherwise. */
YING_EXTERN int ying_giant_get(const ying_giant *g, size_t i,
    ying_giant_record *out);
/**
 * The call sites' stacks: stack i is site i (ying_giant_record.stack),
 * with the listing's maps and build IDs, not symbolized yet (call
 * ying_profile_symbolize, or let a writer do it).  Owned by g: never
 * free it; valid until ying_giant_free(g).
 */
YING_EXTERN ying_profile *ying_giant_profile(ying_giant *g);

#ifdef __cplusplus
}
#endif
#endif /* YING_H */
