/*
 * pprof_alloc.c: a real program with known allocations, for the pprof tests.
 *
 * `pprof_alloc OUT.heap` allocates fixed amounts in named functions, keeps
 * them live, frees a churn of others, and dumps a jemalloc heap profile to
 * OUT.heap (mallctl "prof.dump").  Run it under
 * MALLOC_CONF=prof:true,lg_prof_sample:0 (add prof_accum:true for the
 * alloc_* values); it exits 3 if the dump cannot be written.
 *
 * Live at dump time (besides libc's own buffers):
 *   big_alloc      8 x 1 MiB        =  8388608 B
 *   small_alloc    2000 x 512 B     =  1024000 B
 *   inlined_alloc  100 x 3072 B     =   307200 B  (inlined into mid_alloc)
 * Allocated and freed (alloc_* only):
 *   churn_alloc    1000 x 4096 B    =  4096000 B
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jemalloc/jemalloc.h>

/* The stacks must be exactly as written whatever CFLAGS say (automake puts
 * the user's -O2 last): no inlining beyond always_inline, no tail calls, no
 * merged call sites. */
#if defined(__clang__)
#pragma clang optimize off
#elif defined(__GNUC__)
#pragma GCC optimize("O0", "no-omit-frame-pointer")
#endif

static void *volatile keep[4096];
static int nkeep;

__attribute__((noinline)) static void
big_alloc(void)
{
	int i;

	for (i = 0; i < 8; i++)
		keep[nkeep++] = malloc(1 << 20);
}

__attribute__((noinline)) static void
small_alloc(void)
{
	int i;

	for (i = 0; i < 2000; i++)
		keep[nkeep++] = malloc(512);
}

static inline __attribute__((always_inline)) void
inlined_alloc(void)
{
	int i;

	for (i = 0; i < 100; i++)
		keep[nkeep++] = malloc(3072);
}

__attribute__((noinline)) static void
mid_alloc(void)
{
	inlined_alloc();
}

__attribute__((noinline)) static void
churn_alloc(void)
{
	int i;

	for (i = 0; i < 1000; i++) {
		void *volatile p = malloc(4096);
		free(p);
	}
}

int
main(int argc, char **argv)
{
	const char *path;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: pprof_alloc OUT.heap\n");
		return 2;
	}
	big_alloc();
	small_alloc();
	mid_alloc();
	churn_alloc();
	path = argv[1];
	rc = mallctl("prof.dump", NULL, NULL, &path, sizeof(path));
	if (rc != 0) {
		fprintf(stderr, "prof.dump to %s failed: %s (is MALLOC_CONF=prof:true set?)\n",
		    path, strerror(rc));
		return 3;
	}
	return 0;
}
