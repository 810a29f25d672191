/*
 * live_giant_json.c: giant allocations' listing, "ying-giant/1" JSON
 * (ying_giant_capture_write_json: the HTTP endpoint's /debug/giant, the growth
 * runner's .giant.json), and the call-site profiles it and the drain
 * thread's log lines are symbolized from.
 *
 * The listing works on a snapshot (yi_giant_snapshot, live_giant.c: the
 * ring drained, the call sites and records copied, a symbolizer reference
 * of its own), so no lock of the capture is held while the call sites are
 * symbolized and the JSON is written to a sink that may be slow (an HTTP
 * client): the hook, the drain thread and ying_giant_capture_stop never wait for
 * a listing.  A call-site profile is a heap_v2 text of one stack per site
 * (count and bytes) followed by the process's maps, read back with the
 * heap parser and symbolized with the maps and build IDs of the moment.
 */
#include <inttypes.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>

#include "live_giant.h"
#include "read.h"
#include "sym.h"

/* A profile of the given call sites (copies: sites[0..n)), symbolized
 * with s; *maps (may be NULL) gets the maps text it used: one stack per
 * site built with the model's constructor, then our maps. */
int
yi_giant_sites_profile(const yi_gsite *sites, size_t n, ying_symbolizer *s,
    ying_profile **out, char **maps)
{
	char *mt = NULL;
	ying_profile *p = NULL;
	int rc;

	*out = NULL;
	if ((rc = yi_ctl_maps_text(0, &mt, NULL)) != 0)
		return rc;
	/* one stack per site, then our maps: what the heap_v2 reader makes of
	 * "@ 0x<pc>...\n  t*: <count>: <bytes> [0: 0]" lines */
	rc = yi_profile_new_heap(&p, "giant allocations", 1, NULL);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		uint64_t pcs[YI_GIANT_DEPTH];
		yi_counts c = { sites[i].count, sites[i].bytes, 0, 0 };
		for (uint32_t k = 0; k < sites[i].n; k++)
			pcs[k] = sites[i].pcs[k];
		rc = yi_profile_add_pcs(p, pcs, sites[i].n, &c);
	}
	if (rc == 0)
		rc = yi_heap_parse_maps(p, mt, strlen(mt), "giant allocations");
	if (rc == 0) {
		rc = ying_profile_symbolize(p, s, NULL);
		/* the next write reuses the names, not the debug info */
		yi_live_cycle_end(s);
	}
	if (rc != 0) {
		ying_profile_free(p);
		yi_free(mt);
		return rc;
	}
	*out = p;
	if (maps)
		*maps = mt;
	else
		yi_free(mt);
	return 0;
}

/* The first frame kept of stack i: function, file, line. */
void
yi_giant_first_frame(const ying_profile *p, size_t i, yi_framevec *fv, const char **fn,
    const char **file, uint32_t *line)
{
	long nf = yi_stack_expand(p, &p->stacks.v[i], fv);

	*fn = "[unknown]";
	*file = "";
	*line = 0;
	if (nf > 0) {
		const yi_func *f = &p->funcs.v[fv->v[0].func];
		*fn = yi_strtab_get(&p->strs, f->name);
		*file = yi_strtab_get(&p->strs, f->file);
		*line = fv->v[0].line;
	}
}

static void
json_frames(yi_out *o, const ying_profile *p, size_t i, yi_framevec *fv)
{
	long nf = yi_stack_expand(p, &p->stacks.v[i], fv);

	yi_out_puts(o, "[");
	for (long k = 0; k < nf; k++) {
		const yi_func *f = &p->funcs.v[fv->v[k].func];
		yi_out_puts(o, k ? ",{\"function\":" : "{\"function\":");
		yi_out_json_str(o, yi_strtab_get(&p->strs, f->name));
		yi_out_puts(o, ",\"file\":");
		yi_out_json_str(o, yi_strtab_get(&p->strs, f->file));
		yi_out_printf(o, ",\"line\":%u,\"inlined\":%s}", fv->v[k].line,
		    fv->v[k].inlined ? "true" : "false");
	}
	yi_out_puts(o, "]");
}

/* The listing's first line: who, when, the counters. */
static void
json_head(yi_out *o, const yi_giant_snap *g, uint64_t since)
{
	char prog[PATH_MAX];
	struct timespec ts;
	ssize_t pl;

	clock_gettime(CLOCK_REALTIME, &ts);
	pl = readlink("/proc/self/exe", prog, sizeof(prog) - 1);
	prog[pl > 0 ? pl : 0] = '\0';
	yi_out_printf(o, "{\"format\":\"ying-giant/1\",\"pid\":%ld,\"program\":",
	    (long)getpid());
	yi_out_json_str(o, prog);
	yi_out_printf(o, ",\"time_ns\":%" PRId64 ",\"threshold\":%" PRIu64
	    ",\"allocations\":%" PRIu64 ",\"dropped\":%" PRIu64 ",\"since\":%" PRIu64
	    ",\n\"sites\":[", (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec, g->threshold,
	    g->allocs, g->dropped, since);
}

/* "sites": each call site's counts, raw stack and symbolized frames. */
static void
json_sites(yi_out *o, const yi_giant_snap *g, const ying_profile *p, yi_framevec *fv)
{
	for (size_t i = 0; i < g->nsites; i++) {
		const yi_gsite *st = &g->sites[i];
		yi_out_printf(o, "%s{\"site\":%zu,\"count\":%" PRIu64 ",\"bytes\":%" PRIu64
		    ",\"stack\":[", i ? ",\n" : "\n", i, st->count, st->bytes);
		for (uint32_t k = 0; k < st->n; k++)
			yi_out_printf(o, "%s\"0x%" PRIxPTR "\"", k ? "," : "", st->pcs[k]);
		yi_out_puts(o, "],\"frames\":");
		json_frames(o, p, i, fv);
		yi_out_puts(o, "}");
	}
}

/* "records": the kept records since the caller's mark, newest last. */
static void
json_records(yi_out *o, const yi_giant_snap *g, const ying_profile *p, yi_framevec *fv)
{
	for (size_t i = 0; i < g->nrecs; i++) {
		const yi_grec *r = &g->recs[i];
		const char *f, *file;
		uint32_t line;
		yi_giant_first_frame(p, r->site, fv, &f, &file, &line);
		yi_out_printf(o, "%s{\"seq\":%" PRIu64 ",\"time_ns\":%" PRId64 ",\"size\":%"
		    PRIu64 ",\"thread\":%" PRIu64 ",\"kind\":\"%s\",\"site\":%u,"
		    "\"function\":", i ? ",\n" : "\n", r->seq, r->time_ns, r->size, r->tid,
		    yi_giant_kind_name(r->kind), r->site);
		yi_out_json_str(o, f);
		yi_out_puts(o, "}");
	}
}

int
ying_giant_capture_write_json(uint64_t *next, ying_symbolizer *s, uint64_t since,
    ying_write_fn fn, void *opaque)
{
	yi_giant_snap g;
	char *maps = NULL;
	ying_profile *p = NULL;
	yi_framevec fv = { NULL, 0, 0 };
	yi_out *o;
	int rc;

	yi_error_clear();
	if (next)
		*next = since;
	if ((rc = yi_giant_snapshot(&g, since, s)) != 0)
		return rc;
	/* no lock from here on: the snapshot is ours */
	if ((rc = yi_giant_sites_profile(g.sites, g.nsites, s ? s : g.sym, &p,
	    &maps)) != 0)
		goto out;
	if ((o = yi_malloc(sizeof(*o))) == NULL) {
		rc = yi_oom("listing giant allocations");
		goto out;
	}
	yi_out_init(o, fn, opaque);
	json_head(o, &g, since);
	json_sites(o, &g, p, &fv);
	yi_out_puts(o, "],\n\"records\":[");
	json_records(o, &g, p, &fv);
	yi_out_puts(o, "],\n\"maps\":");
	yi_out_json_str(o, maps);
	yi_out_puts(o, "}\n");
	rc = yi_out_finish(o);
	yi_free(o);
	if (rc == 0 && next)
		*next = g.next;
out:
	yi_giant_snap_free(&g);
	yi_vec_free(&fv);
	ying_profile_free(p);
	yi_free(maps);
	return rc;
}
