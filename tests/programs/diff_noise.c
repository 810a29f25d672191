/*
 * diff_noise.c: a program with a known allocation pattern between two heap
 * dumps, run many times by tests/integration/diff_noise.sh (and
 * bench/diff_noise.sh) to measure how often yingdiff's 95 % intervals
 * cover the true growth.
 *
 *   diff_noise SEED BASE.heap NOW.heap
 *
 * Before BASE: SEED-dependent malloc/free churn (it shifts jemalloc's
 * sample counter, so runs differ even without ASLR), and kept_0..7 each
 * keep 1 MiB.  Between the dumps: site_0..47 each allocate 1 MiB in
 * blocks of one size class (64 B .. 32 KiB, by site number), and kept_N
 * adds 512 KiB more.  Everything stays live.  After NOW it prints the true
 * growth per function, "NAME BYTES" lines.  Run it with
 * MALLOC_CONF=prof:true,lg_prof_sample:14; linked with -ljemalloc.
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

#define NSITES 48
#define NKEPT 8
#define SITE_BYTES (1u << 20)

static void *volatile last;
static const size_t sizes[] = { 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768 };

static void
keep(void *p)
{
	if (p == NULL) {
		fputs("diff_noise: out of memory\n", stderr);
		exit(1);
	}
	memset(p, 1, 16);
	last = p;       /* leaked on purpose: live at NOW */
}

#define SITE(n) __attribute__((noinline)) static void \
site_##n(size_t sz, size_t cnt) { for (size_t i = 0; i < cnt; i++) keep(malloc(sz)); }
#define KEPT(n) __attribute__((noinline)) static void \
kept_##n(size_t sz, size_t cnt) { for (size_t i = 0; i < cnt; i++) keep(malloc(sz)); }
SITE(0) SITE(1) SITE(2) SITE(3) SITE(4) SITE(5) SITE(6) SITE(7) SITE(8) SITE(9)
SITE(10) SITE(11) SITE(12) SITE(13) SITE(14) SITE(15) SITE(16) SITE(17) SITE(18) SITE(19)
SITE(20) SITE(21) SITE(22) SITE(23) SITE(24) SITE(25) SITE(26) SITE(27) SITE(28) SITE(29)
SITE(30) SITE(31) SITE(32) SITE(33) SITE(34) SITE(35) SITE(36) SITE(37) SITE(38) SITE(39)
SITE(40) SITE(41) SITE(42) SITE(43) SITE(44) SITE(45) SITE(46) SITE(47)
KEPT(0) KEPT(1) KEPT(2) KEPT(3) KEPT(4) KEPT(5) KEPT(6) KEPT(7)

typedef void (*alloc_fn)(size_t, size_t);
static const alloc_fn sites[NSITES] = {
	site_0, site_1, site_2, site_3, site_4, site_5, site_6, site_7, site_8, site_9,
	site_10, site_11, site_12, site_13, site_14, site_15, site_16, site_17, site_18, site_19,
	site_20, site_21, site_22, site_23, site_24, site_25, site_26, site_27, site_28, site_29,
	site_30, site_31, site_32, site_33, site_34, site_35, site_36, site_37, site_38, site_39,
	site_40, site_41, site_42, site_43, site_44, site_45, site_46, site_47
};
static const alloc_fn kepts[NKEPT] = {
	kept_0, kept_1, kept_2, kept_3, kept_4, kept_5, kept_6, kept_7
};

static int
dump(const char *path)
{
	int err = mallctl("prof.dump", NULL, NULL, &path, sizeof(path));

	if (err) {
		fprintf(stderr, "diff_noise: prof.dump(%s) failed: %s (run with "
		    "MALLOC_CONF=prof:true)\n", path, strerror(err));
		return 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	unsigned long seed;
	int i;

	if (argc != 4) {
		fputs("usage: diff_noise SEED BASE.heap NOW.heap\n", stderr);
		return 2;
	}
	seed = strtoul(argv[1], NULL, 0);
	for (unsigned long k = 0; k < (seed * 7919) % 4001; k++)
		free(malloc(8 + (k % 13) * 8));
	for (i = 0; i < NKEPT; i++)
		kepts[i](sizes[(i * 3) % 10], (2 * SITE_BYTES / 2) / sizes[(i * 3) % 10]);
	if (dump(argv[2]))
		return 1;
	for (i = 0; i < NSITES; i++)
		sites[i](sizes[i % 10], SITE_BYTES / sizes[i % 10]);
	for (i = 0; i < NKEPT; i++)
		kepts[i](sizes[(i * 3) % 10], (SITE_BYTES / 2) / sizes[(i * 3) % 10]);
	if (dump(argv[3]))
		return 1;
	for (i = 0; i < NSITES; i++)
		printf("site_%d %u\n", i, SITE_BYTES);
	for (i = 0; i < NKEPT; i++)
		printf("kept_%d %u\n", i, SITE_BYTES / 2);
	return 0;
}
