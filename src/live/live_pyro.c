/*
 * live_pyro.c: the Pyroscope uploader (ying_pyroscope_*): two threads and
 * a bounded queue between them.
 *
 * The collector dumps the heap once when it starts (the baseline of the
 * alloc deltas, model_delta.c), then wakes every `interval` seconds, dumps
 * the heap into memory (ying_ctl_dump_mem), reads it, turns its alloc_*
 * into what was allocated since the last dump, symbolizes it with the process's shared
 * symbolizer (live_sym.c: resolved addresses are kept for the uploader's
 * life; trimmed after each collection, so no debug info is held between
 * uploads), folds it to the server's limits and writes it as a gzipped
 * pprof (live_pyro_prof.c) and appends that to the queue; when
 * the queue is full the oldest profile is dropped and counted.  The sender
 * takes profiles from the queue and sends them (live_pyro_req.c builds the
 * request, live_pyro_http.c sends it); 429, 5xx and network errors are
 * retried after yi_pyro_backoff's delays (or the server's Retry-After, if
 * longer, within the same cap), other answers are final.  Both threads
 * never sample (yi_ctl_quiet_thread) and block every signal, so a slow,
 * flapping or dead server costs the program neither memory (the queue is
 * bounded, each request has a timeout) nor time on its own threads.
 *
 * stop: the collector ends; the sender sends what is queued, one attempt
 * each, until `timeout` seconds have passed (ying_pyroscope_stop_within:
 * or fewer; a transfer still running then is abandoned); what is left
 * counts as dropped.
 *
 * Sending with retries (yi_pyro_deliver), the one-shot upload and the
 * option check live in live_pyro_http.c and live_pyro_req.c, so that a
 * program using only those (`ying upload`, `ying run`'s check) never links
 * the control layer.
 *
 * The process's running uploader (the last one started) is registered so
 * that the HTTP endpoint's /debug/prof shows its counters
 * (yi_pyro_status_json); a forked child forgets it (its threads stay in
 * the parent).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "live_pyro.h"

typedef struct item {
	unsigned char *pprof;
	size_t len;
	int64_t from, until;        /* milliseconds since the epoch */
} item;

struct ying_pyroscope {
	yi_pyro_cfg cfg;
	ying_symbolizer *sym;

	pthread_t collector, sender;
	bool have_collector, have_sender;
	pthread_mutex_t mtx;        /* everything below */
	pthread_cond_t cv;          /* CLOCK_MONOTONIC */
	bool stop;
	double flush_until;         /* monotonic seconds, once stopping */
	atomic_llong abort_ms;      /* for the transfer in flight */
	item *q;                    /* ring of cfg.queue items */
	size_t head, n;
	ying_pyroscope_stats st;
	bool failing;               /* the last attempt failed (notice said) */
	yi_alloc_delta delta;       /* the collector's: alloc_* of the last dump */
	bool said_oversized;
};

/* ---- the process's running uploader, for /debug/prof ----------------------- */

static pthread_mutex_t reg_mtx = PTHREAD_MUTEX_INITIALIZER;
static ying_pyroscope *reg_current;
static pthread_once_t reg_once = PTHREAD_ONCE_INIT;

static void
reg_child(void)
{
	pthread_mutex_init(&reg_mtx, NULL);
	reg_current = NULL;
}

static void
reg_init(void)
{
	pthread_atfork(NULL, NULL, reg_child);
}

void
yi_pyro_status_json(yi_out *o)
{
	ying_pyroscope *p;
	ying_pyroscope_stats st;

	pthread_mutex_lock(&reg_mtx);
	if ((p = reg_current) != NULL) {
		pthread_mutex_lock(&p->mtx);
		st = p->st;
		st.queued = (unsigned)p->n;
		pthread_mutex_unlock(&p->mtx);
		yi_out_puts(o, ",\"pyroscope\":{\"url\":");
		yi_out_json_str(o, p->cfg.url_name);
		yi_out_printf(o, ",\"api\":\"%s\",\"service\":", p->cfg.api == YI_PYRO_PUSH ?
		    "push" : "ingest");
		yi_out_json_str(o, p->cfg.service);
		yi_out_puts(o, ",\"interval\":");
		yi_out_json_num(o, p->cfg.interval);
		yi_out_printf(o, ",\"sent\":%" PRIu64 ",\"failed\":%" PRIu64 ",\"retried\":%"
		    PRIu64 ",\"dropped\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"collected\":%"
		    PRIu64 ",\"queued\":%u,\"last_duration\":", st.sent, st.failed, st.retried,
		    st.dropped, st.bytes, st.collected, st.queued);
		yi_out_json_num(o, st.last_duration);
		yi_out_puts(o, ",\"last_collect\":");
		yi_out_json_num(o, st.last_collect);
		yi_out_printf(o, ",\"folded\":%" PRIu64 ",\"stacks_folded\":%" PRIu64
		    ",\"oversized\":%" PRIu64 ",\"last_samples\":%" PRIu64 ",\"last_bytes\":%"
		    PRIu64 ",\"max_samples\":%zu,\"max_bytes\":%zu,\"session_id\":\"%s\"",
		    st.folded, st.stacks_folded, st.oversized, st.last_samples, st.last_bytes,
		    p->cfg.max_samples, p->cfg.max_bytes, p->cfg.session);
		yi_out_puts(o, ",\"last_error\":");
		yi_out_json_str(o, st.last_error);
		yi_out_putc(o, '}');
	}
	pthread_mutex_unlock(&reg_mtx);
}

/* ---- sending ------------------------------------------------------------------ */

static void
note(ying_pyroscope *p, const char *fmt, const char *a)
{
	FILE *f = p->cfg.log ? p->cfg.log : stderr;

	fprintf(f, fmt, p->cfg.url_name, a);
	fputc('\n', f);
	fflush(f);
}

/* Wait on p->cv until monotonic time `until` or a stop; lock held. */
static void
wait_until(ying_pyroscope *p, double until)
{
	struct timespec ts;
	double s = floor(until);

	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((until - s) * 1e9);
	if (ts.tv_nsec >= 1000000000L)
		ts.tv_nsec = 999999999L;
	pthread_cond_timedwait(&p->cv, &p->mtx, &ts);
}

/* The uploader's side of yi_pyro_deliver: counters and notices after
 * each attempt, and waits that a stop cuts short. */
static void
on_attempt(void *opaque, int rc, const yi_pyro_result *res, size_t len)
{
	ying_pyroscope *p = opaque;

	pthread_mutex_lock(&p->mtx);
	p->st.last_duration = res->duration;
	if (rc == 0) {
		p->st.sent++;
		p->st.bytes += len;
	} else {
		snprintf(p->st.last_error, sizeof(p->st.last_error), "%s", ying_last_error());
	}
	pthread_mutex_unlock(&p->mtx);
	if (rc == 0 && p->failing) {
		p->failing = false;
		note(p, "ying pyroscope: %s: uploads work again%s", "");
	} else if (rc != 0 && !p->failing) {
		p->failing = true;
		note(p, "ying pyroscope: %s: upload failed: %s (said once until uploads "
		    "work again; the program is not affected)", ying_last_error());
	}
}

static bool
on_wait(void *opaque, double delay)
{
	ying_pyroscope *p = opaque;
	double until = yi_pyro_now() + delay;
	bool go_on;

	pthread_mutex_lock(&p->mtx);
	while (!p->stop && yi_pyro_now() < until)
		wait_until(p, until);
	/* stopping: one attempt per profile, no more retries */
	go_on = !p->stop;
	if (go_on)
		p->st.retried++;
	pthread_mutex_unlock(&p->mtx);
	return go_on;
}

/* Send one queued profile with its retries; a failure is counted. */
static void
send_item(ying_pyroscope *p, const item *it)
{
	yi_pyro_hooks h = { p, &p->abort_ms, on_attempt, on_wait };

	if (yi_pyro_deliver(&p->cfg, it->pprof, it->len, it->from, it->until, &h) != 0) {
		pthread_mutex_lock(&p->mtx);
		p->st.failed++;
		snprintf(p->st.last_error, sizeof(p->st.last_error), "%s", ying_last_error());
		pthread_mutex_unlock(&p->mtx);
	}
}

static void *
sender_main(void *arg)
{
	ying_pyroscope *p = arg;

	yi_ctl_quiet_thread();
	pthread_setname_np(pthread_self(), "ying-pyro-send");
	pthread_mutex_lock(&p->mtx);
	for (;;) {
		item it;

		while (p->n == 0 && !p->stop)
			pthread_cond_wait(&p->cv, &p->mtx);
		if (p->n == 0)
			break;
		if (p->stop && yi_pyro_now() >= p->flush_until) {
			/* out of time: the rest is dropped */
			while (p->n > 0) {
				item *d = &p->q[p->head];
				yi_free(d->pprof);
				p->head = (p->head + 1) % (size_t)p->cfg.queue;
				p->n--;
				p->st.dropped++;
			}
			break;
		}
		it = p->q[p->head];
		p->head = (p->head + 1) % (size_t)p->cfg.queue;
		p->n--;
		pthread_mutex_unlock(&p->mtx);
		send_item(p, &it);
		yi_free(it.pprof);
		yi_error_clear();
		pthread_mutex_lock(&p->mtx);
	}
	pthread_mutex_unlock(&p->mtx);
	return NULL;
}

/* ---- collecting --------------------------------------------------------------- */

/* Dump and read the heap into *prof (the caller frees it). */
static int
dump_heap(ying_profile **prof)
{
	char *dump = NULL;
	size_t len = 0;
	int rc;

	*prof = NULL;
	if ((rc = ying_ctl_dump_mem(&dump, &len)) != 0)
		return rc;
	rc = ying_profile_read_mem(prof, dump, len, "heap");
	yi_free(dump);
	return rc;
}

/* Dump, read, take the alloc deltas, symbolize, fold and write gzipped
 * pprof into *out; from/until in ms.  *fst: the folding. */
static int
collect(ying_pyroscope *p, int64_t from, int64_t until, ying_membuf *out,
    ying_fold_stats *fst)
{
	ying_symbolize_opts so = YING_SYMBOLIZE_OPTS_INIT;
	ying_profile *prof = NULL;
	int rc;

	if ((rc = dump_heap(&prof)) == 0 &&
	    (rc = yi_alloc_delta_apply(&p->delta, prof, false, NULL)) == 0) {
		if (prof->has_accum)
			yi_profile_drop_zero(prof);
		prof->time = until / 1000;
		so.frames = p->cfg.frames;
		if ((rc = ying_profile_symbolize(prof, p->sym, &so)) == 0)
			rc = yi_pyro_pprof(&p->cfg, prof, from, until, NULL, out, fst);
		/* the next upload reuses the names, not the debug info */
		yi_live_cycle_end(p->sym);
	}
	ying_profile_free(prof);
	return rc;
}

static void *
collector_main(void *arg)
{
	ying_pyroscope *p = arg;
	double next = yi_pyro_now() + p->cfg.interval;
	int64_t from = yi_pyro_epoch_ms();
	ying_profile *base = NULL;

	yi_ctl_quiet_thread();
	pthread_setname_np(pthread_self(), "ying-pyro");
	/* the baseline of the first interval's alloc deltas (a dump only
	 * when jemalloc keeps cumulative counts) */
	{
		ying_ctl_status cs;
		if (ying_ctl_status_get(&cs) == 0 && cs.opt_prof_accum && dump_heap(&base) == 0)
			yi_alloc_delta_apply(&p->delta, base, true, NULL);
	}
	ying_profile_free(base);
	yi_error_clear();
	for (;;) {
		ying_membuf mb = YING_MEMBUF_INIT;
		ying_fold_stats fst;
		int64_t until;
		double t0;
		int rc;

		pthread_mutex_lock(&p->mtx);
		while (!p->stop && yi_pyro_now() < next)
			wait_until(p, next);
		if (p->stop) {
			pthread_mutex_unlock(&p->mtx);
			break;
		}
		pthread_mutex_unlock(&p->mtx);
		t0 = yi_pyro_now();
		until = yi_pyro_epoch_ms();
		memset(&fst, 0, sizeof(fst));
		rc = collect(p, from, until, &mb, &fst);
		next = yi_pyro_now() + p->cfg.interval;
		pthread_mutex_lock(&p->mtx);
		p->st.last_collect = yi_pyro_now() - t0;
		if (fst.stacks_folded) {
			p->st.folded++;
			p->st.stacks_folded += fst.stacks_folded;
		}
		if (rc != 0) {
			bool big = rc == YING_ELIMIT;
			snprintf(p->st.last_error, sizeof(p->st.last_error), "%s%s", big ? "" :
			    "heap dump: ", ying_last_error());
			p->st.failed++;
			if (big)
				p->st.oversized++;
			ying_membuf_release(&mb);
			pthread_mutex_unlock(&p->mtx);
			if (big && !p->said_oversized) {
				p->said_oversized = true;
				note(p, "ying pyroscope: %s: a profile is not sent: %s (said "
				    "once)", ying_last_error());
			}
			pthread_mutex_lock(&p->mtx);
			/* the deltas of the next profile count from this dump */
			if (big)
				from = until;
		} else {
			item *slot;
			p->st.last_samples = fst.samples_out;
			p->st.last_bytes = fst.bytes_out + yi_pyro_labels_size(&p->cfg);
			if ((size_t)p->n == (size_t)p->cfg.queue) {
				/* full: the oldest goes */
				yi_free(p->q[p->head].pprof);
				p->head = (p->head + 1) % (size_t)p->cfg.queue;
				p->n--;
				p->st.dropped++;
			}
			slot = &p->q[(p->head + p->n) % (size_t)p->cfg.queue];
			slot->pprof = (unsigned char *)mb.data;
			slot->len = mb.len;
			slot->from = from;
			slot->until = until;
			from = until;
			p->n++;
			p->st.collected++;
			pthread_cond_broadcast(&p->cv);
		}
		pthread_mutex_unlock(&p->mtx);
		yi_error_clear();
	}
	return NULL;
}

/* ---- public API --------------------------------------------------------------- */

static void
pyro_free(ying_pyroscope *p)
{
	if (p == NULL)
		return;
	if (p->q)
		for (size_t i = 0; i < p->n; i++)
			yi_free(p->q[(p->head + i) % (size_t)p->cfg.queue].pprof);
	yi_free(p->q);
	yi_alloc_delta_release(&p->delta);
	yi_live_sym_put(p->sym);
	yi_pyro_cfg_release(&p->cfg);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mtx);
	yi_free(p);
}

int
ying_pyroscope_start(ying_pyroscope **out, const ying_pyroscope_opts *opts)
{
	ying_pyroscope *p;
	pthread_condattr_t ca;
	sigset_t all, old;
	int rc;

	yi_error_clear();
	if (out == NULL)
		return yi_error(YING_EINVAL, "ying_pyroscope_start: out is NULL");
	*out = NULL;
	if ((rc = ying_pyroscope_check(opts)) != 0)
		return rc;
	if ((rc = ying_ctl_available()) != 0)
		return rc;
	if ((p = yi_calloc(1, sizeof(*p))) == NULL)
		return yi_oom("starting the uploader");
	pthread_mutex_init(&p->mtx, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cv, &ca);
	pthread_condattr_destroy(&ca);
	if ((rc = yi_pyro_cfg_init(&p->cfg, opts)) != 0 ||
	    (rc = yi_live_sym_get(&p->sym)) != 0) {
		pyro_free(p);
		return rc;
	}
	if ((p->q = yi_calloc((size_t)p->cfg.queue, sizeof(*p->q))) == NULL) {
		pyro_free(p);
		return yi_oom("the upload queue");
	}
	/* Both threads block every signal: the program's stay its own. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&p->sender, NULL, sender_main, p);
	if (rc == 0) {
		p->have_sender = true;
		rc = pthread_create(&p->collector, NULL, collector_main, p);
		p->have_collector = rc == 0;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		int e = rc;
		pthread_mutex_lock(&p->mtx);
		p->stop = true;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mtx);
		if (p->have_sender)
			pthread_join(p->sender, NULL);
		pyro_free(p);
		return yi_error(YING_ESYS, "cannot start the uploader's threads: %s",
		    strerror(e));
	}
	pthread_once(&reg_once, reg_init);
	pthread_mutex_lock(&reg_mtx);
	reg_current = p;
	pthread_mutex_unlock(&reg_mtx);
	*out = p;
	return 0;
}

int
ying_pyroscope_stop(ying_pyroscope *p)
{
	return ying_pyroscope_stop_within(p, p ? p->cfg.timeout : 0);
}

int
ying_pyroscope_stop_within(ying_pyroscope *p, double seconds)
{
	uint64_t dropped_before;
	double flush;
	int rc = 0;

	yi_error_clear();
	if (p == NULL)
		return 0;
	pthread_mutex_lock(&reg_mtx);
	if (reg_current == p)
		reg_current = NULL;
	pthread_mutex_unlock(&reg_mtx);
	pthread_mutex_lock(&p->mtx);
	dropped_before = p->st.dropped;
	p->stop = true;
	flush = isfinite(seconds) && seconds > 0 ? seconds : 0;
	if (flush > p->cfg.timeout)
		flush = p->cfg.timeout;
	p->flush_until = yi_pyro_now() + flush;
	atomic_store(&p->abort_ms, (long long)(p->flush_until * 1000.0) + 1);
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mtx);
	if (p->have_collector)
		pthread_join(p->collector, NULL);
	if (p->have_sender)
		pthread_join(p->sender, NULL);
	if (p->st.dropped > dropped_before)
		rc = yi_error(YING_EIO, "%s: %" PRIu64 " profile(s) not sent at stop",
		    p->cfg.url_name, p->st.dropped - dropped_before);
	pyro_free(p);
	return rc;
}

int
ying_pyroscope_stats_get(ying_pyroscope_stats *out, const ying_pyroscope *p)
{
	ying_pyroscope *m = (ying_pyroscope *)p;

	yi_error_clear();
	if (p == NULL || out == NULL)
		return yi_error(YING_EINVAL, "ying_pyroscope_stats_get: NULL argument");
	pthread_mutex_lock(&m->mtx);
	*out = m->st;
	out->queued = (unsigned)m->n;
	pthread_mutex_unlock(&m->mtx);
	snprintf(out->session_id, sizeof(out->session_id), "%s", m->cfg.session);
	return 0;
}
