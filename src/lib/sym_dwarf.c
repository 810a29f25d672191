/*
 * sym_dwarf.c: addresses -> inline chains from DWARF.
 *
 * Per address: the CU from the aranges, then the unit's function index
 * (the address ranges of its DW_TAG_subprogram DIEs, sorted, built the
 * first time an address falls into the unit), the chain of
 * DW_TAG_inlined_subroutine up to the real DW_TAG_subprogram, the line
 * table for the innermost line and DW_AT_call_file/DW_AT_call_line for the
 * callers.
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
		return yi_intern_name(f, link, name, sysname);
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

/* ---- units by address, without .debug_aranges ----------------------------- */

#define UNIT_BACK_SCAN 8         /* ranges looked back for one holding a */

/* Every compile unit's address ranges from its DIE (DW_AT_low_pc/high_pc
 * or DW_AT_ranges), sorted.  Empty ranges and ranges at 0 (what linkers
 * leave for discarded code) are left out. */
static int
units_build(sym_file *f, Dwarf *dw)
{
	sym_rangevec r = { NULL, 0, 0 };
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t unit_type;
	Dwarf_Half version;
	int rc;

	f->units_built = true;
	while (dwarf_get_units(dw, cu, &cu, &version, &unit_type, &cudie, NULL) == 0) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		if (unit_type != DW_UT_compile && unit_type != DW_UT_partial)
			continue;
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0) {
			if (lo == 0 || hi <= lo)
				continue;
			if ((rc = yi_vec_grow(&r, 1)) != 0) {
				yi_free(r.v);
				return rc;
			}
			r.v[r.n].lo = lo;
			r.v[r.n].hi = hi;
			r.v[r.n].die = dwarf_dieoffset(&cudie);
			r.n++;
		}
	}
	qsort(r.v, r.n, sizeof(*r.v), cmp_range);
	f->units = r.v;
	f->nunits = r.n;
	return 0;
}

/* The unit holding DWARF address a from the ranges of the units' DIEs, in
 * *cudie; false when none does. */
static bool
unit_find(sym_file *f, Dwarf *dw, uint64_t a, Dwarf_Die *cudie)
{
	size_t lo = 0, hi = f->nunits, k;

	while (lo < hi) {                 /* first range starting above a */
		size_t mid = lo + (hi - lo) / 2;
		if (f->units[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = 0; k < UNIT_BACK_SCAN && k < lo; k++) {
		const sym_range *u = &f->units[lo - 1 - k];
		if (a < u->hi)
			return dwarf_offdie(dw, u->die, cudie) != NULL;
	}
	return false;
}

/* The line table's file and line for DWARF address a of unit cu. */
static int
unit_line(sym_file *f, Dwarf_Die *cu, uint64_t a, uint32_t *file, uint32_t *line)
{
	Dwarf_Line *ln = dwarf_getsrc_die(cu, a);
	const char *src;
	int l = 0;

	if (ln == NULL)
		return 0;
	if ((src = dwarf_linesrc(ln, NULL, NULL)) != NULL) {
		int rc = yi_strtab_intern(&f->strs, src, strlen(src), file);
		if (rc != 0)
			return rc;
	}
	*line = dwarf_lineno(ln, &l) == 0 && l > 0 ? (uint32_t)l : 0;
	return 0;
}

/* The DWARF chain for module address a (innermost first), with the line of
 * the innermost frame in *line and *file even when no function is found.
 * The unit comes from libdwfl (.debug_aranges) when it can say, else from
 * the units' own ranges; the line then from the unit's line table. */
int
yi_dwarf_chain(sym_file *f, uint64_t a, sym_framevec *out, uint32_t *file, uint32_t *line)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = NULL, cudie, sub, path[SYM_MAX_CHAIN], *dies[SYM_MAX_CHAIN];
	Dwfl_Line *ln;
	Dwarf *dw;
	int nc, k, rc = 0;
	size_t nd = 0, j;

	*file = *line = 0;
	dw = f->has_dwarf != 0 ? dwfl_module_getdwarf(f->mod, &bias) : NULL;
	f->has_dwarf = dw != NULL;
	if (!f->has_dwarf)
		return 0;
	if (f->aranges_ok < 0) {
		/* checked once: libdwfl retries (and fails) on every call */
		Dwarf_Aranges *ar;
		f->aranges_ok = dwarf_getaranges(dw, &ar, NULL) == 0;
	}
	if (f->aranges_ok)
		cu = dwfl_module_addrdie(f->mod, a, &bias);
	if (cu != NULL) {
		if ((ln = dwfl_module_getsrc(f->mod, a)) != NULL) {
			int l = 0;
			const char *src = dwfl_lineinfo(ln, NULL, &l, NULL, NULL, NULL);
			if (src != NULL &&
			    (rc = yi_strtab_intern(&f->strs, src, strlen(src), file)) != 0)
				return rc;
			*line = l > 0 ? (uint32_t)l : 0;
		}
	} else {
		if (!f->units_built && (rc = units_build(f, dw)) != 0)
			return rc;
		if (a < bias || !unit_find(f, dw, a - bias, &cudie))
			return 0;
		cu = &cudie;
		if ((rc = unit_line(f, cu, a - bias, file, line)) != 0)
			return rc;
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
