/*
 * model.h: the model family (model.c, model_filter.c): the one profile
 * model every module reads, and stack filters.
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
#ifndef YING_MODEL_H
#define YING_MODEL_H

#include "base.h"

/* ---- the profile model (model.c) ----------------------------------------- */
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
	uint32_t show;          /* strtab: what text outputs print (the short
	                           name, sym_short.c; `name` until the
	                           symbolize pass or a merge sets it) */
} yi_func;

typedef struct yi_loc {
	uint64_t addr;          /* leaf: pc as dumped; callers: pc - 1 */
	int32_t mapping;        /* index in p->maps, -1 = none */
	uint32_t line_off;      /* first yi_line in p->lines */
	uint16_t nlines;        /* inline chain, innermost first; 0 = none yet */
	uint8_t allocator;      /* frame belongs to the allocator (trimmed) */
	uint8_t lskip;          /* leading inline lines (allocator or wrapper
	                           functions inlined into it) trimmed when the
	                           location leads a stack (sym_trim.c) */
} yi_loc;

typedef struct yi_stack {
	uint32_t frame_off;     /* first entry in p->frames (leaf first) */
	uint32_t nframes;
	uint32_t skip;          /* leading frames trimmed as allocator frames */
	uint32_t layer;         /* the standard-library layer trimmed below the
	                           first frame (sym_trim.c; yi_layer_kind_id:
	                           "vector growth", ...), 0 for none */
	yi_counts raw;          /* the `t*:` line of this stack */
	double val[4];          /* unsampled, indexed by ying_sample_index */
	int64_t label;          /* the value of the profile's numeric label
	                           (label_key), when has_label */
	uint32_t heap;          /* strtab id of the stack's heap's name, when
	                           has_heaps (one of p->heaps; 0 = not yet) */
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
	bool symbolized;        /* every location has its lines (or never will):
	                           set at read time for a pprof with names,
	                           else by the symbolizer (sym_pass.c) */
	bool trimmed;           /* allocator/--drop-frames trimming applied
	                           (sym_trim.c), stacks' skip is valid */
	bool kept_allocators;   /* trimmed with keep_allocator_frames: the
	                           allocator frames are part of the stacks */
	bool full_names;        /* symbolized with full_names: funcs' `show`
	                           is the full name (sym_short.c) */
	char *sym_opts;         /* the options ying_profile_symbolize ran with
	                           (sym_pass.c's opts_key; NULL: not run, or a
	                           diff/merge result); owned, freed with p */
	int64_t time;           /* seconds since epoch */
	yi_counts header;       /* process-wide `t*:` header line */
	int main_map;           /* index of the main executable mapping, -1 */
	bool has_maps;          /* a MAPPED_LIBRARIES section was present */
	uint32_t unknown_func;  /* "[unknown]": stacks with no frame left */
	bool has_label;         /* stacks carry a numeric pprof label: key
	                           label_key (strtab), value yi_stack.label
	                           (ying_profile_merge_labeled; read_pprof
	                           keeps the first numeric key but "bytes") */
	uint32_t label_key;
	bool has_heaps;         /* the dump holds several heaps (a `ying-heap:`
	                           trailer, a pprof `heap` label): each stack's
	                           heap names its own; heaps lists the names in
	                           dump order (strtab ids) */
	YI_VEC(uint32_t) heaps;

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
/* A new location at addr (as given, no pc - 1) in mapping (-1 = none), even
 * when addr has one already (pprof locations need not have unique
 * addresses); the first location at a nonzero addr is the one found by
 * address. */
int yi_profile_loc_distinct(ying_profile *p, uint64_t addr, int32_t mapping,
    uint32_t *loc);
/* The one way to add a stack: frames locs[0..n) (leaf first, location
 * indices, copied), its raw counts, and its four unsampled values (val,
 * indexed by ying_sample_index) or NULL to compute them from raw at p's
 * period (heap_v2: call after the period is known). */
int yi_profile_add_stack(ying_profile *p, const uint32_t *locs, size_t n,
    const yi_counts *raw, const double *val);
/* A heap_v2-format profile with no stacks yet: sample period `period`
 * (> 0), process-wide totals *total (the header's t*: line; NULL: zeros).
 * The caller frees *out with ying_profile_free. */
YI_SHARED int yi_profile_new_heap(ying_profile **out, const char *source, uint64_t period,
    const yi_counts *total);
/* Add the stack pcs[0..n) (raw pcs, leaf first, as a heap_v2 '@' line
 * lists them: callers are looked up at pc - 1) with raw counts *raw,
 * unsampled at p's period: the same locations, stack and doubles as the
 * heap_v2 reader makes of "@ 0x<pc>...\n  t*: <objs>: <bytes> [...]".
 * pcs is copied. */
YI_SHARED int yi_profile_add_pcs(ying_profile *p, const uint64_t *pcs, size_t n,
    const yi_counts *raw);
/* A new profile that is p without its stacks, frames and per-thread
 * splits: the same strings (under the same ids), functions, locations,
 * lines, mappings, threads, heaps, header, flags and lookups, so p's stacks
 * can be added to it as they are (ying_profile_fold).  The caller frees
 * *out with ying_profile_free. */
int yi_profile_copy_base(ying_profile **out, const ying_profile *p);
/* Function id for (name, sysname, file); interned and deduplicated.  Its
 * `show` is the name until yi_profile_names chooses. */
YI_SHARED int yi_profile_func(ying_profile *p, const char *name, const char *sysname,
    const char *file, uint32_t *func);
/* Append the inline chain (innermost first) of a location. */
YI_SHARED int yi_profile_set_lines(ying_profile *p, uint32_t loc, const yi_line *lines,
    size_t n);
/* jeprof's AdjustSamples for one (count, bytes) pair at period R, each
 * rounded to the nearest integer: the value every ying output sums. */
void yi_unsample(uint64_t n, uint64_t s, uint64_t period, double *n_out,
    double *s_out);
/* The same without rounding: jeprof's own fractional estimates. */
void yi_unsample_exact(uint64_t n, uint64_t s, uint64_t period, double *n_out,
    double *s_out);
/* Fill st->val from st->raw. */
void yi_stack_compute_values(const ying_profile *p, yi_stack *st);
/* Check that idx is available (alloc_* needs accum data). */
int yi_profile_check_index(const ying_profile *p, ying_sample_index idx);
YI_SHARED const char *yi_profile_str(const ying_profile *p, uint32_t id);

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
YI_SHARED long yi_stack_expand(const ying_profile *p, const yi_stack *s,
    yi_framevec *buf);

/* Mappings by address, the one rule for the symbolizer and the pprof
 * writer: yi_maps_sort orders idx[0..n) (indices into p->maps) by start
 * address (ties by index); yi_maps_find returns the mapping of sorted
 * idx[0..n) that starts last at or below addr if it contains addr, else -1. */
YI_SHARED void yi_maps_sort(const ying_profile *p, uint32_t *idx, size_t n);
YI_SHARED int32_t yi_maps_find(const ying_profile *p, const uint32_t *idx, size_t n, uint64_t addr);

/* ---- alloc deltas (model_delta.c) ---------------------------------------- */
/* The identity of stack s of p across dumps of one process: its addresses
 * (every frame, as dumped), its heap's name and its depth, hashed with key
 * k (SipHash-1-3).  buf holds s->nframes + 2 words (the caller's). */
YI_SHARED uint64_t yi_stack_key(const uint64_t k[2], const ying_profile *p,
    const yi_stack *s, uint64_t *buf);
/* The alloc_* values of the last profile seen, per stack (matched by its
 * addresses and heap across dumps of one process).  Zero-initialise;
 * release with yi_alloc_delta_release. */
typedef struct yi_alloc_delta {
	yi_map64 idx;           /* stack key -> pair index in prev */
	YI_VEC(double) prev;    /* alloc_space, alloc_objects per stack */
	uint64_t key[2];
	bool keyed, primed;
} yi_alloc_delta;
/* prime: remember p's values (p unchanged).  Else: p's alloc_space and
 * alloc_objects become what each stack allocated since the last profile
 * given (all of it when none was, or the stack is new, or its values went
 * down: prof.reset), and p's values are remembered.  *changed (may be
 * NULL): stacks whose values changed.  A profile without accum data
 * forgets the state. */
YI_SHARED int yi_alloc_delta_apply(yi_alloc_delta *d, ying_profile *p, bool prime,
    size_t *changed);
YI_SHARED void yi_alloc_delta_release(yi_alloc_delta *d);
/* Drop the stacks whose four values are all 0 (after alloc deltas: a stack
 * that holds nothing and allocated nothing; Pyroscope drops such samples,
 * but counts them against its samples limit first).  Per-thread counts
 * follow their stacks.  The number dropped. */
YI_SHARED size_t yi_profile_drop_zero(ying_profile *p);

/* ---- heaps (model_filter.c) ----------------------------------------------- */
/* A heap's name: [a-z0-9_.-]{1,32}. */
#define YI_HEAP_NAME_MAX 32
bool yi_heap_name_ok(const char *name, size_t len);
/* The heap called name[0..len) (added to p->heaps when new, has_heaps
 * set): its strtab id in *id. */
int yi_profile_add_heap(ying_profile *p, const char *name, size_t len, uint32_t *id);
/* When p has heaps, every stack without one (heap 0) joins the heap
 * YI_HEAP_UNNAMED (a pprof with a `heap` label on some samples only). */
#define YI_HEAP_UNNAMED "unnamed"
int yi_profile_heaps_complete(ying_profile *p);

/* ---- stack filters (model_filter.c) -------------------------------------- */
/* focus/ignore over function name, file:line of any frame (ERE). */
typedef struct yi_filter yi_filter;
int yi_filter_new(yi_filter **out, const char *focus, const char *ignore);
void yi_filter_free(yi_filter *f);
/* true when the stack passes (kept). */
bool yi_filter_keep(yi_filter *f, const ying_profile *p, const yi_frame *fr,
    size_t n);
/* The stacks a report counts, in order: those whose value at idx is not 0
 * and that f keeps (f NULL: all), each expanded into frames.  Set up with
 * YI_STACK_WALK_INIT; yi_stack_walk_next returns 1 with w->s (the stack's
 * index), w->v (its value) and w->fr (its frames, valid until the next
 * call), 0 after the last, or a negative error.  The walk owns w->fr:
 * yi_stack_walk_end frees it (after any return). */
typedef struct yi_stack_walk {
	const ying_profile *p;
	yi_filter *f;
	int idx;                /* a ying_sample_index */
	size_t s;               /* the current stack (SIZE_MAX before the first) */
	double v;
	yi_framevec fr;
} yi_stack_walk;
#define YI_STACK_WALK_INIT(p, f, idx) { (p), (f), (int)(idx), SIZE_MAX, 0, { 0 } }
int yi_stack_walk_next(yi_stack_walk *w);
void yi_stack_walk_end(yi_stack_walk *w);

/* ---- flat and cumulative sums (model_agg.c) ------------------------------ */
/* The one rule for per-function and per-line values (`ying top`, yingdiff):
 * a stack's value is added to the flat value of its leaf frame and to the
 * cumulative value of every distinct function (or function and line) on
 * it, once per stack even under recursion (jeprof's ReduceProfile).
 * Functions are dense ids of the caller's choosing (a profile's own, or a
 * diff's); values have two sides (a profile uses side 0; a diff BASE and
 * NOW). */
typedef struct yi_agg_row {
	uint32_t func;
	uint32_t line;          /* line rows: the line; function rows: 0 (the
	                           caller may store a chosen line there) */
	double flat[2], cum[2]; /* per side */
	double fvar[2], cvar[2]; /* their sampling variances (model_noise.c) */
	uint32_t stamp;         /* last stack counted in cum */
} yi_agg_row;
typedef YI_VEC(yi_agg_row) yi_agg_rows;
enum {
	YI_AGG_FUNCS = 1,       /* function rows */
	YI_AGG_LINES = 2,       /* (function, line) rows for every frame */
	YI_AGG_LEAF_LINES = 4   /* (function, line) rows for leaf frames only */
};
typedef struct yi_agg {
	int what;               /* YI_AGG_* flags */
	yi_agg_rows funcs;      /* indexed by function id; ids never counted
	                           past the last one are absent */
	yi_agg_rows lines;      /* in order of first appearance */
	yi_map64 line_of;       /* func << 32 | line -> index in lines */
	uint32_t stamp;
	struct {                /* direct-mapped cache in front of line_of */
		uint64_t key;
		uint32_t row1;  /* index in lines + 1; 0: empty */
	} line_cache[64];
} yi_agg;
/* An empty aggregate of the rows `what` asks for (allocates nothing). */
void yi_agg_init(yi_agg *a, int what);
void yi_agg_release(yi_agg *a);
/* Count one stack on `side`: its frames fr[0..n) (leaf first), their
 * function ids funcs[0..n) (NULL: fr[i].func), its value v. */
int yi_agg_stack(yi_agg *a, int side, const yi_frame *fr, const uint32_t *funcs,
    size_t n, double v);
/* The same, with the stack's sampling variance var (summed like v). */
int yi_agg_stack_var(yi_agg *a, int side, const yi_frame *fr, const uint32_t *funcs,
    size_t n, double v, double var);

/* ---- sampling error (model_noise.c; the model is derived there) ---------- */
#define YI_Z95 1.959963984540054   /* two-sided 95 % normal quantile */
/* The variance of an unsampled estimate of `objs` objects and `bytes`
 * bytes at sample period `period` (mean size bytes/objs): of the bytes
 * (want_bytes) or of the objects.  0 for exact dumps (period <= 1). */
double yi_sample_var(double objs, double bytes, uint64_t period, bool want_bytes);
/* yi_sample_var of a stack's values val[4] at sample index idx. */
double yi_stack_var(const double *val, uint64_t period, ying_sample_index idx);
/* The 95 % interval [*lo, *hi] (either may be NULL) of a delta with
 * variance var; true when it excludes 0 (the change is significant). */
bool yi_interval(double delta, double var, double *lo, double *hi);

#endif /* YING_MODEL_H */
