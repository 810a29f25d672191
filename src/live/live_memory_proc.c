/*
 * live_memory_proc.c: the kernel's side of the memory breakdown
 * (live_memory.h): every mapping of /proc/PID/smaps sorted into exactly one
 * field (files with code, other files, shared memory, the brk heap, glibc's
 * non-main arenas, the main and the threads' stacks, the kernel's own
 * mappings, every other anonymous mapping), the threads' stacks found by
 * their stack pointers (/proc/PID/task/TID/syscall) or by the PROT_NONE
 * guard below them, the largest files by name and VmRSS; the memory
 * cgroup is live_memory_cgroup.c's.  No static state: callable from
 * any of the agent's threads at once.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "live.h"
#include "live_memory.h"

/* glibc's HEAP_MAX_SIZE: 2 * DEFAULT_MMAP_THRESHOLD_MAX */
#if UINTPTR_MAX > 0xffffffffu
#define ARENA_SIZE ((uint64_t)64 << 20)
#else
#define ARENA_SIZE ((uint64_t)1 << 20)
#endif


enum {
	M_FILE, M_SHMEM, M_HEAP, M_STACK, M_TSTACK, M_KERNEL, M_ANON, M_ARENA
};
#define F_SP        1u           /* a thread's stack pointer lies in it */
#define F_ARENATAIL 2u           /* the PROT_NONE rest of an arena heap */

typedef struct map {
	uint64_t start, end, rss;
	int32_t file;                /* index into the file table, or -1 */
	uint8_t cls, flags;
	char perms[4];
} map;

typedef struct ftab {
	char **path;                 /* yi_strdup'd */
	uint64_t *rss;
	bool *code;
	size_t n, cap;
	int32_t *slot;               /* open addressing: index or -1 */
	size_t nslot;                /* a power of two */
} ftab;

/* realloc of n * size (libying's yi_reallocarray is not exported to
 * libying-live) */
static void *
arr_realloc(void *p, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size)
		return NULL;
	return yi_realloc(p, n * size);
}

static uint64_t
sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t
kb(uint64_t k)
{
	return k > UINT64_MAX / 1024 ? UINT64_MAX : k * 1024;
}

/* Decimal digits at *p (saturating): true when there was at least one. */
bool
yi_mem_parse_dec(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');
		x = x > (UINT64_MAX - d) / 10 ? UINT64_MAX : x * 10 + d;
	}
	*p = s;
	*v = x;
	return true;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Hex digits at *p (an optional "0x" first): false when none or too many. */
static bool
parse_hex(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int d, n = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && hexval(s[2]) >= 0)
		s += 2;
	for (; (d = hexval(*s)) >= 0; s++, n++) {
		if (x >> 60)
			return false;
		x = x << 4 | (uint64_t)d;
	}
	if (n == 0)
		return false;
	*p = s;
	*v = x;
	return true;
}

/* ---- the file table: one entry a path ----------------------------------- */

static uint64_t
hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void
ftab_free(ftab *t)
{
	for (size_t i = 0; i < t->n; i++)
		yi_free(t->path[i]);
	yi_free(t->path);
	yi_free(t->rss);
	yi_free(t->code);
	yi_free(t->slot);
	memset(t, 0, sizeof(*t));
}

static int
ftab_rehash(ftab *t, size_t nslot)
{
	int32_t *s = arr_realloc(NULL, nslot, sizeof(*s));

	if (s == NULL)
		return yi_oom("the memory breakdown's file table");
	for (size_t i = 0; i < nslot; i++)
		s[i] = -1;
	for (size_t i = 0; i < t->n; i++) {
		size_t h = (size_t)hash_str(t->path[i]) & (nslot - 1);
		while (s[h] >= 0)
			h = (h + 1) & (nslot - 1);
		s[h] = (int32_t)i;
	}
	yi_free(t->slot);
	t->slot = s;
	t->nslot = nslot;
	return 0;
}

/* The index of path in t (added if new), or a negative YING_* code. */
static int32_t
ftab_get(ftab *t, const char *path)
{
	size_t h;
	int rc;

	if (t->n >= INT32_MAX / 4)
		return yi_error(YING_ELIMIT, "the memory breakdown: too many mapped files");
	if ((t->n + 1) * 2 > t->nslot && (rc = ftab_rehash(t, t->nslot ? t->nslot * 2 : 256)) != 0)
		return rc;
	for (h = (size_t)hash_str(path) & (t->nslot - 1); t->slot[h] >= 0;
	    h = (h + 1) & (t->nslot - 1))
		if (strcmp(t->path[t->slot[h]], path) == 0)
			return t->slot[h];
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 64;
		char **p = arr_realloc(t->path, nc, sizeof(*p));
		if (p == NULL)
			return yi_oom("the memory breakdown's file table");
		t->path = p;
		uint64_t *r = arr_realloc(t->rss, nc, sizeof(*r));
		if (r == NULL)
			return yi_oom("the memory breakdown's file table");
		t->rss = r;
		bool *c = arr_realloc(t->code, nc, sizeof(*c));
		if (c == NULL)
			return yi_oom("the memory breakdown's file table");
		t->code = c;
		t->cap = nc;
	}
	if ((t->path[t->n] = yi_strdup(path)) == NULL)
		return yi_oom("the memory breakdown's file table");
	t->rss[t->n] = 0;
	t->code[t->n] = false;
	t->slot[h] = (int32_t)t->n;
	return (int32_t)t->n++;
}

/* ---- smaps ---------------------------------------------------------------- */

/* The class of a mapping by its path and permissions. */
static uint8_t
classify(const char *path, const char *perms, uint64_t inode)
{
	bool shared = perms[3] == 's';

	if (path[0] == '\0')
		return shared ? M_SHMEM : M_ANON;
	if (path[0] == '[') {
		if (strcmp(path, "[heap]") == 0)
			return M_HEAP;
		if (strcmp(path, "[stack]") == 0)
			return M_STACK;
		if (strncmp(path, "[stack:", 7) == 0)          /* kernels before 4.5 */
			return M_TSTACK;
		if (strncmp(path, "[anon_shmem", 11) == 0)
			return M_SHMEM;
		if (strncmp(path, "[anon:", 6) == 0) {         /* prctl(PR_SET_VMA) names */
			if (shared)
				return M_SHMEM;
			/* glibc.mem.decorate_maps (glibc 2.40) */
			if (memcmp(perms, "---p", 4) != 0 &&
			    strncmp(path, "[anon: glibc: pthread stack", 27) == 0)
				return M_TSTACK;
			if (strncmp(path, "[anon: glibc: malloc arena", 26) == 0)
				return M_ARENA;
			return M_ANON;
		}
		return M_KERNEL;
	}
	if (path[0] == '/') {
		if (strncmp(path, "/memfd:", 7) == 0 || strncmp(path, "/SYSV", 5) == 0 ||
		    strncmp(path, "/dev/zero", 9) == 0 || strncmp(path, "/dev/shm/", 9) == 0)
			return M_SHMEM;
		if (strncmp(path, "/anon_hugepage", 14) == 0)  /* MAP_HUGETLB anonymous */
			return shared ? M_SHMEM : M_ANON;
		if (inode != 0)
			return M_FILE;
	}
	/* anon_inode:..., a path without an inode */
	return shared ? M_SHMEM : M_ANON;
}

/* A mapping's header "start-end perms offset dev inode [path]" into *m and
 * its path (in line); false when malformed. */
static bool
parse_header(char *line, map *m, uint64_t *inode, char **path)
{
	const char *p = line;
	uint64_t x;

	if (!parse_hex(&p, &m->start) || *p++ != '-' || !parse_hex(&p, &m->end) ||
	    *p++ != ' ')
		return false;
	for (int i = 0; i < 4; i++, p++) {
		if (strchr(i == 3 ? "ps" : i == 0 ? "r-" : i == 1 ? "w-" : "x-", *p) == NULL ||
		    *p == '\0')
			return false;
		m->perms[i] = *p;
	}
	if (*p++ != ' ' || !parse_hex(&p, &x) || *p++ != ' ' || !parse_hex(&p, &x) ||
	    *p++ != ':' || !parse_hex(&p, &x) || *p++ != ' ' || !yi_mem_parse_dec(&p, inode))
		return false;
	if (*p != '\0' && *p != ' ')
		return false;
	while (*p == ' ')
		p++;
	*path = (char *)p;
	return m->start < m->end;
}

/* A "Key: value" line: the key into key[32], the value after spaces. */
static bool
parse_field(const char *line, char *key, const char **val)
{
	size_t k = 0;

	while ((line[k] >= 'A' && line[k] <= 'Z') || (line[k] >= 'a' && line[k] <= 'z') ||
	    (line[k] >= '0' && line[k] <= '9') || line[k] == '_')
		k++;
	if (k == 0 || k >= 32 || line[k] != ':')
		return false;
	memcpy(key, line, k);
	key[k] = '\0';
	line += k + 1;
	while (*line == ' ' || *line == '\t')
		line++;
	*val = line;
	return true;
}

/* "N kB" (nothing after) in bytes; false when malformed. */
static bool
parse_kb(const char *v, uint64_t *out)
{
	uint64_t x;

	if (!yi_mem_parse_dec(&v, &x) || strcmp(v, " kB") != 0)
		return false;
	*out = kb(x);
	return true;
}

/* One line of f into buf (the newline removed): 1, 0 at the end, or an
 * error (too long, a read error). */
int
yi_mem_read_line(FILE *f, char *buf, size_t n, const char *path, unsigned lineno)
{
	size_t len;

	if (fgets(buf, (int)n, f) == NULL)
		return ferror(f) ? yi_error(YING_EIO, "%s: read error at line %u", path,
		    lineno) : 0;
	len = strlen(buf);
	if (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	else if (len == n - 1 && !feof(f))
		return yi_error(YING_EPARSE, "%s line %u: longer than %zu bytes", path,
		    lineno, n - 2);
	return 1;
}

FILE *
yi_mem_open(const char *path, int *rc)
{
	FILE *f = fopen(path, "re");

	if (f == NULL)
		*rc = yi_error(errno == ENOENT ? YING_ENOTFOUND : YING_ESYS, "%s: %s", path,
		    strerror(errno));
	return f;
}

/* A read of smaps torn by the process changing its mappings meanwhile. */
#define SMAPS_TORN 1
#define SMAPS_TRIES 4

/* Every mapping of smaps into *maps (yi_malloc'd, sorted by address),
 * their files into t.  The kernel makes smaps a page at a time and lets go
 * of the mappings in between: a process that maps, unmaps or merges while
 * it is read (any other thread of a live one) can show a mapping again, or
 * one that starts below the end of the last.  Such a torn read gives
 * SMAPS_TORN, to read it again; on the last try (last) the newer view
 * wins: the mappings it overlaps are dropped or cut at its start. */
static int
read_smaps(const char *path, map **maps, size_t *nmaps, ftab *t, yi_mem_proc *out,
    bool last)
{
	char line[YI_MEM_LINE_MAX];
	map *v = NULL, *nv;
	size_t n = 0, cap = 0;
	unsigned lineno = 0;
	int rc = 0, r;
	FILE *f = yi_mem_open(path, &rc);

	if (f == NULL)
		return rc;
	while ((r = yi_mem_read_line(f, line, sizeof(line), path, lineno + 1)) == 1) {
		const char *p = line, *val;
		uint64_t x, inode;
		char key[32], *mpath;

		lineno++;
		if (parse_hex(&p, &x) && *p == '-') {
			map m = { .file = -1 };
			if (!parse_header(line, &m, &inode, &mpath)) {
				rc = yi_error(YING_EPARSE, "%s line %u: malformed mapping \"%.80s\"",
				    path, lineno, line);
				goto out;
			}
			if (n > 0 && m.start < v[n - 1].end) {
				if (!last) {
					rc = SMAPS_TORN;
					goto out;
				}
				while (n > 0 && v[n - 1].start >= m.start)
					n--;
				if (n > 0 && v[n - 1].end > m.start)
					v[n - 1].end = m.start;
			}
			m.cls = classify(mpath, m.perms, inode);
			if (m.cls == M_FILE) {
				int32_t i = ftab_get(t, mpath);
				if (i < 0) {
					rc = i;
					goto out;
				}
				m.file = i;
				if (m.perms[2] == 'x')
					t->code[i] = true;
			}
			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				if ((nv = arr_realloc(v, cap, sizeof(*v))) == NULL) {
					rc = yi_oom("reading smaps");
					goto out;
				}
				v = nv;
			}
			v[n++] = m;
		} else if (parse_field(line, key, &val)) {
			bool rss = strcmp(key, "Rss") == 0, swap = strcmp(key, "Swap") == 0;
			if (!rss && !swap)
				continue;
			if (n == 0 || !parse_kb(val, &x)) {
				rc = yi_error(YING_EPARSE, "%s line %u: %s", path, lineno, n == 0 ?
				    "a field before any mapping" : "malformed size");
				goto out;
			}
			if (rss)
				v[n - 1].rss = x;
			else
				out->swap = sat_add(out->swap, x);
		} else if (line[0] != '\0') {
			rc = yi_error(YING_EPARSE, "%s line %u: malformed line \"%.80s\"", path,
			    lineno, line);
			goto out;
		}
	}
	rc = r;
out:
	fclose(f);
	if (rc != 0) {
		yi_free(v);
		return rc;
	}
	*maps = v;
	*nmaps = n;
	return 0;
}

/* The mapping of v[0..n) holding addr, or -1. */
static ssize_t
find_map(const map *v, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (addr < v[mid].start)
			hi = mid;
		else if (addr >= v[mid].end)
			lo = mid + 1;
		else
			return (ssize_t)mid;
	}
	return -1;
}

/* Mark the mappings holding each thread's stack pointer
 * (task/TID/syscall: "running", "NR a1..a6 SP PC" or "-1 SP PC"); count the
 * threads.  Returns how many threads' stacks were not found that way (a
 * running thread, an unreadable file): the guard rule is for those. */
static size_t
mark_threads(const char *proc, pid_t pid, map *v, size_t n, uint64_t self_sp,
    yi_mem_proc *out)
{
	char dir[PATH_MAX], path[PATH_MAX + 300], buf[512];
	struct dirent *e;
	DIR *d;
	ssize_t i;
	size_t found = 0;

	if (self_sp != 0 && (i = find_map(v, n, self_sp)) >= 0) {
		v[i].flags |= F_SP;
		found++;          /* the calling thread's own ("running" in its file) */
	}
	if ((size_t)snprintf(dir, sizeof(dir), "%s/%ld/task", proc, (long)pid) >= sizeof(dir) ||
	    (d = opendir(dir)) == NULL)
		return 1;
	while ((e = readdir(d)) != NULL) {
		const char *tok[10], *p;
		uint64_t sp;
		size_t nt = 0;
		ssize_t k;
		int fd;

		if (e->d_name[0] == '.')
			continue;
		out->n_threads++;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s/syscall", dir, e->d_name) >=
		    sizeof(path) || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		k = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (k <= 0)
			continue;
		buf[k] = '\0';
		for (char *s = buf; *s && nt < 10;) {
			while (*s == ' ' || *s == '\n')
				*s++ = '\0';
			if (*s == '\0')
				break;
			tok[nt++] = s;
			while (*s && *s != ' ' && *s != '\n')
				s++;
		}
		if (nt != 3 && nt != 9)
			continue;      /* "running", or not understood */
		p = tok[nt == 3 ? 1 : 7];
		if (!parse_hex(&p, &sp) || *p != '\0' || sp == 0)
			continue;
		if ((i = find_map(v, n, sp)) >= 0) {
			v[i].flags |= F_SP;
			found++;
		}
	}
	closedir(d);
	return out->n_threads > found ? out->n_threads - found : 0;
}

static bool
anon_rw(const map *m)
{
	return m->cls == M_ANON && memcmp(m->perms, "rw-p", 4) == 0;
}

static bool
anon_none(const map *m)
{
	return m->cls == M_ANON && memcmp(m->perms, "---p", 4) == 0;
}

/* Sort the anonymous mappings: thread stacks (a stack pointer in them),
 * glibc's arena heaps, and, when some thread's stack pointer was not read
 * (unknown > 0), thread stacks above a guard: when every stack was found
 * by its pointer, a mapping that merely sits above a PROT_NONE one (an
 * allocator's, placed there by mmap) is not taken for a stack. */
static void
sort_anon(map *v, size_t n, size_t unknown)
{
	for (size_t i = 0; i < n; i++) {
		map *m = &v[i];
		if (m->cls == M_ANON && (m->flags & F_SP)) {
			m->cls = M_TSTACK;
			continue;
		}
		if (!anon_rw(m) || m->start % ARENA_SIZE != 0 || m->end - m->start > ARENA_SIZE)
			continue;
		if (m->end - m->start == ARENA_SIZE) {
			m->cls = M_ARENA;
		} else if (i + 1 < n && anon_none(&v[i + 1]) && v[i + 1].start == m->end &&
		    v[i + 1].end == m->start + ARENA_SIZE && !(v[i + 1].flags & F_SP)) {
			m->cls = M_ARENA;
			v[i + 1].flags |= F_ARENATAIL;
		}
	}
	for (size_t i = 1; unknown > 0 && i < n; i++)
		if (anon_rw(&v[i]) && anon_none(&v[i - 1]) && v[i - 1].end == v[i].start &&
		    !(v[i - 1].flags & F_ARENATAIL))
			v[i].cls = M_TSTACK;
}

static int
file_cmp(const void *a, const void *b)
{
	const yi_mem_file *x = a, *y = b;

	if (x->rss != y->rss)
		return x->rss < y->rss ? 1 : -1;
	return strcmp(x->path, y->path);
}

/* The t->n files' largest YI_MEM_NFILES into out->files. */
static void
top_files(const ftab *t, yi_mem_proc *out)
{
	for (size_t i = 0; i < t->n; i++) {
		yi_mem_file f;
		size_t k;

		if (t->rss[i] == 0)
			continue;
		if (out->n_files == YI_MEM_NFILES &&
		    t->rss[i] <= out->files[YI_MEM_NFILES - 1].rss)
			continue;
		snprintf(f.path, sizeof(f.path), "%s", t->path[i]);
		f.rss = t->rss[i];
		f.code = t->code[i];
		k = out->n_files < YI_MEM_NFILES ? out->n_files++ : YI_MEM_NFILES - 1;
		out->files[k] = f;
		qsort(out->files, out->n_files, sizeof(f), file_cmp);
	}
}

/* ---- status, the cgroup ----------------------------------------------- */

static int
read_vmrss(const char *path, yi_mem_proc *out)
{
	char line[YI_MEM_LINE_MAX];
	unsigned lineno = 0;
	int rc = 0, r;
	FILE *f = yi_mem_open(path, &rc);

	if (f == NULL)
		return rc;
	while ((r = yi_mem_read_line(f, line, sizeof(line), path, ++lineno)) == 1)
		if (strncmp(line, "VmRSS:", 6) == 0) {
			const char *v = line + 6;
			while (*v == ' ' || *v == '\t')
				v++;
			if (!parse_kb(v, &out->vmrss)) {
				r = yi_error(YING_EPARSE, "%s line %u: malformed VmRSS", path, lineno);
				break;
			}
		}
	fclose(f);
	return r;
}

/* ---- all of it -------------------------------------------------------- */

int
yi_mem_proc_read(yi_mem_proc *out, const char *proc_root, const char *cg_root,
    pid_t pid, uintptr_t self_sp)
{
	char path[PATH_MAX + 64];
	const char *proc = proc_root ? proc_root : "/proc";
	const char *cg = cg_root ? cg_root : "/sys/fs/cgroup";
	map *v = NULL;
	size_t n = 0;
	ftab t = { 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	out->cg_anon = out->cg_file = UINT64_MAX;
	if (pid <= 0)
		return yi_error(YING_EINVAL, "the memory breakdown: bad pid %ld", (long)pid);
	snprintf(path, sizeof(path), "%s/%ld/smaps", proc, (long)pid);
	for (int tries = 1;; tries++) {
		if ((rc = read_smaps(path, &v, &n, &t, out, tries == SMAPS_TRIES)) != SMAPS_TORN)
			break;
		ftab_free(&t);
		out->swap = 0;
	}
	if (rc != 0)
		goto fail;
	sort_anon(v, n, mark_threads(proc, pid, v, n, (uint64_t)self_sp, out));
	for (size_t i = 0; i < n; i++) {
		const map *m = &v[i];
		uint64_t *f;
		out->rss = sat_add(out->rss, m->rss);
		switch (m->cls) {
		case M_FILE:
			t.rss[m->file] = sat_add(t.rss[m->file], m->rss);
			f = t.code[m->file] ? &out->file_code : &out->file_data;
			break;
		case M_SHMEM: f = &out->shmem; break;
		case M_HEAP: f = &out->brk_heap; break;
		case M_STACK: f = &out->main_stack; break;
		case M_TSTACK:
			f = &out->thread_stacks;
			out->n_thread_stacks++;
			break;
		case M_KERNEL: f = &out->kernel; break;
		case M_ARENA:
			f = &out->glibc_arenas;
			out->n_glibc_arenas++;
			break;
		default:
			/* an arena's PROT_NONE rest (nothing resident) with its arena */
			f = (m->flags & F_ARENATAIL) ? &out->glibc_arenas : &out->anon_other;
			break;
		}
		*f = sat_add(*f, m->rss);
	}
	top_files(&t, out);
	yi_free(v);
	v = NULL;
	ftab_free(&t);
	snprintf(path, sizeof(path), "%s/%ld/status", proc, (long)pid);
	if ((rc = read_vmrss(path, out)) != 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/%ld/cgroup", proc, (long)pid);
	if ((rc = yi_mem_cgroup_read(path, cg, out)) != 0)
		goto fail;
	return 0;
fail:
	yi_free(v);
	ftab_free(&t);
	memset(out, 0, sizeof(*out));
	out->cg_anon = out->cg_file = UINT64_MAX;
	return rc;
}
