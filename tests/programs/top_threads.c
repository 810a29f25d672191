/*
 * top_threads.c: allocations from a thread whose profiler name contains
 * spaces and a tab, for tests/integration/top_cxx_threads.sh.
 *
 * jemalloc writes thread names raw after the counts on the dump's header
 * lines (`t1: 100: 819200 [0: 0] worker with spaces<TAB>and a tab`), so a
 * parser must take everything after "] " as the name.  `top_threads DUMP`
 * writes DUMP while the worker's 100 x malloc(8192) (worker_alloc) and
 * main's 50 x malloc(2048) (main_alloc) are live.
 */
#ifdef __clang__
#pragma clang optimize off
#else
#pragma GCC optimize("O0")
#endif

#include <pthread.h>
#include <stdlib.h>

#include <stdio.h>

#include <jemalloc/jemalloc.h>

void top_dump(const char *path); /* top_dump.c */

#define NW 100
#define NM 50

static void *keep_w[NW], *keep_m[NM];

__attribute__((noinline)) void
worker_alloc(void)
{
	for (int i = 0; i < NW; i++)
		keep_w[i] = malloc(8192);
}

static void *
worker(void *arg)
{
	const char *name = "worker with spaces\tand a tab";

	(void)arg;

	if (mallctl("thread.prof.name", NULL, NULL, (void *)&name, sizeof(name)) != 0) {
		fprintf(stderr, "thread.prof.name failed\n");
		exit(3);
	}
	worker_alloc();
	return NULL;
}

__attribute__((noinline)) void
main_alloc(void)
{
	for (int i = 0; i < NM; i++)
		keep_m[i] = malloc(2048);
}

int
main(int argc, char **argv)
{
	const char *name = "main thread";
	pthread_t t;

	if (argc != 2) {
		fprintf(stderr, "usage: top_threads DUMP\n");
		return 2;
	}
	mallctl("thread.prof.name", NULL, NULL, (void *)&name, sizeof(name));
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	main_alloc();
	pthread_join(t, NULL);
	top_dump(argv[1]);
	return 0;
}
