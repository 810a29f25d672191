/*
 * live_http_history.c: GET /debug/history (the process's memory over
 * time, live_history.c, as JSON; ?since=T keeps the points and events
 * after unix time T) and GET /debug/ui (what the live page is talking to:
 * {"mode":"live","pid":N,"program":"..."}; `ying serve` answers "serve").
 * Both answer 200 once the server runs; a bad since is a 400.
 */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include <microhttpd.h>

#include "live_http.h"
#include "live_history.h"

/* ?since=T: unix seconds, a decimal with an optional fraction, >= 0;
 * absent: -1 (everything).  false after a 400. */
static bool
arg_since(hreq *q, double *since)
{
	const char *s = yi_http_arg(q, "since");
	char *end;
	double v;

	*since = -1;
	if (s == NULL)
		return true;
	if (*s >= '0' && *s <= '9') {
		v = strtod(s, &end);
		if (*end == '\0' && isfinite(v) && v >= 0 && v < 1e12) {
			*since = v;
			return true;
		}
	}
	yi_http_fail(q, 400, "bad parameter since=%.64s: expected unix seconds (a "
	    "decimal such as 1764763200.25, at least 0), the \"t\" of the last "
	    "point seen", s);
	return false;
}

void
yi_http_ep_history(hreq *q)
{
	double since;
	int rc;

	if (!arg_since(q, &since))
		return;
	q->ctype = "application/json";
	/* the first request may come before the listener's first tick */
	(void)yi_hist_tick();
	if ((rc = yi_hist_json(since, ying_write_membuf, &q->out)) != 0)
		yi_http_fail_rc(q, rc, "writing the memory history failed");
}

void
yi_http_ep_ui(hreq *q)
{
	yi_out *o = yi_malloc(sizeof(*o));    /* 64 KiB: not on the stack */

	if (o == NULL) {
		yi_http_fail(q, 500, "out of memory");
		return;
	}
	q->ctype = "application/json";
	yi_out_init(o, ying_write_membuf, &q->out);
	yi_out_printf(o, "{\"mode\":\"live\",\"pid\":%ld,\"program\":", (long)getpid());
	yi_out_json_str(o, q->h->program);
	yi_out_puts(o, "}\n");
	if (yi_out_finish(o) != 0)
		yi_http_fail(q, 500, "out of memory");
	yi_free(o);
}
