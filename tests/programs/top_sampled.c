/*
 * top_sampled.c: allocations big enough to be measured at jemalloc's default
 * sampling rate (one sample per ~512 KiB), for
 * tests/integration/top_sampled.sh.
 *
 * `top_sampled DUMP` writes DUMP while holding:
 *   big_blocks      64 x malloc(1 MiB)   = 67108864 bytes
 *   small_blocks 32768 x malloc(1024)    = 33554432 bytes
 * after churn_blocks allocated and freed 16384 x malloc(4096) = 64 MiB.
 * jeprof's unsampling (AdjustSamples) estimates these; the test checks the
 * estimates within a statistical tolerance and ying against jeprof exactly.
 */
#ifdef __clang__
#pragma clang optimize off
#else
#pragma GCC optimize("O0")
#endif

#include <stdlib.h>

#include <stdio.h>

#include <jemalloc/jemalloc.h>

void top_dump(const char *path); /* top_dump.c */

#define NBIG 64
#define NSMALL 32768
#define NCHURN 16384

static void *keep_big[NBIG], *keep_small[NSMALL];

__attribute__((noinline)) void
big_blocks(void)
{
	for (int i = 0; i < NBIG; i++)
		keep_big[i] = malloc(1 << 20);
}

__attribute__((noinline)) void
small_blocks(void)
{
	for (int i = 0; i < NSMALL; i++)
		keep_small[i] = malloc(1024);
}

__attribute__((noinline)) void
churn_blocks(void)
{
	for (int i = 0; i < NCHURN; i++) {
		void *volatile p = malloc(4096);
		free(p);
	}
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: top_sampled DUMP\n");
		return 2;
	}
	big_blocks();
	small_blocks();
	churn_blocks();
	top_dump(argv[1]);
	return 0;
}
