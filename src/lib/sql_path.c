/*
 * sql_path.c: importing by path: one dump file, or a report directory of
 * the growth runner (`ying run`, live_runner_files.c names its sets
 * ying.TIME.NMiB.{heap,report,svg,pb.gz}), whose dumps are imported in
 * time order (modification time, then name), each in its own transaction,
 * with the set's giant allocations (BASE.giant.json) and recent-allocation
 * records (BASE.recent.json) when there are some.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sql.h"

typedef struct dir_entry {
	char *path;
	int64_t mtime_ns;
} dir_entry;

static int
entry_cmp(const void *x, const void *y)
{
	const dir_entry *a = x, *b = y;

	if (a->mtime_ns != b->mtime_ns)
		return a->mtime_ns < b->mtime_ns ? -1 : 1;
	return strcmp(a->path, b->path);
}

static int
import_file(ying_sql *db, const char *path, const ying_sql_import_opts *opts,
    ying_sql_stats *stats)
{
	ying_profile *p = NULL;
	int rc;

	if ((rc = ying_profile_read_file(&p, path)) != 0)
		return rc;
	rc = ying_sql_import_profile(db, p, path, opts, stats);
	ying_profile_free(p);
	return rc;
}

static int
import_dir(ying_sql *db, const char *dir, const ying_sql_import_opts *opts,
    ying_sql_stats *stats)
{
	YI_VEC(dir_entry) ents = { NULL, 0, 0 };
	struct dirent *e;
	struct stat sb;
	DIR *d;
	size_t blen, len, i;
	int rc = 0;

	if ((d = opendir(dir)) == NULL)
		return yi_error(YING_EIO, "%s: cannot open the directory: %s", dir,
		    strerror(errno));
	while ((e = readdir(d)) != NULL) {
		len = strlen(e->d_name);
		if (!yi_report_parse_name(e->d_name, &blen) ||
		    strcmp(e->d_name + blen, ".heap") != 0)
			continue;
		if ((rc = yi_vec_grow(&ents, 1)) != 0)
			break;
		dir_entry *de = &ents.v[ents.n];
		if ((de->path = yi_malloc(strlen(dir) + len + 2)) == NULL) {
			rc = yi_oom("listing a report directory");
			break;
		}
		sprintf(de->path, "%s/%s", dir, e->d_name);
		ents.n++;
		if (stat(de->path, &sb) != 0) {
			rc = yi_error(YING_EIO, "%s: %s", de->path, strerror(errno));
			break;
		}
		de->mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
	}
	closedir(d);
	if (rc == 0 && ents.n == 0)
		rc = yi_error(YING_ENOTFOUND, "%s: no dump in this directory (a report "
		    "directory of `ying run` holds ying.TIME.SIZE.heap files)", dir);
	if (rc == 0)
		qsort(ents.v, ents.n, sizeof(*ents.v), entry_cmp);
	for (i = 0; rc == 0 && i < ents.n; i++) {
		ying_sql_stats one = { 0, 0, 0, 0, 0 };
		size_t pl = strlen(ents.v[i].path);
		char *gj;
		if ((rc = import_file(db, ents.v[i].path, opts, &one)) != 0)
			break;
		if (stats) {
			stats->dumps_added += one.dumps_added;
			stats->dumps_skipped += one.dumps_skipped;
			stats->stacks_added += one.stacks_added;
			stats->samples_added += one.samples_added;
			stats->last_dump = one.last_dump;
		}
		/* the set's giant allocations (BASE.giant.json) and recent
		 * allocations (BASE.recent.json) beside BASE.heap */
		if ((gj = yi_malloc(pl + 16)) == NULL) {
			rc = yi_oom("importing a report directory");
			break;
		}
		memcpy(gj, ents.v[i].path, pl - 5);
		strcpy(gj + pl - 5, ".giant.json");
		if (access(gj, F_OK) == 0)
			rc = yi_sql_import_giant_for(db, gj, one.last_dump, opts, stats);
		strcpy(gj + pl - 5, ".recent.json");
		if (rc == 0 && access(gj, F_OK) == 0)
			rc = ying_sql_import_recent(db, gj, opts, stats);
		yi_free(gj);
	}
	for (i = 0; i < ents.n; i++)
		yi_free(ents.v[i].path);
	yi_vec_free(&ents);
	return rc;
}

int
ying_sql_import_path(ying_sql *db, const char *path,
    const ying_sql_import_opts *opts, ying_sql_stats *stats)
{
	struct stat sb;

	yi_error_clear();
	if (db == NULL || path == NULL)
		return yi_error(YING_EINVAL, "ying_sql_import_path: no %s",
		    db == NULL ? "database" : "path");
	if (strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
		return import_dir(db, path, opts, stats);
	return import_file(db, path, opts, stats);
}
