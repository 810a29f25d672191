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
 *   sym_cache.c     the persistent cache: a file's results saved per build
 *                   ID and loaded when it is opened again
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
	uint64_t fdelta;          /* n == 0: distance from the first byte of
	                           * the enclosing function (its FDE's initial
	                           * location), so unnamed addresses group per
	                           * function */
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
	struct timespec ctime;          /* for the cache entry's binding */
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
	/* every function's first byte: .eh_frame_hdr's sorted table of FDE
	 * initial locations (nfdes pairs of 32-bit offsets from fde_base, in
	 * libelf's memory of the file, not ours), found the first time an
	 * unnamed address needs it (sym_symtab.c) */
	bool fdes_built, fde_msb;
	const unsigned char *fdes;
	uint64_t fde_base;              /* module address of the table's header */
	size_t nfdes;
	bool debuginfod;                /* opened asking debuginfod too */

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

	/* persistent cache (sym_cache.c) */
	bool cache_on;                  /* the file has a cache file name */
	bool cache_syms_new;            /* cache_syms computed, not saved */
	int cache_syms;                 /* file_has_symbols: -1 not known */
	size_t cache_saved;             /* results.n when loaded or saved */
	uint64_t cache_debug_id;        /* identity of its debug information */
	uint64_t cache_file_id;         /* identity of the file itself */
} sym_file;

struct ying_symbolizer {
	pthread_mutex_t lock;
	sym_file *head, *tail;
	size_t nfiles;
	uint64_t gen;
	size_t call_opened;             /* files opened by the current call */
	char *cache_dir;                /* persistent cache, NULL off (per call) */
	bool debuginfod;                /* the call's opts->debuginfod */
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
int yi_file_open_same(const sym_file *f);
#define SYM_DEBUGLINK_PLACES 3
bool yi_debuglink_place(size_t i, const char *file, const char *link, char *buf, size_t n);
bool yi_call_at(const sym_file *f, const unsigned char *raw, size_t rawsize, uint64_t r);
/* ---- sym_symtab.c */
int yi_intern_name(sym_file *f, const char *mangled, uint32_t *name, uint32_t *sysname);
int yi_resolve(sym_file *f, uint64_t a, const sym_result **res);
/* ---- sym_dwarf.c */
int yi_dwarf_chain(sym_file *f, uint64_t a, sym_framevec *out, uint32_t *file, uint32_t *line);
/* ---- sym_cache.c */
#define SYM_CACHE_MAX ((uint64_t)64 << 20)   /* default YING_CACHE_MAX */
#define SYM_CACHE_MAGIC "YINGSYMC"
#define SYM_CACHE_VERSION 3u                 /* 3: fdelta from the FDE start */
#define SYM_CACHE_BID_MAX 128                /* hex digits of a build ID */
#define SYM_CACHE_HAS_SYMS 1u                /* flags: file_has_symbols */
/* A cache file: this header, then nresults {u64 addr, u64 fdelta, u32 off,
 * u32 n} (by address), nframes sym_frame (ids into the strings), then nstrs
 * NUL-terminated strings (id order, the first ""), strbytes in all.  The
 * checksum is yi_hash_bytes of everything after the header. */
typedef struct sym_cache_hdr {
	char magic[8];
	uint32_t version;
	uint32_t flags;
	uint64_t self_id;           /* identity of the resolver's code */
	uint64_t debug_id;          /* identity of the debug information */
	uint64_t file_id;           /* the ELF file the answers came from */
	uint64_t checksum;          /* over the payload */
	uint64_t strbytes;
	uint32_t nresults, nframes, nstrs;
	uint32_t bid_len;
	char bid[SYM_CACHE_BID_MAX];
} sym_cache_hdr;
/* The usable cache directory from the environment, created if needed;
 * NULL when off or unusable.  The caller frees it (yi_free). */
char *yi_symcache_dir(void);
/* Compute f's debug identity and add the results of its cache file, if
 * any and valid.  0, or YING_ENOMEM. */
int yi_symcache_load(ying_symbolizer *s, sym_file *f);
/* Save (merged with the disk) every file of the current call that gained
 * results.  0, or YING_ENOMEM; nothing else is an error. */
int yi_symcache_save(ying_symbolizer *s);

#endif /* YING_SYM_INT_H */
