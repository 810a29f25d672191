/*
 * base_dir.c: the one private-directory check (base_dir.h).  The report
 * directory, the symbol cache and `ying run`'s ./ying-reports hold the
 * command line, the memory map and symbols: a directory someone else owns
 * or may write into (a pre-created /tmp name, a symlink planted there)
 * could let them read or replace what ying writes.  libc only, no error
 * state: the reason goes into the caller's buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base_dir.h"

int
YI_DIR_NAME(private)(const char *what, const char *path, struct stat *out, char *why,
    size_t wn)
{
	struct stat st;
	int fd, rc = -1;

	if (why && wn)
		why[0] = '\0';
	if (path == NULL || path[0] == '\0') {
		snprintf(why, wn, "%s: no directory given", what);
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		snprintf(why, wn, "%s %s: %s", what, path, errno == ELOOP ?
		    "a symbolic link (give the directory itself)" : errno == ENOTDIR ?
		    "not a directory" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0)
		snprintf(why, wn, "%s %s: %s", what, path, strerror(errno));
	else if (st.st_uid != geteuid())
		snprintf(why, wn, "refusing %s %s: it belongs to uid %ld, not to this "
		    "process (uid %ld)", what, path, (long)st.st_uid, (long)geteuid());
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		snprintf(why, wn, "refusing %s %s: mode %03o lets %s write into it "
		    "(chmod go-w, or use another directory)", what, path,
		    (unsigned)(st.st_mode & 07777),
		    (st.st_mode & S_IWOTH) ? "other users" : "its group");
	else if (faccessat(fd, ".", W_OK | X_OK, AT_EACCESS) != 0)
		snprintf(why, wn, "cannot write into %s %s: %s", what, path, strerror(errno));
	else
		rc = 0;
	if (rc == 0 && out)
		*out = st;
	close(fd);
	return rc;
}
