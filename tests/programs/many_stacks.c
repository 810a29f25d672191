/*
 * many_stacks.c: a program holding objects on many distinct allocation
 * stacks, for the Pyroscope limit and delta tests (tests/integration/
 * pyro_limits.sh, pyro_alloy.sh).
 *
 *   many_stacks N DEPTH CTL_DIR
 *
 * makes N distinct call paths (1 <= N <= 65536): path i goes through
 * DEPTH frames of ms_deep() (0..200, recursion at the root side for deep
 * stacks), then four levels of ms_lvl0..ms_lvl15 chosen by i's four
 * base-16 digits through a volatile table of function pointers (16^4 paths,
 * each level's frame its own function), then ms_leaf(), which allocates
 * MANY_STACKS_OBJS objects (default 2) of MANY_STACKS_SIZE bytes (default
 * 64; a jemalloc size class keeps the byte counts exact) and keeps them
 * (their table is mmapped, stdout's buffer static: off the heap).  Before
 * the paths, grow_more() allocates 64 blocks of 1 KiB (kept).  Under
 * MALLOC_CONF=prof:true,lg_prof_sample:0 (`ying run --sample 0`) every
 * object is sampled, so a dump has N + 1 stacks of this program's (checked:
 * 20,000 shallow ones, and 15,000 of 106 frames with DEPTH 96).  Then it
 * prints
 *   ready paths=N depth=DEPTH held=BYTES stacks_bytes=BYTES grow_bytes=BYTES
 * (held: every byte it keeps) and waits: once CTL_DIR/grow exists,
 * grow_more() allocates 1024 blocks of 4 KiB more (once, from the same
 * call site, so on the same stack) and it prints "grown 4194304
 * held=BYTES"; once CTL_DIR/stop exists it exits 0.  After
 * MANY_STACKS_MAX_S seconds (default 600) it gives up: exit 3.
 * Plain malloc: `ying run` preloads jemalloc.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#define LEVELS 4
#define FANOUT 16
#define MAX_PATHS (FANOUT * FANOUT * FANOUT * FANOUT)
#define MAX_DEPTH 200
#define GROW0_N 64
#define GROW0_SIZE 1024
#define GROW_N 1024
#define GROW_SIZE 4096

typedef void level_fn(unsigned long path, int level);

static void *volatile *keep;
static void *volatile grown[GROW0_N + GROW_N];
static size_t ngrown;
static unsigned long objs = 2, size = 64;
static volatile unsigned long sink;
static level_fn *volatile table[FANOUT];
static volatile int nphases = 2;
static char outbuf[1024];
static volatile size_t grow_n[2] = { GROW0_N, GROW_N };
static volatile size_t grow_size[2] = { GROW0_SIZE, GROW_SIZE };

static void
die(const char *what)
{
	fprintf(stderr, "many_stacks: %s\n", what);
	exit(1);
}

__attribute__((noinline)) static void
ms_leaf(unsigned long path)
{
	unsigned long k;

	for (k = 0; k < objs; k++) {
		char *p = malloc(size);

		if (p == NULL)
			die("out of memory");
		p[0] = (char)path;
		keep[path * objs + k] = p;
	}
	sink++;
}

static unsigned
digit(unsigned long path, int level)
{
	return (unsigned)(path >> (4 * (LEVELS - 1 - level))) & (FANOUT - 1);
}

/* One level: the next level's function through the table, or the leaf.
 * The sink increment after the call keeps it from being a tail call. */
#define LEVEL(j)                                                        \
	__attribute__((noinline)) static void                           \
	ms_lvl##j(unsigned long path, int level)                        \
	{                                                               \
		if (level + 1 < LEVELS)                                 \
			table[digit(path, level + 1)](path, level + 1); \
		else                                                    \
			ms_leaf(path);                                  \
		sink += (unsigned long)level;                           \
	}
LEVEL(0) LEVEL(1) LEVEL(2) LEVEL(3) LEVEL(4) LEVEL(5) LEVEL(6) LEVEL(7)
LEVEL(8) LEVEL(9) LEVEL(10) LEVEL(11) LEVEL(12) LEVEL(13) LEVEL(14) LEVEL(15)

__attribute__((noinline)) static void
ms_deep(unsigned long path, int depth)
{
	if (depth > 0)
		ms_deep(path, depth - 1);
	else
		table[digit(path, 0)](path, 0);
	sink++;
}

/* n blocks of bsize bytes, kept: the stack the delta tests look for. */
__attribute__((noinline)) void
grow_more(size_t n, size_t bsize)
{
	size_t i;

	for (i = 0; i < n && ngrown < GROW0_N + GROW_N; i++) {
		char *p = malloc(bsize);

		if (p == NULL)
			die("out of memory");
		memset(p, 0x5a, 64);
		grown[ngrown++] = p;
	}
	sink++;
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
}

static int
exists(const char *dir, const char *name)
{
	char path[4096];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return 0;
	return access(path, F_OK) == 0;
}

static int
timed_out(const char *dir, unsigned long max_s)
{
	fprintf(stderr, "many_stacks: no %s/stop after %lu s\n", dir, max_s);
	return 3;
}

/* Before phase 1: wait for CTL_DIR/grow; -1 to go on, else the exit
 * status (0 when CTL_DIR/stop came first). */
__attribute__((noinline)) static int
ms_before(int phase, const char *dir, unsigned long max_s)
{
	long waited_ms;

	if (phase == 0)
		return -1;
	for (waited_ms = 0; !exists(dir, "grow"); waited_ms += 20) {
		if (exists(dir, "stop"))
			return 0;
		if (waited_ms >= (long)max_s * 1000)
			return timed_out(dir, max_s);
		sleep_ms(20);
	}
	return -1;
}

/* After phase 0: the paths, "ready"; after phase 1: "grown". */
__attribute__((noinline)) static void
ms_after(int phase, unsigned long n, long depth)
{
	unsigned long i, stacks = n * objs * size, g0 = (unsigned long)GROW0_N * GROW0_SIZE;

	if (phase == 0) {
		for (i = 0; i < n; i++)
			ms_deep(i, (int)depth);
		printf("ready paths=%lu depth=%ld held=%lu stacks_bytes=%lu grow_bytes=%lu\n", n, depth,
		    stacks + g0, stacks, g0);
	} else {
		printf("grown %lu held=%lu\n", (unsigned long)GROW_N * GROW_SIZE,
		    stacks + g0 + (unsigned long)GROW_N * GROW_SIZE);
	}
	fflush(stdout);
}

static unsigned long
env_ul(const char *name, unsigned long dflt, unsigned long lo, unsigned long hi)
{
	const char *v = getenv(name);
	char *end;
	unsigned long n;

	if (v == NULL || *v == '\0')
		return dflt;
	n = strtoul(v, &end, 10);
	if (*end != '\0' || n < lo || n > hi) {
		fprintf(stderr, "many_stacks: %s=%s: expected %lu..%lu\n", name, v, lo, hi);
		exit(2);
	}
	return n;
}

int
main(int argc, char **argv)
{
	static level_fn *const fns[FANOUT] = {
		ms_lvl0, ms_lvl1, ms_lvl2, ms_lvl3, ms_lvl4, ms_lvl5, ms_lvl6, ms_lvl7,
		ms_lvl8, ms_lvl9, ms_lvl10, ms_lvl11, ms_lvl12, ms_lvl13, ms_lvl14, ms_lvl15,
	};
	unsigned long n, i, max_s;
	long depth, waited_ms;
	char *end;
	int phase, rc;

	if (argc != 4) {
		fprintf(stderr, "usage: many_stacks N DEPTH CTL_DIR\n");
		return 2;
	}
	n = strtoul(argv[1], &end, 10);
	if (*end != '\0' || n < 1 || n > MAX_PATHS) {
		fprintf(stderr, "many_stacks: N must be 1..%d\n", MAX_PATHS);
		return 2;
	}
	depth = strtol(argv[2], &end, 10);
	if (*end != '\0' || depth < 0 || depth > MAX_DEPTH) {
		fprintf(stderr, "many_stacks: DEPTH must be 0..%d\n", MAX_DEPTH);
		return 2;
	}
	objs = env_ul("MANY_STACKS_OBJS", 2, 1, 64);
	size = env_ul("MANY_STACKS_SIZE", 64, 1, 1 << 20);
	max_s = env_ul("MANY_STACKS_MAX_S", 600, 1, 86400);
	for (i = 0; i < FANOUT; i++)
		table[i] = fns[i];
	/* Off the heap: held counts only what the paths and grow_more keep. */
	setvbuf(stdout, outbuf, _IOLBF, sizeof(outbuf));
	keep = mmap(NULL, n * objs * sizeof(*keep), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);
	if (keep == MAP_FAILED)
		die("mmap failed");
	/* grow_more is called from one call site for both phases, so its
	 * stack is the same before and after CTL_DIR/grow: what differs per
	 * phase is in noinline helpers and volatile tables, so the compiler
	 * has no reason to split the loop into two call sites. */
	for (phase = 0; phase < nphases; phase++) {
		if ((rc = ms_before(phase, argv[3], max_s)) >= 0)
			return rc;
		grow_more(grow_n[phase], grow_size[phase]);
		ms_after(phase, n, depth);
	}
	for (waited_ms = 0; !exists(argv[3], "stop"); waited_ms += 20) {
		if (waited_ms >= (long)max_s * 1000)
			return timed_out(argv[3], max_s);
		sleep_ms(20);
	}
	return 0;
}
