/*
 * sql_db.c: a ying SQLite database: opening (and creating) it, the schema
 * (tables, indexes and views, documented table by table in docs/sql.md),
 * the prepared statements every import reuses, the SQLite error detail,
 * and the stable content hash that deduplicates dumps and stacks.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sql.h"

/* The counters of a sample and of a thread: raw (as in the dump) and
 * unsampled, the same columns in both tables. */
#define COUNTERS \
"  raw_objects INTEGER NOT NULL,\n" \
"  raw_bytes INTEGER NOT NULL,\n" \
"  raw_alloc_objects INTEGER NOT NULL,\n" \
"  raw_alloc_bytes INTEGER NOT NULL,\n" \
"  objects REAL NOT NULL,\n" \
"  bytes REAL NOT NULL,\n" \
"  alloc_objects REAL NOT NULL,\n" \
"  alloc_bytes REAL NOT NULL"

/* The views that know heaps (schema 2): created with the schema, and
 * again by the migration from schema 1. */
#define HEAP_VIEWS \
"CREATE VIEW top_stacks AS\n" \
"  SELECT s.dump, s.stack, st.function, s.bytes, s.objects,\n" \
"         s.alloc_bytes, s.alloc_objects,\n" \
"         RANK() OVER (PARTITION BY s.dump ORDER BY s.bytes DESC) AS rank,\n" \
"         s.heap\n" \
"  FROM samples s JOIN stacks st ON st.id = s.stack\n" \
"  WHERE s.thread IS NULL;\n" \
"CREATE VIEW stack_growth AS\n" \
"  WITH k AS (\n" \
"    SELECT p.before, p.after, s.stack, s.heap FROM dump_pairs p\n" \
"    JOIN samples s ON s.dump IN (p.before, p.after) AND s.thread IS NULL\n" \
"    GROUP BY p.before, p.after, s.stack, s.heap)\n" \
"  SELECT k.before, k.after, k.stack, st.function,\n" \
"         COALESCE(b.bytes, 0) AS bytes_before,\n" \
"         COALESCE(a.bytes, 0) AS bytes_after,\n" \
"         COALESCE(a.bytes, 0) - COALESCE(b.bytes, 0) AS bytes_delta,\n" \
"         COALESCE(a.objects, 0) - COALESCE(b.objects, 0) AS objects_delta,\n" \
"         k.heap\n" \
"  FROM k JOIN stacks st ON st.id = k.stack\n" \
"  LEFT JOIN samples b ON b.dump = k.before AND b.stack = k.stack\n" \
"       AND b.heap IS k.heap AND b.thread IS NULL\n" \
"  LEFT JOIN samples a ON a.dump = k.after AND a.stack = k.stack\n" \
"       AND a.heap IS k.heap AND a.thread IS NULL;\n" \
"CREATE VIEW function_growth AS\n" \
"  SELECT before, after, function, SUM(bytes_before) AS bytes_before,\n" \
"         SUM(bytes_after) AS bytes_after, SUM(bytes_delta) AS bytes_delta,\n" \
"         SUM(objects_delta) AS objects_delta\n" \
"  FROM stack_growth GROUP BY before, after, function;\n" \
"CREATE VIEW heap_totals AS\n" \
"  SELECT dump, heap, SUM(bytes) AS bytes, SUM(objects) AS objects,\n" \
"         SUM(alloc_bytes) AS alloc_bytes, SUM(alloc_objects) AS alloc_objects\n" \
"  FROM samples WHERE thread IS NULL GROUP BY dump, heap;\n"

/* The schema.  Keep docs/sql.md in step: it is the reference, and
 * tests/integration/sql.sh runs its queries against a real database. */
static const char schema_sql[] =
"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
"CREATE TABLE dumps(\n"
"  id INTEGER PRIMARY KEY,\n"
"  path TEXT NOT NULL,\n"
"  time INTEGER NOT NULL,\n"
"  pid INTEGER,\n"
"  program TEXT NOT NULL,\n"
"  build_id TEXT,\n"
"  sample_period INTEGER NOT NULL,\n"
"  inuse_objects REAL NOT NULL,\n"
"  inuse_bytes REAL NOT NULL,\n"
"  alloc_objects REAL,\n"
"  alloc_bytes REAL,\n"
"  nstacks INTEGER NOT NULL,\n"
"  hash TEXT NOT NULL UNIQUE,\n"
"  imported INTEGER NOT NULL);\n"
"CREATE TABLE stacks(\n"
"  id INTEGER PRIMARY KEY,\n"
"  hash BLOB NOT NULL UNIQUE,\n"
"  depth INTEGER NOT NULL,\n"
"  function TEXT NOT NULL,\n"
"  frames TEXT NOT NULL);\n"
"CREATE TABLE functions(\n"
"  id INTEGER PRIMARY KEY,\n"
"  name TEXT NOT NULL,\n"
"  file TEXT NOT NULL,\n"
"  UNIQUE(name, file));\n"
"CREATE TABLE modules(\n"
"  id INTEGER PRIMARY KEY,\n"
"  path TEXT NOT NULL UNIQUE);\n"
"CREATE VIEW frames AS\n"
"  SELECT s.id AS stack, CAST(j.key AS INTEGER) AS depth, fn.name AS function,\n"
"         fn.file AS file, json_extract(j.value, '$[1]') AS line,\n"
"         m.path AS module, json_extract(j.value, '$[3]') AS address,\n"
"         json_extract(j.value, '$[4]') AS inlined\n"
"  FROM stacks s, json_each(s.frames) j\n"
"       JOIN functions fn ON fn.id = json_extract(j.value, '$[0]')\n"
"       JOIN modules m ON m.id = json_extract(j.value, '$[2]');\n"
"CREATE TABLE samples(\n"
"  dump INTEGER NOT NULL REFERENCES dumps(id),\n"
"  stack INTEGER NOT NULL REFERENCES stacks(id),\n"
"  thread INTEGER,\n"
COUNTERS ",\n"
"  heap TEXT);\n"
"CREATE INDEX samples_by_dump ON samples(dump, stack);\n"
"CREATE INDEX samples_by_stack ON samples(stack);\n"
"CREATE TABLE threads(\n"
"  dump INTEGER NOT NULL REFERENCES dumps(id),\n"
"  uid INTEGER NOT NULL,\n"
"  name TEXT NOT NULL,\n"
COUNTERS ",\n"
"  PRIMARY KEY(dump, uid));\n"
"CREATE TABLE mappings(\n"
"  dump INTEGER NOT NULL REFERENCES dumps(id),\n"
"  start INTEGER NOT NULL,\n"
"  end INTEGER NOT NULL,\n"
"  offset INTEGER NOT NULL,\n"
"  perms TEXT NOT NULL,\n"
"  inode INTEGER NOT NULL,\n"
"  path TEXT NOT NULL,\n"
"  build_id TEXT);\n"
"CREATE INDEX mappings_by_dump ON mappings(dump);\n"
"CREATE TABLE captures(\n"
"  id INTEGER PRIMARY KEY,\n"
"  path TEXT NOT NULL,\n"
"  kind TEXT NOT NULL,\n"
"  pid INTEGER,\n"
"  program TEXT NOT NULL,\n"
"  time_resolution TEXT,\n"
"  sample_period INTEGER,\n"
"  captured_prof_ns INTEGER,\n"
"  captured_wall_ns INTEGER,\n"
"  nrecords INTEGER NOT NULL,\n"
"  hash TEXT NOT NULL UNIQUE,\n"
"  imported INTEGER NOT NULL);\n"
"CREATE TABLE allocations(\n"
"  capture INTEGER NOT NULL REFERENCES captures(id),\n"
"  size INTEGER NOT NULL,\n"
"  usize INTEGER NOT NULL,\n"
"  released INTEGER NOT NULL,\n"
"  alloc_time INTEGER NOT NULL,\n"
"  free_time INTEGER,\n"
"  alloc_wall INTEGER,\n"
"  free_wall INTEGER,\n"
"  alloc_thread INTEGER NOT NULL,\n"
"  alloc_thread_name TEXT NOT NULL,\n"
"  free_thread INTEGER,\n"
"  free_thread_name TEXT,\n"
"  alloc_stack INTEGER NOT NULL REFERENCES stacks(id),\n"
"  free_stack INTEGER REFERENCES stacks(id));\n"
"CREATE INDEX allocations_by_stack ON allocations(alloc_stack);\n"
"CREATE TABLE giant(\n"
"  capture INTEGER NOT NULL REFERENCES captures(id),\n"
"  dump INTEGER REFERENCES dumps(id),\n"
"  pid INTEGER,\n"
"  seq INTEGER NOT NULL,\n"
"  time INTEGER NOT NULL,\n"
"  size INTEGER NOT NULL,\n"
"  thread INTEGER NOT NULL,\n"
"  kind TEXT NOT NULL,\n"
"  stack INTEGER NOT NULL REFERENCES stacks(id),\n"
"  UNIQUE(pid, seq, time));\n"
/* views */
"CREATE VIEW top_functions AS\n"
"  SELECT s.dump, d.time, st.function, SUM(s.bytes) AS bytes,\n"
"         SUM(s.objects) AS objects, SUM(s.alloc_bytes) AS alloc_bytes,\n"
"         SUM(s.alloc_objects) AS alloc_objects,\n"
"         RANK() OVER (PARTITION BY s.dump ORDER BY SUM(s.bytes) DESC) AS rank\n"
"  FROM samples s JOIN stacks st ON st.id = s.stack\n"
"       JOIN dumps d ON d.id = s.dump\n"
"  WHERE s.thread IS NULL\n"
"  GROUP BY s.dump, st.function;\n"
"CREATE VIEW dump_pairs AS\n"
"  SELECT prev AS before, id AS after FROM (\n"
"    SELECT id, LAG(id) OVER (PARTITION BY program ORDER BY time, id) AS prev\n"
"    FROM dumps)\n"
"  WHERE prev IS NOT NULL;\n"
"CREATE VIEW lifetimes AS\n"
"  SELECT a.capture, a.alloc_stack AS stack, st.function, a.size, a.usize,\n"
"         a.released,\n"
"         CASE WHEN a.released THEN a.free_time - a.alloc_time\n"
"              WHEN c.captured_prof_ns IS NOT NULL\n"
"              THEN c.captured_prof_ns - a.alloc_time END AS lifetime_ns\n"
"  FROM allocations a JOIN stacks st ON st.id = a.alloc_stack\n"
"       JOIN captures c ON c.id = a.capture;\n"
HEAP_VIEWS;

/* Schema 1 to 2: samples gain their heap (NULL in every row there is: a
 * schema 1 import summed a dump's heaps), the views that know heaps are
 * made again. */
static const char migrate_1_sql[] =
"ALTER TABLE samples ADD COLUMN heap TEXT;\n"
"DROP VIEW IF EXISTS top_stacks;\n"
"DROP VIEW IF EXISTS function_growth;\n"
"DROP VIEW IF EXISTS stack_growth;\n"
"DROP VIEW IF EXISTS heap_totals;\n"
HEAP_VIEWS
"UPDATE meta SET value = '2' WHERE key = 'schema';\n";

static const char *const stmt_sql[YI_SQL_NSTMT] = {
	[YI_SQL_FIND_DUMP] = "SELECT id FROM dumps WHERE hash = ?1",
	[YI_SQL_ADD_DUMP] = "INSERT INTO dumps(path, time, pid, program, build_id,"
	    " sample_period, inuse_objects, inuse_bytes, alloc_objects, alloc_bytes,"
	    " nstacks, hash, imported) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
	    " ?10, ?11, ?12, ?13)",
	[YI_SQL_FIND_STACK] = "SELECT id FROM stacks WHERE hash = ?1",
	[YI_SQL_ADD_STACK] = "INSERT INTO stacks(hash, depth, function, frames)"
	    " VALUES(?1, ?2, ?3, ?4)",
	[YI_SQL_FIND_FUNC] = "SELECT id FROM functions WHERE name = ?1 AND file = ?2",
	[YI_SQL_ADD_FUNC] = "INSERT INTO functions(name, file) VALUES(?1, ?2)",
	[YI_SQL_FIND_MODULE] = "SELECT id FROM modules WHERE path = ?1",
	[YI_SQL_ADD_MODULE] = "INSERT INTO modules(path) VALUES(?1)",
	[YI_SQL_FIND_CAPTURE] = "SELECT id FROM captures WHERE hash = ?1",
	[YI_SQL_ADD_CAPTURE] = "INSERT INTO captures(path, kind, pid, program,"
	    " time_resolution, sample_period, captured_prof_ns, captured_wall_ns,"
	    " nrecords, hash, imported) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
	    " ?10, ?11)",
	[YI_SQL_ADD_GIANT] = "INSERT OR IGNORE INTO giant(capture, dump, pid, seq,"
	    " time, size, thread, kind, stack) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
	    " ?9)",
	[YI_SQL_ADD_ALLOCATION] = "INSERT INTO allocations(capture, size, usize,"
	    " released, alloc_time, free_time, alloc_wall, free_wall, alloc_thread,"
	    " alloc_thread_name, free_thread, free_thread_name, alloc_stack,"
	    " free_stack) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
	    " ?13, ?14)",
	[YI_SQL_ADD_SAMPLE] = "INSERT INTO samples(dump, stack, thread, raw_objects,"
	    " raw_bytes, raw_alloc_objects, raw_alloc_bytes, objects, bytes,"
	    " alloc_objects, alloc_bytes, heap) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
	    " ?9, ?10, ?11, ?12)",
	[YI_SQL_ADD_THREAD] = "INSERT INTO threads(dump, uid, name, raw_objects,"
	    " raw_bytes, raw_alloc_objects, raw_alloc_bytes, objects, bytes,"
	    " alloc_objects, alloc_bytes) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
	    " ?10, ?11)",
	[YI_SQL_ADD_MAPPING] = "INSERT INTO mappings(dump, start, end, offset,"
	    " perms, inode, path, build_id) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
};

int
yi_sql_fail(ying_sql *db, int code, const char *what)
{
	return yi_error(code, "%s: %s: %s", db->path, what,
	    db->db ? sqlite3_errmsg(db->db) : "no database");
}

int
yi_sql_exec(ying_sql *db, const char *sql)
{
	char *msg = NULL;
	int rc;

	if (sqlite3_exec(db->db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	rc = yi_error(YING_EIO, "%s: %s", db->path, msg ? msg : sqlite3_errmsg(db->db));
	sqlite3_free(msg);
	return rc;
}

/* The schema version of an open database: 0 for an empty one (no table),
 * YI_SQL_SCHEMA for ours, -1 for anything else. */
static int
schema_version(ying_sql *db, int *out)
{
	sqlite3_stmt *st = NULL;
	int n = 0, rc;

	*out = -1;
	rc = sqlite3_prepare_v2(db->db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return yi_error(YING_EPARSE, "%s: not a SQLite database (%s)", db->path,
		    sqlite3_errmsg(db->db));
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	rc = sqlite3_finalize(st);
	if (rc != SQLITE_OK)
		return yi_error(YING_EPARSE, "%s: not a SQLite database (%s)", db->path,
		    sqlite3_errmsg(db->db));
	if (n == 0) {
		*out = 0;
		return 0;
	}
	rc = sqlite3_prepare_v2(db->db, "SELECT value FROM meta WHERE key = 'schema'"
	    " AND EXISTS (SELECT 1 FROM meta WHERE key = 'format' AND value = 'ying')",
	    -1, &st, NULL);
	if (rc != SQLITE_OK)
		return 0;       /* no meta table: not ours */
	if (sqlite3_step(st) == SQLITE_ROW)
		*out = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return 0;
}

/* The sql family's option struct: the rule of base_opts.c. */
void
ying_sql_import_opts_init(ying_sql_import_opts *o)
{
	const ying_sql_import_opts d = YING_SQL_IMPORT_OPTS_INIT;

	if (o != NULL)
		*o = d;
}

int
ying_sql_open(ying_sql **out, const char *path)
{
	ying_sql *db;
	char meta[160];
	int rc, ver;

	yi_error_clear();
	if (out == NULL)
		return yi_error(YING_EINVAL, "ying_sql_open: no out-parameter");
	*out = NULL;
	if (path == NULL || path[0] == '\0')
		return yi_error(YING_EINVAL, "ying_sql_open: no database path");
	if ((db = yi_calloc(1, sizeof(*db))) == NULL ||
	    (db->path = yi_strdup(path)) == NULL) {
		yi_free(db);
		return yi_oom("opening a database");
	}
	/* a handle is used by one thread at a time (ying.h): no mutexes */
	rc = sqlite3_open_v2(path, &db->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	    SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		rc = yi_sql_fail(db, YING_EIO, "cannot open");
		goto fail;
	}
	sqlite3_busy_timeout(db->db, 5000);
	/* a 262k-stack dump touches the stacks index all over: a cache of
	 * 64 MiB keeps it from spilling to the file before the commit */
	sqlite3_exec(db->db, "PRAGMA cache_size = -65536", NULL, NULL, NULL);
	if ((rc = schema_version(db, &ver)) != 0)
		goto fail;
	if (ver == 0) {
		snprintf(meta, sizeof(meta), "INSERT INTO meta VALUES('format', 'ying'),"
		    " ('schema', '%d');", YI_SQL_SCHEMA);
		if ((rc = yi_sql_exec(db, "BEGIN")) != 0)
			goto fail;
		if ((rc = yi_sql_exec(db, schema_sql)) != 0 ||
		    (rc = yi_sql_exec(db, meta)) != 0 ||
		    (rc = yi_sql_exec(db, "COMMIT")) != 0) {
			sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
			goto fail;
		}
	} else if (ver == 1) {
		/* an older ying's database: brought to this schema in one
		 * transaction (a read-only file fails here, named) */
		if ((rc = yi_sql_exec(db, "BEGIN IMMEDIATE")) != 0)
			goto fail;
		/* another process may have upgraded it since it was read */
		if ((rc = schema_version(db, &ver)) != 0 ||
		    (rc = yi_sql_exec(db, ver == 1 ? migrate_1_sql : "")) != 0 ||
		    (rc = yi_sql_exec(db, "COMMIT")) != 0) {
			char why[512];
			snprintf(why, sizeof(why), "%s", ying_last_error());
			sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
			yi_error(rc, "cannot upgrade the database from schema 1 to %d: %s",
			    YI_SQL_SCHEMA, why);
			goto fail;
		}
	} else if (ver != YI_SQL_SCHEMA) {
		rc = ver > YI_SQL_SCHEMA ?
		    yi_error(YING_EPARSE, "%s: a ying database of schema %d, newer than"
		    " this ying's %d", path, ver, YI_SQL_SCHEMA) :
		    yi_error(YING_EPARSE, "%s: not a ying database (schema %d)",
		    path, YI_SQL_SCHEMA);
		goto fail;
	}
	for (int i = 0; i < YI_SQL_NSTMT; i++) {
		if (sqlite3_prepare_v3(db->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
		    &db->st[i], NULL) != SQLITE_OK) {
			rc = yi_sql_fail(db, YING_EPARSE, "preparing a statement");
			goto fail;
		}
	}
	*out = db;
	return 0;
fail:
	ying_sql_close(db);
	return rc;
}

void
ying_sql_close(ying_sql *db)
{
	if (db == NULL)
		return;
	for (int i = 0; i < YI_SQL_NSTMT; i++)
		sqlite3_finalize(db->st[i]);
	sqlite3_close(db->db);
	yi_free(db->path);
	yi_free(db);
}

