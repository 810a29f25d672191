/*
 * live_ctl_find.c: finding jemalloc where dlsym cannot see it.
 *
 * A jemalloc linked statically into a program (Rust's jemalloc-sys /
 * tikv-jemallocator with the `_rjem_` prefix, or C with libjemalloc.a) is
 * not in the dynamic symbol table, so dlsym misses it; its functions are
 * still named in the file's static symbol table (.symtab) unless the file
 * was stripped.  One rule, jem_scan_elf(), reads an ELF file's .dynsym and
 * .symtab with libelf and says which of mallctl, _rjem_mallctl, je_mallctl
 * (in that order) it defines (a defined STT_FUNC with a value), with the
 * malloc_stats_print of the same prefix; a file without .symtab is looked
 * at once more for jemalloc's own strings ("<jemalloc>: " and its conf
 * variable) in its read-only data, so that "a stripped jemalloc" and "no
 * jemalloc" are told apart.  That rule answers `ying run` about a file on
 * disk (ying_jem_elf_read) and the control layer about this process
 * (yi_ctl_find_loaded), so the two cannot disagree.
 *
 * In the process, each loaded object is read in dl_iterate_phdr's order
 * (the main program through /proc/self/exe); the run-time address is load
 * base + st_value (st_value for ET_EXEC) and is accepted only when it lies
 * in an executable PT_LOAD segment of that object and its first bytes equal
 * the file's (a library replaced on disk since it was loaded is never
 * called).  This runs when the control layer first needs mallctl and dlsym
 * found none (in the agent: in its constructor, on the main thread, before
 * any thread of the agent exists), never on the allocation path; a
 * fruitless search is not repeated until an object is loaded.  The
 * dl_iterate_phdr callback only copies a few numbers and a name into the
 * caller's buffer: nothing allocates while the loader's lock is held.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "live_ctl.h"

#define JEM_MAX_X 16                 /* executable segments kept per object */
#define JEM_CMP_BYTES 16             /* code compared with the file */

/* The one list of jemalloc's symbol prefixes (live_ctl.h). */
const char *const yi_jem_prefixes[YI_JEM_NPREFIX] = { "", "_rjem_", "je_" };

/* The conf variable of prefix k ("_RJEM_MALLOC_CONF"), built here so that
 * libying's own read-only data never holds it as a whole string (a program
 * that links libying would look like a prefixed jemalloc). */
static void
jem_conf_name(int k, char *buf, size_t n)
{
	size_t i = 0;

	for (const char *p = yi_jem_prefixes[k]; *p && i + 1 < n; p++)
		buf[i++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
	buf[i] = '\0';
	snprintf(buf + i, n - i, "MALLOC_CONF");
}

/* What one ELF file holds of jemalloc. */
typedef struct jem_scan {
	int where;                   /* YING_JEM_* */
	int prefix;                  /* index into yi_jem_prefixes; -1 none */
	bool has_symtab;
	unsigned e_type;
	uint64_t mallctl, mallctl_size;
	uint64_t stats, stats_size;  /* 0: no malloc_stats_print */
} jem_scan;

/* The prefix index when name is PREFIX + base, else -1. */
static int
jem_match(const char *name, const char *base)
{
	size_t n = strlen(name), b = strlen(base);

	if (n < b || strcmp(name + n - b, base) != 0)
		return -1;
	for (int k = 0; k < YI_JEM_NPREFIX; k++)
		if (strlen(yi_jem_prefixes[k]) == n - b &&
		    strncmp(name, yi_jem_prefixes[k], n - b) == 0)
			return k;
	return -1;
}

/* True when c can be part of a C identifier. */
static bool
jem_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_';
}

/* True when one of the read-only data sections holds needle; whole: as a
 * string of its own (not inside a longer name, NUL after it). */
static bool
jem_rodata_has(Elf *e, const char *needle, bool whole)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t nl = strlen(needle);

	while ((scn = elf_nextscn(e, scn)) != NULL) {
		Elf_Data *d;
		const char *p, *end;
		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_ALLOC) || (sh.sh_flags & (SHF_EXECINSTR | SHF_WRITE)))
			continue;
		if ((d = elf_getdata(scn, NULL)) == NULL || d->d_buf == NULL)
			continue;
		p = d->d_buf;
		end = p + d->d_size;
		while ((size_t)(end - p) >= nl &&
		    (p = memmem(p, (size_t)(end - p), needle, nl)) != NULL) {
			if (!whole || ((p == (const char *)d->d_buf || !jem_ident(p[-1])) &&
			    p + nl < end && p[nl] == '\0'))
				return true;
			p++;
		}
	}
	return false;
}

/* Read e's symbol tables (and, stripped, its strings) into *s. */
static int
jem_scan_elf(Elf *e, const char *path, jem_scan *s)
{
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	uint64_t mv[YI_JEM_NPREFIX] = { 0 }, ms[YI_JEM_NPREFIX] = { 0 };
	uint64_t sv[YI_JEM_NPREFIX] = { 0 }, ss[YI_JEM_NPREFIX] = { 0 };
	bool mdyn[YI_JEM_NPREFIX] = { false };

	memset(s, 0, sizeof(*s));
	s->prefix = -1;
	if (elf_kind(e) != ELF_K_ELF || gelf_getehdr(e, &eh) == NULL)
		return yi_error(YING_EPARSE, "%s: not an ELF file", path);
	s->e_type = eh.e_type;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t n;

		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			s->has_symtab = true;
		if ((sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    sh.sh_entsize == 0 || (d = elf_getdata(scn, NULL)) == NULL)
			continue;
		n = d->d_size / sh.sh_entsize;
		for (size_t i = 0; i < n && i <= INT_MAX; i++) {
			GElf_Sym sym;
			const char *name;
			int k;

			if (gelf_getsym(d, (int)i, &sym) == NULL ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE ||
			    sym.st_value == 0)
				continue;
			if ((name = elf_strptr(e, sh.sh_link, sym.st_name)) == NULL ||
			    (name[0] != 'm' && name[0] != '_' && name[0] != 'j'))
				continue;
			if ((k = jem_match(name, "mallctl")) >= 0) {
				mv[k] = sym.st_value;
				ms[k] = sym.st_size;
				mdyn[k] |= sh.sh_type == SHT_DYNSYM;
			} else if ((k = jem_match(name, "malloc_stats_print")) >= 0) {
				sv[k] = sym.st_value;
				ss[k] = sym.st_size;
			}
		}
	}
	for (int k = 0; k < YI_JEM_NPREFIX; k++) {
		if (mv[k] == 0)
			continue;
		s->prefix = k;
		s->where = mdyn[k] ? YING_JEM_DYNSYM : YING_JEM_SYMTAB;
		s->mallctl = mv[k];
		s->mallctl_size = ms[k];
		s->stats = sv[k];
		s->stats_size = ss[k];
		return 0;
	}
	if (!s->has_symtab && jem_rodata_has(e, "<jemalloc>: ", false)) {
		/* jemalloc's messages: it is linked in.  Its conf variable says
		 * the prefix: a prefixed one as a whole string, else none (an
		 * unprefixed "MALLOC_CONF" may share the bytes of a longer
		 * string ending in it). */
		s->where = YING_JEM_STRIPPED;
		s->prefix = 0;
		for (int k = 1; k < YI_JEM_NPREFIX; k++) {
			char conf[32];
			jem_conf_name(k, conf, sizeof(conf));
			if (jem_rodata_has(e, conf, true)) {
				s->prefix = k;
				break;
			}
		}
	}
	return 0;
}

static void
jem_fill_public(const jem_scan *s, ying_jem_elf *out)
{
	memset(out, 0, sizeof(*out));
	out->where = s->where;
	out->stripped = !s->has_symtab;
	if (s->prefix < 0)
		return;
	snprintf(out->prefix, sizeof(out->prefix), "%s", yi_jem_prefixes[s->prefix]);
	jem_conf_name(s->prefix, out->conf_var, sizeof(out->conf_var));
	if (s->where == YING_JEM_DYNSYM || s->where == YING_JEM_SYMTAB)
		snprintf(out->symbol, sizeof(out->symbol), "%smallctl",
		    yi_jem_prefixes[s->prefix]);
}

int
ying_jem_elf_read(ying_jem_elf *out, const char *path)
{
	jem_scan s;
	Elf *e;
	int fd, rc;

	yi_error_clear();
	if (out == NULL || path == NULL)
		return yi_error(YING_EINVAL, "ying_jem_elf_read: path or out is NULL");
	memset(out, 0, sizeof(*out));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return yi_error(errno == ENOENT ? YING_ENOTFOUND : YING_EIO,
		    "%s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	if ((e = elf_begin(fd, ELF_C_READ_MMAP, NULL)) == NULL) {
		close(fd);
		return yi_error(YING_EPARSE, "%s: not an ELF file (%s)", path,
		    elf_errmsg(-1));
	}
	rc = jem_scan_elf(e, path, &s);
	elf_end(e);
	close(fd);
	if (rc == 0)
		jem_fill_public(&s, out);
	return rc;
}

/* ---- this process ---------------------------------------------------------- */

/* One loaded object, copied out of dl_iterate_phdr without allocating. */
typedef struct jem_obj {
	size_t want, seen;           /* the index asked for; objects counted */
	unsigned long long adds;     /* dlpi_adds: objects ever loaded */
	bool got;
	uintptr_t base;
	char name[PATH_MAX];
	size_t nx;                   /* executable PT_LOAD ranges, run-time */
	uintptr_t xlo[JEM_MAX_X], xhi[JEM_MAX_X];
} jem_obj;

static int
jem_obj_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	jem_obj *o = arg;
	const char *nm;
	size_t len;

	if (size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof(info->dlpi_adds))
		o->adds = info->dlpi_adds;
	if (o->seen++ != o->want)
		return 0;
	o->got = true;
	o->base = (uintptr_t)info->dlpi_addr;
	nm = info->dlpi_name ? info->dlpi_name : "";
	len = strlen(nm);
	if (len >= sizeof(o->name))
		len = 0;                 /* too long to open anyway */
	memcpy(o->name, nm, len);
	o->name[len] = '\0';
	o->nx = 0;
	for (ElfW(Half) i = 0; i < info->dlpi_phnum && o->nx < JEM_MAX_X; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		o->xlo[o->nx] = o->base + ph->p_vaddr;
		o->xhi[o->nx] = o->base + ph->p_vaddr + ph->p_memsz;
		o->nx++;
	}
	return 1;
}

/* The run-time address of file address v of object o, after checking that
 * it lies in an executable segment and that its first bytes are the
 * file's; 0 when not. */
static uintptr_t
jem_addr(Elf *e, const jem_scan *s, const jem_obj *o, uint64_t v, uint64_t size)
{
	uintptr_t a = (s->e_type == ET_EXEC ? 0 : o->base) + (uintptr_t)v;
	size_t nph = 0, rawsize = 0, n;
	const char *raw;
	bool in_x = false;

	for (size_t i = 0; i < o->nx; i++)
		in_x |= a >= o->xlo[i] && a < o->xhi[i];
	if (!in_x || elf_getphdrnum(e, &nph) != 0 ||
	    (raw = elf_rawfile(e, &rawsize)) == NULL)
		return 0;
	n = size > 0 && size < JEM_CMP_BYTES ? (size_t)size : JEM_CMP_BYTES;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		uint64_t off;
		if (gelf_getphdr(e, (int)i, &ph) == NULL || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X) || v < ph.p_vaddr || v >= ph.p_vaddr + ph.p_filesz)
			continue;
		off = v - ph.p_vaddr + ph.p_offset;
		if (ph.p_vaddr + ph.p_filesz - v < n)
			n = (size_t)(ph.p_vaddr + ph.p_filesz - v);
		for (size_t x = 0; x < o->nx; x++)
			if (a >= o->xlo[x] && a < o->xhi[x] && a + n > o->xhi[x])
				return 0;
		if (off > rawsize || rawsize - off < n)
			return 0;
		return memcmp((const void *)a, raw + off, n) == 0 ? a : 0;
	}
	return 0;
}

/* One object: 1 found (and accepted by ok()), 0 not; *s says what the file
 * holds. */
static int
jem_try_object(const char *path, const jem_obj *o, jem_scan *s,
    bool (*ok)(ying_mallctl_fn), yi_jem_found *f)
{
	Elf *e;
	int fd, found = 0;

	memset(s, 0, sizeof(*s));
	s->prefix = -1;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	if ((e = elf_begin(fd, ELF_C_READ_MMAP, NULL)) != NULL) {
		if (jem_scan_elf(e, path, s) == 0 &&
		    (s->where == YING_JEM_DYNSYM || s->where == YING_JEM_SYMTAB)) {
			uintptr_t a = jem_addr(e, s, o, s->mallctl, s->mallctl_size);
			uintptr_t sp = s->stats ? jem_addr(e, s, o, s->stats, s->stats_size) : 0;
			ying_mallctl_fn fn;
			/* an address is a function pointer on every target we build for */
			memcpy(&fn, &a, sizeof(fn));
			if (a != 0 && ok(fn)) {
				f->mallctl = fn;
				memcpy(&f->stats, &sp, sizeof(f->stats));
				snprintf(f->symbol, sizeof(f->symbol), "%smallctl",
				    yi_jem_prefixes[s->prefix]);
				snprintf(f->how, sizeof(f->how), "%s",
				    s->where == YING_JEM_DYNSYM ? ".dynsym" : ".symtab");
				f->prefix = s->prefix;
				found = 1;
			}
		}
		elf_end(e);
	}
	yi_error_clear();
	close(fd);
	return found;
}

/* The last fruitless search (under the caller's lock): not repeated while
 * no object was loaded since. */
static unsigned long long jem_searched_adds;
static bool jem_searched;
static yi_jem_found jem_last;

int
yi_ctl_find_loaded(yi_jem_found *f, bool (*ok)(ying_mallctl_fn))
{
	static jem_obj o;            /* big; the caller holds ctl_find_lock */
	char path[PATH_MAX];
	jem_scan s;

	memset(f, 0, sizeof(*f));
	elf_version(EV_CURRENT);
	for (size_t i = 0; ; i++) {
		memset(&o, 0, sizeof(o));
		o.want = i;
		dl_iterate_phdr(jem_obj_cb, &o);
		if (i == 0 && jem_searched && o.adds == jem_searched_adds) {
			*f = jem_last;
			return 0;
		}
		if (!o.got)
			break;
		if (i == 0 && o.name[0] == '\0') {
			ssize_t n = readlink("/proc/self/exe", f->main_file,
			    sizeof(f->main_file) - 1);
			f->main_file[n > 0 ? n : 0] = '\0';
			snprintf(path, sizeof(path), "/proc/self/exe");
		} else if (strchr(o.name, '/') != NULL) {
			snprintf(path, sizeof(path), "%s", o.name);
		} else {
			continue;            /* the vDSO, or a name too long */
		}
		if (jem_try_object(path, &o, &s, ok, f)) {
			snprintf(f->file, sizeof(f->file), "%s",
			    i == 0 && o.name[0] == '\0' ? f->main_file : o.name);
			jem_searched = false;
			return 1;
		}
		if (i == 0 && o.name[0] == '\0')
			f->main_stripped = !s.has_symtab;
		if (s.where == YING_JEM_STRIPPED && f->stripped_file[0] == '\0')
			snprintf(f->stripped_file, sizeof(f->stripped_file), "%s",
			    i == 0 && o.name[0] == '\0' ? f->main_file : o.name);
	}
	jem_searched = true;
	jem_searched_adds = o.adds;
	jem_last = *f;
	return 0;
}

/* Every jemalloc of the loaded objects, not the first only (the control
 * layer's other heaps: a Rust program's _rjem_ one in its .symtab beside a
 * preloaded libjemalloc).  The same walk as above, without its cache: run
 * once per new set of objects by the caller (live_ctl.c), under its lock. */
size_t
yi_ctl_find_all(yi_jem_found *out, size_t max, bool (*ok)(ying_mallctl_fn))
{
	static jem_obj o;            /* big; the caller holds ctl_find_lock */
	static yi_jem_found f;
	char path[PATH_MAX];
	jem_scan s;
	size_t got = 0;

	elf_version(EV_CURRENT);
	for (size_t i = 0; got < max; i++) {
		bool main_prog;
		memset(&o, 0, sizeof(o));
		o.want = i;
		dl_iterate_phdr(jem_obj_cb, &o);
		if (!o.got)
			break;
		memset(&f, 0, sizeof(f));
		main_prog = i == 0 && o.name[0] == '\0';
		if (main_prog) {
			ssize_t n = readlink("/proc/self/exe", f.main_file,
			    sizeof(f.main_file) - 1);
			f.main_file[n > 0 ? n : 0] = '\0';
			snprintf(path, sizeof(path), "/proc/self/exe");
		} else if (strchr(o.name, '/') != NULL) {
			snprintf(path, sizeof(path), "%s", o.name);
		} else {
			continue;
		}
		if (jem_try_object(path, &o, &s, ok, &f)) {
			snprintf(f.file, sizeof(f.file), "%s", main_prog ? f.main_file : o.name);
			out[got++] = f;
		}
	}
	return got;
}
