/*
 * fork_storm.c: a fork storm timed from the parent's side, for
 * bench/fork_storm.sh (issue 25: a storm of short children must cost a
 * program under the agent nothing measurable).
 *
 *   fork_storm N MODE     N children back to back, each waited for before
 *                         the next is forked; MODE:
 *                         exit   the child calls _exit(0) at once
 *                         alloc  the child allocates a little (16 blocks
 *                                of 16 to 4096 bytes, a 64 KiB one) and
 *                                frees it, then _exit(0): its allocations
 *                                go through whatever the agent's fork
 *                                handler installed
 *                         prints "wall_us cpu_us": the storm's wall time
 *                         divided by N, and the CPU time per child of the
 *                         whole parent (every thread: the agent's own
 *                         included) plus the children's (RUSAGE_CHILDREN)
 *
 * Nothing is allocated by this file itself between the forks, so what the
 * parent spends is fork, the handlers that run around it, and wait.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void *volatile sink;

static double
clock_us(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static double
tv_us(struct timeval tv)
{
	return (double)tv.tv_sec * 1e6 + (double)tv.tv_usec;
}

static void
child_alloc(void)
{
	void *p[17];
	int i;

	for (i = 0; i < 16; i++) {
		p[i] = malloc((size_t)16 << (i % 9));
		sink = p[i];
	}
	p[16] = malloc(65536);
	sink = p[16];
	for (i = 0; i < 17; i++)
		free(p[i]);
}

int
main(int argc, char **argv)
{
	long n, i;
	int alloc, st;
	double w0, c0, w1, c1;
	struct rusage ru;

	if (argc != 3 || (n = strtol(argv[1], NULL, 10)) <= 0 ||
	    (strcmp(argv[2], "exit") != 0 && strcmp(argv[2], "alloc") != 0)) {
		fprintf(stderr, "usage: fork_storm N exit|alloc\n");
		return 2;
	}
	alloc = strcmp(argv[2], "alloc") == 0;
	sink = malloc(100);     /* the allocator (and the agent) is up */
	w0 = clock_us(CLOCK_MONOTONIC);
	c0 = clock_us(CLOCK_PROCESS_CPUTIME_ID);
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork_storm: fork");
			return 1;
		}
		if (pid == 0) {
			if (alloc)
				child_alloc();
			_exit(0);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "fork_storm: child %ld did not exit 0\n", i);
			return 1;
		}
	}
	w1 = clock_us(CLOCK_MONOTONIC);
	c1 = clock_us(CLOCK_PROCESS_CPUTIME_ID);
	getrusage(RUSAGE_CHILDREN, &ru);
	printf("%.2f %.2f\n", (w1 - w0) / (double)n,
	    (c1 - c0 + tv_us(ru.ru_utime) + tv_us(ru.ru_stime)) / (double)n);
	return 0;
}
