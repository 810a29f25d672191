/*
 * life_prog.c: a program with a known allocation lifetime pattern, for
 * tests/integration/lifetimes.sh (run under jemalloc's profiler at
 * lg_prof_sample:0, so every allocation is a sampled record):
 *
 *   short_lived()  200 x malloc(700), each freed at once       (< 1 ms)
 *   long_lived()    30 x malloc(3000), freed after 1.2 s        (< 10 s)
 *   leaked()        10 x malloc(9000), never freed               (live)
 *
 * Usage: life_prog LOG READY DONE.  It first checks that
 * ying_ctl_log_start refuses while prof.gdump is on ("gdump refused: N"),
 * then logs the pattern with prof.log_start/log_stop to LOG, writes its own
 * capture with ying_ctl_recent_dump to LOG.self.json, creates READY
 * and waits (at most 30 s) for DONE to exist, so that the test can capture
 * /debug/heap/recent from the agent while the leaked blocks are live.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jemalloc/jemalloc.h>

#include "ying-live.h"

/* clang may elide a malloc/free pair whose block does not escape (it did
 * in giant_prog.c's clang build); the test needs every call made as
 * written. */
#if defined(__clang__)
#pragma clang optimize off
#endif

/* volatile: the compiler may not drop the mallocs (the build's -O2 comes
 * after the per-program -O0) */
static char *volatile keep[64];

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

__attribute__((noinline)) static void
short_lived(void)
{
	for (int i = 0; i < 200; i++) {
		volatile char *p = malloc(700);
		p[0] = 1;
		free((void *)p);
	}
}

__attribute__((noinline)) static void
long_lived(void)
{
	char *volatile p[30];
	for (int i = 0; i < 30; i++) {
		p[i] = malloc(3000);
		p[i][0] = 1;
	}
	sleep_ms(1200);
	for (int i = 0; i < 30; i++)
		free(p[i]);
}

__attribute__((noinline)) static void
leaked(void)
{
	for (int i = 0; i < 10; i++) {
		keep[i] = malloc(9000);
		keep[i][0] = 1;
	}
}

int
main(int argc, char **argv)
{
	bool on = true, off = false;
	char prefix[4096];
	int rc;
	FILE *f;

	if (argc != 4) {
		fprintf(stderr, "usage: life_prog LOG READY DONE\n");
		return 2;
	}
	snprintf(prefix, sizeof(prefix), "%s.gdump", argv[1]);
	if (mallctl("prof.prefix", NULL, NULL, &(const char *){ prefix }, sizeof(char *)) != 0 ||
	    mallctl("prof.gdump", NULL, NULL, &on, sizeof(on)) != 0) {
		fprintf(stderr, "cannot set prof.gdump (prof:true missing?)\n");
		return 3;
	}
	rc = ying_ctl_log_start(argv[1]);
	printf("gdump refused: %d %s\n", rc, ying_last_error());
	mallctl("prof.gdump", NULL, NULL, &off, sizeof(off));
	if ((rc = ying_ctl_log_start(argv[1])) != 0) {
		fprintf(stderr, "log_start: %s\n", ying_last_error());
		return 1;
	}
	short_lived();
	long_lived();
	leaked();
	if ((rc = ying_ctl_log_stop()) != 0) {
		fprintf(stderr, "log_stop: %s\n", ying_last_error());
		return 1;
	}
	printf("log stop again: %d\n", ying_ctl_log_stop());
	fflush(stdout);
	/* its own capture, from this (sampling) thread: LOG.self.json */
	snprintf(prefix, sizeof(prefix), "%s.self.json", argv[1]);
	if ((f = fopen(prefix, "w")) == NULL ||
	    ying_ctl_recent_dump(ying_write_file, f) != 0) {
		fprintf(stderr, "recent dump: %s\n", ying_last_error());
		return 1;
	}
	fclose(f);
	if ((f = fopen(argv[2], "w")) == NULL)
		return 1;
	fclose(f);
	for (int i = 0; i < 600 && access(argv[3], F_OK) != 0; i++)
		sleep_ms(50);
	return 0;
}
