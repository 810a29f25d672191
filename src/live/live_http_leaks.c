/*
 * live_http_leaks.c: GET /debug/heap/leaks, the leak verdicts so far from
 * the agent's bounded history of per-stack totals (live_leakhist.c, fed by
 * the growth runner's heap checks): ying_leaks_write's JSON with a
 * "history" object first (how many points over how long, how many stacks
 * tracked), or its text with one line on the history.  Nothing is dumped:
 * the answer costs the symbolization of at most the tracked stacks.  A
 * process without a runner (no YING_REPORT_DIR) has no history: 404
 * saying how to get one.
 */
#include <inttypes.h>
#include <string.h>

#include <microhttpd.h>

#include "live_http.h"

void
yi_http_ep_leaks(hreq *q)
{
	static const yi_http_fmt fmts[] = { YI_HF_JSON, YI_HF_TEXT };
	ying_http *h = q->h;
	ying_leaks *l = NULL;
	yi_leaks_hist_info in;
	ying_membuf mb = YING_MEMBUF_INIT;
	int64_t stacks = 0, limit = 0;
	int f, rc;

	if ((f = yi_http_arg_format(q, fmts, 2)) < 0 ||
	    !yi_http_arg_num(q, YI_PARAM_STACKS, &stacks) ||
	    !yi_http_arg_num(q, YI_PARAM_LIMIT, &limit))
		return;
	q->sym_used = true;
	if ((rc = yi_leakhist_leaks(h->sym, h->frames, false, (int)stacks, &l, &in)) != 0) {
		if (rc == YING_ENODATA)
			yi_http_fail(q, 404, "%s", ying_last_error());
		else
			yi_http_fail_rc(q, rc, "the leak verdicts failed");
		return;
	}
	rc = ying_leaks_write(l, f == YI_HF_JSON, (size_t)limit, ying_write_membuf, &mb);
	ying_leaks_free(l);
	if (rc != 0) {
		ying_membuf_release(&mb);
		yi_http_fail_rc(q, rc, "writing the leak verdicts failed");
		return;
	}
	if (f == YI_HF_JSON && mb.len > 0 && mb.data[0] == '{') {
		yi_http_out_printf(q, "{\"history\":{\"points\":%zu,\"max_points\":%zu,"
		    "\"stride\":%u,\"checks\":%" PRIu64 ",\"stacks\":%zu,\"max_stacks\":%zu,"
		    "\"evicted\":%" PRIu64 ",\"untracked\":%zu,\"bytes\":%zu,\"other\":\"%s\"},",
		    in.points, in.max_points, in.stride, in.dumps, in.stacks, in.max_stacks,
		    in.evicted, in.untracked, in.bytes, YI_LEAKS_HIST_OTHER);
		yi_http_out_add(q, mb.data + 1, mb.len - 1);
		q->ctype = "application/json";
	} else {
		yi_http_out_printf(q, "leak history: %zu points (one per %u heap check%s, "
		    "%" PRIu64 " checks), %zu of at most %zu stacks tracked, the rest as "
		    "%s\n", in.points, in.stride, in.stride == 1 ? "" : "s", in.dumps,
		    in.stacks, in.max_stacks, YI_LEAKS_HIST_OTHER);
		yi_http_out_add(q, mb.data, mb.len);
		q->ctype = "text/plain; charset=utf-8";
	}
	ying_membuf_release(&mb);
}
