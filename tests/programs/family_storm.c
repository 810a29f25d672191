/*
 * family_storm.c: a fork storm beside one long-lived child, for
 * tests/integration/fork_storm.sh (issue 25: short children leave nothing
 * behind, the long one becomes a member of the family).
 *
 *   family_storm DIR SECONDS
 *                      forks the long child L first: L allocates 1 MiB
 *                      and then 4 KiB every 50 ms (kept), and runs until
 *                      killed or DIR/stop appears (at most 120 s); L's pid
 *                      goes to DIR/long.  The parent writes its own pid
 *                      (DIR/head), allocates 4 MiB (kept), waits 1 s, writes its thread count
 *                      (DIR/threads0), then for SECONDS seconds forks
 *                      children at 300 a second (or as fast as it can): every
 *                      second child execs /bin/true (environment kept, so
 *                      under the agent too), the others allocate and free
 *                      a little and _exit(0); it reaps them as it goes.
 *                      When every storm child is reaped it writes their
 *                      count (DIR/storm), waits 1 s, writes its thread
 *                      count again (DIR/threads1), and then reaps L
 *                      whenever it dies and exits 0 once DIR/stop appears
 *                      (at most 120 s).
 *
 * Plain malloc: `ying run` preloads jemalloc.
 */
#include <errno.h>
#include <signal.h>
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

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
put(const char *name, long v)
{
	char path[4200], tmp[4300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if ((f = fopen(tmp, "w")) == NULL)
		return;
	fprintf(f, "%ld\n", v);
	fclose(f);
	rename(tmp, path);
}

static int
stopped(void)
{
	char path[4200];
	struct stat st;

	snprintf(path, sizeof(path), "%s/stop", dir);
	return stat(path, &st) == 0;
}

static long
threads(void)
{
	char line[256];
	long n = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "Threads:", 8) == 0)
			n = strtol(line + 8, NULL, 10);
	fclose(f);
	return n;
}

static void
long_child(void)
{
	int i;

	sink = malloc(1 << 20);
	memset(sink, 1, 1 << 20);
	for (i = 0; i < 2400 && !stopped(); i++) {
		char *p = malloc(4096);

		if (p != NULL)
			p[0] = (char)i;
		sink = p;     /* kept: the member's heap grows */
		sleep_ms(50);
	}
	_exit(0);
}

static void
short_child(long i)
{
	void *p[8];
	int k;

	if (i % 2 == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	for (k = 0; k < 8; k++)
		sink = p[k] = malloc((size_t)64 << k);
	for (k = 0; k < 8; k++)
		free(p[k]);
	_exit(0);
}

int
main(int argc, char **argv)
{
	pid_t lp, pid;
	long n = 0, live = 0, i;
	double start, end, secs;
	int st;

	if (argc != 3 || snprintf(dir, sizeof(dir), "%s", argv[1]) >= (int)sizeof(dir) ||
	    (secs = strtod(argv[2], NULL)) <= 0) {
		fprintf(stderr, "usage: family_storm DIR SECONDS\n");
		return 2;
	}
	sink = malloc(1000);
	if ((lp = fork()) < 0) {
		perror("family_storm: fork");
		return 1;
	}
	if (lp == 0)
		long_child();
	put("long", (long)lp);
	put("head", (long)getpid());
	sink = malloc(4 << 20);     /* the head's own heap, kept */
	memset(sink, 2, 4 << 20);
	sleep_ms(1000);
	put("threads0", threads());
	start = now_s();
	end = start + secs;
	while (now_s() < end) {
		if ((double)n >= 300.0 * (now_s() - start)) {
			sleep_ms(1);     /* ahead of 300 a second */
			goto reap;
		}
		pid = fork();
		if (pid == 0)
			short_child(n);
		if (pid > 0) {
			n++;
			live++;
		}
	reap:
		while (live > 0 && (pid = waitpid(-1, &st, WNOHANG)) > 0)
			if (pid != lp)
				live--;
	}
	while (live > 0 && (pid = waitpid(-1, &st, 0)) > 0)
		if (pid != lp)
			live--;
	put("storm", n);
	sleep_ms(1000);
	put("threads1", threads());
	for (i = 0; i < 1200 && !stopped(); i++) {
		waitpid(lp, &st, WNOHANG);
		sleep_ms(100);
	}
	kill(lp, SIGKILL);
	waitpid(lp, &st, 0);
	return 0;
}
