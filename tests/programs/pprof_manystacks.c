/*
 * pprof_manystacks.c: a real program with N distinct allocation stacks, for
 * measuring pprof writing on big dumps.
 *
 * `pprof_manystacks N OUT.heap` makes N (up to 4^10) allocations of 16 bytes,
 * each reached through a different path of a 10-level recursion with four
 * call sites per level (so each has its own return addresses), keeps them
 * live and dumps the heap profile.  Run under
 * MALLOC_CONF=prof:true,lg_prof_sample:0 so every allocation is sampled.
 */
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

#define LEVELS 10

static void **keep;

__attribute__((noinline)) static void
leaf(unsigned long i)
{
	keep[i] = malloc(16);
}

__attribute__((noinline)) static void
rec(unsigned long i, unsigned long path, int level)
{
	if (level == LEVELS) {
		leaf(i);
		return;
	}
	/* Four distinct call sites: the digit chooses the return address. */
	switch (path & 3) {
	case 0:
		rec(i, path >> 2, level + 1);
		break;
	case 1:
		rec(i, path >> 2, level + 1);
		break;
	case 2:
		rec(i, path >> 2, level + 1);
		break;
	default:
		rec(i, path >> 2, level + 1);
		break;
	}
}

int
main(int argc, char **argv)
{
	unsigned long n, i;
	const char *path;
	int rc;

	if (argc != 3 || (n = strtoul(argv[1], NULL, 10)) == 0 || n > (1ul << (2 * LEVELS))) {
		fprintf(stderr, "usage: pprof_manystacks N OUT.heap (N <= %lu)\n",
		    1ul << (2 * LEVELS));
		return 2;
	}
	if ((keep = calloc(n, sizeof(*keep))) == NULL)
		return 1;
	for (i = 0; i < n; i++)
		rec(i, i, 0);
	path = argv[2];
	rc = mallctl("prof.dump", NULL, NULL, &path, sizeof(path));
	if (rc != 0) {
		fprintf(stderr, "prof.dump failed: %s\n", strerror(rc));
		return 3;
	}
	return 0;
}
