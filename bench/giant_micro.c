/*
 * giant_micro.c: ns per malloc(64)+free pair on one thread, the loop
 * bench/giant_cost.sh times with and without the giant-allocation hook.
 *
 *   giant_micro N     (pairs; prints "ns_per_pair")
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000000;
	struct timespec a, b;
	void *volatile p;

	for (long i = 0; i < 100000; i++) {     /* warm up */
		p = malloc(64);
		free(p);
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		p = malloc(64);
		free(p);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.2f\n", ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)n);
	return 0;
}
