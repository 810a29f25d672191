/*
 * symbolize.c: addresses -> functions, inline frames and file:line, with
 * elfutils (libdwfl, libdw).
 *
 * A dump gives raw pcs plus the process's /proc/self/maps.  Every pc is
 * turned into an address inside its ELF file (the p_vaddr world of the
 * file's program headers), so nothing below depends on where ASLR put the
 * file: a ying_symbolizer caches one open module per file (keyed by path,
 * device, inode, size and mtime) and the answer for every address it has
 * resolved, and reuses both across profiles.  Each file is reported to its
 * own Dwfl at base 0, with the standard debuginfo callbacks so that
 * /usr/lib/debug/.build-id and .gnu_debuglink files are found.
 *
 * Per address: DWARF first (the CU from the aranges, its scopes, the chain
 * of DW_TAG_inlined_subroutine up to the real DW_TAG_subprogram, the line
 * table for the innermost line and DW_AT_call_file/DW_AT_call_line for the
 * callers); without DWARF, a sorted array of the file's function symbols
 * (.symtab, else .dynsym), built once per file and binary-searched, since
 * dwfl_module_addrsym scans.  C++ and legacy Rust names are demangled
 * (__cxa_demangle found at run time, so libying stays plain C); the mangled
 * name is kept as the system name.  A file that cannot be opened gives
 * "module+0xOFFSET" names (file offset) and one warning; so does a file
 * that is not the one the dump mapped (check_file: build ID, inode, file
 * time, layout, call sites), so that no frame is named from the wrong file.
 * A pc outside every mapping gives "0x<16 hex digits>", as jeprof prints it.
 *
 * Bounds: at most SYM_MAX_FILES open files between calls (least recently
 * used closed first; a call keeps the files it uses open, and opens at
 * most SYM_MAX_CALL_FILES) and SYM_MAX_ADDRS cached addresses per file
 * (the cache of that file is dropped when full).
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

#include "internal.h"

#define SYM_MAX_FILES 64
#define SYM_MAX_CALL_FILES 512    /* files one profile may make us open */
#define SYM_MAX_ADDRS (1u << 18)
#define SYM_MAX_CHAIN 64          /* inline depth kept per address */

/* ---- demangling ---------------------------------------------------------- */

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);
static cxa_demangle_fn cxa_demangle;
static pthread_once_t cxa_once = PTHREAD_ONCE_INIT;

static void
cxa_init(void)
{
	void *h, *f;

	/* In a C++ process libstdc++ is already loaded; else load it once and
	 * keep it (never dlclose: the function pointer must stay valid). */
	f = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (f == NULL && (h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL)) != NULL)
		f = dlsym(h, "__cxa_demangle");
	if (f != NULL)
		memcpy(&cxa_demangle, &f, sizeof(f));
}

static bool
is_hex_hash(const char *s, size_t n)
{
	size_t i;

	if (n != 17 || s[0] != 'h')
		return false;
	for (i = 1; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* One legacy Rust escape at s ("$LT$", "$u20$", ...): its character and
 * length, or 0. */
static size_t
rust_escape(const char *s, size_t n, char *out)
{
	static const struct { const char *e; char c; } tab[] = {
		{ "$SP$", '@' }, { "$BP$", '*' }, { "$RF$", '&' }, { "$LT$", '<' },
		{ "$GT$", '>' }, { "$LP$", '(' }, { "$RP$", ')' }, { "$C$", ',' },
	};
	size_t i, l;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		l = strlen(tab[i].e);
		if (n >= l && memcmp(s, tab[i].e, l) == 0) {
			*out = tab[i].c;
			return l;
		}
	}
	if (n >= 5 && s[1] == 'u' && s[4] == '$') {
		unsigned v = 0;
		for (i = 2; i < 4; i++) {
			char c = s[i];
			v = v * 16 + (unsigned)(c >= '0' && c <= '9' ? c - '0' :
			    c >= 'a' && c <= 'f' ? c - 'a' + 10 : 255);
		}
		if (v >= 0x20 && v < 0x7f) {
			*out = (char)v;
			return 5;
		}
	}
	return 0;
}

/*
 * Legacy Rust symbols: _ZN <len><ident>... 17h<16 hex> E [.suffix].  The
 * hash component is dropped and $-escapes decoded.  Returns a yi_malloc'd
 * string, or NULL when s is not such a symbol.
 */
static char *
rust_demangle(const char *s)
{
	const char *q = s + 3, *idents[256];
	size_t lens[256], n = 0, i, k, total = 0;
	char *out, *o;

	if (strncmp(s, "_ZN", 3) != 0)
		return NULL;
	while (*q >= '0' && *q <= '9') {
		size_t len = 0;
		while (*q >= '0' && *q <= '9') {
			len = len * 10 + (size_t)(*q++ - '0');
			if (len > 4096)
				return NULL;
		}
		if (strnlen(q, len) < len || n == 256)
			return NULL;
		idents[n] = q;
		lens[n++] = len;
		total += len + 2;
		q += len;
	}
	if (*q != 'E' || n < 2 || !is_hex_hash(idents[n - 1], lens[n - 1]))
		return NULL;
	n--;
	if ((out = yi_malloc(total + 1)) == NULL)
		return NULL;
	o = out;
	for (i = 0; i < n; i++) {
		const char *id = idents[i];
		size_t len = lens[i];
		if (i) {
			*o++ = ':';
			*o++ = ':';
		}
		if (len >= 2 && id[0] == '_' && id[1] == '$') {
			id++;
			len--;
		}
		for (k = 0; k < len;) {
			char c;
			size_t el;
			if (id[k] == '$' && (el = rust_escape(id + k, len - k, &c)) != 0) {
				*o++ = c;
				k += el;
			} else if (id[k] == '.' && k + 1 < len && id[k + 1] == '.') {
				*o++ = ':';
				*o++ = ':';
				k += 2;
			} else {
				*o++ = id[k++];
			}
		}
	}
	*o = '\0';
	return out;
}

/* Demangled form of a C++ or legacy Rust name: yi_malloc'd, or NULL when
 * the name is not mangled (or cannot be demangled). */
static char *
demangle(const char *s)
{
	char *d, *r;
	int status = -1;

	if (s[0] != '_' || s[1] != 'Z')
		return NULL;
	if ((r = rust_demangle(s)) != NULL)
		return r;
	pthread_once(&cxa_once, cxa_init);
	if (cxa_demangle == NULL)
		return NULL;
	d = cxa_demangle(s, NULL, NULL, &status);
	if (d == NULL || status != 0) {
		free(d);    /* allocated by libstdc++ with malloc */
		return NULL;
	}
	r = yi_strdup(d);
	free(d);
	return r;
}

/* ---- the per-file cache ---------------------------------------------------- */

typedef struct sym_entry {
	uint64_t addr, size;      /* module addresses */
	const char *name;         /* in the ELF's string table */
	int rank;                 /* lower wins among aliases */
} sym_entry;

typedef struct sym_frame {
	uint32_t name, sysname, file, line;   /* ids in the file's strtab */
} sym_frame;

typedef struct sym_result {
	uint32_t off;             /* first sym_frame */
	uint32_t n;               /* 0 = nothing known for the address */
	uint64_t fdelta;          /* n == 0: distance from the start of the
	                           * enclosing function (from .eh_frame), so
	                           * unnamed addresses group per function */
} sym_result;

typedef struct sym_range {
	uint64_t lo, hi;          /* [lo, hi) in DWARF addresses */
	uint64_t die;             /* DW_TAG_subprogram DIE offset */
} sym_range;

typedef YI_VEC(sym_range) sym_rangevec;

typedef struct sym_cu {
	sym_range *v;
	size_t n;
} sym_cu;

typedef struct sym_load {
	uint64_t offset, filesz, vaddr, align;
	uint32_t flags;           /* p_flags (PF_X) */
} sym_load;

typedef struct sym_file {
	struct sym_file *prev, *next;   /* LRU list, most recent first */
	char *path;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	uint64_t gen;                   /* last call that used the file */

	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr bias;                 /* ELF p_vaddr -> module address */
	sym_load *loads;
	size_t nloads;
	char *build_id;                 /* lowercase hex, NULL unknown */
	unsigned machine;               /* e_machine */
	int has_dwarf;                  /* -1 not yet looked for */
	bool syms_loaded;
	sym_entry *syms;
	size_t nsyms;

	/* per compile unit: its functions' address ranges, sorted (cu_index.c
	 * below); built the first time an address falls into the unit */
	yi_map64 cu_by_off;             /* CU DIE offset -> index in cus */
	YI_VEC(struct sym_cu) cus;

	/* address cache */
	yi_strtab strs;
	yi_map64 by_addr;               /* module address -> result index */
	yi_map64 demangled;             /* name pointer -> strtab id */
	YI_VEC(sym_result) results;
	YI_VEC(sym_frame) frames;
} sym_file;

struct ying_symbolizer {
	pthread_mutex_t lock;
	sym_file *head, *tail;
	size_t nfiles;
	uint64_t gen;
	size_t call_opened;             /* files opened by the current call */
};

/*
 * Separate debug info is looked up locally only: by build ID under
 * /usr/lib/debug/.build-id, then by .gnu_debuglink next to the file, in its
 * .debug directory and under /usr/lib/debug.  dwfl_standard_find_debuginfo
 * would also create a debuginfod client (libcurl, sockets, and network
 * requests from inside a profiled host when DEBUGINFOD_URLS is set), which
 * an in-process profiler must never do.  libdwfl calls this only when the
 * file itself has no DWARF.
 */
static int
find_debuginfo_local(Dwfl_Module *mod, void **userdata, const char *modname,
    GElf_Addr base, const char *file_name, const char *debuglink_file,
    GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	static const char *const fmts[] = { "%.*s/%s", "%.*s/.debug/%s", "/usr/lib/debug%.*s/%s" };
	const char *slash;
	char path[4096];
	size_t i;
	int fd;

	fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
	    debuglink_file, debuglink_crc, debuginfo_file_name);
	if (fd >= 0 || debuglink_file == NULL || file_name == NULL ||
	    (slash = strrchr(file_name, '/')) == NULL)
		return fd;
	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		int n = snprintf(path, sizeof(path), fmts[i], (int)(slash - file_name),
		    file_name, debuglink_file);
		if (n < 0 || (size_t)n >= sizeof(path) || strcmp(path, file_name) == 0)
			continue;
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		if ((*debuginfo_file_name = strdup(path)) == NULL) {
			close(fd);
			return -1;
		}
		return fd;
	}
	return -1;
}

static char *debuginfo_path;   /* NULL: the standard search path */
static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo_local,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static int
cache_init(sym_file *f)
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

static void
cache_release(sym_file *f)
{
	yi_strtab_release(&f->strs);
	yi_map64_release(&f->by_addr);
	yi_map64_release(&f->demangled);
	yi_vec_free(&f->results);
	yi_vec_free(&f->frames);
}

static void
file_free(sym_file *f)
{
	if (f == NULL)
		return;
	if (f->dwfl)
		dwfl_end(f->dwfl);      /* closes the module's fd */
	cache_release(f);
	for (size_t i = 0; i < f->cus.n; i++)
		yi_free(f->cus.v[i].v);
	yi_vec_free(&f->cus);
	yi_map64_release(&f->cu_by_off);
	yi_free(f->syms);
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
static void
lru_trim(ying_symbolizer *s)
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
ying_symbolizer_new(ying_symbolizer **out)
{
	ying_symbolizer *s;

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
	yi_free(s);
}

static const char *
base_name(const char *path)
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

static int
read_build_id(sym_file *f)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(f->mod, &bits, &vaddr), i;
	static const char hex[] = "0123456789abcdef";

	if (n <= 0)
		return 0;
	if ((f->build_id = yi_malloc((size_t)n * 2 + 1)) == NULL)
		return yi_oom("reading a build ID");
	for (i = 0; i < n; i++) {
		f->build_id[2 * i] = hex[bits[i] >> 4];
		f->build_id[2 * i + 1] = hex[bits[i] & 15];
	}
	f->build_id[2 * n] = '\0';
	return 0;
}

/*
 * Find or open the file at path.  Returns 0 with *out set, 0 with *out NULL
 * and why[] filled when the file cannot be used (missing, not ELF), or a
 * negative error (out of memory).
 */
static int
file_get(ying_symbolizer *s, const char *path, sym_file **out, char *why,
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
		if (f->dev == st.st_dev && f->ino == st.st_ino && f->size == st.st_size &&
		    f->mtime.tv_sec == st.st_mtim.tv_sec &&
		    f->mtime.tv_nsec == st.st_mtim.tv_nsec) {
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
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->size = st.st_size;
	f->mtime = st.st_mtim;
	f->gen = s->gen;
	if ((f->path = yi_strdup(path)) == NULL || (rc = cache_init(f)) != 0) {
		yi_free(f->path);
		yi_free(f);
		return yi_oom("opening a module");
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		file_free(f);
		return 0;
	}
	if ((f->dwfl = dwfl_begin(&dwfl_callbacks)) == NULL) {
		close(fd);
		file_free(f);
		return yi_error(YING_ENOMEM, "dwfl_begin: %s", dwfl_errmsg(-1));
	}
	dwfl_report_begin(f->dwfl);
	/* ET_DYN at base 0 with add_p_vaddr: module addresses are p_vaddrs. */
	f->mod = dwfl_report_elf(f->dwfl, base_name(path), path, fd, 0, true);
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
	if ((rc = read_build_id(f)) != 0) {
		file_free(f);
		return rc;
	}
	lru_push(s, f);
	lru_trim(s);
	*out = f;
	return 0;
}

/* File offset -> module address; false when no PT_LOAD holds it. */
static bool
file_addr(const sym_file *f, uint64_t off, uint64_t *maddr)
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
static bool
call_at(const sym_file *f, const unsigned char *raw, size_t rawsize, uint64_t r)
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

/* ---- symbol tables --------------------------------------------------------- */

static int
sym_cmp(const void *a, const void *b)
{
	const sym_entry *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int
sym_rank(const char *name, unsigned char bind)
{
	int r = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 100 : 200;
	while (*name == '_') {       /* prefer "malloc" to "__libc_malloc" */
		r += 10;
		name++;
	}
	return r;
}

static int
load_syms(sym_file *f)
{
	int n, i;
	size_t k, out;

	f->syms_loaded = true;
	n = dwfl_module_getsymtab(f->mod);
	if (n <= 1)
		return 0;
	if ((f->syms = yi_calloc((size_t)n, sizeof(*f->syms))) == NULL)
		return yi_oom("reading a symbol table");
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(f->mod, i, &sym, &addr,
		    &shndx, NULL, NULL);
		int type;
		if (name == NULL || name[0] == '\0')
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_value == 0 ||
		    shndx == SHN_UNDEF)
			continue;
		f->syms[f->nsyms].addr = addr;
		f->syms[f->nsyms].size = sym.st_size;
		f->syms[f->nsyms].name = name;
		f->syms[f->nsyms].rank = sym_rank(name, GELF_ST_BIND(sym.st_info));
		f->nsyms++;
	}
	qsort(f->syms, f->nsyms, sizeof(*f->syms), sym_cmp);
	/* One entry per address: the best-ranked alias. */
	for (k = 0, out = 0; k < f->nsyms; k++) {
		if (out && f->syms[out - 1].addr == f->syms[k].addr) {
			if (f->syms[k].size > f->syms[out - 1].size && f->syms[out - 1].size == 0)
				f->syms[out - 1].size = f->syms[k].size;
			continue;
		}
		f->syms[out++] = f->syms[k];
	}
	f->nsyms = out;
	return 0;
}

static const sym_entry *
find_sym(const sym_file *f, uint64_t a)
{
	size_t lo = 0, hi = f->nsyms;
	const sym_entry *e;

	while (lo < hi) {                 /* first entry with addr > a */
		size_t mid = lo + (hi - lo) / 2;
		if (f->syms[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	e = &f->syms[lo - 1];
	if (e->size != 0 && a - e->addr >= e->size)
		return NULL;
	return e;
}

/* ---- resolving one address -------------------------------------------------- */

/* Intern a (name, sysname) pair; the name is demangled once per distinct
 * string pointer. */
static int
intern_name(sym_file *f, const char *mangled, uint32_t *name, uint32_t *sysname)
{
	uint32_t *slot, id;
	char *d;
	bool added;
	int rc;

	if ((rc = yi_strtab_intern(&f->strs, mangled, strlen(mangled), sysname)) != 0)
		return rc;
	if ((slot = yi_map64_get(&f->demangled, (uint64_t)(uintptr_t)mangled)) != NULL) {
		*name = *slot;
		return 0;
	}
	if ((d = demangle(mangled)) != NULL) {
		rc = yi_strtab_intern(&f->strs, d, strlen(d), &id);
		yi_free(d);
		if (rc != 0)
			return rc;
	} else {
		id = *sysname;
	}
	if ((rc = yi_map64_put(&f->demangled, (uint64_t)(uintptr_t)mangled, id, &slot,
	    &added)) != 0)
		return rc;
	*name = id;
	return 0;
}

static const char *
die_string(Dwarf_Die *die, unsigned attr)
{
	Dwarf_Attribute a;
	return dwarf_formstring(dwarf_attr_integrate(die, attr, &a));
}

/* Function name of a subprogram or inlined-subroutine DIE. */
static int
die_name(sym_file *f, Dwarf_Die *die, uint32_t *name, uint32_t *sysname)
{
	const char *link = die_string(die, DW_AT_linkage_name);
	const char *plain;

	if (link == NULL)
		link = die_string(die, DW_AT_MIPS_linkage_name);
	if (link != NULL && link[0])
		return intern_name(f, link, name, sysname);
	if ((plain = die_string(die, DW_AT_name)) == NULL || !plain[0]) {
		*name = *sysname = 0;
		return 0;
	}
	if (yi_strtab_intern(&f->strs, plain, strlen(plain), name) != 0)
		return YING_ENOMEM;
	*sysname = *name;
	return 0;
}

/* DW_AT_call_file/DW_AT_call_line of an inlined subroutine. */
static void
call_site(sym_file *f, Dwarf_Die *cu, Dwarf_Die *die, uint32_t *file, uint32_t *line)
{
	Dwarf_Attribute a;
	Dwarf_Word v;
	Dwarf_Files *files;
	size_t nfiles;
	const char *name;

	*file = 0;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &v) == 0 && v <= UINT32_MAX)
		*line = (uint32_t)v;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &v) == 0 &&
	    dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && v < nfiles &&
	    (name = dwarf_filesrc(files, (size_t)v, NULL, NULL)) != NULL)
		yi_strtab_intern(&f->strs, name, strlen(name), file);
}

typedef YI_VEC(sym_frame) sym_framevec;

/* The DWARF chain for module address a (innermost first), with the line of
 * the innermost frame in *line and *file even when no function is found. */
/* ---- per-unit function index ------------------------------------------- */

static int
cmp_range(const void *a, const void *b)
{
	const sym_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Collect every subprogram with code in the unit (not descending into
 * function bodies), one entry per address range. */
static int
cu_collect(Dwarf_Die *parent, sym_rangevec *out, int depth)
{
	Dwarf_Die child;
	int rc;

	if (depth > 64 || dwarf_child(parent, &child) != 0)
		return 0;
	do {
		int t = dwarf_tag(&child);
		if (t == DW_TAG_subprogram) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;
			while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
				if (hi <= lo)
					continue;
				if ((rc = yi_vec_grow(out, 1)) != 0)
					return rc;
				out->v[out->n].lo = lo;
				out->v[out->n].hi = hi;
				out->v[out->n].die = dwarf_dieoffset(&child);
				out->n++;
			}
		} else if (t == DW_TAG_namespace || t == DW_TAG_class_type ||
		    t == DW_TAG_structure_type || t == DW_TAG_union_type ||
		    t == DW_TAG_module || t == DW_TAG_lexical_block) {
			if ((rc = cu_collect(&child, out, depth + 1)) != 0)
				return rc;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/* The subprogram of unit `cu` whose code holds address a, in *sub.  When
 * there is none, *sub is the unit itself (not a subprogram) and the caller
 * falls back to the symbol table. */
static int
cu_function(sym_file *f, Dwarf_Die *cu, uint64_t a, Dwarf_Die *sub)
{
	uint64_t key = dwarf_dieoffset(cu);
	uint32_t *slot;
	sym_cu *c;
	size_t lo, hi;
	bool added;
	int rc;

	*sub = *cu;    /* DW_TAG_compile_unit: "not found" */
	if ((slot = yi_map64_get(&f->cu_by_off, key)) == NULL) {
		sym_rangevec r = { NULL, 0, 0 };
		if ((rc = cu_collect(cu, &r, 0)) != 0) {
			yi_free(r.v);
			return rc;
		}
		qsort(r.v, r.n, sizeof(*r.v), cmp_range);
		if ((rc = yi_vec_grow(&f->cus, 1)) != 0 ||
		    (rc = yi_map64_put(&f->cu_by_off, key, (uint32_t)f->cus.n, &slot, &added)) != 0) {
			yi_free(r.v);
			return rc;
		}
		f->cus.v[f->cus.n].v = r.v;
		f->cus.v[f->cus.n].n = r.n;
		f->cus.n++;
	}
	c = &f->cus.v[*slot];
	/* last range starting at or below a; ranges of distinct functions do
	 * not overlap, so a match is the function */
	lo = 0;
	hi = c->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->v[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && a < c->v[lo - 1].hi) {
		Dwarf *dbg = dwarf_cu_getdwarf(cu->cu);
		if (dbg == NULL || dwarf_offdie(dbg, c->v[lo - 1].die, sub) == NULL)
			*sub = *cu;
	}
	return 0;
}

static int
dwarf_chain(sym_file *f, uint64_t a, sym_framevec *out, uint32_t *file, uint32_t *line)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu, sub, path[SYM_MAX_CHAIN], *dies[SYM_MAX_CHAIN];
	Dwfl_Line *ln;
	int nc, k, rc = 0;
	size_t nd = 0, j;

	*file = *line = 0;
	if (f->has_dwarf < 0)
		f->has_dwarf = dwfl_module_getdwarf(f->mod, &bias) != NULL;
	if (!f->has_dwarf)
		return 0;
	if ((cu = dwfl_module_addrdie(f->mod, a, &bias)) == NULL)
		return 0;
	if ((ln = dwfl_module_getsrc(f->mod, a)) != NULL) {
		int l = 0;
		const char *src = dwfl_lineinfo(ln, NULL, &l, NULL, NULL, NULL);
		if (src != NULL && (rc = yi_strtab_intern(&f->strs, src, strlen(src), file)) != 0)
			return rc;
		*line = l > 0 ? (uint32_t)l : 0;
	}
	/* The function from the unit's sorted index, then down its tree to
	 * the innermost inlined instance that holds the address.  (libdw's
	 * dwarf_getscopes walks the whole unit for every address: seconds for
	 * a few thousand addresses in one big C++ unit.) */
	if ((rc = cu_function(f, cu, a - bias, &sub)) != 0)
		goto done;
	if (dwarf_tag(&sub) == DW_TAG_subprogram) {
		Dwarf_Die cur = sub, child;
		nc = 0;
		path[nc++] = sub;
		while (nc < SYM_MAX_CHAIN && dwarf_child(&cur, &child) == 0) {
			bool found = false;
			do {
				int t = dwarf_tag(&child);
				if ((t == DW_TAG_inlined_subroutine || t == DW_TAG_lexical_block ||
				    t == DW_TAG_try_block || t == DW_TAG_catch_block) &&
				    dwarf_haspc(&child, a - bias) == 1) {
					found = true;
					break;
				}
			} while (dwarf_siblingof(&child, &child) == 0);
			if (!found)
				break;
			cur = child;
			if (dwarf_tag(&child) == DW_TAG_inlined_subroutine)
				path[nc++] = child;
		}
		/* innermost first */
		for (k = nc - 1; k >= 0; k--)
			dies[nd++] = &path[k];
	}
	if ((rc = yi_vec_grow(out, nd)) != 0)
		goto done;
	for (j = 0; j < nd; j++) {
		sym_frame *fr = &out->v[out->n];
		if ((rc = die_name(f, dies[j], &fr->name, &fr->sysname)) != 0)
			goto done;
		if (j == 0) {
			fr->file = *file;
			fr->line = *line;
		} else {
			call_site(f, cu, dies[j - 1], &fr->file, &fr->line);
		}
		out->n++;
	}
done:
	return rc;
}

/* Resolve module address a of file f into the cache; *res is the result. */
/*
 * Hidden and static functions of a stripped library have no symbol at all
 * (libLLVM exports a fraction of its functions).  jeprof names them after
 * the preceding export, which is wrong; ying names them module+0xSTART,
 * where START is the function's first byte according to the unwind table
 * (.eh_frame), so every address of one function lands in one row.
 */
static uint64_t
function_delta(sym_file *f, uint64_t a)
{
	Dwarf_Addr cbias, start, end;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(f->mod, &cbias);
	Dwarf_Frame *frame = NULL;
	uint64_t delta = 0;

	if (cfi == NULL || a < cbias || dwarf_cfi_addrframe(cfi, a - cbias, &frame) != 0)
		return 0;
	if (dwarf_frame_info(frame, &start, &end, NULL) >= 0 && start + cbias <= a)
		delta = a - (start + cbias);
	free(frame);
	return delta;
}

static int
resolve(sym_file *f, uint64_t a, const sym_result **res)
{
	uint32_t *slot, file = 0, line = 0;
	sym_framevec fv = { NULL, 0, 0 };
	sym_result r;
	bool added;
	int rc;

	if ((slot = yi_map64_get(&f->by_addr, a)) != NULL) {
		*res = &f->results.v[*slot];
		return 0;
	}
	if (f->results.n >= SYM_MAX_ADDRS) {
		cache_release(f);
		if ((rc = cache_init(f)) != 0)
			return rc;
	}
	if ((rc = dwarf_chain(f, a, &fv, &file, &line)) != 0)
		goto done;
	/* The outermost function needs a name: DWARF without one (or no
	 * DWARF) falls back to the symbol table. */
	if (fv.n == 0 || fv.v[fv.n - 1].name == 0) {
		const sym_entry *e;
		if (!f->syms_loaded && (rc = load_syms(f)) != 0)
			goto done;
		if ((e = find_sym(f, a)) != NULL) {
			sym_frame *fr;
			if (fv.n == 0) {
				if ((rc = yi_vec_grow(&fv, 1)) != 0)
					goto done;
				fr = &fv.v[fv.n++];
				fr->file = file;
				fr->line = line;
			} else {
				fr = &fv.v[fv.n - 1];
			}
			if ((rc = intern_name(f, e->name, &fr->name, &fr->sysname)) != 0)
				goto done;
		}
	}
	/* An inner frame without a name (broken DWARF) takes "??". */
	for (size_t i = 0; i < fv.n; i++) {
		if (fv.v[i].name == 0 &&
		    (rc = yi_strtab_intern(&f->strs, "??", 2, &fv.v[i].name)) == 0)
			fv.v[i].sysname = fv.v[i].name;
		if (rc != 0)
			goto done;
	}
	if ((rc = yi_vec_grow(&f->frames, fv.n)) != 0 ||
	    (rc = yi_vec_grow(&f->results, 1)) != 0)
		goto done;
	r.off = (uint32_t)f->frames.n;
	r.n = (uint32_t)fv.n;
	r.fdelta = fv.n ? 0 : function_delta(f, a);
	if (fv.n)
		memcpy(&f->frames.v[f->frames.n], fv.v, fv.n * sizeof(*fv.v));
	f->frames.n += fv.n;
	if ((rc = yi_map64_put(&f->by_addr, a, (uint32_t)f->results.n, &slot, &added)) != 0)
		goto done;
	f->results.v[f->results.n] = r;
	*res = &f->results.v[f->results.n++];
done:
	yi_vec_free(&fv);
	return rc;
}

/* ---- the profile pass -------------------------------------------------------- */

#define SYM_SAMPLES 24           /* call sites checked per module */
#define SYM_MIN_SAMPLES 4        /* fewer say nothing */

/* What one distinct mapped path resolved to in this call. */
typedef struct path_state {
	uint32_t path;          /* strtab id in the profile (as dumped) */
	int first_map;          /* a mapping with this path */
	sym_file *file;
	bool tried;
	bool pseudo;            /* "[vdso]", "[anon:...]": nothing to open */
	bool user;              /* the file is --binary */
	bool mismatch;          /* the file is not what was mapped: reason[] */
	bool bid_match;         /* the dump's build ID equals the file's */
	size_t nframes;         /* locations that fell into it */
	unsigned nsamples;      /* distinct file offsets of its locations */
	uint64_t samples[SYM_SAMPLES];
	char why[256];
	char reason[320];
} path_state;

typedef struct sym_ctx {
	ying_profile *p;
	ying_symbolizer *s;
	const ying_symbolize_opts *opts;
	uint32_t *order;        /* executable mappings by start address */
	size_t norder;
	int32_t *mstate;        /* mapping -> path_state index */
	path_state *paths;
	size_t npaths;
	size_t nwarn;
	bool binary_used;       /* --binary was opened for some mapping */
} sym_ctx;

static void
warn(sym_ctx *c, const char *fmt, ...) YI_PRINTF(2, 3);

static void
warn(sym_ctx *c, const char *fmt, ...)
{
	va_list ap;

	c->nwarn++;
	if (c->opts->warnings == NULL)
		return;
	fputs("ying: warning: ", c->opts->warnings);
	va_start(ap, fmt);
	vfprintf(c->opts->warnings, fmt, ap);
	va_end(ap);
	fputc('\n', c->opts->warnings);
}

static int
set_single(ying_profile *p, uint32_t loc, const char *name)
{
	yi_line l;
	int rc;

	if ((rc = yi_profile_func(p, name, name, "", &l.func)) != 0)
		return rc;
	l.line = 0;
	return yi_profile_set_lines(p, loc, &l, 1);
}

static int
set_hex(ying_profile *p, uint32_t loc)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "0x%016" PRIx64, p->locs.v[loc].addr);
	return set_single(p, loc, buf);
}

static const char deleted_suffix[] = " (deleted)";

/* Length of path without the " (deleted)" the kernel appends to unlinked
 * files. */
static size_t
path_len(const char *path, bool *deleted)
{
	size_t len = strlen(path), dl = sizeof(deleted_suffix) - 1;

	*deleted = len > dl && strcmp(path + len - dl, deleted_suffix) == 0;
	return *deleted ? len - dl : len;
}

static int
set_modoff(ying_profile *p, uint32_t loc, const yi_mapping *m, uint64_t off)
{
	const char *b = base_name(yi_profile_str(p, m->path));
	char buf[512];
	bool deleted;
	size_t len = path_len(b, &deleted);

	snprintf(buf, sizeof(buf), "%.*s+0x%" PRIx64, (int)(len < 400 ? len : 400), b, off);
	return set_single(p, loc, buf);
}

static int
cmp_map_start(const void *a, const void *b, void *arg)
{
	const ying_profile *p = arg;
	uint64_t x = p->maps.v[*(const uint32_t *)a].start;
	uint64_t y = p->maps.v[*(const uint32_t *)b].start;
	return x < y ? -1 : x > y;
}

static int
find_mapping(const sym_ctx *c, uint64_t addr)
{
	size_t lo = 0, hi = c->norder;
	const yi_mapping *m;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->p->maps.v[c->order[mid]].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	m = &c->p->maps.v[c->order[lo - 1]];
	return addr < m->end ? (int)c->order[lo - 1] : -1;
}

/* A path worth opening: absolute, not "[vdso]" and friends. */
static bool
is_file_path(const char *path)
{
	return path[0] == '/';
}

/* A regular file at path? */
static bool
regular_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Look for the file a mapping named `path` (len bytes) in the user's search
 * path (opts->search_path, directories separated by ':'): DIR/PATH first (a
 * copy of the other machine's tree), then DIR/BASENAME.  The first regular
 * file wins; true when one was found (in buf). */
static bool
search_file(const char *dirs, const char *path, size_t len, char *buf, size_t n)
{
	const char *b = path, *d = dirs;

	for (size_t i = 0; i < len; i++)
		if (path[i] == '/')
			b = path + i + 1;
	while (*d) {
		size_t dl = strcspn(d, ":");
		if (dl > 0) {
			int k = snprintf(buf, n, "%.*s%.*s", (int)dl, d, (int)len, path);
			if (k > 0 && (size_t)k < n && regular_file(buf))
				return true;
			k = snprintf(buf, n, "%.*s/%.*s", (int)dl, d, (int)(len - (size_t)(b - path)), b);
			if (k > 0 && (size_t)k < n && regular_file(buf))
				return true;
		}
		d += dl;
		if (*d == ':')
			d++;
	}
	return false;
}

/* The file path to open for mapping mi: --binary for the main executable,
 * else a file found in the search path, else the dump's path (without
 * " (deleted)").  *user tells whether the user pointed at the file (then
 * it is checked by content only: build ID, layout, call sites). */
static const char *
open_path(sym_ctx *c, int mi, char *buf, size_t n, bool *user)
{
	const ying_profile *p = c->p;
	const char *path = yi_profile_str(p, p->maps.v[mi].path);
	bool deleted;
	size_t len = path_len(path, &deleted);

	*user = true;
	if (c->opts->binary && c->opts->binary[0] && p->main_map >= 0 &&
	    p->maps.v[mi].path == p->maps.v[p->main_map].path)
		return c->opts->binary;
	if (c->opts->version >= 2 && c->opts->search_path && c->opts->search_path[0] &&
	    search_file(c->opts->search_path, path, len, buf, n))
		return buf;
	*user = false;
	if (deleted) {
		snprintf(buf, n, "%.*s", (int)len, path);
		return buf;
	}
	return path;
}

static void
utc_time(char *buf, size_t n, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (gmtime_r(&tt, &tm) == NULL || strftime(buf, n, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
		snprintf(buf, n, "%lld", (long long)t);
}

static void
mismatch(path_state *ps, const char *fmt, ...) YI_PRINTF(2, 3);

static void
mismatch(path_state *ps, const char *fmt, ...)
{
	va_list ap;

	ps->mismatch = true;
	va_start(ap, fmt);
	vsnprintf(ps->reason, sizeof(ps->reason), fmt, ap);
	va_end(ap);
}

/* Does the dump's executable mapping m lie in an executable segment of f
 * (page-rounded, any page size up to 64 KiB)? */
static bool
layout_ok(const sym_file *f, const yi_mapping *m)
{
	const uint64_t big = 65536;

	for (size_t i = 0; i < f->nloads; i++) {
		const sym_load *l = &f->loads[i];
		uint64_t lo = l->offset & ~(big - 1), hi = (l->offset + l->filesz + big - 1) & ~(big - 1);
		if ((l->flags & PF_X) && m->offset >= lo && m->offset < l->offset + l->filesz &&
		    m->end - m->start <= hi - m->offset)
			return true;
	}
	return false;
}

/*
 * Is the file we opened for path state ps the one the dump mapped?  In
 * order: (1) build IDs, when the dump has one and the file too: equal is a
 * match (nothing else is checked), different a mismatch; (2) for a path
 * from the dump (not --binary): the same device and another inode means
 * the file was replaced, a file time after the dump's means it was
 * modified; (3) for every file: each executable mapping of the dump must
 * lie in an executable segment of the file (heap_v2 maps only), and most of
 * the sampled return addresses must follow a call instruction in the
 * file's bytes (x86, aarch64; at least SYM_MIN_SAMPLES addresses).  The
 * checks read nothing but the few bytes before each sampled address from
 * libelf's mapping of the file.
 */
static void
check_file(sym_ctx *c, path_state *ps)
{
	const ying_profile *p = c->p;
	sym_file *f = ps->file;
	const yi_mapping *m0 = &p->maps.v[ps->first_map];
	const char *dump_bid = NULL;
	int32_t self = (int32_t)(ps - c->paths);
	size_t i;

	for (i = 0; i < p->maps.n && dump_bid == NULL; i++)
		if (p->maps.v[i].path == ps->path && p->maps.v[i].build_id)
			dump_bid = yi_profile_str(p, p->maps.v[i].build_id);
	if (dump_bid && f->build_id) {
		if (strcmp(dump_bid, f->build_id) == 0)
			ps->bid_match = true;
		else
			mismatch(ps, "build ID %s in the dump, %s in the file", dump_bid,
			    f->build_id);
		return;
	}
	if (!ps->user) {
		int64_t dump_time = p->time > 0 ? p->time : (int64_t)time(NULL);
		if (m0->has_dev && m0->inode != 0 && major(f->dev) == m0->dev_major &&
		    minor(f->dev) == m0->dev_minor && (uint64_t)f->ino != m0->inode) {
			mismatch(ps, "replaced since the dump: inode %" PRIu64 " in the dump, "
			    "%" PRIu64 " now", m0->inode, (uint64_t)f->ino);
			return;
		}
		if ((int64_t)f->mtime.tv_sec > dump_time + 1) {
			char ft[64], dt[64];
			utc_time(ft, sizeof(ft), (int64_t)f->mtime.tv_sec);
			utc_time(dt, sizeof(dt), dump_time);
			mismatch(ps, "modified after the dump was taken (file time %s, dump time %s)",
			    ft, dt);
			return;
		}
	}
	if (p->format == YI_FMT_HEAP_V2) {
		for (i = 0; i < c->norder; i++) {
			const yi_mapping *m = &p->maps.v[c->order[i]];
			if (c->mstate[c->order[i]] != self || layout_ok(f, m))
				continue;
			mismatch(ps, "the dump maps code from file offset 0x%" PRIx64 " (%" PRIu64
			    " bytes), where the file has no executable segment", m->offset,
			    m->end - m->start);
			return;
		}
	}
	if ((f->machine == EM_X86_64 || f->machine == EM_386 || f->machine == EM_AARCH64) &&
	    ps->nsamples >= SYM_MIN_SAMPLES) {
		GElf_Addr bias;
		Elf *elf = dwfl_module_getelf(f->mod, &bias);
		size_t rawsize = 0;
		const unsigned char *raw = elf ? (const unsigned char *)elf_rawfile(elf, &rawsize) : NULL;
		unsigned k = 0;
		if (raw == NULL)
			return;
		for (i = 0; i < ps->nsamples; i++)
			k += call_at(f, raw, rawsize, ps->samples[i] + 1) ||
			    call_at(f, raw, rawsize, ps->samples[i]);
		if (k * 10 < ps->nsamples * 7)
			mismatch(ps, "only %u of %u sampled return addresses follow a call "
			    "instruction in it", k, ps->nsamples);
	}
}

static int
path_file(sym_ctx *c, int mi, path_state **out)
{
	path_state *ps = &c->paths[c->mstate[mi]];
	char buf[4096];
	const char *path;
	int rc;

	*out = ps;
	if (ps->tried)
		return 0;
	ps->tried = true;
	path = yi_profile_str(c->p, ps->path);
	if (!is_file_path(path)) {
		ps->pseudo = true;
		return 0;
	}
	path = open_path(c, mi, buf, sizeof(buf), &ps->user);
	c->binary_used |= path == c->opts->binary;
	if ((rc = file_get(c->s, path, &ps->file, ps->why, sizeof(ps->why))) != 0)
		return rc;
	if (ps->file != NULL)
		check_file(c, ps);
	return 0;
}

/* Note the file offset of every location that still needs symbols under
 * its module (the first SYM_SAMPLES distinct ones), for check_file. */
static void
collect_samples(sym_ctx *c)
{
	ying_profile *p = c->p;

	for (size_t i = 0; i < p->locs.n; i++) {
		const yi_loc *l = &p->locs.v[i];
		const yi_mapping *m;
		path_state *ps;
		uint64_t off;
		unsigned k;
		int mi;
		if (l->nlines != 0 || (mi = find_mapping(c, l->addr)) < 0)
			continue;
		m = &p->maps.v[mi];
		ps = &c->paths[c->mstate[mi]];
		if (m->path == 0 || ps->nsamples == SYM_SAMPLES)
			continue;
		off = l->addr - m->start + m->offset;
		for (k = 0; k < ps->nsamples && ps->samples[k] != off; k++)
			;
		if (k == ps->nsamples)
			ps->samples[ps->nsamples++] = off;
	}
}

static int
symbolize_loc(sym_ctx *c, uint32_t li)
{
	ying_profile *p = c->p;
	yi_loc *l = &p->locs.v[li];
	const yi_mapping *m;
	const sym_result *r;
	path_state *ps;
	uint64_t off, maddr;
	yi_line lines[SYM_MAX_CHAIN];
	uint32_t k;
	int mi, rc;

	if ((mi = find_mapping(c, l->addr)) < 0)
		return set_hex(p, li);
	l->mapping = mi;
	m = &p->maps.v[mi];
	off = l->addr - m->start + m->offset;
	if (m->path == 0)
		return set_hex(p, li);
	if ((rc = path_file(c, mi, &ps)) != 0)
		return rc;
	ps->nframes++;
	if (ps->file == NULL || ps->mismatch || !file_addr(ps->file, off, &maddr))
		return set_modoff(p, li, m, off);
	if ((rc = resolve(ps->file, maddr, &r)) != 0)
		return rc;
	if (r->n == 0)
		return set_modoff(p, li, m, off >= r->fdelta ? off - r->fdelta : off);
	for (k = 0; k < r->n && k < SYM_MAX_CHAIN; k++) {
		const sym_file *f = ps->file;
		const sym_frame *fr = &f->frames.v[r->off + k];
		if ((rc = yi_profile_func(p, yi_strtab_get(&f->strs, fr->name),
		    yi_strtab_get(&f->strs, fr->sysname),
		    yi_strtab_get(&f->strs, fr->file), &lines[k].func)) != 0)
			return rc;
		lines[k].line = fr->line;
	}
	return yi_profile_set_lines(p, li, lines, k);
}

/* Modules without frames are only asked whether they have a symbol table,
 * not made to sort it. */
static bool
file_has_symbols(sym_file *f)
{
	if (f->has_dwarf > 0 || f->nsyms > 0)
		return true;
	return !f->syms_loaded && dwfl_module_getsymtab(f->mod) > 1;
}

static int
check_regex(const char *re_src)
{
	regex_t re;
	char msg[256];
	int r;

	if (re_src == NULL || !*re_src)
		return 0;
	if ((r = regcomp(&re, re_src, REG_EXTENDED | REG_NOSUB)) != 0) {
		regerror(r, &re, msg, sizeof(msg));
		return yi_error(YING_EINVAL, "bad --drop_frames regex '%s': %s", re_src, msg);
	}
	regfree(&re);
	return 0;
}

static int
symbolize_locked(sym_ctx *c)
{
	ying_profile *p = c->p;
	yi_map64 by_path = { 0 };
	size_t i;
	int rc = 0;

	if (!p->has_maps || p->maps.n == 0) {
		for (i = 0; i < p->locs.n && rc == 0; i++)
			if (p->locs.v[i].nlines == 0)
				rc = set_hex(p, (uint32_t)i);
		if (p->locs.n)
			warn(c, "%s: the dump has no MAPPED_LIBRARIES section; frames are "
			    "shown as addresses", p->source);
		return rc;
	}
	c->order = yi_calloc(p->maps.n, sizeof(*c->order));
	c->mstate = yi_calloc(p->maps.n, sizeof(*c->mstate));
	c->paths = yi_calloc(p->maps.n, sizeof(*c->paths));
	if (c->order == NULL || c->mstate == NULL || c->paths == NULL)
		return yi_oom("symbolizing");
	if ((rc = yi_map64_init(&by_path, p->maps.n)) != 0)
		return rc;
	for (i = 0; i < p->maps.n; i++) {
		uint32_t *slot;
		bool added;
		if (p->maps.v[i].exec)
			c->order[c->norder++] = (uint32_t)i;
		if ((rc = yi_map64_put(&by_path, p->maps.v[i].path, (uint32_t)c->npaths,
		    &slot, &added)) != 0)
			goto out;
		if (added) {
			c->paths[c->npaths].path = p->maps.v[i].path;
			c->paths[c->npaths++].first_map = (int)i;
		}
		c->mstate[i] = (int32_t)*slot;
	}
	qsort_r(c->order, c->norder, sizeof(*c->order), cmp_map_start, p);
	collect_samples(c);

	for (i = 0; i < p->locs.n; i++) {
		if (p->locs.v[i].nlines != 0)
			continue;       /* done by an earlier, interrupted call */
		if ((rc = symbolize_loc(c, (uint32_t)i)) != 0)
			goto out;
	}
	/* Build IDs for every executable module, frames or not. */
	for (i = 0; i < c->norder; i++) {
		path_state *ps;
		if ((rc = path_file(c, (int)c->order[i], &ps)) != 0)
			goto out;
	}
	for (i = 0; i < p->maps.n; i++) {
		yi_mapping *m = &p->maps.v[i];
		path_state *ps = &c->paths[c->mstate[i]];
		sym_file *f = ps->file;
		if (f == NULL || ps->mismatch)
			continue;
		/* the dump's own build ID stays (it is the one that ran) */
		if (m->build_id == 0 && f->build_id && (rc = yi_strtab_intern(&p->strs,
		    f->build_id, strlen(f->build_id), &m->build_id)) != 0)
			goto out;
		m->symbolized = file_has_symbols(f);
	}
	for (i = 0; i < c->npaths; i++) {
		path_state *ps = &c->paths[i];
		const char *path = yi_profile_str(p, ps->path), *b = base_name(path);
		char buf[4096];
		bool deleted, user;
		int blen = (int)path_len(b, &deleted);

		if (ps->pseudo || (ps->nframes == 0 && !(ps->user && ps->mismatch)))
			continue;
		if (ps->mismatch && ps->user) {
			warn(c, "%s: %s %s does not match the %.*s in the dump: %s; "
			    "it is not used, and its %zu frame%s shown as %.*s+0xOFFSET",
			    p->source, c->opts->binary && strcmp(ps->file->path, c->opts->binary) == 0 ?
			    "--binary" : "the search path's", ps->file->path, blen, b, ps->reason, ps->nframes,
			    ps->nframes == 1 ? " is" : "s are", blen, b);
		} else if (ps->mismatch) {
			warn(c, "%s: %s is not the file the dump mapped: %s; its %zu frame%s "
			    "shown as %.*s+0xOFFSET (give the build that ran with --binary PATH, "
			    "or a directory holding it with --binary-path DIR)",
			    p->source, ps->file->path, ps->reason, ps->nframes,
			    ps->nframes == 1 ? " is" : "s are", blen, b);
		} else if (ps->file == NULL) {
			warn(c, "%s: cannot read %s (%s); its %zu frame%s shown as %.*s+0xOFFSET",
			    p->source, open_path(c, ps->first_map, buf, sizeof(buf), &user), ps->why,
			    ps->nframes, ps->nframes == 1 ? " is" : "s are", blen, b);
		} else if (deleted && !ps->user && !ps->bid_match) {
			warn(c, "%s: %s was deleted or replaced after the dump; its "
			    "symbols come from the file now at that path and may be wrong",
			    p->source, ps->file->path);
		} else if (!file_has_symbols(ps->file)) {
			warn(c, "%s: %s has no symbols; its frames are shown as %.*s+0xOFFSET",
			    p->source, ps->file->path, blen, b);
		}
	}
	if (c->opts->binary && c->opts->binary[0] && !c->binary_used)
		warn(c, "%s: --binary %s is not used: the dump maps no main executable "
		    "(only shared libraries)", p->source, c->opts->binary);
out:
	yi_map64_release(&by_path);
	return rc;
}

int
yi_symbolize(ying_profile *p, ying_symbolizer *s, const ying_symbolize_opts *opts)
{
	ying_symbolizer *own = NULL;
	sym_ctx c;
	int rc;

	if ((rc = check_regex(opts->drop_frames)) != 0)
		return rc;
	if (s == NULL) {
		if ((rc = ying_symbolizer_new(&own)) != 0)
			return rc;
		s = own;
	}
	memset(&c, 0, sizeof(c));
	c.p = p;
	c.s = s;
	c.opts = opts;
	pthread_mutex_lock(&s->lock);
	s->gen++;
	s->call_opened = 0;
	rc = symbolize_locked(&c);
	s->gen++;       /* nothing is in use now: trim to the cap */
	lru_trim(s);
	pthread_mutex_unlock(&s->lock);
	yi_free(c.order);
	yi_free(c.mstate);
	yi_free(c.paths);
	ying_symbolizer_free(own);
	return rc;
}
