/*
 * run_setuid.c: a program that switches user after it started, for
 * tests/integration/run_setuid.sh (the report keeper of `ying run`).
 *
 *   run_setuid drop UID STEPS MIB       as root: setgid/setuid(UID) once
 *                                       started, then grow by MIB MiB every
 *                                       second STEPS times, hold 2 s, exit 0
 *   run_setuid grow STEPS MIB           the same without switching user
 *   run_setuid sub STEPS MIB            exec itself as `grow STEPS MIB` with
 *                                       YING_REPORT_DIR set to its per-process
 *                                       subdirectory DIR/run_setuid.PID.worker
 *                                       (how a member's runner is set up)
 *   run_setuid lines FILE               write FILE's lines to YING_RUN_FD
 *                                       (a stand-in for the agent's lines),
 *                                       then sleep 1 s and exit 0
 *
 * It prints "uid N" once it runs as N.  Plain malloc: `ying run` preloads
 * jemalloc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* Each block is published through a volatile pointer: clang removes a
 * malloc whose block is never seen again. */
static char *volatile last_block;

__attribute__((noinline)) static void
run_setuid_grow(size_t mib)
{
	for (size_t i = 0; i < mib * 16; i++) {
		char *p = malloc(65536);
		if (p == NULL)
			exit(1);
		memset(p, 0x5a, 64);
		last_block = p;
	}
}

static int
grow(int steps, size_t mib)
{
	for (int i = 0; i < steps; i++) {
		run_setuid_grow(mib);
		sleep_ms(1000);
	}
	sleep_ms(2000);
	return 0;
}

static int
lines(const char *file)
{
	const char *e = getenv("YING_RUN_FD");
	char buf[8192];
	FILE *f = fopen(file, "r");
	size_t n;

	if (e == NULL || f == NULL) {
		fprintf(stderr, "run_setuid: no YING_RUN_FD or %s\n", file);
		return 1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (write(atoi(e), buf, n) != (ssize_t)n)
			return 1;
	fclose(f);
	sleep_ms(1000);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "drop") == 0) {
		uid_t u = (uid_t)atol(argv[2]);
		sleep_ms(300);
		if (setgid((gid_t)u) != 0 || setuid(u) != 0) {
			perror("run_setuid: setuid");
			return 1;
		}
		printf("uid %ld\n", (long)getuid());
		fflush(stdout);
		return grow(atoi(argv[3]), (size_t)atol(argv[4]));
	}
	if (argc == 4 && strcmp(argv[1], "grow") == 0) {
		printf("uid %ld\n", (long)getuid());
		fflush(stdout);
		return grow(atoi(argv[2]), (size_t)atol(argv[3]));
	}
	if (argc == 4 && strcmp(argv[1], "sub") == 0) {
		const char *d = getenv("YING_REPORT_DIR");
		char buf[4096];
		if (d == NULL)
			return 1;
		snprintf(buf, sizeof(buf), "%s/run_setuid.%ld.worker", d, (long)getpid());
		setenv("YING_REPORT_DIR", buf, 1);
		argv[1] = (char *)"grow";
		execv("/proc/self/exe", argv);
		perror("run_setuid: exec");
		return 1;
	}
	if (argc == 3 && strcmp(argv[1], "lines") == 0)
		return lines(argv[2]);
	fprintf(stderr, "usage: run_setuid drop UID STEPS MIB | grow STEPS MIB | lines FILE\n");
	return 2;
}
