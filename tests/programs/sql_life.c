/*
 * sql_life.c: a program with a known lifetime pattern and a known growth,
 * for tests/integration/sql.sh (`ying sql`).
 *
 *   sql_life BASE.heap NOW.heap RECENT.json GIANT.json
 *
 * Turns on jemalloc's recent-allocation records (ying_ctl_recent_max),
 * keeps 4 x 64 KiB from keep_base() and dumps BASE; then churn() allocates
 * and frees 16 x 4 KiB at once (short-lived), long_lived() keeps 5 x 32 KiB
 * and grow_more() keeps 3 x 128 KiB; dumps NOW and writes the records in
 * ying's capture format (ying_ctl_recent_dump).  Giant allocations are
 * recorded from the start (ying_giant_capture_start, 32 MiB): after the records,
 * giant_twice() allocates 40 MiB twice (freed), and the listing goes to
 * GIANT.json (ying_giant_capture_write_json).  SQL_LIFE_HOLD_MS=N waits N ms
 * before the records are captured (the live allocations age).  Run it with
 * MALLOC_CONF=prof:true,lg_prof_sample:0; linked with jemalloc and libying.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ying-live.h"

/* clang may elide a malloc/free pair whose block does not escape (it did
 * in giant_prog.c's clang build); the test needs every call made as
 * written. */
#if defined(__clang__)
#pragma clang optimize off
#endif

#define MAXKEEP 64
static void *kept[MAXKEEP];
static int nkept;

__attribute__((noinline)) static void
giant_twice(void)
{
	for (int i = 0; i < 2; i++) {
		char *volatile p = malloc(40 << 20);
		if (p == NULL)
			exit(1);
		p[0] = 1;
		free(p);
	}
}

static int
write_to(const char *path, int (*dump)(FILE *))
{
	FILE *f = fopen(path, "w");
	int rc;

	if (f == NULL) {
		perror(path);
		return 1;
	}
	rc = dump(f);
	if (fclose(f) != 0 || rc != 0) {
		fprintf(stderr, "sql_life: %s: %s\n", path, ying_last_error());
		return 1;
	}
	return 0;
}

static int
recent_dump(FILE *f)
{
	return ying_ctl_recent_dump(ying_write_file, f);
}

static int
giant_dump(FILE *f)
{
	return ying_giant_capture_write_json(NULL, NULL, 0, ying_write_file, f);
}

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
	ying_giant_capture_opts gopts = YING_GIANT_CAPTURE_OPTS_INIT;
	int rc;

	if (argc != 5) {
		fputs("usage: sql_life BASE.heap NOW.heap RECENT.json GIANT.json\n", stderr);
		return 2;
	}
	gopts.threshold = 32 << 20;
	gopts.quiet = 1;
	if ((rc = ying_giant_capture_start(&gopts)) != 0) {
		fprintf(stderr, "sql_life: giant: %s\n", ying_last_error());
		return 1;
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
	/* docs/sql.md's output: a real hold before the capture */
	if (getenv("SQL_LIFE_HOLD_MS"))
		usleep((useconds_t)atol(getenv("SQL_LIFE_HOLD_MS")) * 1000);
	if (write_to(argv[3], recent_dump) != 0)
		return 1;
	giant_twice();
	if (write_to(argv[4], giant_dump) != 0)
		return 1;
	/* no ying_giant_capture_stop(): it can deadlock with a drain thread not yet
	 * scheduled (reported to h16-giant); exiting is enough */
	return 0;
}
