/*
 * sql_recent.c: recent-allocation records (jemalloc's prof_recent and
 * prof log, read by the read family's ying_recent) into a ying database:
 * one captures row per file, one allocations row per record, the alloc
 * and free stacks symbolized and stored in stacks/frames exactly like a
 * dump's (so a call site is the same stack id in samples and in
 * allocations).  One transaction per file; a file already imported (same
 * records, same capture) is skipped.
 */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "sql.h"

int
yi_sql_find_capture(ying_sql *db, const char *hash, int64_t *id)
{
	sqlite3_bind_text(db->st[YI_SQL_FIND_CAPTURE], 1, hash, -1, SQLITE_STATIC);
	return yi_sql_find_id(db, db->st[YI_SQL_FIND_CAPTURE], id, "looking the capture up");
}

int
yi_sql_add_capture(ying_sql *db, const yi_sql_capture *c, int64_t *id)
{
	sqlite3_stmt *s = db->st[YI_SQL_ADD_CAPTURE];
	int rc;

	sqlite3_bind_text(s, 1, c->path, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, c->kind, -1, SQLITE_STATIC);
	if (c->pid > 0)
		sqlite3_bind_int64(s, 3, c->pid);
	sqlite3_bind_text(s, 4, c->program ? c->program : "", -1, SQLITE_STATIC);
	if (c->time_resolution && *c->time_resolution)
		sqlite3_bind_text(s, 5, c->time_resolution, -1, SQLITE_STATIC);
	if (c->sample_period)
		sqlite3_bind_int64(s, 6, (sqlite3_int64)c->sample_period);
	if (c->has_prof_ns)
		sqlite3_bind_int64(s, 7, (sqlite3_int64)c->prof_ns);
	if (c->has_wall_ns)
		sqlite3_bind_int64(s, 8, c->wall_ns);
	sqlite3_bind_int64(s, 9, (sqlite3_int64)c->nrecords);
	sqlite3_bind_text(s, 10, c->hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 11, (sqlite3_int64)time(NULL));
	if ((rc = yi_sql_step_done(db, s, "adding the capture")) != 0)
		return rc;
	*id = sqlite3_last_insert_rowid(db->db);
	return 0;
}

int
yi_sql_import_capture(ying_sql *db, const char *path, const char *hash,
    const ying_profile *p, const ying_sql_import_opts *opts,
    ying_sql_stats *stats, yi_sql_add_fn add, void *arg)
{
	ying_sql_stats local = { 0, 0, 0, 0, 0 };
	yi_sql_ctx c;
	size_t added = 0;
	int64_t id;
	int rc;

	if ((rc = yi_sql_exec(db, "BEGIN IMMEDIATE")) != 0)
		return rc;
	if ((rc = yi_sql_find_capture(db, hash, &id)) != 0) {
		sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
		if (rc < 0)
			return rc;
		if (stats)
			stats->dumps_skipped++;
		if (opts->messages)
			fprintf(opts->messages, "%s: already in the database as capture %"
			    PRId64 ", skipped\n", path, id);
		return 0;
	}
	rc = yi_sql_ctx_init(&c, db, p, &local);
	if (rc == 0)
		rc = add(&c, arg, path, hash, &added);
	if (rc == 0)
		rc = yi_sql_exec(db, "COMMIT");
	if (rc != 0) {
		sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
		/* name the file: a SQLite or stack error does not */
		if (strncmp(ying_last_error(), path, strlen(path)) != 0) {
			char why[512];
			snprintf(why, sizeof(why), "%s", ying_last_error());
			yi_error(rc, "%s: %s", path, why);
		}
	} else if (stats) {
		stats->dumps_added++;
		stats->stacks_added += local.stacks_added;
		stats->samples_added += added;
	}
	yi_sql_ctx_release(&c);
	return rc;
}

static const char *
kind_name(int format)
{
	switch (format) {
	case YING_RECENT_CAPTURE: return "capture";
	case YING_RECENT_RAW: return "prof_recent";
	case YING_RECENT_LOG: return "prof_log";
	default: return "unknown";
	}
}

/* The records' content: every field of every record, and the capture's
 * own times, so the same file imported twice is found. */
static int
records_hash(const ying_recent *r, const ying_recent_info *in, char hex[33])
{
	ying_recent_record rec;
	yi_shash h;
	size_t n = ying_recent_count(r);
	int rc;

	yi_shash_init(&h);
	yi_shash_u64(&h, (uint64_t)in->format);
	yi_shash_u64(&h, (uint64_t)in->pid);
	yi_shash_u64(&h, in->captured_prof_ns);
	yi_shash_u64(&h, (uint64_t)in->captured_wall_ns);
	yi_shash_u64(&h, n);
	for (size_t i = 0; i < n; i++) {
		if ((rc = ying_recent_get(&rec, r, i)) != 0)
			return rc;
		yi_shash_u64(&h, rec.size);
		yi_shash_u64(&h, rec.usize);
		yi_shash_u64(&h, (uint64_t)rec.released);
		yi_shash_u64(&h, rec.alloc_thread);
		yi_shash_u64(&h, rec.free_thread);
		yi_shash_u64(&h, rec.alloc_ns);
		yi_shash_u64(&h, rec.free_ns);
		yi_shash_u64(&h, (uint64_t)rec.alloc_stack);
		yi_shash_u64(&h, (uint64_t)rec.free_stack);
	}
	yi_shash_hex(&h, hex);
	return 0;
}

/* stacks.id of the records' stack k, cached in c->sid (0 = not yet). */
static int
rec_stack(yi_sql_ctx *c, int64_t k, int64_t *id)
{
	int rc;

	if (k < 0 || (size_t)k >= c->p->stacks.n)
		return yi_error(YING_EPARSE, "record names stack %" PRId64 " of %zu", k,
		    c->p->stacks.n);
	if (c->sid[k] == 0 && (rc = yi_sql_stack_id(c, (size_t)k, &c->sid[k])) != 0)
		return rc;
	*id = c->sid[k];
	return 0;
}

typedef struct recent_arg {
	const ying_recent *r;
	const ying_recent_info *in;
} recent_arg;

/* The capture row and the records (a yi_sql_add_fn, arg a recent_arg). */
static int
add_records(yi_sql_ctx *c, void *arg, const char *path, const char *hash,
    size_t *added)
{
	const ying_recent *r = ((recent_arg *)arg)->r;
	const ying_recent_info *in = ((recent_arg *)arg)->in;
	ying_sql *db = c->db;
	sqlite3_stmt *s = NULL;
	ying_recent_record rec;
	size_t n = ying_recent_count(r);
	int64_t cap, as, fs = 0;
	int rc;

	yi_sql_capture cr = { path, kind_name(in->format), in->program,
		in->time_resolution, in->pid, in->sample_interval, in->has_prof_now,
		in->has_wall, in->captured_prof_ns, in->captured_wall_ns, n, hash };
	if ((rc = yi_sql_add_capture(db, &cr, &cap)) != 0)
		return rc;

	s = db->st[YI_SQL_ADD_ALLOCATION];
	for (size_t i = 0; i < n; i++) {
		if ((rc = ying_recent_get(&rec, r, i)) != 0 ||
		    (rc = rec_stack(c, rec.alloc_stack, &as)) != 0)
			return rc;
		if (rec.released && rec.free_stack >= 0 &&
		    (rc = rec_stack(c, rec.free_stack, &fs)) != 0)
			return rc;
		sqlite3_bind_int64(s, 1, cap);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)rec.size);
		sqlite3_bind_int64(s, 3, (sqlite3_int64)rec.usize);
		sqlite3_bind_int(s, 4, rec.released ? 1 : 0);
		sqlite3_bind_int64(s, 5, (sqlite3_int64)rec.alloc_ns);
		if (rec.released)
			sqlite3_bind_int64(s, 6, (sqlite3_int64)rec.free_ns);
		if (in->has_wall) {
			sqlite3_bind_int64(s, 7, rec.alloc_wall_ns);
			if (rec.released)
				sqlite3_bind_int64(s, 8, rec.free_wall_ns);
		}
		sqlite3_bind_int64(s, 9, (sqlite3_int64)rec.alloc_thread);
		sqlite3_bind_text(s, 10, rec.alloc_thread_name ? rec.alloc_thread_name : "",
		    -1, SQLITE_STATIC);
		if (rec.released) {
			sqlite3_bind_int64(s, 11, (sqlite3_int64)rec.free_thread);
			sqlite3_bind_text(s, 12, rec.free_thread_name ?
			    rec.free_thread_name : "", -1, SQLITE_STATIC);
			if (rec.free_stack >= 0)
				sqlite3_bind_int64(s, 14, fs);
		}
		sqlite3_bind_int64(s, 13, as);
		if ((rc = yi_sql_step_done(db, s, "adding an allocation")) != 0)
			return rc;
	}
	*added = n;
	return 0;
}

int
ying_sql_import_recent(ying_sql *db, const char *path,
    const ying_sql_import_opts *opts, ying_sql_stats *stats)
{
	ying_sql_import_opts dflt = YING_SQL_IMPORT_OPTS_INIT;
	ying_recent_info in;
	ying_recent *r = NULL;
	recent_arg a = { NULL, &in };
	char hash[33];
	int rc;

	yi_error_clear();
	if (db == NULL || path == NULL)
		return yi_error(YING_EINVAL, "ying_sql_import_recent: no %s",
		    db == NULL ? "database" : "path");
	if (opts == NULL)
		opts = &dflt;
	if ((rc = ying_recent_read_file(&r, path)) != 0)
		return rc;
	a.r = r;
	if ((rc = ying_recent_symbolize(r, opts->symbolizer, opts->symbolize)) == 0 &&
	    (rc = ying_recent_info_get(&in, r)) == 0 &&
	    (rc = records_hash(r, &in, hash)) == 0)
		rc = yi_sql_import_capture(db, path, hash, ying_recent_profile(r), opts,
		    stats, add_records, &a);
	ying_recent_free(r);
	return rc;
}
