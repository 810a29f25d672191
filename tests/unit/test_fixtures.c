/*
 * test_fixtures.c: the guard that keeps the suite independent of the
 * machine it runs on.
 *
 * 1. Every committed dump in tests/data (whatever parses as a profile:
 *    heap_v2, gzipped, pprof) is read through libying, and each executable
 *    mapping's path is checked.  A path under /usr, /lib, /lib64 (and the
 *    kernel's /dev, /proc, /sys) is a system file: allowed, but never to be
 *    symbolized by name in an assertion (another machine has another libc).
 *    A path inside the checkout or the build tree must be something the
 *    build makes (YING_BUILT from the Makefile).  Any other path that EXISTS
 *    on this machine fails: that is the "fixture maps /tmp/gen/heapgen,
 *    which only the author's machine has" mistake, and it now fails on the
 *    author's machine instead of on everybody else's.  A path that exists
 *    nowhere (/nonexistent/...) is fine: it symbolizes as module+0xOFF
 *    everywhere.
 * 2. The test sources must not hard-code /tmp: a line of tests/unit,
 *    tests/integration or tests/programs that names /tmp fails unless it
 *    also says TMPDIR (a fallback) or carries the marker "hermetic-ok"
 *    (this file, which spells out the rule, is not read).
 *    make check gives every test its own TMPDIR and HOME (mk/hermetic.mk).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "tap.h"

static char srcdir[PATH_MAX], builddir[PATH_MAX], rsrcdir[PATH_MAX], rbuilddir[PATH_MAX];
static const char *built;

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the regular files in dir (NULL-terminated; the caller
 * frees each name and the array).  NULL if dir cannot be read. */
static char **
list_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL, path[PATH_MAX + 256];
	size_t n = 0;
	struct stat st;

	if (d == NULL)
		return NULL;
	while ((e = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (e->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		v = realloc(v, (n + 2) * sizeof(*v));
		v[n++] = strdup(e->d_name);
	}
	closedir(d);
	if (v == NULL)
		v = calloc(1, sizeof(*v));
	else
		qsort(v, n, sizeof(*v), cmp_str);
	v[n] = NULL;
	return v;
}

static void
free_list(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static bool
has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

/* The rest of path after dir and a '/', or NULL if path is not inside dir. */
static const char *
inside(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 0 || strncmp(path, dir, n) != 0 || path[n] != '/')
		return NULL;
	return path + n + 1;
}

static bool
system_path(const char *path)
{
	static const char *const sys[] = { "/usr/", "/lib/", "/lib64/", "/dev/", "/proc/", "/sys/" };

	for (size_t i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		if (strncmp(path, sys[i], strlen(sys[i])) == 0)
			return true;
	return false;
}

/* rel (relative to the build tree) is one of the files the build makes:
 * a program of YING_BUILT, or the shared object of one of its libtool
 * libraries (dir/.libs/name.so, name.so.N...). */
static bool
made_by_build(const char *rel)
{
	const char *s = built;

	while (*s) {
		size_t n = strcspn(s, " \t\n");
		char w[1024];
		if (n > 0 && n < sizeof(w)) {
			memcpy(w, s, n);
			w[n] = '\0';
			if (has_suffix(w, ".la")) {
				char so[1100], *slash;
				size_t k;
				w[n - 3] = '\0';
				slash = strrchr(w, '/');
				if (slash) {
					*slash = '\0';
					snprintf(so, sizeof(so), "%s/.libs/%s.so", w, slash + 1);
				} else {
					snprintf(so, sizeof(so), ".libs/%s.so", w);
				}
				k = strlen(so);
				if (strncmp(rel, so, k) == 0 && (rel[k] == '\0' || rel[k] == '.'))
					return true;
			} else if (strcmp(rel, w) == 0) {
				return true;
			}
		}
		s += n;
		s += strspn(s, " \t\n");
	}
	return false;
}

/* "" when path is fine for a committed fixture, else why not. */
static const char *
check_path(const char *path, char *why, size_t len)
{
	const char *rb, *rs;
	char real[PATH_MAX];
	struct stat st;

	why[0] = '\0';
	if (path[0] != '/' || system_path(path))
		return why;
	rb = inside(path, rbuilddir) ? inside(path, rbuilddir) : inside(path, builddir);
	rs = inside(path, rsrcdir) ? inside(path, rsrcdir) : inside(path, srcdir);
	if (rb && made_by_build(rb))
		return why;
	if (rb || rs) {
		snprintf(why, len, "is in the checkout or the build tree, but the build does "
		    "not make it (%s)", rb ? rb : rs);
		return why;
	}
	if (stat(path, &st) == 0) {
		/* it may be a link to a build product */
		if (realpath(path, real) && (rb = inside(real, rbuilddir)) && made_by_build(rb))
			return why;
		snprintf(why, len, "exists on this machine only (not a system file, not made "
		    "by the build): another machine symbolizes it as module+0xOFF");
	}
	return why;
}

/* Check every executable mapping of the dump `name`; returns the number of
 * bad paths (each one reported). */
static int
check_dump(const char *name, const ying_profile *p)
{
	char why[512];
	int bad = 0;

	for (size_t i = 0; i < p->maps.n; i++) {
		const yi_mapping *m = &p->maps.v[i];
		const char *path = yi_profile_str(p, m->path);
		if (!m->exec || path == NULL)
			continue;
		if (*check_path(path, why, sizeof(why))) {
			printf("# tests/data/%s maps %s, which %s\n", name, path, why);
			bad++;
		}
	}
	return bad;
}

static void
test_dumps(void)
{
	const char *data = getenv("YING_DATA");
	char **files = list_dir(data), path[PATH_MAX + 256], what[PATH_MAX + 300];
	int ndumps = 0;

	ok(files != NULL, "tests/data can be listed");
	for (size_t i = 0; files && files[i]; i++) {
		const char *f = files[i];
		bool want_dump = has_suffix(f, ".heap") || has_suffix(f, ".heap.gz") ||
		    has_suffix(f, ".pb") || has_suffix(f, ".pb.gz") || has_suffix(f, ".pprof");
		ying_profile *p = NULL;
		int rc;

		snprintf(path, sizeof(path), "%s/%s", data, f);
		rc = ying_profile_read_file(&p, path);
		if (want_dump) {
			snprintf(what, sizeof(what), "tests/data/%s parses", f);
			is_int(rc, 0, what);
			if (rc != 0)
				printf("#   %s\n", ying_last_error());
		}
		if (p == NULL) {
			if (!want_dump)
				printf("# tests/data/%s: not a dump\n", f);
			continue;
		}
		ndumps++;
		snprintf(what, sizeof(what),
		    "tests/data/%s maps only system files, build products or paths that exist nowhere", f);
		ok(check_dump(f, p) == 0, what);
		ying_profile_free(p);
	}
	ok(ndumps >= 5, "every dump fixture was checked (heap1, its .gz, accum, exact, flame_fake)");
	free_list(files);
}

/* The rule itself, on paths made here: the checks above cannot pass
 * vacuously. */
static void
test_rule(void)
{
	char why[512], path[PATH_MAX + 64], dir[PATH_MAX];
	char save_b[PATH_MAX], save_rb[PATH_MAX], save_s[PATH_MAX], save_rs[PATH_MAX];
	const char *t = getenv("TMPDIR");
	FILE *f;

	ok(!*check_path("/usr/lib/x86_64-linux-gnu/libc.so.6", why, sizeof(why)), "system library: ok");
	ok(!*check_path("/nonexistent/ying-flame/flamefix", why, sizeof(why)), "a path that exists nowhere: ok");
	ok(!*check_path("[vdso]", why, sizeof(why)), "pseudo path: ok");
	snprintf(path, sizeof(path), "%s/tests/programs/heapgen", builddir);
	ok(!*check_path(path, why, sizeof(why)), "the build tree's heapgen: ok");
	snprintf(path, sizeof(path), "%s/.libs/libying-agent.so", builddir);
	ok(!*check_path(path, why, sizeof(why)), "the build tree's agent: ok");
	snprintf(path, sizeof(path), "%s/tests/programs/not-a-product", builddir);
	has_str(check_path(path, why, sizeof(why)), "not make it (tests/programs/not-a-product)",
	    "build tree, not a product: refused");
	snprintf(path, sizeof(path), "%s/tests/data/heapgen", rsrcdir);
	has_str(check_path(path, why, sizeof(why)), "not make it", "a file in the checkout: refused");

	/* A file that exists here only, as /tmp/gen/heapgen did.
	 * TMPDIR lies in the build tree, so pretend the trees are elsewhere. */
	snprintf(save_b, sizeof(save_b), "%s", builddir);
	snprintf(save_rb, sizeof(save_rb), "%s", rbuilddir);
	snprintf(save_s, sizeof(save_s), "%s", srcdir);
	snprintf(save_rs, sizeof(save_rs), "%s", rsrcdir);
	strcpy(builddir, "/nonexistent/ying-build");
	strcpy(rbuilddir, builddir);
	strcpy(srcdir, "/nonexistent/ying-src");
	strcpy(rsrcdir, srcdir);
	snprintf(dir, sizeof(dir), "%s/gen", t ? t : ".");
	mkdir(dir, 0700);
	snprintf(path, sizeof(path), "%s/heapgen", dir);
	if ((f = fopen(path, "w")) != NULL)
		fclose(f);
	has_str(check_path(path, why, sizeof(why)), "exists on this machine only",
	    "an existing file outside system and build: refused");
	remove(path);
	ok(!*check_path(path, why, sizeof(why)), "... and fine once it is gone");
	rmdir(dir);
	strcpy(builddir, save_b);
	strcpy(rbuilddir, save_rb);
	strcpy(srcdir, save_s);
	strcpy(rsrcdir, save_rs);
}

static bool
word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* line names the absolute path /tmp: "/tmp" that does not continue a
 * path or a variable ("$T/tmp", "$T"/tmp, ${D}/tmp) nor a longer name. */
static bool
names_tmp(const char *line)
{
	for (const char *s = strstr(line, "/tmp"); s; s = strstr(s + 1, "/tmp")) {
		char before = s > line ? s[-1] : ' ';
		char before2 = s > line + 1 ? s[-2] : ' ';
		if (word_char(s[4]) || s[4] == '-' || s[4] == '.')
			continue;
		if (word_char(before) || before == '}' || before == '.' || before == '/' ||
		    before == ')')
			continue;
		if ((before == '"' || before == '\'') && (word_char(before2) || before2 == '}'))
			continue;
		return true;
	}
	return false;
}

/* Lines naming /tmp in the test sources (see the header comment). */
static int
lint_file(const char *path, const char *shown)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	int n = 0, bad = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (names_tmp(line) && !strstr(line, "TMPDIR") && !strstr(line, "hermetic-ok")) {
			printf("# %s:%d names /tmp (use $TMPDIR): %s", shown, n, line);
			bad++;
		}
	}
	fclose(f);
	return bad;
}

static void
test_lint(void)
{
	static const char *const dirs[] = { "tests/unit", "tests/integration", "tests/programs" };
	char dir[PATH_MAX + 64], path[PATH_MAX + 320], shown[300], what[400];
	int nfiles = 0;

	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		char **files;
		int bad = 0;
		snprintf(dir, sizeof(dir), "%s/%s", srcdir, dirs[d]);
		files = list_dir(dir);
		for (size_t i = 0; files && files[i]; i++) {
			if (strcmp(files[i], "test_fixtures.c") == 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
			snprintf(shown, sizeof(shown), "%s/%s", dirs[d], files[i]);
			bad += lint_file(path, shown);
			nfiles++;
		}
		snprintf(what, sizeof(what), "%s: no fixed /tmp path", dirs[d]);
		ok(files != NULL && bad == 0, what);
		free_list(files);
	}
	ok(nfiles > 30, "the test sources were read");
}

static void
test_environment(void)
{
	const char *t = getenv("TMPDIR"), *h = getenv("HOME"), *s = getenv("YING_SCRATCH");

	ok(s && t && inside(t, s), "TMPDIR is the test's scratch directory");
	ok(s && h && inside(h, s), "HOME is the test's scratch directory");
	ok(s && (inside(s, builddir) || inside(s, rbuilddir)), "scratch lies in the build tree");
}

int
main(void)
{
	const char *s = getenv("YING_SRCDIR"), *b = getenv("YING_BUILDDIR");

	built = getenv("YING_BUILT");
	if (s == NULL || b == NULL || built == NULL || getenv("YING_DATA") == NULL) {
		printf("Bail out! YING_SRCDIR, YING_BUILDDIR, YING_BUILT, YING_DATA unset: "
		    "run through make check\n");
		return 1;
	}
	snprintf(srcdir, sizeof(srcdir), "%s", s);
	snprintf(builddir, sizeof(builddir), "%s", b);
	if (!realpath(s, rsrcdir) || !realpath(b, rbuilddir)) {
		printf("Bail out! realpath: %s\n", strerror(errno));
		return 1;
	}
	test_environment();
	test_rule();
	test_dumps();
	test_lint();
	return tap_done();
}
