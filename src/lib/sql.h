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
 * directories.
 */
#ifndef YING_SQL_H
#define YING_SQL_H

#include <sqlite3.h>

#include "live.h"

/* The schema version stored in meta('schema'); a database with another
 * one is refused rather than guessed at. */
#define YI_SQL_SCHEMA 1

enum yi_sql_stmt {
	YI_SQL_FIND_DUMP,       /* hash -> dumps.id */
	YI_SQL_ADD_DUMP,
	YI_SQL_FIND_STACK,      /* hash -> stacks.id */
	YI_SQL_ADD_STACK,
	YI_SQL_ADD_FRAME,
	YI_SQL_ADD_SAMPLE,
	YI_SQL_ADD_THREAD,
	YI_SQL_ADD_MAPPING,
	YI_SQL_FIND_FUNC,       /* (name, file) -> functions.id */
	YI_SQL_ADD_FUNC,
	YI_SQL_FIND_MODULE,     /* path -> modules.id */
	YI_SQL_ADD_MODULE,
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

/* A 128-bit content hash that is the same in every process (unlike the
 * keyed SipHash of base_hash.c): two independent 64-bit lanes. */
typedef struct yi_sql_hash {
	uint64_t a, b;
} yi_sql_hash;
void yi_sql_hash_init(yi_sql_hash *h);
void yi_sql_hash_u64(yi_sql_hash *h, uint64_t v);
void yi_sql_hash_bytes(yi_sql_hash *h, const void *p, size_t n);
/* Lowercase hex of the 16 bytes into buf (33 bytes with the NUL). */
void yi_sql_hash_hex(const yi_sql_hash *h, char buf[33]);

#endif /* YING_SQL_H */
