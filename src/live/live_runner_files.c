/*
 * live_runner_files.c: the growth runner's files on disk: directories,
 * writing a set atomically (hidden temporary names, each fsync'd, renamed
 * when the whole set was written, the .report last, then the directory
 * fsync'd: a set on disk is whole even after a SIGKILL or a crash right
 * after it), and bounding the directory (oldest
 * sets first, touching only names that parse as ours: live_runner_names.c).
 *
 * The runner holds its report directory open from the start (yi_rdir: an
 * O_DIRECTORY|O_NOFOLLOW descriptor, registered with yi_fd_own) and
 * creates, renames and removes every file relative to it (openat,
 * renameat, unlinkat; temporaries through base_tmpfile.c's yi_tmp_create,
 * yi_tmp_commit and yi_tmp_discard), so a directory removed and replaced by someone else
 * (or by a symlink) is never written into.  yi_rdir_check, before each
 * report, says whether the descriptor is still the directory it opened
 * (a program that closes its descriptors may have closed or reused the
 * number: it is then reopened by name only if the name still leads to the
 * same directory) and the name still leads to it, still private.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "live_runner.h"
#include "model.h"

#define RUNNER_MAX_ENTRIES 100000  /* directory entries considered by prune */
#define REPORT_MAX_FRAMES 10       /* frames printed per stack */
#define PROGRAM_MAX 512            /* program label length */


/* ---- the program ------------------------------------------------------------ */

/* "/usr/bin/redis-server *:6379": the executable and its arguments. */
char *
yi_runner_program_label(void)
{
	char exe[PATH_MAX], buf[PROGRAM_MAX], cmd[PROGRAM_MAX], *out;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1), r = 0;
	size_t len, k;
	int fd;

	if (n <= 0)
		snprintf(exe, sizeof(exe), "(unknown program)");
	else
		exe[n] = '\0';
	len = strnlen(exe, sizeof(buf) - 1);
	memcpy(buf, exe, len);
	buf[len] = '\0';
	if ((fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC)) >= 0) {
		r = read(fd, cmd, sizeof(cmd) - 1);
		close(fd);
	}
	if (r > 0) {
		cmd[r] = '\0';
		/* skip argv[0]; NULs separate the arguments */
		for (k = strlen(cmd) + 1; k < (size_t)r && len + 2 < sizeof(buf); k++) {
			char c = cmd[k];
			if (k > 0 && cmd[k - 1] == '\0')
				buf[len++] = ' ';
			if (c != '\0' && len + 1 < sizeof(buf))
				buf[len++] = (unsigned char)c < ' ' ? '?' : c;
		}
		while (len > 0 && buf[len - 1] == ' ')
			len--;
		buf[len] = '\0';
	}
	if ((out = yi_strdup(buf)) == NULL)
		yi_oom("copying the program name");
	return out;
}

/* ---- directories ------------------------------------------------------------ */

int
yi_mkdir_p(const char *dir)
{
	char *path, *s, why[PATH_MAX + 200];
	struct stat st;
	int rc = 0;

	if (dir == NULL || dir[0] == '\0')
		return yi_error(YING_EINVAL, "no directory given");
	if ((path = yi_strdup(dir)) == NULL)
		return yi_oom("copying a directory name");
	for (s = path + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;
			*s = '\0';
			if (mkdir(path, 0700) != 0 && errno != EEXIST) {
				rc = yi_error(YING_EIO, "cannot create directory %s: %s",
				    path, strerror(errno));
				break;
			}
			*s = c;
			if (c == '\0')
				break;
		}
	}
	/* Reports hold the command line and the memory map: a directory that
	 * someone else owns or may write into could let them read or replace
	 * them (a pre-created /tmp name, for instance): the one check,
	 * base_dir.c. */
	if (rc == 0) {
		/* a symlink the user gave is resolved (yi_rdir_open holds the
		 * directory it names); the check is on that directory */
		char *real = realpath(dir, NULL);
		if (yi_dir_private("report directory", real ? real : dir, &st, why,
		    sizeof(why)) != 0)
			rc = yi_error(YING_EIO, "%s", why);
		free(real);
	}
	yi_free(path);
	return rc;
}

/* ---- the report directory, held open ---------------------------------------- */

/* Open path as a directory (never through a symlink at its last step) at
 * a high number (yi_fd_high: out of the way of a program that closes and
 * reuses its low descriptors); its device and inode in *st.  -1 and errno
 * on failure. */
static int
dir_open(const char *path, struct stat *st)
{
	int fd = yi_fd_high(open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));

	if (fd >= 0 && fstat(fd, st) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		fd = -1;
	}
	return fd;
}

/* Private to this process's user, checked on the open directory itself.
 * One that belongs to another user because this process switched user
 * (setuid after start) says how to keep the reports. */
static int
dir_private(const char *path, const struct stat *st)
{
	if (st->st_uid != geteuid()) {
		struct passwd pw, *res = NULL;
		char buf[1024];
		uid_t u = geteuid();
		if (getpwuid_r(u, &pw, buf, sizeof(buf), &res) != 0)
			res = NULL;
		return yi_error(YING_EIO, "pid %ld runs as user %s (uid %ld) and cannot "
		    "write report directory %s, which belongs to uid %ld; run it under "
		    "`ying run` (which keeps the reports of a process that switches "
		    "user), or give --report-dir a directory owned by %s with `ying run "
		    "--user %s`", (long)getpid(), res ? res->pw_name : "?", (long)u, path,
		    (long)st->st_uid, res ? res->pw_name : "that user",
		    res ? res->pw_name : "NAME");
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return yi_error(YING_EIO, "report directory %s is now writable by %s "
		    "(mode %03o)", path, (st->st_mode & S_IWOTH) ? "other users" :
		    "its group", (unsigned)(st->st_mode & 07777));
	return 0;
}

/* d in sink mode: its files go to the keeper (live_sink.c) as
 * yi_sink_path(path)/NAME.  0, or rc (the reason it could not be used
 * directly) when there is no keeper. */
static int
rdir_to_sink(yi_rdir *d, const char *path, int rc)
{
	char *abs;

	if (!yi_sink_ok() || (abs = yi_sink_path(path)) == NULL)
		return rc;
	if (d->fd >= 0) {
		yi_fd_disown(d->fd);
		close(d->fd);
	}
	d->fd = YI_RDIR_SINK;
	free(d->real);
	d->real = abs;
	if (d->path == NULL && (d->path = yi_strdup(path)) == NULL) {
		free(d->real);
		d->real = NULL;
		d->fd = -1;
		return yi_oom("the report directory");
	}
	d->sink = true;
	yi_error_clear();
	return 0;
}

int
yi_rdir_open(yi_rdir *d, const char *path)
{
	struct stat st;
	int rc;

	d->fd = -1;
	d->path = d->real = NULL;
	d->sink = false;
	if ((rc = yi_mkdir_p(path)) != 0)
		return rdir_to_sink(d, path, rc);
	if ((d->path = yi_strdup(path)) == NULL)
		return yi_oom("opening the report directory");
	/* The name a replacement would take: the directory's own, once any
	 * symlink the user gave (or above it) is resolved. */
	if ((d->real = realpath(path, NULL)) == NULL) {
		rc = yi_error(YING_EIO, "cannot resolve report directory %s: %s", path,
		    strerror(errno));
		yi_rdir_close(d);
		return rdir_to_sink(d, path, rc);
	}
	if ((d->fd = dir_open(d->real, &st)) < 0) {
		rc = yi_error(YING_EIO, "cannot open report directory %s: %s", path,
		    strerror(errno));
		yi_rdir_close(d);
		return rdir_to_sink(d, path, rc);
	}
	d->dev = st.st_dev;
	d->ino = st.st_ino;
	if ((rc = dir_private(path, &st)) != 0) {
		char *p = yi_strdup(path);
		yi_rdir_close(d);
		rc = p ? rdir_to_sink(d, p, rc) : rc;
		yi_free(p);
		return rc;
	}
	yi_fd_own(d->fd);
	return 0;
}

int
yi_rdir_check(yi_rdir *d)
{
	struct stat st, at;
	int fd;

	if (d->path == NULL)
		return yi_error(YING_EINVAL, "no report directory");
	if (d->sink)
		return yi_sink_ok() ? 0 : yi_error(YING_EIO, "the report keeper of %s "
		    "(ying run) is gone", d->path);
	/* A number the program closed (and perhaps reused) is not ours any
	 * more: forget it without closing it. */
	if (d->fd >= 0 && (fstat(d->fd, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    st.st_dev != d->dev || st.st_ino != d->ino)) {
		yi_fd_disown(d->fd);
		d->fd = -1;
	}
	if (d->fd < 0) {
		if ((fd = dir_open(d->real, &st)) < 0)
			return yi_error(YING_EIO, "report directory %s is gone (%s)",
			    d->path, strerror(errno));
		if (st.st_dev != d->dev || st.st_ino != d->ino) {
			close(fd);
			return yi_error(YING_EIO, "report directory %s was replaced by "
			    "another directory", d->path);
		}
		d->fd = fd;
		yi_fd_own(fd);
	}
	if (st.st_nlink == 0)
		return yi_error(YING_EIO, "report directory %s was removed", d->path);
	if (lstat(d->real, &at) != 0)
		return yi_error(YING_EIO, "report directory %s was removed or moved "
		    "away (%s)", d->path, strerror(errno));
	if (!S_ISDIR(at.st_mode) || at.st_dev != d->dev || at.st_ino != d->ino)
		return yi_error(YING_EIO, "report directory %s was replaced (by %s)",
		    d->path, S_ISLNK(at.st_mode) ? "a symlink" : S_ISDIR(at.st_mode) ?
		    "another directory" : "something else");
	if (st.st_uid != geteuid()) {
		/* this process switched user: the keeper writes for it */
		int rc = dir_private(d->path, &st);
		yi_fd_disown(d->fd);
		close(d->fd);
		d->fd = -1;
		return rdir_to_sink(d, d->path, rc);
	}
	return dir_private(d->path, &st);
}

void
yi_rdir_close(yi_rdir *d)
{
	struct stat st;

	/* close the number only if it still is our directory */
	d->sink = false;
	if (d->fd >= 0) {
		yi_fd_disown(d->fd);
		if (fstat(d->fd, &st) == 0 && st.st_dev == d->dev && st.st_ino == d->ino)
			close(d->fd);
	}
	d->fd = -1;
	free(d->real);              /* realpath's */
	yi_free(d->path);
	d->path = d->real = NULL;
}

/* A new descriptor for reading the directory (its own offset), or -1. */
static DIR *
dir_list(int dfd)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return NULL;
	if ((d = fdopendir(fd)) == NULL)
		close(fd);
	return d;
}

/* Remove ".ying-tmp.<pid>.*" files left by processes that are gone (or by
 * an earlier program image of this very pid). */
void
yi_clean_stale_tmp(const yi_rdir *rd)
{
	DIR *d = dir_list(rd->fd);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		long pid;
		char *end;

		if (strncmp(e->d_name, ".ying-tmp.", 10) != 0)
			continue;
		pid = strtol(e->d_name + 10, &end, 10);
		if (end == e->d_name + 10 || *end != '.')
			continue;
		if (pid != (long)getpid() && (pid <= 0 || kill((pid_t)pid, 0) == 0 ||
		    errno != ESRCH))
			continue;
		unlinkat(rd->fd, e->d_name, 0);
	}
	closedir(d);
}

/* ---- atomic report sets ----------------------------------------------------- */

typedef struct afile {
	int dfd;                   /* the directory */
	const char *dir;           /* its name, for messages */
	char tmp[NAME_MAX + 1];    /* names in it */
	char final[NAME_MAX + 1];
	FILE *f;
	int mfd;                   /* sink mode (dfd YI_RDIR_SINK): the memfd */
	bool done;                 /* renamed into place (or handed over) */
} afile;

static int
afile_open(afile *a, int dfd, const char *dir, const char *base, const char *ext)
{
	int fd;

	a->f = NULL;
	a->mfd = -1;
	a->done = false;
	a->dfd = dfd;
	a->dir = dir;
	if ((size_t)snprintf(a->tmp, sizeof(a->tmp), ".ying-tmp.%ld.%s%s",
	    (long)getpid(), base, ext) >= sizeof(a->tmp) ||
	    (size_t)snprintf(a->final, sizeof(a->final), "%s%s", base, ext) >=
	    sizeof(a->final))
		return yi_error(YING_EINVAL, "report name too long in %s", dir);
	/* Exclusively: never write through a name that exists already (a link
	 * to another file).  One left by an earlier image of this pid is
	 * removed (the link itself, not what it points to) and made anew. */
	if (dfd == YI_RDIR_SINK) {
		/* written in memory, handed to the keeper when renamed */
		if ((a->mfd = memfd_create("ying-report", MFD_CLOEXEC)) < 0 ||
		    (fd = fcntl(a->mfd, F_DUPFD_CLOEXEC, 0)) < 0) {
			int e = errno;
			if (a->mfd >= 0)
				close(a->mfd);
			a->mfd = -1;
			return yi_error(YING_EIO, "cannot make a memory file for %s/%s: %s",
			    dir, a->final, strerror(e));
		}
		if ((a->f = fdopen(fd, "wb")) == NULL) {
			int e = errno;
			close(fd);
			close(a->mfd);
			a->mfd = -1;
			return yi_error(YING_EIO, "cannot open a memory file: %s", strerror(e));
		}
		return 0;
	}
	fd = yi_tmp_create(dfd, a->tmp, 0600, true);
	if (fd < 0)
		return yi_error(YING_EIO, "cannot create %s/%s: %s", dir, a->tmp,
		    strerror(errno));
	if ((a->f = fdopen(fd, "wb")) == NULL) {
		int e = errno;
		close(fd);
		yi_tmp_discard(dfd, a->tmp);
		return yi_error(YING_EIO, "cannot open %s/%s: %s", dir, a->tmp, strerror(e));
	}
	return 0;
}

/* Close the temporary file; 0 when everything reached the disk (fsync: a
 * set renamed into place survives a SIGKILL, an OOM kill or a crash
 * right after; a memory file for the keeper is the keeper's to sync). */
static int
afile_close(afile *a, int rc)
{
	if (a->f == NULL)
		return rc;
	if (fflush(a->f) != 0 && rc == 0)
		rc = yi_error(YING_EIO, "cannot write %s/%s: %s", a->dir, a->tmp,
		    strerror(errno));
	if (rc == 0 && a->dfd != YI_RDIR_SINK && fsync(fileno(a->f)) != 0 && errno != EINVAL)
		rc = yi_error(YING_EIO, "cannot sync %s/%s: %s", a->dir, a->tmp,
		    strerror(errno));
	if (ferror(a->f) && rc == 0)
		rc = yi_error(YING_EIO, "cannot write %s/%s", a->dir, a->tmp);
	if (fclose(a->f) != 0 && rc == 0)
		rc = yi_error(YING_EIO, "cannot write %s/%s: %s", a->dir, a->tmp,
		    strerror(errno));
	a->f = NULL;
	return rc;
}

static int
afile_rename(afile *a)
{
	if (a->dfd == YI_RDIR_SINK) {
		int rc = yi_sink_put(a->dir, a->final, a->mfd);
		close(a->mfd);
		a->mfd = -1;
		a->done = rc == 0;
		return rc;
	}
	if (yi_tmp_commit(a->dfd, a->tmp, a->final) != 0)
		return yi_error(YING_EIO, "cannot rename %s/%s to %s: %s", a->dir, a->tmp,
		    a->final, strerror(errno));
	a->done = true;
	return 0;
}

static void
afile_discard(afile *a)
{
	if (a->f) {
		fclose(a->f);
		a->f = NULL;
	}
	if (a->dfd == YI_RDIR_SINK) {
		/* a file handed over stays (the keeper has it) */
		if (a->mfd >= 0)
			close(a->mfd);
		a->mfd = -1;
		return;
	}
	if (a->done)
		unlinkat(a->dfd, a->final, 0);
	else
		yi_tmp_discard(a->dfd, a->tmp);
}

/* Open dir for one call of the entry points that take its name. */
static int
with_dir(const char *dir, int *fd)
{
	struct stat st;

	if (dir == NULL)
		return yi_error(YING_EINVAL, "no report directory");
	if ((*fd = dir_open(dir, &st)) < 0)
		return yi_error(YING_EIO, "cannot open directory %s: %s", dir,
		    strerror(errno));
	return 0;
}

int
yi_runner_write_set(const char *dir, const char *base, const ying_profile *p,
    double total, const char *dump, size_t len, const yi_report_meta *m)
{
	int fd, rc;

	if ((rc = with_dir(dir, &fd)) != 0)
		return rc;
	rc = yi_runner_write_set_at(fd, dir, base, p, total, dump, len, m);
	close(fd);
	return rc;
}

int
yi_runner_write_set_at(int dfd, const char *dir, const char *base, const ying_profile *p,
    double total, const char *dump, size_t len, const yi_report_meta *m)
{
	enum { F_HEAP, F_PPROF, F_SVG, F_GIANT, F_REPORT, F_N };
	static const char *const ext[F_N] = { ".heap", ".pb.gz", ".svg", ".giant.json",
	    ".report" };
	bool skip[F_N] = { false };
	afile *f;
	int rc = 0, i, opened = 0;

	if (dir == NULL || base == NULL || p == NULL || m == NULL ||
	    (dump == NULL && len))
		return yi_error(YING_EINVAL, "yi_runner_write_set: NULL argument");
	if ((f = yi_calloc(F_N, sizeof(*f))) == NULL)
		return yi_oom("writing a report set");
	skip[F_GIANT] = m->giant_json == NULL;   /* no YING_GIANT */
	skip[F_HEAP] = m->heap_written;          /* a limit report's, first */
	for (i = 0; i < F_N && rc == 0; i++) {
		if (skip[i]) {
			opened = i + 1;
			continue;
		}
		if ((rc = afile_open(&f[i], dfd, dir, base, ext[i])) != 0)
			break;
		opened = i + 1;
		switch (i) {
		case F_HEAP:
			rc = ying_write_file(f[i].f, dump, len);
			break;
		case F_PPROF:
			rc = yi_pprof_write(p, NULL, ying_write_file, f[i].f);
			break;
		case F_SVG: {
			ying_svg_opts so = YING_SVG_OPTS_INIT;
			char title[256], ts[48], b1[32];
			const char *prog = m->program ? m->program : "";
			const char *pb = strrchr(prog, '/');
			pb = pb ? pb + 1 : prog;
			yi_report_iso_time(ts, sizeof(ts), m->time, false);
			snprintf(title, sizeof(title), "%.*s (pid %ld): live heap %s at %s",
			    (int)strcspn(pb, " "), pb, m->pid,
			    yi_fmt_bytes(total, b1, sizeof(b1)), ts);
			so.title = title;
			rc = yi_write_svg(p, &so, ying_write_file, f[i].f);
			break;
		}
		case F_GIANT:
			rc = ying_write_file(f[i].f, m->giant_json, m->giant_len);
			break;
		case F_REPORT: {
			yi_report_meta mm = *m;
			mm.base = base;
			rc = yi_runner_write_report(p, total, &mm, ying_write_file, f[i].f);
			break;
		}
		}
		rc = afile_close(&f[i], rc);
	}
	/* Everything is written: rename into place, the .report last, and
	 * sync the directory (the names are on disk before the next set). */
	for (i = 0; i < F_N && rc == 0; i++) {
		if (skip[i])
			continue;
		rc = afile_rename(&f[i]);
	}
	if (rc == 0 && dfd != YI_RDIR_SINK && fsync(dfd) != 0 && errno != EINVAL)
		rc = yi_error(YING_EIO, "cannot sync the directory %s: %s", dir,
		    strerror(errno));
	if (rc != 0)
		for (i = 0; i < opened; i++)
			if (!skip[i])
				afile_discard(&f[i]);
	yi_free(f);
	return rc;
}

/* ---- bounding the directory ------------------------------------------------- */

typedef struct rfile {
	char *name;
	size_t base_len;
	uint64_t size;
	int64_t mtime;
} rfile;

typedef struct rset {
	size_t first, n;           /* files [first, first+n) of the sorted list */
	uint64_t bytes;
	int64_t mtime;             /* newest file */
} rset;

static int
cmp_rfile(const void *a, const void *b)
{
	const rfile *x = a, *y = b;
	size_t n = x->base_len < y->base_len ? x->base_len : y->base_len;
	int c = memcmp(x->name, y->name, n);

	if (c != 0)
		return c;
	if (x->base_len != y->base_len)
		return x->base_len < y->base_len ? -1 : 1;
	/* within a set, the .report first: it is removed first */
	c = (strcmp(x->name + x->base_len, ".report") != 0) -
	    (strcmp(y->name + y->base_len, ".report") != 0);
	return c ? c : strcmp(x->name, y->name);
}

static const rfile *cmp_rset_files;

static int
cmp_rset(const void *a, const void *b)
{
	const rset *x = a, *y = b;
	const rfile *fx = &cmp_rset_files[x->first], *fy = &cmp_rset_files[y->first];

	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(fx->name, fy->name);
}

static pthread_mutex_t prune_lock = PTHREAD_MUTEX_INITIALIZER;

int
yi_runner_prune(const char *dir, unsigned max_sets, uint64_t max_bytes,
    const char *keep)
{
	int fd, rc;

	if (dir != NULL && max_sets == 0 && max_bytes == 0)
		return 0;
	if ((rc = with_dir(dir, &fd)) != 0)
		return rc;
	rc = yi_runner_prune_at(fd, dir, max_sets, max_bytes, keep);
	close(fd);
	return rc;
}

int
yi_runner_prune_at(int dfd, const char *dir, unsigned max_sets, uint64_t max_bytes,
    const char *keep)
{
	YI_VEC(rfile) files = { NULL, 0, 0 };
	YI_VEC(rset) sets = { NULL, 0, 0 };
	DIR *d;
	struct dirent *e;
	uint64_t bytes = 0;
	size_t i, nsets, keep_len = keep ? strlen(keep) : 0;
	int rc = 0, removed = 0;

	if (dir == NULL)
		return yi_error(YING_EINVAL, "yi_runner_prune: no directory");
	if (max_sets == 0 && max_bytes == 0)
		return 0;
	if (dfd == YI_RDIR_SINK)     /* the keeper lists and removes */
		return yi_sink_prune(dir, max_sets, max_bytes, keep);
	if ((d = dir_list(dfd)) == NULL)
		return yi_error(YING_EIO, "cannot read directory %s: %s", dir, strerror(errno));
	while ((e = readdir(d)) != NULL && files.n < RUNNER_MAX_ENTRIES) {
		struct stat st;
		size_t bl;

		if (!yi_report_parse_name(e->d_name, &bl))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if ((rc = yi_vec_grow(&files, 1)) != 0)
			break;
		if ((files.v[files.n].name = yi_strdup(e->d_name)) == NULL) {
			rc = yi_oom("listing report files");
			break;
		}
		files.v[files.n].base_len = bl;
		files.v[files.n].size = (uint64_t)st.st_size;
		files.v[files.n].mtime = (int64_t)st.st_mtime;
		files.n++;
	}
	closedir(d);
	if (rc != 0)
		goto out;
	qsort(files.v, files.n, sizeof(*files.v), cmp_rfile);
	for (i = 0; i < files.n; i++) {
		rfile *f = &files.v[i];
		rset *s = sets.n ? &sets.v[sets.n - 1] : NULL;

		if (s == NULL || files.v[s->first].base_len != f->base_len ||
		    memcmp(files.v[s->first].name, f->name, f->base_len) != 0) {
			if ((rc = yi_vec_grow(&sets, 1)) != 0)
				goto out;
			s = &sets.v[sets.n++];
			s->first = i;
			s->n = 0;
			s->bytes = 0;
			s->mtime = INT64_MIN;
		}
		s->n++;
		s->bytes += f->size;
		if (f->mtime > s->mtime)
			s->mtime = f->mtime;
		bytes += f->size;
	}
	/* qsort's comparator needs the file list; the lock keeps two runners
	 * in one process from racing on that static. */
	pthread_mutex_lock(&prune_lock);
	cmp_rset_files = files.v;
	qsort(sets.v, sets.n, sizeof(*sets.v), cmp_rset);
	cmp_rset_files = NULL;
	pthread_mutex_unlock(&prune_lock);
	nsets = sets.n;
	for (i = 0; i < sets.n; i++) {
		rset *s = &sets.v[i];
		const rfile *f0 = &files.v[s->first];
		size_t k;

		if (!((max_sets && nsets > max_sets) || (max_bytes && bytes > max_bytes)))
			break;
		if (keep && f0->base_len == keep_len && memcmp(f0->name, keep, keep_len) == 0)
			continue;
		for (k = 0; k < s->n; k++)
			unlinkat(dfd, files.v[s->first + k].name, 0);
		nsets--;
		bytes -= s->bytes;
		removed++;
	}
out:
	for (i = 0; i < files.n; i++)
		yi_free(files.v[i].name);
	yi_vec_free(&files);
	yi_vec_free(&sets);
	return rc != 0 ? rc : removed;
}

/* The set's recent allocations (BASE.recent.json, ying_ctl_recent_dump's
 * capture), written atomically before the rest of the set when jemalloc
 * keeps recent records (experimental.prof_recent.alloc_max not 0:
 * YING_RECENT_MAX); nothing otherwise (0, *written false). */
int
yi_runner_write_recent(int dfd, const char *dir, const char *base, bool *written)
{
	afile a;
	int64_t max = 0;
	int rc;

	*written = false;
	memset(&a, 0, sizeof(a));
	if (ying_ctl_recent_max(&max, YING_RECENT_KEEP) != 0 || max == 0) {
		yi_error_clear();
		return 0;
	}
	if ((rc = afile_open(&a, dfd, dir, base, ".recent.json")) != 0)
		return rc;
	rc = ying_ctl_recent_dump(ying_write_file, a.f);
	if ((rc = afile_close(&a, rc)) == 0)
		rc = afile_rename(&a);
	if (rc != 0) {
		afile_discard(&a);
		return rc;
	}
	*written = true;
	return 0;
}

int
yi_runner_write_heap(int dfd, const char *dir, const char *base, const char *dump,
    size_t len)
{
	afile a;
	int rc;

	memset(&a, 0, sizeof(a));
	if ((rc = afile_open(&a, dfd, dir, base, ".heap")) != 0)
		return rc;
	rc = ying_write_file(a.f, dump, len);
	if ((rc = afile_close(&a, rc)) == 0)
		rc = afile_rename(&a);
	if (rc == 0 && dfd != YI_RDIR_SINK && fsync(dfd) != 0 && errno != EINVAL)
		rc = yi_error(YING_EIO, "cannot sync the directory %s: %s", dir,
		    strerror(errno));
	if (rc != 0)
		afile_discard(&a);
	return rc;
}
