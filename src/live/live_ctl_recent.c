/*
 * live_ctl_recent.c: jemalloc's recent-allocation records and its prof log,
 * through the control layer's mallctl.
 *
 * ying_ctl_recent_max sets experimental.prof_recent.alloc_max, 0 to
 * YING_RECENT_MAX_LIMIT (never jemalloc's -1, unlimited);
 * ying_ctl_recent_dump calls experimental.prof_recent.alloc_dump with a
 * callback that only appends to a list of fixed-size chunks.  jemalloc 5.3
 * holds its prof_recent_dump mutex (not the records' mutex, so allocating
 * there cannot deadlock) for the whole walk and formatting, and
 * mallctl("epoch") takes that mutex while holding ctl_mtx to read its
 * statistics: a program that reads jemalloc's stats on its main thread
 * (redis' serverCron, every 100 ms) stops for as long as the dump lasts.
 * So the record is bounded (a record allowed more than
 * YING_RECENT_MAX_LIMIT entries is refused, not dumped), and the callback
 * never copies what it already holds (a growing buffer's realloc copies
 * tens of MiB under the mutex); the caller's sink is never called under
 * it.  Then ying's capture format is written: the raw JSON wrapped with
 * the pid, the program, /proc/self/maps and the build-id lines (offline
 * symbolization) and a reading of jemalloc's prof clock next to one of the
 * wall clock (time conversion).  ying_ctl_log_start/stop drive prof.log_*,
 * refusing to start while prof.gdump is on (jemalloc 5.3 deadlocks when a
 * logged free triggers a gdump).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "live_ctl.h"

#define RECENT_MAX_BYTES ((size_t)256 << 20)   /* jemalloc's JSON, bounded */
#define CHUNK_BYTES ((size_t)1 << 20)          /* the callback's unit */
#define MAPS_MAX_BYTES ((size_t)16 << 20)

static int
no_recent(int e, const char *name)
{
	if (e == ENOENT)
		return yi_error(YING_ENOTSUP, "this jemalloc has no %s (it needs "
		    "jemalloc 5.3 or later, with prof:true)", name);
	return yi_error(e == EINVAL ? YING_EINVAL : YING_ESYS,
	    "mallctl(\"%s\") failed: %s", name, strerror(e));
}

int
ying_ctl_recent_max(int64_t *old, int64_t max)
{
	ying_mallctl_fn fn;
	ssize_t prev = 0, nv;
	size_t sz = sizeof(prev);
	bool keep = max == YING_RECENT_KEEP;
	int rc, e;

	yi_error_clear();
	if (old)
		*old = 0;
	if (!keep && (max < 0 || max > YING_RECENT_MAX_LIMIT))
		return yi_error(YING_EINVAL, "recent allocation count %lld out of range: "
		    "0 (off) to %d; there is no unlimited (-1): the record would grow "
		    "without bound, and dumping it holds jemalloc's prof_recent_dump "
		    "lock for the whole record", (long long)max, YING_RECENT_MAX_LIMIT);
	if ((rc = yi_ctl_need_prof(&fn)) != 0)
		return rc;
	nv = (ssize_t)max;
	e = fn("experimental.prof_recent.alloc_max", &prev, &sz, keep ? NULL : &nv,
	    keep ? 0 : sizeof(nv));
	if (e != 0)
		return no_recent(e, "experimental.prof_recent.alloc_max");
	if (old)
		*old = (int64_t)prev;
	return 0;
}

/* jemalloc's JSON as a list of CHUNK_BYTES chunks: appending never moves
 * what is already there. */
typedef struct rchunk {
	struct rchunk *next;
	size_t len;
	char data[];
} rchunk;

typedef struct recent_sink {
	rchunk *head, *tail;
	size_t total;
	int err;                    /* YING_ENOMEM or YING_ELIMIT; set once */
} recent_sink;

static bool
sink_grow(recent_sink *k)
{
	rchunk *c = yi_malloc(sizeof(*c) + CHUNK_BYTES);

	if (c == NULL)
		return false;
	c->next = NULL;
	c->len = 0;
	if (k->tail)
		k->tail->next = c;
	else
		k->head = c;
	k->tail = c;
	return true;
}

static void
sink_free(recent_sink *k)
{
	while (k->head) {
		rchunk *n = k->head->next;
		yi_free(k->head);
		k->head = n;
	}
	k->tail = NULL;
}

/* Called by jemalloc under prof_recent_dump_mtx: append, nothing else (no
 * error message is formatted here; k->err says what went wrong). */
static void
recent_cb(void *opaque, const char *s)
{
	recent_sink *k = opaque;
	size_t n = strlen(s), take;

	if (k->err != 0)
		return;
	if (n > RECENT_MAX_BYTES - k->total) {
		k->err = YING_ELIMIT;
		return;
	}
	while (n > 0) {
		if ((k->tail == NULL || k->tail->len == CHUNK_BYTES) && !sink_grow(k)) {
			k->err = YING_ENOMEM;
			return;
		}
		take = CHUNK_BYTES - k->tail->len;
		if (take > n)
			take = n;
		memcpy(k->tail->data + k->tail->len, s, take);
		k->tail->len += take;
		k->total += take;
		s += take;
		n -= take;
	}
}

int
ying_ctl_recent_dump(ying_write_fn fn, void *opaque)
{
	ying_mallctl_fn mc;
	recent_sink k = { NULL, NULL, 0, 0 };
	struct { void (*cb)(void *, const char *); void *opaque; } arg;
	const char *res = NULL;
	size_t sz = sizeof(res);
	char *maps = NULL, exe[PATH_MAX];
	struct timespec tp, tw;
	bool high, was = false, off = false;
	size_t bsz = sizeof(was);
	ssize_t en, kept = 0;
	size_t ksz = sizeof(kept);
	int te;
	yi_out o;
	int rc, e;

	yi_error_clear();
	if (fn == NULL)
		return yi_error(YING_EINVAL, "ying_ctl_recent_dump: fn is NULL");
	if ((rc = yi_ctl_need_prof(&mc)) != 0)
		return rc;
	/* jemalloc walks the whole record under its lock: refuse one allowed
	 * to be larger than ying's bound (MALLOC_CONF's prof_recent_alloc_max) */
	if ((e = mc("experimental.prof_recent.alloc_max", &kept, &ksz, NULL, 0)) != 0)
		return no_recent(e, "experimental.prof_recent.alloc_max");
	if (kept < 0 || kept > YING_RECENT_MAX_LIMIT)
		return yi_error(YING_ELIMIT, "experimental.prof_recent.alloc_max is %lld "
		    "(-1: unlimited; from MALLOC_CONF's prof_recent_alloc_max): ying dumps a "
		    "record of at most %d entries, because jemalloc holds its "
		    "prof_recent_dump lock, which every mallctl(\"epoch\") caller waits "
		    "for, during the whole dump; lower it first (ying_ctl_recent_max, POST "
		    "/debug/heap/recent?max=N)", (long long)kept, YING_RECENT_MAX_LIMIT);
	if (mc("opt.prof_time_resolution", &res, &sz, NULL, 0) != 0 || res == NULL)
		res = "default";
	high = strcmp(res, "high") == 0;
	/* the capture's own buffers are not the program's allocations: the
	 * calling thread stops sampling until the records are read */
	te = mc("thread.prof.active", &was, &bsz, &off, sizeof(off));
	/* everything the wrapper needs that can fail, before the dump */
	if ((rc = yi_ctl_maps_text(MAPS_MAX_BYTES, &maps, NULL)) != 0)
		goto out;
	if ((en = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) < 0)
		en = 0;
	exe[en] = '\0';
	if (!sink_grow(&k)) {               /* the first chunk, before the lock */
		rc = yi_oom("the recent allocations buffer");
		goto out;
	}
	arg.cb = recent_cb;
	arg.opaque = &k;
	pthread_mutex_lock(&yi_ctl_dump_lock);
	e = mc("experimental.prof_recent.alloc_dump", NULL, NULL, &arg, sizeof(arg));
	/* both clocks together, right after the records were read */
	clock_gettime(high ? CLOCK_REALTIME : CLOCK_MONOTONIC_COARSE, &tp);
	clock_gettime(CLOCK_REALTIME, &tw);
	pthread_mutex_unlock(&yi_ctl_dump_lock);
	if (te == 0 && was) {
		mc("thread.prof.active", NULL, NULL, &was, sizeof(was));
		was = false;
	}
	if (e != 0) {
		rc = no_recent(e, "experimental.prof_recent.alloc_dump");
		goto out;
	}
	if (k.err != 0) {
		rc = k.err == YING_ELIMIT ? yi_error(YING_ELIMIT, "jemalloc's recent "
		    "allocations JSON is larger than 256 MiB; lower "
		    "experimental.prof_recent.alloc_max") :
		    yi_oom("the recent allocations buffer");
		goto out;
	}
	if (k.total == 0) {
		rc = yi_error(YING_EIO, "experimental.prof_recent.alloc_dump wrote nothing");
		goto out;
	}
	yi_out_init(&o, fn, opaque);
	yi_out_printf(&o, "{\"ying_recent\":1,\"pid\":%ld,\"program\":", (long)getpid());
	yi_out_json_str(&o, exe);
	yi_out_printf(&o, ",\"time_resolution\":\"%s\",\"clock\":\"%s\","
	    "\"captured_prof_ns\":%llu,\"captured_wall_ns\":%llu,\"maps\":",
	    high ? "high" : "default",
	    high ? "CLOCK_REALTIME" : "CLOCK_MONOTONIC_COARSE",
	    (unsigned long long)tp.tv_sec * 1000000000ull + (unsigned long long)tp.tv_nsec,
	    (unsigned long long)tw.tv_sec * 1000000000ull + (unsigned long long)tw.tv_nsec);
	yi_out_json_str(&o, maps);
	yi_out_puts(&o, ",\"jemalloc\":");
	for (rchunk *c = k.head; c; c = c->next)
		yi_out_write(&o, c->data, c->len);
	yi_out_puts(&o, "}\n");
	rc = yi_out_finish(&o);
out:
	if (te == 0 && was)
		mc("thread.prof.active", NULL, NULL, &was, sizeof(was));
	sink_free(&k);
	yi_free(maps);
	return rc;
}

int
ying_ctl_log_start(const char *path)
{
	ying_mallctl_fn fn;
	bool gdump = false;
	size_t sz = sizeof(gdump);
	int rc, e;

	yi_error_clear();
	if (path != NULL && (path[0] == '\0' || strlen(path) >= PATH_MAX))
		return yi_error(YING_EINVAL, "prof log path is empty or longer than %d bytes",
		    PATH_MAX - 1);
	if ((rc = yi_ctl_need_prof(&fn)) != 0)
		return rc;
	if ((e = fn("prof.gdump", &gdump, &sz, NULL, 0)) != 0)
		return yi_error(YING_ESYS, "mallctl(\"prof.gdump\") failed: %s", strerror(e));
	if (gdump)
		return yi_error(YING_EBUSY, "refusing to start the prof log while prof.gdump "
		    "is on: jemalloc 5.3 deadlocks when a logged free triggers a gdump "
		    "(turn gdump off first: prof_gdump:false)");
	e = fn("prof.log_start", NULL, NULL, (void *)&path, sizeof(path));
	if (e == EFAULT)
		return yi_error(YING_EBUSY, "prof.log_start refused: a prof log is already "
		    "running (stop it with ying_ctl_log_stop)");
	if (e != 0)
		return no_recent(e, "prof.log_start");
	return 0;
}

int
ying_ctl_log_stop(void)
{
	ying_mallctl_fn fn;
	int rc, e;

	yi_error_clear();
	if ((rc = yi_ctl_need_prof(&fn)) != 0)
		return rc;
	e = fn("prof.log_stop", NULL, NULL, NULL, 0);
	if (e == EFAULT)
		return yi_error(YING_EINVAL, "prof.log_stop refused: no prof log is running, "
		    "or jemalloc could not create its file (see its message on stderr)");
	if (e != 0)
		return no_recent(e, "prof.log_stop");
	return 0;
}
