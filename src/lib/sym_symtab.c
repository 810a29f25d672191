/*
 * sym_symtab.c: symbols without DWARF, and resolving one address.
 *
 * Without DWARF, a sorted array of the file's function symbols (.symtab,
 * else .dynsym), built once per file and binary-searched, since
 * dwfl_module_addrsym scans.  resolve() answers one module address from
 * the file's cache, DWARF first (sym_dwarf.c), else the symbol table, else
 * the distance from the enclosing function's start (.eh_frame), and
 * caches the answer.
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
int
yi_intern_name(sym_file *f, const char *mangled, uint32_t *name, uint32_t *sysname)
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
	if ((d = yi_demangle(mangled)) != NULL) {
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


/* ---- where a function starts ------------------------------------------------ */

/*
 * Hidden and static functions of a stripped library have no symbol at all
 * (libLLVM exports a fraction of its functions).  jeprof names them after
 * the preceding export, which is wrong; ying names them module+0xSTART,
 * where START is the function's first byte according to the unwind table,
 * so every address of one function lands in one row.  The first byte is
 * the initial location of the FDE that covers the address, not the start
 * of the CFI row libdw answers with (dwarf_frame_info): a function has a
 * row per CFA rule (after each push and pop, after an early `ret`), so the
 * row start split one function into several names, one of them the `ret`
 * in its middle.  libdw has no "FDE containing this address" call; the
 * initial locations come from .eh_frame_hdr's binary-search table, which
 * the linker sorts (PT_GNU_EH_FRAME: still there when the section headers
 * are stripped), found once per file and searched in place.  FDEs do not
 * overlap, so the covering FDE's start is the greatest one at or below an
 * address libdw finds covered.  Without a usable table (no .eh_frame_hdr,
 * an encoding other than the datarel sdata4 every linker writes) the row
 * start stays the answer.
 */

/* n bytes at p as an unsigned number in the file's byte order. */
static uint64_t
rd_uint(const unsigned char *p, size_t n, bool msb)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[msb ? i : n - 1 - i] << (8 * (n - 1 - i));
	return v;
}

/* Bytes of a DW_EH_PE_* encoded value with a fixed size; 0 when omitted,
 * SIZE_MAX for a variable-length one (uleb128, sleb128). */
static size_t
eh_size(unsigned enc, size_t addrsize)
{
	if (enc == 0xff)
		return 0;
	switch (enc & 0x0f) {
	case 0x00: return addrsize;
	case 0x02: case 0x0a: return 2;
	case 0x03: case 0x0b: return 4;
	case 0x04: case 0x0c: return 8;
	default: return SIZE_MAX;
	}
}

/* Initial location i of f's table, a module address. */
static uint64_t
fde_at(const sym_file *f, size_t i)
{
	uint32_t u = (uint32_t)rd_uint(f->fdes + 8 * i, 4, f->fde_msb);
	int32_t rel;

	memcpy(&rel, &u, sizeof(rel));
	return f->fde_base + (uint64_t)(int64_t)rel;
}

/* f->fdes: .eh_frame_hdr's table of FDE initial locations, read in place
 * (libelf's bytes of the file: nothing is copied, and it goes with the
 * Elf when the file is trimmed); none when it is missing, not understood
 * or not sorted. */
static void
load_fdes(sym_file *f)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(f->mod, &bias);
	GElf_Ehdr eh;
	GElf_Phdr ph;
	Elf_Data *d;
	const unsigned char *b;
	size_t nph, i, asz, off, n, csz;

	f->fdes_built = true;
	if (elf == NULL || gelf_getehdr(elf, &eh) == NULL || elf_getphdrnum(elf, &nph) != 0)
		return;
	for (i = 0; i < nph; i++)
		if (gelf_getphdr(elf, (int)i, &ph) != NULL && ph.p_type == PT_GNU_EH_FRAME)
			break;
	if (i == nph || ph.p_filesz < 4 || ph.p_filesz > ((uint64_t)1 << 31) ||
	    (d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
	    ELF_T_BYTE)) == NULL || d->d_size < 4)
		return;
	b = d->d_buf;
	f->fde_msb = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	asz = eh.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
	/* version 1; the eh_frame_ptr, fde_count and table encodings: a
	 * count stored as a plain number, the table as datarel sdata4 pairs
	 * (initial location, FDE address) relative to the header */
	csz = eh_size(b[2], asz);
	if (b[0] != 1 || b[3] != 0x3b || (b[2] & 0x70) != 0 ||
	    eh_size(b[1], asz) == SIZE_MAX || csz == SIZE_MAX || csz == 0)
		return;
	off = 4 + eh_size(b[1], asz);
	if (off + csz > d->d_size)
		return;
	n = (size_t)rd_uint(b + off, csz, f->fde_msb);
	off += csz;
	if (n == 0 || n > (d->d_size - off) / 8)
		return;
	f->fdes = b + off;
	f->fde_base = ph.p_vaddr + bias;
	for (i = 1; i < n; i++)
		if (fde_at(f, i - 1) > fde_at(f, i)) {
			f->fdes = NULL;    /* no binary search on it */
			return;
		}
	f->nfdes = n;
}

/* The first byte of the function holding module address a, from the
 * unwind table: true with *start set, false when no FDE covers a. */
static bool
function_start(sym_file *f, uint64_t a, uint64_t *start)
{
	Dwarf_Addr cbias, lo, hi;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(f->mod, &cbias);
	Dwarf_Frame *frame = NULL;
	size_t l = 0, h;
	bool ok = false;

	if (cfi == NULL || a < cbias || dwarf_cfi_addrframe(cfi, a - cbias, &frame) != 0)
		return false;
	if (dwarf_frame_info(frame, &lo, &hi, NULL) >= 0 && lo + cbias <= a) {
		*start = lo + cbias;
		ok = true;
	}
	free(frame);
	if (!ok)
		return false;
	if (!f->fdes_built)
		load_fdes(f);
	for (h = f->nfdes; l < h;) {      /* first start > a */
		size_t mid = l + (h - l) / 2;
		if (fde_at(f, mid) <= a)
			l = mid + 1;
		else
			h = mid;
	}
	/* an FDE holds its rows: a start after the row's is another FDE's */
	if (l > 0 && fde_at(f, l - 1) <= *start)
		*start = fde_at(f, l - 1);
	return true;
}

/* Resolve module address a of file f into the cache; *res is the result. */
int
yi_resolve(sym_file *f, uint64_t a, const sym_result **res)
{
	uint32_t *slot, file = 0, line = 0;
	sym_framevec fv = { NULL, 0, 0 };
	uint64_t start;
	sym_result r;
	bool added;
	int rc;

	if ((slot = yi_map64_get(&f->by_addr, a)) != NULL) {
		*res = &f->results.v[*slot];
		return 0;
	}
	if (f->results.n >= SYM_MAX_ADDRS) {
		yi_cache_release(f);
		if ((rc = yi_cache_init(f)) != 0)
			return rc;
	}
	if ((rc = yi_dwarf_chain(f, a, &fv, &file, &line)) != 0)
		goto done;
	/* The outermost function needs a name: DWARF without one (or no
	 * DWARF) falls back to the symbol table.  So does a DWARF name
	 * without a linkage name when the symbol is mangled: line-tables-only
	 * debug info (rustc -C debuginfo=line-tables-only, clang -gmlt) names
	 * functions bare ("leak_entry"), the symbol has the whole path. */
	if (fv.n > 0 && fv.v[fv.n - 1].name != 0 && fv.v[fv.n - 1].name == fv.v[fv.n - 1].sysname) {
		const sym_entry *e;
		uint32_t nm, sys;
		if (!f->syms_loaded && (rc = load_syms(f)) != 0)
			goto done;
		if ((e = find_sym(f, a)) != NULL && e->name[0] == '_' &&
		    (e->name[1] == 'Z' || e->name[1] == 'R')) {
			if ((rc = yi_intern_name(f, e->name, &nm, &sys)) != 0)
				goto done;
			if (nm != sys) {        /* it demangled */
				fv.v[fv.n - 1].name = nm;
				fv.v[fv.n - 1].sysname = sys;
			}
		}
	}
	if (fv.n == 0 || fv.v[fv.n - 1].name == 0) {
		const sym_entry *e;
		if (!f->syms_loaded && (rc = load_syms(f)) != 0)
			goto done;
		/* A symbol of unknown size (assembler) with a function start
		 * between it and a is another function's: the start wins. */
		if ((e = find_sym(f, a)) != NULL && e->size == 0 && fv.n == 0 &&
		    function_start(f, a, &start) && start > e->addr)
			e = NULL;
		if (e != NULL) {
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
			if ((rc = yi_intern_name(f, e->name, &fr->name, &fr->sysname)) != 0)
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
	r.fdelta = fv.n == 0 && function_start(f, a, &start) ? a - start : 0;
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
