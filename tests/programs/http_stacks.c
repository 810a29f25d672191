/*
 * http_stacks.c: a long-running jemalloc program with many distinct
 * allocation stacks, for the tests and benchmarks of many clients (and
 * slow readers) on the agent's HTTP endpoint: its heap dump is big.
 *
 * `http_stacks N` waits (up to 20 s) until jemalloc's prof.active is on
 * (under `ying run` sampling starts once the agent is up), then makes N
 * (up to 4^10) allocations of 64 bytes, each through a different path of a
 * 10-level recursion with four call sites per level, keeps them, prints
 * "ready N" and sleeps until SIGTERM/SIGINT.  Run with `ying run --sample 0`
 * so that every allocation is sampled.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <jemalloc/jemalloc.h>

/* The stacks must be exactly as written whatever CFLAGS say. */
#if defined(__clang__)
#pragma clang optimize off
#elif defined(__GNUC__)
#pragma GCC optimize("O0", "no-omit-frame-pointer")
#endif

#define LEVELS 10

static void **keep;

__attribute__((noinline)) static void
stacks_leaf(unsigned long i)
{
	keep[i] = malloc(64);
}

__attribute__((noinline)) static void
stacks_rec(unsigned long i, unsigned long path, int level)
{
	if (level == LEVELS) {
		stacks_leaf(i);
		return;
	}
	switch (path & 3) {     /* four call sites: the digit picks the return address */
	case 0:
		stacks_rec(i, path >> 2, level + 1);
		break;
	case 1:
		stacks_rec(i, path >> 2, level + 1);
		break;
	case 2:
		stacks_rec(i, path >> 2, level + 1);
		break;
	default:
		stacks_rec(i, path >> 2, level + 1);
		break;
	}
}

static bool
prof_active(void)
{
	bool on = false;
	size_t sz = sizeof(on);

	return mallctl("prof.active", &on, &sz, NULL, 0) == 0 && on;
}

int
main(int argc, char **argv)
{
	unsigned long n;
	sigset_t set;
	int sig;

	if (argc != 2 || (n = strtoul(argv[1], NULL, 10)) == 0 || n > (1ul << (2 * LEVELS))) {
		fprintf(stderr, "usage: http_stacks N (1..%lu)\n", 1ul << (2 * LEVELS));
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	for (int i = 0; i < 2000 && !prof_active(); i++) {
		struct timespec ts = { 0, 10 * 1000000L };
		nanosleep(&ts, NULL);
	}
	if ((keep = calloc(n, sizeof(*keep))) == NULL)
		return 1;
	for (unsigned long i = 0; i < n; i++)
		stacks_rec(i, i, 0);
	printf("ready %lu\n", n);
	fflush(stdout);
	while (sigwait(&set, &sig) != 0)
		;
	return 0;
}
