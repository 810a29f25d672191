/*
 * leaks_prog.c: a program with a known heap behaviour over time, for
 * `ying leaks` (tests/integration/leaks.sh, bench/leaks.sh).
 *
 *   leaks_prog MODE SECONDS [LEAK_KIB_PER_S [CACHE_MIB]]
 *
 * Every mode churns: churn_alloc() keeps 512 blocks of 4 KiB (2 MiB) and
 * replaces 64 of them, chosen at random, every 10 ms, so its live bytes
 * stay put while its blocks turn over.  On top of that:
 *   leak   leak_alloc() keeps 8 KiB blocks it never frees, LEAK_KIB_PER_S
 *          (default 512) KiB a second, for all of SECONDS;
 *   cache  cache_fill() adds 16 KiB entries until it holds CACHE_MIB
 *          (default 8) MiB, reached at a third of SECONDS, then holds them;
 *   churn  nothing else.
 * It exits 0 after SECONDS.  -O2 safe: the blocks are published through a
 * volatile sink and the allocating functions are noinline (and not tail
 * calls).  Plain malloc: `ying run` preloads jemalloc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHURN_N 512
#define CHURN_SIZE 4096
#define LEAK_SIZE 8192
#define CACHE_SIZE 16384

static void *volatile sink;
static void *churn[CHURN_N];
static void **kept;
static size_t nkept, capkept;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
keep(void *p)
{
	if (nkept == capkept) {
		capkept = capkept ? 2 * capkept : 1024;
		if ((kept = realloc(kept, capkept * sizeof(*kept))) == NULL) {
			fprintf(stderr, "leaks_prog: out of memory\n");
			exit(1);
		}
	}
	kept[nkept++] = p;
	sink = p;
}

static void *
checked(void *p)
{
	if (p == NULL) {
		fprintf(stderr, "leaks_prog: out of memory\n");
		exit(1);
	}
	memset(p, 0x5a, 64);
	sink = p;
	return p;
}

__attribute__((noinline)) void *
churn_alloc(void)
{
	void *p = checked(malloc(CHURN_SIZE));
	__asm__ volatile("" ::: "memory");
	return p;
}

__attribute__((noinline)) void *
leak_alloc(void)
{
	void *p = checked(malloc(LEAK_SIZE));
	__asm__ volatile("" ::: "memory");
	return p;
}

__attribute__((noinline)) void *
cache_fill(void)
{
	void *p = checked(malloc(CACHE_SIZE));
	__asm__ volatile("" ::: "memory");
	return p;
}

int
main(int argc, char **argv)
{
	const char *mode;
	double secs, leak_kib = 512, cache_mib = 8, t0, t, leaked = 0, cached = 0;
	unsigned seed = 12345;
	size_t i;

	if (argc < 3) {
		fprintf(stderr, "usage: leaks_prog leak|cache|churn SECONDS "
		    "[LEAK_KIB_PER_S [CACHE_MIB]]\n");
		return 2;
	}
	mode = argv[1];
	secs = atof(argv[2]);
	if (argc > 3)
		leak_kib = atof(argv[3]);
	if (argc > 4)
		cache_mib = atof(argv[4]);
	if (strcmp(mode, "leak") != 0 && strcmp(mode, "cache") != 0 &&
	    strcmp(mode, "churn") != 0) {
		fprintf(stderr, "leaks_prog: unknown mode '%s'\n", mode);
		return 2;
	}
	if (getenv("LEAKS_PROG_SEED"))
		seed = (unsigned)strtoul(getenv("LEAKS_PROG_SEED"), NULL, 10);
	srand(seed);
	for (i = 0; i < CHURN_N; i++)
		churn[i] = churn_alloc();
	t0 = now();
	while ((t = now() - t0) < secs) {
		struct timespec ts = { 0, 10 * 1000000L };
		for (i = 0; i < 64; i++) {
			size_t k = (size_t)rand() % CHURN_N;
			free(churn[k]);
			churn[k] = churn_alloc();
		}
		if (strcmp(mode, "leak") == 0)
			for (; leaked < leak_kib * 1024 * t; leaked += LEAK_SIZE)
				keep(leak_alloc());
		if (strcmp(mode, "cache") == 0) {
			double target = cache_mib * 1024 * 1024 * (t < secs / 3 ? t / (secs / 3) : 1);
			for (; cached + CACHE_SIZE <= target; cached += CACHE_SIZE)
				keep(cache_fill());
		}
		nanosleep(&ts, NULL);
	}
	printf("leaks_prog %s: leaked %.0f bytes, cached %.0f bytes\n", mode, leaked, cached);
	return 0;
}
