/*
 * live_http_giant.c: GET /debug/heap/giant, the giant allocations
 * recorded in this process (live_giant.c) as "ying-giant/1" JSON, the
 * call sites symbolized now with the endpoint's symbolizer.  ?since=SEQ
 * lists only the records from sequence SEQ on.  404 when no capture runs
 * (YING_GIANT / ying run --giant not set).  Authentication and the Host
 * check happen before any handler (live_http.c).
 */
#include <limits.h>

#include "live_http.h"

void
yi_http_ep_giant(hreq *q)
{
	int64_t since = 0;
	int rc;

	if (!yi_http_arg_num(q, YI_PARAM_SINCE, &since))
		return;
	if (ying_giant_capture_threshold() == 0) {
		yi_http_fail(q, 404, "giant allocations are not recorded in this "
		    "process: start it with YING_GIANT=SIZE (ying run --giant SIZE)");
		return;
	}
	if ((rc = ying_giant_capture_write_json(NULL, q->h->sym, (uint64_t)since,
	    ying_write_membuf, &q->out)) != 0) {
		yi_http_fail_rc(q, rc, "listing giant allocations");
		return;
	}
	q->ctype = "application/json";
}
