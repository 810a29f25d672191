/*
 * live_ctl_dump.c: heap dumps through jemalloc's prof.dump, to a file or to
 * memory (memfd_create, then jemalloc writes to /proc/self/fd/N; fallback a
 * private 0700 directory that is removed again), serialised by one mutex.
 * Every dump ying takes (to memory or to a file) ends with one
 * "ying-build-id:" line per loaded object with a GNU build ID, read from
 * the loaded notes (dl_iterate_phdr, no file I/O), so that a later read can
 * tell whether the files on disk are the ones that ran.  A process with
 * several profiled jemallocs (yi_ctl_heaps: a Rust program's _rjem_ one
 * and a preloaded libjemalloc for its C code) gets one dump of them all:
 * each heap dumped by its own mallctl, combined by live_ctl_heaps.c, the
 * build-id lines before the "ying-heap:" trailer.
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

static int dump_heaps_locked(const yi_ctl_heap *h, size_t nh, char **out, size_t *len);
static void dump_heaps_list(yi_ctl_heap *h, size_t *nh);

/* The combined dump to path (created 0644 as jemalloc's prof.dump does). */
static int
write_whole_file(const char *path, const char *buf, size_t len)
{
	size_t done = 0;
	int fd, rc = 0;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		return yi_error(YING_EIO, "cannot write the dump to '%s': %s", path,
		    strerror(errno));
	while (done < len) {
		ssize_t w = write(fd, buf + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rc = yi_error(YING_EIO, "cannot write the dump to '%s': %s", path,
			    w < 0 ? strerror(errno) : "short write");
			break;
		}
		done += (size_t)w;
	}
	if (close(fd) != 0 && rc == 0)
		rc = yi_error(YING_EIO, "cannot write the dump to '%s': %s", path,
		    strerror(errno));
	return rc;
}

int
ying_ctl_dump_file(const char *path)
{
	ying_mallctl_fn fn;
	yi_ctl_heap h[YI_CTL_MAX_HEAPS];
	size_t nh = 0;
	int rc;

	yi_error_clear();
	if (path == NULL || path[0] == '\0')
		return yi_error(YING_EINVAL, "dump path is empty");
	if ((rc = yi_ctl_need_prof(&fn)) != 0)
		return rc;
	dump_heaps_list(h, &nh);
	pthread_mutex_lock(&yi_ctl_dump_lock);
	if (nh > 1) {
		char *buf = NULL;
		size_t len = 0;
		if ((rc = dump_heaps_locked(h, nh, &buf, &len)) == 0)
			rc = write_whole_file(path, buf, len);
		yi_free(buf);
	} else {
		rc = dump_locked(fn, path);
		if (rc == 0)
			rc = append_build_ids_file(path);
	}
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

/* One jemalloc's dump into memory (memfd, else a private directory); the
 * dump lock is held by the caller. */
static int
dump_one_mem(ying_mallctl_fn fn, char **out, size_t *len)
{
	char path[64];
	int rc, fd;
	yi_fdid mid;

	*out = NULL;
	*len = 0;
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
	return rc;
}

/* Say once on stderr why a dump holds the first heap only. */
static void
heaps_say_once(const char *why)
{
	static atomic_bool said;

	if (!atomic_exchange(&said, true))
		fprintf(stderr, "ying: the heap dumps hold the %s heap only: %s\n",
		    "first", why);
}

/* Every heap of h[0..nh) dumped with its own mallctl and combined
 * (live_ctl_heaps.c), the build-id lines before the trailer; a heap whose
 * dump fails is left out, periods that differ keep the first heap alone
 * (both said once on stderr).  The dump lock is held by the caller. */
static int
dump_heaps_locked(const yi_ctl_heap *h, size_t nh, char **out, size_t *len)
{
	char *d[YI_CTL_MAX_HEAPS];
	size_t l[YI_CTL_MAX_HEAPS], k = 0;
	const char *names[YI_CTL_MAX_HEAPS];
	int rc = 0;

	for (size_t i = 0; i < nh && i < YI_CTL_MAX_HEAPS; i++) {
		int r = dump_one_mem(h[i].fn, &d[k], &l[k]);
		if (r != 0 && i == 0) {
			rc = r;
			break;
		}
		if (r != 0) {
			char why[300];
			snprintf(why, sizeof(why), "heap %s cannot be dumped (%s)", h[i].name,
			    ying_last_error());
			heaps_say_once(why);
			yi_error_clear();
			continue;
		}
		names[k++] = h[i].name;
	}
	if (rc == 0)
		rc = append_build_ids_mem(&d[0], &l[0]);
	if (rc == 0 && k == 1) {
		*out = d[0];
		*len = l[0];
		return 0;
	}
	if (rc == 0) {
		rc = yi_ctl_heaps_combine((const char *const *)d, l, names, k, out, len);
		if (rc == YING_ENOTSUP) {
			heaps_say_once(ying_last_error());
			yi_error_clear();
			*out = d[0];
			*len = l[0];
			d[0] = NULL;
			rc = 0;
		}
	}
	for (size_t i = 0; i < k; i++)
		yi_free(d[i]);
	return rc;
}

/* The heaps to dump: *nh > 1 when there are several (yi_ctl_heaps). */
static void
dump_heaps_list(yi_ctl_heap *h, size_t *nh)
{
	if (yi_ctl_heaps(h, nh) != 0) {
		yi_error_clear();
		*nh = 0;
	}
}

int
ying_ctl_dump_mem(char **out, size_t *len)
{
	ying_mallctl_fn fn;
	yi_ctl_heap h[YI_CTL_MAX_HEAPS];
	size_t nh = 0;
	int rc;

	yi_error_clear();
	if (out == NULL || len == NULL)
		return yi_error(YING_EINVAL, "ying_ctl_dump_mem: NULL out-parameter");
	*out = NULL;
	*len = 0;
	if ((rc = yi_ctl_need_prof(&fn)) != 0)
		return rc;
	dump_heaps_list(h, &nh);
	pthread_mutex_lock(&yi_ctl_dump_lock);
	if (nh > 1) {
		rc = dump_heaps_locked(h, nh, out, len);
	} else {
		rc = dump_one_mem(fn, out, len);
		if (rc == 0 && (rc = append_build_ids_mem(out, len)) != 0) {
			yi_free(*out);
			*out = NULL;
			*len = 0;
		}
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
