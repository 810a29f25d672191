/*
 * live_giant.c: giant allocations through jemalloc's allocation hooks
 * (experimental.hooks.install): every allocation of at least a threshold
 * is recorded with its stack, size, thread and wall-clock time.
 *
 * The hook runs for every allocation of every thread, so it only compares
 * the requested size (from args_raw as the hook type lays them out;
 * realloc in place: the expand hook's new usable size) with the threshold
 * and returns.  For a giant one it claims a slot of a fixed ring (a
 * bounded multi-producer queue: a CAS on the tail, a per-slot sequence
 * number; no locks, no allocation: a full ring counts the record as
 * dropped), fills it (CLOCK_REALTIME, gettid, libgcc's _Unwind_Backtrace,
 * warmed up once at start so that it allocates nothing later, into the
 * slot's own array) and publishes it.  The hook functions live in their
 * own section (ying_giant_hook), so the frames of the hook itself are
 * recognised by address and left out of the stack.  jemalloc never calls
 * hooks for allocations made inside a hook; ours makes none anyway.
 *
 * A background thread (which never samples) empties the ring every
 * 100 ms: it keeps the last KEEP_RECS records and one entry per call site
 * (stack hash, count, bytes), and logs the first allocation of each call
 * site, symbolized there.  Listings (ying_giant_capture_write_json: the HTTP
 * endpoint, the growth runner) symbolize the call sites when asked, with
 * the maps and build IDs of the moment, and write them as "ying-giant/1"
 * JSON, which read_giant.c reads back: this file copies what they need
 * under its locks (yi_giant_snapshot); the symbolizing and the writing are
 * live_giant_json.c's, with no lock held.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <unwind.h>

#include "live_giant.h"
#include "read.h"
#include "sym.h"

#define RING 256              /* records between two drains */
#define DEPTH YI_GIANT_DEPTH  /* frames per record */
#define KEEP_RECS 4096        /* records kept for listings */
#define MAX_SITES 1024        /* call sites kept */
#define DRAIN_MS 100

/* jemalloc's hooks_t (include/jemalloc/internal/hook.h, 5.1 to 5.3). */
typedef void (*gh_alloc)(void *extra, int type, void *result,
    uintptr_t result_raw, uintptr_t args_raw[3]);
typedef void (*gh_dalloc)(void *extra, int type, void *address,
    uintptr_t args_raw[3]);
typedef void (*gh_expand)(void *extra, int type, void *address,
    size_t old_usize, size_t new_usize, uintptr_t result_raw,
    uintptr_t args_raw[4]);
typedef struct gh_hooks {
	gh_alloc alloc_hook;
	gh_dalloc dalloc_hook;
	gh_expand expand_hook;
	void *extra;
} gh_hooks;

/* hook_alloc_t 0..8, then hook_expand_t 0..2 as 9..11 */
static const char *const kind_names[] = {
	"malloc", "posix_memalign", "aligned_alloc", "calloc", "memalign",
	"valloc", "mallocx", "realloc", "rallocx",
	"realloc (in place)", "rallocx (in place)", "xallocx",
};
#define NKINDS (sizeof(kind_names) / sizeof(kind_names[0]))

typedef struct slot {
	atomic_uint_fast64_t seq;
	uint64_t pos;
	int64_t time_ns;
	uint64_t size, tid, hash;
	uint32_t kind, n;
	uintptr_t pcs[DEPTH];
} slot;

/* ---- what the hook touches: static, never freed --------------------------- */
static slot ring[RING];
static atomic_uint_fast64_t ring_tail;
static atomic_bool ring_ready;
static atomic_uint_fast64_t hook_threshold;   /* 0 = off */
static atomic_uint_fast64_t seen;             /* giant allocations */
static atomic_uint_fast64_t lost;             /* ring full */
/* jemalloc's code when it is a shared object of its own (else 0, 0): its
 * leading frames are folded into one, the innermost before the caller */
static uintptr_t jem_lo, jem_hi;

extern char __start_ying_giant_hook[] __attribute__((weak, visibility("hidden")));
extern char __stop_ying_giant_hook[] __attribute__((weak, visibility("hidden")));

#define HOOK_FN __attribute__((section("ying_giant_hook"), noinline, used))

typedef struct uw {
	uintptr_t *pcs;
	uint32_t n;
	int state;                 /* 0 our frames, 1 jemalloc's, 2 the rest */
	uintptr_t last_jem;
} uw;

static _Unwind_Reason_Code HOOK_FN
uw_frame(struct _Unwind_Context *ctx, void *arg)
{
	uw *u = arg;
	uintptr_t ip = (uintptr_t)_Unwind_GetIP(ctx);

	if (ip == 0)
		return _URC_END_OF_STACK;
	if (u->state == 0) {
		if (ip >= (uintptr_t)__start_ying_giant_hook &&
		    ip < (uintptr_t)__stop_ying_giant_hook)
			return _URC_NO_REASON;
		u->state = 1;
	}
	if (u->state == 1) {
		/* jemalloc's internal path to the hook differs from call to
		 * call; only the frame its caller called stays (the leaf, as
		 * in a heap dump, trimmed as an allocator frame) */
		if (ip >= jem_lo && ip < jem_hi) {
			u->last_jem = ip;
			return _URC_NO_REASON;
		}
		u->state = 2;
		if (u->last_jem)
			u->pcs[u->n++] = u->last_jem;
	}
	if (u->n >= DEPTH)
		return _URC_END_OF_STACK;
	u->pcs[u->n++] = ip;
	return _URC_NO_REASON;
}

static void HOOK_FN
giant_record(unsigned kind, uint64_t size)
{
	uint64_t pos, h = 1469598103934665603ull;
	struct timespec ts;
	slot *s;
	uw u;

	atomic_fetch_add_explicit(&seen, 1, memory_order_relaxed);
	pos = atomic_load_explicit(&ring_tail, memory_order_relaxed);
	for (;;) {
		uint64_t sq;
		int64_t dif;
		s = &ring[pos % RING];
		sq = atomic_load_explicit(&s->seq, memory_order_acquire);
		dif = (int64_t)(sq - pos);
		if (dif == 0) {
			if (atomic_compare_exchange_weak_explicit(&ring_tail, &pos,
			    pos + 1, memory_order_relaxed, memory_order_relaxed))
				break;
		} else if (dif < 0) {
			atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed);
			return;
		} else {
			pos = atomic_load_explicit(&ring_tail, memory_order_relaxed);
		}
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	s->pos = pos;
	s->time_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	s->size = size;
	s->tid = (uint64_t)syscall(SYS_gettid);
	s->kind = kind;
	u.pcs = s->pcs;
	u.n = 0;
	u.state = 0;
	u.last_jem = 0;
	_Unwind_Backtrace(uw_frame, &u);
	s->n = u.n;
	for (uint32_t i = 0; i < u.n; i++)
		h = (h ^ (uint64_t)u.pcs[i]) * 1099511628211ull;
	s->hash = h;
	atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
}

static void HOOK_FN
giant_alloc_hook(void *extra, int type, void *result, uintptr_t result_raw,
    uintptr_t args[3])
{
	uint64_t sz, t = atomic_load_explicit(&hook_threshold, memory_order_relaxed);

	(void)extra;
	(void)result_raw;
	switch (type) {
	case 0: case 5: case 6:         /* malloc, valloc, mallocx */
		sz = args[0];
		break;
	case 1:                         /* posix_memalign(memptr, align, size) */
		sz = args[2];
		break;
	case 2: case 4: case 7: case 8: /* aligned_alloc, memalign, realloc, rallocx */
		sz = args[1];
		break;
	case 3:                         /* calloc(nmemb, size) */
		if (__builtin_mul_overflow((uint64_t)args[0], (uint64_t)args[1], &sz))
			sz = UINT64_MAX;
		break;
	default:
		return;
	}
	if (t == 0 || sz < t || result == NULL)
		return;
	giant_record((unsigned)type, sz);
	__asm__ volatile("" ::: "memory");   /* no tail call: keep our frame */
}

static void HOOK_FN
giant_expand_hook(void *extra, int type, void *address, size_t old_usize,
    size_t new_usize, uintptr_t result_raw, uintptr_t args[4])
{
	uint64_t t = atomic_load_explicit(&hook_threshold, memory_order_relaxed);

	(void)extra;
	(void)address;
	(void)result_raw;
	(void)args;
	if (t == 0 || new_usize < t || new_usize <= old_usize || type < 0 || type > 2)
		return;
	giant_record(9u + (unsigned)type, new_usize);
	__asm__ volatile("" ::: "memory");
}

/* ---- the drain thread's state (types: live_giant.h) ----------------------- */
typedef yi_gsite gsite;
typedef yi_grec grec;

static struct {
	pthread_mutex_t start_mu;     /* start/stop */
	pthread_mutex_t mu;           /* everything below */
	pthread_cond_t cv;
	bool running, stop;
	pthread_t thr;
	void *handle;                 /* jemalloc's hook handle */
	uint64_t threshold;
	FILE *log;
	bool quiet;
	uint64_t head;                /* next ring position to take */
	gsite *sites;
	size_t nsites;
	grec *recs;                   /* circular, KEEP_RECS */
	size_t nrecs, rec_first;
	uint64_t evicted;             /* records not kept (kept list, site table) */
	ying_symbolizer *sym;
	/* hashes of the places logged (the drain's lock): function, file:line */
	uint64_t logged[MAX_SITES];
	size_t nlogged;
} G = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
	PTHREAD_COND_INITIALIZER, false, false, 0, NULL, 0, NULL, false, 0,
	NULL, 0, NULL, 0, 0, 0, NULL, { 0 }, 0 };

/* A forked child has the hook (jemalloc's state is copied) but not the
 * thread, and the locks may have been held at the fork: the hook turns
 * into a no-op there and every call says nothing is recorded. */
static atomic_bool in_forked_child;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void
giant_atfork_child(void)
{
	atomic_store(&hook_threshold, 0);
	atomic_store(&in_forked_child, true);
}

static void
giant_atfork_register(void)
{
	pthread_atfork(NULL, NULL, giant_atfork_child);
}

/* Take what the ring holds (G.mu held).  New call sites' indices are
 * appended to fresh[0..*nfresh) (room for RING). */
static void
drain_locked(uint32_t *fresh, size_t *nfresh)
{
	for (;;) {
		slot *s = &ring[G.head % RING];
		uint64_t sq = atomic_load_explicit(&s->seq, memory_order_acquire);
		size_t si;
		grec *r;

		if (sq != G.head + 1)
			break;
		for (si = 0; si < G.nsites; si++)
			if (G.sites[si].hash == s->hash && G.sites[si].n == s->n &&
			    memcmp(G.sites[si].pcs, s->pcs, s->n * sizeof(uintptr_t)) == 0)
				break;
		if (si == G.nsites && G.nsites < MAX_SITES) {
			gsite *g = &G.sites[G.nsites++];
			g->hash = s->hash;
			g->n = s->n;
			g->count = g->bytes = 0;
			g->logged = false;
			memcpy(g->pcs, s->pcs, s->n * sizeof(uintptr_t));
			if (*nfresh < RING)
				fresh[(*nfresh)++] = (uint32_t)si;
		}
		if (si == G.nsites) {
			G.evicted++;
		} else {
			G.sites[si].count++;
			G.sites[si].bytes += s->size;
			if (G.nrecs == KEEP_RECS) {
				G.rec_first = (G.rec_first + 1) % KEEP_RECS;
				G.nrecs--;
				G.evicted++;
			}
			r = &G.recs[(G.rec_first + G.nrecs++) % KEEP_RECS];
			r->seq = s->pos;
			r->size = s->size;
			r->tid = s->tid;
			r->time_ns = s->time_ns;
			r->kind = s->kind < NKINDS ? s->kind : 0;
			r->site = (uint32_t)si;
		}
		atomic_store_explicit(&s->seq, G.head + RING, memory_order_release);
		G.head++;
	}
}

/* Log the first allocation of each new call site (not under G.mu). */
static void
log_sites(const gsite *sites, size_t n, const uint64_t *first_size,
    const uint64_t *first_tid)
{
	ying_profile *p = NULL;
	yi_framevec fv = { NULL, 0, 0 };
	int fd = fileno(G.log ? G.log : stderr);

	if (n == 0 || G.quiet)
		return;
	if (yi_giant_sites_profile(sites, n, G.sym, &p, NULL) != 0) {
		p = NULL;
		yi_error_clear();
	}
	for (size_t i = 0; i < n; i++) {
		const char *fn = "[unknown]", *file = "", *base;
		uint32_t line = 0;
		char buf[1024], loc[600];
		uint64_t h = 1469598103934665603ull;
		size_t k;
		int len;

		if (p)
			yi_giant_first_frame(p, i, &fv, &fn, &file, &line);
		base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
		if (base[0] && line)
			snprintf(loc, sizeof(loc), " (%s:%u)", base, line);
		else if (base[0])
			snprintf(loc, sizeof(loc), " (%s)", base);
		else
			loc[0] = '\0';
		/* Once per place: stacks that differ only further up (the
		 * same function called from elsewhere) are not logged again. */
		for (const char *c = fn; *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ull;
		for (const char *c = loc; *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ull;
		for (k = 0; k < G.nlogged && G.logged[k] != h; k++)
			;
		if (k < G.nlogged)
			continue;
		if (G.nlogged < MAX_SITES)
			G.logged[G.nlogged++] = h;
		len = snprintf(buf, sizeof(buf), "ying: giant allocation of %" PRIu64
		    " bytes at %.400s%s, thread %" PRIu64 "\n", first_size[i], fn, loc,
		    first_tid[i]);
		if (len > (int)sizeof(buf) - 1)
			len = (int)sizeof(buf) - 1;
		for (int c = 0; c < len - 1; c++)
			if (buf[c] == '\n')
				buf[c] = ' ';
		for (ssize_t off = 0, w; off < len; off += w) {
			w = write(fd, buf + off, (size_t)(len - off));
			if (w < 0 && errno == EINTR) {
				w = 0;
				continue;
			}
			if (w <= 0)
				break;
		}
	}
	yi_vec_free(&fv);
	ying_profile_free(p);
}

/* Drain, then log the new call sites: the thread's one step. */
static void
drain_and_log(void)
{
	static uint32_t fresh[RING];
	static gsite copy[RING];
	static uint64_t fsize[RING], ftid[RING];
	static pthread_mutex_t drain_mu = PTHREAD_MUTEX_INITIALIZER;
	size_t nf = 0;

	pthread_mutex_lock(&drain_mu);
	pthread_mutex_lock(&G.mu);
	drain_locked(fresh, &nf);
	for (size_t i = 0; i < nf; i++) {
		copy[i] = G.sites[fresh[i]];
		fsize[i] = ftid[i] = 0;
		/* the first record of the site: the newest records are last */
		for (size_t k = 0; k < G.nrecs; k++) {
			grec *r = &G.recs[(G.rec_first + k) % KEEP_RECS];
			if (r->site == fresh[i]) {
				fsize[i] = r->size;
				ftid[i] = r->tid;
				break;
			}
		}
	}
	pthread_mutex_unlock(&G.mu);
	log_sites(copy, nf, fsize, ftid);
	pthread_mutex_unlock(&drain_mu);
}

static void *
drain_thread(void *arg)
{
	(void)arg;
	yi_ctl_quiet_thread();
	/* No lock taken here: start set everything up before creating us
	 * (pthread_create orders it), and stop holds G.start_mu while it
	 * joins us. */
	pthread_setname_np(pthread_self(), "ying-giant");
	for (;;) {
		struct timespec dl;
		bool stop;

		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_nsec += DRAIN_MS * 1000000L;
		if (dl.tv_nsec >= 1000000000L) {
			dl.tv_sec++;
			dl.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&G.mu);
		if (!G.stop)
			pthread_cond_timedwait(&G.cv, &G.mu, &dl);
		stop = G.stop;
		pthread_mutex_unlock(&G.mu);
		drain_and_log();
		if (stop)
			break;
	}
	return NULL;
}

typedef struct jem_find {
	const char *file;
	uintptr_t lo, hi;
} jem_find;

static int
jem_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	jem_find *f = arg;

	(void)size;
	if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0' ||
	    strcmp(info->dlpi_name, f->file) != 0)
		return 0;
	for (size_t i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (f->lo == 0 || a < f->lo)
			f->lo = a;
		if (a + ph->p_memsz > f->hi)
			f->hi = a + ph->p_memsz;
	}
	return 1;
}

/* jemalloc's executable range, when it is a shared object (a jemalloc
 * linked into the main program shares its range with the program's own
 * code: its frames stay, the symbolizer trims them). */
static void
find_jemalloc_range(void)
{
	ying_ctl_status st;
	jem_find f = { NULL, 0, 0 };

	jem_lo = jem_hi = 0;
	if (ying_ctl_status_get(&st) != 0) {
		yi_error_clear();
		return;
	}
	if (st.mallctl_file[0] == '\0')
		return;
	f.file = st.mallctl_file;
	dl_iterate_phdr(jem_object, &f);
	if (f.lo && f.hi > f.lo) {
		jem_lo = f.lo;
		jem_hi = f.hi;
	}
}

static _Unwind_Reason_Code
no_frame(struct _Unwind_Context *ctx, void *arg)
{
	(void)ctx;
	++*(int *)arg;
	return _URC_NO_REASON;
}

/* Free the symbolizer, the call sites and the records (a failed start,
 * a stop: no hook and no drain thread use them any more). */
static void
release_state(void)
{
	yi_live_sym_put(G.sym);
	G.sym = NULL;
	yi_free(G.sites);
	yi_free(G.recs);
	G.sites = NULL;
	G.recs = NULL;
	G.nsites = G.nrecs = 0;
}

int
ying_giant_capture_start(const ying_giant_capture_opts *opts)
{
	gh_hooks hooks = { giant_alloc_hook, NULL, giant_expand_hook, NULL };
	void *handle = NULL;
	size_t hl = sizeof(handle);
	sigset_t all, old;
	int rc, err = 0, frames = 0;

	yi_error_clear();
	if (opts == NULL || opts->threshold == 0)
		return yi_error(YING_EINVAL, "giant allocations: the threshold must be "
		    "at least 1 byte");
	if (atomic_load(&in_forked_child))
		return yi_error(YING_EBUSY, "giant allocations: not in a forked child "
		    "of the process that recorded them");
	pthread_once(&atfork_once, giant_atfork_register);
	pthread_mutex_lock(&G.start_mu);
	if (G.running) {
		pthread_mutex_unlock(&G.start_mu);
		return yi_error(YING_EBUSY, "giant allocations are already recorded "
		    "in this process");
	}
	if (!atomic_load(&ring_ready)) {
		for (size_t i = 0; i < RING; i++)
			atomic_store(&ring[i].seq, (uint64_t)i);
		atomic_store(&ring_ready, true);
	}
	G.head = atomic_load(&ring_tail);
	G.sites = yi_calloc(MAX_SITES, sizeof(*G.sites));
	G.recs = yi_calloc(KEEP_RECS, sizeof(*G.recs));
	if (G.sites == NULL || G.recs == NULL) {
		rc = yi_oom("starting the giant-allocation capture");
		goto fail;
	}
	if ((rc = yi_live_sym_get(&G.sym)) != 0)
		goto fail;
	G.nsites = G.nrecs = G.rec_first = 0;
	G.evicted = 0;
	G.nlogged = 0;
	G.threshold = opts->threshold;
	G.log = opts->log;
	G.quiet = opts->quiet != 0;
	G.stop = false;
	atomic_store(&seen, 0);
	atomic_store(&lost, 0);
	/* Warm the unwinder up here, so that the hook's first call does not
	 * set anything up (libgcc finds FDEs through _dl_find_object /
	 * dl_iterate_phdr; no allocation after this). */
	_Unwind_Backtrace(no_frame, &frames);
	find_jemalloc_range();
	atomic_store(&hook_threshold, opts->threshold);
	if ((rc = yi_ctl_call("experimental.hooks.install", &handle, &hl, &hooks,
	    sizeof(hooks), &err)) != 0)
		goto fail;
	if (err != 0) {
		if (err == EAGAIN)
			rc = yi_error(YING_ELIMIT, "experimental.hooks.install: all of "
			    "jemalloc's hook slots (4) are taken");
		else if (err == ENOENT)
			rc = yi_error(YING_ENOTSUP, "this jemalloc has no "
			    "experimental.hooks.install (needs jemalloc 5.1 or later)");
		else
			rc = yi_error(YING_ESYS, "experimental.hooks.install failed: %s",
			    strerror(err));
		goto fail;
	}
	G.handle = handle;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&G.thr, NULL, drain_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err != 0) {
		yi_ctl_call("experimental.hooks.remove", NULL, NULL, &G.handle,
		    sizeof(G.handle), &rc);
		rc = yi_error(YING_ESYS, "cannot start the giant-allocation thread: %s",
		    strerror(err));
		goto fail;
	}
	G.running = true;
	pthread_mutex_unlock(&G.start_mu);
	return 0;
fail:
	atomic_store(&hook_threshold, 0);
	release_state();
	G.handle = NULL;
	pthread_mutex_unlock(&G.start_mu);
	return rc;
}

void
ying_giant_capture_stop(void)
{
	int err;

	if (atomic_load(&in_forked_child))
		return;
	pthread_mutex_lock(&G.start_mu);
	if (!G.running) {
		pthread_mutex_unlock(&G.start_mu);
		return;
	}
	if (yi_ctl_call("experimental.hooks.remove", NULL, NULL, &G.handle,
	    sizeof(G.handle), &err) != 0)
		yi_error_clear();
	atomic_store(&hook_threshold, 0);
	pthread_mutex_lock(&G.mu);
	G.stop = true;
	pthread_cond_broadcast(&G.cv);
	pthread_mutex_unlock(&G.mu);
	pthread_join(G.thr, NULL);
	pthread_mutex_lock(&G.mu);
	G.running = false;
	release_state();
	pthread_mutex_unlock(&G.mu);
	pthread_mutex_unlock(&G.start_mu);
}

uint64_t
ying_giant_capture_threshold(void)
{
	return atomic_load(&hook_threshold);
}

const char *
yi_giant_kind_name(uint32_t kind)
{
	return kind_names[kind < NKINDS ? kind : 0];
}

void
yi_giant_snap_free(yi_giant_snap *snap)
{
	yi_free(snap->sites);
	yi_free(snap->recs);
	yi_live_sym_put(snap->sym);
	memset(snap, 0, sizeof(*snap));
}

int
yi_giant_snapshot(yi_giant_snap *out, uint64_t since, ying_symbolizer *s)
{
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->next = since;
	if (atomic_load(&in_forked_child))
		return yi_error(YING_ENODATA, "giant allocations are recorded by the "
		    "parent process, not in this forked child");
	/* start_mu: no stop frees the tables or the symbolizer meanwhile */
	pthread_mutex_lock(&G.start_mu);
	if (!G.running) {
		pthread_mutex_unlock(&G.start_mu);
		return yi_error(YING_ENODATA, "giant allocations are not recorded in "
		    "this process (YING_GIANT=SIZE, ying run --giant SIZE)");
	}
	if (s == NULL && (rc = yi_live_sym_get(&out->sym)) != 0) {
		pthread_mutex_unlock(&G.start_mu);
		return rc;
	}
	drain_and_log();
	pthread_mutex_lock(&G.mu);
	out->threshold = G.threshold;
	out->nsites = G.nsites;
	out->sites = yi_malloc((G.nsites ? G.nsites : 1) * sizeof(*out->sites));
	out->recs = yi_malloc((G.nrecs ? G.nrecs : 1) * sizeof(*out->recs));
	if (out->sites && out->recs) {
		memcpy(out->sites, G.sites, G.nsites * sizeof(*out->sites));
		for (size_t k = 0; k < G.nrecs; k++) {
			grec *r = &G.recs[(G.rec_first + k) % KEEP_RECS];
			if (r->seq >= since)
				out->recs[out->nrecs++] = *r;
		}
	}
	out->allocs = atomic_load(&seen);
	out->dropped = atomic_load(&lost) + G.evicted;
	out->next = G.head > since ? G.head : since;
	pthread_mutex_unlock(&G.mu);
	pthread_mutex_unlock(&G.start_mu);
	if (out->sites == NULL || out->recs == NULL) {
		yi_giant_snap_free(out);
		out->next = since;
		return yi_oom("listing giant allocations");
	}
	return 0;
}
