/*
 * sym_rows.c: a function whose call sites of malloc lie in different
 * unwind rows, for tests/integration/sym_unnamed.sh.  Built there with
 * -O2: grow() pushes registers, returns early after the first malloc (the
 * likely path: the epilogue's pops and `ret` sit in the middle of the
 * function, each starting a CFI row) and calls malloc again in the row
 * that restores the prologue's state after that `ret`.  Stripped, the
 * function has no name; both sites must land in one row named after its
 * first byte.
 *
 * `sym_rows DUMP` allocates 1000 x 4096 bytes at the first site and
 * 500 x 8192 at the second (8192000 bytes, all jemalloc size classes),
 * writes a heap profile to DUMP (mallctl prof.dump: run it under
 * MALLOC_CONF=prof:true,lg_prof_sample:0) and exits; `sym_rows --wait
 * READY` allocates the same, creates READY and waits to be killed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jemalloc/jemalloc.h>

void *volatile keep[4096];
volatile size_t nkeep;

__attribute__((noinline)) void *
grow(size_t n, size_t m)
{
	void *a = malloc(n);              /* call site 1 */

	if (__builtin_expect(m == 0, 1))
		return a;
	keep[nkeep++] = malloc(m);        /* call site 2 */
	return a;
}

int
main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[argc - 1] : NULL;
	int fd;

	if (path == NULL) {
		fprintf(stderr, "usage: sym_rows DUMP | sym_rows --wait READY\n");
		return 2;
	}
	for (int i = 0; i < 1000; i++)
		keep[nkeep++] = grow(4096, (i & 1) ? 8192 : 0);
	if (argc == 3 && strcmp(argv[1], "--wait") == 0) {
		if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
			return 1;
		(void)write(fd, "ready\n", 6);
		close(fd);
		for (;;)
			pause();
	}
	if (mallctl("prof.dump", NULL, NULL, &path, sizeof(path)) != 0) {
		fprintf(stderr, "prof.dump to %s failed (is MALLOC_CONF=prof:true set?)\n", path);
		return 3;
	}
	return 0;
}
