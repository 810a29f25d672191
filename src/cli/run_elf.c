/*
 * run_elf.c: for `ying run`: finding files (a command in PATH, the dynamic
 * loader's directories, /etc/ld.so.conf.d) and what CMD brings: an ELF scan
 * with libelf of DT_NEEDED (recursively, through the loader's search path
 * and the objects' RUNPATH/RPATH) and of the jemalloc defined in CMD or a
 * library, by libying's ying_jem_elf_read (mallctl, _rjem_mallctl or
 * je_mallctl in .dynsym or .symtab, or a stripped one's strings): the rule
 * the agent applies inside the process, so `ying run` and the agent agree.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <libelf.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

#include "run_elf.h"

#define AGENT_SO "libying-agent.so"
#define SCAN_MAX_DEPTH 8
#define SCAN_MAX_OBJECTS 512
/* ---- finding files ---------------------------------------------------------- */

bool
run_is_file(const char *path)
{
	struct stat st;

	return path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Search name in PATH like execvp; a name with '/' is taken as is.  *out is
 * malloc'd. */
int
run_find_in_path(const char *name, char **out)
{
	const char *path = getenv("PATH"), *p, *q;
	char buf[PATH_MAX];

	*out = NULL;
	if (strchr(name, '/')) {
		if (access(name, F_OK) != 0)
			return -1;
		*out = strdup(name);
		return *out ? 0 : -1;
	}
	if (path == NULL || *path == '\0')
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = q + 1) {
		size_t n;
		q = strchr(p, ':');
		n = q ? (size_t)(q - p) : strlen(p);
		if (n == 0)
			snprintf(buf, sizeof(buf), "./%s", name);
		else
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, name);
		if (run_is_file(buf) && access(buf, X_OK) == 0) {
			*out = strdup(buf);
			return *out ? 0 : -1;
		}
		if (q == NULL)
			break;
	}
	return -1;
}

/* Directories the dynamic loader searches by default, plus those listed in
 * /etc/ld.so.conf.d (good enough to find a program's libraries). */
const char *const run_default_lib_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
	"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
	"/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib", NULL
};


static int
strlist_add(strlist *l, const char *s, size_t n)
{
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 16;
		char **nv = realloc(l->v, nc * sizeof(*nv));
		if (nv == NULL)
			return -1;
		l->v = nv;
		l->cap = nc;
	}
	if ((l->v[l->n] = strndup(s, n)) == NULL)
		return -1;
	l->n++;
	return 0;
}

static bool
strlist_has(const strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return true;
	return false;
}

void
run_strlist_free(strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

/* Split a ':'-separated list into l, replacing $ORIGIN with origin. */
static void
add_dirs(strlist *l, const char *list, const char *origin)
{
	const char *p, *q;
	char buf[PATH_MAX];

	if (list == NULL)
		return;
	for (p = list; ; p = q + 1) {
		size_t n;
		q = strchr(p, ':');
		n = q ? (size_t)(q - p) : strlen(p);
		if (n > 0 && n < sizeof(buf)) {
			if (origin && (strncmp(p, "$ORIGIN", 7) == 0 ||
			    strncmp(p, "${ORIGIN}", 9) == 0)) {
				size_t skip = p[1] == '{' ? 9 : 7;
				snprintf(buf, sizeof(buf), "%s%.*s", origin, (int)(n - skip),
				    p + skip);
			} else {
				snprintf(buf, sizeof(buf), "%.*s", (int)n, p);
			}
			strlist_add(l, buf, strlen(buf));
		}
		if (q == NULL)
			break;
	}
}

static void
add_ld_so_conf_dirs(strlist *l)
{
	static const char *const confs[] = {
		"/etc/ld.so.conf.d/x86_64-linux-gnu.conf", "/etc/ld.so.conf.d/libc.conf",
		"/etc/ld.so.conf.d/aarch64-linux-gnu.conf", NULL
	};
	char line[PATH_MAX];

	for (int i = 0; confs[i]; i++) {
		FILE *f = fopen(confs[i], "re");
		if (f == NULL)
			continue;
		while (fgets(line, sizeof(line), f)) {
			size_t n = strcspn(line, " \t\r\n#");
			if (n > 0 && line[0] == '/')
				strlist_add(l, line, n);
		}
		fclose(f);
	}
}

/* ---- what CMD brings: an ELF scan ------------------------------------------- */


static void scan_object(elf_scan *sc, const char *path, int depth, bool is_main);

static void
scan_elf(elf_scan *sc, Elf *e, const char *path, int depth, bool is_main)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	strlist needed = { 0 }, dirs = { 0 };
	char *rpath = NULL, *runpath = NULL, origin[PATH_MAX];
	size_t nph = 0;
	bool has_interp = false;
	const char *slash;

	if (is_main) {
		sc->is_elf = true;
		if (elf_getphdrnum(e, &nph) == 0) {
			for (size_t i = 0; i < nph; i++) {
				GElf_Phdr ph;
				if (gelf_getphdr(e, (int)i, &ph) == NULL)
					continue;
				has_interp |= ph.p_type == PT_INTERP;
			}
		}
		/* no PT_INTERP: static or static-pie; no loader to preload with */
		if (!has_interp)
			sc->is_static = true;
	}
	/* The agent's own rule (ying_jem_elf_read), so that both agree. */
	if (!sc->jemalloc_defined && ying_jem_elf_read(&sc->jem, path) == 0 &&
	    sc->jem.where != YING_JEM_NONE) {
		sc->jemalloc_defined = true;
		sc->jem_file = strdup(path);
		if (sc->jemalloc_by == NULL)
			sc->jemalloc_by = strdup(path);
	}
	ying_error_clear();
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		Elf_Data *d;
		size_t i, n;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_DYNAMIC ||
		    sh.sh_entsize == 0 || (d = elf_getdata(scn, NULL)) == NULL)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Dyn dyn;
			const char *s;
			if (gelf_getdyn(d, (int)i, &dyn) == NULL)
				continue;
			if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RPATH &&
			    dyn.d_tag != DT_RUNPATH)
				continue;
			if ((s = elf_strptr(e, sh.sh_link, dyn.d_un.d_val)) == NULL)
				continue;
			if (dyn.d_tag == DT_NEEDED)
				strlist_add(&needed, s, strlen(s));
			else if (dyn.d_tag == DT_RPATH && rpath == NULL)
				rpath = strdup(s);
			else if (dyn.d_tag == DT_RUNPATH && runpath == NULL)
				runpath = strdup(s);
		}
	}
	slash = strrchr(path, '/');
	snprintf(origin, sizeof(origin), "%.*s", slash ? (int)(slash - path) : 1,
	    slash ? path : ".");
	if (runpath == NULL)
		add_dirs(&dirs, rpath, origin);
	add_dirs(&dirs, getenv("LD_LIBRARY_PATH"), NULL);
	add_dirs(&dirs, runpath, origin);
	add_ld_so_conf_dirs(&dirs);
	for (const char *const *dd = run_default_lib_dirs; *dd; dd++)
		strlist_add(&dirs, *dd, strlen(*dd));

	for (size_t i = 0; i < needed.n; i++) {
		const char *lib = needed.v[i], *b = strrchr(lib, '/');
		char buf[PATH_MAX];

		b = b ? b + 1 : lib;
		if (strncmp(b, "libjemalloc", 11) == 0) {
			sc->jemalloc_needed = true;
			if (sc->jemalloc_by == NULL)
				sc->jemalloc_by = strdup(path);
			continue;
		}
		if (depth >= SCAN_MAX_DEPTH)
			continue;
		if (strchr(lib, '/')) {
			scan_object(sc, lib, depth + 1, false);
			continue;
		}
		for (size_t k = 0; k < dirs.n; k++) {
			snprintf(buf, sizeof(buf), "%s/%s", dirs.v[k], lib);
			if (run_is_file(buf)) {
				scan_object(sc, buf, depth + 1, false);
				break;
			}
		}
	}
	run_strlist_free(&needed);
	run_strlist_free(&dirs);
	free(rpath);
	free(runpath);
}

static void
scan_object(elf_scan *sc, const char *path, int depth, bool is_main)
{
	char real[PATH_MAX];
	Elf *e;
	int fd;

	if (realpath(path, real) == NULL || strlist_has(&sc->seen, real) ||
	    sc->seen.n >= SCAN_MAX_OBJECTS)
		return;
	strlist_add(&sc->seen, real, strlen(real));
	if ((fd = open(real, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	if ((e = elf_begin(fd, ELF_C_READ_MMAP, NULL)) != NULL) {
		if (elf_kind(e) == ELF_K_ELF)
			scan_elf(sc, e, real, depth, is_main);
		elf_end(e);
	}
	close(fd);
}

/* Scan CMD; a "#!" script is followed to its interpreter (through env). */
void
run_scan_command(elf_scan *sc, const char *path)
{
	char line[PATH_MAX], *p, *interp, *arg, *found = NULL;
	int hops = 0;
	char cur[PATH_MAX];

	elf_version(EV_CURRENT);
	snprintf(cur, sizeof(cur), "%s", path);
	while (hops++ < 4) {
		FILE *f = fopen(cur, "re");
		size_t n;

		if (f == NULL)
			return;
		n = fread(line, 1, sizeof(line) - 1, f);
		fclose(f);
		line[n] = '\0';
		if (n < 2 || line[0] != '#' || line[1] != '!') {
			scan_object(sc, cur, 0, true);
			return;
		}
		line[strcspn(line, "\n")] = '\0';
		p = line + 2;
		p += strspn(p, " \t");
		interp = p;
		p += strcspn(p, " \t");
		if (*p) {
			*p++ = '\0';
			p += strspn(p, " \t");
		}
		arg = p;
		if (strcmp(strrchr(interp, '/') ? strrchr(interp, '/') + 1 : interp,
		    "env") == 0) {
			/* "#!/usr/bin/env [-S] [VAR=x] prog" */
			while (*arg == '-' || strchr(arg, '=') != NULL) {
				arg += strcspn(arg, " \t");
				arg += strspn(arg, " \t");
				if (*arg == '\0')
					return;
			}
			arg[strcspn(arg, " \t")] = '\0';
			if (run_find_in_path(arg, &found) != 0)
				return;
			snprintf(cur, sizeof(cur), "%s", found);
			free(found);
			found = NULL;
		} else {
			snprintf(cur, sizeof(cur), "%s", interp);
		}
	}
}
