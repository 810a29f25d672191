/*
 * write.h: the write family (write_*.c): internals shared by the writers
 * (the flame graph tree and its SVG, the pprof writer).  The writers'
 * public entry points are in ying.h.
 */
#ifndef YING_WRITE_H
#define YING_WRITE_H

#include <math.h>

#include "model.h"

/* ---- flame graphs (write_flame_*.c; plain and differential SVG) ---------- */
/* A tree of frames merged by name from the root.  Each node has a value
 * (width; NOW for a diff) and a base value (BASE for a diff, unused for a
 * plain graph).  Names, files and lines are copied; the profiles need not
 * outlive the tree. */
typedef struct yi_flame yi_flame;
int yi_flame_new(yi_flame **out);
void yi_flame_free(yi_flame *f);
/* Add one stack (frames leaf first, as from yi_stack_expand). */
/* Print `show` (kept by the caller until the graph is written) for
 * function `func` of p instead of its own short name: yingdiff's names,
 * chosen over both profiles.  Two profiles at most. */
int yi_flame_override(yi_flame *f, const ying_profile *p, uint32_t func,
    const char *show);
int yi_flame_add(yi_flame *f, const ying_profile *p, const yi_frame *frames,
    size_t n, double value, double base);
/* The same with the sampling variance of value - base (a diff's tooltips
 * print the 95 % interval of each frame's change). */
int yi_flame_add_var(yi_flame *f, const ying_profile *p, const yi_frame *frames,
    size_t n, double value, double base, double var);
typedef struct yi_flame_meta {
	const char *title;       /* already defaulted by the caller */
	const char *subtitle;
	ying_sample_index idx;   /* unit of values */
	bool diff;               /* colour by value - base, add a legend */
} yi_flame_meta;
int yi_flame_write_svg(yi_flame *f, const ying_svg_opts *opts,
    const yi_flame_meta *meta, yi_out *o);
/* The tree as flat JSON (write_tree.c: preorder, the fields "parent",
 * "name", "file", "line", "value", "self", and "base" when diff); the
 * first error (o's too). */
int yi_flame_write_tree(yi_flame *f, ying_sample_index idx, bool diff, yi_out *o);
/* The live page's flame tree of p over sample index idx, or of the diff d
 * (value NOW, base BASE, over the diff's index), as JSON into fn
 * (write_tree.c, diff_flame.c).  Nothing to free; the error code. */
YI_SHARED int yi_write_tree(const ying_profile *p, ying_sample_index idx,
    ying_write_fn fn, void *opaque);
YI_SHARED int yi_diff_write_tree(ying_diff *d, ying_write_fn fn, void *opaque);

/* ---- pprof writer internals (write_pprof.c) ------------------------------ */
/* Write any symbolized profile; values come from stack val[] (so a diff
 * profile with negative values works).  Only sample types the profile has
 * are written (alloc_* only when has_accum). */
YI_SHARED int yi_pprof_write(const ying_profile *p, const ying_pprof_opts *opts,
    ying_write_fn fn, void *opaque);
/* What an uploader sets beyond the profile itself (every field 0/NULL:
 * as yi_pprof_write). */
typedef struct yi_pprof_extra {
	int64_t time_nanos;     /* instead of p->time (whole seconds) */
	int64_t duration_nanos; /* the interval the profile covers */
	const char *comment;    /* one entry of the profile's comments */
} yi_pprof_extra;
YI_SHARED int yi_pprof_write_ex(const ying_profile *p, const ying_pprof_opts *opts,
    const yi_pprof_extra *extra, ying_write_fn fn, void *opaque);
/* The caller's pprof options as the current version in *out: NULL is the
 * defaults, version 1 (the struct before no_size_label, read only up to
 * its own end) has no_size_label 0; any other version is YING_EINVAL
 * naming `what`. */
int yi_pprof_opts_get(ying_pprof_opts *out, const ying_pprof_opts *in, const char *what);

/* ---- the writers (write_top.c, write_folded.c, write_flame_svg.c) -------- */
/* Write a profile as it is: symbolized and trimmed or not (then frames are
 * addresses); the profile is only read.  The public ying_profile_write_*
 * (write_api.c) symbolize with defaults first. */
YI_SHARED int yi_write_top(const ying_profile *p, const ying_top_opts *opts,
    ying_write_fn fn, void *opaque);
int yi_write_folded(const ying_profile *p, const ying_folded_opts *opts,
    ying_write_fn fn, void *opaque);
YI_SHARED int yi_write_svg(const ying_profile *p, const ying_svg_opts *opts,
    ying_write_fn fn, void *opaque);
/* The call graph as DOT (write_dot.c). */
int yi_write_dot(const ying_profile *p, const ying_dot_opts *opts,
    ying_write_fn fn, void *opaque);

/* ---- folded stacks: the one rule (write_folded.c, diff_flame.c) ----------- */
/* A frame name in a folded line: ';' (the frame separator) becomes ':', and
 * control characters (newline, tab, ...) become spaces. */
static inline char yi_folded_char(char ch)
{
	if (ch == ';')
		return ':';
	return (unsigned char)ch < 0x20 || ch == 0x7f ? ' ' : ch;
}
/* A folded value: truncated toward zero, as jeprof --collapsed prints it; a
 * stack (or a diff stack with both columns) that truncates to 0 is left out. */
static inline double yi_folded_value(double v)
{
	return trunc(v) + 0.0;   /* + 0.0: never "-0" */
}

/* ---- jeprof's number forms (write_dot.c, write_jeprof.c) ----------------- */
/* jeprof's Unparse of v under sample index idx: MB with one decimal for
 * bytes (unless show_bytes), else an integer truncated toward zero (Perl's
 * %d; never "-0").  Writes into buf (caller's, n bytes) and returns it. */
static inline const char *yi_jeprof_unparse(ying_sample_index idx, bool show_bytes,
    double v, char *buf, size_t n)
{
	if (yi_index_is_bytes(idx) && !show_bytes)
		snprintf(buf, n, "%.1f", v / 1048576.0);
	else
		snprintf(buf, n, "%.0f", trunc(v) + 0.0);
	return buf;
}
/* The unit name Unparse's numbers are in (a static string). */
static inline const char *yi_jeprof_units(ying_sample_index idx, bool show_bytes)
{
	if (!yi_index_is_bytes(idx))
		return "objects";
	return show_bytes ? "B" : "MB";
}
/* jeprof's Percent: "12.3%", or "nan" / "+inf" / "-inf" of a zero total.
 * Writes into buf (caller's, n bytes) and returns it. */
static inline const char *yi_jeprof_percent(double v, double total, char *buf, size_t n)
{
	if (total != 0)
		snprintf(buf, n, "%.1f%%", v * 100.0 / total);
	else
		snprintf(buf, n, "%s", v == 0 ? "nan" : v > 0 ? "+inf" : "-inf");
	return buf;
}

#endif /* YING_WRITE_H */
