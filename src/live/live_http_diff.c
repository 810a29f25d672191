/*
 * live_http_diff.c: named in-memory heap snapshots (bounded in number and
 * bytes) and the diff of a snapshot against a fresh dump or another
 * snapshot, in every diff format; a snapshot's own profile
 * (GET /debug/heap?snapshot=NAME).  A snapshot taken is an event of the
 * memory history (live_history.c).  Wherever a snapshot is named,
 * "report:NAME" names instead the dump of a growth report this process
 * wrote (NAME as the history's report events give it), read from the
 * runner's directory (live_reports.c): the live page's report points.
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
#include "live_history.h"

/* ---- endpoints: snapshots and diff --------------------------------------- */

static void
snapshots_json(hreq *q)
{
	ying_http *h = q->h;

	q->ctype = "application/json";
	yi_http_out_printf(q, "{\"count\":%zu,\"bytes\":%zu,\"max_count\":%u,"
	    "\"max_bytes\":%zu,\"snapshots\":[", h->snaps.n, h->snap_bytes,
	    h->o.max_snapshots, h->o.max_snapshot_bytes);
	for (size_t i = 0; i < h->snaps.n; i++)
		yi_http_out_printf(q, "%s{\"name\":\"%s\",\"bytes\":%zu,\"time\":%" PRId64 "}",
		    i ? "," : "", h->snaps.v[i].name, h->snaps.v[i].len,
		    h->snaps.v[i].time);
	yi_http_out_str(q, "]}\n");
}

static long
snap_find(ying_http *h, const char *name)
{
	for (size_t i = 0; i < h->snaps.n; i++)
		if (strcmp(h->snaps.v[i].name, name) == 0)
			return (long)i;
	return -1;
}

void
yi_http_ep_snapshot(hreq *q)
{
	ying_http *h = q->h;
	const char *name = yi_http_arg(q, "name");
	char *raw = NULL;
	size_t len = 0, freed = 0;
	long at;
	int rc;

	if (strcmp(q->method, "GET") == 0 || strcmp(q->method, "HEAD") == 0) {
		pthread_mutex_lock(&h->snap_mtx);
		snapshots_json(q);
		pthread_mutex_unlock(&h->snap_mtx);
		return;
	}
	if (!yi_http_valid_snap_name(name)) {
		yi_http_fail(q, 400, "bad or missing parameter name=%s: 1 to %d characters of "
		    "[A-Za-z0-9._-]", name ? name : "", SNAP_NAME_MAX);
		return;
	}
	if (strcmp(q->method, "DELETE") == 0) {
		pthread_mutex_lock(&h->snap_mtx);
		if ((at = snap_find(h, name)) < 0) {
			yi_http_fail(q, 404, "no snapshot named %s", name);
		} else {
			h->snap_bytes -= h->snaps.v[at].len;
			yi_free(h->snaps.v[at].data);
			memmove(&h->snaps.v[at], &h->snaps.v[at + 1],
			    (h->snaps.n - (size_t)at - 1) * sizeof(snapshot));
			h->snaps.n--;
			snapshots_json(q);
		}
		pthread_mutex_unlock(&h->snap_mtx);
		return;
	}
	if (!yi_http_dump_begin(q))
		return;
	rc = ying_ctl_dump_mem(&raw, &len);
	yi_http_dump_end(q);
	if (rc != 0) {
		yi_http_fail_rc(q, rc, "heap dump failed");
		return;
	}
	pthread_mutex_lock(&h->snap_mtx);
	if ((at = snap_find(h, name)) >= 0)
		freed = h->snaps.v[at].len;
	if ((at < 0 && h->snaps.n >= h->o.max_snapshots) ||
	    h->snap_bytes - freed + len > h->o.max_snapshot_bytes) {
		pthread_mutex_unlock(&h->snap_mtx);
		yi_free(raw);
		yi_http_fail(q, 507, "snapshot limit reached (%u snapshots, %zu bytes in "
		    "total); DELETE /debug/heap/snapshot?name=N frees one",
		    h->o.max_snapshots, h->o.max_snapshot_bytes);
		return;
	}
	if (at < 0) {
		if (yi_vec_grow(&h->snaps, 1) != 0) {
			pthread_mutex_unlock(&h->snap_mtx);
			yi_free(raw);
			yi_http_fail(q, 500, "out of memory");
			return;
		}
		at = (long)h->snaps.n++;
		snprintf(h->snaps.v[at].name, sizeof(h->snaps.v[at].name), "%s", name);
	} else {
		yi_free(h->snaps.v[at].data);
	}
	h->snaps.v[at].data = raw;
	h->snaps.v[at].len = len;
	h->snaps.v[at].time = (int64_t)time(NULL);
	h->snap_bytes = h->snap_bytes - freed + len;
	q->ctype = "application/json";
	yi_http_out_printf(q, "{\"name\":\"%s\",\"bytes\":%zu,\"time\":%" PRId64 "}\n",
	    name, len, h->snaps.v[at].time);
	pthread_mutex_unlock(&h->snap_mtx);
	yi_hist_event("snapshot", name);
}

/* "report:NAME": the report's dump into *raw (the caller yi_free()s it);
 * false after an answer naming param (400 for a name that is not a
 * report dump's, 404 when there is no such report). */
static bool
report_raw(hreq *q, const char *param, const char *name, char **raw, size_t *len)
{
	int rc = yi_reports_read(name + strlen(YI_HTTP_REPORT_PREFIX),
	    q->h->o.max_snapshot_bytes, raw, len);

	if (rc != 0) {
		char what[64];
		snprintf(what, sizeof(what), "%s=report:NAME", param);
		yi_http_fail_rc(q, rc, what);
		return false;
	}
	return true;
}

static bool
is_report(const char *name)
{
	return name != NULL && strncmp(name, YI_HTTP_REPORT_PREFIX, strlen(YI_HTTP_REPORT_PREFIX)) == 0;
}

/* The snapshot (or report point) `name` read (not symbolized) into *p;
 * false after a 400 or a 404 naming `param`. */
static bool
snap_read(hreq *q, const char *param, const char *name, ying_profile **p)
{
	ying_http *h = q->h;
	char *raw = NULL;
	size_t len = 0;
	long at;
	int rc;

	*p = NULL;
	if (is_report(name)) {
		if (!report_raw(q, param, name, &raw, &len))
			return false;
		rc = ying_profile_read_mem(p, raw, len, name + strlen(YI_HTTP_REPORT_PREFIX));
		yi_free(raw);
		if (rc != 0) {
			yi_http_fail_rc(q, rc, "reading the report's dump failed");
			return false;
		}
		return true;
	}
	if (!yi_http_valid_snap_name(name)) {
		yi_http_fail(q, 400, "bad or missing parameter %s=%s: the name of a snapshot "
		    "taken with POST /debug/heap/snapshot?name=N, or report:NAME of a "
		    "report's dump", param, name ? name : "");
		return false;
	}
	pthread_mutex_lock(&h->snap_mtx);
	if ((at = snap_find(h, name)) < 0) {
		pthread_mutex_unlock(&h->snap_mtx);
		yi_http_fail(q, 404, "no snapshot named %s (POST /debug/heap/snapshot?name=%s "
		    "takes one)", name, name);
		return false;
	}
	rc = ying_profile_read_mem(p, h->snaps.v[at].data, h->snaps.v[at].len, name);
	pthread_mutex_unlock(&h->snap_mtx);
	if (rc != 0) {
		yi_http_fail_rc(q, rc, "reading the snapshot failed");
		return false;
	}
	return true;
}

void
yi_http_snap_write(hreq *q, const char *name, yi_http_fmt f, ying_sample_index idx)
{
	ying_http *h = q->h;
	ying_profile *p = NULL;
	long at;
	int rc;

	if (f == YI_HF_RAW && is_report(name)) {     /* the report's own bytes */
		char *raw = NULL;
		size_t len = 0;
		if (report_raw(q, "snapshot", name, &raw, &len)) {
			yi_http_out_add(q, raw, len);
			yi_http_set_type(q, f);
		}
		yi_free(raw);
		return;
	}
	if (f == YI_HF_RAW) {           /* the snapshot's own bytes */
		if (!yi_http_valid_snap_name(name)) {
			(void)snap_read(q, "snapshot", name, &p);
			return;
		}
		pthread_mutex_lock(&h->snap_mtx);
		if ((at = snap_find(h, name)) >= 0)
			yi_http_out_add(q, h->snaps.v[at].data, h->snaps.v[at].len);
		pthread_mutex_unlock(&h->snap_mtx);
		if (at < 0)
			(void)snap_read(q, "snapshot", name, &p);
		else
			yi_http_set_type(q, f);
		return;
	}
	if (!snap_read(q, "snapshot", name, &p))
		return;
	if (yi_http_dump_begin(q)) {     /* conversions one at a time */
		q->sym_used = true;
		if ((rc = yi_http_symbolize(h, p)) != 0)
			yi_http_fail_rc(q, rc, "symbolizing the snapshot failed");
		else if ((rc = yi_http_write(q, f, p, NULL, idx, 0)) != 0)
			yi_http_fail_rc(q, rc, "writing the snapshot failed");
		yi_http_dump_end(q);
	}
	ying_profile_free(p);
}

static const yi_http_fmt diff_formats[] = {
	YI_HF_TEXT, YI_HF_JSON, YI_HF_SVG, YI_HF_PPROF, YI_HF_FOLDED, YI_HF_TREE
};

void
yi_http_ep_diff(hreq *q)
{
	ying_http *h = q->h;
	const char *name = yi_http_arg(q, "base"), *now_name = yi_http_arg(q, "now");
	ying_profile *base = NULL, *now = NULL;
	ying_diff *d = NULL;
	ying_sample_index idx;
	int64_t limit, sig;
	int fmt, rc;

	if ((fmt = yi_http_arg_format(q, diff_formats, sizeof(diff_formats) / sizeof(diff_formats[0]))) < 0 ||
	    !yi_http_arg_index(q, &idx) || !yi_http_arg_num(q, YI_PARAM_LIMIT, &limit) ||
	    !yi_http_arg_num(q, YI_PARAM_SIGNIFICANT, &sig))
		return;
	q->significant = sig != 0;
	/* base=N, and now=M for two snapshots instead of N and the heap now */
	if (!snap_read(q, "base", name, &base) ||
	    (now_name != NULL && !snap_read(q, "now", now_name, &now)))
		goto out;
	if (!yi_http_dump_begin(q))
		goto out;
	q->sym_used = true;
	if ((rc = yi_http_symbolize(h, base)) != 0 ||
	    (now != NULL && (rc = yi_http_symbolize(h, now)) != 0)) {
		yi_http_fail_rc(q, rc, "symbolizing the snapshots failed");
		yi_http_dump_end(q);
		goto out;
	}
	if (now == NULL && (now = yi_http_dump_profile(q, NULL, NULL)) == NULL) {
		yi_http_dump_end(q);
		goto out;
	}
	if ((rc = yi_diff_of(&d, base, now, idx)) == 0)
		rc = yi_http_write(q, (yi_http_fmt)fmt, NULL, d, idx, (size_t)limit);
	if (rc != 0)
		yi_http_fail_rc(q, rc, "writing the diff failed");
	yi_http_dump_end(q);
out:
	ying_diff_free(d);
	ying_profile_free(now);
	ying_profile_free(base);
}
