/*
 * sql.h: the sql family (sql_*.c): SQLite databases of dumps, the top of
 * libying's chain (base < model < read < sym < write < diff < live < sql).
 * It is built into its own convenience library (libying_sql.la, mk/sql.mk)
 * so that only what uses it (ying, libying.so, the tests) links
 * libsqlite3: the preloaded agent never does.
 *
 * sql_db.c opens a database and owns the schema (tables, indexes, views:
 * docs/sql.md documents them) and the prepared statements; sql_import.c
 * adds a profile in one transaction; sql_path.c imports files and report
 * directories; sql_recent.c imports recent-allocation records (the read
 * family's ying_recent), sql_giant.c giant-allocation listings
 * (ying_giant).
 */
#ifndef YING_SQL_H
#define YING_SQL_H

#include <sqlite3.h>

#include "diff.h"
#include "write.h"

/* The schema version stored in meta('schema'); a database of schema 1
 * is upgraded when opened (sql_db.c), one with another version is refused
 * rather than guessed at.  2: samples.heap, the heap_totals view. */
#define YI_SQL_SCHEMA 2

enum yi_sql_stmt {
	YI_SQL_FIND_DUMP,       /* hash -> dumps.id */
	YI_SQL_ADD_DUMP,
	YI_SQL_FIND_STACK,      /* hash -> stacks.id */
	YI_SQL_ADD_STACK,
	YI_SQL_ADD_SAMPLE,
	YI_SQL_ADD_THREAD,
	YI_SQL_ADD_MAPPING,
	YI_SQL_FIND_FUNC,       /* (name, file) -> functions.id */
	YI_SQL_ADD_FUNC,
	YI_SQL_FIND_MODULE,     /* path -> modules.id */
	YI_SQL_ADD_MODULE,
	YI_SQL_FIND_CAPTURE,    /* hash -> captures.id */
	YI_SQL_ADD_CAPTURE,
	YI_SQL_ADD_ALLOCATION,
	YI_SQL_ADD_GIANT,
	YI_SQL_NSTMT
};

struct ying_sql {
	sqlite3 *db;
	char *path;             /* for messages */
	sqlite3_stmt *st[YI_SQL_NSTMT];
};

/* Record the SQLite error of db->db for `what` and return `code`. */
int yi_sql_fail(ying_sql *db, int code, const char *what);
/* Run a statement without results (BEGIN, COMMIT, ROLLBACK, DDL). */
int yi_sql_exec(ying_sql *db, const char *sql);

/* Writing stacks of one profile (sql_import.c): the profile's functions and
 * mappings hashed once, and the database ids found or added so far. */
typedef struct yi_sql_ctx {
	ying_sql *db;
	const ying_profile *p;
	int64_t dump;
	uint64_t *func_h;       /* per function: its name and file, hashed */
	uint64_t *map_h;        /* per mapping: its path, hashed */
	int64_t *sid;           /* per profile stack: stacks.id */
	int64_t *func_id;       /* per function: functions.id, 0 = not yet */
	int64_t *mod_id;        /* per mapping (the last: none): modules.id */
	yi_framevec fv;
	char *json;             /* a stack's frames as JSON (grown) */
	size_t json_cap;
	ying_sql_stats *st;
} yi_sql_ctx;
int yi_sql_ctx_init(yi_sql_ctx *c, ying_sql *db, const ying_profile *p,
    ying_sql_stats *st);
void yi_sql_ctx_release(yi_sql_ctx *c);
/* stacks.id of stack i of c->p (found by its symbolized frames, or added
 * with its frames); counts an added stack in c->st. */
int yi_sql_stack_id(yi_sql_ctx *c, size_t i, int64_t *id);
/* Step a statement that returns no row, then reset it: 0 or YING_EIO. */
int yi_sql_step_done(ying_sql *db, sqlite3_stmt *s, const char *what);
/* Step a lookup: 1 with *id, 0 when no row, negative on error. */
int yi_sql_find_id(ying_sql *db, sqlite3_stmt *s, int64_t *id, const char *what);

/* Captures (recent records, giant listings): look `hash` up in captures
 * inside an open transaction: 1 with *id when there, 0 when not. */
int yi_sql_find_capture(ying_sql *db, const char *hash, int64_t *id);
/* Add a captures row; *id is its id. */
typedef struct yi_sql_capture {
	const char *path, *kind, *program, *time_resolution;
	int64_t pid;                    /* <= 0: unknown */
	uint64_t sample_period;         /* 0: unknown */
	int has_prof_ns, has_wall_ns;
	uint64_t prof_ns;
	int64_t wall_ns;
	size_t nrecords;
	const char *hash;
} yi_sql_capture;
int yi_sql_add_capture(ying_sql *db, const yi_sql_capture *c, int64_t *id);
/* One capture's records in one transaction (BEGIN IMMEDIATE .. COMMIT):
 * skipped (counted in stats, a line on opts->messages) when `hash` is
 * already a capture; else add(c, arg, path, hash, &added) with c writing
 * stacks of p; on error rolled back, the message naming `path`.  The
 * caller keeps p and arg; opts is not NULL. */
typedef int (*yi_sql_add_fn)(yi_sql_ctx *c, void *arg, const char *path,
    const char *hash, size_t *added);
int yi_sql_import_capture(ying_sql *db, const char *path, const char *hash,
    const ying_profile *p, const ying_sql_import_opts *opts,
    ying_sql_stats *stats, yi_sql_add_fn add, void *arg);
/* Import a giant listing for dump `dump` (0: none). */
int yi_sql_import_giant_for(ying_sql *db, const char *path, int64_t dump,
    const ying_sql_import_opts *opts, ying_sql_stats *stats);

#endif /* YING_SQL_H */
