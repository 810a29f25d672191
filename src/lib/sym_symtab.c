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

int
yi_resolve(sym_file *f, uint64_t a, const sym_result **res)
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
