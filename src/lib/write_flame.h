/*
 * write_flame.h: private to the flame graph files (write_flame_tree.c,
 * write_flame_svg.c; not installed): the tree's nodes and struct yi_flame,
 * the SVG geometry, and the functions one file offers the other.
 *
 * The tree (yi_flame) copies every name and file it is given into its own
 * string table, so it outlives the profiles that fed it; the differential
 * graph of yingdiff builds one from two profiles and sets both a value
 * (NOW, the width) and a base (BASE) per stack.
 */
#ifndef YING_WRITE_FLAME_H
#define YING_WRITE_FLAME_H

#include "write.h"

#define NONE UINT32_MAX
#define SMALL 8             /* children found by a list walk up to this */

#define PAD 10.0            /* left and right margin */
#define FRAME_H 16          /* row pitch; rectangles are one pixel less */
#define TOP 78              /* title, subtitle, buttons, legend */
#define BOTTOM 30           /* details line */
#define CHAR_W 6.6          /* estimated width of one character at 11px */
#define HIGHLIGHT "#e01ee0" /* search matches */

typedef struct fnode {
	uint32_t name;          /* f->strs */
	uint32_t child;         /* first child or NONE */
	uint32_t sibling;       /* next sibling or NONE */
	uint32_t file;          /* first source variant: file (f->strs) */
	uint32_t line;          /*   and line */
	uint32_t extra;         /* further variants (f->vars) or NONE; the
	                         * first variant has what they do not */
	uint8_t inl;            /* first variant was an inlined frame */
	uint8_t big;            /* more than SMALL children: in child_of */
	double value, base;
	double var;             /* diff: sampling variance of value - base */
} fnode;

typedef struct fvariant {
	uint32_t file, line, next;
	uint8_t inl;
	double contrib;
} fvariant;

/* One step of the last stack added: its name and node at that depth. */
typedef struct fstep {
	uint32_t name, node;
} fstep;

/* Per-profile cache: function index -> (name, file) ids in f->strs. */
typedef struct fcache {
	const ying_profile *p;
	uint32_t *name, *file;
	size_t n;
} fcache;

struct yi_flame {
	yi_strtab strs;
	YI_VEC(fnode) nodes;    /* nodes.v[0] is the root, "all" */
	YI_VEC(fvariant) vars;
	yi_map64 child_of;      /* parent << 32 | name -> node, for the
	                         * children of big nodes only */
	fcache cache[2];
	unsigned cache_next;
	YI_VEC(uint32_t) full;  /* name id -> the full name's id (f->strs)
	                         * when the name printed is shorter; NONE or
	                         * absent: the same */
	/* Names printed instead of the functions' own `show` (yingdiff's,
	 * chosen over both profiles): per profile, by function id, NULL
	 * entries are not overridden (yi_flame_override). */
	const ying_profile *over_p[2];
	const char **over[2];
	YI_VEC(char) tmp;
	YI_VEC(fstep) path;     /* the last stack added, root first */
	/* Sorted mode (write_svg): stacks arrive in order of their name ids,
	 * so a node is complete once the path leaves it, and one narrower
	 * than prune_below loses its subtree on the spot (it keeps its name
	 * and value, which place its siblings).  No child is ever searched. */
	bool sorted;
	double prune_below;
};

/* ---- write_flame_tree.c */
void yi_put_text(yi_out *o, yi_flame *f, const char *s);
int yi_func_ids(yi_flame *f, const ying_profile *p, uint32_t func, uint32_t *name,
    uint32_t *file);
void yi_sorted_leave_all(yi_flame *f);
/* The full name of a node's name id (the same id when it is not shorter). */
uint32_t yi_flame_full(const yi_flame *f, uint32_t name);
void yi_best_variant(const yi_flame *f, const fnode *nd, uint32_t *file, uint32_t *line,
    uint8_t *inl);

#endif /* YING_WRITE_FLAME_H */
