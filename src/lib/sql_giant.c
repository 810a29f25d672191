/*
 * sql_giant.c: giant-allocation listings ("ying-giant/1", read by the read
 * family's ying_giant) into a ying database: one captures row per listing,
 * one giant row per record with its call site's stack, symbolized and
 * stored in stacks/frames like a dump's.  Listings may overlap (each GET
 * /debug/heap/giant lists what is kept): a record is keyed by (pid,
 * sequence, time) and added once.  One transaction per listing.
 */
#include <inttypes.h>
#include <string.h>

#include "sql.h"

static int
giant_hash(const ying_giant *g, char hex[33])
{
	ying_giant_record rec;
	uint64_t thr = 0;
	int64_t t = 0;
	long pid = 0;
	yi_shash h;
	size_t n = ying_giant_count(g);
	int rc;
	{
		ying_giant_info gi;

		ying_giant_info_get(&gi, g);
		thr = gi.threshold;
		pid = gi.pid;
		t = gi.time_ns;
	}
	yi_shash_init(&h);
	yi_shash_u64(&h, 0x6769616e74ULL);    /* "giant": not a recent capture */
	yi_shash_u64(&h, thr);
	yi_shash_u64(&h, (uint64_t)pid);
	yi_shash_u64(&h, (uint64_t)t);
	yi_shash_u64(&h, n);
	for (size_t i = 0; i < n; i++) {
		if ((rc = ying_giant_get(&rec, g, i)) != 0)
			return rc;
		yi_shash_u64(&h, rec.seq);
		yi_shash_u64(&h, (uint64_t)rec.time_ns);
		yi_shash_u64(&h, rec.size);
	}
	yi_shash_hex(&h, hex);
	return 0;
}

typedef struct giant_arg {
	const ying_giant *g;
	int64_t dump;
} giant_arg;

/* The capture row and the records (a yi_sql_add_fn, arg a giant_arg). */
static int
add_giant(yi_sql_ctx *c, void *arg, const char *path, const char *hash,
    size_t *added)
{
	const ying_giant *g = ((giant_arg *)arg)->g;
	int64_t dump = ((giant_arg *)arg)->dump;
	ying_sql *db = c->db;
	ying_giant_record rec;
	size_t n = ying_giant_count(g);
	int64_t cap, sid;
	long pid = 0;
	int rc;
	{
		ying_giant_info gi;

		ying_giant_info_get(&gi, g);
		pid = gi.pid;
	}
	yi_sql_capture cr = { path, "giant", ying_profile_program(c->p), NULL, pid,
		0, 0, 0, 0, 0, n, hash };
	{
		ying_giant_info gi;
		ying_giant_info_get(&gi, g);
		cr.wall_ns = gi.time_ns;
	}
	cr.has_wall_ns = cr.wall_ns > 0;
	if ((rc = yi_sql_add_capture(db, &cr, &cap)) != 0)
		return rc;
	sqlite3_stmt *s = db->st[YI_SQL_ADD_GIANT];
	for (size_t i = 0; i < n; i++) {
		if ((rc = ying_giant_get(&rec, g, i)) != 0)
			return rc;
		if (rec.stack >= c->p->stacks.n)
			return yi_error(YING_EPARSE, "record %zu names call site %zu of %zu",
			    i, rec.stack, c->p->stacks.n);
		if (c->sid[rec.stack] == 0 &&
		    (rc = yi_sql_stack_id(c, rec.stack, &c->sid[rec.stack])) != 0)
			return rc;
		sid = c->sid[rec.stack];
		sqlite3_bind_int64(s, 1, cap);
		if (dump > 0)
			sqlite3_bind_int64(s, 2, dump);
		if (pid > 0)
			sqlite3_bind_int64(s, 3, pid);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)rec.seq);
		sqlite3_bind_int64(s, 5, rec.time_ns);
		sqlite3_bind_int64(s, 6, (sqlite3_int64)rec.size);
		sqlite3_bind_int64(s, 7, (sqlite3_int64)rec.thread);
		sqlite3_bind_text(s, 8, rec.kind ? rec.kind : "", -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 9, sid);
		if ((rc = yi_sql_step_done(db, s, "adding a giant allocation")) != 0)
			return rc;
		*added += (size_t)sqlite3_changes(db->db);
	}
	return 0;
}

int
yi_sql_import_giant_for(ying_sql *db, const char *path, int64_t dump,
    const ying_sql_import_opts *opts, ying_sql_stats *stats)
{
	ying_sql_import_opts dflt = YING_SQL_IMPORT_OPTS_INIT;
	ying_giant *g = NULL;
	ying_profile *p;
	giant_arg a = { NULL, dump };
	char hash[33];
	int rc;

	if (opts == NULL)
		opts = &dflt;
	if ((rc = ying_giant_read_file(&g, path)) != 0)
		return rc;
	a.g = g;
	p = ying_giant_profile(g);
	if ((rc = ying_profile_symbolize(p, opts->symbolizer, opts->symbolize)) == 0 &&
	    (rc = giant_hash(g, hash)) == 0)
		rc = yi_sql_import_capture(db, path, hash, p, opts, stats, add_giant, &a);
	ying_giant_free(g);
	return rc;
}

int
ying_sql_import_giant(ying_sql *db, const char *path,
    const ying_sql_import_opts *opts, ying_sql_stats *stats)
{
	yi_error_clear();
	if (db == NULL || path == NULL)
		return yi_error(YING_EINVAL, "ying_sql_import_giant: no %s",
		    db == NULL ? "database" : "path");
	return yi_sql_import_giant_for(db, path, 0, opts, stats);
}
