/*
 * test_reports.c: the report directories the HTTP endpoint reads
 * (live_reports.c), the live page's report points.
 *
 * Checks: nothing registered says so; a registered directory's dump is
 * read byte for byte; names that are not a report dump's are refused
 * before any file is opened; a missing dump, a symbolic link with a dump's
 * name and a directory (not a file) are not found, the last two saying
 * why; the size bound; a directory replaced by another one at the same
 * path is not read; a directory in sink mode says the keeper has it; a
 * forked child does not read its parent's directories; a removed one is
 * gone; a ninth registration is ignored without harm.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "live.h"

#define DUMP "ying.2026-12-03T10:00:00+00:00.3MiB.heap"

static char top[PATH_MAX];

static void
put(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX * 2];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "w")) != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

/* d for directory path (made, realpath'd), as yi_rdir_open would fill it */
static void
rdir_of(yi_rdir *d, const char *path)
{
	static char real[8][PATH_MAX];
	static int k;
	struct stat st;

	memset(d, 0, sizeof(*d));
	mkdir(path, 0700);
	if (realpath(path, real[k % 8]) == NULL || stat(path, &st) != 0)
		return;
	d->real = real[k++ % 8];
	d->fd = -1;
	d->dev = st.st_dev;
	d->ino = st.st_ino;
}

static int
rd(const char *name, size_t max, char **data, size_t *len)
{
	*data = NULL;
	return yi_reports_read(name, max, data, len);
}

int
main(void)
{
	char dir[PATH_MAX + 8], other[PATH_MAX + 8], *data = NULL;
	size_t len = 0;
	yi_rdir d, o;
	int owner, owner2, rc;
	const char *tmp = getenv("TMPDIR");

	snprintf(top, sizeof(top), "%s/ying-reports-XXXXXX", tmp && *tmp ? tmp : ".");
	if (mkdtemp(top) == NULL) {
		printf("not ok 1 - mkdtemp %s: %s\n1..1\n", top, strerror(errno));
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s/rep", top);
	snprintf(other, sizeof(other), "%s/other", top);

	rc = rd(DUMP, 0, &data, &len);
	is_int(rc, YING_ENOTFOUND, "nothing registered: not found");
	ok(strstr(ying_last_error(), "writes no growth reports") != NULL, "... saying why");

	rdir_of(&d, dir);
	yi_reports_add(&owner, &d);
	put(dir, DUMP, "heap_v2/524288\n  t*: 1: 100 [0: 0]\n");
	rc = rd(DUMP, 0, &data, &len);
	is_int(rc, 0, "a registered directory's dump is read");
	ok(data != NULL && len == 35 && strcmp(data, "heap_v2/524288\n  t*: 1: 100 [0: 0]\n") == 0,
	    "... byte for byte, NUL-terminated");
	yi_free(data);

	static const char *bad[] = { "", "x.heap", "../" DUMP, "ying.2026-12-03T10:00:00+00:00.3MiB.svg",
	    "ying.2026-12-03T10:00:00+00:00.3MiB.report", "a/" DUMP, DUMP "/x" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char what[128];
		snprintf(what, sizeof(what), "refused as no dump's name: \"%s\"", bad[i]);
		is_int(rd(bad[i], 0, &data, &len), YING_EINVAL, what);
		ok(data == NULL, "... nothing returned");
	}
	is_int(rd(NULL, 0, &data, &len), YING_EINVAL, "a NULL name is refused");

	rc = rd("ying.2026-12-03T10:00:01+00:00.3MiB.heap", 0, &data, &len);
	is_int(rc, YING_ENOTFOUND, "a dump that is not there: not found");
	ok(strstr(ying_last_error(), "removed by its bounds") != NULL, "... saying it may be pruned");

	{
		char target[PATH_MAX * 2], link[PATH_MAX * 2];
		snprintf(target, sizeof(target), "%s/" DUMP, dir);
		snprintf(link, sizeof(link), "%s/ying.2026-12-03T10:00:02+00:00.3MiB.heap", dir);
		ok(symlink(target, link) == 0, "a link with a dump's name");
		rc = rd("ying.2026-12-03T10:00:02+00:00.3MiB.heap", 0, &data, &len);
		is_int(rc, YING_ENOTFOUND, "... is not followed");
		ok(strstr(ying_last_error(), "symbolic link") != NULL, "... saying so");
		snprintf(link, sizeof(link), "%s/ying.2026-12-03T10:00:03+00:00.3MiB.heap", dir);
		mkdir(link, 0700);
		rc = rd("ying.2026-12-03T10:00:03+00:00.3MiB.heap", 0, &data, &len);
		is_int(rc, YING_ENOTFOUND, "a directory with a dump's name is not read");
		ok(strstr(ying_last_error(), "not a regular file") != NULL, "... saying so");
	}

	rc = rd(DUMP, 10, &data, &len);
	is_int(rc, YING_ELIMIT, "a dump over the bound is refused");
	ok(data == NULL && strstr(ying_last_error(), "35 bytes") != NULL, "... naming its size");
	is_int(rd(DUMP, 35, &data, &len), 0, "a dump of exactly the bound is read");
	yi_free(data);

	/* another runner's directory: both are searched */
	rdir_of(&o, other);
	yi_reports_add(&owner2, &o);
	put(other, "ying.2026-12-03T11:00:00+00:00.5MiB.heap", "heap_v2/1\n");
	is_int(rd("ying.2026-12-03T11:00:00+00:00.5MiB.heap", 0, &data, &len), 0,
	    "a second runner's directory is searched too");
	yi_free(data);
	is_int(rd(DUMP, 0, &data, &len), 0, "... and the first one still");
	yi_free(data);

	/* a fork: the child's endpoint serves its own runners only */
	{
		pid_t c = fork();
		int st = 0;
		if (c == 0) {
			char *x = NULL;
			size_t xl;
			_exit(yi_reports_read(DUMP, 0, &x, &xl) == YING_ENOTFOUND ? 0 : 1);
		}
		ok(c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "a forked child does not read its parent's directories");
	}

	/* the first directory moved away and another made at its path */
	{
		char moved[PATH_MAX + 16];
		snprintf(moved, sizeof(moved), "%s/moved", top);
		ok(rename(dir, moved) == 0 && mkdir(dir, 0700) == 0, "the directory replaced");
		put(dir, DUMP, "heap_v2/2\n");
		rc = rd(DUMP, 0, &data, &len);
		is_int(rc, YING_ENOTFOUND, "... a directory at the same path is not the runner's: not read");
	}

	yi_reports_remove(&owner2);
	is_int(rd("ying.2026-12-03T11:00:00+00:00.5MiB.heap", 0, &data, &len), YING_ENOTFOUND,
	    "a runner stopped: its directory is not read any more");
	yi_reports_remove(&owner);
	rc = rd(DUMP, 0, &data, &len);
	ok(rc == YING_ENOTFOUND && strstr(ying_last_error(), "writes no growth reports") != NULL,
	    "all stopped: nothing registered again");

	/* sink mode: the keeper writes the directory, this process cannot read it */
	rdir_of(&o, other);
	o.sink = true;
	yi_reports_add(&owner2, &o);
	rc = rd("ying.2026-12-03T11:00:00+00:00.5MiB.heap", 0, &data, &len);
	ok(rc == YING_ENOTFOUND && strstr(ying_last_error(), "keeper") != NULL,
	    "a directory in sink mode: not read, the keeper named");
	yi_reports_remove(&owner2);

	/* more runners than slots: the extra ones are simply not readable */
	{
		int owners[10];
		rdir_of(&o, other);
		for (int i = 0; i < 10; i++)
			yi_reports_add(&owners[i], &o);
		is_int(rd("ying.2026-12-03T11:00:00+00:00.5MiB.heap", 0, &data, &len), 0,
		    "ten registrations: the directory is read (the extra two ignored)");
		yi_free(data);
		for (int i = 0; i < 10; i++)
			yi_reports_remove(&owners[i]);
		is_int(rd("ying.2026-12-03T11:00:00+00:00.5MiB.heap", 0, &data, &len), YING_ENOTFOUND,
		    "... and all taken back");
	}
	{
		char cmd[PATH_MAX + 32];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", top);
	}
	return tap_done();
}
