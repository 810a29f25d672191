/*
 * live_serve_int.h: private to live_serve_src.c and live_serve_fetch.c:
 * struct yi_serve (the entries, the cache, the directory's state, the URL
 * fetcher's thread) and what the two files offer each other.
 */
#ifndef YING_LIVE_SERVE_INT_H
#define YING_LIVE_SERVE_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>
#include <time.h>

#include "live_serve.h"

#define YI_SERVE_MAX_FILES 100000   /* directory entries looked at */

typedef struct yi_serve_skip {
	char *name;
	off_t size;
	time_t mtime;
} yi_serve_skip;

struct yi_serve {
	pthread_mutex_t mtx;        /* guards everything below but the fetcher's own */
	pthread_cond_t cv;          /* the fetcher waits on it (stop) */
	YI_VEC(yi_serve_entry) ents;    /* by time */
	YI_VEC(yi_serve_skip) skipped;  /* files of the directory that are not dumps */
	char *heaps[YI_SERVE_MAX_HEAPS];
	size_t nheaps;
	char *dir;                  /* a directory source, or NULL */
	struct timespec dir_mtime;  /* as last listed */
	char *what;                 /* the first input, as given */
	FILE *warn;
	unsigned long generation;   /* bumped by every listing */
	struct {
		ying_profile *p;        /* symbolized; NULL: a free slot */
		char *name;
		double t;
		unsigned refs;          /* requests holding it */
		unsigned long used;
	} cache[YI_SERVE_CACHE];
	unsigned long clock;
	/* live_serve_fetch.c: a URL source */
	char *url;
	char *token;
	double every;
	unsigned max_dumps;
	size_t fetches;             /* dumps fetched so far (names) */
	pthread_t thread;
	bool thread_on;
	bool stop;                  /* under mtx */
	char last_error[256];       /* the last fetch's failure, or "" */
};

/* ---- live_serve_fetch.c */
bool yi_serve_is_url(const char *s);
/* Fetch url once now (an error is the start's), then every opts->every
 * seconds from a thread of ours. */
int yi_serve_fetch_start(yi_serve *s, const char *url, const ying_serve_opts *opts);
/* Join the thread (no-op without one). */
void yi_serve_fetch_stop(yi_serve *s);
/* Lock held: add a fetched dump (data is taken) read into its totals. */
int yi_serve_add_mem(yi_serve *s, char *data, size_t len, const char *name, double t);
/* ---- live_serve_src.c */
/* A dump's totals (per heap of the source) and program into e from p. */
void yi_serve_entry_totals(yi_serve *s, yi_serve_entry *e, const ying_profile *p);
/* Free what e holds and zero it. */
void yi_serve_entry_free(yi_serve_entry *e);

#endif /* YING_LIVE_SERVE_INT_H */
