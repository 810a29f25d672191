/*
 * base_alloc.c: the library's allocation wrappers.
 *
 * Every libying allocation goes through yi_malloc and friends so that a test
 * build can fail the Nth allocation (fault injection) and so that overflow in
 * size arithmetic is checked in one place.  They call the process allocator,
 * which inside a profiled program is jemalloc itself.  A vector of 4 MiB or
 * more (a huge dump's stacks and frames) asks the kernel for transparent
 * huge pages over its 2 MiB-aligned interior: filling it then takes one page
 * fault per 2 MiB instead of 512 (on a 117 MB dump, a third of `ying top`'s
 * CPU time went to faulting in 4 KiB pages).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "base.h"

/* Test seam: when > 0, counts down and fails the allocation that reaches 0. */
long yi_alloc_fail_countdown;

static bool
fail_now(void)
{
	if (yi_alloc_fail_countdown > 0 && --yi_alloc_fail_countdown == 0)
		return true;
	return false;
}

void *
yi_malloc(size_t n)
{
	if (fail_now())
		return NULL;
	return malloc(n ? n : 1);
}

void *
yi_calloc(size_t n, size_t size)
{
	if (fail_now())
		return NULL;
	return calloc(n ? n : 1, size ? size : 1);
}

void *
yi_realloc(void *p, size_t n)
{
	if (fail_now())
		return NULL;
	return realloc(p, n ? n : 1);
}

void *
yi_reallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return yi_realloc(p, n * size);
}

char *
yi_strndup(const char *s, size_t n)
{
	char *d = yi_malloc(n + 1);
	if (d == NULL)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *
yi_strdup(const char *s)
{
	return yi_strndup(s, strlen(s));
}

void
yi_free(void *p)
{
	int saved = errno;
	free(p);
	errno = saved;
}

void
ying_free(void *p)
{
	yi_free(p);
}

/* MADV_HUGEPAGE over [v, v + bytes) widened to 2 MiB boundaries when the
 * block is at least YI_VEC_HUGE bytes.  Widened, not narrowed: advice on
 * part of a mapping would split it, and realloc's mremap, which cannot grow
 * a block spanning two mappings, would fall back to copying it.  Advice
 * only (errno kept, failure ignored: a kernel without THP, or the holes
 * around the block, ENOMEM, change nothing). */
void
yi_vec_huge_hint(void *v, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t huge = (uintptr_t)2 << 20;
	uintptr_t a = (uintptr_t)v & ~(huge - 1);
	uintptr_t e = ((uintptr_t)v + bytes + huge - 1) & ~(huge - 1);
	int saved = errno;

	if (bytes >= YI_VEC_HUGE)
		(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
	errno = saved;
#else
	YI_UNUSED(v);
	YI_UNUSED(bytes);
#endif
}

int
yi_vec_grow_(void **v, size_t *cap, size_t n, size_t extra, size_t elem)
{
	size_t need, ncap;
	void *nv;

	if (extra > SIZE_MAX - n)
		return yi_oom("growing a vector (size overflow)");
	need = n + extra;
	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return yi_oom("growing a vector (size overflow)");
		ncap *= 2;
	}
	nv = yi_reallocarray(*v, ncap, elem);
	if (nv == NULL)
		return yi_oom("growing a vector");
	yi_vec_huge_hint(nv, ncap * elem);
	*v = nv;
	*cap = ncap;
	return 0;
}
