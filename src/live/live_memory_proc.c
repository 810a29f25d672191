/*
 * live_memory_proc.c: the kernel's side of the memory breakdown
 * (yi_mem_proc_read, live_memory.h).
 *
 * /proc/PID/smaps is read once into a list of mappings (range, perms,
 * inode, path, Rss, Swap); then each mapping is given exactly one kind, so
 * the kinds sum to the RSS:
 *
 *   - a path with inode != 0: a file; "code" when any mapping of that path
 *     is executable (programs and libraries), else "data"; memfd, SysV
 *     shm and /dev/zero mappings are shared memory, as is any other
 *     shared ('s') mapping without a file;
 *   - [heap], [stack], and the kernel's [vdso]/[vvar]/[vsyscall]/...;
 *   - an anonymous rw-p mapping starting on a 64 MiB boundary whose 64 MiB
 *     end with it or with the PROT_NONE mapping right after it: a heap of
 *     one of glibc's non-main arenas (HEAP_MAX_SIZE on 64-bit);
 *   - an anonymous mapping holding a thread's stack pointer (from
 *     task/TID/syscall, whose last two fields are the thread's sp and pc
 *     when it is blocked, or the caller's own stack address), or sitting
 *     right above an anonymous PROT_NONE mapping (the guard glibc puts
 *     below each thread stack): a thread stack;
 *   - anything else anonymous: "other", where jemalloc's pages are.
 *
 * The cgroup comes from /proc/PID/cgroup: v2's "0::PATH" (memory.current,
 * memory.max, memory.stat's anon and file) or v1's memory controller
 * (memory.usage_in_bytes, memory.limit_in_bytes, memory.stat's rss and
 * cache), under the cgroup mount; when PATH's files are not there (a
 * container whose namespace shows "/" for a path outside it) the mount's
 * own files are tried.  Runs on an agent thread or a CLI: it allocates
 * (the list of mappings, line buffers) and frees all before returning.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live.h"
#include "live_memory.h"

#define HEAP_MAX ((uint64_t)64 << 20)   /* glibc's HEAP_MAX_SIZE on 64-bit */
#define MAX_SPS 4096                     /* thread stack pointers kept */
#define MAX_MAPS 1000000                 /* mappings of one process (the
                                            kernel's default max is 65530) */

enum { K_NONE, K_FILE, K_SHMEM, K_HEAP, K_STACK, K_KERNEL, K_ARENA, K_TSTACK, K_ANON };

typedef struct mp {
	uint64_t start, end, rss, swap;
	char perms[5];
	uint64_t inode;
	uint32_t path;          /* offset into the path text, or UINT32_MAX */
	int kind;
	bool code;
} mp;

typedef struct maps {
	YI_VEC(mp) m;
	YI_VEC(char) text;      /* the paths, NUL-separated */
} maps;

static const char *
path_of(const maps *ms, const mp *m)
{
	return m->path == UINT32_MAX ? "" : ms->text.v + m->path;
}

/* "NNN kB" after a smaps key: bytes, saturating. */
static uint64_t
kb(const char *s)
{
	uint64_t v = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	for (; *s >= '0' && *s <= '9'; s++)
		v = v > (UINT64_MAX - 9) / 10 ? UINT64_MAX : v * 10 + (uint64_t)(*s - '0');
	return v > UINT64_MAX / 1024 ? UINT64_MAX : v * 1024;
}

static uint64_t
sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* A mapping's header line: "start-end perms offset dev inode [path]".
 * false when it is not one. */
static bool
header(const char *line, mp *m, const char **path)
{
	char *end;
	const char *p = line;
	unsigned long long a, b, ino;

	if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
		return false;
	errno = 0;
	a = strtoull(p, &end, 16);
	if (errno || *end != '-')
		return false;
	b = strtoull(end + 1, &end, 16);
	if (errno || *end != ' ' || b < a)
		return false;
	p = end + 1;
	if (strlen(p) < 5 || p[4] != ' ')
		return false;
	memcpy(m->perms, p, 4);
	m->perms[4] = '\0';
	p += 5;
	strtoull(p, &end, 16);            /* offset */
	if (errno || *end != ' ')
		return false;
	p = end + 1;
	p += strcspn(p, " ");             /* dev */
	if (*p != ' ')
		return false;
	ino = strtoull(p + 1, &end, 10);
	if (errno || (*end != ' ' && *end != '\n' && *end != '\0'))
		return false;
	p = end;
	while (*p == ' ')
		p++;
	m->start = a;
	m->end = b;
	m->inode = ino;
	*path = p;
	return true;
}

static int
read_smaps(maps *ms, const char *file)
{
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t n;
	FILE *f;
	int rc = 0;

	if ((f = fopen(file, "re")) == NULL)
		return yi_error(YING_EIO, "%s: %s", file, strerror(errno));
	while ((n = getline(&line, &cap, f)) > 0) {
		const char *path;
		mp m;

		lineno++;
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		memset(&m, 0, sizeof(m));
		if (header(line, &m, &path)) {
			if (ms->m.n >= MAX_MAPS) {
				rc = yi_error(YING_EPARSE, "%s: more than %d mappings", file,
				    MAX_MAPS);
				break;
			}
			m.path = UINT32_MAX;
			if (*path) {
				size_t len = strlen(path) + 1;
				if (ms->text.n + len >= UINT32_MAX) {
					rc = yi_error(YING_EPARSE, "%s: paths too long", file);
					break;
				}
				if ((rc = yi_vec_grow(&ms->text, len)) != 0)
					break;
				m.path = (uint32_t)ms->text.n;
				memcpy(ms->text.v + ms->text.n, path, len);
				ms->text.n += len;
			}
			if ((rc = yi_vec_grow(&ms->m, 1)) != 0)
				break;
			ms->m.v[ms->m.n++] = m;
			continue;
		}
		/* "Key: value" of the current mapping */
		const char *colon = strchr(line, ':');
		if (colon == NULL || colon == line || ms->m.n == 0) {
			rc = yi_error(YING_EPARSE, "%s:%zu: neither a mapping nor a "
			    "\"Key: value\" line of one", file, lineno);
			break;
		}
		for (const char *c = line; c < colon; c++)
			if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
			    (*c >= '0' && *c <= '9') || *c == '_')) {
				rc = yi_error(YING_EPARSE, "%s:%zu: a bad key", file, lineno);
				goto out;
			}
		if (strncmp(line, "Rss:", 4) == 0)
			ms->m.v[ms->m.n - 1].rss = kb(line + 4);
		else if (strncmp(line, "Swap:", 5) == 0)
			ms->m.v[ms->m.n - 1].swap = kb(line + 5);
	}
	if (rc == 0 && ferror(f))
		rc = yi_error(YING_EIO, "%s: read error", file);
	if (rc == 0 && ms->m.n == 0)
		rc = yi_error(YING_EPARSE, "%s: no mapping", file);
out:
	free(line);
	fclose(f);
	return rc;
}

/* The threads' stack pointers: the next-to-last field of each
 * task/TID/syscall ("NR a1..a6 SP PC" or "-1 SP PC"; "running" has none). */
static size_t
read_sps(const char *procdir, uint64_t *sps, size_t max, unsigned *nthreads)
{
	char path[PATH_MAX + 320], buf[512];
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	*nthreads = 0;
	snprintf(path, sizeof(path), "%s/task", procdir);
	if ((d = opendir(path)) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		FILE *f;
		char *fields[16], *tok, *save = NULL;
		int nf = 0;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		(*nthreads)++;
		snprintf(path, sizeof(path), "%s/task/%s/syscall", procdir, e->d_name);
		if (n >= max || (f = fopen(path, "re")) == NULL)
			continue;
		if (fgets(buf, sizeof(buf), f) != NULL) {
			for (tok = strtok_r(buf, " \n", &save); tok && nf < 16;
			    tok = strtok_r(NULL, " \n", &save))
				fields[nf++] = tok;
			if (nf >= 3 && strncmp(fields[nf - 2], "0x", 2) == 0) {
				errno = 0;
				uint64_t sp = strtoull(fields[nf - 2], NULL, 16);
				if (errno == 0 && sp != 0)
					sps[n++] = sp;
			}
		}
		fclose(f);
	}
	closedir(d);
	return n;
}

static bool
is_anon(const maps *ms, const mp *m)
{
	const char *p = path_of(ms, m);

	return m->inode == 0 && (p[0] == '\0' || strncmp(p, "[anon:", 6) == 0);
}

static bool
is_shmem_path(const char *p)
{
	return strncmp(p, "/memfd:", 7) == 0 || strncmp(p, "/SYSV", 5) == 0 ||
	    strncmp(p, "/dev/zero", 9) == 0 || strcmp(p, "[anon_shmem]") == 0 ||
	    strncmp(p, "[anon_shmem:", 12) == 0;
}

static bool
none_perms(const mp *m)
{
	return m->perms[0] == '-' && m->perms[1] == '-' && m->perms[2] == '-';
}

static void
classify(maps *ms, const uint64_t *sps, size_t nsps)
{
	size_t n = ms->m.n;

	for (size_t i = 0; i < n; i++) {
		mp *m = &ms->m.v[i];
		const char *p = path_of(ms, m);

		if (is_shmem_path(p) || (m->perms[3] == 's' && m->inode == 0))
			m->kind = K_SHMEM;
		else if (m->inode != 0 && p[0] == '/')
			m->kind = K_FILE;
		else if (strcmp(p, "[heap]") == 0)
			m->kind = K_HEAP;
		else if (strcmp(p, "[stack]") == 0)
			m->kind = K_STACK;
		else if (p[0] == '[' && strncmp(p, "[anon:", 6) != 0)
			m->kind = K_KERNEL;
		else if (m->inode != 0)
			m->kind = K_FILE;           /* a file without a path: data */
		else
			m->kind = K_ANON;
	}
	/* a file is code when any of its mappings is executable */
	for (size_t i = 0; i < n; i++) {
		mp *m = &ms->m.v[i];
		if (m->kind != K_FILE || m->perms[2] != 'x')
			continue;
		for (size_t j = 0; j < n; j++)
			if (ms->m.v[j].kind == K_FILE && ms->m.v[j].inode == m->inode &&
			    strcmp(path_of(ms, &ms->m.v[j]), path_of(ms, m)) == 0)
				ms->m.v[j].code = true;
	}
	for (size_t i = 0; i < n; i++) {
		mp *m = &ms->m.v[i];
		if (m->kind != K_ANON || !is_anon(ms, m))
			continue;
		/* glibc's arena heap: 64 MiB aligned, its reservation ends it */
		if (m->perms[0] == 'r' && m->perms[1] == 'w' && m->start % HEAP_MAX == 0 &&
		    (m->end == m->start + HEAP_MAX ||
		    (i + 1 < n && ms->m.v[i + 1].start == m->end && none_perms(&ms->m.v[i + 1]) &&
		    is_anon(ms, &ms->m.v[i + 1]) && ms->m.v[i + 1].end == m->start + HEAP_MAX))) {
			m->kind = K_ARENA;
			continue;
		}
		for (size_t k = 0; k < nsps; k++)
			if (sps[k] >= m->start && sps[k] < m->end) {
				m->kind = K_TSTACK;
				break;
			}
		if (m->kind == K_TSTACK)
			continue;
		/* glibc's thread stacks sit on a PROT_NONE guard */
		if (m->perms[0] == 'r' && m->perms[1] == 'w' && i > 0 &&
		    ms->m.v[i - 1].end == m->start && none_perms(&ms->m.v[i - 1]) &&
		    is_anon(ms, &ms->m.v[i - 1]) && ms->m.v[i - 1].kind == K_ANON)
			m->kind = K_TSTACK;
	}
}

/* The largest files by their mappings' total Rss. */
static void
top_files(yi_mem_proc *out, const maps *ms)
{
	for (size_t i = 0; i < ms->m.n; i++) {
		const mp *m = &ms->m.v[i];
		const char *p = path_of(ms, m);
		uint64_t rss = 0;
		bool seen = false;

		if (m->kind != K_FILE)
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = ms->m.v[j].kind == K_FILE && ms->m.v[j].inode == m->inode &&
			    strcmp(path_of(ms, &ms->m.v[j]), p) == 0;
		if (seen)
			continue;
		for (size_t j = i; j < ms->m.n; j++)
			if (ms->m.v[j].kind == K_FILE && ms->m.v[j].inode == m->inode &&
			    strcmp(path_of(ms, &ms->m.v[j]), p) == 0)
				rss = sat_add(rss, ms->m.v[j].rss);
		if (rss == 0)
			continue;
		unsigned k = out->n_files;
		if (k == YI_MEM_NFILES) {
			if (rss <= out->files[YI_MEM_NFILES - 1].rss)
				continue;
			k = YI_MEM_NFILES - 1;
		} else {
			out->n_files++;
		}
		while (k > 0 && out->files[k - 1].rss < rss) {
			out->files[k] = out->files[k - 1];
			k--;
		}
		snprintf(out->files[k].path, sizeof(out->files[k].path), "%s", p);
		out->files[k].rss = rss;
		out->files[k].code = m->code;
	}
}

/* ---- status and cgroup ---------------------------------------------------- */

static uint64_t
status_vmrss(const char *procdir)
{
	char path[PATH_MAX + 16], line[256];
	uint64_t v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/status", procdir);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "VmRSS:", 6) == 0) {
			v = kb(line + 6);
			break;
		}
	fclose(f);
	return v;
}

/* The first number of a file ("max" and v1's near-2^63: UINT64_MAX);
 * false when it cannot be read. */
static bool
file_num(const char *dir, const char *name, uint64_t *v)
{
	char path[PATH_MAX * 2 + 64], buf[64], *end;
	FILE *f;
	bool got = false;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "re")) == NULL)
		return false;
	if (fgets(buf, sizeof(buf), f) != NULL) {
		if (strncmp(buf, "max", 3) == 0) {
			*v = UINT64_MAX;
			got = true;
		} else {
			errno = 0;
			unsigned long long x = strtoull(buf, &end, 10);
			if (errno == 0 && end != buf) {
				*v = x >= ((uint64_t)1 << 62) ? UINT64_MAX : x;
				got = true;
			}
		}
	}
	fclose(f);
	return got;
}

static void
stat_keys(const char *dir, const char *k1, uint64_t *v1, const char *k2, uint64_t *v2)
{
	char path[PATH_MAX * 2 + 64], line[256];
	size_t l1 = strlen(k1), l2 = strlen(k2);
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.stat", dir);
	if ((f = fopen(path, "re")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, k1, l1) == 0 && line[l1] == ' ')
			*v1 = strtoull(line + l1 + 1, NULL, 10);
		else if (strncmp(line, k2, l2) == 0 && line[l2] == ' ')
			*v2 = strtoull(line + l2 + 1, NULL, 10);
	}
	fclose(f);
}

/* Read the cgroup's files in dir; true when its usage was there. */
static bool
cg_read(yi_mem_proc *out, const char *dir, int version)
{
	uint64_t usage = 0, limit = UINT64_MAX;

	if (!file_num(dir, version == 2 ? "memory.current" : "memory.usage_in_bytes", &usage))
		return false;
	if (!file_num(dir, version == 2 ? "memory.max" : "memory.limit_in_bytes", &limit))
		limit = UINT64_MAX;
	out->cg_version = version;
	out->cg_usage = usage;
	out->cg_limit = limit;
	if (version == 2)
		stat_keys(dir, "anon", &out->cg_anon, "file", &out->cg_file);
	else
		stat_keys(dir, "rss", &out->cg_anon, "cache", &out->cg_file);
	return true;
}

static void
read_cgroup(yi_mem_proc *out, const char *procdir, const char *cg_root)
{
	char path[PATH_MAX + 16], line[1024], dir[PATH_MAX * 2 + 16];
	char v2[PATH_MAX] = "", v1[PATH_MAX] = "";
	bool have2 = false, have1 = false;
	FILE *f;

	out->cg_anon = out->cg_file = UINT64_MAX;
	snprintf(path, sizeof(path), "%s/cgroup", procdir);
	if ((f = fopen(path, "re")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		line[strcspn(line, "\n")] = '\0';
		if (c2 == NULL)
			continue;
		*c1 = *c2 = '\0';
		if (strcmp(line, "0") == 0 && c1[1] == '\0') {
			snprintf(v2, sizeof(v2), "%s", c2 + 1);
			have2 = true;
		} else {
			/* v1: the controllers are comma-separated */
			for (char *t = c1 + 1, *s; t && *t; t = s) {
				s = strchr(t, ',');
				if (s)
					*s++ = '\0';
				if (strcmp(t, "memory") == 0) {
					snprintf(v1, sizeof(v1), "%s", c2 + 1);
					have1 = true;
				}
			}
		}
	}
	fclose(f);
	if (have1) {
		snprintf(dir, sizeof(dir), "%s/memory%s", cg_root, v1);
		snprintf(out->cg_path, sizeof(out->cg_path), "%s", v1);
		if (cg_read(out, dir, 1))
			return;
		snprintf(dir, sizeof(dir), "%s/memory", cg_root);
		if (cg_read(out, dir, 1))
			return;
	}
	if (have2) {
		snprintf(dir, sizeof(dir), "%s%s", cg_root, v2);
		snprintf(out->cg_path, sizeof(out->cg_path), "%s", v2);
		if (cg_read(out, dir, 2))
			return;
		if (cg_read(out, cg_root, 2))   /* a namespace's "/" */
			return;
	}
	out->cg_path[0] = '\0';
	out->cg_version = 0;
}

/* ---- the whole -------------------------------------------------------------- */

int
yi_mem_proc_read(yi_mem_proc *out, const char *proc_root, const char *cg_root,
    pid_t pid, uintptr_t self_sp)
{
	char procdir[PATH_MAX], file[PATH_MAX + 16];
	maps ms;
	uint64_t *sps;
	size_t nsps;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&ms, 0, sizeof(ms));
	if (proc_root == NULL)
		proc_root = "/proc";
	if (cg_root == NULL)
		cg_root = "/sys/fs/cgroup";
	if (pid <= 0)
		return yi_error(YING_EINVAL, "yi_mem_proc_read: pid %ld", (long)pid);
	snprintf(procdir, sizeof(procdir), "%s/%ld", proc_root, (long)pid);
	snprintf(file, sizeof(file), "%s/smaps", procdir);
	if ((rc = read_smaps(&ms, file)) != 0)
		goto out;
	if ((sps = yi_calloc(MAX_SPS + 1, sizeof(*sps))) == NULL) {
		rc = yi_oom("the threads' stack pointers");
		goto out;
	}
	nsps = read_sps(procdir, sps, MAX_SPS, &out->n_threads);
	if (self_sp)
		sps[nsps++] = self_sp;
	classify(&ms, sps, nsps);
	yi_free(sps);
	for (size_t i = 0; i < ms.m.n; i++) {
		const mp *m = &ms.m.v[i];
		uint64_t *f;

		out->rss = sat_add(out->rss, m->rss);
		out->swap = sat_add(out->swap, m->swap);
		switch (m->kind) {
		case K_FILE: f = m->code ? &out->file_code : &out->file_data; break;
		case K_SHMEM: f = &out->shmem; break;
		case K_HEAP: f = &out->brk_heap; break;
		case K_STACK: f = &out->main_stack; break;
		case K_KERNEL: f = &out->kernel; break;
		case K_ARENA: f = &out->glibc_arenas; out->n_glibc_arenas++; break;
		case K_TSTACK: f = &out->thread_stacks; out->n_thread_stacks++; break;
		default: f = &out->anon_other; break;
		}
		*f = sat_add(*f, m->rss);
	}
	top_files(out, &ms);
	out->vmrss = status_vmrss(procdir);
	read_cgroup(out, procdir, cg_root);
out:
	yi_vec_free(&ms.m);
	yi_vec_free(&ms.text);
	return rc;
}
