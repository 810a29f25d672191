/*
 * live_serve.h: private to `ying serve` (live_serve_src.c, the files;
 * live_http_offline.c, the endpoint's offline routes; not installed): the
 * source of an offline endpoint, a set of heap dumps and report files
 * known by name and time, with their totals read once and the parsed,
 * symbolized profiles of a few of them cached.
 *
 * A source is a report directory (re-listed when its modification time
 * changes, so a directory a runner still writes grows under the page),
 * several dump files given at start, or the dumps fetched from a live
 * endpoint's URL now and then (kept in memory, bounded).  Every dump is a
 * snapshot named by its file name; every .report file an event.  One
 * mutex guards the entries; profiles are parsed outside it.
 */
#ifndef YING_LIVE_SERVE_H
#define YING_LIVE_SERVE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include "live.h"

#define YI_SERVE_HEAP_DEFAULT "c"  /* a dump without named heaps: the agent's name of one plain jemalloc */
#define YI_SERVE_CACHE 4                  /* parsed profiles kept */
#define YI_SERVE_MAX_HEAPS 16             /* heap columns */

typedef struct yi_serve_entry {
	char *name;                 /* the file name: unique in the source */
	char *path;                 /* on disk, or NULL: `data` holds it */
	char *data;                 /* a fetched dump's bytes (ours), or NULL */
	size_t len;                 /* its size in bytes (on disk: at listing) */
	double t;                   /* seconds since the epoch (mtime, fetch time) */
	bool report;                /* a .report file, not a dump */
	size_t base_len;            /* a report set's base name length, or 0 */
	/* a dump: its inuse_space totals, from one unsymbolized read */
	double total;
	double heap[YI_SERVE_MAX_HEAPS];    /* by source heap id; NAN: not in it */
	/* a report: what its text says (NAN / -1 / "" when it does not) */
	double rss, limit;
	long pid;
	char program[128];
} yi_serve_entry;

typedef struct yi_serve yi_serve;

/* A source over inputs[0..n): one directory, dump files, or one http(s)://
 * URL (fetched every opts->every seconds).  Warnings (a skipped file of
 * the directory) go to opts->warn.  A file given explicitly that is not a
 * dump is an error naming it (YING_EPARSE or the reader's code).  *out is
 * freed with yi_serve_free. */
int yi_serve_new(yi_serve **out, const char *const *inputs, size_t n,
    const ying_serve_opts *opts);
void yi_serve_free(yi_serve *s);

/* Look again at the directory (when it changed) and take what a fetch
 * brought; warnings as at start.  Cheap when nothing changed. */
void yi_serve_refresh(yi_serve *s);
/* Under the source's lock: the entries by time (dumps and reports), the
 * heap names by id.  yi_serve_unlock when done; pointers are valid until
 * then. */
void yi_serve_lock(yi_serve *s);
void yi_serve_unlock(yi_serve *s);
const yi_serve_entry *yi_serve_entries(yi_serve *s, size_t *n);
const char *yi_serve_heap_name(yi_serve *s, size_t id);
size_t yi_serve_nheaps(yi_serve *s);
/* The inputs, as given (for /debug/ui); the report that says the most
 * (pid, program) or NULL; the program of the newest dump or "". */
const char *yi_serve_what(yi_serve *s);
const char *yi_serve_program(yi_serve *s);
long yi_serve_pid(yi_serve *s);
/* How many dumps; the name of the newest, copied into buf[n] ("" when none). */
size_t yi_serve_ndumps(yi_serve *s, char *newest, size_t n);
/* A URL source: the last fetch's failure, or "" (lock held). */
const char *yi_serve_fetch_error(yi_serve *s);

/* The dump named name (a file name; NULL: the newest), read and
 * symbolized with sym and frames, shared with other requests: *out until
 * yi_serve_put.  YING_ENOTFOUND naming it when there is no such dump,
 * or the reader's error naming the file. */
int yi_serve_get(yi_serve *s, const char *name, ying_symbolizer *sym,
    const char *frames, const ying_profile **out);
void yi_serve_put(yi_serve *s, const ying_profile *p);
/* The bytes of dump name as they are on disk (raw): *data yi_malloc'd
 * (the caller frees it).  YING_ENOTFOUND as yi_serve_get. */
int yi_serve_raw(yi_serve *s, const char *name, char **data, size_t *len);
/* The leak verdicts over every dump (ying leaks), by stack when by_stack:
 * *out freed by the caller with ying_leaks_free. */
int yi_serve_leaks(yi_serve *s, ying_symbolizer *sym, const char *frames,
    bool by_stack, ying_leaks **out);

#endif /* YING_LIVE_SERVE_H */
