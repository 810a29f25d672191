/*
 * live_ctl_dump.c: heap dumps through jemalloc's prof.dump, to a file or to
 * memory (memfd_create, then jemalloc writes to /proc/self/fd/N; fallback a
 * private 0700 directory that is removed again), serialised by one mutex.
 * Every dump ying takes (to memory or to a file) ends with one
 * "ying-build-id:" line per loaded object with a GNU build ID, read from
 * the loaded notes (dl_iterate_phdr, no file I/O), so that a later read can
 * tell whether the files on disk are the ones that ran.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live.h"
#include "read.h"
#include "live_ctl.h"

/* ---- dumps ----------------------------------------------------------------- */

/* ---- build IDs of the loaded objects -------------------------------------- */

#define BID_MAX (64u * 1024)      /* bytes of build-id lines per dump */

typedef struct bid_buf {
	char *s;
	size_t n;
	uintptr_t page;
} bid_buf;

/* The GNU build ID in the notes at [p, p + len), or NULL. */
static const unsigned char *
note_build_id(const unsigned char *p, size_t len, size_t align, size_t *idlen)
{
	size_t off = 0;

	while (len - off >= sizeof(ElfW(Nhdr))) {
		ElfW(Nhdr) nh;
		size_t name, desc;
		memcpy(&nh, p + off, sizeof(nh));
		name = ((size_t)nh.n_namesz + align - 1) & ~(align - 1);
		desc = ((size_t)nh.n_descsz + align - 1) & ~(align - 1);
		off += sizeof(nh);
		if (name > len - off || desc > len - off - name)
			return NULL;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(p + off, "GNU", 4) == 0 && nh.n_descsz > 0 && nh.n_descsz <= 64) {
			*idlen = nh.n_descsz;
			return p + off + name;
		}
		off += name + desc;
	}
	return NULL;
}

static int
bid_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	static const char hex[] = "0123456789abcdef";
	bid_buf *b = arg;
	const unsigned char *id = NULL;
	uintptr_t first = UINTPTR_MAX;
	size_t idlen = 0, i;
	char line[200];
	int n;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && ph->p_vaddr < first)
			first = ph->p_vaddr;
		if (ph->p_type == PT_NOTE && id == NULL)
			id = note_build_id((const unsigned char *)(info->dlpi_addr + ph->p_vaddr),
			    ph->p_memsz, ph->p_align == 8 ? 8 : 4, &idlen);
	}
	if (id == NULL || first == UINTPTR_MAX)
		return 0;
	n = snprintf(line, sizeof(line), YI_BUILD_ID_TAG " %lx ",
	    (unsigned long)((info->dlpi_addr + first) & ~(b->page - 1)));
	for (i = 0; i < idlen; i++) {
		line[n++] = hex[id[i] >> 4];
		line[n++] = hex[id[i] & 15];
	}
	line[n++] = '\n';
	if (b->n + (size_t)n > BID_MAX)
		return 1;               /* enough */
	memcpy(b->s + b->n, line, (size_t)n);
	b->n += (size_t)n;
	return 0;
}

/* The build-id lines for the loaded objects: *out is yi_malloc'd (may be
 * empty: *len 0). */
static int
build_id_lines(char **out, size_t *len)
{
	bid_buf b;
	long pg = sysconf(_SC_PAGESIZE);

	*out = NULL;
	*len = 0;
	if ((b.s = yi_malloc(BID_MAX)) == NULL)
		return yi_oom("listing build IDs");
	b.n = 0;
	b.page = pg > 0 ? (uintptr_t)pg : 4096;
	dl_iterate_phdr(bid_object, &b);
	*out = b.s;
	*len = b.n;
	return 0;
}

int
yi_ctl_build_id_lines(char **out, size_t *len)
{
	return build_id_lines(out, len);
}

/* Append the build-id lines to a dump held in memory (*buf of *len bytes,
 * yi_malloc'd, NUL-terminated; replaced). */
static int
append_build_ids_mem(char **buf, size_t *len)
{
	char *ids, *nb;
	size_t n, nl;
	int rc;

	if ((rc = build_id_lines(&ids, &n)) != 0)
		return rc;
	nl = *len > 0 && (*buf)[*len - 1] != '\n';
	if (n > 0) {
		if ((nb = yi_realloc(*buf, *len + nl + n + 1)) == NULL) {
			yi_free(ids);
			return yi_oom("adding build IDs to the dump");
		}
		if (nl)
			nb[(*len)++] = '\n';
		memcpy(nb + *len, ids, n);
		*len += n;
		nb[*len] = '\0';
		*buf = nb;
	}
	yi_free(ids);
	return 0;
}

int
yi_ctl_maps_text(size_t max, char **out, size_t *len)
{
	char *t = NULL;
	size_t n = 0;
	int rc;

	*out = NULL;
	if (len)
		*len = 0;
	if ((rc = yi_maps_read(NULL, max, &t, &n)) != 0)
		return rc;
	if ((rc = append_build_ids_mem(&t, &n)) != 0) {
		yi_free(t);
		return rc;
	}
	*out = t;
	if (len)
		*len = n;
	return 0;
}

/* Append the build-id lines to the dump jemalloc just wrote to path. */
static int
append_build_ids_file(const char *path)
{
	char *ids, last = '\n';
	size_t n, done = 0;
	int rc, fd;
	struct stat sb;

	if ((rc = build_id_lines(&ids, &n)) != 0)
		return rc;
	if (n == 0) {
		yi_free(ids);
		return 0;
	}
	if ((fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC)) < 0) {
		rc = yi_error(YING_EIO, "cannot add build IDs to the dump %s: %s", path,
		    strerror(errno));
		yi_free(ids);
		return rc;
	}
	if (fstat(fd, &sb) == 0 && sb.st_size > 0 &&
	    pread(fd, &last, 1, sb.st_size - 1) == 1 && last != '\n')
		(void)!write(fd, "\n", 1);
	while (done < n) {
		ssize_t w = write(fd, ids + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rc = yi_error(YING_EIO, "cannot add build IDs to the dump %s: %s",
			    path, w < 0 ? strerror(errno) : "short write");
			break;
		}
		done += (size_t)w;
	}
	close(fd);
	yi_free(ids);
	return rc;
}

/* prof.dump to path; the dump lock is held by the caller. */
static int
dump_locked(ying_mallctl_fn fn, const char *path)
{
	int e = fn("prof.dump", NULL, NULL, (void *)&path, sizeof(path));

	if (e == EFAULT)
		return yi_error(YING_EIO, "jemalloc could not write the dump to '%s' "
		    "(prof.dump: EFAULT; does the directory exist and is it writable?)",
		    path);
	if (e != 0)
		return yi_error(YING_ESYS, "mallctl(\"prof.dump\") failed: %s", strerror(e));
	return 0;
}

int
ying_ctl_dump_file(const char *path)
{
	ying_mallctl_fn fn;
	int rc;

	yi_error_clear();
	if (path == NULL || path[0] == '\0')
		return yi_error(YING_EINVAL, "dump path is empty");
	if ((rc = yi_ctl_need_prof(&fn)) != 0)
		return rc;
	pthread_mutex_lock(&yi_ctl_dump_lock);
	rc = dump_locked(fn, path);
	if (rc == 0)
		rc = append_build_ids_file(path);
	pthread_mutex_unlock(&yi_ctl_dump_lock);
	return rc;
}

/* Read all of fd from offset 0 into a new NUL-terminated buffer. */
static int
slurp_fd(int fd, char **out, size_t *len)
{
	struct stat sb;
	size_t n, got = 0;
	char *buf;

	if (fstat(fd, &sb) != 0)
		return yi_error(YING_ESYS, "fstat of the dump failed: %s", strerror(errno));
	if (sb.st_size < 0 || (uint64_t)sb.st_size >= SIZE_MAX)
		return yi_error(YING_ELIMIT, "dump too large");
	n = (size_t)sb.st_size;
	if ((buf = yi_malloc(n + 1)) == NULL)
		return yi_oom("reading a heap dump");
	while (got < n) {
		ssize_t r = pread(fd, buf + got, n - got, (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int se = errno;
			yi_free(buf);
			return yi_error(YING_EIO, "reading the dump back failed: %s",
			    r == 0 ? "short read" : strerror(se));
		}
		got += (size_t)r;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/* Dump through a private 0700 directory; nothing is left behind. */
static int
dump_via_dir(ying_mallctl_fn fn, char **out, size_t *len)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX], path[PATH_MAX + 16];
	int rc, fd;

	if (tmp == NULL || tmp[0] != '/' || strlen(tmp) > PATH_MAX - 32)
		tmp = "/tmp";
	snprintf(dir, sizeof(dir), "%s/ying-dump.XXXXXX", tmp);
	if (mkdtemp(dir) == NULL)
		return yi_error(YING_ESYS, "cannot create a private directory in %s "
		    "for the dump: %s", tmp, strerror(errno));
	snprintf(path, sizeof(path), "%s/heap", dir);
	rc = dump_locked(fn, path);
	if (rc == 0) {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			rc = yi_error(YING_EIO, "cannot open the dump %s: %s", path,
			    strerror(errno));
		else {
			rc = slurp_fd(fd, out, len);
			close(fd);
		}
	}
	unlink(path);
	rmdir(dir);
	return rc;
}

int
ying_ctl_dump_mem(char **out, size_t *len)
{
	ying_mallctl_fn fn;
	char path[64];
	int rc, fd;
	yi_fdid mid;

	yi_error_clear();
	if (out == NULL || len == NULL)
		return yi_error(YING_EINVAL, "ying_ctl_dump_mem: NULL out-parameter");
	*out = NULL;
	*len = 0;
	if ((rc = yi_ctl_need_prof(&fn)) != 0)
		return rc;
	pthread_mutex_lock(&yi_ctl_dump_lock);
	/* at a high number, checked before it is read and closed: the
	 * program may close every descriptor meanwhile and reuse the number
	 * (yi_fdid, base_fd.c) */
	fd = yi_ctl_force_dir_dump ? -1 : memfd_create("ying-heap", MFD_CLOEXEC);
	if (fd >= 0 && yi_fdid_take(&mid, fd) == 0) {
		fd = mid.fd;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		rc = dump_locked(fn, path);
		if (rc == 0 && !yi_fdid_ok(&mid))
			rc = yi_error(YING_EIO, "the program closed the heap dump's descriptor");
		else if (rc == 0)
			rc = slurp_fd(fd, out, len);
		yi_fdid_close(&mid);
		if (rc == YING_EIO && *out == NULL)   /* no /proc? use a directory */
			rc = dump_via_dir(fn, out, len);
	} else {
		rc = dump_via_dir(fn, out, len);
	}
	if (rc == 0 && (rc = append_build_ids_mem(out, len)) != 0) {
		yi_free(*out);
		*out = NULL;
		*len = 0;
	}
	pthread_mutex_unlock(&yi_ctl_dump_lock);
	return rc;
}

int
ying_ctl_dump_profile(ying_profile **out)
{
	char *buf, label[64];
	size_t len;
	int rc;

	yi_error_clear();
	if (out == NULL)
		return yi_error(YING_EINVAL, "ying_ctl_dump_profile: out is NULL");
	*out = NULL;
	if ((rc = ying_ctl_dump_mem(&buf, &len)) != 0)
		return rc;
	snprintf(label, sizeof(label), "heap dump of pid %ld", (long)getpid());
	rc = ying_profile_read_mem(out, buf, len, label);
	yi_free(buf);
	return rc;
}
