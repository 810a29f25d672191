/*
 * agent_forker.c: forked children under the agent, for the test that they
 * stay single-threaded until they outlive their parent
 * (tests/integration/run_fork_threads.sh).
 *
 *   agent_forker DIR [MS]
 *                      1. forks child A and waits for it: A writes its
 *                      thread count right after the fork (DIR/a0), then
 *                      allocates and frees for 300 ms and writes it again
 *                      (DIR/a1), then calls unshare(CLONE_NEWUSER) and
 *                      writes "ok" or the errno name (DIR/a_unshare), then
 *                      allocates until 1.5 s after the fork and writes the
 *                      count once more (DIR/a2);
 *                      2. forks child B, waits until B wrote its thread
 *                      count after MS (default 300) ms of allocating with
 *                      the parent alive (DIR/b0), and exits 0.  B, the survivor, goes
 *                      on allocating every 10 ms; once its parent is gone
 *                      and it has more than one thread (the agent took it
 *                      over) it writes its pid (DIR/b) and the count
 *                      (DIR/b1); it exits when DIR/stop appears (at most
 *                      60 s).
 *
 * Plain malloc: `ying run` preloads jemalloc.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[4096];
static void *volatile sink;   /* the allocations are not optimised away */

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* "Threads:" of /proc/self/status, read with read(2) into the stack. */
static long
threads(void)
{
	char buf[4096], *p;
	ssize_t n;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if ((p = strstr(buf, "\nThreads:")) == NULL)
		return -1;
	return strtol(p + 9, NULL, 10);
}

static void
put(const char *name, const char *v)
{
	char p[4200], t[4200];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	snprintf(t, sizeof(t), "%s/.%s.tmp", dir, name);
	if ((f = fopen(t, "w")) == NULL)
		return;
	fprintf(f, "%s\n", v);
	fclose(f);
	rename(t, p);
}

static void
put_long(const char *name, long v)
{
	char b[32];

	snprintf(b, sizeof(b), "%ld", v);
	put(name, b);
}

static int
exists(const char *name)
{
	char p[4200];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &st) == 0;
}

static void
alloc_one(void)
{
	sink = malloc(64);
	free(sink);
}

/* Allocate and free for ms milliseconds. */
static void
churn(long ms)
{
	double end = now_ms() + ms;

	while (now_ms() < end) {
		alloc_one();
		sleep_ms(1);
	}
}

int
main(int argc, char **argv)
{
	pid_t a, b, me = getpid();
	long linger = argc > 2 ? atol(argv[2]) : 300;
	int st;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: agent_forker DIR [MS]\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	if ((a = fork()) < 0)
		return 1;
	if (a == 0) {
		long t0 = threads();
		double start = now_ms();
		put_long("a0", t0);
		churn(300);
		put_long("a1", threads());
		put("a_unshare", unshare(CLONE_NEWUSER) == 0 ? "ok" :
		    errno == EINVAL ? "EINVAL" : strerror(errno));
		churn((long)(start + 1500 - now_ms()));
		put_long("a2", threads());
		_exit(0);
	}
	if (waitpid(a, &st, 0) != a || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 1;
	if ((b = fork()) < 0)
		return 1;
	if (b == 0) {
		churn(linger);
		put_long("b0", threads());
		for (int i = 0; i < 6000 && !exists("stop"); i++) {
			if (!exists("b") && getppid() != me && threads() > 1) {
				put_long("b1", threads());
				put_long("b", (long)getpid());
			}
			alloc_one();
			sleep_ms(10);
		}
		_exit(0);
	}
	for (int i = 0; i < 300 + linger / 100 && !exists("b0"); i++)
		sleep_ms(100);
	return exists("b0") ? 0 : 1;
}
