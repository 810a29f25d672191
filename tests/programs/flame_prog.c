/*
 * flame_prog.c: a real program with known allocations, for the folded and
 * flame graph tests (tests/integration/folded_jeprof.sh, flame_chromium.sh).
 *
 * `flame_prog OUT.heap` allocates fixed amounts in named functions, keeps
 * them live and dumps a jemalloc heap profile to OUT.heap ("prof.dump").
 * Run it under MALLOC_CONF=prof:true,lg_prof_sample:0 so every allocation
 * is sampled; it exits 3 if the dump cannot be written.
 *
 * Live at dump time (besides libc's own buffers):
 *   grow_cache           8 x 1 MiB    = 8388608 B
 *   parse_input         32 x 64 KiB   = 2097152 B  (in inline_alloc, inlined)
 *   recurse(5)..(0)      4 x 256 KiB  = 1048576 B  (six nested recurse frames)
 *   load_config         100 x 4 KiB   =  409600 B
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jemalloc/jemalloc.h>

/* The stacks must be as written whatever CFLAGS say: no inlining beyond
 * always_inline, no tail calls, no merged call sites. */
#if defined(__clang__)
#pragma clang optimize off
#elif defined(__GNUC__)
#pragma GCC optimize("O0", "no-omit-frame-pointer")
#endif

static void *volatile keep[1024];
static int nkeep;

__attribute__((noinline)) static void
grow_cache(void)
{
	int i;

	for (i = 0; i < 8; i++)
		keep[nkeep++] = malloc(1 << 20);
}

static inline __attribute__((always_inline)) void *
inline_alloc(size_t n)
{
	return malloc(n);
}

__attribute__((noinline)) static void
parse_input(void)
{
	int i;

	for (i = 0; i < 32; i++)
		keep[nkeep++] = inline_alloc(64 << 10);
}

__attribute__((noinline)) static void
recurse(int depth)
{
	int i;

	if (depth > 0) {
		recurse(depth - 1);
		return;
	}
	for (i = 0; i < 4; i++)
		keep[nkeep++] = malloc(256 << 10);
}

__attribute__((noinline)) static void
load_config(void)
{
	int i;

	for (i = 0; i < 100; i++)
		keep[nkeep++] = calloc(1, 4096);
}

int
main(int argc, char **argv)
{
	const char *path;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: flame_prog OUT.heap\n");
		return 2;
	}
	grow_cache();
	parse_input();
	recurse(5);
	load_config();
	path = argv[1];
	rc = mallctl("prof.dump", NULL, NULL, &path, sizeof(path));
	if (rc != 0) {
		fprintf(stderr, "prof.dump to %s failed: %s (is MALLOC_CONF=prof:true set?)\n",
		    path, strerror(rc));
		return 3;
	}
	return 0;
}
