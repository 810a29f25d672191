/*
 * test_base_tmpfile.c: write-to-temp-then-rename (base_tmpfile.c), the one
 * home of the rule the runner's files and the symbol cache use: the mode
 * (less the umask), exclusive creation that never writes through a planted
 * link (and, with `stale`, replaces the link itself, not its target), the
 * final name replaced atomically (a new file: a hard link to the old one
 * keeps the old bytes), and a failed rename or a discard that leaves no
 * temporary behind, errno kept.  All in a mktemp directory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "tap.h"

static char dir[512];   /* $TMPDIR/ying-tmpfile-XXXXXX (make check sets TMPDIR) */

static int
entries(int dfd)
{
	DIR *d = fdopendir(dup(dfd));
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void
put(int dfd, const char *name, const char *text)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || close(fd)) {
		printf("Bail out! writing %s\n", name);
		exit(1);
	}
}

static const char *
get(int dfd, const char *name)
{
	static char buf[64];
	int fd = openat(dfd, name, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n < 0 ? "(unreadable)" : buf;
}

int
main(void)
{
	struct stat st, old;
	mode_t mask;
	int dfd, fd;

	snprintf(dir, sizeof(dir), "%s/ying-tmpfile-XXXXXX",
	    getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : ".");
	if (mkdtemp(dir) == NULL || (dfd = open(dir, O_RDONLY | O_DIRECTORY)) < 0) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	mask = umask(022);

	/* the mode, less the umask */
	fd = yi_tmp_create(dfd, ".a.tmp", 0666, false);
	ok(fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & 0777) == 0644,
	    "created with the mode less the umask (0666 & ~022)");
	ok(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC), "close-on-exec");
	close(fd);
	yi_tmp_discard(dfd, ".a.tmp");
	fd = yi_tmp_create(dfd, ".b.tmp", 0600, false);
	ok(fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & 0777) == 0600, "0600 stays 0600");
	close(fd);

	/* exclusive: an existing name is refused, a planted link never followed */
	errno = 0;
	ok(yi_tmp_create(dfd, ".b.tmp", 0600, false) < 0 && errno == EEXIST,
	    "an existing temporary name: EEXIST");
	put(dfd, "victim", "precious");
	ok(symlinkat("victim", dfd, ".link.tmp") == 0, "a planted symlink");
	ok(yi_tmp_create(dfd, ".link.tmp", 0600, false) < 0, "not written through");
	fd = yi_tmp_create(dfd, ".link.tmp", 0600, true);
	ok(fd >= 0 && fstatat(dfd, ".link.tmp", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode), "stale: the link itself replaced by a new file");
	if (fd >= 0 && write(fd, "x", 1) == 1)
		close(fd);
	is_str(get(dfd, "victim"), "precious", "the link's target untouched");
	yi_tmp_discard(dfd, ".link.tmp");

	/* the final name replaced by a new file, atomically */
	put(dfd, "final", "old");
	ok(linkat(dfd, "final", dfd, "keep", 0) == 0 && fstatat(dfd, "final", &old, 0) == 0,
	    "the old file, with a second name");
	fd = yi_tmp_create(dfd, ".final.tmp", 0644, false);
	ok(fd >= 0 && write(fd, "new", 3) == 3 && close(fd) == 0, "the new content in the temporary");
	is_str(get(dfd, "final"), "old", "until the rename the final name is the old file");
	ok(yi_tmp_commit(dfd, ".final.tmp", "final") == 0, "committed");
	is_str(get(dfd, "final"), "new", "the final name has the new content");
	ok(fstatat(dfd, "final", &st, 0) == 0 && st.st_ino != old.st_ino,
	    "a new file (renamed over), not the old one rewritten");
	is_str(get(dfd, "keep"), "old", "the old file's other name keeps the old bytes");
	ok(faccessat(dfd, ".final.tmp", F_OK, 0) != 0, "no temporary left");

	/* a failed rename leaves no temporary, errno kept */
	ok(mkdirat(dfd, "adir", 0700) == 0 && mkdirat(dfd, "adir/sub", 0700) == 0, "a directory in the way");
	fd = yi_tmp_create(dfd, ".d.tmp", 0600, false);
	close(fd);
	errno = 0;
	ok(yi_tmp_commit(dfd, ".d.tmp", "adir") != 0 && (errno == EISDIR || errno == ENOTEMPTY ||
	    errno == EEXIST), "renaming over a non-empty directory fails, with the rename's errno");
	ok(faccessat(dfd, ".d.tmp", F_OK, 0) != 0, "and removes the temporary");
	errno = ENOSPC;
	yi_tmp_discard(dfd, ".nonexistent.tmp");
	is_int(errno, ENOSPC, "discard keeps errno");

	/* AT_FDCWD: paths */
	{
		char tmp[600], fin[600];
		snprintf(tmp, sizeof(tmp), "%s/.p.tmp", dir);
		snprintf(fin, sizeof(fin), "%s/p", dir);
		fd = yi_tmp_create(AT_FDCWD, tmp, 0600, false);
		ok(fd >= 0 && close(fd) == 0 && yi_tmp_commit(AT_FDCWD, tmp, fin) == 0 &&
		    access(fin, F_OK) == 0, "with AT_FDCWD the names are paths");
	}

	/* clean up: victim final keep .b.tmp adir/sub adir p */
	unlinkat(dfd, "victim", 0);
	unlinkat(dfd, "final", 0);
	unlinkat(dfd, "keep", 0);
	unlinkat(dfd, ".b.tmp", 0);
	unlinkat(dfd, "p", 0);
	unlinkat(dfd, "adir/sub", AT_REMOVEDIR);
	unlinkat(dfd, "adir", AT_REMOVEDIR);
	is_int(entries(dfd), 0, "nothing else was left in the directory");
	close(dfd);
	rmdir(dir);
	umask(mask);
	return tap_done();
}
