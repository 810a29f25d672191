/*
 * live_ctl.h: private to the control layer's files (live_ctl.c,
 * live_ctl_dump.c, live_ctl_find.c; not installed): the functions one file
 * offers the others.
 */
#ifndef YING_LIVE_CTL_H
#define YING_LIVE_CTL_H

#include <limits.h>
#include <pthread.h>

#include "live.h"

/* Serialises dumps (and prof.reset, which must not run during one). */
extern pthread_mutex_t yi_ctl_dump_lock;
/* An "epoch" refresh and the stats.* reads after it, as one snapshot: the
 * memory history's sample (every second, from the HTTP listener) would
 * otherwise refresh the statistics in the middle of /debug/memory's 150
 * reads.  Held across fork (live_ctl.c); take it before any other lock of
 * the control layer, never the other way round. */
void yi_ctl_stats_lock(void);
void yi_ctl_stats_unlock(void);

/* ---- live_ctl.c */
int yi_ctl_need_prof(ying_mallctl_fn *out);
/* jemalloc's mallctl, found once (the error says why not). */
int yi_ctl_get(ying_mallctl_fn *out);
/* mallctl(name) into out, exactly size bytes; YING_ENOTSUP when jemalloc has
 * no such node. */
int yi_ctl_read_num(ying_mallctl_fn fn, const char *name, void *out, size_t size);

/* ---- live_ctl_find.c */
/* What a search of the loaded objects' symbol tables found (static storage
 * of the caller; nothing to free).  Found: mallctl (and stats, when the
 * same object defines the same prefix's malloc_stats_print), the symbol,
 * the table (".symtab", or ".dynsym" of an object dlsym does not see) and
 * the object's file.  Not found: the main program's file and whether it is
 * stripped, and the first stripped object whose strings show a jemalloc. */
typedef struct yi_jem_found {
	ying_mallctl_fn mallctl;
	ying_stats_print_fn stats;
	char symbol[32];
	int prefix;                  /* index into yi_jem_prefixes */
	char how[16];
	char file[PATH_MAX];
	char main_file[PATH_MAX];
	bool main_stripped;
	char stripped_file[PATH_MAX];
} yi_jem_found;
/* Search every loaded object's .dynsym and .symtab (dl_iterate_phdr order,
 * the main program first) for mallctl, _rjem_mallctl, je_mallctl; a
 * candidate is called only after its address checks out, and taken when
 * ok(fn) says it is jemalloc.  1 found, 0 not.  The caller holds the lock
 * that serialises finding (the results and a cache are static). */
int yi_ctl_find_loaded(yi_jem_found *f, bool (*ok)(ying_mallctl_fn));
/* Every jemalloc the loaded objects' .dynsym and .symtab define (the same
 * checks), up to max of them into out[]; how many.  Under the same lock. */
size_t yi_ctl_find_all(yi_jem_found *out, size_t max, bool (*ok)(ying_mallctl_fn));

/* ---- live_ctl.c: the heaps (issue 26: every jemalloc of the process) */
#define YI_CTL_MAX_HEAPS 4
typedef struct yi_ctl_heap {
	ying_mallctl_fn fn;
	char name[33];               /* "rust", "c", "je" (live_ctl_heaps.c) */
} yi_ctl_heap;
/* The profiled jemallocs of this process in dump order (the program's own
 * prefixed ones first, an unprefixed one beside them last), the primary
 * (ying_ctl_mallctl) among them; *n is 1 with YING_HEAPS=one, with a
 * mallctl given by ying_ctl_use, or when there is only one.  0 or the
 * primary's error. */
int yi_ctl_heaps(yi_ctl_heap *out, size_t *n);

/* ---- live_ctl_heaps.c */
/* One heap_v2 text of n dumps (the first heap's header threads and maps,
 * the t* header summed, the other heaps' per-thread lines dropped, the
 * "ying-heap: NAME STACKS" trailer); *out yi_malloc'd.  YING_ENOTSUP when
 * the periods differ, YING_EPARSE naming the heap and line of a malformed
 * dump, YING_EINVAL for a bad name. */
int yi_ctl_heaps_combine(const char *const *dumps, const size_t *lens,
    const char *const *names, size_t n, char **out, size_t *len);

/* The prefixes jemalloc builds put on their symbols, in the order they are
 * tried: none (mallctl), tikv-jemallocator's "_rjem_", and "je_" (a
 * --with-jemalloc-prefix build).  The one list: the dlsym search
 * (live_ctl.c) and the ELF .symtab search (live_ctl_find.c) use it. */
#define YI_JEM_NPREFIX 3
extern const char *const yi_jem_prefixes[YI_JEM_NPREFIX];

/* ---- live_ctl_dump.c (for live_ctl_recent.c) */
/* "ying-build-id:" lines of the loaded objects; *out is yi_malloc'd (the
 * caller frees it; may be empty with *len 0). */
int yi_ctl_build_id_lines(char **out, size_t *len);

#endif /* YING_LIVE_CTL_H */
