/*
 * user_frames.c: a program whose allocations all go through one
 * project-private wrapper, arena_grab(), called from ten functions
 * (from_parse ... from_reply), profiled by tests/integration/user_frames.sh.
 * Without the user's frames list `ying top` shows arena_grab leading 100 %
 * of the heap from 10 callers (the wrapper hint fires); with arena_grab in
 * $XDG_CONFIG_HOME/ying/frames or YING_DROP_FRAMES the ten callers lead.
 *
 *   user_frames DUMP N           N blocks of 32 KiB per caller, write DUMP
 *                                (prof.dump; MALLOC_CONF=prof:true), exit
 *   user_frames --hold STOP N    the same blocks, then "ready" on stdout and
 *                                wait (at most 30 s) until file STOP exists
 *                                (for the agent under ying run)
 */
#ifdef __clang__
#pragma clang optimize off
#else
#pragma GCC optimize("O0")
#endif

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void top_dump(const char *path); /* top_dump.c */

#define BLOCK 32768
#define MAXN 200

static void *keep[10][MAXN];

/* The project's wrapper: counts and aborts on failure, as such wrappers do. */
__attribute__((noinline)) void *
arena_grab(size_t n)
{
	static size_t grabbed;
	void *p = malloc(n);

	if (p == NULL)
		abort();
	grabbed += n;
	return p;
}

#define CALLER(k, name) \
	__attribute__((noinline)) void name(int n) \
	{ \
		for (int i = 0; i < n; i++) \
			keep[k][i] = arena_grab(BLOCK); \
	}
CALLER(0, from_parse)
CALLER(1, from_load)
CALLER(2, from_index)
CALLER(3, from_cache)
CALLER(4, from_session)
CALLER(5, from_query)
CALLER(6, from_plan)
CALLER(7, from_buffer)
CALLER(8, from_header)
CALLER(9, from_reply)

int
main(int argc, char **argv)
{
	void (*const callers[10])(int) = {
		from_parse, from_load, from_index, from_cache, from_session,
		from_query, from_plan, from_buffer, from_header, from_reply,
	};
	bool hold = argc == 4 && strcmp(argv[1], "--hold") == 0;
	int n = argc >= 3 ? atoi(argv[argc - 1]) : 0;

	if ((argc != 3 && !hold) || n < 1 || n > MAXN) {
		fprintf(stderr, "usage: user_frames DUMP N | user_frames --hold STOP N\n");
		return 2;
	}
	for (int k = 0; k < 10; k++)
		callers[k](n);
	if (!hold) {
		top_dump(argv[1]);
		return 0;
	}
	printf("ready\n");
	fflush(stdout);
	for (int i = 0; i < 300 && access(argv[2], F_OK) != 0; i++) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	return 0;
}
