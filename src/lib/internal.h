/*
 * internal.h: libying's shared internals: allocation, errors, growable
 * vectors, buffered output over a sink, interned strings, a u64 hash map,
 * and the one profile model every module reads.
 *
 * Naming: cross-file internals use the `yi_` prefix; they are hidden by
 * -fvisibility=hidden and never exported from libying.so.  Everything that
 * can fail returns 0 or a negative ying_err and records detail with
 * yi_error().
 *
 * The profile model (struct ying_profile) in one paragraph: a dump is a list
 * of stacks; each stack is a run of indices into `frames`, each naming a
 * location (one unique, caller-adjusted address).  Locations are resolved by
 * the symbolizer into a chain of lines (innermost inline frame first), each
 * naming a function (name, system name, file; all interned strings).
 * Allocator frames are marked on locations and trimmed per stack with
 * `skip`.  Values: raw counts as printed by jemalloc, plus the four
 * unsampled values (jeprof's AdjustSamples) computed once at parse time.
 */
#ifndef YING_INTERNAL_H
#define YING_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ying.h"

#define YI_UNUSED(x) ((void)(x))
#define YI_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* ---- memory (alloc.c) ---------------------------------------------------- */
void *yi_malloc(size_t n);
void *yi_calloc(size_t n, size_t size);
void *yi_realloc(void *p, size_t n);
/* realloc of n*size with overflow check; NULL on overflow or OOM */
void *yi_reallocarray(void *p, size_t n, size_t size);
char *yi_strdup(const char *s);
char *yi_strndup(const char *s, size_t n);
void yi_free(void *p);

/* ---- errors (error.c) ----------------------------------------------------- */
/* Record detail for the calling thread and return `code`. */
int yi_error(int code, const char *fmt, ...) YI_PRINTF(2, 3);
int yi_verror(int code, const char *fmt, va_list ap);
/* Record ENOMEM detail ("out of memory while WHAT") and return YING_ENOMEM. */
int yi_oom(const char *what);
void yi_error_clear(void);

/* ---- growable vectors ------------------------------------------------------ */
/* A vector is any struct with `T *v; size_t n, cap;`.  yi_vec_grow makes room
 * for `extra` more elements; 0 or YING_ENOMEM. */
#define YI_VEC(T) struct { T *v; size_t n, cap; }
int yi_vec_grow_(void **v, size_t *cap, size_t n, size_t extra, size_t elem);
#define yi_vec_grow(vec, extra) \
	yi_vec_grow_((void **)&(vec)->v, &(vec)->cap, (vec)->n, (extra), sizeof(*(vec)->v))
#define yi_vec_free(vec) do { yi_free((vec)->v); (vec)->v = NULL; \
	(vec)->n = (vec)->cap = 0; } while (0)

/* ---- buffered output over a sink (out.c) ----------------------------------- */
/* Buffers writes and remembers the first error; check with yi_out_finish. */
typedef struct yi_out {
	ying_write_fn fn;
	void *opaque;
	int err;
	size_t len;
	char buf[1 << 16];
} yi_out;
void yi_out_init(yi_out *o, ying_write_fn fn, void *opaque);
void yi_out_write(yi_out *o, const void *p, size_t n);
void yi_out_puts(yi_out *o, const char *s);
void yi_out_putc(yi_out *o, char c);
void yi_out_printf(yi_out *o, const char *fmt, ...) YI_PRINTF(2, 3);
/* JSON string literal with quotes and escapes (UTF-8 passed through, control
 * characters and invalid bytes escaped). */
void yi_out_json_str(yi_out *o, const char *s);
/* JSON number: integers without exponent, others with up to 17 digits;
 * non-finite values as 0. */
void yi_out_json_num(yi_out *o, double v);
/* XML/SVG text with <, >, &, ", ' escaped. */
void yi_out_xml(yi_out *o, const char *s);
/* "name (file.c:line)": the file's base name, ":line" only when known,
 * nothing in parentheses when the file is unknown.  Every report prints
 * frames this way. */
void yi_out_where(yi_out *o, const char *name, const char *file, uint32_t line);
/* Flush and return the first error (0 if none). */
int yi_out_finish(yi_out *o);

/* ---- formatting helpers (format.c) ---------------------------------------- */
/* Human-readable size: "1.5 MiB", "512 B"; buf >= 32 bytes. */
const char *yi_fmt_bytes(double v, char *buf, size_t n);
/* Value in the unit of a sample index: bytes as yi_fmt_bytes, objects as
 * an integer count. */
const char *yi_fmt_value(double v, ying_sample_index idx, char *buf, size_t n);
static inline bool yi_index_is_bytes(ying_sample_index idx)
{
	return idx == YING_INUSE_SPACE || idx == YING_ALLOC_SPACE;
}

/* ---- interned strings (strtab.c) ------------------------------------------ */
/* Id 0 is always the empty string. Ids are stable; strings never move
 * within a chunk (pointers stay valid until yi_strtab_release). */
typedef struct yi_strtab {
	char **chunks;
	size_t nchunks, chunk_used, chunk_cap;
	YI_VEC(const char *) strs;
	YI_VEC(size_t) lens;
	uint32_t *slots;         /* open addressing: id+1, 0 = empty */
	size_t nslots;
} yi_strtab;
int yi_strtab_init(yi_strtab *t);
void yi_strtab_release(yi_strtab *t);
/* Intern s[0..len); returns the id in *id. */
int yi_strtab_intern(yi_strtab *t, const char *s, size_t len, uint32_t *id);
static inline const char *yi_strtab_get(const yi_strtab *t, uint32_t id)
{
	return t->strs.v[id];
}
static inline size_t yi_strtab_len(const yi_strtab *t, uint32_t id)
{
	return t->lens.v[id];
}

/* ---- u64 -> u32 hash map (hashmap.c) -------------------------------------- */
typedef struct yi_map64_slot {
	uint64_t key;
	uint32_t val;            /* UINT32_MAX = empty */
	uint32_t pad;
} yi_map64_slot;
typedef struct yi_map64 {
	yi_map64_slot *slots;    /* key and value side by side: one cache miss */
	size_t cap, n;
} yi_map64;
int yi_map64_init(yi_map64 *m, size_t expect);
void yi_map64_release(yi_map64 *m);
/* Find key; returns pointer to the value slot or NULL. */
uint32_t *yi_map64_get(const yi_map64 *m, uint64_t key);
/* Insert key with val if absent.  *slot points at the stored value;
 * *added tells whether it was inserted. */
int yi_map64_put(yi_map64 *m, uint64_t key, uint32_t val, uint32_t **slot, bool *added);
uint64_t yi_hash64(uint64_t x);
uint64_t yi_hash_bytes(const void *p, size_t n, uint64_t seed);

/* ---- the profile model (profile.c) ---------------------------------------- */
typedef struct yi_counts {
	uint64_t objs, bytes;         /* in use (curobjs, curbytes) */
	uint64_t acc_objs, acc_bytes; /* cumulative, only with prof_accum */
} yi_counts;

typedef struct yi_mapping {
	uint64_t start, end, offset;
	uint64_t inode;
	uint32_t path;          /* strtab id ("" for anonymous) */
	uint32_t build_id;      /* strtab id, lowercase hex; 0 = unknown */
	char perms[5];
	uint8_t exec;           /* 'x' in perms */
	uint8_t is_jemalloc;    /* path names libjemalloc */
	uint8_t symbolized;     /* symbols were found for it (set by symbolizer) */
	uint8_t has_dev;        /* dev_major:dev_minor came from a maps line */
	uint32_t dev_major, dev_minor;  /* the device of the maps line */
} yi_mapping;

typedef struct yi_line {
	uint32_t func;          /* index in p->funcs */
	uint32_t line;          /* 0 = unknown */
} yi_line;

typedef struct yi_func {
	uint32_t name;          /* strtab: demangled name, or "module+0xoff" */
	uint32_t sysname;       /* strtab: mangled name (or same as name) */
	uint32_t file;          /* strtab: source file, "" when unknown */
} yi_func;

typedef struct yi_loc {
	uint64_t addr;          /* leaf: pc as dumped; callers: pc - 1 */
	int32_t mapping;        /* index in p->maps, -1 = none */
	uint32_t line_off;      /* first yi_line in p->lines */
	uint16_t nlines;        /* inline chain, innermost first; 0 = none yet */
	uint8_t allocator;      /* frame belongs to the allocator (trimmed) */
	uint8_t pad;
} yi_loc;

typedef struct yi_stack {
	uint32_t frame_off;     /* first entry in p->frames (leaf first) */
	uint32_t nframes;
	uint32_t skip;          /* leading frames trimmed as allocator frames */
	uint32_t pad;
	yi_counts raw;          /* the `t*:` line of this stack */
	double val[4];          /* unsampled, indexed by ying_sample_index */
} yi_stack;

typedef struct yi_thread {
	uint64_t uid;
	uint32_t name;          /* strtab id */
	yi_counts raw;
} yi_thread;

typedef struct yi_thread_count { /* a per-stack `tN:` line */
	uint32_t stack;
	uint64_t uid;
	yi_counts raw;
} yi_thread_count;

enum yi_source_format { YI_FMT_HEAP_V2 = 0, YI_FMT_PPROF = 1 };

struct ying_profile {
	char *source;           /* file name or label, for messages */
	int format;             /* enum yi_source_format */
	uint64_t period;        /* R = 2^lg_prof_sample */
	bool has_accum;         /* some stack has nonzero cumulative counts */
	bool symbolized;
	int64_t time;           /* seconds since epoch */
	yi_counts header;       /* process-wide `t*:` header line */
	int main_map;           /* index of the main executable mapping, -1 */
	bool has_maps;          /* a MAPPED_LIBRARIES section was present */
	uint32_t unknown_func;  /* "[unknown]": stacks with no frame left */

	YI_VEC(yi_thread) threads;
	YI_VEC(yi_thread_count) tcounts;
	YI_VEC(yi_stack) stacks;
	YI_VEC(uint32_t) frames;  /* location indices */
	YI_VEC(yi_loc) locs;
	yi_map64 loc_by_addr;     /* adjusted addr -> loc index */
	YI_VEC(yi_mapping) maps;
	YI_VEC(yi_line) lines;
	YI_VEC(yi_func) funcs;
	yi_map64 func_by_key;     /* (name id << 32 | file id) -> func index */
	yi_strtab strs;
	char *maps_text;          /* MAPPED_LIBRARIES body as dumped (NUL-terminated) */
	size_t maps_text_len;
};

/* Create an empty profile (source label copied). */
int yi_profile_new(ying_profile **out, const char *source);
/* Location for a raw pc at stack position `depth` (0 = leaf); jeprof's
 * FixCallerAddresses: callers are looked up at pc - 1. */
int yi_profile_loc(ying_profile *p, uint64_t pc, bool leaf, uint32_t *loc);
/* Function id for (name, sysname, file); interned and deduplicated. */
int yi_profile_func(ying_profile *p, const char *name, const char *sysname,
    const char *file, uint32_t *func);
/* Append the inline chain (innermost first) of a location. */
int yi_profile_set_lines(ying_profile *p, uint32_t loc, const yi_line *lines,
    size_t n);
/* jeprof's AdjustSamples for one (count, bytes) pair at period R. */
void yi_unsample(uint64_t n, uint64_t s, uint64_t period, double *n_out,
    double *s_out);
/* Fill st->val from st->raw. */
void yi_stack_compute_values(const ying_profile *p, yi_stack *st);
/* Check that idx is available (alloc_* needs accum data). */
int yi_profile_check_index(const ying_profile *p, ying_sample_index idx);
/* Symbolize with default options unless already done. */
int yi_profile_ensure_symbolized(ying_profile *p);
const char *yi_profile_str(const ying_profile *p, uint32_t id);

/* An expanded frame of a stack (after allocator trimming), leaf first. */
typedef struct yi_frame {
	uint32_t func;          /* index in p->funcs */
	uint32_t line;
	uint32_t loc;
	uint8_t inlined;        /* this frame was inlined into the next one */
} yi_frame;
typedef YI_VEC(yi_frame) yi_framevec;
/* Expand stack s into frames (leaf first).  Uses and grows *buf.
 * Returns the number of frames or a negative error. */
long yi_stack_expand(const ying_profile *p, const yi_stack *s,
    yi_framevec *buf);

/* ---- stack filters (filter.c) --------------------------------------------- */
/* focus/ignore over function name, file:line of any frame (ERE). */
typedef struct yi_filter yi_filter;
int yi_filter_new(yi_filter **out, const char *focus, const char *ignore);
void yi_filter_free(yi_filter *f);
/* true when the stack passes (kept). */
bool yi_filter_keep(yi_filter *f, const ying_profile *p, const yi_frame *fr,
    size_t n);

/* ---- parser (heap_parse.c) ------------------------------------------------ */
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

/* ---- pprof reader (pprof_read.c) ------------------------------------------ */
/* data is the (already gunzipped) profile.proto. */
int yi_pprof_parse(ying_profile **out, const void *data, size_t len,
    const char *name);

/* ---- gzip helpers (gz.c) --------------------------------------------------- */
bool yi_is_gzip(const void *data, size_t len);
/* Inflate a whole gzip buffer; *out is yi_malloc'd.  `max` bounds the result. */
int yi_gunzip(const void *data, size_t len, size_t max, void **out,
    size_t *outlen, const char *name);
/* Gzip writer that forwards compressed bytes to a sink. */
typedef struct yi_gzout yi_gzout;
int yi_gzout_new(yi_gzout **out, ying_write_fn fn, void *opaque, int level);
int yi_gzout_write(void *gz /* yi_gzout* */, const void *data, size_t len);
int yi_gzout_finish(yi_gzout *g);   /* flushes and frees */
void yi_gzout_abort(yi_gzout *g);   /* frees without flushing */

/* ---- symbolizer (symbolize.c) and allocator trimming (trim.c) ------------- */
int yi_symbolize(ying_profile *p, ying_symbolizer *s,
    const ying_symbolize_opts *opts);
int yi_trim(ying_profile *p, const ying_symbolize_opts *opts);
/* true if the function name is an allocator entry point or jemalloc
 * internal (malloc, operator new, je_*, prof_backtrace_impl, ...). */
bool yi_is_allocator_name(const char *name);
/* Is there a call instruction for `machine` (EM_X86_64, EM_AARCH64) that
 * ends exactly at `end` (a return address)?  end[-avail..-1] are readable.
 * Returns the instruction's length, or 0 (also for other machines). */
size_t yi_call_before(unsigned machine, const unsigned char *end, size_t avail);
/* true if the function name is a well-known allocation wrapper of another
 * project (zmalloc, _PyObject_Malloc, g_malloc, CRYPTO_malloc, xmalloc,
 * ...; the list in trim.c), trimmed like allocator frames when leading. */
bool yi_is_wrapper_name(const char *name);


/* ---- flame graphs (flame.c; used by the plain and the differential SVG) --- */
/* A tree of frames merged by name from the root.  Each node has a value
 * (width; NOW for a diff) and a base value (BASE for a diff, unused for a
 * plain graph).  Names, files and lines are copied; the profiles need not
 * outlive the tree. */
typedef struct yi_flame yi_flame;
int yi_flame_new(yi_flame **out);
void yi_flame_free(yi_flame *f);
/* Add one stack (frames leaf first, as from yi_stack_expand). */
int yi_flame_add(yi_flame *f, const ying_profile *p, const yi_frame *frames,
    size_t n, double value, double base);
typedef struct yi_flame_meta {
	const char *title;       /* already defaulted by the caller */
	const char *subtitle;
	ying_sample_index idx;   /* unit of values */
	bool diff;               /* colour by value - base, add a legend */
} yi_flame_meta;
int yi_flame_write_svg(yi_flame *f, const ying_svg_opts *opts,
    const yi_flame_meta *meta, yi_out *o);

/* ---- pprof writer internals (pprof_write.c) ------------------------------- */
/* Write any symbolized profile; values come from stack val[] (so a diff
 * profile with negative values works).  Only sample types the profile has
 * are written (alloc_* only when has_accum). */
int yi_pprof_write(ying_profile *p, const ying_pprof_opts *opts,
    ying_write_fn fn, void *opaque);

/* ---- diff internals (diff.c) ----------------------------------------------- */
/* The synthetic NOW-minus-BASE profile that ying_diff_write_pprof hands to
 * yi_pprof_write (format YI_FMT_PPROF, symbolized, val[] = deltas, NOW's
 * mappings).  *out is new; release with ying_profile_free. */
int yi_diff_profile(ying_diff *d, ying_profile **out);

/* ---- control layer (ctl.c) ------------------------------------------------ */
/* Call mallctl(name, ...) on the process's jemalloc.  Returns 0 or
 * YING_ENOJEMALLOC; mallctl's own errno-style result goes to *err. */
int yi_ctl_call(const char *name, void *oldp, size_t *oldlenp, void *newp,
    size_t newlen, int *err);
/* Turn jemalloc sampling off for the calling thread, once per thread (a
 * thread-local flag makes later calls free).  Never fails; for the threads
 * of the HTTP server, the agent and the uploader. */
void yi_ctl_quiet_thread(void);
/* Test seam: dump to memory through the private directory, not a memfd. */
extern bool yi_ctl_force_dir_dump;

/* ---- growth runner (runner.c) --------------------------------------------- */
/* Local time t in ISO 8601 with its UTC offset: "2026-09-09T16:45:05-04:00",
 * or the basic form "20260909T164505-0400" when portable.  buf >= 32. */
int yi_runner_iso_time(char *buf, size_t n, int64_t t, bool portable);
/* The base name of a report set: "ying.<iso time>.<N>MiB" (N = the live
 * heap in MiB, rounded).  buf >= 64. */
int yi_runner_base_name(char *buf, size_t n, int64_t t, double bytes,
    bool portable);
/* Parse a report file name: 1 and the base length in *base_len when `name`
 * is "ying.<time>.<N>MiB.{report,svg,heap,pb.gz}" (or the older "<N>MB"),
 * else 0. */
int yi_runner_parse_name(const char *name, size_t *base_len);
/* What one report set says besides the profile. */
typedef struct yi_report_meta {
	int64_t time;              /* dump time (seconds since the epoch) */
	long pid;
	const char *program;       /* label */
	const char *base;          /* the set's base name (for the "files" line) */
	const char *trigger;       /* why this report ("grew 23.4 % ...") */
	bool portable;             /* names without ':' */
	unsigned top;              /* stacks to list */
	bool have_stats;
	ying_ctl_stats stats;
	const char *stats_error;   /* when !have_stats */
	/* the previous report, if any */
	ying_profile *prev;        /* may be NULL */
	int64_t prev_time;
	double prev_total;
} yi_report_meta;
/* Write the readable .report text for profile p (symbolized on demand). */
int yi_runner_write_report(ying_profile *p, double total,
    const yi_report_meta *m, ying_write_fn fn, void *opaque);
/* Write a whole set (.heap from dump[0..len), .pb.gz, .svg, .report last)
 * into dir atomically.  `base` is yi_runner_base_name's result.  On failure
 * nothing of the set is left behind. */
int yi_runner_write_set(const char *dir, const char *base, ying_profile *p,
    double total, const char *dump, size_t len, const yi_report_meta *m);
/* Remove the oldest report sets in dir (never `keep`, a base name or NULL)
 * until at most max_sets remain and they take at most max_bytes (0 = no
 * bound).  Only names yi_runner_parse_name accepts are touched.  Returns the
 * number of sets removed or a negative error. */
int yi_runner_prune(const char *dir, unsigned max_sets, uint64_t max_bytes,
    const char *keep);
/* Create dir and missing parents with mode 0700. */
int yi_mkdir_p(const char *dir);
/* A signal for dump requests: "USR2", "SIGUSR2", "12", "RTMIN+2".  Signals
 * that cannot or must not be caught (KILL, STOP, SEGV, BUS, FPE, ILL, ABRT,
 * TRAP, SYS, CHLD, CONT, TSTP, TTIN, TTOU) are refused with YING_EINVAL. */
int yi_signal_parse(const char *s, int *sig);
/* "SIGUSR2", "SIGRTMIN+2", "signal 40"; buf >= 24. */
const char *yi_signal_name(int sig, char *buf, size_t n);

/* The listening socket of a running endpoint (still owned by h), or -1:
 * the agent closes its copy in a forked child (http.c; ctl.c without HTTP). */
int yi_http_listen_fd(const ying_http *h);

#endif /* YING_INTERNAL_H */
