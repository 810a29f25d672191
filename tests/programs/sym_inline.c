/*
 * sym_inline.c: part of the symbolizer's test program, compiled -O2 -g so
 * that sym_inline_inner is inlined into sym_inline_outer and the DWARF has
 * a DW_TAG_inlined_subroutine for it.  The store after the call keeps the
 * malloc call from becoming a tail call.
 */
#include <stdlib.h>

void *sym_inline_outer(size_t n);
void *volatile sym_inline_sink;

static inline __attribute__((always_inline)) void *
sym_inline_inner(size_t n)
{
	void *p = malloc(n); /* SYM_LINE_INNER */
	return p;
}

__attribute__((noinline)) void *
sym_inline_outer(size_t n)
{
	void *p = sym_inline_inner(n + 1); /* SYM_LINE_OUTER */
	sym_inline_sink = p;
	return p;
}
