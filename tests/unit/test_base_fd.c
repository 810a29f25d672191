/*
 * test_base_fd.c: the descriptors libying owns across fork() (base_fd.c):
 * a registered descriptor is closed in a forked child and stays open in
 * the parent; a disowned one stays open in the child; a number that no
 * longer is the registered file (closed and reused behind the registry's
 * back) is left alone.  The child reports on a pipe; its exit status says
 * whether it ran to the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "tap.h"

static bool
is_open(int fd)
{
	return fcntl(fd, F_GETFD) != -1 || errno != EBADF;
}

int
main(void)
{
	int owned[2], kept[2], reused[2], rep[2];
	char got[4] = "???";
	pid_t pid;
	int st = 0;

	if (pipe2(owned, O_CLOEXEC) != 0 || pipe2(kept, O_CLOEXEC) != 0 ||
	    pipe2(reused, O_CLOEXEC) != 0 || pipe2(rep, O_CLOEXEC) != 0)
		return 1;
	yi_fd_own(owned[0]);
	yi_fd_own(owned[1]);
	yi_fd_own(kept[0]);
	yi_fd_disown(kept[0]);
	/* registered, then replaced by another file under the same number */
	yi_fd_own(reused[0]);
	{
		int other = open("/dev/null", O_RDONLY | O_CLOEXEC);
		ok(other >= 0 && dup3(other, reused[0], O_CLOEXEC) == reused[0],
		    "a registered number now names /dev/null");
		close(other);
	}
	pid = fork();
	if (pid == 0) {
		char r[3];
		r[0] = is_open(owned[0]) || is_open(owned[1]) ? 'o' : 'c';
		r[1] = is_open(kept[0]) ? 'k' : 'x';
		r[2] = is_open(reused[0]) ? 'r' : 'x';
		_exit(write(rep[1], r, 3) == 3 ? 0 : 1);
	}
	ok(pid > 0, "forked");
	close(rep[1]);
	ok(read(rep[0], got, 3) == 3, "the child reported");
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child exited 0");
	ok(got[0] == 'c', "child: both ends of the registered pipe are closed");
	ok(got[1] == 'k', "child: a disowned descriptor stays open");
	ok(got[2] == 'r', "child: a reused number (another file now) is left alone");
	ok(is_open(owned[0]) && is_open(owned[1]) && is_open(kept[0]),
	    "parent: everything stays open");
	yi_fd_disown(owned[0]);
	yi_fd_disown(owned[1]);
	yi_fd_disown(reused[0]);
	return tap_done();
}
