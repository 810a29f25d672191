/*
 * tap.h: a tiny TAP producer for the unit tests.
 *
 * Each check prints "ok N - what" or "not ok N - what" with both operands on
 * failure; tap_done() prints the plan and returns the exit status.  Checks
 * never abort, so one run reports every failure.
 */
#ifndef YING_TAP_H
#define YING_TAP_H

#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

static inline int
tap_ok(int cond, const char *what)
{
	tap_n++;
	printf("%sok %d - %s\n", cond ? "" : "not ", tap_n, what);
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

#define ok(cond, what) tap_ok(!!(cond), (what))
#define is_int(got, want, what) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	if (!tap_ok(g_ == w_, (what))) \
		printf("#   got %lld, expected %lld\n", g_, w_); \
} while (0)
#define is_u64(got, want, what) do { \
	uint64_t g_ = (uint64_t)(got), w_ = (uint64_t)(want); \
	if (!tap_ok(g_ == w_, (what))) \
		printf("#   got %" PRIu64 ", expected %" PRIu64 "\n", g_, w_); \
} while (0)
#define is_str(got, want, what) do { \
	const char *g_ = (got), *w_ = (want); \
	if (!tap_ok(g_ && w_ && strcmp(g_, w_) == 0, (what))) \
		printf("#   got '%s', expected '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
} while (0)
#define is_near(got, want, eps, what) do { \
	double g_ = (got), w_ = (want); \
	if (!tap_ok(fabs(g_ - w_) <= (eps), (what))) \
		printf("#   got %.6f, expected %.6f (+-%g)\n", g_, w_, (double)(eps)); \
} while (0)
#define has_str(hay, needle, what) do { \
	const char *h_ = (hay), *n_ = (needle); \
	if (!tap_ok(h_ && n_ && strstr(h_, n_) != NULL, (what))) \
		printf("#   '%s' not found in:\n# %.2000s\n", n_, h_ ? h_ : "(null)"); \
} while (0)

static inline int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

/* Read a whole file (fixtures); exits the test on failure. */
static inline char *
tap_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0) {
		printf("Bail out! cannot read %s\n", path);
		exit(1);
	}
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		printf("Bail out! cannot read %s\n", path);
		exit(1);
	}
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

/* Path of a fixture in tests/data (YING_DATA from the test environment). */
static inline const char *
tap_data(const char *name)
{
	static char buf[4096];
	const char *dir = getenv("YING_DATA");
	snprintf(buf, sizeof(buf), "%s/%s", dir ? dir : "tests/data", name);
	return buf;
}

/* Directory for a test's temporary files: $TMPDIR, which make check points
 * at the test's own scratch directory (mk/hermetic.mk).  Never a fixed path. */
static inline const char *
tap_tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	return t && *t ? t : "/tmp";    /* TMPDIR unset: the system default */
}

/* Entries of a directory other than "." names (e.g. /proc/self/fd, the
 * threads in /proc/self/task); -1 when it cannot be opened. */
static inline int
tap_count_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

#endif
