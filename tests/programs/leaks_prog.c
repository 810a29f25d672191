/*
 * leaks_prog.c: a program with a known heap behaviour over time, for
 * `ying leaks` (tests/integration/leaks.sh, leaks_virtual.sh,
 * bench/leaks.sh).  Two ways to run it.
 *
 * In real time:
 *
 *   leaks_prog MODE SECONDS [LEAK_KIB_PER_S [CACHE_MIB]]
 *
 * Every mode churns: churn_alloc() keeps 512 blocks of 4 KiB (2 MiB) and
 * replaces 64 of them, chosen at random, every 10 ms, so its live bytes
 * stay put while its blocks turn over.  On top of that:
 *   leak   leak_alloc() keeps 8 KiB blocks it never frees, LEAK_KIB_PER_S
 *          (default 512) KiB a second, for all of SECONDS;
 *   cache  cache_fill() adds 16 KiB entries until it holds CACHE_MIB
 *          (default 8) MiB, reached at a third of SECONDS, then holds them;
 *   churn  nothing else.
 * It exits 0 after SECONDS.
 *
 * On a virtual clock:
 *
 *   leaks_prog --virtual CASE OUTDIR NDUMPS STEP_SECONDS [OPTION VALUE]...
 *
 * The program does, one virtual second at a time, the allocation work of
 * (NDUMPS - 1) * STEP_SECONDS seconds, as fast as it can, and after every
 * STEP_SECONDS of it (and once before the first) dumps its own heap with
 * jemalloc's "prof.dump" mallctl to OUTDIR/NNNN.heap (0000 first), whose
 * modification time it then sets to EPOCH + k * STEP_SECONDS (dump k), so
 * `ying leaks OUTDIR` sees the dumps at their virtual times.  EPOCH is the
 * real time at the start (--epoch SECONDS to fix it): the dumps lie in the
 * future, never before the program and its libraries were built, which
 * the symbolizer would take for binaries modified since the dump.
 * jemalloc samples by bytes allocated, never by time (the next sample
 * comes after an exponentially distributed number of bytes, mean
 * 2^lg_prof_sample): a virtual run is, for the sampler and so for every
 * dump, statistically the same as a real one with the same allocations at
 * that rate; only the wall-clock time between them differs.
 *
 * Every case churns: churn_alloc() holds blocks of 1 to 64 KiB (uniform,
 * whole KiB), --live LO-HI MiB of them (default 16-48); every virtual
 * second it frees blocks chosen at random until it has freed --churn MIB
 * (default 256) / 60 MiB, then allocates new ones back up to its target,
 * which walks: every second the target moves by a normal step of sd --walk
 * MIB (default 8) / sqrt(60) (8 MiB in a minute), reflected at LO and HI.
 * At lg_prof_sample 19 that is 512 churn samples a minute coming and
 * going, and a churn site whose live bytes wander over the whole range in
 * about a quarter of an hour.  On top of the churn:
 *   leak   leak_alloc() keeps 8 KiB blocks, --leak KIB (default 1024) KiB
 *          a virtual minute;
 *   cache  cache_fill() adds 16 KiB entries up to --cache MIB (default 32),
 *          the fill linear over the first third of the run, then holds;
 *   churn  nothing else;
 *   slow   base_alloc() allocates --base MIB (default 64) at the start, in
 *          blocks of 1 to 64 KiB, and holds them; slow_leak() keeps 8 KiB
 *          blocks, --slow PCT (default 1) % of the base a virtual hour.
 * Beside the dumps, OUTDIR/truth.tsv has a line a dump: k, the virtual
 * time, and the true live bytes of churn_alloc, leak_alloc, cache_fill,
 * base_alloc and slow_leak (what a dump estimates).
 * It prints one line "leaks_prog --virtual CASE: key=value ..." (the bytes
 * leaked, the span in seconds, ...) and exits 0; 2 on a bad command line,
 * 1 when jemalloc's profiler is not there or not active (run it under
 * `ying run`, or LD_PRELOAD a jemalloc with MALLOC_CONF=prof:true).
 *
 * Both: the random choices come from LEAKS_PROG_SEED (default 12345);
 * jemalloc's own sampling draws differ from process to process anyway.
 * -O2 safe: the blocks are published through a volatile sink and the
 * allocating functions are noinline (and not tail calls).  Plain malloc
 * and no link to jemalloc: the mallctl is found with dlsym.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#define CHURN_N 512
#define CHURN_SIZE 4096
#define LEAK_SIZE 8192
#define CACHE_SIZE 16384
#define MIB (1024.0 * 1024.0)

static void *volatile sink;
static void *churn[CHURN_N];
static void **kept;
static size_t nkept, capkept;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
keep(void *p)
{
	if (nkept == capkept) {
		capkept = capkept ? 2 * capkept : 1024;
		if ((kept = realloc(kept, capkept * sizeof(*kept))) == NULL) {
			fprintf(stderr, "leaks_prog: out of memory\n");
			exit(1);
		}
	}
	kept[nkept++] = p;
	sink = p;
}

static void *
checked(void *p)
{
	if (p == NULL) {
		fprintf(stderr, "leaks_prog: out of memory\n");
		exit(1);
	}
	memset(p, 0x5a, 64);
	sink = p;
	return p;
}

__attribute__((noinline)) void *
churn_alloc(size_t size)
{
	void *p = checked(malloc(size));
	__asm__ volatile("" ::: "memory");
	return p;
}

__attribute__((noinline)) void *
leak_alloc(void)
{
	void *p = checked(malloc(LEAK_SIZE));
	__asm__ volatile("" ::: "memory");
	return p;
}

__attribute__((noinline)) void *
cache_fill(void)
{
	void *p = checked(malloc(CACHE_SIZE));
	__asm__ volatile("" ::: "memory");
	return p;
}

__attribute__((noinline)) void *
base_alloc(size_t size)
{
	void *p = checked(malloc(size));
	__asm__ volatile("" ::: "memory");
	return p;
}

__attribute__((noinline)) void *
slow_leak(void)
{
	void *p = checked(malloc(LEAK_SIZE));
	__asm__ volatile("" ::: "memory");
	return p;
}

/* ---- the virtual clock ---- */

typedef int (*mallctl_fn)(const char *, void *, size_t *, void *, size_t);

typedef struct vblock {
	void *p;
	size_t size;
} vblock;

static vblock *vb;          /* the churn's live blocks (mmap'd) */
static void **vkept;        /* the blocks held for good (mmap'd) */
static size_t nvkept, capvkept;
static size_t nvb, capvb;
static double vlive;        /* their bytes */
static uint64_t rng;
static time_t epoch;       /* the virtual clock's 0 */

/* splitmix64 */
static uint64_t
rnd(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double
unif(void)
{
	return (double)(rnd() >> 11) * (1.0 / 9007199254740992.0);
}

/* A standard normal draw, near enough: the sum of 12 uniforms, less 6. */
static double
gauss(void)
{
	double s = 0;
	int i;

	for (i = 0; i < 12; i++)
		s += unif();
	return s - 6;
}

/* The program's own bookkeeping lives in mmap'd arrays, off the heap
 * that is profiled, so the dumps hold the named functions only. */
static void *
grow_map(void *old, size_t *cap, size_t elem)
{
	size_t ncap = *cap ? 2 * *cap : 4096;
	void *p = mmap(NULL, ncap * elem, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "leaks_prog: out of memory\n");
		exit(1);
	}
	if (old) {
		memcpy(p, old, *cap * elem);
		munmap(old, *cap * elem);
	}
	*cap = ncap;
	return p;
}

static void
vkeep(void *p)
{
	if (nvkept == capvkept)
		vkept = grow_map(vkept, &capvkept, sizeof(*vkept));
	vkept[nvkept++] = p;
	sink = p;
}

static size_t
mixed_size(void)
{
	return (size_t)(1 + rnd() % 64) * 1024;
}

/* One virtual second of churn: free at least turnover bytes of random
 * blocks (more if the live bytes are above target), then allocate back up
 * to target. */
static void
churn_second(double turnover, double target)
{
	double freed = 0;

	while (nvb > 0 && (freed < turnover || vlive > target)) {
		size_t k = (size_t)(rnd() % nvb);
		freed += (double)vb[k].size;
		vlive -= (double)vb[k].size;
		free(vb[k].p);
		vb[k] = vb[--nvb];
	}
	while (vlive < target) {
		size_t size = mixed_size();
		if (nvb == capvb)
			vb = grow_map(vb, &capvb, sizeof(*vb));
		vb[nvb].p = churn_alloc(size);
		vb[nvb++].size = size;
		vlive += (double)size;
	}
}

static int
vdump(mallctl_fn ctl, const char *dir, long k, double step)
{
	char path[PATH_MAX];
	const char *pp = path;
	struct timespec ts[2];
	double t = (double)k * step;

	if (snprintf(path, sizeof(path), "%s/%04ld.heap", dir, k) >= (int)sizeof(path)) {
		fprintf(stderr, "leaks_prog: %s: path too long\n", dir);
		return -1;
	}
	if (ctl("prof.dump", NULL, NULL, &pp, sizeof(pp)) != 0) {
		fprintf(stderr, "leaks_prog: prof.dump to %s failed\n", path);
		return -1;
	}
	ts[0].tv_sec = ts[1].tv_sec = epoch + (time_t)t;
	ts[0].tv_nsec = ts[1].tv_nsec = (long)((t - (double)(time_t)t) * 1e9);
	if (utimensat(AT_FDCWD, path, ts, 0) != 0) {
		perror(path);
		return -1;
	}
	return 0;
}

static int
opt_num(const char *name, const char *val, double *out)
{
	char *end;

	*out = strtod(val, &end);
	if (end == val || *end != '\0' || !(*out >= 0)) {
		fprintf(stderr, "leaks_prog: bad %s '%s'\n", name, val);
		return -1;
	}
	return 0;
}

static int
virtual_main(int argc, char **argv)
{
	const char *cas, *dir;
	double step, churn_mib = 256, lo = 16, hi = 48, walk = 8, leak_kib = 1024;
	double cache_mib = 32, base_mib = 64, slow_pct = 1, span, t, target;
	double leaked = 0, slowed = 0, cached = 0, based = 0, turned = 0;
	double minlive, maxlive, rate;
	long ndumps, k, s, nsec;
	mallctl_fn ctl;
	char tpath[PATH_MAX];
	FILE *truth;
	bool on = false;
	size_t sz = sizeof(on);
	int i, c;

	if (argc < 6 || (argc - 6) % 2 != 0) {
		fprintf(stderr, "usage: leaks_prog --virtual leak|cache|churn|slow OUTDIR "
		    "NDUMPS STEP_SECONDS [--churn MIB_PER_MIN] [--live LO-HI] "
		    "[--walk MIB] [--leak KIB_PER_MIN] [--cache MIB] [--base MIB] "
		    "[--slow PCT_PER_HOUR] [--epoch SECONDS]\n");
		return 2;
	}
	cas = argv[2];
	dir = argv[3];
	ndumps = strtol(argv[4], NULL, 10);
	step = atof(argv[5]);
	if (strcmp(cas, "leak") == 0)
		c = 'l';
	else if (strcmp(cas, "cache") == 0)
		c = 'c';
	else if (strcmp(cas, "churn") == 0)
		c = 'n';
	else if (strcmp(cas, "slow") == 0)
		c = 's';
	else {
		fprintf(stderr, "leaks_prog: unknown case '%s'\n", cas);
		return 2;
	}
	if (ndumps < 2 || ndumps > 100000 || !(step >= 1) || step > 86400 ||
	    step != (double)(long)step) {
		fprintf(stderr, "leaks_prog: NDUMPS 2 to 100000, STEP_SECONDS a whole "
		    "number of seconds, 1 to 86400\n");
		return 2;
	}
	for (i = 6; i < argc; i += 2) {
		const char *o = argv[i], *v = argv[i + 1];
		int rc;
		if (strcmp(o, "--churn") == 0)
			rc = opt_num(o, v, &churn_mib);
		else if (strcmp(o, "--walk") == 0)
			rc = opt_num(o, v, &walk);
		else if (strcmp(o, "--leak") == 0)
			rc = opt_num(o, v, &leak_kib);
		else if (strcmp(o, "--cache") == 0)
			rc = opt_num(o, v, &cache_mib);
		else if (strcmp(o, "--base") == 0)
			rc = opt_num(o, v, &base_mib);
		else if (strcmp(o, "--slow") == 0)
			rc = opt_num(o, v, &slow_pct);
		else if (strcmp(o, "--epoch") == 0) {
			double e;
			if ((rc = opt_num(o, v, &e)) == 0)
				epoch = (time_t)e;
		} else if (strcmp(o, "--live") == 0) {
			rc = sscanf(v, "%lf-%lf", &lo, &hi) == 2 && lo >= 0 && hi >= lo ? 0 : -1;
			if (rc != 0)
				fprintf(stderr, "leaks_prog: bad --live '%s' (LO-HI MiB)\n", v);
		} else {
			fprintf(stderr, "leaks_prog: unknown option '%s'\n", o);
			rc = -1;
		}
		if (rc != 0)
			return 2;
	}
	rng = getenv("LEAKS_PROG_SEED") ?
	    strtoull(getenv("LEAKS_PROG_SEED"), NULL, 10) : 12345;
	if ((ctl = (mallctl_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "mallctl")) == NULL) {
		fprintf(stderr, "leaks_prog: no jemalloc (mallctl) in the process: run "
		    "it under `ying run` or LD_PRELOAD a jemalloc\n");
		return 1;
	}
	if (ctl("prof.active", &on, &sz, NULL, 0) != 0 || !on) {
		fprintf(stderr, "leaks_prog: jemalloc's profiler is off or inactive "
		    "(MALLOC_CONF=prof:true,prof_active:true)\n");
		return 1;
	}

	if (epoch == 0)
		epoch = time(NULL);
	span = (double)(ndumps - 1) * step;
	lo *= MIB;
	hi *= MIB;
	if (c == 's')
		while (based < base_mib * MIB) {
			size_t bs = mixed_size();
			vkeep(base_alloc(bs));
			based += (double)bs;
		}
	target = lo + unif() * (hi - lo);
	churn_second(0, target);
	minlive = maxlive = vlive;
	if (snprintf(tpath, sizeof(tpath), "%s/truth.tsv", dir) >= (int)sizeof(tpath) ||
	    (truth = fopen(tpath, "w")) == NULL) {
		fprintf(stderr, "leaks_prog: cannot write %s/truth.tsv\n", dir);
		return 1;
	}
	fprintf(truth, "k\tt\tchurn_alloc\tleak_alloc\tcache_fill\tbase_alloc\tslow_leak\n");
	fprintf(truth, "0\t0\t%.0f\t0\t0\t%.0f\t0\n", vlive, based);
	if (vdump(ctl, dir, 0, step) != 0)
		return 1;
	nsec = (long)step;
	for (k = 1; k < ndumps; k++) {
		for (s = 1; s <= nsec; s++) {
			t = (double)(k - 1) * step + (double)s;
			target += gauss() * walk * MIB / 7.745966692;  /* sqrt(60) */
			if (target < lo)
				target = 2 * lo - target;
			if (target > hi)
				target = 2 * hi - target;
			if (target < lo)
				target = lo;
			churn_second(churn_mib * MIB / 60, target);
			turned += churn_mib * MIB / 60;
			if (vlive < minlive)
				minlive = vlive;
			if (vlive > maxlive)
				maxlive = vlive;
			if (c == 'l')
				for (; leaked + LEAK_SIZE <= leak_kib * 1024 * t / 60; leaked += LEAK_SIZE)
					vkeep(leak_alloc());
			if (c == 'c') {
				double want = cache_mib * MIB * (t < span / 3 ? t / (span / 3) : 1);
				for (; cached + CACHE_SIZE <= want; cached += CACHE_SIZE)
					vkeep(cache_fill());
			}
			if (c == 's')
				for (; slowed + LEAK_SIZE <= based * slow_pct / 100 * t / 3600;
				    slowed += LEAK_SIZE)
					vkeep(slow_leak());
		}
		fprintf(truth, "%ld\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\n", k,
		    (double)k * step, vlive, leaked, cached, based, slowed);
		if (vdump(ctl, dir, k, step) != 0)
			return 1;
	}
	if (fclose(truth) != 0) {
		fprintf(stderr, "leaks_prog: %s: write error\n", tpath);
		return 1;
	}
	rate = c == 'l' ? leaked / span * 3600 : c == 's' ? slowed / span * 3600 : 0;
	printf("leaks_prog --virtual %s: dumps=%ld step=%.0f span=%.0f leaked=%.0f "
	    "slow=%.0f rate=%.0f cached=%.0f base=%.0f churned=%.0f churn_min=%.0f "
	    "churn_max=%.0f epoch=%ld seed=%s\n", cas, ndumps, step, span, leaked,
	    slowed, rate, cached, based, turned, minlive, maxlive, (long)epoch,
	    getenv("LEAKS_PROG_SEED") ? getenv("LEAKS_PROG_SEED") : "12345");
	return 0;
}

int
main(int argc, char **argv)
{
	const char *mode;
	double secs, leak_kib = 512, cache_mib = 8, t0, t, leaked = 0, cached = 0;
	unsigned seed = 12345;
	size_t i;

	/* the real-time loop stays in main: leaks.sh checks the stack
	 * leak_alloc;main */
	if (argc > 1 && strcmp(argv[1], "--virtual") == 0)
		return virtual_main(argc, argv);
	if (argc < 3) {
		fprintf(stderr, "usage: leaks_prog leak|cache|churn SECONDS "
		    "[LEAK_KIB_PER_S [CACHE_MIB]]\n"
		    "       leaks_prog --virtual leak|cache|churn|slow OUTDIR NDUMPS "
		    "STEP_SECONDS [OPTION VALUE]...\n");
		return 2;
	}
	mode = argv[1];
	secs = atof(argv[2]);
	if (argc > 3)
		leak_kib = atof(argv[3]);
	if (argc > 4)
		cache_mib = atof(argv[4]);
	if (strcmp(mode, "leak") != 0 && strcmp(mode, "cache") != 0 &&
	    strcmp(mode, "churn") != 0) {
		fprintf(stderr, "leaks_prog: unknown mode '%s'\n", mode);
		return 2;
	}
	if (getenv("LEAKS_PROG_SEED"))
		seed = (unsigned)strtoul(getenv("LEAKS_PROG_SEED"), NULL, 10);
	srand(seed);
	for (i = 0; i < CHURN_N; i++)
		churn[i] = churn_alloc(CHURN_SIZE);
	t0 = now();
	while ((t = now() - t0) < secs) {
		struct timespec ts = { 0, 10 * 1000000L };
		for (i = 0; i < 64; i++) {
			size_t k = (size_t)rand() % CHURN_N;
			free(churn[k]);
			churn[k] = churn_alloc(CHURN_SIZE);
		}
		if (strcmp(mode, "leak") == 0)
			for (; leaked < leak_kib * 1024 * t; leaked += LEAK_SIZE)
				keep(leak_alloc());
		if (strcmp(mode, "cache") == 0) {
			double target = cache_mib * 1024 * 1024 * (t < secs / 3 ? t / (secs / 3) : 1);
			for (; cached + CACHE_SIZE <= target; cached += CACHE_SIZE)
				keep(cache_fill());
		}
		nanosleep(&ts, NULL);
	}
	printf("leaks_prog %s: leaked %.0f bytes, cached %.0f bytes\n", mode, leaked, cached);
	return 0;
}
