/*
 * sym_file.c: the symbolizer's per-file cache: one open libdwfl module per
 * ELF file (keyed by path, device, inode, size and mtime), least recently
 * used closed first; separate debug info found locally (build ID,
 * .gnu_debuglink), from debuginfod only when the caller asks; the file's
 * PT_LOAD segments and build ID; file offsets -> module addresses; and the
 * check that a return address is preceded by a call instruction (used to
 * tell whether a file is the one the dump mapped).
 */
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <pthread.h>
#include <regex.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "sym_int.h"

/* ---- the per-file cache ---------------------------------------------------- */

/*
 * Separate debug info is looked up locally: by build ID under
 * /usr/lib/debug/.build-id, then by .gnu_debuglink next to the file, in its
 * .debug directory and under /usr/lib/debug.  dwfl_standard_find_debuginfo
 * would also create a debuginfod client (libcurl, sockets, and network
 * requests from inside a profiled host when DEBUGINFOD_URLS is set), which
 * an in-process profiler must never do: only a caller that sets
 * ying_symbolize_opts.debuginfod gets it (find_debuginfo_remote, below).
 * libdwfl calls this only when the file itself has no DWARF.
 */
/*
 * The places a .gnu_debuglink name is looked for: beside the file, in its
 * .debug directory, under /usr/lib/debug (find_debuginfo_local's order;
 * sym_cache.c's debug identity stats the same places).  Place i of
 * SYM_DEBUGLINK_PLACES into buf; false when the path does not fit.
 */
bool
yi_debuglink_place(size_t i, const char *file, const char *link, char *buf, size_t n)
{
	static const char *const fmts[SYM_DEBUGLINK_PLACES] = {
		"%.*s/%s", "%.*s/.debug/%s", "/usr/lib/debug%.*s/%s"
	};
	const char *slash = strrchr(file, '/');
	int len;

	if (i >= SYM_DEBUGLINK_PLACES || slash == NULL)
		return false;
	len = snprintf(buf, n, fmts[i], (int)(slash - file), file, link);
	return len >= 0 && (size_t)len < n;
}

static int
find_debuginfo_local(Dwfl_Module *mod, void **userdata, const char *modname,
    GElf_Addr base, const char *file_name, const char *debuglink_file,
    GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	char path[4096];
	size_t i;
	int fd;

	fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
	    debuglink_file, debuglink_crc, debuginfo_file_name);
	if (fd >= 0 || debuglink_file == NULL || file_name == NULL)
		return fd;
	for (i = 0; i < SYM_DEBUGLINK_PLACES; i++) {
		if (!yi_debuglink_place(i, file_name, debuglink_file, path, sizeof(path)) ||
		    strcmp(path, file_name) == 0)
			continue;
		if ((fd = yi_fd_high(open(path, O_RDONLY | O_CLOEXEC))) < 0)
			continue;
		if ((*debuginfo_file_name = strdup(path)) == NULL) {
			close(fd);
			return -1;
		}
		return fd;
	}
	return -1;
}

/*
 * ying_symbolize_opts.debuginfod: after the local places, libdwfl's
 * standard lookup, which looks locally once more and then asks its
 * debuginfod client (libdwfl dlopens libdebuginfod.so.1 itself, so libying
 * neither links nor loads it; the client reads DEBUGINFOD_URLS, its cache
 * and timeout from the environment, and one is made per Dwfl, so per file).
 * Only callers that ask get this: never the runtime's.
 */
static int
find_debuginfo_remote(Dwfl_Module *mod, void **userdata, const char *modname,
    GElf_Addr base, const char *file_name, const char *debuglink_file,
    GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	int fd = find_debuginfo_local(mod, userdata, modname, base, file_name,
	    debuglink_file, debuglink_crc, debuginfo_file_name);

	if (fd >= 0)
		return fd;
	return yi_fd_high(dwfl_standard_find_debuginfo(mod, userdata, modname, base,
	    file_name, debuglink_file, debuglink_crc, debuginfo_file_name));
}

static char *debuginfo_path;   /* NULL: the standard search path */
static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo_local,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};
static const Dwfl_Callbacks dwfl_callbacks_remote = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo_remote,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

int
yi_cache_init(sym_file *f)
{
	int rc;

	memset(&f->results, 0, sizeof(f->results));
	memset(&f->frames, 0, sizeof(f->frames));
	if ((rc = yi_strtab_init(&f->strs)) != 0)
		return rc;
	if ((rc = yi_map64_init(&f->by_addr, 256)) != 0 ||
	    (rc = yi_map64_init(&f->demangled, 256)) != 0) {
		yi_map64_release(&f->by_addr);
		yi_strtab_release(&f->strs);
		return rc;
	}
	return 0;
}

void
yi_cache_release(sym_file *f)
{
	yi_strtab_release(&f->strs);
	yi_map64_release(&f->by_addr);
	yi_map64_release(&f->demangled);
	yi_vec_free(&f->results);
	yi_vec_free(&f->frames);
}

/*
 * Close what libdwfl holds for f and what points into it: the Dwfl (the
 * file's descriptor and mapping, its separate debug info and libdw's
 * decompressed sections), the symbol array (names point into the ELF) and
 * the function starts, the per-unit indexes and the demangling memo (keyed
 * by name pointers).  The
 * address cache (strs, by_addr, results, frames), the file's identity, its
 * PT_LOADs, build ID and has_dwarf stay: yi_file_reopen opens the file
 * again (checking it is the same file) when an address misses the cache.
 */
void
yi_file_close_dwfl(sym_file *f)
{
	if (f->dwfl)
		dwfl_end(f->dwfl);      /* closes the module's fd */
	f->dwfl = NULL;
	f->mod = NULL;
	for (size_t i = 0; i < f->cus.n; i++)
		yi_free(f->cus.v[i].v);
	yi_vec_free(&f->cus);
	yi_map64_release(&f->cu_by_off);
	yi_free(f->units);
	f->units = NULL;
	f->nunits = 0;
	f->units_built = false;
	yi_free(f->syms);
	f->syms = NULL;
	f->nsyms = 0;
	f->syms_loaded = false;
	f->fdes = NULL;                 /* the Elf's */
	f->nfdes = 0;
	f->fdes_built = false;
	yi_map64_release(&f->demangled);
}

static void
file_free(sym_file *f)
{
	if (f == NULL)
		return;
	yi_file_close_dwfl(f);
	yi_cache_release(f);
	yi_free(f->loads);
	yi_free(f->build_id);
	yi_free(f->path);
	yi_free(f);
}

static void
lru_unlink(ying_symbolizer *s, sym_file *f)
{
	if (f->prev)
		f->prev->next = f->next;
	else
		s->head = f->next;
	if (f->next)
		f->next->prev = f->prev;
	else
		s->tail = f->prev;
	f->prev = f->next = NULL;
	s->nfiles--;
}

static void
lru_push(ying_symbolizer *s, sym_file *f)
{
	f->prev = NULL;
	f->next = s->head;
	if (s->head)
		s->head->prev = f;
	s->head = f;
	if (s->tail == NULL)
		s->tail = f;
	s->nfiles++;
}

/* Close least recently used files beyond the cap, sparing the current
 * call's files. */
void
yi_lru_trim(ying_symbolizer *s)
{
	sym_file *f = s->tail, *prev;

	while (s->nfiles > SYM_MAX_FILES && f != NULL) {
		prev = f->prev;
		if (f->gen != s->gen) {
			lru_unlink(s, f);
			file_free(f);
		}
		f = prev;
	}
}

int
ying_symbolizer_trim(ying_symbolizer *s)
{
	/* the thread's last error stays: callers trim after failed calls */
	if (s == NULL)
		return yi_error(YING_EINVAL, "no symbolizer");
	pthread_mutex_lock(&s->lock);
	for (sym_file *f = s->head; f; f = f->next)
		yi_file_close_dwfl(f);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

int
ying_symbolizer_new(ying_symbolizer **out)
{
	ying_symbolizer *s;

	yi_error_clear();
	if (out == NULL)
		return yi_error(YING_EINVAL, "no output pointer");
	*out = NULL;
	if ((s = yi_calloc(1, sizeof(*s))) == NULL)
		return yi_oom("creating a symbolizer");
	if (pthread_mutex_init(&s->lock, NULL) != 0) {
		yi_free(s);
		return yi_error(YING_ESYS, "pthread_mutex_init failed");
	}
	*out = s;
	return 0;
}

void
ying_symbolizer_free(ying_symbolizer *s)
{
	sym_file *f, *next;

	if (s == NULL)
		return;
	for (f = s->head; f; f = next) {
		next = f->next;
		file_free(f);
	}
	pthread_mutex_destroy(&s->lock);
	yi_free(s->cache_dir);
	yi_free(s);
}

const char *
yi_base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

static int
read_loads(sym_file *f)
{
	Elf *elf = dwfl_module_getelf(f->mod, &f->bias);
	size_t n, i;

	if (elf == NULL || elf_getphdrnum(elf, &n) != 0)
		return yi_error(YING_EPARSE, "%s: %s", f->path, dwfl_errmsg(-1));
	if (n > 4096)
		n = 4096;
	if ((f->loads = yi_calloc(n ? n : 1, sizeof(*f->loads))) == NULL)
		return yi_oom("reading program headers");
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) == NULL || ph.p_type != PT_LOAD)
			continue;
		f->loads[f->nloads].offset = ph.p_offset;
		f->loads[f->nloads].filesz = ph.p_filesz;
		f->loads[f->nloads].vaddr = ph.p_vaddr;
		f->loads[f->nloads].align = ph.p_align;
		f->loads[f->nloads].flags = ph.p_flags;
		f->nloads++;
	}
	{
		GElf_Ehdr eh;
		if (gelf_getehdr(elf, &eh) != NULL)
			f->machine = eh.e_machine;
	}
	return 0;
}

/* The module's build ID in lowercase hex into *out (yi_free it; NULL when
 * it has none).  -1 when out of memory. */
static int
module_build_id(Dwfl_Module *mod, char **out)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &bits, &vaddr), i;

	*out = NULL;
	if (n <= 0)
		return 0;
	if ((*out = yi_malloc((size_t)n * 2 + 1)) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		(*out)[2 * i] = hex[bits[i] >> 4];
		(*out)[2 * i + 1] = hex[bits[i] & 15];
	}
	(*out)[2 * n] = '\0';
	return 0;
}

static int
read_build_id(sym_file *f)
{
	if (module_build_id(f->mod, &f->build_id) != 0)
		return yi_oom("reading a build ID");
	return 0;
}

/* Is st (of the file at f->path) still the file f was opened from? */
static bool
same_file(const sym_file *f, const struct stat *st)
{
	return f->dev == st->st_dev && f->ino == st->st_ino && f->size == st->st_size &&
	    f->mtime.tv_sec == st->st_mtim.tv_sec && f->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* A descriptor (close it) of the file at f->path if it is still the file f
 * was opened from; -1 when it is not or cannot be opened. */
int
yi_file_open_same(const sym_file *f)
{
	struct stat st;
	int fd = yi_fd_high(open(f->path, O_RDONLY | O_CLOEXEC));

	if (fd >= 0 && (fstat(fd, &st) != 0 || !same_file(f, &st))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * Open a trimmed file's libdwfl session again (yi_file_get leaves a trimmed
 * file closed: a pass whose addresses are all cached never needs it).  The
 * file at the path must still be the one cached: the descriptor's device,
 * inode, size and time and the build ID are checked (the path may have
 * been replaced since the caller's stat).  False when it is not, or cannot
 * be opened: the file stays closed, and the caller names its frames
 * module+0xOFFSET.
 */
bool
yi_file_reopen(sym_file *f)
{
	char *bid;
	bool same;
	int fd;

	if ((fd = yi_file_open_same(f)) < 0)
		return false;
	if ((f->dwfl = dwfl_begin(f->debuginfod ? &dwfl_callbacks_remote :
	    &dwfl_callbacks)) == NULL) {
		close(fd);
		return false;
	}
	dwfl_report_begin(f->dwfl);
	if ((f->mod = dwfl_report_elf(f->dwfl, yi_base_name(f->path), f->path, fd, 0,
	    true)) == NULL) {
		close(fd);      /* not consumed on failure */
		yi_file_close_dwfl(f);
		return false;
	}
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (dwfl_module_getelf(f->mod, &f->bias) == NULL || module_build_id(f->mod, &bid) != 0) {
		yi_file_close_dwfl(f);
		return false;
	}
	same = bid == NULL ? f->build_id == NULL :
	    f->build_id != NULL && strcmp(bid, f->build_id) == 0;
	yi_free(bid);
	if (!same)
		yi_file_close_dwfl(f);
	return same;
}

/*
 * Find or open the file at path.  Returns 0 with *out set, 0 with *out NULL
 * and why[] filled when the file cannot be used (missing, not ELF), or a
 * negative error (out of memory).
 */
int
yi_file_get(ying_symbolizer *s, const char *path, sym_file **out, char *why,
    size_t whylen)
{
	struct stat st;
	sym_file *f;
	int fd, rc;

	*out = NULL;
	if (stat(path, &st) != 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		return 0;
	}
	for (f = s->head; f; f = f->next) {
		if (strcmp(f->path, path) != 0)
			continue;
		if (same_file(f, &st)) {
			lru_unlink(s, f);
			lru_push(s, f);
			f->gen = s->gen;
			*out = f;
			return 0;
		}
		if (f->gen == s->gen) {
			/* Changed on disk during this very call: keep using
			 * the copy already open (it is referenced). */
			lru_unlink(s, f);
			lru_push(s, f);
			*out = f;
			return 0;
		}
		/* The file changed on disk: forget what we knew about it. */
		lru_unlink(s, f);
		file_free(f);
		break;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "not a regular file");
		return 0;
	}
	if (s->call_opened >= SYM_MAX_CALL_FILES) {
		snprintf(why, whylen, "more than %d modules in one profile",
		    SYM_MAX_CALL_FILES);
		return 0;
	}
	s->call_opened++;
	if ((f = yi_calloc(1, sizeof(*f))) == NULL)
		return yi_oom("opening a module");
	f->has_dwarf = -1;
	f->aranges_ok = -1;
	f->cache_syms = -1;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->size = st.st_size;
	f->mtime = st.st_mtim;
	f->ctime = st.st_ctim;
	f->gen = s->gen;
	if ((f->path = yi_strdup(path)) == NULL || (rc = yi_cache_init(f)) != 0) {
		yi_free(f->path);
		yi_free(f);
		return yi_oom("opening a module");
	}
	if ((fd = yi_fd_high(open(path, O_RDONLY | O_CLOEXEC))) < 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		file_free(f);
		return 0;
	}
	f->debuginfod = s->debuginfod;
	if ((f->dwfl = dwfl_begin(f->debuginfod ? &dwfl_callbacks_remote :
	    &dwfl_callbacks)) == NULL) {
		close(fd);
		file_free(f);
		return yi_error(YING_ENOMEM, "dwfl_begin: %s", dwfl_errmsg(-1));
	}
	dwfl_report_begin(f->dwfl);
	/* ET_DYN at base 0 with add_p_vaddr: module addresses are p_vaddrs. */
	f->mod = dwfl_report_elf(f->dwfl, yi_base_name(path), path, fd, 0, true);
	if (f->mod == NULL) {
		snprintf(why, whylen, "%s", dwfl_errmsg(-1));
		close(fd);      /* not consumed on failure */
		file_free(f);
		return 0;
	}
	dwfl_report_end(f->dwfl, NULL, NULL);
	if ((rc = read_loads(f)) != 0) {
		snprintf(why, whylen, "%s", ying_last_error());
		file_free(f);
		return rc == YING_ENOMEM ? rc : 0;
	}
	if ((rc = read_build_id(f)) != 0 || (rc = yi_symcache_load(s, f)) != 0) {
		file_free(f);
		return rc;
	}
	lru_push(s, f);
	yi_lru_trim(s);
	*out = f;
	return 0;
}

/* File offset -> module address; false when no PT_LOAD holds it. */
bool
yi_file_addr(const sym_file *f, uint64_t off, uint64_t *maddr)
{
	size_t i;

	for (i = 0; i < f->nloads; i++) {
		const sym_load *l = &f->loads[i];
		if (off >= l->offset && off - l->offset < l->filesz) {
			*maddr = off - l->offset + l->vaddr + f->bias;
			return true;
		}
	}
	/* The page-aligned slack in front of a segment. */
	for (i = 0; i < f->nloads; i++) {
		const sym_load *l = &f->loads[i];
		uint64_t a = l->align > 1 && (l->align & (l->align - 1)) == 0 ? l->align : 4096;
		if (off >= (l->offset & ~(a - 1)) && off < l->offset + l->filesz) {
			*maddr = off - l->offset + l->vaddr + f->bias;
			return true;
		}
	}
	return false;
}

/* ---- is a return address preceded by a call? ------------------------------ */

size_t
yi_call_before(unsigned machine, const unsigned char *end, size_t avail)
{
	/* x86: FF /2 (call r/m) with every ModRM/SIB/displacement size; a REX
	 * or other prefix sits in front and does not change where FF is. */
	static const size_t ff_len[] = { 2, 3, 4, 6, 7 };
	size_t i;

	if (machine == EM_X86_64 || machine == EM_386) {
		for (i = 0; i < sizeof(ff_len) / sizeof(ff_len[0]); i++) {
			size_t len = ff_len[i], n = 2;
			const unsigned char *q = end - len;
			unsigned modrm, mod, rm;
			if (avail < len || q[0] != 0xff || ((q[1] >> 3) & 7) != 2)
				continue;
			modrm = q[1];
			mod = modrm >> 6;
			rm = modrm & 7;
			if (mod != 3 && rm == 4) {        /* SIB byte */
				if (len < 3)
					continue;
				n++;
				if (mod == 0 && (q[2] & 7) == 5)
					n += 4;           /* no base: disp32 */
			} else if (mod == 0 && rm == 5) {
				n += 4;                   /* rip-relative disp32 */
			}
			if (mod == 1)
				n += 1;
			else if (mod == 2)
				n += 4;
			if (n == len)
				return len;
		}
		if (avail >= 5 && end[-5] == 0xe8)        /* call rel32 */
			return 5;
		return 0;
	}
	if (machine == EM_AARCH64 && avail >= 4) {
		uint32_t w = (uint32_t)end[-4] | (uint32_t)end[-3] << 8 |
		    (uint32_t)end[-2] << 16 | (uint32_t)end[-1] << 24;
		if ((w & 0xfc000000u) == 0x94000000u ||   /* BL */
		    (w & 0xfffffc1fu) == 0xd63f0000u ||   /* BLR */
		    (w & 0xfefff800u) == 0xd63f0800u)     /* BLRAA(Z), BLRAB(Z) */
			return 4;
	}
	return 0;
}

/* Is vaddr inside an executable segment of f? */
static bool
in_code(const sym_file *f, uint64_t vaddr)
{
	for (size_t i = 0; i < f->nloads; i++) {
		const sym_load *l = &f->loads[i];
		if ((l->flags & PF_X) && vaddr >= l->vaddr && vaddr - l->vaddr < l->filesz)
			return true;
	}
	return false;
}

/* Does a call instruction end at file offset r of f (raw file bytes)?  The
 * target of a direct call must be code of the file too. */
bool
yi_call_at(const sym_file *f, const unsigned char *raw, size_t rawsize, uint64_t r)
{
	for (size_t i = 0; i < f->nloads; i++) {
		const sym_load *l = &f->loads[i];
		size_t avail, len;
		uint64_t rv;
		if (!(l->flags & PF_X) || r <= l->offset || r - l->offset > l->filesz ||
		    r > rawsize)
			continue;
		avail = r - l->offset < 8 ? (size_t)(r - l->offset) : 8;
		if ((len = yi_call_before(f->machine, raw + r, avail)) == 0)
			return false;
		rv = r - l->offset + l->vaddr;
		if (len == 5 && raw[r - 5] == 0xe8 && f->machine != EM_AARCH64) {
			int32_t rel;
			uint32_t u = (uint32_t)raw[r - 4] | (uint32_t)raw[r - 3] << 8 |
			    (uint32_t)raw[r - 2] << 16 | (uint32_t)raw[r - 1] << 24;
			memcpy(&rel, &u, sizeof(rel));
			return in_code(f, rv + (uint64_t)(int64_t)rel);
		}
		if (f->machine == EM_AARCH64 && (raw[r - 1] & 0xfc) == 0x94) {
			uint32_t w = (uint32_t)raw[r - 4] | (uint32_t)raw[r - 3] << 8 |
			    (uint32_t)raw[r - 2] << 16 | (uint32_t)raw[r - 1] << 24;
			int64_t imm = (int64_t)(w & 0x03ffffffu);
			if (imm & 0x02000000)
				imm -= 0x04000000;
			return in_code(f, rv - 4 + (uint64_t)(imm * 4));
		}
		return true;
	}
	return false;
}
