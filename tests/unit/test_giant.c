/*
 * test_giant.c: the giant-allocation capture (live_giant.c) through the
 * public API, in a program that links jemalloc and libying itself (no
 * agent, no prof:true: the hooks do not need the profiler).
 *
 * Asserts: a threshold of 0 is refused; start, then a second start is
 * YING_EBUSY; two 16 MiB mallocs from one place, a calloc of 2 x 8 MiB and
 * small blocks give three records (nothing below the threshold), the
 * place logged once with its function (also when reached through another
 * stack); the listing reads back, its stack starting at the allocating
 * function (the hook's own frames and jemalloc's path left out); ?since
 * lists the later ones; a stop right after a start (the thread not
 * scheduled yet) neither deadlocks nor loses the next start; in a forked
 * child nothing is recorded and the listing says so at once; stop, a
 * fresh start begins empty; a listing whose sink is slow holds no lock of
 * the capture while it writes (a stop from another thread ends at once,
 * the listing still completes); with jemalloc's four hook slots taken,
 * ying_giant_capture_start is YING_ELIMIT naming why and nothing is recorded.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jemalloc/jemalloc.h>

#include "tap.h"
#include "ying-live.h"

#define MIB ((size_t)1 << 20)

static void *volatile keep[8];

/* A slow sink: on its first write it starts ying_giant_capture_stop on another
 * thread and waits up to 2 s for it. */
static atomic_bool stop_done;
static bool stopped_while_writing;

static void *
stop_thread(void *arg)
{
	(void)arg;
	ying_giant_capture_stop();
	atomic_store(&stop_done, true);
	return NULL;
}

static int
slow_sink(void *opaque, const void *data, size_t len)
{
	static bool first = true;

	if (first) {
		pthread_t t;
		first = false;
		if (pthread_create(&t, NULL, stop_thread, NULL) == 0) {
			pthread_detach(t);
			for (int i = 0; i < 400 && !atomic_load(&stop_done); i++)
				usleep(5000);
			stopped_while_writing = atomic_load(&stop_done);
		}
	}
	return ying_write_membuf(opaque, data, len);
}
static volatile int two = 2;      /* one call site, two calls (no unrolling) */

/* Their own frames even at -O2: no tail call (the asm uses the result). */
__attribute__((noinline)) static void *
unit_giant_alloc(void)
{
	void *p = malloc(16 * MIB);

	__asm__ volatile("" : : "r"(p) : "memory");
	return p;
}

__attribute__((noinline)) static void *
unit_giant_calloc(void)
{
	void *p = calloc(2, 8 * MIB);

	__asm__ volatile("" : : "r"(p) : "memory");
	return p;
}

static ying_giant *
listing(uint64_t since, uint64_t *next)
{
	ying_membuf mb = YING_MEMBUF_INIT;
	ying_giant *g = NULL;
	int rc = ying_giant_capture_write_json(next, NULL, since, ying_write_membuf, &mb);

	if (rc != 0) {
		printf("# write_json: %s\n", ying_last_error());
		return NULL;
	}
	if (ying_giant_read_mem(&g, mb.data, mb.len, "listing") != 0)
		printf("# read: %s\n", ying_last_error());
	ying_membuf_release(&mb);
	return g;
}

static void
noop_alloc(void *extra, int type, void *result, uintptr_t raw, uintptr_t *args)
{
	(void)extra, (void)type, (void)result, (void)raw, (void)args;
}

int
main(void)
{
	ying_giant_capture_opts o = YING_GIANT_CAPTURE_OPTS_INIT;
	ying_folded_opts fo = YING_FOLDED_OPTS_INIT;
	ying_membuf folded = YING_MEMBUF_INIT;
	ying_giant *g;
	ying_giant_record r;
	uint64_t next = 0, allocs = 0;
	char logbuf[4096];
	FILE *log = tmpfile();
	size_t n;
	pid_t pid;
	int st, rc;

	if (log == NULL) {
		printf("Bail out! tmpfile\n");
		return 1;
	}
	is_int(ying_giant_capture_start(&o), YING_EINVAL, "threshold 0: YING_EINVAL");
	o.threshold = 8 * MIB;
	o.log = log;
	rc = ying_giant_capture_start(&o);
	is_int(rc, 0, "ying_giant_capture_start (8 MiB)");
	if (rc != 0) {
		printf("# %s\n", ying_last_error());
		return tap_done();
	}
	is_u64(ying_giant_capture_threshold(), 8 * MIB, "the threshold is active");
	is_int(ying_giant_capture_start(&o), YING_EBUSY, "a second start: YING_EBUSY");

	for (int i = 0; i < two; i++)
		keep[i] = unit_giant_alloc();
	keep[2] = unit_giant_calloc();
	for (int i = 0; i < 1000; i++)
		free(malloc(1000 + (size_t)i * 100));
	keep[3] = malloc(8 * MIB - 4096);        /* just below: not recorded */

	g = listing(0, &next);
	ok(g != NULL, "the listing reads back");
	if (g) {
		is_int(ying_giant_count(g), 3, "three records (nothing below the threshold)");
		{
			ying_giant_info gi;
			ying_giant_info_get(&gi, g);
			allocs = gi.allocations;
		}
		is_u64(allocs, 3, "three giant allocations seen");
		ok(ying_giant_get(&r, g, 0) == 0 && r.size == 16 * MIB &&
		    strcmp(r.kind, "malloc") == 0 && r.repeats == 2,
		    "first: 16 MiB malloc, 2 at its call site");
		ok(ying_giant_get(&r, g, 2) == 0 && r.size == 16 * MIB &&
		    strcmp(r.kind, "calloc") == 0 && r.repeats == 1,
		    "third: calloc 2 x 8 MiB (nmemb * size)");
		is_u64(r.thread, (uint64_t)getpid(), "thread id (the main thread's)");
		ok(ying_profile_symbolize(ying_giant_profile(g), NULL, NULL) == 0,
		    "the sites' stacks symbolize");
		ying_profile_write_folded(ying_giant_profile(g), &fo, ying_write_membuf,
		    &folded);
		has_str(folded.data, ";main;unit_giant_alloc 33554432\n",
		    "the 16 MiB site's stack ends main;unit_giant_alloc (hook and jemalloc frames left out)");
		has_str(folded.data, ";main;unit_giant_calloc 16777216\n",
		    "the calloc site's stack");
		ok(folded.data && strstr(folded.data, "giant_record") == NULL &&
		    strstr(folded.data, "giant_alloc_hook") == NULL,
		    "no frame of the hook itself");
		ying_membuf_release(&folded);
		ying_giant_free(g);
	}
	keep[4] = unit_giant_alloc();   /* another stack through the same place */
	g = listing(next, NULL);
	ok(g && ying_giant_count(g) == 1 && ying_giant_get(&r, g, 0) == 0 &&
	    r.size == 16 * MIB && r.seq >= next,
	    "since the previous listing: only the new record");
	ying_giant_free(g);
	/* stop right after a start, 200 times: the thread has often not run
	 * yet (a lock it took there once deadlocked with stop's join) */
	ying_giant_capture_stop();
	{
		int fails = 0;
		for (int i = 0; i < 200; i++) {
			if (ying_giant_capture_start(&o) != 0)
				fails++;
			ying_giant_capture_stop();
		}
		is_int(fails, 0, "200 starts each stopped at once: no deadlock, no failure");
	}
	ok(ying_giant_capture_start(&o) == 0, "start again");

	fflush(log);
	n = (size_t)pread(fileno(log), logbuf, sizeof(logbuf) - 1, 0);
	logbuf[n < sizeof(logbuf) ? n : 0] = '\0';
	printf("# log:\n# %s", logbuf);
	{
		int c = 0;
		for (const char *p = logbuf; (p = strstr(p, "at unit_giant_alloc (")) != NULL; p++)
			c++;
		is_int(c, 1, "the place is logged once for three allocations");
	}
	has_str(logbuf, "ying: giant allocation of 16777216 bytes at unit_giant_alloc (test_giant.c:",
	    "the log line: size, function, file:line");
	has_str(logbuf, "ying: giant allocation of 16777216 bytes at unit_giant_calloc (",
	    "the calloc place too");

	fflush(stdout);
	if ((pid = fork()) == 0) {
		ying_membuf mb = YING_MEMBUF_INIT;
		int bad = 0;
		if (ying_giant_capture_threshold() != 0)
			bad |= 1;
		if (ying_giant_capture_write_json(NULL, NULL, 0, ying_write_membuf, &mb) != YING_ENODATA)
			bad |= 2;
		keep[5] = unit_giant_alloc();
		_exit(bad);
	}
	st = -1;
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "in a forked child nothing is recorded and the listing says so");
	g = listing(0, NULL);
	ok(g && ying_giant_count(g) == 0, "the child's allocation is not in the parent's records");
	ying_giant_free(g);

	ying_giant_capture_stop();
	is_u64(ying_giant_capture_threshold(), 0, "stopped: no threshold");
	is_int(ying_giant_capture_write_json(NULL, NULL, 0, ying_write_membuf, &folded), YING_ENODATA,
	    "stopped: the listing is YING_ENODATA");
	rc = ying_giant_capture_start(&o);
	is_int(rc, 0, "started again");
	g = listing(0, NULL);
	ok(g && ying_giant_count(g) == 0, "a fresh start begins empty");
	ying_giant_free(g);
	{
		ying_membuf mb = YING_MEMBUF_INIT;
		keep[6] = unit_giant_alloc();
		is_int(ying_giant_capture_write_json(NULL, NULL, 0, slow_sink, &mb), 0,
		    "a listing into a slow sink");
		ying_write_membuf(&mb, "", 1);
		ok(stopped_while_writing, "a stop from another thread ended while the "
		    "listing wrote (no capture lock held while writing)");
		has_str(mb.data ? mb.data : "", "\"function\":\"unit_giant_alloc\"",
		    "... and the listing, written after the stop, is whole");
		for (int i = 0; i < 400 && !atomic_load(&stop_done); i++)
			usleep(5000);
		ying_membuf_release(&mb);
		free(keep[6]);
	}
	is_u64(ying_giant_capture_threshold(), 0, "stopped by the other thread");

	/* take jemalloc's four hook slots */
	{
		struct { void *a, *d, *e, *x; } h = { (void *)noop_alloc, NULL, NULL, NULL };
		int taken = 0;
		for (int i = 0; i < 4; i++) {
			void *handle;
			size_t sz = sizeof(handle);
			if (mallctl("experimental.hooks.install", &handle, &sz, &h, sizeof(h)) == 0)
				taken++;
		}
		is_int(taken, 4, "four no-op hooks installed");
	}
	is_int(ying_giant_capture_start(&o), YING_ELIMIT, "slots taken: YING_ELIMIT");
	has_str(ying_last_error(), "hook slots (4) are taken", "... naming why");
	is_u64(ying_giant_capture_threshold(), 0, "... and nothing is recorded");
	for (int i = 0; i < 6; i++)
		free(keep[i]);
	fclose(log);
	return tap_done();
}
