/*
 * sql_leaks.c: a leaks series (leaks.c) from a database of `ying sql`:
 * every dump in time order (then id), and per dump the process-wide
 * samples of its stacks, each adding its unsampled bytes and their
 * sampling variance (yi_sample_var of the stack's bytes and objects at the
 * dump's period) to its site: stacks.function (the leaf, `ying top`'s
 * function row) or, by stack, the frames' functions leaf first.  So a
 * database gives the same verdicts as the dumps it was made of.
 */
#include <string.h>

#include "leaks.h"
#include "sql.h"

#define DUMPS_SQL "SELECT id, time, sample_period FROM dumps ORDER BY time, id"
#define SAMPLES_SQL "SELECT st.function, s.bytes, s.objects, s.stack FROM samples s" \
	" JOIN stacks st ON st.id = s.stack WHERE s.dump = ?1 AND s.thread IS NULL" \
	" ORDER BY s.stack"
#define FRAMES_SQL "SELECT group_concat(function, ';') FROM (SELECT function" \
	" FROM frames WHERE stack = ?1 ORDER BY depth)"

static int
stack_name(ying_sql *db, sqlite3_stmt *fr, sqlite3_int64 stack, const char **name,
    size_t *len)
{
	int rc;

	sqlite3_reset(fr);
	sqlite3_bind_int64(fr, 1, stack);
	if ((rc = sqlite3_step(fr)) != SQLITE_ROW)
		return yi_sql_fail(db, YING_EPARSE, "reading a stack's frames");
	*name = (const char *)sqlite3_column_text(fr, 0);
	*len = (size_t)sqlite3_column_bytes(fr, 0);
	if (*name == NULL) {
		*name = "";
		*len = 0;
	}
	return 0;
}

YING_EXTERN int
ying_sql_leaks_add(ying_leaks *l, ying_sql *db)
{
	sqlite3_stmt *dumps = NULL, *samples = NULL, *fr = NULL;
	size_t ndumps = 0;
	int rc = 0, s;

	if (l == NULL || db == NULL)
		return yi_error(YING_EINVAL, "ying_sql_leaks_add: no series or no database");
	if (sqlite3_prepare_v2(db->db, DUMPS_SQL, -1, &dumps, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db->db, SAMPLES_SQL, -1, &samples, NULL) != SQLITE_OK ||
	    (l->by_stack && sqlite3_prepare_v2(db->db, FRAMES_SQL, -1, &fr, NULL) != SQLITE_OK)) {
		rc = yi_sql_fail(db, YING_EPARSE, "reading the dumps");
		goto out;
	}
	while ((s = sqlite3_step(dumps)) == SQLITE_ROW) {
		sqlite3_int64 id = sqlite3_column_int64(dumps, 0);
		double t = (double)sqlite3_column_int64(dumps, 1);
		sqlite3_int64 period = sqlite3_column_int64(dumps, 2);
		uint32_t dump;

		if ((rc = yi_leaks_dump(l, t, period > 0 ? (uint64_t)period : 1, &dump)) != 0)
			goto out;
		ndumps++;
		sqlite3_reset(samples);
		sqlite3_bind_int64(samples, 1, id);
		while ((s = sqlite3_step(samples)) == SQLITE_ROW) {
			const char *name = (const char *)sqlite3_column_text(samples, 0);
			size_t len = (size_t)sqlite3_column_bytes(samples, 0);
			double bytes = sqlite3_column_double(samples, 1);
			double objs = sqlite3_column_double(samples, 2);

			if (bytes == 0)
				continue;
			if (l->by_stack && (rc = stack_name(db, fr,
			    sqlite3_column_int64(samples, 3), &name, &len)) != 0)
				goto out;
			if (name == NULL) {
				name = "";
				len = 0;
			}
			if ((rc = yi_leaks_point(l, name, len, bytes, yi_sample_var(objs, bytes,
			    period > 0 ? (uint64_t)period : 1, true))) != 0)
				goto out;
		}
		if (s != SQLITE_DONE) {
			rc = yi_sql_fail(db, YING_EPARSE, "reading a dump's samples");
			goto out;
		}
	}
	if (s != SQLITE_DONE) {
		rc = yi_sql_fail(db, YING_EPARSE, "reading the dumps");
		goto out;
	}
	if (ndumps == 0)
		rc = yi_error(YING_ENODATA, "%s: the database holds no dumps", db->path);
out:
	sqlite3_finalize(dumps);
	sqlite3_finalize(samples);
	sqlite3_finalize(fr);
	return rc;
}
