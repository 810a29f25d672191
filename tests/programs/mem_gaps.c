/*
 * mem_gaps.c: a program built to have one gap between its heap profile and
 * its RSS, for tests/integration/memory_gaps.sh and bench/memory.sh (issue
 * 26, item 4: the memory breakdown validated against the truth computed in
 * the program itself).
 *
 *   mem_gaps MODE DIR [N]
 *
 * does MODE's gap, then prints one line of JSON on stdout,
 *   {"mode":"MODE","truth":{"PART":BYTES,...},"rss":BYTES,...}
 * where each PART is a key of /debug/memory's "parts" and BYTES what the
 * program itself measured (jemalloc's own counters through its own
 * mallctl, mincore() on its own mappings, its own byte counts), "rss" its
 * RSS from /proc/self/statm and "pid" its pid; then a line "ready", and
 * waits until DIR/stop appears or DIR is gone, SIGTERM/SIGINT, or 300 s.  When jemalloc's
 * profiler is on (opt.prof) it first waits (up to 20 s) for prof.active:
 * under `ying run` sampling starts once the agent is up, so the agent's own
 * memory is in the RSS measured.  The modes:
 *
 *   frag     N (default 1000000) objects of 64 bytes, 90 % of them freed in
 *            a random order (fixed seed); truth: the 64-byte bin's free
 *            regions in its current slabs, (curslabs * nregs - curregs) *
 *            size, from stats.arenas.4096.bins.<j> after "epoch" (the
 *            thread's tcache flushed first), and the bytes kept (N/10 * 64
 *            and the 8-byte-per-object pointer array);
 *   dirty    N (default 300) MiB in 1 MiB blocks, touched, all freed; run
 *            with MALLOC_CONF=dirty_decay_ms:-1 (the pages never decay);
 *            truth: stats.arenas.4096.pdirty * page;
 *   threads  N (default 200) threads, each touching 256 KiB of its own stack
 *            and then blocking; truth: the sum over the threads of the
 *            resident pages (mincore) of each one's stack
 *            (pthread_getattr_np), and N * 256 KiB;
 *   file     maps DIR/mem_gaps.data, a file of N (default 256) MiB it
 *            writes, reads every page; truth: the mapping's resident pages
 *            (mincore), and the file's path;
 *   glibc    N (default 64) MiB in 3000-byte blocks from glibc's own malloc
 *            (__libc_malloc, exported by glibc even when jemalloc is the
 *            malloc), touched and kept; truth: the bytes kept and
 *            mallinfo2()'s arena + hblkhd;
 *   bench    N (default 1024) MiB of heap in 64 KiB blocks (touched, kept)
 *            and 200 threads blocked (for bench/memory.sh).
 *
 * No jemalloc linked: `ying run` preloads it; mallctl is found with
 * dlsym(RTLD_DEFAULT) (a mode that needs it fails, status 2, without).
 * Exit status: 0 after the wait, 1 on bad arguments, 2 when the gap could
 * not be made or measured (the reason on stderr).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  /* pthread_getattr_np, mincore (config.h sets it in the build) */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef int (*mallctl_fn)(const char *, void *, size_t *, void *, size_t);

extern void *__libc_malloc(size_t);

static mallctl_fn mc;
static const char *dir;
static long page;
static volatile sig_atomic_t stopping;
static void *volatile sink;   /* the allocations are not optimised away */

static void
die(const char *what)
{
	fprintf(stderr, "mem_gaps: %s: %s\n", what, errno ? strerror(errno) : "failed");
	exit(2);
}

static void
on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR && !stopping)
		;
}

/* mallctl NAME for a size_t or unsigned (the size of *out tells). */
static void
ctl_read(const char *name, void *out, size_t size)
{
	size_t sz = size;

	if (mc == NULL) {
		errno = 0;
		die("no mallctl in the process (run it under ying run or with libjemalloc preloaded)");
	}
	if (mc(name, out, &sz, NULL, 0) != 0 || sz != size) {
		fprintf(stderr, "mem_gaps: mallctl %s failed\n", name);
		exit(2);
	}
}

static void
ctl_epoch(void)
{
	uint64_t e = 1;
	size_t sz = sizeof(e);

	if (mc == NULL || mc("epoch", &e, &sz, &e, sz) != 0)
		die("mallctl epoch");
}

static size_t
ctl_size(const char *name)
{
	size_t v;

	ctl_read(name, &v, sizeof(v));
	return v;
}

static unsigned
ctl_unsigned(const char *name)
{
	unsigned v;

	ctl_read(name, &v, sizeof(v));
	return v;
}

/* The process's RSS from /proc/self/statm, in bytes. */
static unsigned long
rss_now(void)
{
	unsigned long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f == NULL || fscanf(f, "%lu %lu", &size, &res) != 2)
		die("/proc/self/statm");
	fclose(f);
	return res * (unsigned long)page;
}

/* Resident bytes of [addr, addr + len) by mincore (addr page aligned). */
static unsigned long
resident(void *addr, size_t len)
{
	size_t n = (len + (size_t)page - 1) / (size_t)page;
	unsigned char *vec = mmap(NULL, n, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long r = 0;

	if (vec == MAP_FAILED)
		die("mmap for mincore");
	if (mincore(addr, len, vec) != 0)
		die("mincore");
	for (size_t i = 0; i < n; i++)
		r += vec[i] & 1;
	munmap(vec, n);
	return r * (unsigned long)page;
}

/* A fixed-seed generator (xorshift64*), the same order every run. */
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t
next_rand(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

/* ---- frag ---------------------------------------------------------------- */

static void
mode_frag(long n)
{
	void **obj = malloc((size_t)n * sizeof(*obj));
	long keep = n / 10;
	unsigned nbins, j, nregs = 0;
	size_t size = 0, curslabs, curregs;
	char name[128];
	bool flushed = true;

	if (obj == NULL)
		die("malloc of the pointer array");
	for (long i = 0; i < n; i++) {
		if ((obj[i] = malloc(64)) == NULL)
			die("malloc(64)");
		memset(obj[i], (int)(i & 0xff), 64);
	}
	/* A random permutation; the first n - keep are freed, in that order. */
	for (long i = n - 1; i > 0; i--) {
		long k = (long)(next_rand() % (uint64_t)(i + 1));
		void *t = obj[i];
		obj[i] = obj[k];
		obj[k] = t;
	}
	for (long i = 0; i < n - keep; i++) {
		free(obj[i]);
		obj[i] = NULL;
	}
	sink = obj;
	if (mc == NULL || mc("thread.tcache.flush", NULL, NULL, NULL, 0) != 0)
		flushed = false;
	ctl_epoch();
	nbins = ctl_unsigned("arenas.nbins");
	for (j = 0; j < nbins; j++) {
		snprintf(name, sizeof(name), "arenas.bin.%u.size", j);
		if ((size = ctl_size(name)) == 64)
			break;
	}
	if (j == nbins) {
		errno = 0;
		die("jemalloc has no 64-byte bin");
	}
	snprintf(name, sizeof(name), "arenas.bin.%u.nregs", j);
	nregs = ctl_unsigned(name);
	snprintf(name, sizeof(name), "stats.arenas.4096.bins.%u.curslabs", j);
	curslabs = ctl_size(name);
	snprintf(name, sizeof(name), "stats.arenas.4096.bins.%u.curregs", j);
	curregs = ctl_size(name);
	printf("{\"mode\":\"frag\",\"truth\":{\"jemalloc.fragmentation\":%zu,"
	    "\"jemalloc.live\":%ld},\"class\":{\"size\":%zu,\"bin\":%u,\"nregs\":%u,"
	    "\"curslabs\":%zu,\"curregs\":%zu,\"slab_bytes\":%zu,\"used_bytes\":%zu,"
	    "\"free_bytes\":%zu},\"kept\":%ld,\"tcache_flushed\":%s,\"pid\":%ld,\"rss\":%lu}\n",
	    (curslabs * nregs - curregs) * size, keep * 64 + n * (long)sizeof(*obj),
	    size, j, nregs, curslabs, curregs, curslabs * nregs * size, curregs * size,
	    (curslabs * nregs - curregs) * size, keep * 64, flushed ? "true" : "false",
	    (long)getpid(), rss_now());
}

/* ---- dirty --------------------------------------------------------------- */

static void
mode_dirty(long mib)
{
	void **blk = malloc((size_t)mib * sizeof(*blk));
	ssize_t decay = 0;
	size_t pdirty, pg;
	bool bg = false;
	size_t sz = sizeof(bg);

	if (blk == NULL)
		die("malloc of the block array");
	for (long i = 0; i < mib; i++) {
		if ((blk[i] = malloc(1 << 20)) == NULL)
			die("malloc(1 MiB)");
		memset(blk[i], 0x5a, 1 << 20);
	}
	sink = blk;
	for (long i = 0; i < mib; i++)
		free(blk[i]);
	free(blk);
	if (mc != NULL)
		mc("thread.tcache.flush", NULL, NULL, NULL, 0);
	ctl_read("opt.dirty_decay_ms", &decay, sizeof(decay));
	if (mc("background_thread", &bg, &sz, NULL, 0) != 0)
		bg = false;
	ctl_epoch();
	pg = ctl_size("arenas.page");
	pdirty = ctl_size("stats.arenas.4096.pdirty");
	printf("{\"mode\":\"dirty\",\"truth\":{\"jemalloc.dirty\":%zu},\"freed\":%ld,"
	    "\"dirty_decay_ms\":%zd,\"background_thread\":%s,\"pid\":%ld,\"rss\":%lu}\n",
	    pdirty * pg, mib << 20, decay, bg ? "true" : "false", (long)getpid(), rss_now());
}

/* ---- threads ------------------------------------------------------------- */

#define TOUCH (256 * 1024)

struct thr {
	pthread_t id;
	void *stack;
	size_t size;
	size_t touch;
};

static pthread_mutex_t thr_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t thr_ready = PTHREAD_COND_INITIALIZER;
static pthread_cond_t thr_never = PTHREAD_COND_INITIALIZER;
static long thr_up;

/* Each thread dirties TOUCH bytes of its own stack, says where its stack
 * is, and blocks until the process ends. */
static void *
thr_main(void *arg)
{
	struct thr *t = arg;
	volatile char buf[TOUCH];
	pthread_attr_t a;

	memset((char *)buf, 0x3c, t->touch < sizeof(buf) ? t->touch : sizeof(buf));
	buf[0] = buf[sizeof(buf) - 1];
	if (pthread_getattr_np(pthread_self(), &a) != 0 ||
	    pthread_attr_getstack(&a, &t->stack, &t->size) != 0)
		t->stack = NULL, t->size = 0;
	pthread_attr_destroy(&a);
	pthread_mutex_lock(&thr_mu);
	thr_up++;
	pthread_cond_signal(&thr_ready);
	for (;;)
		pthread_cond_wait(&thr_never, &thr_mu);
	return NULL;
}

/* n threads each touching `touch` bytes of stack; returns them. */
static struct thr *
start_threads(long n, size_t touch)
{
	struct thr *t = calloc((size_t)n, sizeof(*t));

	if (t == NULL)
		die("calloc of the threads");
	for (long i = 0; i < n; i++) {
		t[i].touch = touch;
		if ((errno = pthread_create(&t[i].id, NULL, thr_main, &t[i])) != 0)
			die("pthread_create");
	}
	pthread_mutex_lock(&thr_mu);
	while (thr_up < n)
		pthread_cond_wait(&thr_ready, &thr_mu);
	pthread_mutex_unlock(&thr_mu);
	return t;
}

static void
mode_threads(long n)
{
	struct thr *t = start_threads(n, TOUCH);
	unsigned long res = 0, mapped = 0;

	for (long i = 0; i < n; i++) {
		if (t[i].stack == NULL) {
			errno = 0;
			die("pthread_getattr_np gave no stack");
		}
		/* The stack's low end is page aligned (glibc's own mmap). */
		res += resident(t[i].stack, t[i].size);
		mapped += t[i].size;
	}
	sink = t;
	printf("{\"mode\":\"threads\",\"truth\":{\"stacks.threads\":%lu},\"threads\":%ld,"
	    "\"touched\":%lu,\"stack_size\":%zu,\"mapped\":%lu,\"pid\":%ld,\"rss\":%lu}\n",
	    res, n, (unsigned long)n * TOUCH, t[0].size, mapped, (long)getpid(), rss_now());
}

/* ---- file ---------------------------------------------------------------- */

static char chunk[1 << 20];

/* s as a JSON string body (quotes, backslashes and controls escaped). */
static void
json_str(const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
}

static void
mode_file(long mib)
{
	char path[4200], real[4200];
	size_t len = (size_t)mib << 20;
	unsigned long sum = 0;
	unsigned char *m;
	int fd;

	snprintf(path, sizeof(path), "%s/mem_gaps.data", dir);
	if ((fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0)
		die(path);
	for (size_t i = 0; i < sizeof(chunk); i++)
		chunk[i] = (char)(i * 7 + 1);
	for (long i = 0; i < mib; i++) {
		size_t off = 0;
		while (off < sizeof(chunk)) {
			ssize_t w = write(fd, chunk + off, sizeof(chunk) - off);
			if (w <= 0)
				die("write of the data file");
			off += (size_t)w;
		}
	}
	m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		die("mmap of the data file");
	close(fd);
	for (size_t off = 0; off < len; off += (size_t)page)
		sum += ((volatile unsigned char *)m)[off];
	sink = m;
	if (realpath(path, real) == NULL)
		die("realpath");
	printf("{\"mode\":\"file\",\"truth\":{\"files.data\":%lu},\"path\":\"",
	    resident(m, len));
	json_str(real);
	printf("\",\"size\":%zu,\"sum\":%lu,\"pid\":%ld,\"rss\":%lu}\n", len, sum,
	    (long)getpid(), rss_now());
}

/* ---- glibc --------------------------------------------------------------- */

#define GLIBC_BLOCK 3000

static void
mode_glibc(long mib)
{
	long n = (mib << 20) / GLIBC_BLOCK;
	void **blk = mmap(NULL, (size_t)n * sizeof(*blk), PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct mallinfo2 mi;

	if (blk == MAP_FAILED)
		die("mmap of the block array");
	for (long i = 0; i < n; i++) {
		if ((blk[i] = __libc_malloc(GLIBC_BLOCK)) == NULL)
			die("__libc_malloc");
		memset(blk[i], 0x77, GLIBC_BLOCK);
	}
	sink = blk;
	mi = mallinfo2();
	printf("{\"mode\":\"glibc\",\"truth\":{\"glibc.heap\":%zu},\"kept\":%ld,"
	    "\"blocks\":%ld,\"mallinfo2\":{\"arena\":%zu,\"hblkhd\":%zu,\"uordblks\":%zu,"
	    "\"fordblks\":%zu},\"pid\":%ld,\"rss\":%lu}\n",
	    mi.arena + mi.hblkhd, n * GLIBC_BLOCK, n, mi.arena, mi.hblkhd, mi.uordblks,
	    mi.fordblks, (long)getpid(), rss_now());
}

/* ---- bench --------------------------------------------------------------- */

/* Half the heap in small objects of 16 size classes from four call sites,
 * half in 1 MiB blocks: a 1 GiB heap with many bins in use. */
__attribute__((noinline)) static void *
bench_small_a(size_t s)
{
	void *p = malloc(s);
	sink = p;
	return p;
}
__attribute__((noinline)) static void *
bench_small_b(size_t s)
{
	void *p = malloc(s);
	sink = p;
	return p;
}
__attribute__((noinline)) static void *
bench_large(size_t s)
{
	void *p = malloc(s);
	sink = p;
	return p;
}

static void
mode_bench(long mib)
{
	static const size_t sizes[] = { 16, 32, 48, 64, 96, 128, 160, 256, 320, 512,
		640, 1024, 1280, 2048, 2560, 4096 };
	size_t small = (size_t)mib << 19, large = ((size_t)mib << 20) - small, got = 0;
	size_t cap = 1 << 16, n = 0;
	void **keep = malloc(cap * sizeof(*keep));
	struct thr *t;

	if (keep == NULL)
		die("malloc of the keep array");
	for (size_t i = 0; got < small; i++) {
		size_t s = sizes[i % (sizeof(sizes) / sizeof(sizes[0]))];
		void *p = (i & 1) ? bench_small_a(s) : bench_small_b(s);
		if (p == NULL)
			die("malloc");
		memset(p, 1, s);
		if (n == cap && (keep = realloc(keep, (cap *= 2) * sizeof(*keep))) == NULL)
			die("realloc of the keep array");
		keep[n++] = p;
		got += s;
	}
	for (got = 0; got < large; got += 1 << 20) {
		void *p = bench_large(1 << 20);
		if (p == NULL)
			die("malloc(1 MiB)");
		memset(p, 1, 1 << 20);
		if (n == cap && (keep = realloc(keep, (cap *= 2) * sizeof(*keep))) == NULL)
			die("realloc of the keep array");
		keep[n++] = p;
	}
	sink = keep;
	t = start_threads(200, 16 * 1024);
	sink = t;
	printf("{\"mode\":\"bench\",\"heap\":%zu,\"objects\":%zu,\"threads\":200,"
	    "\"pid\":%ld,\"rss\":%lu}\n", (size_t)mib << 20, n, (long)getpid(), rss_now());
}

/* Under ying run: wait (up to 20 s) until the agent is up (prof.active). */
static void
wait_agent(void)
{
	bool prof = false, active = false;
	size_t sz = sizeof(prof);

	if (mc == NULL || mc("opt.prof", &prof, &sz, NULL, 0) != 0 || !prof)
		return;
	for (int i = 0; i < 200 && !stopping; i++) {
		sz = sizeof(active);
		if (mc("prof.active", &active, &sz, NULL, 0) == 0 && active)
			return;
		sleep_ms(100);
	}
	fprintf(stderr, "mem_gaps: prof.active still off after 20 s\n");
}

/* ---- main ---------------------------------------------------------------- */

static bool
stop_file(void)
{
	char path[4200];
	struct stat st;

	/* DIR gone: the test that made it is over (ying run killed, the
	 * program left behind). */
	if (stat(dir, &st) != 0)
		return true;
	snprintf(path, sizeof(path), "%s/stop", dir);
	return stat(path, &st) == 0;
}

int
main(int argc, char **argv)
{
	struct sigaction sa;
	long n = 0, defn;
	char *end;
	const char *mode;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: mem_gaps frag|dirty|threads|file|glibc|bench DIR [N]\n");
		return 1;
	}
	mode = argv[1];
	dir = argv[2];
	if (strcmp(mode, "frag") == 0)
		defn = 1000000;
	else if (strcmp(mode, "dirty") == 0 || strcmp(mode, "threads") == 0)
		defn = strcmp(mode, "dirty") == 0 ? 300 : 200;
	else if (strcmp(mode, "file") == 0)
		defn = 256;
	else if (strcmp(mode, "glibc") == 0)
		defn = 64;
	else if (strcmp(mode, "bench") == 0)
		defn = 1024;
	else {
		fprintf(stderr, "mem_gaps: unknown mode '%s'\n", mode);
		return 1;
	}
	n = defn;
	if (argc == 4) {
		errno = 0;
		n = strtol(argv[3], &end, 10);
		if (errno != 0 || end == argv[3] || *end != '\0' || n < 1 || n > 10000000) {
			fprintf(stderr, "mem_gaps: bad N '%s' (1..10000000)\n", argv[3]);
			return 1;
		}
	}
	page = sysconf(_SC_PAGESIZE);
	mc = (mallctl_fn)dlsym(RTLD_DEFAULT, "mallctl");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	wait_agent();

	if (strcmp(mode, "frag") == 0)
		mode_frag(n);
	else if (strcmp(mode, "dirty") == 0)
		mode_dirty(n);
	else if (strcmp(mode, "threads") == 0)
		mode_threads(n);
	else if (strcmp(mode, "file") == 0)
		mode_file(n);
	else if (strcmp(mode, "glibc") == 0)
		mode_glibc(n);
	else
		mode_bench(n);
	printf("ready\n");
	fflush(stdout);
	for (int i = 0; i < 3000 && !stopping && !stop_file(); i++)
		sleep_ms(100);
	return 0;
}
