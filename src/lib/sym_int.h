/*
 * sym_int.h: private to the symbolizer files (sym_*.c, not installed, not
 * for other layers): the per-file ELF cache (sym_file and its address
 * results), struct ying_symbolizer, and the functions one sym_*.c file
 * offers the others.
 *
 * The symbolizer in one paragraph: a dump gives raw pcs plus the process's
 * /proc/self/maps.  Every pc is turned into an address inside its ELF file
 * (the p_vaddr world of the file's program headers), so nothing depends on
 * where ASLR put the file: a ying_symbolizer caches one open module per file
 * (keyed by path, device, inode, size and mtime) and the answer for every
 * address it has resolved, and reuses both across profiles.
 *   sym_demangle.c  C++ and Rust names (libiberty)
 *   sym_file.c      the per-file cache, separate debuginfo, PT_LOADs, build
 *                   IDs, and the call-instruction check
 *   sym_symtab.c    sorted function symbols; resolving one address
 *   sym_dwarf.c     per-unit function index and inline chains
 *   sym_pass.c      the profile pass (checking each mapped file, warnings,
 *                   yi_symbolize)
 *
 * Bounds: at most SYM_MAX_FILES open files between calls (least recently
 * used closed first; a call keeps the files it uses open, and opens at
 * most SYM_MAX_CALL_FILES) and SYM_MAX_ADDRS cached addresses per file
 * (the cache of that file is dropped when full).
 */
#ifndef YING_SYM_INT_H
#define YING_SYM_INT_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <pthread.h>
#include <sys/types.h>
#include <time.h>

#include "sym.h"

#define SYM_MAX_FILES 64
#define SYM_MAX_CALL_FILES 512    /* files one profile may make us open */
#define SYM_MAX_ADDRS (1u << 18)
#define SYM_MAX_CHAIN 64          /* inline depth kept per address */


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

	/* per compile unit: its functions' address ranges, sorted
	 * (sym_dwarf.c); built the first time an address falls into the unit */
	yi_map64 cu_by_off;             /* CU DIE offset -> index in cus */
	YI_VEC(struct sym_cu) cus;
	/* when libdw cannot answer from .debug_aranges (elfutils before
	 * 0.190 rejects the whole section if a table has an empty entry in
	 * its middle, as --gc-sections leaves; LLVM may emit none, or not for
	 * every unit): every unit's address ranges from its DIE, sorted
	 * (die = the CU DIE's offset), built once (sym_dwarf.c) */
	int aranges_ok;                 /* -1 not yet checked */
	bool units_built;
	sym_range *units;
	size_t nunits;

	/* address cache */
	yi_strtab strs;
	yi_map64 by_addr;               /* module address -> result index */
	yi_map64 demangled;             /* name pointer -> strtab id */
	YI_VEC(sym_result) results;
	YI_VEC(sym_frame) frames;
	bool had_syms;                  /* had symbols once (file_has_symbols):
	                                 * kept by ying_symbolizer_trim */
} sym_file;

struct ying_symbolizer {
	pthread_mutex_t lock;
	sym_file *head, *tail;
	size_t nfiles;
	uint64_t gen;
	size_t call_opened;             /* files opened by the current call */
};

typedef YI_VEC(sym_frame) sym_framevec;

/* ---- sym_demangle.c */
char *yi_demangle(const char *s);
/* ---- sym_file.c */
int yi_cache_init(sym_file *f);
void yi_cache_release(sym_file *f);
void yi_lru_trim(ying_symbolizer *s);
void yi_file_close_dwfl(sym_file *f);
bool yi_file_reopen(sym_file *f);
const char *yi_base_name(const char *path);
int yi_file_get(ying_symbolizer *s, const char *path, sym_file **out, char *why,
    size_t whylen);
bool yi_file_addr(const sym_file *f, uint64_t off, uint64_t *maddr);
bool yi_call_at(const sym_file *f, const unsigned char *raw, size_t rawsize, uint64_t r);
/* ---- sym_symtab.c */
int yi_intern_name(sym_file *f, const char *mangled, uint32_t *name, uint32_t *sysname);
int yi_resolve(sym_file *f, uint64_t a, const sym_result **res);
/* ---- sym_dwarf.c */
int yi_dwarf_chain(sym_file *f, uint64_t a, sym_framevec *out, uint32_t *file, uint32_t *line);

#endif /* YING_SYM_INT_H */
