/*
 * live_fd.c: the descriptors the live runtime owns in this process, and
 * their fate in a forked child.
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
 *
 * The host may also close them under us: daemons and sandboxes close every
 * descriptor >= 3 (a loop to 1024, close_range, closefrom) and open their
 * own files, which take the lowest free numbers.  A long-lived descriptor
 * is therefore a yi_fdid: moved to a high number when taken (out of reach
 * of the loops to 1024 and of the host's next open) and checked against
 * its device and inode before every use; a descriptor that fails the check
 * is lost and never touched again (its number may be the host's file).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live.h"

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

bool
yi_fd_disown_same(int fd)
{
	struct stat st;

	if (fd < 0 || !atomic_load(&slots_ready))
		return false;
	for (size_t i = 0; i < YI_FD_SLOTS; i++) {
		int expect = fd;
		dev_t dev = slots[i].dev;
		ino_t ino = slots[i].ino;
		if (atomic_load(&slots[i].fd) != fd)
			continue;
		if (atomic_compare_exchange_strong(&slots[i].fd, &expect, -1))
			return fstat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
	}
	return false;
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

int
yi_fdid_take(yi_fdid *id, int fd)
{
	struct stat st;

	id->fd = -1;
	if (fd < 0)
		return -1;
	fd = yi_fd_high(fd);
	if (fstat(fd, &st) != 0) {
		close(fd);
		return -1;
	}
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->fd = fd;
	yi_fd_own(fd);
	return 0;
}

bool
yi_fdid_ok(const yi_fdid *id)
{
	struct stat st;

	return id->fd >= 0 && fstat(id->fd, &st) == 0 && st.st_dev == id->dev &&
	    st.st_ino == id->ino;
}

/* Disown the slot of id only (its number may be registered again for
 * another file of ours once the program closed it). */
static void
disown_id(const yi_fdid *id)
{
	if (id->fd < 0 || !atomic_load(&slots_ready))
		return;
	for (size_t i = 0; i < YI_FD_SLOTS; i++) {
		int expect = id->fd;
		if (atomic_load(&slots[i].fd) != id->fd || slots[i].dev != id->dev ||
		    slots[i].ino != id->ino)
			continue;
		if (atomic_compare_exchange_strong(&slots[i].fd, &expect, -1))
			return;
	}
}

void
yi_fdid_close(yi_fdid *id)
{
	if (id->fd < 0)
		return;
	disown_id(id);
	if (yi_fdid_ok(id))
		close(id->fd);
	id->fd = -1;
}

void
yi_fdid_forget(yi_fdid *id)
{
	disown_id(id);
	id->fd = -1;
}

static pthread_mutex_t abandoned_mtx = PTHREAD_MUTEX_INITIALIZER;
static void *abandoned[YI_ABANDON_MAX];
static size_t nabandoned;

void
yi_abandon(void *obj)
{
	pthread_mutex_lock(&abandoned_mtx);
	if (nabandoned < YI_ABANDON_MAX)
		abandoned[nabandoned++] = obj;
	pthread_mutex_unlock(&abandoned_mtx);
}
