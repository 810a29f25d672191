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
 *                         prints the median and the mean microseconds of a
 *                         round trip ("median_us mean_us")
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void *volatile sink;

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	const char *mode = argc > 2 ? argv[2] : "exit";
	char *targv[] = { "true", NULL };
	char *tenv[] = { "PATH=/usr/bin:/bin", NULL };
	double *t, sum = 0;

	if (n < 1 || (t = malloc(sizeof(*t) * (size_t)n)) == NULL)
		return 2;
	for (long i = 0; i < n; i++) {
		double a = now_us();
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
		if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return 1;
		t[i] = now_us() - a;
		sum += t[i];
	}
	qsort(t, (size_t)n, sizeof(*t), cmp);
	printf("%.1f %.1f\n", n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2, sum / (double)n);
	return 0;
}
