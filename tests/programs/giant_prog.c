/*
 * giant_prog: a known workload for the giant-allocation tests
 * (tests/integration/giant.sh).  Plain glibc build; jemalloc comes from
 * `ying run` or LD_PRELOAD.
 *
 *   giant_prog NTHREADS ROUNDS [WAITFILE]
 *
 * NTHREADS threads each allocate and free ROUNDS small blocks (16 B ..
 * 64 KiB) while the main thread makes the giant allocations:
 * giant_block_64m() mallocs 64 MiB three times (one call site),
 * giant_calloc() callocs 40 MiB as 10 x 4 MiB, and giant_grow() reallocs
 * a 1 MiB block up to 48 MiB.  Then, with WAITFILE, it prints
 * "ready" and waits (at most 20 s) until WAITFILE exists, so that a test
 * can list the records over HTTP.  Prints a checksum and exits with
 * status 3, so that a test can tell its output and status pass through.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* clang may elide a malloc/free pair whose block does not escape (and did,
 * in the clang build: small_worker made no allocation at all); the test
 * needs every call made as written. */
#if defined(__clang__)
#pragma clang optimize off
#endif

static int rounds;
static volatile int nbig = 3;     /* one call site, three calls */
static volatile uint64_t sink;

static void *
small_worker(void *arg)
{
	uint64_t x = (uintptr_t)arg * 2654435761u + 1, sum = 0;

	for (int i = 0; i < rounds; i++) {
		size_t n;
		char *p;
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		n = 16 + (size_t)(x >> 33) % 65536;
		if ((p = malloc(n)) == NULL)
			abort();
		p[0] = (char)i;
		p[n - 1] = 1;
		sum += (unsigned char)p[0] + (unsigned char)p[n - 1];
		free(p);
	}
	sink += sum;
	return NULL;
}

__attribute__((noinline)) static char *
giant_block_64m(void)
{
	char *p = malloc((size_t)64 << 20);

	if (p == NULL)
		abort();
	memset(p, 1, 4096);
	return p;
}

__attribute__((noinline)) static char *
giant_calloc(void)
{
	char *p = calloc(10, (size_t)4 << 20);

	if (p == NULL)
		abort();
	return p;
}

__attribute__((noinline)) static char *
giant_grow(void)
{
	char *p = malloc((size_t)1 << 20), *q;

	if (p == NULL)
		abort();
	memset(p, 2, 4096);
	if ((q = realloc(p, (size_t)48 << 20)) == NULL)
		abort();
	return q;
}

int
main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t t[64];
	char *big[3], *c, *g;
	uint64_t sum = 0;

	rounds = argc > 2 ? atoi(argv[2]) : 20000;
	if (nt < 0 || nt > 64)
		nt = 4;
	for (int i = 0; i < nt; i++)
		pthread_create(&t[i], NULL, small_worker, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < nbig; i++)
		big[i] = giant_block_64m();
	c = giant_calloc();
	g = giant_grow();
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	sum = (unsigned char)big[0][0] + (unsigned char)big[2][4095] +
	    (unsigned char)c[12345] + (unsigned char)g[100];
	if (argc > 3) {
		printf("ready\n");
		fflush(stdout);
		for (int i = 0; i < 2000 && access(argv[3], F_OK) != 0; i++) {
			struct timespec ts = { 0, 10000000 };
			nanosleep(&ts, NULL);
		}
	}
	for (int i = 0; i < 3; i++)
		free(big[i]);
	free(c);
	free(g);
	printf("checksum %llu threads %d rounds %d\n", (unsigned long long)sum, nt, rounds);
	return 3;
}
