/*
 * base_tmpfile.c: write-to-temp-then-rename, the one way libying replaces
 * a file (the runner's reports and dumps, live_runner_files.c; the symbol
 * cache's files, sym_cache.c).  The temporary is created exclusively and
 * without following a link (never written through a name someone planted),
 * then renamed over the final name, so a reader sees the old file or the
 * whole new one; a temporary that cannot be finished is removed.  The
 * callers choose the names and word their own messages: these return -1
 * with errno.  Only libc.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "base.h"

int
yi_tmp_create(int dfd, const char *tmp, mode_t mode, bool stale)
{
	int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);

	/* one left by an earlier image of this process: remove the name (a
	 * link itself, not what it points to) and make it anew, once */
	if (fd < 0 && errno == EEXIST && stale && unlinkat(dfd, tmp, 0) == 0)
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		    mode);
	return fd;
}

int
yi_tmp_commit(int dfd, const char *tmp, const char *final)
{
	int e;

	if (renameat(dfd, tmp, dfd, final) == 0)
		return 0;
	e = errno;
	(void)unlinkat(dfd, tmp, 0);
	errno = e;
	return -1;
}

void
yi_tmp_discard(int dfd, const char *tmp)
{
	int e = errno;

	(void)unlinkat(dfd, tmp, 0);
	errno = e;
}
