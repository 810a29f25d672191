/*
 * giant_nest.c: a preloadable malloc/calloc/realloc interposer (listed
 * first in LD_PRELOAD, in front of jemalloc) that counts allocations made
 * while another allocation of the same thread is in progress, i.e. from
 * inside an allocation hook (jemalloc calls hooks within malloc; a malloc
 * made there comes back through this symbol).  At exit it prints
 * "giant_nest: N nested of M".  Compiled by tests/integration/giant.sh.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static __thread int depth;
static long nested, calls;
static _Alignas(16) char boot[8192];   /* dlsym's own calloc, before we know the real one */
static size_t bootn;
static int resolving;

static void
resolve(void)
{
	if (real_malloc || resolving)
		return;
	resolving = 1;
	real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	resolving = 0;
}

static void *
boot_alloc(size_t n)
{
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (bootn + n > sizeof(boot))
		return NULL;
	p = boot + bootn;
	bootn += n;
	return p;
}

void *
malloc(size_t n)
{
	void *p;

	resolve();
	if (real_malloc == NULL)
		return boot_alloc(n);
	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	if (depth)
		__atomic_add_fetch(&nested, 1, __ATOMIC_RELAXED);
	depth++;
	p = real_malloc(n);
	depth--;
	return p;
}

void *
calloc(size_t a, size_t b)
{
	void *p;

	resolve();
	if (real_calloc == NULL)
		return boot_alloc(a * b);   /* zeroed: static storage */
	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	if (depth)
		__atomic_add_fetch(&nested, 1, __ATOMIC_RELAXED);
	depth++;
	p = real_calloc(a, b);
	depth--;
	return p;
}

void *
realloc(void *q, size_t n)
{
	void *p;

	resolve();
	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	if (depth)
		__atomic_add_fetch(&nested, 1, __ATOMIC_RELAXED);
	depth++;
	p = real_realloc(q, n);
	depth--;
	return p;
}

void
free(void *p)
{
	static void (*real_free)(void *);

	if (p == NULL || ((char *)p >= boot && (char *)p < boot + sizeof(boot)))
		return;
	if (real_free == NULL)
		real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	real_free(p);
}

__attribute__((destructor)) static void
report(void)
{
	char b[100];
	int k = snprintf(b, sizeof(b), "giant_nest: %ld nested of %ld\n", nested, calls);

	if (write(2, b, (size_t)k) < 0)
		return;
}
