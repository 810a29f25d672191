/*
 * history_micro.c: what one sample of the in-agent memory history costs
 * (bench/history.sh): the read of /proc/self/statm and, per jemalloc heap,
 * an "epoch" and five stats.* reads, then the copy into the rings
 * (yi_hist_sample, live_history.c, linked from the build's static
 * libying-live objects), in a process with jemalloc profiling on and
 * BLOCKS live blocks of 64 bytes (jemalloc's epoch merges every arena's
 * statistics: its cost grows with the arenas, not with the blocks).
 *
 *   history_micro SAMPLES BLOCKS
 *
 * Prints "sample NS" (the mean over SAMPLES, nanoseconds) and "columns N".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define YI_HIST_MAXCOL 11
void yi_hist_sample(double *v);

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	double v[YI_HIST_MAXCOL], t0, t1;
	long samples, blocks;
	void **keep;
	int cols = 0;

	if (argc != 3 || (samples = atol(argv[1])) <= 0 || (blocks = atol(argv[2])) < 0) {
		fprintf(stderr, "usage: history_micro SAMPLES BLOCKS\n");
		return 2;
	}
	if ((keep = calloc((size_t)blocks + 1, sizeof(*keep))) == NULL)
		return 1;
	for (long i = 0; i < blocks; i++)
		keep[i] = malloc(64);
	yi_hist_sample(v);              /* the history made, the heaps found */
	for (int k = 0; k < YI_HIST_MAXCOL; k++)
		cols += !isnan(v[k]);
	t0 = now();
	for (long i = 0; i < samples; i++)
		yi_hist_sample(v);
	t1 = now();
	printf("sample %.0f\ncolumns %d\nrss %.0f allocated %.0f\n",
	    (t1 - t0) / (double)samples * 1e9, cols, v[1], v[2]);
	return 0;
}
