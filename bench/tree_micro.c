/*
 * tree_micro.c: what the live page's flame tree (format=tree,
 * src/lib/write_tree.c) costs on a big heap, beside what the endpoint's
 * other answers of the same heap cost (bench/history.sh).
 *
 *   tree_micro DUMP DUMP2 RUNS
 *
 * Reads and symbolizes both dumps once, then RUNS times, alternating in
 * one process: the tree of DUMP (yi_write_tree, libying's internal but
 * exported entry point, declared here), the top table as JSON
 * (format=json), the SVG flame graph (format=svg), and the diff tree of
 * DUMP to DUMP2 (yi_diff_write_tree; the diff built outside the timing).
 * One line per run: "run TREE TOP SVG DIFFTREE" (seconds), then "size
 * TREE_BYTES TOP_BYTES SVG_BYTES DIFFTREE_BYTES".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ying.h>

int yi_write_tree(const ying_profile *p, ying_sample_index idx, ying_write_fn fn,
    void *opaque);
int yi_diff_write_tree(ying_diff *d, ying_write_fn fn, void *opaque);

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static ying_profile *
load(const char *path)
{
	ying_profile *p = NULL;

	if (ying_profile_read_file(&p, path) != 0 || ying_profile_symbolize(p, NULL, NULL) != 0) {
		fprintf(stderr, "tree_micro: %s: %s\n", path, ying_last_error());
		exit(1);
	}
	return p;
}

int
main(int argc, char **argv)
{
	ying_profile *p, *p2;
	ying_diff *d = NULL;
	ying_diff_build_opts bo = YING_DIFF_BUILD_OPTS_INIT;
	size_t sz[4] = { 0, 0, 0, 0 };
	int runs;

	if (argc != 4) {
		fprintf(stderr, "usage: tree_micro DUMP DUMP2 RUNS\n");
		return 2;
	}
	runs = atoi(argv[3]);
	p = load(argv[1]);
	p2 = load(argv[2]);
	if (ying_diff_build(&d, p, p2, &bo) != 0) {
		fprintf(stderr, "tree_micro: diff: %s\n", ying_last_error());
		return 1;
	}
	for (int r = 0; r < runs; r++) {
		ying_membuf b[4] = { YING_MEMBUF_INIT, YING_MEMBUF_INIT, YING_MEMBUF_INIT,
		    YING_MEMBUF_INIT };
		ying_top_opts to = YING_TOP_OPTS_INIT;
		ying_svg_opts so = YING_SVG_OPTS_INIT;
		double t[5];
		int rc = 0;

		to.json = 1;
		t[0] = now();
		rc |= yi_write_tree(p, YING_INUSE_SPACE, ying_write_membuf, &b[0]);
		t[1] = now();
		rc |= ying_profile_write_top(p, &to, ying_write_membuf, &b[1]);
		t[2] = now();
		rc |= ying_profile_write_svg(p, &so, ying_write_membuf, &b[2]);
		t[3] = now();
		rc |= yi_diff_write_tree(d, ying_write_membuf, &b[3]);
		t[4] = now();
		if (rc != 0) {
			fprintf(stderr, "tree_micro: %s\n", ying_last_error());
			return 1;
		}
		printf("run %.6f %.6f %.6f %.6f\n", t[1] - t[0], t[2] - t[1], t[3] - t[2],
		    t[4] - t[3]);
		for (int k = 0; k < 4; k++) {
			sz[k] = b[k].len;
			if (r == 0 && k == 0 && getenv("TREE_OUT")) {
				FILE *f = fopen(getenv("TREE_OUT"), "wb");
				if (f) {
					fwrite(b[0].data, 1, b[0].len, f);
					fclose(f);
				}
			}
			ying_membuf_release(&b[k]);
		}
	}
	printf("size %zu %zu %zu %zu\n", sz[0], sz[1], sz[2], sz[3]);
	ying_diff_free(d);
	ying_profile_free(p);
	ying_profile_free(p2);
	return 0;
}
