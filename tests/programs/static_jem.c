/*
 * static_jem.c: a C program for tests/integration/run_static_jem.sh, which
 * compiles it at test time with Debian's libjemalloc.a linked statically
 * and not exported (mallctl in .symtab only, like _rjem_mallctl in a Rust
 * release binary), as a PIE, as a non-PIE executable and as a stripped
 * copy.  static_jem MIB SECONDS: allocates MIB MiB in static_jem_leak
 * (which a report must name), prints "grown MIB", sleeps SECONDS (a
 * signal handled meanwhile does not shorten it) and exits
 * with status 7.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void *volatile static_jem_keep[4096];

__attribute__((noinline)) void
static_jem_leak(int i)
{
	static_jem_keep[i] = malloc(1 << 20);
	if (static_jem_keep[i])
		memset(static_jem_keep[i], 1, 1 << 20);
}

int
main(int argc, char **argv)
{
	int mib = argc > 1 ? atoi(argv[1]) : 8;
	int secs = argc > 2 ? atoi(argv[2]) : 0;

	for (int i = 0; i < mib && i < 4096; i++)
		static_jem_leak(i);
	printf("grown %d\n", mib);
	fflush(stdout);
	/* a signal handler (the agent's dump signal) cuts sleep() short */
	for (time_t end = time(NULL) + secs; time(NULL) < end; )
		sleep(1);
	return 7;
}
