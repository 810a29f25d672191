/*
 * sym_cache.c: the persistent symbol cache.  For an ELF file with a build
 * ID, the answers the symbolizer computed (each module address's sym_result
 * and sym_frame chain, with their strings) are kept on disk as one file per
 * build ID and ying build, <dir>/<build-id>.<16 hex>.sym, and loaded when
 * the file is opened, so
 * that a run whose addresses are all known never opens the file's DWARF,
 * its separate debug file, its symbol table or its .eh_frame.
 *
 * The directory is $YING_CACHE_DIR ("off" or empty: no cache), else
 * $XDG_CACHE_HOME/ying, else $HOME/.cache/ying, created 0700 (with any
 * missing parent, 0700 too); it is not used
 * (silently) when it cannot be created, is not writable, is not owned by
 * the effective uid, or is writable by group or others.  A cache file is
 * untrusted input: its header must name the same build ID as the ELF, the
 * same file (device, inode, size, mtime and ctime of the ELF file the
 * answers were computed from: a copy of a binary with its build ID kept
 * and its names changed, looked at once, must not name the real binary
 * later; a file replaced or rewritten in place gets a new ctime), the
 * same debug-information identity (which of the file's own .debug_info,
 * .symtab and .gnu_debugdata exist, and path, inode, size and mtime of
 * every separate debug file the local search could pick: by build ID
 * under /usr/lib/debug/.build-id, by .gnu_debuglink next to the file, in
 * its .debug directory and under /usr/lib/debug) and the same identity of
 * the code holding this symbolizer (its build ID, from dl_iterate_phdr);
 * the payload checksum must match, and every count, offset and string id
 * is bounds-checked.  Anything else is ignored (and replaced at the next
 * save), never an error.  Files are written to an O_EXCL temporary in the
 * same directory and renamed, so concurrent readers see a whole file or
 * none; loads open with O_NOFOLLOW and check owner and type.  At the end
 * of a symbolize call, each file that gained results is merged with what
 * is on disk and saved; then the least recently used files (mtime, touched
 * on every load) are removed until the directory holds at most
 * $YING_CACHE_MAX bytes (default SYM_CACHE_MAX).
 */
#include <dirent.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sym_int.h"

#define CACHE_FILE_MAX ((size_t)1 << 30)

typedef struct cache_res {
	uint64_t addr, fdelta;
	uint32_t off, n;
} cache_res;

/* ---- the resolver's own identity ----------------------------------------- */

static uint64_t self_id;
static pthread_once_t self_once = PTHREAD_ONCE_INIT;

static int
self_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t me = (uintptr_t)(void *)&self_cb;
	bool mine = false;
	struct stat st;
	(void)size;

	for (int i = 0; i < info->dlpi_phnum && !mine; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		mine = ph->p_type == PT_LOAD && me >= lo && me - lo < ph->p_memsz;
	}
	if (!mine)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		size_t off = 0;
		if (ph->p_type != PT_NOTE)
			continue;
		while (off + 12 <= ph->p_memsz) {
			uint32_t nsz, dsz, type;
			memcpy(&nsz, p + off, 4);
			memcpy(&dsz, p + off + 4, 4);
			memcpy(&type, p + off + 8, 4);
			size_t name = off + 12, desc = name + ((nsz + 3u) & ~3u);
			if (desc > ph->p_memsz || dsz > ph->p_memsz - desc)
				break;
			if (type == NT_GNU_BUILD_ID && nsz == 4 && memcmp(p + name, "GNU", 4) == 0) {
				*(uint64_t *)data = yi_hash_bytes(p + desc, dsz, 0x5e1f1d);
				return 1;
			}
			off = desc + ((dsz + 3u) & ~3u);
		}
	}
	/* No build ID: the object's file (size, time) stands for the code. */
	if (stat(info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe",
	    &st) == 0) {
		uint64_t v[4] = { (uint64_t)st.st_ino, (uint64_t)st.st_size,
		    (uint64_t)st.st_mtim.tv_sec, (uint64_t)st.st_mtim.tv_nsec };
		*(uint64_t *)data = yi_hash_bytes(v, sizeof(v), 0x5e1f);
	}
	return 1;
}

static void
self_init(void)
{
	uint64_t id = 0;

	dl_iterate_phdr(self_cb, &id);
	self_id = id ^ SYM_CACHE_VERSION;
}

/* ---- the directory ---------------------------------------------------------- */

static bool
dir_ok(const char *dir)
{
	char why[PATH_MAX + 200];

	/* the one private-directory check (base_dir.c) */
	return yi_dir_private("symbol cache", dir, NULL, why, sizeof(why)) == 0;
}

/* mkdir -p, every missing component 0700; errors show in dir_ok. */
static void
mkdir_p(char *path)
{
	for (char *q = path + 1; *q; q++) {
		if (*q != '/')
			continue;
		*q = '\0';
		(void)mkdir(path, 0700);
		*q = '/';
	}
	(void)mkdir(path, 0700);
}

char *
yi_symcache_dir(void)
{
	const char *env = getenv("YING_CACHE_DIR"), *base;
	char buf[4096];
	int n;

	if (env != NULL) {
		if (env[0] == '\0' || strcmp(env, "off") == 0)
			return NULL;
		n = snprintf(buf, sizeof(buf), "%s", env);
	} else if ((base = getenv("XDG_CACHE_HOME")) != NULL && base[0] == '/') {
		n = snprintf(buf, sizeof(buf), "%s/ying", base);
	} else if ((base = getenv("HOME")) != NULL && base[0] == '/') {
		n = snprintf(buf, sizeof(buf), "%s/.cache/ying", base);
	} else {
		return NULL;
	}
	if (n <= 0 || (size_t)n >= sizeof(buf) - 200)
		return NULL;
	if (!dir_ok(buf)) {
		mkdir_p(buf);
		if (!dir_ok(buf))
			return NULL;
	}
	return yi_strdup(buf);
}

/* ---- the debug information's identity --------------------------------------- */

static uint64_t
stat_mix(uint64_t h, const char *path, bool *found)
{
	struct stat st;
	uint64_t v[5] = { 0, 0, 0, 0, 0 };

	h = yi_hash_bytes(path, strlen(path), h);
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		v[0] = (uint64_t)st.st_ino;
		v[1] = (uint64_t)st.st_size;
		v[2] = (uint64_t)st.st_mtim.tv_sec;
		v[3] = (uint64_t)st.st_mtim.tv_nsec;
		v[4] = 1;
		*found = true;
	}
	return yi_hash_bytes(v, sizeof(v), h);
}

/* Which debug information libdwfl would answer from, by cheap checks only:
 * the file's own sections (section headers, no data) and a stat of every
 * local separate debug file candidate (find_debuginfo_local's order).
 * *local: the file has symbols or DWARF of its own, or a candidate exists. */
static uint64_t
debug_identity(sym_file *f, bool *local)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(f->mod, &bias);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	uint32_t own = 0;
	uint64_t h = 0x6465627567ULL;
	const char *link;
	GElf_Word crc;
	char path[4096];

	*local = false;
	if (elf == NULL)
		return 0;
	if (elf_getshdrstrndx(elf, &shstrndx) == 0) {
		while ((scn = elf_nextscn(elf, scn)) != NULL) {
			GElf_Shdr sh;
			const char *name;
			if (gelf_getshdr(scn, &sh) == NULL ||
			    (name = elf_strptr(elf, shstrndx, sh.sh_name)) == NULL)
				continue;
			if (strcmp(name, ".debug_info") == 0)
				own |= 1u << (sh.sh_type == SHT_NOBITS ? 4 : 0);
			else if (strcmp(name, ".symtab") == 0)
				own |= 2;
			else if (strcmp(name, ".gnu_debugdata") == 0)
				own |= 4;
			else if (strcmp(name, ".gnu_debuglink") == 0)
				own |= 8;
		}
	}
	h = yi_hash_bytes(&own, sizeof(own), h);
	*local = (own & 7) != 0;
	if (f->build_id && strlen(f->build_id) > 2) {
		snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug",
		    f->build_id, f->build_id + 2);
		h = stat_mix(h, path, local);
	}
	if ((link = dwelf_elf_gnu_debuglink(elf, &crc)) != NULL && strchr(f->path, '/') != NULL) {
		h = yi_hash_bytes(&crc, sizeof(crc), h);
		for (size_t i = 0; i < SYM_DEBUGLINK_PLACES; i++)
			if (yi_debuglink_place(i, f->path, link, path, sizeof(path)))
				h = stat_mix(h, path, local);
	}
	return h;
}

/* The ELF file's own identity: the entry is bound to the very file it was
 * made from, so the build ID alone (which anyone can copy into a forged
 * binary) never makes it an answer for another file.  ctime cannot be set
 * by the file's owner, so a forged file deleted and its inode reused by a
 * real binary with the same size and mtime still differs. */
static uint64_t
file_identity(const sym_file *f)
{
	uint64_t v[7] = { (uint64_t)f->dev, (uint64_t)f->ino, (uint64_t)f->size,
	    (uint64_t)f->mtime.tv_sec, (uint64_t)f->mtime.tv_nsec,
	    (uint64_t)f->ctime.tv_sec, (uint64_t)f->ctime.tv_nsec };

	return yi_hash_bytes(v, sizeof(v), 0x66696c65);
}

/* ---- loading ------------------------------------------------------------------ */

/* <dir>/<build-id>.<resolver identity>.sym: the CLI and the agent (other
 * objects, other identities) keep entries of their own instead of
 * replacing each other's. */
static bool
cache_path(char *buf, size_t n, const char *dir, const char *bid)
{
	int k = snprintf(buf, n, "%s/%s.%016" PRIx64 ".sym", dir, bid, self_id);
	return k > 0 && (size_t)k < n;
}

static bool
bid_ok(const char *bid)
{
	size_t n = strlen(bid);

	if (n < 2 || n > SYM_CACHE_BID_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((bid[i] >= '0' && bid[i] <= '9') || (bid[i] >= 'a' && bid[i] <= 'f')))
			return false;
	return true;
}

/* Read the whole cache file at path (regular, ours, bounded); NULL if not. */
static unsigned char *
read_cache(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	unsigned char *buf = NULL;
	struct stat st;
	size_t got = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (size_t)st.st_size < sizeof(sym_cache_hdr) || (size_t)st.st_size > CACHE_FILE_MAX ||
	    (buf = yi_malloc((size_t)st.st_size)) == NULL)
		goto fail;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			goto fail;
		got += (size_t)r;
	}
	(void)futimens(fd, NULL);       /* recently used */
	close(fd);
	*len = got;
	return buf;
fail:
	yi_free(buf);
	close(fd);
	return NULL;
}

/* Check buf[0..len) completely; true when every part is sound and belongs to
 * f.  *strs gets the offset of the string area. */
static bool
cache_valid(const sym_file *f, const unsigned char *buf, size_t len, sym_cache_hdr *h)
{
	const unsigned char *p, *end;
	size_t need;

	memcpy(h, buf, sizeof(*h));
	if (memcmp(h->magic, SYM_CACHE_MAGIC, 8) != 0 || h->version != SYM_CACHE_VERSION ||
	    h->self_id != self_id || h->debug_id != f->cache_debug_id ||
	    h->file_id != f->cache_file_id ||
	    h->bid_len != strlen(f->build_id) || h->bid_len > SYM_CACHE_BID_MAX ||
	    memcmp(h->bid, f->build_id, h->bid_len) != 0 ||
	    h->nresults > SYM_MAX_ADDRS || h->nframes > (uint64_t)h->nresults * SYM_MAX_CHAIN ||
	    h->nstrs == 0 || h->strbytes > CACHE_FILE_MAX || h->nstrs > h->strbytes)
		return false;
	need = sizeof(*h) + (size_t)h->nresults * sizeof(cache_res) +
	    (size_t)h->nframes * sizeof(sym_frame) + (size_t)h->strbytes;
	if (need != len ||
	    yi_hash_bytes(buf + sizeof(*h), len - sizeof(*h), 0x79696e67) != h->checksum)
		return false;
	for (uint32_t i = 0; i < h->nresults; i++) {
		cache_res r;
		memcpy(&r, buf + sizeof(*h) + (size_t)i * sizeof(r), sizeof(r));
		if (r.n > SYM_MAX_CHAIN || r.off > h->nframes || r.n > h->nframes - r.off)
			return false;
	}
	p = buf + sizeof(*h) + (size_t)h->nresults * sizeof(cache_res);
	for (uint32_t i = 0; i < h->nframes; i++) {
		sym_frame fr;
		memcpy(&fr, p + (size_t)i * sizeof(fr), sizeof(fr));
		if (fr.name >= h->nstrs || fr.sysname >= h->nstrs || fr.file >= h->nstrs)
			return false;
	}
	/* nstrs NUL-terminated strings filling the area exactly, the first "" */
	p += (size_t)h->nframes * sizeof(sym_frame);
	end = buf + len;
	if (p == end || *p != '\0')
		return false;
	for (uint32_t i = 0; i < h->nstrs; i++) {
		const unsigned char *z = memchr(p, '\0', (size_t)(end - p));
		if (z == NULL)
			return false;
		p = z + 1;
	}
	return p == end;
}

/* Add the results of the cache file of f that f lacks.  Anything wrong
 * with the file: nothing is added.  0, or YING_ENOMEM. */
static int
cache_merge(ying_symbolizer *s, sym_file *f)
{
	char path[4096];
	unsigned char *buf;
	const unsigned char *rp, *fp, *sp;
	uint32_t *ids = NULL;
	size_t len;
	sym_cache_hdr h;
	int rc = 0;

	if (!cache_path(path, sizeof(path), s->cache_dir, f->build_id) ||
	    (buf = read_cache(path, &len)) == NULL)
		return 0;
	if (!cache_valid(f, buf, len, &h))
		goto out;
	if ((ids = yi_calloc(h.nstrs, sizeof(*ids))) == NULL) {
		rc = YING_ENOMEM;
		goto out;
	}
	rp = buf + sizeof(h);
	fp = rp + (size_t)h.nresults * sizeof(cache_res);
	sp = fp + (size_t)h.nframes * sizeof(sym_frame);
	for (uint32_t i = 0; i < h.nstrs; i++) {
		size_t n = strlen((const char *)sp);
		if ((rc = yi_strtab_intern(&f->strs, (const char *)sp, n, &ids[i])) != 0)
			goto out;
		sp += n + 1;
	}
	if (h.flags & SYM_CACHE_HAS_SYMS)
		f->cache_syms = 1;
	for (uint32_t i = 0; i < h.nresults && f->results.n < SYM_MAX_ADDRS; i++) {
		cache_res r;
		sym_result res;
		uint32_t *slot;
		bool added;
		memcpy(&r, rp + (size_t)i * sizeof(r), sizeof(r));
		if (yi_map64_get(&f->by_addr, r.addr) != NULL)
			continue;
		if ((rc = yi_vec_grow(&f->frames, r.n)) != 0 ||
		    (rc = yi_vec_grow(&f->results, 1)) != 0)
			goto out;
		res.off = (uint32_t)f->frames.n;
		res.n = r.n;
		res.fdelta = r.fdelta;
		for (uint32_t k = 0; k < r.n; k++) {
			sym_frame fr;
			memcpy(&fr, fp + ((size_t)r.off + k) * sizeof(fr), sizeof(fr));
			fr.name = ids[fr.name];
			fr.sysname = ids[fr.sysname];
			fr.file = ids[fr.file];
			f->frames.v[f->frames.n++] = fr;
		}
		if ((rc = yi_map64_put(&f->by_addr, r.addr, (uint32_t)f->results.n, &slot,
		    &added)) != 0)
			goto out;
		f->results.v[f->results.n++] = res;
	}
out:
	yi_free(ids);
	yi_free(buf);
	return rc;
}

int
yi_symcache_load(ying_symbolizer *s, sym_file *f)
{
	bool local;
	int rc;

	f->cache_syms = -1;
	if (s->cache_dir == NULL || f->build_id == NULL || !bid_ok(f->build_id))
		return 0;
	pthread_once(&self_once, self_init);
	f->cache_debug_id = debug_identity(f, &local);
	/* Asking debuginfod for a file without local debug information: its
	 * answer may change (the server learns the build ID), libdebuginfod
	 * caches what it fetched, so no entry is used or written. */
	if (f->debuginfod && !local)
		return 0;
	f->cache_file_id = file_identity(f);
	f->cache_on = true;
	rc = cache_merge(s, f);
	f->cache_saved = f->results.n;
	return rc;
}

/* ---- saving -------------------------------------------------------------------- */

typedef struct cache_ent {
	struct timespec t;
	off_t size;
	char name[256];
} cache_ent;

static int
ent_cmp(const void *a, const void *b)
{
	const cache_ent *x = a, *y = b;

	if (x->t.tv_sec != y->t.tv_sec)
		return x->t.tv_sec < y->t.tv_sec ? -1 : 1;
	if (x->t.tv_nsec != y->t.tv_nsec)
		return x->t.tv_nsec < y->t.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

static uint64_t
cache_max(void)
{
	const char *env = getenv("YING_CACHE_MAX");
	int64_t v;

	if (env == NULL || env[0] == '\0' ||
	    yi_num_int64(env, 0, INT64_MAX, &v, NULL, 0) != 0)
		return SYM_CACHE_MAX;
	return (uint64_t)v;
}

/* Remove the least recently used cache files (and temporaries older than
 * an hour) until the directory holds at most YING_CACHE_MAX bytes; keep
 * is the file just written. */
static void
evict(const char *dir, const char *keep)
{
	YI_VEC(cache_ent) ents = { NULL, 0, 0 };
	uint64_t total = 0, max = cache_max();
	struct dirent *de;
	DIR *d;
	int dfd;

	if ((d = opendir(dir)) == NULL)
		return;
	dfd = dirfd(d);
	while ((de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);
		struct stat st;
		bool tmp = n > 4 && de->d_name[0] == '.' && strcmp(de->d_name + n - 4, ".tmp") == 0;
		if (n >= sizeof(ents.v->name) || !(tmp || (n > 4 &&
		    strcmp(de->d_name + n - 4, ".sym") == 0)) ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (tmp) {
			if (st.st_mtim.tv_sec + 3600 < time(NULL))
				(void)unlinkat(dfd, de->d_name, 0);
			continue;
		}
		total += (uint64_t)st.st_size;
		if (strcmp(de->d_name, keep) == 0 || yi_vec_grow(&ents, 1) != 0)
			continue;
		ents.v[ents.n].t = st.st_mtim;
		ents.v[ents.n].size = st.st_size;
		memcpy(ents.v[ents.n].name, de->d_name, n + 1);
		ents.n++;
	}
	if (total > max && ents.n > 0) {
		qsort(ents.v, ents.n, sizeof(*ents.v), ent_cmp);
		for (size_t i = 0; i < ents.n && total > max; i++)
			if (unlinkat(dfd, ents.v[i].name, 0) == 0)
				total -= (uint64_t)ents.v[i].size;
	}
	closedir(d);
	yi_vec_free(&ents);
}

static bool
write_all(int fd, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n > 0) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		b += w;
		n -= (size_t)w;
	}
	return true;
}

/* Write f's results as its cache file (temporary + rename). */
static int
cache_write(ying_symbolizer *s, sym_file *f)
{
	static unsigned seq;
	size_t nstrs = yi_strtab_count(&f->strs), strbytes = 0, len, off;
	char path[4096], tmp[4096];
	unsigned char *buf;
	sym_cache_hdr h;
	int fd, k;

	if (nstrs > UINT32_MAX || f->frames.n > UINT32_MAX)
		return 0;
	for (size_t i = 0; i < nstrs; i++)
		strbytes += yi_strtab_len(&f->strs, (uint32_t)i) + 1;
	len = sizeof(h) + f->results.n * sizeof(cache_res) + f->frames.n * sizeof(sym_frame) +
	    strbytes;
	if (len > CACHE_FILE_MAX)
		return 0;
	if ((buf = yi_malloc(len)) == NULL)
		return YING_ENOMEM;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, SYM_CACHE_MAGIC, 8);
	h.version = SYM_CACHE_VERSION;
	h.flags = f->cache_syms > 0 ? SYM_CACHE_HAS_SYMS : 0;
	h.self_id = self_id;
	h.debug_id = f->cache_debug_id;
	h.file_id = f->cache_file_id;
	h.strbytes = strbytes;
	h.nresults = (uint32_t)f->results.n;
	h.nframes = (uint32_t)f->frames.n;
	h.nstrs = (uint32_t)nstrs;
	h.bid_len = (uint32_t)strlen(f->build_id);
	memcpy(h.bid, f->build_id, h.bid_len);
	off = sizeof(h);
	/* results in address order, so the file does not depend on the hash
	 * map's order */
	for (size_t i = 0; i < f->results.n; i++) {
		cache_res r;
		memset(&r, 0, sizeof(r));
		r.off = f->results.v[i].off;
		r.n = f->results.v[i].n;
		r.fdelta = f->results.v[i].fdelta;
		memcpy(buf + off + i * sizeof(r), &r, sizeof(r));
	}
	for (size_t i = 0; i < f->by_addr.cap; i++) {
		const yi_map64_slot *sl = &f->by_addr.slots[i];
		if (sl->val != UINT32_MAX && sl->val < f->results.n)
			memcpy(buf + off + (size_t)sl->val * sizeof(cache_res), &sl->key, 8);
	}
	off += f->results.n * sizeof(cache_res);
	if (f->frames.n)
		memcpy(buf + off, f->frames.v, f->frames.n * sizeof(sym_frame));
	off += f->frames.n * sizeof(sym_frame);
	for (size_t i = 0; i < nstrs; i++) {
		size_t n = yi_strtab_len(&f->strs, (uint32_t)i);
		memcpy(buf + off, yi_strtab_get(&f->strs, (uint32_t)i), n);
		buf[off + n] = '\0';
		off += n + 1;
	}
	h.checksum = yi_hash_bytes(buf + sizeof(h), len - sizeof(h), 0x79696e67);
	memcpy(buf, &h, sizeof(h));

	k = snprintf(tmp, sizeof(tmp), "%s/.%s.%ld.%u.tmp", s->cache_dir, f->build_id,
	    (long)getpid(), __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED));
	if (k <= 0 || (size_t)k >= sizeof(tmp) || !cache_path(path, sizeof(path), s->cache_dir,
	    f->build_id)) {
		yi_free(buf);
		return 0;
	}
	fd = yi_tmp_create(AT_FDCWD, tmp, 0600, false);
	if (fd >= 0) {
		bool ok = write_all(fd, buf, len);
		if (close(fd) != 0)
			ok = false;
		if (!ok)
			yi_tmp_discard(AT_FDCWD, tmp);
		else if (yi_tmp_commit(AT_FDCWD, tmp, path) == 0)
			evict(s->cache_dir, yi_base_name(path));
	}
	yi_free(buf);
	return 0;
}

int
yi_symcache_save(ying_symbolizer *s)
{
	int rc;

	if (s->cache_dir == NULL)
		return 0;
	for (sym_file *f = s->head; f; f = f->next) {
		if (f->gen != s->gen || !f->cache_on ||
		    (f->results.n == f->cache_saved && !f->cache_syms_new))
			continue;
		/* what other processes saved meanwhile */
		if ((rc = cache_merge(s, f)) != 0 || (rc = cache_write(s, f)) != 0)
			return rc;
		f->cache_saved = f->results.n;
		f->cache_syms_new = false;
	}
	return 0;
}
