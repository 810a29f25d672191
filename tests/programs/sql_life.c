/*
 * sql_life.c: a program with a known lifetime pattern and a known growth,
 * for tests/integration/sql.sh (`ying sql`).
 *
 *   sql_life BASE.heap NOW.heap RECENT.json
 *
 * Turns on jemalloc's recent-allocation records (ying_ctl_recent_max),
 * keeps 4 x 64 KiB from keep_base() and dumps BASE; then churn() allocates
 * and frees 16 x 4 KiB at once (short-lived), long_lived() keeps 5 x 32 KiB
 * and grow_more() keeps 3 x 128 KiB; dumps NOW and writes the records in
 * ying's capture format (ying_ctl_recent_dump).  Run it with
 * MALLOC_CONF=prof:true,lg_prof_sample:0; linked with jemalloc and libying.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ying.h"

#define MAXKEEP 64
static void *kept[MAXKEEP];
static int nkept;

static void
keep(void *p, size_t n)
{
	if (p == NULL) {
		fputs("sql_life: out of memory\n", stderr);
		exit(1);
	}
	memset(p, 1, n);
	if (nkept < MAXKEEP)
		kept[nkept++] = p;
}

__attribute__((noinline)) static void
keep_base(void)
{
	for (int i = 0; i < 4; i++)
		keep(malloc(65536), 65536);
}

__attribute__((noinline)) static void
churn(void)
{
	for (int i = 0; i < 16; i++) {
		char *volatile p = malloc(4096);
		if (p == NULL)
			exit(1);
		p[0] = 1;
		free(p);
	}
}

__attribute__((noinline)) static void
long_lived(void)
{
	for (int i = 0; i < 5; i++)
		keep(malloc(32768), 32768);
}

__attribute__((noinline)) static void
grow_more(void)
{
	for (int i = 0; i < 3; i++)
		keep(malloc(131072), 131072);
}

int
main(int argc, char **argv)
{
	FILE *f;
	int rc;

	if (argc != 4) {
		fputs("usage: sql_life BASE.heap NOW.heap RECENT.json\n", stderr);
		return 2;
	}
	if ((rc = ying_ctl_recent_max(NULL, 1000)) != 0) {
		fprintf(stderr, "sql_life: recent max: %s\n", ying_last_error());
		return 1;
	}
	keep_base();
	if ((rc = ying_ctl_dump_file(argv[1])) != 0) {
		fprintf(stderr, "sql_life: dump: %s\n", ying_last_error());
		return 1;
	}
	churn();
	long_lived();
	grow_more();
	if ((rc = ying_ctl_dump_file(argv[2])) != 0) {
		fprintf(stderr, "sql_life: dump: %s\n", ying_last_error());
		return 1;
	}
	if ((f = fopen(argv[3], "w")) == NULL) {
		perror(argv[3]);
		return 1;
	}
	rc = ying_ctl_recent_dump(ying_write_file, f);
	if (fclose(f) != 0 || rc != 0) {
		fprintf(stderr, "sql_life: recent dump: %s\n", ying_last_error());
		return 1;
	}
	return 0;
}
