/*
 * test_sql.c: the sql family on hand-built profiles: the schema of a new
 * database, stacks deduplicated by their symbolized frames (within a dump
 * and across dumps), per-stack samples summed, a dump imported twice kept
 * once, a failure in the middle of a dump rolled back whole, refusals
 * (a file that is not a ying database, garbage input, an empty directory,
 * a newer schema), a dump of two heaps (samples.heap, heap_totals equal to
 * ying_profile_heap_total, one path in two heaps kept apart, the heaps in
 * the content hash) and a schema 1 database upgraded when opened.
 */
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "sql.h"
#include "synth.h"
#include "tap.h"

static char dir[512];

/* The first column of the first row of a query on the database file, as an
 * integer (-1 on any error). */
static long long
q1(const char *db, const char *sql)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	long long v = -1;

	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			v = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	} else {
		printf("# %s: %s\n", sql, sqlite3_errmsg(h));
	}
	sqlite3_close(h);
	return v;
}

static int
exec_sql(const char *db, const char *sql)
{
	sqlite3 *h;
	int rc;

	if (sqlite3_open(db, &h) != SQLITE_OK)
		return -1;
	rc = sqlite3_exec(h, sql, NULL, NULL, NULL);
	sqlite3_close(h);
	return rc;
}

/* Two functions under main; `extra` adds a stack at other addresses that
 * symbolizes like the first one (same functions, files and lines). */
static ying_profile *
profile(const char *name, double a_bytes, double b_bytes, int extra, double c_bytes)
{
	ying_profile *p = synth_new(name, 1);
	int32_t m = synth_map(p, "/usr/bin/prog", 0x400000, 0x500000);
	const char *an = "alloc_a", *bn = "alloc_b", *cn = "alloc_c", *mn = "main";
	const char *f = "prog.c";
	uint32_t la = 10, lb = 20, lc = 30, lm = 40;
	uint32_t s[2];

	s[1] = synth_loc_at(p, 0x401000, false, m, &mn, NULL, &f, &lm, 1);
	s[0] = synth_loc_at(p, 0x402000, true, m, &an, NULL, &f, &la, 1);
	synth_stack(p, s, 2, a_bytes, a_bytes / 100);
	s[0] = synth_loc_at(p, 0x403000, true, m, &bn, NULL, &f, &lb, 1);
	synth_stack(p, s, 2, b_bytes, b_bytes / 100);
	if (extra) {
		s[0] = synth_loc_at(p, 0x404000, true, m, &an, NULL, &f, &la, 1);
		s[1] = synth_loc_at(p, 0x405000, false, m, &mn, NULL, &f, &lm, 1);
		synth_stack(p, s, 2, 500, 5);
	}
	if (c_bytes > 0) {
		s[1] = synth_loc_at(p, 0x401000, false, m, &mn, NULL, &f, &lm, 1);
		s[0] = synth_loc_at(p, 0x406000, true, m, &cn, NULL, &f, &lc, 1);
		synth_stack(p, s, 2, c_bytes, 1);
	}
	return p;
}

/* Two heaps (a ying-heap trailer): rust holds A (1 KiB) and B (2 KiB), c
 * holds A again (4 KiB, the same addresses).  Period 1: values are the
 * raw bytes.  TAIL is the trailer. */
#define HEAPS_HEAD \
    "heap_v2/1\n" \
    "  t*: 4: 7168 [0: 0]\n" \
    "  t0: 2: 3072 [0: 0] main\n" \
    "@ 0x1000 0x2001 0x3001\n  t*: 1: 1024 [0: 0]\n  t0: 1: 1024 [0: 0]\n" \
    "@ 0x1100 0x2001 0x3001\n  t*: 1: 2048 [0: 0]\n  t0: 1: 2048 [0: 0]\n" \
    "@ 0x1000 0x2001 0x3001\n  t*: 2: 4096 [0: 0]\n" \
    "\nMAPPED_LIBRARIES:\n"

static ying_profile *
heaps_profile(const char *tail)
{
	char buf[1024];
	ying_profile *p = NULL;

	snprintf(buf, sizeof(buf), "%s%s", HEAPS_HEAD, tail);
	if (ying_profile_read_mem(&p, buf, strlen(buf), "two.heap") != 0)
		printf("# %s\n", ying_last_error());
	return p;
}

/* The two-heap dump into a new database at `path`. */
static void
test_heaps(const char *path)
{
	const char two[] = "ying-heap: rust 2\nying-heap: c 1\n";
	ying_sql_stats st = { 0, 0, 0, 0, 0 };
	ying_sql *db = NULL;
	ying_profile *p;
	double rust, c;

	is_int(ying_sql_open(&db, path), 0, "heaps: a new database");
	if ((p = heaps_profile(two)) == NULL || db == NULL) {
		ok(0, "heaps: the two-heap dump reads");
		ying_profile_free(p);
		ying_sql_close(db);
		return;
	}
	is_int(ying_sql_import_profile(db, p, "two.heap", NULL, &st), 0, "heaps: imports");
	rust = ying_profile_heap_total(p, 0, YING_INUSE_SPACE);
	c = ying_profile_heap_total(p, 1, YING_INUSE_SPACE);
	ying_profile_free(p);
	is_int(q1(path, "SELECT count(*) FROM samples WHERE thread IS NULL"), 3,
	    "heaps: three process-wide samples: A in rust and in c stay apart");
	is_int(q1(path, "SELECT count(DISTINCT stack) FROM samples"), 2,
	    "heaps: ... and share A's stack row (two stacks)");
	is_int(q1(path, "SELECT count(*) FROM samples WHERE thread IS NULL AND heap = 'rust'"), 2,
	    "heaps: rust has two samples");
	is_int(q1(path, "SELECT count(*) FROM samples WHERE thread IS NULL AND heap = 'c'"), 1,
	    "heaps: c has one");
	is_int(q1(path, "SELECT count(*) FROM samples WHERE heap IS NULL OR heap NOT IN ('rust', 'c')"),
	    0, "heaps: every sample names rust or c (the per-thread ones too)");
	is_int(q1(path, "SELECT bytes FROM heap_totals WHERE heap = 'rust'"), (long long)rust,
	    "heaps: heap_totals rust = ying_profile_heap_total (3072)");
	is_int(q1(path, "SELECT bytes FROM heap_totals WHERE heap = 'c'"), (long long)c,
	    "heaps: heap_totals c = ying_profile_heap_total (4096)");
	is_int(q1(path, "SELECT CAST(SUM(bytes) AS INTEGER) FROM samples WHERE thread IS NULL"
	    " AND heap = 'rust'"), 3072, "heaps: the documented sum per heap (rust)");
	is_int(q1(path, "SELECT count(*) FROM top_stacks WHERE heap = 'c'"), 1,
	    "heaps: top_stacks has the heap");
	is_int(q1(path, "SELECT bytes FROM samples WHERE thread = 0 AND heap = 'rust'"
	    " AND stack = (SELECT stack FROM samples WHERE heap = 'c')"), 1024,
	    "heaps: A's per-thread line is rust's");

	/* the same dump again, then the same stacks in other heaps */
	p = heaps_profile(two);
	is_int(p ? ying_sql_import_profile(db, p, "copy.heap", NULL, &st) : -1, 0,
	    "heaps: the same dump again");
	ying_profile_free(p);
	is_int(st.dumps_skipped, 1, "heaps: ... is skipped");
	p = heaps_profile("ying-heap: c 2\nying-heap: rust 1\n");
	is_int(p ? ying_sql_import_profile(db, p, "swapped.heap", NULL, &st) : -1, 0,
	    "heaps: the same stacks in other heaps import");
	ying_profile_free(p);
	is_int(st.dumps_added, 2, "heaps: ... as a new dump (the heaps are in the content hash)");
	is_int(q1(path, "SELECT CAST(bytes AS INTEGER) FROM heap_totals WHERE dump = 2 AND heap = 'c'"),
	    3072, "heaps: ... with its own heaps (c 3072)");
	p = heaps_profile("");
	is_int(p ? ying_sql_import_profile(db, p, "plain.heap", NULL, &st) : -1, 0,
	    "heaps: the dump without its trailer imports");
	ying_profile_free(p);
	is_int(st.dumps_added, 3, "heaps: ... as a new dump");
	is_int(q1(path, "SELECT count(*) FROM samples WHERE dump = 3 AND thread IS NULL AND heap IS NULL"),
	    2, "heaps: one heap: heap is NULL, A's two stacks summed as before");
	is_int(q1(path, "SELECT count(*) FROM stack_growth WHERE before = 1 AND after = 2"), 4,
	    "heaps: stack_growth pairs (stack, heap): A and B in rust and in c");
	is_int(q1(path, "SELECT CAST(bytes_delta AS INTEGER) FROM stack_growth WHERE before = 1"
	    " AND after = 2 AND heap = 'c' AND stack = (SELECT stack FROM samples WHERE dump = 1"
	    " AND heap = 'c')"), -3072, "heaps: A in c went from 4096 to 1024");
	ying_sql_close(db);
}

/* A schema 1 database (before heaps: no samples.heap, the old views) is
 * brought to this schema when opened; its rows stay. */
static void
test_upgrade(const char *path)
{
	ying_sql *db = NULL;
	ying_profile *p;

	is_int(ying_sql_open(&db, path), 0, "upgrade: a new database");
	p = heaps_profile("");
	is_int(p && db ? ying_sql_import_profile(db, p, "plain.heap", NULL, NULL) : -1, 0,
	    "upgrade: a dump in it");
	ying_profile_free(p);
	ying_sql_close(db);
	db = NULL;
	ok(exec_sql(path, "DROP VIEW heap_totals; DROP VIEW function_growth;"
	    " DROP VIEW stack_growth; DROP VIEW top_stacks;"
	    " ALTER TABLE samples DROP COLUMN heap;"
	    " CREATE VIEW top_stacks AS SELECT s.dump, s.stack FROM samples s;"
	    " UPDATE meta SET value = '1' WHERE key = 'schema';") == SQLITE_OK,
	    "upgrade: made schema 1");
	is_int(q1(path, "SELECT count(*) FROM pragma_table_info('samples') WHERE name = 'heap'"), 0,
	    "upgrade: no heap column");
	is_int(ying_sql_open(&db, path), 0, "upgrade: a schema 1 database opens");
	is_int(q1(path, "SELECT value FROM meta WHERE key = 'schema'"), YI_SQL_SCHEMA,
	    "upgrade: ... and is of this schema");
	is_int(q1(path, "SELECT count(*) FROM top_stacks WHERE heap IS NULL"), 2,
	    "upgrade: its rows stay, top_stacks has the heap (NULL)");
	is_int(q1(path, "SELECT count(*) FROM heap_totals"), 1, "upgrade: heap_totals exists");
	p = heaps_profile("ying-heap: rust 2\nying-heap: c 1\n");
	is_int(p && db ? ying_sql_import_profile(db, p, "two.heap", NULL, NULL) : -1, 0,
	    "upgrade: a two-heap dump imports into it");
	ying_profile_free(p);
	is_int(q1(path, "SELECT count(*) FROM heap_totals WHERE dump = 2"), 2,
	    "upgrade: ... with its two heaps");
	ying_sql_close(db);
	db = NULL;
	ok(exec_sql(path, "UPDATE meta SET value = '99' WHERE key = 'schema'") == SQLITE_OK,
	    "upgrade: a newer schema");
	is_int(ying_sql_open(&db, path), YING_EPARSE, "upgrade: a newer schema is refused");
	ok(db == NULL && strstr(ying_last_error(), "schema 99, newer") != NULL,
	    "upgrade: ... saying so");
}

static int
import(ying_sql *db, ying_profile *p, ying_sql_stats *st)
{
	int rc = ying_sql_import_profile(db, p, ying_profile_program(p), NULL, st);
	ying_profile_free(p);
	return rc;
}

int
main(void)
{
	char path[600], bad[600], empty[600];
	ying_sql_stats st = { 0, 0, 0, 0, 0 };
	ying_sql *db = NULL;
	FILE *f;
	int rc;

	snprintf(dir, sizeof(dir), "%s/test_sql.XXXXXX", tap_tmpdir());
	if (mkdtemp(dir) == NULL) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/p.db", dir);

	/* ---- schema ---- */
	rc = ying_sql_open(&db, path);
	is_int(rc, 0, "a new database opens");
	is_int(q1(path, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN"
	    " ('dumps', 'stacks', 'functions', 'modules', 'samples', 'threads', 'mappings',"
	    " 'captures', 'allocations', 'giant')"), 10, "the tables exist");
	is_int(q1(path, "SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name IN"
	    " ('frames', 'top_stacks', 'top_functions', 'dump_pairs', 'stack_growth',"
	    " 'function_growth', 'lifetimes', 'heap_totals')"), 8, "the views exist");
	is_int(q1(path, "SELECT value FROM meta WHERE key = 'schema'"), YI_SQL_SCHEMA,
	    "meta names the schema version");

	/* ---- one dump, stacks deduplicated by symbolized frames ---- */
	rc = import(db, profile("one", 1000, 3000, 1, 0), &st);
	is_int(rc, 0, "dump 1 imports");
	is_int(st.dumps_added, 1, "one dump added");
	is_int(q1(path, "SELECT count(*) FROM stacks"), 2,
	    "two stacks: the extra one symbolizes like alloc_a's");
	is_int(q1(path, "SELECT count(*) FROM samples WHERE dump = 1 AND thread IS NULL"), 2,
	    "one process-wide sample per distinct stack");
	is_int(q1(path, "SELECT bytes FROM top_stacks WHERE dump = 1 AND function = 'alloc_a'"),
	    1500, "alloc_a's sample sums both stacks (1000 + 500)");
	is_int(q1(path, "SELECT count(*) FROM frames WHERE stack = (SELECT id FROM stacks"
	    " WHERE function = 'alloc_b')"), 2, "alloc_b's stack has two frames");
	is_int(q1(path, "SELECT line FROM frames WHERE function = 'main' LIMIT 1"), 40,
	    "frames carry the line");
	is_int(q1(path, "SELECT count(*) FROM frames WHERE module = '/usr/bin/prog'"), 4,
	    "frames carry the module");
	is_int(q1(path, "SELECT inuse_bytes FROM dumps WHERE id = 1"), 4500,
	    "dumps.inuse_bytes is the total");

	/* ---- a second dump: alloc_a's stack is shared, alloc_c's is new ---- */
	rc = import(db, profile("two", 1000, 1000, 0, 7000), &st);
	is_int(rc, 0, "dump 2 imports");
	is_int(q1(path, "SELECT count(*) FROM stacks"), 3, "across dumps a stack is stored once");
	is_int(st.stacks_added, 3, "stats count the new stacks (2 + 1)");
	is_int(q1(path, "SELECT bytes_delta FROM function_growth WHERE before = 1 AND after = 2"
	    " AND function = 'alloc_c'"), 7000, "function_growth: alloc_c +7000");
	is_int(q1(path, "SELECT bytes_delta FROM function_growth WHERE before = 1 AND after = 2"
	    " AND function = 'alloc_b'"), -2000, "function_growth: alloc_b -2000");
	is_int(q1(path, "SELECT bytes_delta FROM function_growth WHERE before = 1 AND after = 2"
	    " AND function = 'alloc_a'"), -500, "function_growth: alloc_a -500");

	/* ---- the same dump again ---- */
	rc = import(db, profile("one again", 1000, 3000, 1, 0), &st);
	is_int(rc, 0, "re-importing dump 1 succeeds");
	is_int(st.dumps_skipped, 1, "... and is counted as skipped");
	is_int(st.last_dump, 1, "... naming dump 1");
	is_int(q1(path, "SELECT count(*) FROM dumps"), 2, "no duplicate dump row");
	is_int(q1(path, "SELECT count(*) FROM samples"), 5, "no duplicate sample rows (2 + 3)");

	/* ---- rollback: a failure after some rows of the dump were written ---- */
	ok(exec_sql(path, "CREATE TRIGGER boom AFTER INSERT ON samples WHEN NEW.bytes = 777"
	    " BEGIN SELECT RAISE(ABORT, 'boom'); END;") == SQLITE_OK, "a failing trigger installed");
	rc = import(db, profile("three", 1000, 2000, 0, 777), &st);
	is_int(rc, YING_EIO, "an import failing at its samples fails");
	ok(strstr(ying_last_error(), "boom") != NULL && strstr(ying_last_error(), path) != NULL,
	    "the error names the database and the cause");
	is_int(q1(path, "SELECT count(*) FROM dumps"), 2, "rolled back: no dump row");
	is_int(q1(path, "SELECT count(*) FROM stacks"), 3, "rolled back: no new stack");
	is_int(q1(path, "SELECT count(*) FROM frames"), 6, "rolled back: no new frame");
	is_int(q1(path, "SELECT count(*) FROM mappings"), 2, "rolled back: no new mapping");
	is_int(st.dumps_added, 2, "a rolled back dump is not counted");
	ok(exec_sql(path, "DROP TRIGGER boom") == SQLITE_OK, "trigger dropped");
	rc = import(db, profile("three", 1000, 2000, 0, 777), &st);
	is_int(rc, 0, "the same dump imports once the cause is gone");
	is_int(q1(path, "SELECT count(*) FROM dumps"), 3, "three dumps");

	/* ---- refusals ---- */
	snprintf(bad, sizeof(bad), "%s/garbage.heap", dir);
	f = fopen(bad, "w");
	fputs("heap_v2/1\n  t*: nonsense\n", f);
	fclose(f);
	rc = ying_sql_import_path(db, bad, NULL, &st);
	ok(rc < 0, "a garbage dump fails");
	ok(strstr(ying_last_error(), "garbage.heap") != NULL, "the error names the file");
	is_int(q1(path, "SELECT count(*) FROM dumps"), 3, "nothing added");
	snprintf(empty, sizeof(empty), "%s/empty", dir);
	mkdir(empty, 0700);
	rc = ying_sql_import_path(db, empty, NULL, &st);
	is_int(rc, YING_ENOTFOUND, "a directory without dumps fails");
	ying_sql_close(db);

	db = NULL;
	rc = ying_sql_open(&db, bad);
	is_int(rc, YING_EPARSE, "a file that is not a SQLite database is refused");
	ok(db == NULL && strstr(ying_last_error(), "garbage.heap") != NULL,
	    "... naming it, no handle");
	snprintf(bad, sizeof(bad), "%s/other.db", dir);
	ok(exec_sql(bad, "CREATE TABLE t(x);") == SQLITE_OK, "another SQLite database");
	rc = ying_sql_open(&db, bad);
	is_int(rc, YING_EPARSE, "a SQLite database that is not ying's is refused");
	ying_sql_close(NULL);

	snprintf(path, sizeof(path), "%s/heaps.db", dir);
	test_heaps(path);
	snprintf(path, sizeof(path), "%s/old.db", dir);
	test_upgrade(path);

	char cmd[700];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return tap_done();
}
