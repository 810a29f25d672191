/*
 * base_fd.c: the descriptors libying owns in this process, and their fate
 * in a forked child.
 *
 * The endpoint's listening socket, libmicrohttpd's wake-up eventfd and the
 * connections it serves, the runner's wake-up pipe: each is registered
 * here (yi_fd_own) while it is open, with its device and inode.  They are
 * all close-on-exec, so a program image reached by exec never sees them;
 * but fork() copies them, and the threads that serve them stay in the
 * parent: a child that kept the listening socket would hold the port after
 * the parent exits (clients connect and hang), one that kept a connection
 * would keep the client waiting for an answer nobody writes.  So a
 * pthread_atfork child handler, installed with the first registration,
 * closes every registered descriptor in the child (after checking that the
 * number still is the same file), and forgets them.  The table is a fixed
 * array of slots taken with atomics: no lock a forking thread could hold,
 * no allocation; a descriptor that finds no free slot (more than
 * YI_FD_SLOTS at once) is simply not tracked.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"

#define YI_FD_SLOTS 1024

typedef struct fd_slot {
	atomic_int fd;          /* -1: free; -2: being filled */
	dev_t dev;
	ino_t ino;
} fd_slot;

static fd_slot slots[YI_FD_SLOTS];
static atomic_bool slots_ready;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void
slots_init(void)
{
	for (size_t i = 0; i < YI_FD_SLOTS; i++)
		atomic_store(&slots[i].fd, -1);
	atomic_store(&slots_ready, true);
	pthread_atfork(NULL, NULL, yi_fd_close_owned);
}

void
yi_fd_own(int fd)
{
	struct stat st;

	if (fd < 0 || fstat(fd, &st) != 0)
		return;
	pthread_once(&once, slots_init);
	for (size_t i = 0; i < YI_FD_SLOTS; i++) {
		int expect = -1;
		if (atomic_compare_exchange_strong(&slots[i].fd, &expect, -2)) {
			slots[i].dev = st.st_dev;
			slots[i].ino = st.st_ino;
			atomic_store(&slots[i].fd, fd);
			return;
		}
	}
}

void
yi_fd_disown(int fd)
{
	if (fd < 0 || !atomic_load(&slots_ready))
		return;
	for (size_t i = 0; i < YI_FD_SLOTS; i++) {
		int expect = fd;
		if (atomic_compare_exchange_strong(&slots[i].fd, &expect, -1))
			return;
	}
}

void
yi_fd_close_owned(void)
{
	if (!atomic_load(&slots_ready))
		return;
	for (size_t i = 0; i < YI_FD_SLOTS; i++) {
		int fd = atomic_load(&slots[i].fd);
		struct stat st;
		if (fd == -2)
			atomic_store(&slots[i].fd, -1);   /* forked mid-registration */
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && st.st_dev == slots[i].dev &&
		    st.st_ino == slots[i].ino)
			close(fd);
		atomic_store(&slots[i].fd, -1);
	}
}
