/*
 * gen_stacks.c: a real program whose heap profile has N distinct stacks, for
 * the parse/aggregate benchmark (bench/stacks.sh).
 *
 * Allocation number `path` (0 <= path < N <= 8^6 = 262144) walks down six
 * levels of functions; level k picks one of eight distinct call sites of the
 * next level from three bits of `path`.  Every leaf allocation therefore has
 * its own return-address chain, and at lg_prof_sample:0 jemalloc records one
 * stack per allocation.  Built with -O0 (and the pragma) so no call site is
 * merged.  Usage: gen_stacks N DUMP [EXTRA] (run with MALLOC_CONF=prof:true,
 * lg_prof_sample:0); it keeps every allocation live and writes DUMP with
 * mallctl("prof.dump").  EXTRA (default 0, at most 64) adds that many frames
 * of a pass-through function above level0 to every stack, for a bigger dump
 * with the same number of stacks (bench/huge.sh: 262144 stacks, EXTRA 12
 * give the issue's ~117 MB dump).
 */
#pragma GCC optimize("O0")

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jemalloc/jemalloc.h>

static void **keep;
static unsigned long nkeep;

__attribute__((noinline)) static void
leaf(unsigned long path)
{
	keep[nkeep++] = malloc(16 + (path & 3) * 16);
}

/* Eight call sites of NEXT chosen by three bits of path. */
#define FANOUT(next, shift) \
	switch ((path >> (shift)) & 7) { \
	case 0: next(path); break; \
	case 1: next(path); break; \
	case 2: next(path); break; \
	case 3: next(path); break; \
	case 4: next(path); break; \
	case 5: next(path); break; \
	case 6: next(path); break; \
	default: next(path); break; \
	}

__attribute__((noinline)) static void level5(unsigned long path) { FANOUT(leaf, 0) }
__attribute__((noinline)) static void level4(unsigned long path) { FANOUT(level5, 3) }
__attribute__((noinline)) static void level3(unsigned long path) { FANOUT(level4, 6) }
__attribute__((noinline)) static void level2(unsigned long path) { FANOUT(level3, 9) }
__attribute__((noinline)) static void level1(unsigned long path) { FANOUT(level2, 12) }
__attribute__((noinline)) static void level0(unsigned long path) { FANOUT(level1, 15) }

/* EXTRA frames of this function, then level0. */
__attribute__((noinline)) static void
deeper(unsigned long path, unsigned long extra)
{
	if (extra == 0)
		level0(path);
	else
		deeper(path, extra - 1);
}

int
main(int argc, char **argv)
{
	unsigned long n, i, extra = 0;
	const char *path;
	int rc;

	if ((argc != 3 && argc != 4) || (n = strtoul(argv[1], NULL, 10)) == 0 || n > 262144 ||
	    (argc == 4 && (extra = strtoul(argv[3], NULL, 10)) > 64)) {
		fprintf(stderr, "usage: gen_stacks N DUMP [EXTRA]   (1 <= N <= 262144, "
		    "0 <= EXTRA <= 64)\n");
		return 2;
	}
	path = argv[2];
	keep = calloc(n, sizeof(*keep));
	for (i = 0; i < n; i++)
		deeper(i, extra);
	rc = mallctl("prof.dump", NULL, NULL, &path, sizeof(path));
	if (rc != 0) {
		fprintf(stderr, "gen_stacks: prof.dump failed: %s (MALLOC_CONF=prof:true?)\n", strerror(rc));
		return 1;
	}
	return 0;
}
