/*
 * bin_changed.c: the program tests/integration/bin_changed.sh profiles and
 * then rebuilds with another layout.
 *
 * Usage: bin_changed DUMP     allocate, write a heap profile to DUMP
 *                             (mallctl "prof.dump"), exit 0
 *        bin_changed -wait    allocate, print "ready", then sleep until
 *                             killed (ying run --dump-signal takes the dump)
 *
 * Built with -DBIN_CHANGED_SHIFT, a filler function of a few KiB comes first
 * and the allocating functions get other names (bc_new_*), so that every
 * sampled address of the first build lands somewhere else in the second:
 * a symbolizer that trusts the rebuilt file names the wrong functions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jemalloc/jemalloc.h>

#define NOINLINE __attribute__((noinline))

static void *volatile keep[64];
static int nkeep;

#ifdef BIN_CHANGED_SHIFT
volatile unsigned bc_sink;

/* A few KiB of code in front of everything else. */
NOINLINE void
bc_filler(unsigned n)
{
#define F4(i) bc_sink += n * (i); bc_sink ^= bc_sink >> 3; bc_sink += (i) * 7;
#define F16(i) F4(i) F4(i + 1) F4(i + 2) F4(i + 3)
#define F64(i) F16(i) F16(i + 4) F16(i + 8) F16(i + 12)
	F64(1) F64(100) F64(200) F64(300)
}
#define leaf_alloc bc_new_leaf
#define mid_alloc bc_new_mid
#define top_alloc bc_new_top
#define run_all bc_new_run
#endif

NOINLINE void
leaf_alloc(size_t n)
{
	keep[nkeep++ % 64] = malloc(n);
}

NOINLINE void
mid_alloc(size_t n)
{
	leaf_alloc(n);
	keep[nkeep++ % 64] = malloc(n * 2);
}

NOINLINE void
top_alloc(size_t n)
{
	mid_alloc(n);
	leaf_alloc(n * 3);
	keep[nkeep++ % 64] = malloc(n * 4);
}

NOINLINE void
run_all(void)
{
	for (int i = 0; i < 4; i++)
		top_alloc(100000);
	mid_alloc(300000);
}

int
main(int argc, char **argv)
{
	const char *path;

	if (argc != 2) {
		fprintf(stderr, "usage: bin_changed DUMP | -wait\n");
		return 2;
	}
#ifdef BIN_CHANGED_SHIFT
	bc_filler((unsigned)argc);
#endif
	run_all();
	if (strcmp(argv[1], "-wait") == 0) {
		printf("ready\n");
		fflush(stdout);
		for (int i = 0; i < 600; i++)
			sleep(1);
		return 0;
	}
	path = argv[1];
	if (mallctl("prof.dump", NULL, NULL, &path, sizeof(path)) != 0) {
		fprintf(stderr, "prof.dump to %s failed (is MALLOC_CONF=prof:true set?)\n", path);
		return 3;
	}
	return 0;
}
