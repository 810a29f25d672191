/*
 * gen_names.c: a real program whose heap profile has N distinct stacks that
 * are also N distinct paths of function names (bench/history.sh: the flame
 * tree's worst case, where no two stacks merge; bench/gen_stacks.c's
 * stacks differ by call site only and merge into a few nodes).
 *
 * Allocation number `path` (0 <= path < N <= 64^3 = 262144) goes main ->
 * a_I -> b_J -> c_K -> leaf, I, J, K the three base-64 digits of path,
 * through tables of function pointers (64 distinct functions a level),
 * so a tree merged by name has 64 + 64^2 + N + N nodes below main.  Usage:
 * gen_names N DUMP (run with MALLOC_CONF=prof:true,lg_prof_sample:0); it
 * keeps every allocation live and writes DUMP with mallctl("prof.dump").
 */
#pragma GCC optimize("O0")

#include <stdio.h>
#include <stdlib.h>

#include <jemalloc/jemalloc.h>

typedef void (*fn_t)(unsigned long);
static void **keep;
static unsigned long nkeep;

__attribute__((noinline)) static void
leaf(unsigned long path)
{
	keep[nkeep++] = malloc(16 + (path & 7) * 16);
}

#define R8(M, p) M(p##0) M(p##1) M(p##2) M(p##3) M(p##4) M(p##5) M(p##6) M(p##7)
#define R64(M) R8(M, 0) R8(M, 1) R8(M, 2) R8(M, 3) R8(M, 4) R8(M, 5) R8(M, 6) R8(M, 7)

#define DEF_C(i) __attribute__((noinline)) static void c_##i(unsigned long p) { leaf(p); }
R64(DEF_C)
#define REF_C(i) c_##i,
static fn_t volatile tc[64] = { R64(REF_C) };
#define DEF_B(i) __attribute__((noinline)) static void b_##i(unsigned long p) { tc[p & 63](p); }
R64(DEF_B)
#define REF_B(i) b_##i,
static fn_t volatile tb[64] = { R64(REF_B) };
#define DEF_A(i) __attribute__((noinline)) static void a_##i(unsigned long p) { tb[(p >> 6) & 63](p); }
R64(DEF_A)
#define REF_A(i) a_##i,
static fn_t volatile ta[64] = { R64(REF_A) };

int
main(int argc, char **argv)
{
	unsigned long n;
	const char *dump;

	if (argc != 3 || (n = strtoul(argv[1], NULL, 10)) == 0 || n > 262144) {
		fprintf(stderr, "usage: gen_names N DUMP   (1 <= N <= 262144; "
		    "MALLOC_CONF=prof:true,lg_prof_sample:0)\n");
		return 2;
	}
	if ((keep = calloc(n, sizeof(*keep))) == NULL)
		return 1;
	for (unsigned long p = 0; p < n; p++)
		ta[(p >> 12) & 63](p);
	dump = argv[2];
	if (mallctl("prof.dump", NULL, NULL, &dump, sizeof(dump)) != 0) {
		fprintf(stderr, "gen_names: prof.dump failed (MALLOC_CONF=prof:true?)\n");
		return 1;
	}
	return 0;
}
