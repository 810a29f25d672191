/*
 * live_reports.c: the growth runners' report directories as the HTTP
 * endpoint reads them, so that a report's dump is a diff point of the live
 * page (GET /debug/heap/diff?base=report:NAME, /debug/heap?snapshot=
 * report:NAME) next to the named snapshots and the heap now.
 *
 * A runner registers its directory when it starts and takes it back when
 * it stops (yi_reports_add / yi_reports_remove): its realpath and the
 * device and inode it opened.  A reader names a file; only a name
 * yi_report_parse_name accepts as a set's ".heap" is looked for (so no
 * path, no other file of the directory, nothing of another program), in
 * each directory registered by this process (an entry another pid made
 * is a parent's, left behind by fork(): skipped).  The directory is
 * opened again by its realpath (O_NOFOLLOW) and must still be the one the
 * runner opened; the file is opened in it without following a link,
 * must be a regular file and at most `max` bytes.  Descriptors are the
 * reader's for the call only.  A directory in sink mode (another user's,
 * written by the keeper) is not readable here: the reader is told so.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live.h"

#define REPORT_DIRS 8

typedef struct rdir_ent {
	const void *owner;          /* the runner; NULL: a free slot */
	pid_t pid;                  /* the process that registered it */
	char *real;
	dev_t dev;
	ino_t ino;
	bool sink;
} rdir_ent;

static pthread_mutex_t reports_mtx = PTHREAD_MUTEX_INITIALIZER;
static rdir_ent reports[REPORT_DIRS];

void
yi_reports_add(const void *owner, const yi_rdir *d)
{
	char *real = d->real ? yi_strdup(d->real) : NULL;
	pid_t me = getpid();
	rdir_ent *e = NULL;

	if (real == NULL)
		return;             /* not readable from the endpoint: no harm */
	pthread_mutex_lock(&reports_mtx);
	/* a free slot, else one a parent process left behind */
	for (size_t i = 0; i < REPORT_DIRS && e == NULL; i++)
		if (reports[i].owner == NULL)
			e = &reports[i];
	for (size_t i = 0; i < REPORT_DIRS && e == NULL; i++)
		if (reports[i].pid != me)
			e = &reports[i];
	if (e != NULL) {
		yi_free(e->real);
		e->owner = owner;
		e->pid = me;
		e->real = real;
		e->dev = d->dev;
		e->ino = d->ino;
		e->sink = d->sink;
		real = NULL;
	}
	pthread_mutex_unlock(&reports_mtx);
	yi_free(real);
}

void
yi_reports_remove(const void *owner)
{
	pid_t me = getpid();

	pthread_mutex_lock(&reports_mtx);
	for (size_t i = 0; i < REPORT_DIRS; i++)
		if (reports[i].owner == owner && reports[i].pid == me) {
			yi_free(reports[i].real);
			memset(&reports[i], 0, sizeof(reports[i]));
		}
	pthread_mutex_unlock(&reports_mtx);
}

bool
yi_reports_name_ok(const char *name)
{
	size_t bl;

	return name != NULL && yi_report_parse_name(name, &bl) &&
	    strcmp(name + bl, ".heap") == 0 && strchr(name, '/') == NULL;
}

/* Read name from the directory real (dev, ino): 0; 1 when it is not
 * there (no such file, or the directory is not there any more: the next
 * directory is tried); or an error naming the file (YING_ENOTFOUND for a
 * link, not a regular file, not readable). */
static int
read_in(const char *real, dev_t dev, ino_t ino, const char *name, size_t max,
    char **data, size_t *len)
{
	struct stat st;
	size_t n = 0;
	char *buf;
	int dfd, fd, rc;

	if ((dfd = open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return errno == ENOENT || errno == ENOTDIR || errno == ELOOP ? 1 :
		    yi_error(YING_EIO, "the report directory %s: %s", real, strerror(errno));
	if (fstat(dfd, &st) != 0 || st.st_dev != dev || st.st_ino != ino) {
		close(dfd);
		return 1;                   /* replaced: not the runner's any more */
	}
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	rc = errno;
	close(dfd);
	if (fd < 0 && rc == ENOENT)
		return 1;
	if (fd < 0 && (rc == ELOOP || rc == EACCES || rc == EPERM))
		return yi_error(YING_ENOTFOUND, "%s/%s: %s", real, name, rc == ELOOP ?
		    "a symbolic link, not a report's dump" : strerror(rc));
	if (fd < 0)
		return yi_error(YING_EIO, "%s/%s: %s", real, name, strerror(rc));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return yi_error(YING_ENOTFOUND, "%s/%s: not a regular file, not a report's "
		    "dump", real, name);
	}
	if (max != 0 && (uint64_t)st.st_size > max) {
		close(fd);
		return yi_error(YING_ELIMIT, "%s/%s: %lld bytes, more than the %zu a report "
		    "point may have", real, name, (long long)st.st_size, max);
	}
	if ((buf = yi_malloc((size_t)st.st_size + 1)) == NULL) {
		close(fd);
		return yi_oom("reading a report's dump");
	}
	while (n < (size_t)st.st_size) {
		ssize_t k = read(fd, buf + n, (size_t)st.st_size - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			rc = k < 0 ? errno : 0;
			close(fd);
			yi_free(buf);
			return yi_error(YING_EIO, "%s/%s: %s", real, name, k < 0 ? strerror(rc) :
			    "shorter than it was a moment ago");
		}
		n += (size_t)k;
	}
	close(fd);
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return 0;
}

int
yi_reports_read(const char *name, size_t max, char **data, size_t *len)
{
	char *real[REPORT_DIRS] = { NULL };
	dev_t dev[REPORT_DIRS];
	ino_t ino[REPORT_DIRS];
	size_t n = 0, sinks = 0;
	pid_t me = getpid();
	int rc = 1;

	*data = NULL;
	*len = 0;
	if (!yi_reports_name_ok(name))
		return yi_error(YING_EINVAL, "%s is not the name of a report's dump "
		    "(ying.TIME.NMiB.heap, as the memory history's report events name them)",
		    name ? name : "(null)");
	/* copied out: no file is opened under the lock */
	pthread_mutex_lock(&reports_mtx);
	for (size_t i = 0; i < REPORT_DIRS; i++) {
		if (reports[i].owner == NULL || reports[i].pid != me)
			continue;
		if (reports[i].sink) {
			sinks++;
			continue;
		}
		if ((real[n] = yi_strdup(reports[i].real)) == NULL)
			continue;
		dev[n] = reports[i].dev;
		ino[n] = reports[i].ino;
		n++;
	}
	pthread_mutex_unlock(&reports_mtx);
	for (size_t i = 0; i < n && rc == 1; i++)
		rc = read_in(real[i], dev[i], ino[i], name, max, data, len);
	for (size_t i = 0; i < n; i++)
		yi_free(real[i]);
	if (rc != 1)
		return rc;
	if (n == 0 && sinks == 0)
		return yi_error(YING_ENOTFOUND, "no report %s: this process writes no growth "
		    "reports (YING_REPORT_DIR, ying run --report-dir)", name);
	if (n == 0)
		return yi_error(YING_ENOTFOUND, "no report %s here: the report directory "
		    "is written by the report keeper, not readable by this process", name);
	return yi_error(YING_ENOTFOUND, "no report %s in the report directory (removed "
	    "by its bounds, or never written)", name);
}
