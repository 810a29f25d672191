/*
 * agent_workers.c: a small pre-forking server for the tests of the
 * agent's members (tests/integration/run_children.sh).
 *
 *   agent_workers DIR N [SHORT [EXEC]]
 *                      the head allocates 4 MiB in head_setup, forks N
 *                      workers and SHORT short children (each allocates a
 *                      little and exits after 100 ms), and, with EXEC = 1,
 *                      one child that execs `agent_workers --exec DIR`.
 *                      Worker i allocates (i + 1) * 8 MiB in worker_fill
 *                      over its first second, writes its pid to DIR/wI and
 *                      then allocates and frees every 50 ms; the exec'd
 *                      image allocates 6 MiB in exec_fill and writes
 *                      DIR/e.  Everyone exits when DIR/stop appears (at
 *                      most 60 s); the head waits for its children and
 *                      writes DIR/done.  With AW_HEAD_EXIT set the head
 *                      instead exits (status 0, without waiting) once
 *                      DIR/headexit appears, leaving its workers orphans.
 *
 * Plain malloc: `ying run` preloads jemalloc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[3000];
static void *volatile keep[1024];
static size_t nkeep;

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
}

static int
stopped(void)
{
	char p[3100];
	struct stat st;

	snprintf(p, sizeof(p), "%s/stop", dir);
	return stat(p, &st) == 0;
}

static void
put(const char *name, long v)
{
	char p[3100], t[3200];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	snprintf(t, sizeof(t), "%s.tmp", p);
	if ((f = fopen(t, "w")) != NULL) {
		fprintf(f, "%ld\n", v);
		fclose(f);
		rename(t, p);
	}
}

static void
fill(size_t mib)
{
	for (size_t i = 0; i < mib * 4 && nkeep < 1024; i++) {
		keep[nkeep] = malloc(256 * 1024);
		memset(keep[nkeep], 1, 256 * 1024);
		nkeep++;
	}
}

/* Each named function calls fill and then touches what it got, so the
 * call is no tail call and the function stays in the stack. */
static volatile size_t touched;
#define NAMED(decl, mib) __attribute__((noinline)) static void decl { \
	fill(mib); touched += nkeep; }
NAMED(head_setup(void), 4)
NAMED(worker_fill(int i), (size_t)(i + 1))
NAMED(exec_fill(void), 6)
NAMED(short_child(void), 1)

static void *volatile sink;   /* malloc+free is not optimised away */

static void
idle(void)
{
	for (int k = 0; k < 1200 && !stopped(); k++) {
		sink = malloc(64);
		free(sink);
		sleep_ms(50);
	}
}

int
main(int argc, char **argv)
{
	int n, nshort = 0, ex = 0;
	char name[32];

	if (argc == 3 && strcmp(argv[1], "--exec") == 0) {
		snprintf(dir, sizeof(dir), "%s", argv[2]);
		exec_fill();
		put("e", (long)getpid());
		idle();
		return 0;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: agent_workers DIR N [SHORT [EXEC]]\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	n = atoi(argv[2]);
	if (argc > 3)
		nshort = atoi(argv[3]);
	if (argc > 4)
		ex = atoi(argv[4]);
	head_setup();
	for (int i = 0; i < n; i++) {
		if (fork() == 0) {
			for (int s = 0; s < 8; s++) {
				worker_fill(i);   /* 1/8 of it each time */
				sleep_ms(120);
			}
			snprintf(name, sizeof(name), "w%d", i);
			put(name, (long)getpid());
			idle();
			_exit(0);
		}
	}
	for (int i = 0; i < nshort; i++) {
		if (fork() == 0) {
			short_child();
			sleep_ms(100);
			_exit(0);
		}
	}
	if (ex && fork() == 0) {
		execl("/proc/self/exe", argv[0], "--exec", dir, (char *)NULL);
		_exit(127);
	}
	if (getenv("AW_HEAD_EXIT")) {
		char p[3100];
		struct stat st;
		snprintf(p, sizeof(p), "%s/headexit", dir);
		for (int k = 0; k < 1200 && stat(p, &st) != 0; k++)
			sleep_ms(50);
		_exit(0);
	}
	idle();
	while (wait(NULL) > 0)
		;
	put("done", 1);
	return 0;
}
