/*
 * top_basic.c: a program with known allocation sites, profiled by
 * tests/integration/top_basic.sh and top_options.sh.
 *
 * Run it as `top_basic DUMP` under MALLOC_CONF=prof:true,lg_prof_sample:0
 * (every allocation sampled, so the numbers are exact) and it writes DUMP
 * while holding:
 *   leak_a          1000 x malloc(4096)   = 4096000 bytes   (line marked @leak_a)
 *   leak_b (via_b)   300 x malloc(1024)   =  307200 bytes   (line marked @leak_b)
 *   leak_c           400 x calloc(1, 512) =  204800 bytes   (line marked @leak_c)
 * and after churn has allocated and freed 2000 x malloc(512) (seen only by
 * alloc_space/alloc_objects when prof_accum:true).  All sizes are jemalloc
 * size classes, so usable size equals requested size.  Each is larger than
 * the 80 KiB emergency pool libstdc++ (loaded by libjemalloc) allocates at
 * start, so the three are the top three functions.
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

#define NA 1000
#define NB 300
#define NC 400
#define NCHURN 2000

static void *keep_a[NA], *keep_b[NB], *keep_c[NC];

__attribute__((noinline)) void
leak_a(void)
{
	for (int i = 0; i < NA; i++)
		keep_a[i] = malloc(4096); /* @leak_a */
}

__attribute__((noinline)) void
leak_b(void)
{
	for (int i = 0; i < NB; i++)
		keep_b[i] = malloc(1024); /* @leak_b */
}

__attribute__((noinline)) void
via_b(void)
{
	leak_b(); /* @via_b */
}

__attribute__((noinline)) void
leak_c(void)
{
	for (int i = 0; i < NC; i++)
		keep_c[i] = calloc(1, 512); /* @leak_c */
}

__attribute__((noinline)) void
churn(void)
{
	for (int i = 0; i < NCHURN; i++) {
		void *volatile p = malloc(512); /* @churn */
		free(p);
	}
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: top_basic DUMP\n");
		return 2;
	}
	leak_a();
	via_b();
	leak_c();
	churn();
	top_dump(argv[1]);
	return 0;
}
