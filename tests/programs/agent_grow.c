/*
 * agent_grow.c: a program whose heap grows in steps, for the growth runner
 * tests (tests/integration/run_grow.sh).
 *
 *   agent_grow [STEPS [MIB [STEP_MS [HOLD_MS]]]]
 *
 * Every STEP_MS milliseconds (default 1000) agent_grow_step() allocates MIB
 * MiB (default 30) more in 64 KiB blocks and keeps them, STEPS times
 * (default 5); then the program holds its heap for HOLD_MS (default 3000)
 * and exits 0.  It prints "step N: M MiB" after each step.  With
 * AGENT_GROW_WAIT=1 and YING_REPORT_DIR set, the hold ends early once a report of at least 90 %
 * of the final size is there, and lasts up to 10 times longer while none
 * is (so a loaded machine does not make the test miss the last report).
 * With AGENT_GROW_STOP=FILE the hold ends as soon as FILE exists (and
 * after HOLD_MS at the latest), so a test can end it with a normal exit.
 * Plain malloc: `ying run` preloads jemalloc.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BLOCK (64 * 1024)

static void **blocks;
static size_t nblocks;

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
}

__attribute__((noinline)) static void *
agent_grow_block(void)
{
	char *p = malloc(BLOCK);

	if (p == NULL) {
		fprintf(stderr, "agent_grow: out of memory\n");
		exit(1);
	}
	memset(p, 0x5a, 64);
	return p;
}

__attribute__((noinline)) void
agent_grow_step(size_t mib)
{
	size_t i, n = mib * (1024 * 1024 / BLOCK);

	for (i = 0; i < n; i++)
		blocks[nblocks++] = agent_grow_block();
}

/* Is there a "ying.<time>.<N>MiB.report" with N >= mib in dir? */
static int
have_report(const char *dir, long mib)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	if (d == NULL)
		return 0;
	while (!found && (e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		const char *p;
		if (n < 13 || strcmp(e->d_name + n - 10, "MiB.report") != 0)
			continue;
		p = e->d_name + n - 10;
		while (p > e->d_name && p[-1] >= '0' && p[-1] <= '9')
			p--;
		found = atol(p) >= mib;
	}
	closedir(d);
	return found;
}

int
main(int argc, char **argv)
{
	long steps = argc > 1 ? atol(argv[1]) : 5;
	long mib = argc > 2 ? atol(argv[2]) : 30;
	long step_ms = argc > 3 ? atol(argv[3]) : 1000;
	long hold_ms = argc > 4 ? atol(argv[4]) : 3000;
	long s;

	if (steps < 0 || mib < 0 || steps * mib > 4096) {
		fprintf(stderr, "agent_grow: bad arguments\n");
		return 2;
	}
	blocks = calloc((size_t)(steps * mib * (1024 * 1024 / BLOCK)) + 1, sizeof(*blocks));
	if (blocks == NULL)
		return 1;
	for (s = 1; s <= steps; s++) {
		sleep_ms(step_ms);
		agent_grow_step((size_t)mib);
		printf("step %ld: %ld MiB\n", s, s * mib);
		fflush(stdout);
	}
	if (getenv("AGENT_GROW_WAIT") && getenv("YING_REPORT_DIR") && steps > 0) {
		const char *dir = getenv("YING_REPORT_DIR");
		long waited = 0, want = steps * mib * 9 / 10;
		while (waited < 10 * hold_ms && !(waited >= 500 && have_report(dir, want))) {
			sleep_ms(100);
			waited += 100;
		}
	} else if (getenv("AGENT_GROW_STOP")) {
		const char *stop = getenv("AGENT_GROW_STOP");
		for (long waited = 0; waited < hold_ms && access(stop, F_OK) != 0; waited += 100)
			sleep_ms(100);
	} else {
		sleep_ms(hold_ms);
	}
	return 0;
}
