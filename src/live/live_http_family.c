/*
 * live_http_family.c: one endpoint for every process of a service (issue
 * 25; live_family.h says what a family, its head and its members are).
 *
 * GET /debug/processes lists this process (first) and the members the
 * kernel's socket table shows (yi_family_members), each with what /proc
 * says of it and its live heap (a member's from its own /debug/processes,
 * asked with a short timeout; one that does not answer is listed with an
 * "error").  ?pid=N on any endpoint: N this process (or absent) is served
 * here as before; N a member is forwarded over the member's socket
 * (yi_family_request: the path and query without pid=, the method and a
 * POST's body; no Authorization: the member serves only its ancestors)
 * and its status, Content-Type and body relayed; any other N is 404, a
 * malformed one 400.  ?pid=all sums: each member's /debug/pprof/heap
 * (symbolized by the member) and this process's own heap as one profile
 * whose stacks carry a numeric `pid` label (ying_profile_merge_labeled),
 * on the endpoints where a sum means something (the pprof ones,
 * /debug/heap in any format but raw, the flame graph).  All of it runs
 * after the endpoint's own checks (Host, peer, token, route, Origin), so
 * those rules are the head's, unchanged.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <microhttpd.h>

#include "live_family.h"
#include "live_http.h"

#define FAMILY_MAX_ANSWER ((size_t)256 << 20)  /* bytes of a member's answer */
#define FAMILY_LIST_MS 1000                     /* a member's /debug/processes */

/* ---- the query to forward: every argument but pid, percent-encoded ------- */

typedef struct qbuild {
	ying_membuf *m;
	bool first;
} qbuild;

static void
enc(ying_membuf *m, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~') {
			ying_write_membuf(m, &s[i], 1);
		} else {
			char e[3] = { '%', hex[c >> 4], hex[c & 15] };
			ying_write_membuf(m, e, 3);
		}
	}
}

static enum MHD_Result
add_arg(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
    const char *value, size_t value_size)
{
	qbuild *b = cls;

	YI_UNUSED(kind);
	if (key_size == 3 && memcmp(key, "pid", 3) == 0)
		return MHD_YES;
	ying_write_membuf(b->m, b->first ? "?" : "&", 1);
	b->first = false;
	enc(b->m, key, key_size);
	if (value != NULL) {
		ying_write_membuf(b->m, "=", 1);
		enc(b->m, value, value_size);
	}
	return MHD_YES;
}

/* ---- ?pid= ------------------------------------------------------------------ */

/* Is pid a member of this process's family now? */
static bool
is_member(pid_t pid)
{
	pid_t *v;
	size_t n;
	bool found = false;

	if (yi_family_members(&v, &n) != 0)
		return false;
	for (size_t i = 0; i < n && !found; i++)
		found = v[i] == pid;
	yi_free(v);
	return found;
}

/* Relay a member's answer (taken: r->body becomes the response). */
static void
relay(hreq *q, yi_family_resp *r)
{
	ying_membuf_release(&q->out);
	q->status = (unsigned)r->status;
	snprintf(q->ctype_buf, sizeof(q->ctype_buf), "%s", r->ctype[0] ? r->ctype :
	    "application/octet-stream");
	q->ctype = q->ctype_buf;
	q->disposition[0] = '\0';
	q->out.data = r->body;
	q->out.len = q->out.cap = r->len;
	r->body = NULL;
	r->len = 0;
}

static void
fail_member(hreq *q, int rc, pid_t pid)
{
	yi_http_fail(q, rc == YING_ENOTFOUND ? 404 : rc == YING_EBUSY ? 504 : 502,
	    "process %ld: %s (GET /debug/processes lists the processes)", (long)pid,
	    ying_last_error());
}

static void
forward(hreq *q, pid_t pid)
{
	ying_membuf target = { 0 };
	qbuild b = { &target, true };
	yi_family_resp r;
	const char *secs = yi_http_arg(q, "seconds");
	int64_t s = 0, tmo;
	int rc;

	target.max = 1 << 20;
	ying_write_membuf(&target, q->url, strlen(q->url));
	MHD_get_connection_values_n(q->c, MHD_GET_ARGUMENT_KIND, add_arg, &b);
	if (ying_write_membuf(&target, "", 1) != 0) {
		ying_membuf_release(&target);
		yi_http_fail(q, 414, "the query is too long to forward");
		return;
	}
	/* a growth profile takes its seconds, then the usual time */
	if (secs && !yi_http_num_parse(secs, 0, 86400, &s))
		s = 0;
	tmo = ((int64_t)q->h->o.timeout_sec + s) * 1000;
	rc = yi_family_request(pid, strcmp(q->method, "HEAD") == 0 ? "GET" : q->method,
	    target.data, NULL, q->body.len ? q->body.data : NULL, q->body.len,
	    FAMILY_MAX_ANSWER, (int)(tmo > INT32_MAX ? INT32_MAX : tmo), &r);
	ying_membuf_release(&target);
	if (rc != 0) {
		fail_member(q, rc, pid);
		return;
	}
	relay(q, &r);
}

static const yi_http_fmt sum_formats[] = {
	YI_HF_PPROF, YI_HF_FOLDED, YI_HF_SVG, YI_HF_TEXT, YI_HF_JSON
};

#define SUM_WHERE "/debug/pprof/heap, /debug/pprof/allocs, " \
    "/debug/heap?format=pprof|folded|svg|text|json and /debug/heap/flamegraph"

/* ?pid=all: this process and every member as one profile, label pid. */
static void
sum_all(hreq *q)
{
	ying_http *h = q->h;
	ying_profile **ps = NULL, *sum = NULL;
	int64_t *pids = NULL;
	pid_t *mv = NULL;
	size_t nm = 0, np = 0;
	ying_sample_index idx = YING_INUSE_SPACE;
	ying_merge_opts mo = YING_MERGE_OPTS_INIT;
	yi_http_fmt f = YI_HF_PPROF;
	int rc, ms = (int)(h->o.timeout_sec < 10 ? h->o.timeout_sec : 10) * 1000;
	char missing[256] = "";

	if (strcmp(q->url, "/debug/pprof/heap") == 0 ||
	    strcmp(q->url, "/debug/pprof/allocs") == 0) {
		const char *secs = yi_http_arg(q, "seconds");
		if (secs && strcmp(secs, "0") != 0) {
			yi_http_fail(q, 400, "?pid=all sums the heaps as they are now; a "
			    "growth profile (?seconds=N) is asked of one process (?pid=N)");
			return;
		}
	} else if (strcmp(q->url, "/debug/heap") == 0) {
		int fi;
		if (yi_http_arg(q, "format") == NULL) {
			yi_http_fail(q, 400, "?pid=all: a raw heap_v2 dump (the default "
			    "format of /debug/heap) is one process's; sums are served on "
			    SUM_WHERE);
			return;
		}
		if ((fi = yi_http_arg_format(q, sum_formats, sizeof(sum_formats) /
		    sizeof(sum_formats[0]))) < 0 || !yi_http_arg_index(q, &idx))
			return;
		f = (yi_http_fmt)fi;
	} else if (strcmp(q->url, "/debug/heap/flamegraph") == 0) {
		if (!yi_http_arg_index(q, &idx))
			return;
		f = YI_HF_SVG;
	} else {
		yi_http_fail(q, 400, "?pid=all is not served on %s: sums are served on "
		    SUM_WHERE "; GET /debug/processes lists the processes, ?pid=N asks "
		    "one", q->url);
		return;
	}
	if ((rc = yi_family_members(&mv, &nm)) != 0) {
		yi_http_fail_rc(q, rc, "listing the processes failed");
		return;
	}
	ps = yi_calloc(nm + 1, sizeof(*ps));
	pids = yi_calloc(nm + 1, sizeof(*pids));
	if (ps == NULL || pids == NULL) {
		yi_http_fail(q, 500, "out of memory");
		goto out;
	}
	if (!yi_http_dump_begin(q))
		goto out;
	ps[0] = yi_http_dump_profile(q, NULL, NULL);
	yi_http_dump_end(q);
	if (ps[0] == NULL)
		goto out;
	pids[np++] = getpid();
	for (size_t i = 0; i < nm; i++) {
		yi_family_resp r;
		ying_profile *p = NULL;
		char name[48];

		snprintf(name, sizeof(name), "process %ld", (long)mv[i]);
		rc = yi_family_request(mv[i], "GET", "/debug/pprof/heap", NULL, NULL, 0,
		    FAMILY_MAX_ANSWER, ms, &r);
		if (rc == 0 && r.status != 200)
			rc = yi_error(YING_EIO, "process %ld: status %d", (long)mv[i], r.status);
		if (rc == 0 && (rc = ying_profile_read_mem(&p, r.body, r.len, name)) == 0)
			rc = yi_http_symbolize(h, p);
		yi_family_resp_free(&r);
		if (rc != 0) {
			/* gone or silent: the sum is of the others; said in the log */
			size_t ml = strlen(missing);
			if (h->o.log)
				fprintf(h->o.log, "ying-http: ?pid=all: %s\n", ying_last_error());
			if (ml + 16 < sizeof(missing))
				snprintf(missing + ml, sizeof(missing) - ml, "%s%ld", ml ? "," : "",
				    (long)mv[i]);
			ying_profile_free(p);
			continue;
		}
		ps[np] = p;
		pids[np++] = mv[i];
	}
	if ((rc = ying_profile_merge_labeled(&sum, ps, np, "pid", pids, &mo)) != 0) {
		yi_http_fail_rc(q, rc, "summing the processes failed");
		goto out;
	}
	if ((rc = yi_http_write(q, f, sum, NULL, idx, 0)) != 0) {
		yi_http_fail_rc(q, rc, "writing the summed profile failed");
		goto out;
	}
	if (missing[0])
		snprintf(q->missing, sizeof(q->missing), "%s", missing);
out:
	for (size_t i = 0; ps && i < np; i++)
		ying_profile_free(ps[i]);
	ying_profile_free(sum);
	yi_free(ps);
	yi_free(pids);
	yi_free(mv);
}

bool
yi_http_family_route(hreq *q)
{
	const char *s = yi_http_arg(q, "pid");
	int64_t pid;

	if (s == NULL || q->h->member)
		return false;
	if (strcmp(s, "all") == 0) {
		if (strcmp(q->url, "/debug/processes") == 0)
			return false;           /* it lists them all anyway */
		sum_all(q);
		return true;
	}
	if (!yi_http_num_parse(s, 1, INT32_MAX, &pid)) {
		yi_http_fail(q, 400, "bad parameter pid=%.40s: a process id (GET "
		    "/debug/processes lists them) or all", s);
		return true;
	}
	if ((pid_t)pid == getpid())
		return false;
	if (!is_member((pid_t)pid)) {
		yi_http_fail(q, 404, "no profiled process %" PRId64 " in this service "
		    "(GET /debug/processes lists them)", pid);
		return true;
	}
	forward(q, (pid_t)pid);
	return true;
}

/* ---- /debug/processes ------------------------------------------------------- */

static void
proc_json(yi_out *o, const yi_proc_info *pi)
{
	yi_out_printf(o, "{\"pid\":%ld,\"ppid\":%ld,\"program\":", (long)pi->pid,
	    (long)pi->ppid);
	yi_out_json_str(o, pi->program);
	yi_out_printf(o, ",\"uid\":%ld,\"user\":", (long)pi->uid);
	yi_out_json_str(o, pi->user);
	yi_out_printf(o, ",\"start_time\":%" PRId64 ",\"rss\":%" PRIu64 ",\"role\":",
	    pi->start_time, pi->rss);
	yi_out_json_str(o, pi->role);
	yi_out_puts(o, ",\"title\":");
	yi_out_json_str(o, pi->title);
}

/* A member's live heap from its own /debug/processes ("live_heap":N), or
 * -1 with the reason in why. */
static int64_t
member_heap(pid_t pid, char *why, size_t wn)
{
	yi_family_resp r;
	const char *k;
	int64_t v = -1;

	if (yi_family_request(pid, "GET", "/debug/processes", NULL, NULL, 0, 1 << 20,
	    FAMILY_LIST_MS, &r) != 0) {
		snprintf(why, wn, "%s", ying_last_error());
		return -1;
	}
	if (r.status != 200)
		snprintf(why, wn, "its /debug/processes answered %d", r.status);
	else if ((k = strstr(r.body, "\"live_heap\":")) == NULL ||
	    sscanf(k + 12, "%" SCNd64, &v) != 1)
		snprintf(why, wn, "its /debug/processes has no live_heap");
	yi_family_resp_free(&r);
	return v;
}

void
yi_http_ep_processes(hreq *q)
{
	yi_proc_info pi;
	ying_ctl_stats ss;
	pid_t *mv = NULL;
	size_t nm = 0;
	yi_out *o;
	int rc;

	if ((o = yi_malloc(sizeof(*o))) == NULL) {
		yi_http_fail(q, 500, "out of memory");
		return;
	}
	yi_out_init(o, ying_write_membuf, &q->out);
	yi_proc_info_get(getpid(), &pi);
	yi_out_puts(o, "{\"processes\":[");
	proc_json(o, &pi);
	if (ying_ctl_stats_get(&ss) == 0)
		yi_out_printf(o, ",\"live_heap\":%" PRIu64, ss.allocated);
	yi_out_printf(o, ",\"head\":%s,\"profiled\":true}", q->h->member ? "false" : "true");
	yi_error_clear();
	/* a member lists itself; the head lists every member (the members of
	 * members too: they are its descendants) */
	if (!q->h->member && (rc = yi_family_members(&mv, &nm)) != 0) {
		yi_free(o);
		yi_http_fail_rc(q, rc, "listing the processes failed");
		return;
	}
	for (size_t i = 0; i < nm; i++) {
		char why[300] = "";
		int64_t heap;

		if (yi_proc_info_get(mv[i], &pi) != 0)
			continue;       /* gone since the listing */
		yi_out_puts(o, ",");
		proc_json(o, &pi);
		if ((heap = member_heap(mv[i], why, sizeof(why))) >= 0)
			yi_out_printf(o, ",\"live_heap\":%" PRId64, heap);
		yi_out_puts(o, ",\"head\":false,\"profiled\":true");
		if (why[0]) {
			yi_out_puts(o, ",\"error\":");
			yi_out_json_str(o, why);
		}
		yi_out_puts(o, "}");
	}
	yi_out_puts(o, "]}\n");
	yi_free(mv);
	rc = yi_out_finish(o);
	yi_free(o);
	if (rc != 0)
		yi_http_fail_rc(q, rc, "writing the process list failed");
	q->ctype = "application/json";
}

static void
html_text(hreq *q, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': yi_http_out_str(q, "&lt;"); break;
		case '>': yi_http_out_str(q, "&gt;"); break;
		case '&': yi_http_out_str(q, "&amp;"); break;
		case '"': yi_http_out_str(q, "&quot;"); break;
		default: yi_http_out_add(q, s, 1); break;
		}
	}
}

void
yi_http_index_processes(hreq *q)
{
	pid_t *mv = NULL;
	size_t nm = 0;
	yi_proc_info pi;

	if (q->h->member)
		return;
	if (yi_family_members(&mv, &nm) != 0)
		yi_error_clear();
	yi_http_out_str(q, "<h2>Processes</h2>\n<p>Every endpoint takes <code>?pid=N"
	    "</code> (one process of the service) and the pprof ones <code>?pid=all"
	    "</code> (their sum, with a <code>pid</code> label: <code>go tool pprof "
	    "-tagfocus=pid=N</code>); <a href=\"/debug/processes\">/debug/processes"
	    "</a> lists them as JSON.</p>\n<table>\n<tr><th>pid</th><th>parent</th>"
	    "<th>program</th><th>user</th><th>role</th><th>RSS</th><th></th></tr>\n");
	for (size_t i = 0; i <= nm; i++) {
		pid_t pid = i == 0 ? getpid() : mv[i - 1];
		char rss[32];

		if (yi_proc_info_get(pid, &pi) != 0)
			continue;
		ying_format_bytes((double)pi.rss, rss, sizeof(rss));
		yi_http_out_printf(q, "<tr><td>%ld%s</td><td>%ld</td><td>", (long)pid,
		    i == 0 ? " (this endpoint)" : "", (long)pi.ppid);
		html_text(q, pi.program);
		yi_http_out_str(q, "</td><td>");
		html_text(q, pi.user);
		yi_http_out_str(q, "</td><td>");
		html_text(q, pi.role);
		yi_http_out_printf(q, "</td><td>%s</td><td><a href=\"/debug/heap?format=text"
		    "&amp;pid=%ld\">top</a> <a href=\"/debug/heap/flamegraph?pid=%ld\">flame "
		    "graph</a> <a href=\"/debug/pprof/heap?pid=%ld\">pprof</a></td></tr>\n",
		    rss, (long)pid, (long)pid, (long)pid);
	}
	yi_http_out_str(q, "<tr><td>all</td><td></td><td colspan=\"4\">the sum</td><td>"
	    "<a href=\"/debug/heap?format=text&amp;pid=all\">top</a> "
	    "<a href=\"/debug/heap/flamegraph?pid=all\">flame graph</a> "
	    "<a href=\"/debug/pprof/heap?pid=all\">pprof</a></td></tr>\n</table>\n");
	yi_free(mv);
}
