/*
 * leakhist_micro.c: what the agent's leak history adds to a heap check of
 * the growth runner (bench/leakhist.sh): per run, alternating, the parse
 * of the dump the runner already pays at every check (ying_profile_read_mem)
 * and the history's account of it (yi_leaks_hist_add, libying's internal
 * but exported entry point, declared here), on a history that already
 * holds 255 points of the same dump.
 *
 *   leakhist_micro DUMP RUNS
 *
 * One line per run: "run PARSE ADD" (seconds), then "info POINTS STACKS
 * BYTES".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ying.h>

typedef struct yi_leaks_hist yi_leaks_hist;
typedef struct yi_leaks_hist_info {
	size_t points, max_points, stacks, max_stacks;
	unsigned stride;
	uint64_t dumps, evicted;
	size_t untracked;
	double first, last;
	size_t bytes;
} yi_leaks_hist_info;
int yi_leaks_hist_new(yi_leaks_hist **out, size_t max_points, size_t max_stacks);
void yi_leaks_hist_free(yi_leaks_hist *h);
int yi_leaks_hist_add(yi_leaks_hist *h, const ying_profile *p, double t);
void yi_leaks_hist_info_get(const yi_leaks_hist *h, yi_leaks_hist_info *out);

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
	ying_profile *p = NULL;
	yi_leaks_hist *h = NULL;
	yi_leaks_hist_info in;
	char *buf;
	long len;
	FILE *f;
	int runs;

	if (argc != 3) {
		fprintf(stderr, "usage: leakhist_micro DUMP RUNS\n");
		return 2;
	}
	runs = atoi(argv[2]);
	if ((f = fopen(argv[1], "rb")) == NULL || fseek(f, 0, SEEK_END) != 0 ||
	    (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
	    (buf = malloc((size_t)len + 1)) == NULL ||
	    fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "leakhist_micro: cannot read %s\n", argv[1]);
		return 1;
	}
	fclose(f);
	if (yi_leaks_hist_new(&h, 0, 0) != 0 ||
	    ying_profile_read_mem(&p, buf, (size_t)len, argv[1]) != 0) {
		fprintf(stderr, "leakhist_micro: %s\n", ying_last_error());
		return 1;
	}
	for (int i = 0; i < 255; i++)
		yi_leaks_hist_add(h, p, 1000.0 + i);
	ying_profile_free(p);
	for (int r = 0; r < runs; r++) {
		double t0 = now(), t1, t2;
		if (ying_profile_read_mem(&p, buf, (size_t)len, argv[1]) != 0)
			return 1;
		t1 = now();
		if (yi_leaks_hist_add(h, p, 2000.0 + r) != 0)
			return 1;
		t2 = now();
		ying_profile_free(p);
		printf("run %.6f %.6f\n", t1 - t0, t2 - t1);
	}
	yi_leaks_hist_info_get(h, &in);
	printf("info %zu %zu %zu\n", in.points, in.stacks, in.bytes);
	yi_leaks_hist_free(h);
	free(buf);
	return 0;
}
