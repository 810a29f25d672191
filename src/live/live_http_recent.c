/*
 * live_http_recent.c: /debug/heap/recent, jemalloc's recent sampled
 * allocations in ying's capture format (ying_ctl_recent_dump: the records
 * with their alloc/free times, threads and stacks, the process's maps and
 * both clocks), for `ying lifetimes` and `ying sql --recent`.  GET returns
 * the capture; POST ?max=N sets experimental.prof_recent.alloc_max (0 =
 * off, at most YING_RECENT_MAX_LIMIT: the max row of live_http_param.c),
 * like POST /debug/prof/sample: no GET changes state.  A record allowed
 * to grow past the bound (MALLOC_CONF's prof_recent_alloc_max:-1) is not
 * dumped: 409, naming the fix (jemalloc would hold the lock that
 * mallctl("epoch") waits for during the whole dump).
 */
#include <inttypes.h>

#include <microhttpd.h>

#include "live_http.h"

void
yi_http_ep_recent(hreq *q)
{
	int64_t old = 0, max;
	int rc;

	if (strcmp(q->method, "POST") == 0) {
		if (!yi_http_arg_num(q, YI_PARAM_MAX, &max))
			return;
		if ((rc = ying_ctl_recent_max(&old, max)) != 0) {
			yi_http_fail_rc(q, rc, "setting experimental.prof_recent.alloc_max failed");
			return;
		}
		q->ctype = "application/json";
		yi_http_out_printf(q, "{\"recent_alloc_max\":%" PRId64 ",\"previous\":%"
		    PRId64 "}\n", max, old);
		return;
	}
	if (yi_http_arg(q, "max") != NULL) {
		yi_http_fail(q, 400, "?max=N changes the profiler's state: use POST "
		    "/debug/heap/recent?max=N, then GET /debug/heap/recent");
		return;
	}
	if ((rc = ying_ctl_recent_max(&old, YING_RECENT_KEEP)) != 0) {
		yi_http_fail_rc(q, rc, "reading experimental.prof_recent.alloc_max failed");
		return;
	}
	if (old < 0 || old > YING_RECENT_MAX_LIMIT) {
		yi_http_fail(q, 409, "experimental.prof_recent.alloc_max is %" PRId64
		    " (-1: unlimited; from MALLOC_CONF's prof_recent_alloc_max): ying dumps "
		    "a record of at most %d entries, because jemalloc holds its "
		    "prof_recent_dump lock, which every mallctl(\"epoch\") caller waits "
		    "for, during the whole dump; POST /debug/heap/recent?max=N (N in 0..%d) "
		    "first", old, YING_RECENT_MAX_LIMIT, YING_RECENT_MAX_LIMIT);
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
