/*
 * fold_micro.c: what ying_profile_fold costs beside writing the pprof of
 * the same profile, in one process on a symbolized profile (bench/fold.sh).
 *
 *   fold_micro DUMP RUNS MAX_SAMPLES MAX_BYTES
 *
 * Reads and symbolizes DUMP once, then RUNS times, alternating: the pprof
 * of the profile as an uploader writes it (gzipped, into memory), the same
 * uncompressed, ying_profile_fold to the limits, and the gzipped pprof of
 * the folded profile.  One line per run: "run W_GZ W_PLAIN FOLD FW_GZ"
 * (seconds), then one "result ..." line with the fold's stats and sizes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <ying.h>

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Seconds to write p as pprof (gzip or not) into memory; *len its size. */
static double
write_time(const ying_profile *p, int gzip, size_t *len)
{
	ying_pprof_opts o = YING_PPROF_OPTS_INIT;
	ying_membuf mb = YING_MEMBUF_INIT;
	double t0, t1;

	o.gzip = gzip;
	t0 = now();
	if (ying_profile_write_pprof(p, &o, ying_write_membuf, &mb) != 0) {
		fprintf(stderr, "fold_micro: write: %s\n", ying_last_error());
		exit(1);
	}
	t1 = now();
	*len = mb.len;
	ying_membuf_release(&mb);
	return t1 - t0;
}

int
main(int argc, char **argv)
{
	ying_fold_opts fo = YING_FOLD_OPTS_INIT;
	ying_fold_stats st;
	ying_profile *p = NULL, *q = NULL;
	size_t gz = 0, plain = 0, qgz = 0;
	int runs, r;

	if (argc != 5) {
		fprintf(stderr, "usage: fold_micro DUMP RUNS MAX_SAMPLES MAX_BYTES\n");
		return 2;
	}
	runs = atoi(argv[2]);
	fo.max_samples = strtoul(argv[3], NULL, 10);
	fo.max_bytes = strtoul(argv[4], NULL, 10);
	if (ying_profile_read_file(&p, argv[1]) != 0 || ying_profile_symbolize(p, NULL, NULL) != 0) {
		fprintf(stderr, "fold_micro: %s: %s\n", argv[1], ying_last_error());
		return 1;
	}
	for (r = 0; r < runs; r++) {
		double wg = write_time(p, 1, &gz), wp = write_time(p, 0, &plain), t0, tf, fw;
		t0 = now();
		if (ying_profile_fold(&q, p, &fo, &st) != 0 || q == NULL) {
			fprintf(stderr, "fold_micro: fold: %s\n", q ? ying_last_error() : "nothing to fold");
			return 1;
		}
		tf = now() - t0;
		fw = write_time(q, 1, &qgz);
		printf("run %.4f %.4f %.4f %.4f\n", wg, wp, tf, fw);
		ying_profile_free(q);
		q = NULL;
	}
	printf("result stacks %zu pprof_gz %zu pprof_plain %zu samples_out %zu bytes_out %zu "
	    "folded_gz %zu stacks_folded %zu depth %u share %.4f\n", st.samples_in, gz, plain,
	    st.samples_out, st.bytes_out, qgz, st.stacks_folded, st.depth, st.folded_share);
	ying_profile_free(p);
	return 0;
}
