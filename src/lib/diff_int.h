/*
 * diff_int.h: private to the diff files (diff_build.c, diff_text.c,
 * diff_flame.c, diff_pprof.c; not installed): struct ying_diff (diff
 * stacks, function and line rows, totals; described in diff_build.c) and
 * the functions one file offers the others.
 */
#ifndef YING_DIFF_INT_H
#define YING_DIFF_INT_H

#include "diff.h"

enum { BASE = 0, NOW = 1 };

typedef struct dfunc {
	uint32_t name;          /* diff strtab */
	uint32_t file;          /* diff strtab */
	uint32_t show;          /* diff strtab: what the text prints
	                           (yi_names_show over the diff's functions) */
} dfunc;

typedef struct dstack {
	const uint32_t *funcs;  /* diff function ids, leaf first (the key of
	                           this stack in d->stack_ids, owned by it) */
	uint32_t nfuncs;
	double val[2][4];       /* [BASE/NOW][sample index], unsampled, summed */
	double var[2];          /* sampling variance of val[side][d->idx]
	                           (model_noise.c), summed over source stacks */
	int32_t src[2];         /* a representative stack in each profile, -1 */
	uint32_t heap;          /* diff strtab: the stack's heap, when
	                           d->has_heaps (part of its identity: the key
	                           in stack_ids is funcs then this id) */
} dstack;

/* A heap of either side (the diff's Heaps line and JSON heaps list): its
 * name and each side's unfiltered total at the diff's index. */
typedef struct dheap {
	uint32_t name;          /* diff strtab */
	double total[2];
	double var[2];          /* their sampling variances */
} dheap;

/* A function or line row (model_agg.c): func is a diff function id; line
 * is the line (BY_LINE), or the most changed line (BY_FUNCTION). */
typedef yi_agg_row drow;
typedef yi_agg_rows drowvec;

struct ying_diff {
	const ying_profile *p[2];
	ying_sample_index idx;
	bool filtered;
	yi_strtab strs;
	YI_VEC(dfunc) funcs;
	yi_map64 func_by_key;     /* name id << 32 | file id -> diff function id */
	yi_idset stack_ids;       /* function id sequences -> diff stack index */
	YI_VEC(dstack) stacks;    /* indexed by stack_ids' ids */
	yi_agg sums;              /* funcs: by diff function id; lines: by
	                             function and line */
	double total[2][4];       /* kept stacks */
	double var[2];            /* kept stacks: variance of total[side][idx] */
	double all[2];            /* every stack, the diff's index (unfiltered) */
	size_t nsrc[2];           /* kept source stacks */
	bool whole;               /* a side is pprof: truncate values (see top) */
	char *warning;            /* different programs, or NULL */
	bool has_heaps;           /* either side has heaps: a stack's heap is
	                             part of its identity */
	uint32_t primary;         /* diff strtab: the heap of the stacks of a
	                             side without heaps (the other side's
	                             first heap); 0 when both have heaps */
	YI_VEC(dheap) heaps;      /* NOW's heaps in dump order, then BASE's
	                             others */
};

/* Changes smaller than this (one byte, one object) are no change. */
#define MIN_CHANGE 1.0


/* Sort orders of yi_cmp_stacks (stacks) and the row sorts of diff_text.c. */
typedef enum yi_dorder {
	YI_ORDER_FLAT_DELTA = 0,  /* rows: flat delta desc, then cum delta */
	YI_ORDER_CUM_DELTA,       /* rows: cum delta desc, then flat delta */
	YI_ORDER_DELTA,           /* stacks: delta desc */
	YI_ORDER_NOW,             /* stacks: NOW desc */
	YI_ORDER_BASE,            /* stacks: BASE desc */
	YI_ORDER_NAMES            /* stacks: by function names only, root first */
} yi_dorder;

typedef struct sortctx {
	const ying_diff *d;
	yi_dorder order;
} sortctx;

/* ---- diff_text.c */
const char *yi_dstr(const ying_diff *d, uint32_t id);
int yi_cmp_stacks(const void *a, const void *b, void *ctx);
size_t yi_dheap_index(const ying_diff *d, uint32_t name);
const char *yi_fmt_signed(double v, ying_sample_index idx, char *buf, size_t n);
long yi_stack_frames(const ying_diff *d, const dstack *s, const ying_profile **pp,
    yi_framevec *fr);
double yi_pct(double delta, double base);
/* The variance of the delta of stack s, of row r (flat, or cum). */
double yi_stack_dvar(const dstack *s);
double yi_row_dvar(const drow *r, bool cum);
/* "+12.0 MiB ±0.4 MiB": a delta and the half width of its 95 % interval
 * (just the delta when the variance is 0). */
const char *yi_fmt_delta_pm(double delta, double var, ying_sample_index idx,
    char *buf, size_t n);

#endif /* YING_DIFF_INT_H */
