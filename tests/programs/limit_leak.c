/*
 * limit_leak.c: a program that leaks until it is killed, for the limit
 * report tests (tests/integration/run_limit_kill.sh): it stands in for a
 * service heading for the OOM killer.
 *
 *   limit_leak [FAST_MIB [STEP_KIB [STEP_MS [MAX_S]]]]
 *
 * It leaks FAST_MIB MiB (default 0) at once, then STEP_KIB KiB (default
 * 256) every STEP_MS milliseconds (default 50), all through
 * limit_leak_step() -> limit_leak_block(), in 64 KiB blocks it writes
 * whole (so the resident set grows with the heap).  It prints "leaked N
 * MiB" after the fast part and exits 1 after MAX_S seconds (default 60):
 * a test whose watcher never kills it fails instead of hanging.  Plain
 * malloc: `ying run` preloads jemalloc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BLOCK (64 * 1024)

static void *volatile last;

__attribute__((noinline)) static void *
limit_leak_block(void)
{
	char *p = malloc(BLOCK);

	if (p == NULL) {
		fprintf(stderr, "limit_leak: out of memory\n");
		exit(1);
	}
	memset(p, 0x5a, BLOCK);
	return p;
}

/* kib KiB more, never freed: the leak */
__attribute__((noinline)) void
limit_leak_step(long kib)
{
	for (long i = 0; i < kib / 64; i++) {
		void **b = limit_leak_block();
		b[0] = last;
		last = b;
	}
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	long fast = argc > 1 ? atol(argv[1]) : 0;
	long kib = argc > 2 ? atol(argv[2]) : 256;
	long ms = argc > 3 ? atol(argv[3]) : 50;
	double max_s = argc > 4 ? atof(argv[4]) : 60, t0 = now();
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	if (fast < 0 || kib < 64 || ms < 0 || max_s <= 0) {
		fprintf(stderr, "usage: limit_leak [FAST_MIB [STEP_KIB [STEP_MS [MAX_S]]]]\n");
		return 2;
	}
	limit_leak_step(fast * 1024);
	printf("leaked %ld MiB\n", fast);
	fflush(stdout);
	while (now() - t0 < max_s) {
		limit_leak_step(kib);
		nanosleep(&ts, NULL);
	}
	fprintf(stderr, "limit_leak: not killed after %g s\n", max_s);
	return 1;
}
