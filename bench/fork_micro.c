/*
 * fork_micro.c: the cost of fork round trips in a program under the agent,
 * timed by bench/fork_cost.sh before and after the lazy take-over.
 *
 *   fork_micro N MODE     N round trips, one at a time; MODE:
 *                         exit   fork, the child calls _exit(0), waitpid
 *                         alloc  fork, the child allocates and frees 64
 *                                bytes once, then _exit(0), waitpid
 *                         exec   fork, the child execs /bin/true with an
 *                                environment without LD_PRELOAD, waitpid
 *                         prints the medians of a round trip's wall time
 *                         and of its CPU time, in microseconds
 *                         ("wall_us cpu_us"); the CPU time is the forking
 *                         thread's (CLOCK_THREAD_CPUTIME_ID around fork and
 *                         wait4: not the agent's own threads) plus the
 *                         child's (wait4's rusage, every thread of it), so
 *                         a loaded machine's waits for a core count in the
 *                         wall time only
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void *volatile sink;

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

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

static double
median(double *v, long n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	const char *mode = argc > 2 ? argv[2] : "exit";
	char *targv[] = { "true", NULL };
	char *tenv[] = { "PATH=/usr/bin:/bin", NULL };
	double *t, *c;

	if (n < 1 || (t = malloc(sizeof(*t) * (size_t)n)) == NULL ||
	    (c = malloc(sizeof(*c) * (size_t)n)) == NULL)
		return 2;
	for (long i = 0; i < n; i++) {
		double a = clock_us(CLOCK_MONOTONIC), ca = clock_us(CLOCK_THREAD_CPUTIME_ID);
		struct rusage ru;
		int st;
		pid_t p = fork();

		if (p < 0)
			return 1;
		if (p == 0) {
			if (strcmp(mode, "alloc") == 0) {
				sink = malloc(64);
				free(sink);
			} else if (strcmp(mode, "exec") == 0) {
				execve("/bin/true", targv, tenv);
				_exit(127);
			}
			_exit(0);
		}
		if (wait4(p, &st, 0, &ru) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return 1;
		t[i] = clock_us(CLOCK_MONOTONIC) - a;
		c[i] = clock_us(CLOCK_THREAD_CPUTIME_ID) - ca + tv_us(ru.ru_utime) +
		    tv_us(ru.ru_stime);
	}
	printf("%.1f %.1f\n", median(t, n), median(c, n));
	return 0;
}
