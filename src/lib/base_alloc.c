/*
 * base_alloc.c: the library's allocation wrappers.
 *
 * Every libying allocation goes through yi_malloc and friends so that a test
 * build can fail the Nth allocation (fault injection) and so that overflow in
 * size arithmetic is checked in one place.  They call the process allocator,
 * which inside a profiled program is jemalloc itself.  A vector of 4 MiB or
 * more (a huge dump's stacks and frames) asks the kernel for transparent
 * huge pages over its pages: filling it then takes one page fault per
 * 2 MiB instead of 512 (on a 117 MB dump, a third of `ying top`'s
 * CPU time went to faulting in 4 KiB pages).
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

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

/* MADV_HUGEPAGE over the pages of the block at v (bytes long, at least
 * YI_VEC_HUGE).  Exactly its pages, up to the end of what the allocator
 * gave (malloc_usable_size): for a block the allocator mmap'ed that is the
 * whole mapping, so the advice splits no mapping (realloc's mremap cannot
 * grow a block that spans two; widening the range to 2 MiB split the
 * neighbours' and made their next growth a copy).  Not when the process's
 * malloc is jemalloc (the agent in a profiled host, a program linking
 * libying and jemalloc): its pages follow its own opt.thp, and it reuses
 * the extent for the host once the vector is freed, advice included.
 * Advice only: errno is kept and failure ignored (a kernel without THP
 * faults 4 KiB pages). */
bool
yi_malloc_is_jemalloc(void)
{
	return dlsym(RTLD_DEFAULT, "mallctl") != NULL;
}

void
yi_vec_huge_hint(void *v, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), a, e;
	size_t u;
	int saved = errno;

	if (bytes < YI_VEC_HUGE || v == NULL || pg == 0 || (pg & (pg - 1)) != 0 ||
	    yi_malloc_is_jemalloc())
		return;
	u = malloc_usable_size(v);
	if (u < bytes)
		u = bytes;
	a = (uintptr_t)v & ~(pg - 1);
	e = ((uintptr_t)v + u + pg - 1) & ~(pg - 1);
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
