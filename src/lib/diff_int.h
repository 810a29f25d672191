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
} dfunc;

typedef struct dstack {
	uint32_t func_off;      /* first diff function id in d->ids (leaf first) */
	uint32_t nfuncs;
	uint64_t hash;
	double val[2][4];       /* [BASE/NOW][sample index], unsampled, summed */
	int32_t src[2];         /* a representative stack in each profile, -1 */
} dstack;

typedef struct drow {
	uint32_t func;          /* diff function id */
	uint32_t line;          /* BY_LINE: the line; BY_FUNCTION: most changed line */
	double flat[2], cum[2];
	double best;            /* BY_FUNCTION: score of the chosen line */
	uint32_t stamp;         /* last source stack counted in cum */
} drow;

typedef YI_VEC(drow) drowvec;

struct ying_diff {
	const ying_profile *p[2];
	ying_sample_index idx;
	bool filtered;
	yi_strtab strs;
	YI_VEC(dfunc) funcs;
	yi_map64 func_by_key;     /* name id << 32 | file id -> diff function id */
	YI_VEC(uint32_t) ids;     /* function id sequences of the diff stacks */
	YI_VEC(dstack) stacks;
	uint32_t *slots;          /* stack index + 1; 0 = empty */
	size_t nslots;
	drowvec frows;            /* by function, indexed by diff function id */
	drowvec lrows;            /* by function and line */
	yi_map64 lrow_key;
	double total[2][4];       /* kept stacks */
	double all[2];            /* every stack, the diff's index (unfiltered) */
	size_t nsrc[2];           /* kept source stacks */
	uint32_t stamp;
	bool whole;               /* a side is pprof: truncate values (see top) */
	char *warning;            /* different programs, or NULL */
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
const char *yi_fmt_signed(double v, ying_sample_index idx, char *buf, size_t n);
long yi_stack_frames(const ying_diff *d, const dstack *s, const ying_profile **pp,
    yi_framevec *fr);
double yi_pct(double delta, double base);

#endif /* YING_DIFF_INT_H */
