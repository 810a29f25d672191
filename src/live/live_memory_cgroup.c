/*
 * live_memory_cgroup.c: the memory cgroup of a process, for the memory
 * breakdown (live_memory.h): /proc/PID/cgroup names it (v2's "0::PATH",
 * or v1's "memory" controller among others), and its usage, limit and
 * anon/file split are read under the cgroup mount (memory.current,
 * memory.max and memory.stat; v1's memory.usage_in_bytes,
 * memory.limit_in_bytes and rss/cache), falling back to the mount's own
 * files when PATH is not there (a container's namespace).  The growth
 * runner's limit watcher (live_limit.c) locates the directory once and
 * reads only its usage file at each tick.
 */
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

/* The first line of dir/name as a number ("max" when max_ok: UINT64_MAX):
 * 1, 0 when the file cannot be read, or YING_EPARSE. */
static int
read_num(const char *dir, const char *name, bool max_ok, uint64_t *v)
{
	char path[PATH_MAX + 64], buf[64];
	const char *p = buf;
	ssize_t k;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path) ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	k = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (k < 0)
		return 0;
	buf[k] = '\0';
	if (max_ok && strcmp(buf, "max\n") == 0) {
		*v = UINT64_MAX;
		return 1;
	}
	if (!yi_mem_parse_dec(&p, v) || strcmp(p, "\n") != 0)
		return yi_error(YING_EPARSE, "%s line 1: not a number: \"%.20s\"", path, buf);
	return 1;
}

/* memory.stat's anon and file (v2), or total_rss/rss and total_cache/cache
 * (v1); left UINT64_MAX when missing. */
static void
read_stat(const char *dir, int ver, yi_mem_proc *out)
{
	char path[PATH_MAX + 64], line[256];
	uint64_t rss = UINT64_MAX, cache = UINT64_MAX, trss = UINT64_MAX,
	    tcache = UINT64_MAX;
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/memory.stat", dir) >= sizeof(path) ||
	    (f = fopen(path, "re")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *sp = strchr(line, ' ');
		const char *p;
		uint64_t x;
		if (sp == NULL)
			continue;
		*sp = '\0';
		p = sp + 1;
		if (!yi_mem_parse_dec(&p, &x) || (*p != '\n' && *p != '\0'))
			continue;
		if (strcmp(line, ver == 2 ? "anon" : "rss") == 0)
			rss = x;
		else if (strcmp(line, ver == 2 ? "file" : "cache") == 0)
			cache = x;
		else if (ver == 1 && strcmp(line, "total_rss") == 0)
			trss = x;
		else if (ver == 1 && strcmp(line, "total_cache") == 0)
			tcache = x;
	}
	fclose(f);
	out->cg_anon = trss != UINT64_MAX ? trss : rss;
	out->cg_file = tcache != UINT64_MAX ? tcache : cache;
}

/* The usage, limit and stat of the cgroup directory dir: 1, 0 when its
 * usage cannot be read, or an error. */
static int
read_cg_dir(const char *dir, int ver, yi_mem_proc *out)
{
	int r = yi_mem_cgroup_usage(dir, ver, &out->cg_usage);

	if (r <= 0)
		return r;
	if ((r = yi_mem_cgroup_limit(dir, ver, &out->cg_limit)) < 0)
		return r;
	read_stat(dir, ver, out);
	return 1;
}

/* The directory of the cgroup named in path (/proc/PID/cgroup) under cg:
 * 1 with dir[n], *ver (1 or 2) and the path within the hierarchy in
 * rel[rn] when its usage file is there, 0 when there is none (no cgroup
 * file, no memory controller, no usage file), or YING_EPARSE. */
int
yi_mem_cgroup_locate(const char *path, const char *cg, char *dir, size_t n, int *ver,
    char *rel, size_t rn)
{
	char line[YI_MEM_LINE_MAX], v2[PATH_MAX] = "", v1[PATH_MAX] = "";
	bool have1 = false, have2 = false;
	unsigned lineno = 0;
	uint64_t usage;
	int r, v;
	FILE *f = fopen(path, "re");

	if (f == NULL)
		return 0;                    /* no cgroup: no error */
	while ((r = yi_mem_read_line(f, line, sizeof(line), path, ++lineno)) == 1) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (line[0] == '\0')
			continue;
		if (c2 == NULL || c2[1] != '/') {
			r = yi_error(YING_EPARSE, "%s line %u: malformed \"%.80s\"", path, lineno,
			    line);
			break;
		}
		*c1 = *c2 = '\0';
		if (strcmp(line, "0") == 0 && c1[1] == '\0' && !have2) {
			snprintf(v2, sizeof(v2), "%s", c2 + 1);
			have2 = true;
		} else if (!have1) {
			for (char *tok = c1 + 1, *e; tok; tok = e ? e + 1 : NULL) {
				e = strchr(tok, ',');
				if ((e ? (size_t)(e - tok) : strlen(tok)) == 6 &&
				    strncmp(tok, "memory", 6) == 0) {
					snprintf(v1, sizeof(v1), "%s", c2 + 1);
					have1 = true;
					break;
				}
			}
		}
	}
	fclose(f);
	if (r < 0)
		return r;
	if (!have1 && !have2)
		return 0;
	/* v1's memory controller first: a hybrid system has both */
	v = have1 ? 1 : 2;
	if (rel != NULL && rn > 0)
		snprintf(rel, rn, "%s", have1 ? v1 : v2);
	if ((size_t)snprintf(dir, n, "%s%s%s", cg, v == 1 ? "/memory" : "",
	    have1 ? v1 : v2) < n && (r = yi_mem_cgroup_usage(dir, v, &usage)) != 0) {
		if (r < 0)
			return r;
		*ver = v;
		return 1;
	}
	/* a container shows its own cgroup at the hierarchy's root */
	if ((size_t)snprintf(dir, n, "%s%s", cg, v == 1 ? "/memory" : "") >= n)
		return 0;
	if ((r = yi_mem_cgroup_usage(dir, v, &usage)) <= 0)
		return r;
	*ver = v;
	return 1;
}

int
yi_mem_cgroup_usage(const char *dir, int ver, uint64_t *usage)
{
	return read_num(dir, ver == 2 ? "memory.current" : "memory.usage_in_bytes", false,
	    usage);
}

int
yi_mem_cgroup_limit(const char *dir, int ver, uint64_t *limit)
{
	int r;

	*limit = UINT64_MAX;
	if (ver == 2)
		return read_num(dir, "memory.max", true, limit);
	if ((r = read_num(dir, "memory.limit_in_bytes", false, limit)) > 0 &&
	    *limit >= (uint64_t)1 << 62)
		*limit = UINT64_MAX;
	return r;
}

int
yi_mem_cgroup_read(const char *path, const char *cg, yi_mem_proc *out)
{
	char dir[PATH_MAX];
	int r, ver = 0;

	if ((r = yi_mem_cgroup_locate(path, cg, dir, sizeof(dir), &ver, out->cg_path,
	    sizeof(out->cg_path))) <= 0)
		return r;
	if ((r = read_cg_dir(dir, ver, out)) < 0)
		return r;
	if (r > 0)
		out->cg_version = ver;
	return 0;
}
