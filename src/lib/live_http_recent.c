/*
 * live_http_recent.c: /debug/heap/recent, jemalloc's recent sampled
 * allocations in ying's capture format (ying_ctl_recent_dump: the records
 * with their alloc/free times, threads and stacks, the process's maps and
 * both clocks), for `ying lifetimes` and `ying sql --recent`.  GET returns
 * the capture; POST ?max=N sets experimental.prof_recent.alloc_max (-1 =
 * unlimited, 0 = off), like POST /debug/prof/sample: no GET changes state.
 */
#include <microhttpd.h>

#include "live_http.h"

#define RECENT_MAX_ARG 10000000L   /* records jemalloc keeps, at most */

void
yi_http_ep_recent(hreq *q)
{
	int64_t old = 0;
	long max;
	int rc;

	if (strcmp(q->method, "POST") == 0) {
		if (yi_http_arg(q, "max") == NULL) {
			yi_http_fail(q, 400, "missing parameter max=N (records kept: -1 = "
			    "unlimited, 0 = off, up to %ld)", RECENT_MAX_ARG);
			return;
		}
		if (!yi_http_arg_long(q, "max", -1, RECENT_MAX_ARG, 0, &max))
			return;
		if ((rc = ying_ctl_recent_max(&old, max)) != 0) {
			yi_http_fail_rc(q, rc, "setting experimental.prof_recent.alloc_max failed");
			return;
		}
		q->ctype = "application/json";
		yi_http_out_printf(q, "{\"recent_alloc_max\":%ld,\"previous\":%lld}\n", max,
		    (long long)old);
		return;
	}
	if (yi_http_arg(q, "max") != NULL) {
		yi_http_fail(q, 400, "?max=N changes the profiler's state: use POST "
		    "/debug/heap/recent?max=N, then GET /debug/heap/recent");
		return;
	}
	if (!yi_http_dump_begin(q))
		return;
	rc = ying_ctl_recent_dump(ying_write_membuf, &q->out);
	yi_http_dump_end(q);
	if (rc != 0) {
		ying_membuf_release(&q->out);
		yi_http_fail_rc(q, rc, "recent allocations dump failed");
		return;
	}
	q->ctype = "application/json";
	yi_http_set_filename(q, "recent.json");
}
