/*
 * live_memory.h: private to the memory breakdown's files (live_memory.c:
 * jemalloc's side, the sum and its JSON, text and advice;
 * live_memory_proc.c: the kernel's side, /proc/PID/smaps, the threads'
 * stacks and the cgroup).  Not installed.
 *
 * The kernel's side sorts every mapping of /proc/PID/smaps into exactly
 * one of the fields below, so that the fields sum to `rss` (the sum of
 * every mapping's Rss) with nothing counted twice; jemalloc's pages are
 * among `anon_other` (nothing in smaps tells them apart), and
 * live_memory.c carves jemalloc's parts out of it with jemalloc's own
 * counters.
 */
#ifndef YING_LIVE_MEMORY_H
#define YING_LIVE_MEMORY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define YI_MEM_NFILES 8          /* the largest file mappings kept by name */

/* One file (all its mappings together) among the largest. */
typedef struct yi_mem_file {
	char path[256];
	uint64_t rss;
	bool code;                   /* the file has an executable mapping */
} yi_mem_file;

/* What the kernel says of a process's memory (yi_mem_proc_read). */
typedef struct yi_mem_proc {
	uint64_t rss;            /* sum of Rss over every mapping of smaps */
	uint64_t vmrss;          /* VmRSS of /proc/PID/status (the kernel's own
	                            counter; may differ a little from rss) */
	uint64_t swap;           /* sum of Swap (not part of rss) */
	/* Each mapping's Rss goes into exactly one of these (they sum to rss): */
	uint64_t file_code;      /* mappings of a file that has an executable
	                            mapping in the process (programs, libraries:
	                            their text, rodata, relro, data) */
	uint64_t file_data;      /* every other file mapping (data files, mmapped
	                            databases, locale archives...) */
	uint64_t shmem;          /* shared anonymous and memfd/SysV/dev-zero
	                            mappings ("/memfd:...", "/SYSV...",
	                            "/dev/zero", "[anon_shmem]", POSIX shm's
	                            "/dev/shm/..."; rw-s anonymous, shared
	                            "/anon_hugepage") */
	uint64_t brk_heap;       /* [heap]: the brk heap (glibc malloc's main arena) */
	uint64_t glibc_arenas;   /* anonymous mappings found to be glibc malloc's
	                            non-main arena heaps (HEAP_MAX 64 MiB aligned,
	                            the rest of the 64 MiB reserved PROT_NONE) */
	unsigned n_glibc_arenas;
	uint64_t main_stack;     /* [stack] */
	uint64_t thread_stacks;  /* anonymous mappings found to be thread stacks:
	                            a thread's stack pointer lies in it
	                            (/proc/PID/task/TID/syscall, and for the
	                            calling thread its own), or it sits just
	                            above a PROT_NONE guard mapping */
	unsigned n_thread_stacks;/* mappings counted in thread_stacks */
	unsigned n_threads;      /* entries of /proc/PID/task */
	uint64_t kernel;         /* [vdso], [vvar], [vsyscall], [uprobes]... */
	uint64_t anon_other;     /* every other anonymous private mapping
	                            (jemalloc's extents are here; prctl-named
	                            "[anon:NAME]", private "/anon_hugepage") */
	yi_mem_file files[YI_MEM_NFILES]; /* largest files by rss, largest first */
	unsigned n_files;
	/* The cgroup (v2 "0::/path" or v1's "memory" controller) of the
	 * process, read under cg_root. */
	int cg_version;          /* 0: none found, 1, 2 */
	char cg_path[256];       /* the path within the hierarchy ("/" at root) */
	uint64_t cg_usage;       /* memory.current / memory.usage_in_bytes */
	uint64_t cg_limit;       /* memory.max / memory.limit_in_bytes;
	                            UINT64_MAX: no limit ("max", or v1's huge) */
	uint64_t cg_anon, cg_file; /* v2 memory.stat anon/file, v1 rss/cache;
	                              UINT64_MAX when not read */
} yi_mem_proc;

/*
 * Read the kernel's side of pid's memory under proc_root (NULL: "/proc")
 * and cg_root (NULL: "/sys/fs/cgroup"); the test suite passes fixture
 * directories.  self_sp: an address on the calling thread's stack when pid
 * is the calling process (its mapping is a thread stack, or [stack]), else
 * 0.  0 with *out filled, or a YING_* code with the reason (the path that
 * could not be read) in ying_last_error(); a missing cgroup is no error
 * (cg_version 0), nor is an unreadable task/TID/syscall.  Allocates only
 * transiently (line buffers freed before returning): callable from the
 * agent's threads, never from a signal handler or the allocation path.
 */
int yi_mem_proc_read(yi_mem_proc *out, const char *proc_root,
    const char *cg_root, pid_t pid, uintptr_t self_sp);

/* Shared by live_memory_proc.c and live_memory_cgroup.c: decimal digits
 * at *p, saturating (true when there was one); one line of f into buf
 * without its newline (1, 0 at the end, or a YING_* error naming path and
 * lineno); fopen "re" (NULL with *rc YING_ENOTFOUND or YING_ESYS, said);
 * the cgroup named in path (/proc/PID/cgroup) read under cg into out
 * (0, or YING_EPARSE for a malformed file of the cgroup's). */
#define YI_MEM_LINE_MAX 8192  /* longer lines of /proc files are malformed */
bool yi_mem_parse_dec(const char **p, uint64_t *v);
int yi_mem_read_line(FILE *f, char *buf, size_t n, const char *path, unsigned lineno);
FILE *yi_mem_open(const char *path, int *rc);
int yi_mem_cgroup_read(const char *path, const char *cg, yi_mem_proc *out);
/* The pieces of yi_mem_cgroup_read, for the runner's limit watcher
 * (live_limit.c): the cgroup directory under cg of the cgroup named in
 * path (1 with dir[n], *ver 1 or 2 and the path within the hierarchy in
 * rel[rn] (may be NULL); 0 when none has a usage file; YING_EPARSE); its
 * usage (memory.current, v1 memory.usage_in_bytes) and limit (memory.max,
 * v1 memory.limit_in_bytes; UINT64_MAX: none): 1, 0 when the file cannot
 * be read, or YING_EPARSE.  One open and read each: cheap. */
int yi_mem_cgroup_locate(const char *path, const char *cg, char *dir, size_t n, int *ver,
    char *rel, size_t rn);
int yi_mem_cgroup_usage(const char *dir, int ver, uint64_t *usage);
int yi_mem_cgroup_limit(const char *dir, int ver, uint64_t *limit);

/* ---- the breakdown (live_memory.c computes it, live_memory_write.c
 * writes it as JSON and text) ---------------------------------------------- */
#define YI_MEM_NSITES 5               /* call sites listed per class */
#define YI_MEM_NCLASSES 8             /* fragmented classes with sites */
#define YI_MEM_NADVICE 12
#define YI_MEM_MIB ((uint64_t)1 << 20)

enum {
	YI_P_LIVE, YI_P_TCACHE, YI_P_FRAG, YI_P_DIRTY, YI_P_MUZZY, YI_P_META, YI_P_GLIBC,
	YI_P_STACK_MAIN, YI_P_STACK_THREADS, YI_P_FILES_CODE, YI_P_FILES_DATA, YI_P_SHMEM,
	YI_P_KERNEL, YI_P_ANON, YI_P_N
};
typedef struct yi_mem_part_def {
	const char *key, *name, *group;
} yi_mem_part_def;
extern const yi_mem_part_def yi_mem_parts[YI_P_N];

typedef struct yi_mem_site {
	char name[160];
	double bytes;
} yi_mem_site;

typedef struct yi_mem_class {
	uint64_t size;
	uint64_t slab_bytes;       /* curslabs * nregs * size */
	uint64_t used_bytes;       /* curregs * size */
	yi_mem_site sites[YI_MEM_NSITES];
	unsigned nsites;
} yi_mem_class;

typedef struct yi_mem_advice {
	int part;                  /* P_*, or -1: the cgroup */
	char text[320];
} yi_mem_advice;

struct ying_memory {
	long pid;
	yi_mem_proc proc;
	uint64_t parts[YI_P_N];
	uint64_t not_resident;
	bool split;                /* live and fragmentation split in proportion */
	/* jemalloc */
	bool have_jem;
	char jem_error[200];
	char jem_version[96];
	uint64_t allocated, active, resident, metadata, mapped, retained;
	uint64_t dirty, muzzy, tcache, page;
	bool bg_thread;
	int64_t dirty_decay_ms, muzzy_decay_ms;
	unsigned narenas;
	bool have_profiled;
	double profiled;
	/* glibc */
	bool have_glibc;
	uint64_t g_arena, g_hblkhd, g_uordblks, g_fordblks;
	/* size classes with slabs, largest free bytes first */
	yi_mem_class *classes;
	size_t nclasses;
	yi_mem_advice advice[YI_MEM_NADVICE];
	unsigned nadvice;
	uint64_t elapsed_us;
};


/* part of whole in percent (0 for an empty whole) */
static inline double
yi_mem_pct(uint64_t part, uint64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

#endif /* YING_LIVE_MEMORY_H */
