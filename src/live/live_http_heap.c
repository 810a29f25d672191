/*
 * live_http_heap.c: the HTTP endpoints that dump the heap (under the
 * in-flight lock, one dump at a time; plain dumps are shared between
 * concurrent requests by live_http_share.c) and write it in the asked format:
 * /debug/heap, /debug/heap/flamegraph, jeprof's /pprof/heap and Go's
 * /debug/pprof/heap (with ?seconds=N growth profiles); and the control and
 * statistics endpoints (/debug/prof, active, sample, /debug/stats).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "live_http.h"

/* ---- dumps under the in-flight lock --------------------------------------- */

bool
yi_http_dump_begin(hreq *q)
{
	struct timespec dl;
	int e;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += q->h->o.busy_wait_ms / 1000;
	dl.tv_nsec += (long)(q->h->o.busy_wait_ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	e = pthread_mutex_timedlock(&q->h->dump_mtx, &dl);
	if (e == 0)
		return true;
	q->retry_after = 1;
	yi_http_fail(q, 503, "another heap dump is in progress; retry shortly");
	return false;
}

void
yi_http_dump_end(hreq *q)
{
	pthread_mutex_unlock(&q->h->dump_mtx);
}

int
yi_http_symbolize(ying_http *h, ying_profile *p)
{
	ying_symbolize_opts so = YING_SYMBOLIZE_OPTS_INIT;

	so.frames = h->frames;
	return ying_profile_symbolize(p, h->sym, &so);
}

ying_profile *
yi_http_profile_of(hreq *q, const char *buf, size_t len)
{
	ying_profile *p = NULL;
	int rc;

	rc = ying_profile_read_mem(&p, buf, len, "now");
	q->sym_used = true;
	if (rc == 0)
		rc = yi_http_symbolize(q->h, p);
	if (rc != 0) {
		yi_http_fail_rc(q, rc, "reading the heap dump failed");
		ying_profile_free(p);
		return NULL;
	}
	return p;
}

/* Dump, parse and symbolize with the shared symbolizer.  Lock held. */
ying_profile *
yi_http_dump_profile(hreq *q, char **raw, size_t *rawlen)
{
	ying_profile *p;
	char *buf;
	size_t len;
	int rc;

	if ((rc = ying_ctl_dump_mem(&buf, &len)) != 0) {
		yi_http_fail_rc(q, rc, "heap dump failed");
		return NULL;
	}
	if ((p = yi_http_profile_of(q, buf, len)) == NULL) {
		yi_free(buf);
		return NULL;
	}
	if (raw) {
		*raw = buf;
		*rawlen = len;
	} else {
		yi_free(buf);
	}
	return p;
}

/* ---- endpoints: heap ---------------------------------------------------------- */

static const yi_http_fmt heap_formats[] = {
	YI_HF_RAW, YI_HF_PPROF, YI_HF_FOLDED, YI_HF_SVG, YI_HF_TEXT, YI_HF_JSON, YI_HF_TREE
};

/* Every plain dump answer comes from live_http_share.c: one dump (and one
 * conversion per format) for the requests of a window, streamed from one
 * copy. */
void
yi_http_ep_heap(hreq *q)
{
	const char *snap = yi_http_arg(q, "snapshot");
	ying_sample_index idx;
	int fmt;

	if ((fmt = yi_http_arg_format(q, heap_formats, sizeof(heap_formats) / sizeof(heap_formats[0]))) < 0 || !yi_http_arg_index(q, &idx) ||
	    !yi_http_arg_by(q))
		return;
	if (snap != NULL) {             /* a kept snapshot instead of a dump */
		yi_http_snap_write(q, snap, (yi_http_fmt)fmt, idx);
		return;
	}
	if (yi_http_shared_body(q, (yi_http_fmt)fmt, idx))
		yi_http_set_type(q, (yi_http_fmt)fmt);
}

/* jeprof's /pprof/heap: the raw dump, nothing else. */
void
yi_http_ep_pprof_heap_raw(hreq *q)
{
	if (yi_http_shared_body(q, YI_HF_RAW, YING_INUSE_SPACE))
		q->ctype = "application/octet-stream";
}

/* Wait up to `secs` seconds unless the server stops; false if stopping. */
static bool
wait_seconds(ying_http *h, long secs)
{
	struct timespec dl;
	bool stop;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += secs;
	pthread_mutex_lock(&h->stop_mtx);
	while (!h->stopping) {
		if (pthread_cond_timedwait(&h->stop_cv, &h->stop_mtx, &dl) == ETIMEDOUT)
			break;
	}
	stop = h->stopping;
	pthread_mutex_unlock(&h->stop_mtx);
	return !stop;
}

/* GET /debug/pprof/heap[?seconds=N]: symbolized gzipped pprof, or growth. */
void
yi_http_ep_pprof_heap(hreq *q)
{
	ying_pprof_opts po = YING_PPROF_OPTS_INIT;
	ying_profile *base = NULL, *now = NULL;
	ying_diff *d = NULL;
	int64_t secs;
	int rc;

	if (!yi_http_arg_num(q, YI_PARAM_SECONDS, &secs))
		return;
	if (secs == 0) {
		if (yi_http_shared_body(q, YI_HF_PPROF, YING_INUSE_SPACE))
			yi_http_set_type(q, YI_HF_PPROF);
		return;
	}
	if (atomic_fetch_add(&q->h->growth_inflight, 1) >= MAX_GROWTH_INFLIGHT) {
		atomic_fetch_sub(&q->h->growth_inflight, 1);
		q->retry_after = (int)secs;
		yi_http_fail(q, 503, "too many ?seconds= profiles in progress (at most %d)",
		    MAX_GROWTH_INFLIGHT);
		return;
	}
	if (yi_http_dump_begin(q)) {
		base = yi_http_dump_profile(q, NULL, NULL);
		yi_http_dump_end(q);
	}
	if (base == NULL)
		goto out;
	if (!wait_seconds(q->h, secs)) {
		q->retry_after = 1;
		yi_http_fail(q, 503, "the server is stopping");
		goto out;
	}
	if (!yi_http_dump_begin(q))
		goto out;
	if ((now = yi_http_dump_profile(q, NULL, NULL)) != NULL) {
		rc = yi_diff_of(&d, base, now, YING_INUSE_SPACE);
		if (rc == 0) {
			q->ctype = "application/octet-stream";
			yi_http_set_filename(q, "growth.pb.gz");
			rc = ying_diff_write_pprof(d, &po, ying_write_membuf, &q->out);
		}
		if (rc != 0)
			yi_http_fail_rc(q, rc, "computing the growth profile failed");
	}
	yi_http_dump_end(q);
out:
	ying_diff_free(d);
	ying_profile_free(now);
	ying_profile_free(base);
	atomic_fetch_sub(&q->h->growth_inflight, 1);
}

void
yi_http_ep_flamegraph(hreq *q)
{
	ying_sample_index idx;

	if (!yi_http_arg_index(q, &idx))
		return;
	if (yi_http_shared_body(q, YI_HF_SVG, idx))
		yi_http_set_type(q, YI_HF_SVG);
}

/* ---- endpoints: control and stats ------------------------------------------ */

void
yi_http_ep_prof(hreq *q)
{
	ying_ctl_status st;
	ying_ctl_stats ss;
	yi_out *o;
	int rc, src;

	if ((rc = ying_ctl_status_get(&st)) != 0) {
		yi_http_fail_rc(q, rc, "reading the profiler status failed");
		return;
	}
	src = ying_ctl_stats_get(&ss);
	if ((o = yi_malloc(sizeof(*o))) == NULL) {
		yi_http_fail(q, 500, "out of memory");
		return;
	}
	yi_out_init(o, ying_write_membuf, &q->out);
	yi_out_puts(o, "{\"jemalloc\":{\"version\":");
	yi_out_json_str(o, st.version);
	yi_out_puts(o, ",\"mallctl\":");
	yi_out_json_str(o, st.mallctl_symbol);
	yi_out_printf(o, ",\"config_prof\":%s},\"prof\":{\"enabled\":%s,"
	    "\"active\":%s,\"lg_sample\":%u,\"sample_period\":%" PRIu64
	    ",\"accum\":%s,\"interval\":%" PRIu64 ",\"thread_active_init\":%s}",
	    st.config_prof ? "true" : "false", st.opt_prof ? "true" : "false",
	    st.prof_active ? "true" : "false", st.lg_sample,
	    st.lg_sample < 64 ? (uint64_t)1 << st.lg_sample : 0,
	    st.opt_prof_accum ? "true" : "false", st.interval,
	    st.thread_active_init ? "true" : "false");
	if (src == 0)
		yi_out_printf(o, ",\"stats\":{\"allocated\":%" PRIu64 ",\"active\":%"
		    PRIu64 ",\"metadata\":%" PRIu64 ",\"resident\":%" PRIu64
		    ",\"mapped\":%" PRIu64 ",\"retained\":%" PRIu64 "}", ss.allocated,
		    ss.active, ss.metadata, ss.resident, ss.mapped, ss.retained);
	yi_pyro_status_json(o);    /* the Pyroscope uploader's counters, if one runs */
	yi_http_share_json(q->h, o);   /* shared dumps: made, coalesced, refused */
	pthread_mutex_lock(&q->h->snap_mtx);
	yi_out_printf(o, ",\"server\":{\"port\":%d,\"requests\":%lu,"
	    "\"snapshots\":%zu,\"snapshot_bytes\":%zu}}\n", q->h->port,
	    (unsigned long)atomic_load(&q->h->requests), q->h->snaps.n,
	    q->h->snap_bytes);
	pthread_mutex_unlock(&q->h->snap_mtx);
	rc = yi_out_finish(o);
	yi_free(o);
	if (rc != 0)
		yi_http_fail_rc(q, rc, "writing the status failed");
	q->ctype = "application/json";
}

void
yi_http_ep_prof_active(hreq *q)
{
	int64_t on;
	int old, rc;

	if (!yi_http_arg_num(q, YI_PARAM_ON, &on))
		return;
	if ((rc = ying_ctl_active(&old, (int)on)) != 0) {
		yi_http_fail_rc(q, rc, "setting prof.active failed");
		return;
	}
	q->ctype = "application/json";
	yi_http_out_printf(q, "{\"active\":%s,\"previous\":%s}\n", on ? "true" : "false",
	    old ? "true" : "false");
}

void
yi_http_ep_prof_sample(hreq *q)
{
	int64_t lg;
	int rc;

	if (!yi_http_arg_num(q, YI_PARAM_LG, &lg))
		return;
	if (!yi_http_dump_begin(q))
		return;
	rc = ying_ctl_reset((int)lg);
	yi_http_dump_end(q);
	if (rc != 0) {
		yi_http_fail_rc(q, rc, "prof.reset failed");
		return;
	}
	q->ctype = "application/json";
	yi_http_out_printf(q, "{\"lg_sample\":%" PRId64 ",\"sample_period\":%" PRIu64
	    ",\"reset\":true}\n", lg, (uint64_t)1 << lg);
}

void
yi_http_ep_stats(hreq *q)
{
	char *js;
	size_t len;
	int rc;

	if ((rc = ying_ctl_stats_json(&js, &len)) != 0) {
		yi_http_fail_rc(q, rc, "malloc_stats_print failed");
		return;
	}
	ying_membuf_release(&q->out);
	q->out.data = js;
	q->out.len = q->out.cap = len;
	q->ctype = "application/json";
}

/* /debug/memory: where the RSS goes (ying_memory_*).  With sites=1 (the
 * default) and a profiler to dump, the heap is dumped under the in-flight
 * lock so that the fragmented classes name their call sites; without
 * profiling (or sites=0) the breakdown has jemalloc's counters and smaps
 * only, and takes no dump. */
void
yi_http_ep_memory(hreq *q)
{
	static const yi_http_fmt fmts[] = { YI_HF_JSON, YI_HF_TEXT };
	ying_memory_opts mo = YING_MEMORY_OPTS_INIT;
	ying_profile *p = NULL;
	ying_memory *m = NULL;
	int64_t sites = 1;
	int f, rc;

	if ((f = yi_http_arg_format(q, fmts, 2)) < 0 ||
	    !yi_http_arg_num(q, YI_PARAM_SITES, &sites))
		return;
	/* the breakdown first: the dump and its symbols would be counted */
	if ((rc = ying_memory_get(&m, &mo)) != 0) {
		yi_http_fail_rc(q, rc, "the memory breakdown failed");
		return;
	}
	if (sites && ying_ctl_available() == 0) {
		if (!yi_http_dump_begin(q)) {
			ying_memory_free(m);
			return;
		}
		p = yi_http_dump_profile(q, NULL, NULL);
		yi_http_dump_end(q);
		if (p == NULL) {
			ying_memory_free(m);
			return;
		}
		rc = ying_memory_set_profile(m, p);
		ying_profile_free(p);
		if (rc != 0) {
			ying_memory_free(m);
			yi_http_fail_rc(q, rc, "naming the size classes' call sites failed");
			return;
		}
	}
	if (f == YI_HF_JSON)
		rc = ying_memory_write_json(m, ying_write_membuf, &q->out);
	else
		rc = ying_memory_write_text(m, 0, ying_write_membuf, &q->out);
	ying_memory_free(m);
	if (rc != 0) {
		yi_http_fail_rc(q, rc, "writing the memory breakdown failed");
		return;
	}
	q->ctype = f == YI_HF_JSON ? "application/json" : "text/plain; charset=utf-8";
}
