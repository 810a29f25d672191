/*
 * fuzz_replay.c: the fuzz targets without libFuzzer (built when configure
 * has no --enable-fuzz, run by `make check`).  Every file of
 * tests/fuzz/corpus/<name>/ (the committed seeds: there must be some) and
 * tests/fuzz/regress/<name>/ (inputs that once crashed the target; may be
 * empty) is fed to target <name>, so a regression crashes here, and under
 * --enable-sanitize every input also runs under ASan+UBSan.  TAP: one line
 * per target and directory with the number of inputs.  The source tree is
 * $YING_SRCDIR (set by make check), else ".".  Dot files are skipped.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include "fuzz.h"

int fuzz_heap(const uint8_t *, size_t);
int fuzz_gzip(const uint8_t *, size_t);
int fuzz_pprof(const uint8_t *, size_t);
int fuzz_config(const uint8_t *, size_t);
int fuzz_maps(const uint8_t *, size_t);
int fuzz_url(const uint8_t *, size_t);
int fuzz_recent(const uint8_t *, size_t);
int fuzz_http(const uint8_t *, size_t);

static const struct {
	const char *name;
	int (*fn)(const uint8_t *, size_t);
} targets[] = {
	{ "heap", fuzz_heap },
	{ "gzip", fuzz_gzip },
	{ "pprof", fuzz_pprof },
	{ "config", fuzz_config },
	{ "maps", fuzz_maps },
	{ "url", fuzz_url },
	{ "recent", fuzz_recent },
#ifdef YING_HAVE_HTTP
	{ "http", fuzz_http },
#endif
};
#define NTARGETS (sizeof(targets) / sizeof(targets[0]))

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Feed every file of dir to fn; the number fed, -1 when dir cannot be read
 * (errno ENOENT: it does not exist), -2 when a file cannot be read. */
static long
replay_dir(const char *dir, int (*fn)(const uint8_t *, size_t))
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL, path[PATH_MAX];
	size_t n = 0, cap = 0;
	long fed = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			if ((names = realloc(names, cap * sizeof(*names))) == NULL)
				abort();
		}
		if ((names[n++] = strdup(e->d_name)) == NULL)
			abort();
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n && fed >= 0; i++) {
		FILE *f;
		uint8_t *buf = NULL;
		long len;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if ((f = fopen(path, "rb")) == NULL || fseek(f, 0, SEEK_END) != 0 ||
		    (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
		    (buf = malloc((size_t)len + 1)) == NULL ||
		    fread(buf, 1, (size_t)len, f) != (size_t)len) {
			printf("# cannot read %s: %s\n", path, strerror(errno));
			fed = -2;
		} else {
			/* an exact-size copy, so ASan sees reads past the end */
			uint8_t *exact = malloc(len ? (size_t)len : 1);
			if (exact == NULL)
				abort();
			memcpy(exact, buf, (size_t)len);
			fn(exact, (size_t)len);
			free(exact);
			fed++;
		}
		free(buf);
		if (f)
			fclose(f);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return fed;
}

int
main(void)
{
	const char *src = getenv("YING_SRCDIR");
	char dir[PATH_MAX];
	int fails = 0, t = 0;

	if (src == NULL || *src == '\0')
		src = ".";
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..%zu\n", 2 * NTARGETS);
	for (size_t i = 0; i < NTARGETS; i++) {
		long n;

		snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", src, targets[i].name);
		n = replay_dir(dir, targets[i].fn);
		if (n > 0) {
			printf("ok %d - %s: %ld corpus inputs replayed\n", ++t, targets[i].name, n);
		} else {
			printf("not ok %d - %s: corpus %s %s\n", ++t, targets[i].name, dir,
			    n == 0 ? "is empty" : "cannot be read");
			fails++;
		}
		snprintf(dir, sizeof(dir), "%s/tests/fuzz/regress/%s", src, targets[i].name);
		n = replay_dir(dir, targets[i].fn);
		if (n == -1 && errno == ENOENT)
			n = 0;
		if (n >= 0) {
			printf("ok %d - %s: %ld regression inputs replayed\n", ++t,
			    targets[i].name, n);
		} else {
			printf("not ok %d - %s: regression inputs in %s cannot be read\n", ++t,
			    targets[i].name, dir);
			fails++;
		}
	}
	return fails ? 1 : 0;
}
