/*
 * diff_grow.c: a program that grows one known call site between two heap
 * dumps, for the yingdiff integration tests.
 *
 *   diff_grow [options] BASE.heap [NOW.heap]
 *     --grow BYTES    bytes grow_me() allocates between the dumps (default 0)
 *     --block BYTES   block size of that growth (default 4096)
 *     --shrink        free keep_c()'s 1 MiB between the dumps
 *     --stacks N      also allocate 64 bytes at N distinct call stacks
 *                     before BASE
 *     --regrow        allocate again at every third of those before NOW
 *
 * The base set (keep_a 64 x 4 KiB, keep_b 32 x 16 KiB, keep_c 8 x 128 KiB)
 * is allocated first and kept, so it is identical in both dumps and across
 * runs.  Nothing is printed before the dumps (stdio would allocate).  Run it
 * with MALLOC_CONF=prof:true[,lg_prof_sample:0]; linked with -ljemalloc.
 */
#include <errno.h>
#include <jemalloc/jemalloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __clang__
#pragma clang optimize off
#else
#pragma GCC optimize "O0"
#endif

#define MAXKEEP (1u << 21)
static void *kept[MAXKEEP];
static size_t nkept;
static volatile unsigned sink;

static void
keep(void *p)
{
	if (p == NULL) {
		fputs("diff_grow: out of memory\n", stderr);
		exit(1);
	}
	memset(p, 1, 64);
	if (nkept < MAXKEEP)
		kept[nkept++] = p;
}

__attribute__((noinline)) static void
keep_a(void)
{
	for (int i = 0; i < 64; i++)
		keep(malloc(4096));
}

__attribute__((noinline)) static void
keep_b(void)
{
	for (int i = 0; i < 32; i++)
		keep(malloc(16384));
}

static void *c_blocks[8];

__attribute__((noinline)) static void
keep_c(void)
{
	for (int i = 0; i < 8; i++) {
		c_blocks[i] = malloc(131072);
		keep(c_blocks[i]);
	}
}

__attribute__((noinline)) static void
grow_me(size_t bytes, size_t block)
{
	size_t i;

	for (i = 0; i + block <= bytes; i += block)
		keep(malloc(block));
	sink++;
}

/* Two call sites per level: every bit pattern is a distinct stack. */
__attribute__((noinline)) static void
fan(int depth, unsigned bits)
{
	if (depth == 0) {
		keep(malloc(64));
		return;
	}
	if (bits & 1)
		fan(depth - 1, bits >> 1);
	else
		fan(depth - 1, bits >> 1);
	sink++;
}

__attribute__((noinline)) static void
many_stacks(unsigned n, unsigned every)
{
	int depth = 0;
	unsigned i;

	while ((1u << depth) < n)
		depth++;
	for (i = 0; i < n; i++)
		if (i % every == 0)
			fan(depth, i);
	sink++;
}

static int
dump(const char *path)
{
	int err = mallctl("prof.dump", NULL, NULL, &path, sizeof(path));

	if (err) {
		fprintf(stderr, "diff_grow: prof.dump(%s) failed: %s (run with "
		    "MALLOC_CONF=prof:true)\n", path, strerror(err));
		return 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	size_t grow = 0, block = 4096;
	unsigned stacks = 0;
	int shrink = 0, regrow = 0, i;

	for (i = 1; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
		if (strcmp(argv[i], "--grow") == 0 && i + 1 < argc)
			grow = strtoull(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--block") == 0 && i + 1 < argc)
			block = strtoull(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--shrink") == 0)
			shrink = 1;
		else if (strcmp(argv[i], "--regrow") == 0)
			regrow = 1;
		else if (strcmp(argv[i], "--stacks") == 0 && i + 1 < argc)
			stacks = (unsigned)strtoul(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "diff_grow: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (i >= argc || argc - i > 2 || block == 0) {
		fputs("usage: diff_grow [--grow BYTES] [--block BYTES] [--shrink] "
		    "[--stacks N [--regrow]] BASE.heap [NOW.heap]\n", stderr);
		return 2;
	}
	keep_a();
	keep_b();
	keep_c();
	if (stacks)
		many_stacks(stacks, 1);
	if (dump(argv[i]))
		return 1;
	if (i + 1 == argc)
		return 0;
	grow_me(grow, block);
	if (stacks && regrow)
		many_stacks(stacks, 3);
	if (shrink)
		for (int k = 0; k < 8; k++)
			free(c_blocks[k]);
	if (dump(argv[i + 1]))
		return 1;
	return 0;
}
