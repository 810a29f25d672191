/*
 * top_dump.c: linked into the C programs that tests/integration/top_*.sh
 * profile.
 *
 * top_dump() asks the jemalloc the program is linked with to write a heap
 * profile to PATH (mallctl "prof.dump") and exits with status 3 when that
 * fails (jemalloc without profiling, or MALLOC_CONF lacking prof:true), so a
 * test never runs ying on a dump that was not written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jemalloc/jemalloc.h>

void top_dump(const char *path);

void
top_dump(const char *path)
{
	int rc = mallctl("prof.dump", NULL, NULL, &path, sizeof(path));

	if (rc != 0) {
		fprintf(stderr, "prof.dump to %s failed: %s (is MALLOC_CONF=prof:true set?)\n",
		    path, strerror(rc));
		exit(3);
	}
}
