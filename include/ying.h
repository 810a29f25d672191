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
 *  - Out-parameters come first (ying_profile_read_file(&p, path),
 *    ying_recent_get(&rec, r, i), ying_jem_elf_read(&info, path)) and a
 *    pointer out-parameter is set to NULL on failure; the inputs follow,
 *    and a sink (fn, opaque) is always last.  An "info" accessor is
 *    ying_X_info_get(&info, x): out first, a struct filled, 0 or a
 *    ying_err.  Counts are `size_t ying_X_count(const ying_X *)`.
 *  - Handles are opaque.  Whoever gets a handle from a *_new or *_read call
 *    releases it with the matching *_free; *_free(NULL) is a no-op.
 *  - Buffers returned through a `char **` or `void **` out-parameter are
 *    malloc'd by the library; the caller releases them with ying_free().
 *  - Output is written through a ying_write_fn sink, so one writer serves a
 *    FILE *, a memory buffer or an HTTP response.
 *  - Writers (ying_profile_write_*, ying_recent_write_*; ying_diff_write_*
 *    write a diff built from profiles symbolized before), ying_diff_build
 *    and ying_profile_merge take their profiles const and never symbolize:
 *    symbolizing is the one explicit step, ying_profile_symbolize (a
 *    profile is symbolized once;
 *    other options later are YING_EINVAL, never ignored).  A writer given
 *    an unsymbolized heap_v2 profile writes it as it is, without names:
 *    the pprof writer its addresses and mappings (as `unsymbolized`), the
 *    text, folded, SVG and DOT writers "[unknown]" frames (totals and
 *    values are right); ying_profile_write_raw and ying_profile_merge
 *    refuse one (YING_EINVAL naming ying_profile_symbolize).  So a
 *    symbolized profile may be written from several threads at once.
 *  - Versioned option structs, one rule: `int version` first; beside each
 *    YING_X_OPTS_INIT macro a ying_X_opts_init(&o) function that fills
 *    the same current version and defaults; NULL where a call takes
 *    options means the defaults; any version but YING_X_OPTS_VERSION is
 *    YING_EINVAL naming the struct (no older layouts are accepted: ying
 *    is 0.x and keeps no compatibility shims; one exception,
 *    ying_pprof_opts version 1, see there).
 *  - One name per concept: ying_giant_* is a parsed giant-allocation
 *    listing and ying_giant_capture_* (ying-live.h) the capture in a
 *    running process; likewise ying_recent_* are recent-allocation
 *    records and ying_ctl_recent_* their capture.
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

/** Forget this thread's error detail (ying_last_error() is "" again), e.g.
 *  after an error the caller handled. */
YING_EXTERN void ying_error_clear(void);

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
 * Unsampled total for a sample index: the sum of every stack's estimate
 * (jeprof's AdjustSamples), each rounded once to a whole number of bytes
 * or objects when the profile is read, so it is an integer and the same
 * number every output prints (top, diff, reports, JSON, pprof, SQL); it is
 * within nstacks/2 of jeprof's unrounded sum.  Fails with YING_ENODATA for
 * alloc_* on a dump without prof_accum data.
 */
YING_EXTERN int ying_profile_total(double *out, const ying_profile *p,
    ying_sample_index idx);

/**
 * Give the stacks of a heap_v2 profile jeprof's own unrounded estimates
 * instead of ying's whole numbers, so that sums, rows and totals are
 * jeprof's to the byte (jeprof truncates when it prints): ying-jeprof
 * calls it after reading each profile.  Other profiles (pprof, JSON, a
 * merge or diff) are left as they are.  Call it before symbolizing,
 * merging or writing; returns 0 (nothing to free).
 */
YING_EXTERN int ying_profile_use_jeprof_values(ying_profile *p);

/*
 * Heaps.  A process with more than one profiled jemalloc (a Rust program's
 * own "_rjem_" jemalloc beside the C library's, `ying run --heaps`) dumps
 * one heap_v2 text whose `ying-heap: NAME STACKS` trailer lines say which
 * stacks belong to which heap; a pprof profile carries the name as each
 * sample's string label "heap".  Every stack then belongs to one named
 * heap: two heaps with the same call stack are two stacks.  A dump
 * without a trailer has no named heaps (count 0).
 */
/** The number of named heaps (0: the profile has none, one unnamed). */
YING_EXTERN size_t ying_profile_heap_count(const ying_profile *p);
/** Heap i's name, in dump order; NULL past the end.  Owned by p. */
YING_EXTERN const char *ying_profile_heap_name(const ying_profile *p, size_t i);
/** The unsampled total of heap i's stacks at idx (as ying_profile_total;
 *  0 past the end or for alloc_* without cumulative data). */
YING_EXTERN double ying_profile_heap_total(const ying_profile *p, size_t i,
    ying_sample_index idx);
/**
 * Drop every stack that is not of the heap `name` (`ying top --heap c`):
 * p keeps that heap only (its heap list becomes that one name).
 * YING_ENOTFOUND naming the heaps there are (or saying the profile has one
 * heap) when there is no such heap; p is unchanged then.  Call it before
 * symbolizing or writing; nothing to free.
 */
YING_EXTERN int ying_profile_keep_heap(ying_profile *p, const char *name);

/**
 * Turn p's alloc_space and alloc_objects into what each stack allocated
 * since `earlier`, an older heap_v2 dump of the same program run taken
 * with prof_accum (`ying upload` of a report directory, where Pyroscope
 * sums the profiles of a range).  Stacks are matched by their addresses
 * and heap; a stack that is not in `earlier`, or whose values went down
 * (prof.reset, or another run of the program), keeps its own values.
 * inuse_* are not touched.  Nothing happens when either has no cumulative
 * data.  *changed (may be NULL): the stacks whose values changed.
 * YING_EINVAL when either is not a heap_v2 dump.  Call it before
 * symbolizing; nothing to free.
 */
YING_EXTERN int ying_profile_subtract_alloc(ying_profile *p,
    const ying_profile *earlier, size_t *changed);

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

#define YING_SYMBOLIZE_OPTS_VERSION 3
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
	/** Directories, separated by ':', searched for the
	 *  files the dump mapped before the dump's own paths: DIR/PATH (a copy
	 *  of the machine's tree), then DIR/BASENAME.  A file found there is
	 *  checked like --binary (build ID, layout, call sites).  NULL = none.
	 *  The string is the caller's; it is not kept after the call. */
	const char *search_path;
	/** The caller's own allocator wrappers, trimmed like the built-in
	 *  ones (leading frames only; kept with keep_allocator_frames): one
	 *  entry per line, `#` starts a comment, blank lines are ignored,
	 *  blanks around an entry dropped.  NAME matches a function whose
	 *  demangled or symbol name is NAME, optionally followed by an
	 *  argument list `(` or a clone suffix `.` ("arena_grab" matches
	 *  "arena_grab.constprop.0" and "arena_grab(unsigned long)");
	 *  PREFIX* matches names starting with PREFIX.  A bad entry ('*'
	 *  inside a name or alone, a control character, more than 4096 bytes)
	 *  is YING_EINVAL naming its line; check lines one by one with
	 *  ying_frames_entry_check.  The front ends fill it from
	 *  $XDG_CONFIG_HOME/ying/frames and YING_DROP_FRAMES (ying(1), ALLOCATOR
	 *  FRAMES); libying reads no file.  NULL = none.  The string is the
	 *  caller's; it is not kept after the call (the "same options" check
	 *  compares a copy). */
	const char *frames;
	/** Nonzero: a file without local debug information (none in it,
	 *  none under /usr/lib/debug or by .gnu_debuglink) has it fetched by
	 *  build ID from the debuginfod servers in DEBUGINFOD_URLS, through
	 *  elfutils' libdwfl (which loads libdebuginfod.so.1 itself; it reads
	 *  DEBUGINFOD_URLS, DEBUGINFOD_CACHE_PATH and DEBUGINFOD_TIMEOUT, and
	 *  keeps what it fetched in its own cache).  This may block on the
	 *  network, so it is 0 by default, and the runtime (libying-live: the
	 *  agent, the endpoint, the runner, the uploader) never sets it; the
	 *  ying command line sets it when DEBUGINFOD_URLS is set.  The persistent
	 *  symbol cache is not used for such files (libdebuginfod's own cache
	 *  makes the next run local).  Asked when a file is first opened by
	 *  a symbolizer: a symbolizer shared by calls with and without it keeps
	 *  the first answer for that file. */
	int debuginfod;
	/** Text outputs (top, folded, flame graphs, call graphs, diffs, the
	 *  runner's reports) print whole demangled names, parameters and
	 *  template arguments included.  By default they print short names
	 *  as jeprof and `go tool pprof` do (`std::vector::push_back`), and
	 *  functions whose short names agree print the shortest form that
	 *  tells them apart (ying(1) FUNCTION NAMES); rows are always kept
	 *  apart by full name, and pprof output always has the full name. */
	int full_names;
} ying_symbolize_opts;
#define YING_SYMBOLIZE_OPTS_INIT { YING_SYMBOLIZE_OPTS_VERSION, NULL, NULL, 0, NULL, NULL, \
	NULL, 0, 0 }
/** Fill *o as YING_SYMBOLIZE_OPTS_INIT does (NULL: no-op). */
YING_EXTERN void ying_symbolize_opts_init(ying_symbolize_opts *o);

/**
 * Resolve every address of p to functions, inline frames and file:line, and
 * trim allocator frames.  `s` may be NULL (a private symbolizer is used and
 * freed).  A missing or moved binary is not an error: its frames become
 * "module+0xoffset" and one warning is printed.  So do the frames of a file
 * that is not the one the dump mapped (other build ID, replaced, modified
 * after the dump, other layout): never a name from the wrong file.  A
 * pprof profile with function names needs no symbolizer, but its frames
 * are trimmed (and opts' drop_frames / keep_allocator_frames honoured)
 * like a dump's.
 *
 * This is the one explicit step: no writer, diff or merge symbolizes (see
 * the conventions above).  p is modified in place (nothing to free), so it
 * must not run while another thread reads p.  A profile is symbolized
 * once: a later call with the same options (binary, drop_frames,
 * keep_allocator_frames, search_path; `warnings` and `s` do not count) is a
 * no-op returning 0; one with other options fails with YING_EINVAL
 * ("already symbolized with other options"), never silently ignored: read
 * the profile again to symbolize it differently.  A profile made by
 * ying_profile_merge or a diff is symbolized already (any options: 0).
 */
YING_EXTERN int ying_profile_symbolize(ying_profile *p, ying_symbolizer *s,
    const ying_symbolize_opts *opts);

/**
 * Check one line (line[0..len), without its newline) of a frames list
 * (ying_symbolize_opts.frames): 0 when it is an entry, a comment or blank;
 * YING_EINVAL with the entry and why in ying_last_error() ("'a*b': '*' may
 * only end an entry (PREFIX*)"), so a front end can name FILE:LINE and
 * leave a bad entry out.  Nothing to free.
 */
YING_EXTERN int ying_frames_entry_check(const char *line, size_t len);

/**
 * Does p look as if an unlisted allocator wrapper leads it?  After
 * trimming, one function leads (is the first frame of) at least half of
 * p's total at idx and is called from at least 8 distinct functions: then
 * *msg is a malloc'd line ("`arena_grab` leads 95 % of the heap from 12
 * callers", the name as a frames entry would match it; free it with
 * ying_free), else *msg is NULL.  A hint only: nothing is trimmed; the
 * caller says what to do (ying(1): add it to the frames file).  0, or
 * YING_EINVAL (no profile), YING_ENODATA (idx needs data p lacks),
 * YING_ENOMEM.
 */
YING_EXTERN int ying_profile_wrapper_hint(char **msg, const ying_profile *p,
    ying_sample_index idx);

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
/** Fill *o as YING_TOP_OPTS_INIT does (NULL: no-op). */
YING_EXTERN void ying_top_opts_init(ying_top_opts *o);

/**
 * Write the per-function (or per-line, per-stack) table of p.  Text output
 * starts with a summary line; JSON output is one object:
 * {"total":N,"unit":"bytes"|"objects","sample_index":"...","rows":[
 *  {"function":..,"full_name":..,"file":..,"line":..,"flat":..,"cum":..},
 *  ...]}: "function" is what the text prints (the short name, unless p was
 *  symbolized with full_names), "full_name" the whole demangled name.
 */
YING_EXTERN int ying_profile_write_top(const ying_profile *p,
    const ying_top_opts *opts, ying_write_fn fn, void *opaque);

/* ------------------------------------------------------------------------ */
/* Formats: pprof, folded, SVG flame graph                                   */
/* ------------------------------------------------------------------------ */

/** Version 2 added no_size_label; version 1 (the struct without it) is
 *  still accepted and read as no_size_label 0 (the one exception to the
 *  no-older-layout rule above: uploaders built against version 1). */
#define YING_PPROF_OPTS_VERSION 2
typedef struct ying_pprof_opts {
	int version;
	int unsymbolized;          /**< addresses and mappings only */
	/** With `unsymbolized`: leave out the drop_frames regex that asks
	 *  pprof to drop allocator frames when it symbolizes (it is left out
	 *  anyway when p was trimmed with keep_allocator_frames).  Trimming
	 *  itself is ying_profile_symbolize's: the writer writes the frames
	 *  the profile holds. */
	int keep_allocator_frames;
	int gzip;                  /**< gzip the output (default 1) */
	/** Leave out the numeric "bytes" label (a stack's mean object size,
	 *  bytes / objects) of every sample: it changes from one profile to
	 *  the next, and a consumer that matches samples on their addresses
	 *  and every label (Grafana Alloy's delta profiles) then sees a new
	 *  sample each time.  Version 2 only. */
	int no_size_label;
} ying_pprof_opts;
#define YING_PPROF_OPTS_INIT { YING_PPROF_OPTS_VERSION, 0, 0, 1, 0 }
/** Fill *o as YING_PPROF_OPTS_INIT does (NULL: no-op). */
YING_EXTERN void ying_pprof_opts_init(ying_pprof_opts *o);

/** Write p as a pprof profile.proto (gzipped unless opts->gzip is 0). */
YING_EXTERN int ying_profile_write_pprof(const ying_profile *p,
    const ying_pprof_opts *opts, ying_write_fn fn, void *opaque);

/* ---- folding a profile to a size limit (a receiver's limits) ----------- */

#define YING_FOLD_OPTS_VERSION 1
typedef struct ying_fold_opts {
	int version;
	size_t max_samples;     /**< samples in the pprof written; 0 = no limit */
	/** uncompressed pprof size (as ying_profile_write_pprof writes it
	 *  with `pprof`, gzip off) plus extra_bytes; 0 = no limit */
	size_t max_bytes;
	size_t extra_bytes;     /**< counted against max_bytes (e.g. the series
	                             labels an uploader sends beside it) */
	const ying_pprof_opts *pprof; /**< the writer options the size is
	                             measured with (gzip ignored); NULL = defaults */
	ying_sample_index sample_index; /**< what makes a stack significant
	                             (default inuse_space) */
} ying_fold_opts;
#define YING_FOLD_OPTS_INIT { YING_FOLD_OPTS_VERSION, 0, 0, 0, NULL, YING_INUSE_SPACE }
/** Fill *o as YING_FOLD_OPTS_INIT does (NULL: no-op). */
YING_EXTERN void ying_fold_opts_init(ying_fold_opts *o);

typedef struct ying_fold_stats {
	size_t samples_in, samples_out; /**< pprof samples before / after */
	size_t stacks_folded;   /**< stacks merged into folded ones (0: nothing to do) */
	size_t bytes_out;       /**< uncompressed pprof bytes after (extra_bytes
	                             not included) */
	unsigned depth;         /**< root-side locations a folded stack kept */
	double folded_share;    /**< share of the total of sample_index (by
	                             absolute value) in folded stacks, 0..1 */
} ying_fold_stats;

/**
 * Fold the least significant stacks of p so that its pprof fits a
 * receiver's limits (Grafana Pyroscope: 16,000 samples, a 2 MiB profile
 * with its series labels) while every total stays exactly the same.
 * Stacks are ranked by |value at sample_index| (ties: the other values,
 * then their order); the K most significant are kept as they are; every
 * other stack is cut to its D root-side locations (all but its leaf at the
 * most) under one leaf frame `[ying: folded]`, and folded stacks that
 * became equal (same locations, heap and numeric label) are summed (raw
 * counts and all four values).
 * D = 0 folds them into one `[ying: folded]` stack per heap and label.
 * K is the largest that leaves 1/8 of each limit to the folded stacks,
 * then D the largest (at most 64) that fits.  The pprof sample count is
 * p's stack count (the writer writes one sample per stack).
 *
 * *out is NULL when p fits as it is (nothing allocated; stats filled),
 * else a new profile (everything but the stacks as p has it: mappings,
 * period, time, heaps, flags) the caller frees with ying_profile_free.
 * p is not changed.  Any profile the pprof writer writes works (fold
 * after ying_profile_symbolize: the folded frame has no address).
 * YING_ELIMIT (the detail gives the sizes) when even the most folded
 * profile does not fit; YING_ENODATA for alloc_* without cumulative data;
 * YING_EINVAL for a bad version.  stats may be NULL.
 */
YING_EXTERN int ying_profile_fold(ying_profile **out, const ying_profile *p,
    const ying_fold_opts *opts, ying_fold_stats *stats);

#define YING_FOLDED_OPTS_VERSION 1
typedef struct ying_folded_opts {
	int version;
	ying_sample_index sample_index;
	int lines;                 /**< append (file:line) to frame names */
} ying_folded_opts;
#define YING_FOLDED_OPTS_INIT { YING_FOLDED_OPTS_VERSION, YING_INUSE_SPACE, 0 }
/** Fill *o as YING_FOLDED_OPTS_INIT does (NULL: no-op). */
YING_EXTERN void ying_folded_opts_init(ying_folded_opts *o);

/**
 * Collapsed stacks: one line per distinct stack, function names root first
 * joined by ';', a space, and the value of opts->sample_index truncated
 * toward zero (jeprof --collapsed).  Inlined frames carry the suffix
 * "[inline]"; opts->lines appends " (file:line)".  Lines are sorted by
 * their text; equal stacks are summed first; zero lines are left out.
 * ';' in a name is written as ':'.  Nothing is allocated for the caller.
 */
YING_EXTERN int ying_profile_write_folded(const ying_profile *p,
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
/** Fill *o as YING_SVG_OPTS_INIT does (NULL: no-op). */
YING_EXTERN void ying_svg_opts_init(ying_svg_opts *o);

/**
 * One self-contained interactive SVG flame graph of p (no external files,
 * fonts or scripts): hover for details, click to zoom, Ctrl-F to search.
 * Colours are a hash of the function name, so they agree across files; the
 * same profile and options always give the same bytes.  Frames narrower
 * than opts->min_width pixels are left out.  Nothing is allocated for the
 * caller.
 */
YING_EXTERN int ying_profile_write_svg(const ying_profile *p,
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
/** Fill *o as YING_DOT_OPTS_INIT does (NULL: no-op). */
YING_EXTERN void ying_dot_opts_init(ying_dot_opts *o);

/**
 * The call graph of p as a Graphviz DOT text, jeprof --dot's graph: one
 * node per function (or function and line) sized by its flat value, one
 * edge per caller -> callee pair weighted by the value flowing along it,
 * nodes and edges selected like jeprof (nodefraction, nodecount,
 * edgefraction, maxdegree) and a legend (program, Total, what was
 * dropped).  Values may be negative (a subtracted profile): sizes use the
 * absolute value, labels the signed one.  The same profile and options
 * always give the same bytes.  Nothing is allocated for the caller.
 */
YING_EXTERN int ying_profile_write_dot(const ying_profile *p,
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

/** Release a diff from ying_diff_build (NULL: no-op). */
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
/** Fill *o as YING_DIFF_BUILD_OPTS_INIT does (NULL: no-op). */
YING_EXTERN void ying_diff_build_opts_init(ying_diff_build_opts *o);

/**
 * The diff constructor: NOW minus BASE, each unsampled at its own rate,
 * with options (sample index, --focus, --ignore); opts may be NULL.  Stacks
 * are matched by the frames the profiles hold: symbolize both first
 * (ying_profile_symbolize; never done here), else their frames are
 * addresses and match only within one process.  The profiles are only
 * read and must outlive the diff; the strings in opts are not retained.
 * Release *out with ying_diff_free().
 */
YING_EXTERN int ying_diff_build(ying_diff **out, const ying_profile *base,
    const ying_profile *now, const ying_diff_build_opts *opts);

/** Totals of the diff's sample index: base, now, now - base.  With a
 *  focus/ignore filter these cover the kept stacks.  Any pointer may be
 *  NULL. */
YING_EXTERN void ying_diff_totals(double *base, double *now,
    double *delta, const ying_diff *d);

/** Stacks after matching: in both dumps, only in NOW (new), only in BASE
 *  (gone), counted over the diff's sample index.  Any pointer may be NULL. */
YING_EXTERN void ying_diff_stack_counts(size_t *matched, size_t *added,
    size_t *gone, const ying_diff *d);

/** A warning about the diff, or NULL: "BASE is /x/foo, NOW is /y/bar: these
 *  look like different programs" when the main executables' file names
 *  differ (and they do not share a GNU build ID).  The diff is still
 *  valid.  The string belongs to the diff (freed by ying_diff_free()). */
YING_EXTERN const char *ying_diff_warning(const ying_diff *d);

#define YING_DIFF_OPTS_VERSION 3
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
	/** One JSON object: {"base_total","now_total","delta","delta_lo",
	 *  "delta_hi","significant","unit","sample_index","rows":[{"function",
	 *  "full_name","file","line","base","now","delta","delta_lo","delta_hi",
	 *  "significant","cum_base","cum_now","cum_delta","cum_delta_lo",
	 *  "cum_delta_hi","cum_significant"}],"new_stacks":[...]}; rows are the
	 *  functions (lines) whose flat value changed; delta_lo..delta_hi is
	 *  the delta's 95 % interval from jemalloc's sampling. */
	int json;
	ying_granularity granularity;
	/** 0: flat lists (functions whose flat value changed, ranked and
	 *  min_delta-filtered by it); 1: cumulative lists (the same with the
	 *  cumulative value).  Ignored by YING_BY_STACK. */
	int cum;
	/** 1: hide rows and stacks whose change is within sampling noise
	 *  (its 95 % interval from jemalloc's sampling includes 0; text
	 *  marks them "~", JSON "significant": false).  Every delta carries
	 *  that interval (JSON delta_lo, delta_hi); the model is in
	 *  yingdiff(1). */
	int significant;
} ying_diff_opts;
#define YING_DIFF_OPTS_INIT { YING_DIFF_OPTS_VERSION, 0, 0.0, 0, \
	YING_BY_FUNCTION, 0, 0 }
/** Fill *o as YING_DIFF_OPTS_INIT does (NULL: no-op). */
YING_EXTERN void ying_diff_opts_init(ying_diff_opts *o);

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
/** Fill *o as YING_JEPROF_OPTS_INIT does (NULL: no-op). */
YING_EXTERN void ying_jeprof_opts_init(ying_jeprof_opts *o);

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
 * come from ying's symbolization (ying_profile_symbolize, the caller's
 * step).  Nothing is allocated for the caller.
 */
YING_EXTERN int ying_profile_write_jeprof(const ying_profile *p,
    const ying_jeprof_opts *opts, ying_write_fn fn, void *opaque);

/**
 * jeprof's symbolized-profile form (jeprof --raw): a "--- symbol" section
 * ("binary=PROGRAM" when program is not NULL, then one "0xADDRESS NAME"
 * line per address, the names of an inline chain outermost first joined by
 * "--"), "---", "--- heap", then p as a heap_v2 dump whose stacks hold the
 * frames ying keeps (allocator frames trimmed) and its MAPPED_LIBRARIES.
 * `jeprof --text FILE` reads it without the binaries.  p must come from a
 * heap_v2 dump (YING_ENOTSUP otherwise: a pprof or a merged profile has no
 * raw counts); p must be symbolized (YING_EINVAL otherwise: the symbol
 * section is the symbolizer's names).  Nothing is allocated for the caller.
 */
YING_EXTERN int ying_profile_write_raw(const ying_profile *p, const char *program,
    ying_write_fn fn, void *opaque);

#define YING_MERGE_OPTS_VERSION 1
typedef struct ying_merge_opts {
	int version;
	/** Stacks whose value would be negative get 0 (jeprof --drop_negative). */
	int drop_negative;
} ying_merge_opts;
#define YING_MERGE_OPTS_INIT { YING_MERGE_OPTS_VERSION, 0 }
/** Fill *o as YING_MERGE_OPTS_INIT does (NULL: no-op). */
YING_EXTERN void ying_merge_opts_init(ying_merge_opts *o);

/**
 * A new profile: the sum of profiles[0..n) (n >= 1) minus base (NULL =
 * none), jeprof's "several profiles are summed" and --base.  Stacks are
 * matched by their symbolized frames (function, line, inline flag), as
 * yingdiff matches them, so ASLR and redeploys do not break the match;
 * every input (and base) must be symbolized first (ying_profile_symbolize;
 * YING_EINVAL naming the profile otherwise).  Each of the four
 * values is summed after unsampling at each profile's own rate; alloc_*
 * are there only when every input has them.  The result is symbolized and
 * trimmed, may hold negative values, and has no raw counts (so
 * ying_profile_write_raw refuses it).  The inputs are only read and may be
 * freed afterwards; release *out with ying_profile_free().
 */
YING_EXTERN int ying_profile_merge(ying_profile **out,
    ying_profile *const *profiles, size_t n, ying_profile *base,
    const ying_merge_opts *opts);

/**
 * The profiles[0..n) (n >= 1, each symbolized) as one new profile whose
 * stacks carry a numeric pprof label `key` (1..64 bytes, not "bytes"):
 * profile i's stacks get the value values[i] (values has n entries), and
 * stacks are summed only within one value, so every input stays apart
 * (a service's processes, key "pid": `go tool pprof -tagfocus=pid=N`).
 * The pprof writer writes the label on every sample and the pprof reader
 * keeps it (one numeric key per profile); every other output sums over
 * all values.  Otherwise as ying_profile_merge without a base.  The inputs
 * are only read; release *out with ying_profile_free().
 */
YING_EXTERN int ying_profile_merge_labeled(ying_profile **out,
    ying_profile *const *profiles, size_t n, const char *key,
    const int64_t *values, const ying_merge_opts *opts);

/* ------------------------------------------------------------------------ */
/* Units: sizes as ying writes them                                          */
/* ------------------------------------------------------------------------ */

/** A byte count for people ("1.50 MiB", "12.0 GiB", "512 B") written into
 *  the caller's buf (at least 32 bytes); returns buf. */
YING_EXTERN const char *ying_format_bytes(double v, char *buf, size_t n);

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
YING_EXTERN int ying_recent_info_get(ying_recent_info *out,
    const ying_recent *r);

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
YING_EXTERN int ying_recent_get(ying_recent_record *out, const ying_recent *r,
    size_t i);

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
/** Fill *o as YING_LIFETIMES_OPTS_INIT does (NULL: no-op). */
YING_EXTERN void ying_lifetimes_opts_init(ying_lifetimes_opts *o);

/*
 * Lifetimes per call site: records grouped by the alloc stack's first
 * frame after allocator trimming (the call site; opts->stacks: the whole
 * stack), each with counts and bytes (usize) in the buckets
 * <1ms, <10ms, <100ms, <1s, <10s, <100s, >=100s and "live" (not freed at
 * capture), sorted by bytes.  Like every writer they never symbolize:
 * call ying_recent_symbolize first (else the frames are addresses and
 * the call site is the first frame).  Nothing is allocated for the caller.
 */
YING_EXTERN int ying_recent_write_lifetimes(const ying_recent *r,
    const ying_lifetimes_opts *opts, ying_write_fn fn, void *opaque);
/** The same as a self-contained SVG (one row per call site, a stacked bar
 *  per bucket, names escaped). */
YING_EXTERN int ying_recent_write_lifetimes_svg(const ying_recent *r,
    const ying_lifetimes_opts *opts, ying_write_fn fn, void *opaque);

/* ------------------------------------------------------------------------ */
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
/** Fill *o as YING_SQL_IMPORT_OPTS_INIT does (NULL: no-op). */
YING_EXTERN void ying_sql_import_opts_init(ying_sql_import_opts *o);

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
 * The records are listed as JSON (ying_giant_capture_write_json: the HTTP
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

/** What a listing says about itself (ying_giant_info_get; nothing to
 *  free). */
typedef struct ying_giant_info {
	uint64_t threshold;     /**< bytes: allocations of at least this */
	int64_t pid;            /**< the process listed */
	int64_t time_ns;        /**< when listed, CLOCK_REALTIME ns */
	uint64_t allocations;   /**< giant allocations seen since the start */
	uint64_t dropped;       /**< of them, not listed */
} ying_giant_info;
/** Fill *out from g; YING_EINVAL (out zeroed when not NULL) if either is
 *  NULL. */
YING_EXTERN int ying_giant_info_get(ying_giant_info *out, const ying_giant *g);
/** Number of records. */
YING_EXTERN size_t ying_giant_count(const ying_giant *g);
/** Record i (< ying_giant_count) into *out; YING_EINVAL otherwise. */
YING_EXTERN int ying_giant_get(ying_giant_record *out, const ying_giant *g,
    size_t i);
/**
 * The call sites' stacks: stack i is site i (ying_giant_record.stack),
 * with the listing's maps and build IDs, not symbolized yet (call
 * ying_profile_symbolize, or let a writer do it).  Owned by g: never
 * free it; valid until ying_giant_free(g).
 */
YING_EXTERN ying_profile *ying_giant_profile(ying_giant *g);

/* ------------------------------------------------------------------------ */
/* Leaks: verdicts over a series of dumps                                    */
/* ------------------------------------------------------------------------ */

/*
 * A series of dumps of one program over time (`ying leaks`): per call site
 * (the leaf function after allocator trimming, the function rows of `ying
 * top`; or the whole stack) the growth rate of its live bytes in bytes per
 * hour with its 95 % interval, the fit's r2 and a verdict.  The statistics
 * (least squares over time, the slope's error from the residuals plus
 * jemalloc's sampling variance, the level-off test and its thresholds) are
 * in ying(1), LEAKS.
 */
typedef struct ying_leaks ying_leaks;

typedef enum ying_leaks_verdict {
	YING_LEAKS_UNKNOWN = 0,  /**< too few dumps, or no spread in time */
	YING_LEAKS_LEAK = 1,     /**< steady growth that does not level off */
	YING_LEAKS_FILLED = 2,   /**< grew, then levelled off (a cache, a pool) */
	YING_LEAKS_CHURN = 3,    /**< no significant trend */
	YING_LEAKS_RELEASED = 4  /**< significant decrease */
} ying_leaks_verdict;

/** "unknown", "leak", "filled", "churn", "released"; static string. */
YING_EXTERN const char *ying_leaks_verdict_name(ying_leaks_verdict v);
/** Parse a verdict's name; YING_EINVAL naming the value otherwise. */
YING_EXTERN int ying_leaks_verdict_parse(ying_leaks_verdict *out, const char *name);

/**
 * A new, empty series; by_stack nonzero: one site per whole stack (its
 * frames' names, leaf first, ';'-separated) instead of per function.
 * Release it with ying_leaks_free().
 */
YING_EXTERN int ying_leaks_new(ying_leaks **out, int by_stack);
/** Release l and everything its accessors returned (NULL: no-op). */
YING_EXTERN void ying_leaks_free(ying_leaks *l);
/**
 * Add one dump, taken at ying_profile_time(p).  p should be symbolized
 * (ying_profile_symbolize) so that sites have names; it is only read and
 * stays the caller's (l keeps nothing of it).  YING_EINVAL for a time that
 * is not after the epoch (0 or negative).
 */
YING_EXTERN int ying_leaks_add(ying_leaks *l, const ying_profile *p);
/** ying_leaks_add with the caller's time t (seconds since the epoch, may
 *  have a fraction: a fetch's clock, a file's mtime in ns). */
YING_EXTERN int ying_leaks_add_at(ying_leaks *l, const ying_profile *p, double t);
/** The number of dumps added. */
YING_EXTERN size_t ying_leaks_ndumps(const ying_leaks *l);
/**
 * Fit every site and rank them (by rate, highest first).  Call it after
 * the last add (adding more later needs another compute).  YING_ENODATA
 * when no dump was added.
 */
YING_EXTERN int ying_leaks_compute(ying_leaks *l);

/** One site's results; strings are owned by the series (valid until
 *  ying_leaks_free).  Non-finite numbers (NaN) mean "not computed". */
typedef struct ying_leaks_site {
	const char *function;   /**< the function, or the stack with by_stack */
	ying_leaks_verdict verdict;
	const char *reason;     /**< why, in a few words */
	double rate;            /**< bytes per hour (least-squares slope) */
	double rate_lo, rate_hi; /**< its 95 % interval */
	double r2;              /**< fit quality over all dumps */
	double rate_first, rate_last; /**< slopes before / over the last third */
	double first, last;     /**< bytes in the first and the last dump */
	size_t points;          /**< dumps in the series */
	size_t present;         /**< dumps that hold the site */
} ying_leaks_site;
/** The number of sites (after ying_leaks_compute). */
YING_EXTERN size_t ying_leaks_count(const ying_leaks *l);
/** Site i in rank order: 0 and *out, or YING_EINVAL (no compute yet, or i
 *  past the end). */
YING_EXTERN int ying_leaks_site_get(const ying_leaks *l, size_t i,
    ying_leaks_site *out);
/** 1 when some site has verdict v (after ying_leaks_compute), else 0. */
YING_EXTERN int ying_leaks_any(const ying_leaks *l, ying_leaks_verdict v);

/**
 * Write the ranked sites (limit rows, 0 = all) as text, or as one JSON
 * object when json is nonzero: {"dumps":N,"first_time":T,"last_time":T,
 * "span_seconds":S,"period":R,"granularity":"function"|"stack","counts":
 * {"leak":N,...},"sites":[{"function","verdict","reason","rate","rate_lo",
 * "rate_hi","r2","rate_first","rate_last","first","last","points",
 * "present"},...]}; numbers not computed are null.  Call
 * ying_leaks_compute first (YING_EINVAL otherwise).
 */
YING_EXTERN int ying_leaks_write(const ying_leaks *l, int json, size_t limit,
    ying_write_fn fn, void *opaque);

/**
 * Add every dump of a database of `ying sql` to l, in time order: per
 * dump, the process-wide samples of each stack (the top_stacks view), the
 * site being the stack's function (stacks.function, the leaf) or, with
 * by_stack, its frames' functions leaf first.  The database stays the
 * caller's.  YING_ENODATA for a database without dumps.
 */
YING_EXTERN int ying_sql_leaks_add(ying_leaks *l, ying_sql *db);

#ifdef __cplusplus
}
#endif
#endif /* YING_H */
