/*
 * fuzz_heap.c: jemalloc heap_v2 dumps, through both readers: the
 * whole-buffer one (yi_heap_parse_mem) and the streamed one that files take
 * (yi_heap_parse_gz over a zlib stream, here a memfd holding the input, so
 * lines cross its 1 MiB refills only for big inputs).  A parsed profile is
 * written in every format.  Input: the dump's bytes.
 */
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "fuzz.h"

/* The streamed reader on data, as ying_profile_read_file would run it. */
static void
heap_streamed(const uint8_t *data, size_t size)
{
	ying_profile *p = NULL;
	gzFile gz;
	char head[64];
	int fd, n;

	if ((fd = memfd_create("fuzz-heap", MFD_CLOEXEC)) < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	if (lseek(fd, 0, SEEK_SET) != 0 || (gz = gzdopen(fd, "rb")) == NULL)
		abort();
	/* the caller has read a head already (for the format sniffing) */
	n = gzread(gz, head, sizeof(head));
	if (n >= 0 && yi_heap_parse_gz(&p, gz, head, (size_t)n, "fuzz") == 0)
		ying_profile_free(p);
	gzclose(gz);    /* closes fd */
	yi_error_clear();
}

FUZZ_TARGET(heap)
{
	ying_profile *p = NULL;

	if (yi_heap_parse_mem(&p, data, size, "fuzz") == 0) {
		fuzz_write_all(p, size % 4 == 0);
		ying_profile_free(p);
	}
	yi_error_clear();
	if (size % 2 == 1)
		heap_streamed(data, size);
	return 0;
}
