/*
 * live_http_param.c: the numeric query parameters of the HTTP endpoint in
 * one table, and the one strict parser every handler reads them with.
 *
 * Each parameter has one row: its name, the endpoints that take it, the
 * allowed range (inclusive), its default when it may be left out, and a
 * phrase saying what it means (which goes into the 400).  The parser
 * takes decimal digits only: no sign (no parameter here is negative, so
 * "-1" is refused, not read as "unlimited"), no '+', spaces, "0x", "1e3",
 * fractions or units, and it stops at the first digit that would pass
 * INT64_MAX (no wrap-around).  A parameter given twice is refused too
 * (which of the two would win is libmicrohttpd's business, not the
 * caller's).  Every refusal is a 400 whose one line names the parameter,
 * the allowed range and what the parameter is.  The index page lists the
 * table (yi_http_params_html), and ying-http(7) documents the same rows.
 */
#include <inttypes.h>
#include <limits.h>

#include <microhttpd.h>

#include "live_http.h"

/* The largest ?seconds=N a growth profile may ask for, whatever the
 * server's max_seconds says: an hour holds a connection thread and two
 * profiles. */
#define SECONDS_HI 3600

static const yi_http_param params[YI_PARAM_COUNT] = {
	[YI_PARAM_SECONDS] = { "seconds", "GET /debug/pprof/heap, /debug/pprof/allocs",
	    0, SECONDS_HI, 0, false,
	    "seconds of growth to profile, 0 = the heap now; at most the server's "
	    "max_seconds (300 unless configured)" },
	[YI_PARAM_LG] = { "lg", "POST /debug/prof/sample", 10, 30, 0, true,
	    "log2 of the sampling period in bytes (lg_prof_sample); below 10 "
	    "nearly every allocation takes a backtrace and the program slows down "
	    "several times: choose finer sampling when starting it (ying run "
	    "--sample, MALLOC_CONF)" },
	[YI_PARAM_ON] = { "on", "POST /debug/prof/active", 0, 1, 0, true,
	    "1 switches sampling on, 0 off" },
	[YI_PARAM_MAX] = { "max", "POST /debug/heap/recent", 0, YING_RECENT_MAX_LIMIT, 0,
	    true, "recent sampled allocations jemalloc keeps, 0 = none; there is no "
	    "'unlimited' (-1): the record would grow without bound and dumping it "
	    "holds a lock of jemalloc's for the whole record" },
	[YI_PARAM_LIMIT] = { "limit", "GET /debug/heap/diff, /debug/heap/leaks", 0, 100000,
	    0, false, "rows per section of the diff, sites of the leak verdicts; 0 = the "
	    "writer's default (leaks: all)" },
	[YI_PARAM_SINCE] = { "since", "GET /debug/heap/giant", 0, INT64_MAX, 0, false,
	    "sequence number of the first giant record listed" },
	[YI_PARAM_SITES] = { "sites", "GET /debug/memory", 0, 1, 1, false,
	    "1 (default): dump the heap to name the call sites of each fragmented "
	    "size class; 0: jemalloc's counters and smaps only (no dump)" },
	[YI_PARAM_SIGNIFICANT] = { "significant", "GET /debug/heap/diff", 0, 1, 0, false,
	    "1: hide rows and stacks whose change is within jemalloc's sampling "
	    "noise (the 95 % interval holds 0)" },
	[YI_PARAM_STACKS] = { "stacks", "GET /debug/heap/leaks", 0, 1, 0, false,
	    "1: a verdict per whole stack; 0 (default): per function" },
};

const yi_http_param *
yi_http_param_get(yi_http_param_id id)
{
	return (unsigned)id < YI_PARAM_COUNT ? &params[id] : NULL;
}

bool
yi_http_num_parse(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	return yi_num_int64(s, lo, hi, out, NULL, 0) == 0;
}

int64_t
yi_http_param_hi(const ying_http *h, yi_http_param_id id)
{
	int64_t hi = params[id].hi;

	if (id == YI_PARAM_SECONDS && h && (int64_t)h->o.max_seconds < hi)
		hi = (int64_t)h->o.max_seconds;
	return hi;
}

typedef struct count_arg {
	const char *key;
	unsigned n;
} count_arg;

static enum MHD_Result
count_key(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	count_arg *a = cls;

	YI_UNUSED(kind);
	YI_UNUSED(value);
	if (key && strcmp(key, a->key) == 0)
		a->n++;
	return MHD_YES;
}

/* At most 48 bytes of s for a message, "..." after a cut. */
static void
shown(const char *s, char *out, size_t n)
{
	size_t k = strlen(s);

	if (k + 1 <= n && k <= 48) {
		memcpy(out, s, k + 1);
		return;
	}
	snprintf(out, n, "%.48s...", s);
}

bool
yi_http_arg_num(hreq *q, yi_http_param_id id, int64_t *out)
{
	const yi_http_param *p = &params[id];
	int64_t hi = yi_http_param_hi(q->h, id);
	count_arg ca = { p->name, 0 };
	const char *s = yi_http_arg(q, p->name);
	char v[64];

	if (s == NULL) {
		if (!p->required) {
			*out = p->def;
			return true;
		}
		yi_http_fail(q, 400, "missing parameter %s=N: an integer in %" PRId64 "..%"
		    PRId64 " (%s)", p->name, p->lo, hi, p->what);
		return false;
	}
	MHD_get_connection_values(q->c, MHD_GET_ARGUMENT_KIND, count_key, &ca);
	if (ca.n > 1) {
		yi_http_fail(q, 400, "parameter %s given %u times: give it once, an "
		    "integer in %" PRId64 "..%" PRId64 " (%s)", p->name, ca.n, p->lo, hi,
		    p->what);
		return false;
	}
	if (yi_http_num_parse(s, p->lo, hi, out))
		return true;
	shown(s, v, sizeof(v));
	yi_http_fail(q, 400, "bad parameter %s=%s: expected an integer in %" PRId64
	    "..%" PRId64 ", decimal digits only (%s)", p->name, v, p->lo, hi, p->what);
	return false;
}

void
yi_http_params_html(hreq *q)
{
	yi_http_out_str(q, "<h2>Numeric parameters</h2>\n<table>\n<tr><th>parameter"
	    "</th><th>endpoint</th><th>allowed</th><th>meaning</th></tr>\n");
	for (int i = 0; i < YI_PARAM_COUNT; i++)
		yi_http_out_printf(q, "<tr><td>%s</td><td>%s</td><td>%" PRId64 "..%" PRId64
		    "%s</td><td>%s</td></tr>\n", params[i].name, params[i].endpoint,
		    params[i].lo, yi_http_param_hi(q->h, (yi_http_param_id)i),
		    params[i].required ? ", required" : "", params[i].what);
	yi_http_out_str(q, "</table>\n");
}
