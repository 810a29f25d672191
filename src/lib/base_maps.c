/*
 * base_maps.c: the one reader of /proc/self/maps (yi_maps_read).  The live
 * recent-allocations capture, the giant-allocation listing and the HTTP
 * symbol endpoint each need the text of this process's maps, to put into a
 * dump or to parse with the heap_v2 reader's MAPPED_LIBRARIES parser
 * (read_heap.c, yi_heap_parse_maps); they read it here, whole, with read(2)
 * (a procfs file is generated per read call: stdio adds nothing), bounded.
 * Only libc.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "base.h"

int
yi_maps_read(const char *path, size_t max, char **out, size_t *len)
{
	YI_VEC(char) b = { NULL, 0, 0 };
	int fd, rc = 0;

	*out = NULL;
	if (len)
		*len = 0;
	if (path == NULL)
		path = "/proc/self/maps";
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return yi_error(YING_ESYS, "cannot open %s: %s", path, strerror(errno));
	for (;;) {
		ssize_t r;
		if (b.cap - b.n < 8192 && (rc = yi_vec_grow(&b, 16384)) != 0)
			break;
		r = read(fd, b.v + b.n, b.cap - b.n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = yi_error(YING_ESYS, "cannot read %s: %s", path, strerror(errno));
			break;
		}
		if (r == 0)
			break;
		b.n += (size_t)r;
		if (max && b.n > max) {
			rc = yi_error(YING_ELIMIT, "%s is larger than %zu bytes", path, max);
			break;
		}
	}
	close(fd);
	if (rc != 0) {
		yi_vec_free(&b);
		return rc;
	}
	if (b.v == NULL && (rc = yi_vec_grow(&b, 1)) != 0)
		return rc;
	b.v[b.n] = '\0';
	*out = b.v;
	if (len)
		*len = b.n;
	return 0;
}
