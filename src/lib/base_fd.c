/*
 * base_fd.c: descriptors opened out of a host's way.  A library that runs
 * inside a program (the live runtime, the symbolizer it drives) must not
 * take the low descriptor numbers: daemons close every descriptor >= 3 (a
 * loop to 1024, close_range, closefrom) and then open their own files,
 * which take the lowest free numbers.  yi_fd_high moves a descriptor
 * above those loops when the limit allows.  The registry of descriptors
 * the runtime owns (and closes in a forked child) is the live runtime's
 * (src/live/live_fd.c): libying installs no fork handler.
 */
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base.h"

/* Where a taken descriptor goes: above 1024 (the usual close loop) when
 * the limit allows, else in the top quarter of the table; 0: stay. */
static int
high_base(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	if (rl.rlim_cur >= 8192)
		return 4096;
	if (rl.rlim_cur >= 256)
		return (int)(rl.rlim_cur / 4 * 3);
	return 0;
}

int
yi_fd_high(int fd)
{
	int base = high_base();

	if (fd >= 0 && base > 0 && fd < base) {
		int hi = fcntl(fd, F_DUPFD_CLOEXEC, base);
		if (hi >= 0) {
			close(fd);
			fd = hi;
		}
	}
	return fd;
}
