/*
 * live_memory_write.c: the memory breakdown (live_memory.c) as one
 * "ying-memory/1" JSON object and as text: the table of parts, what is not
 * resident, the fragmented classes with their call sites, the largest
 * files and the advice (ying_memory_write_json, ying_memory_write_text).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "live.h"
#include "live_memory.h"

/* ---- JSON ---------------------------------------------------------------- */

static void
json_u64_or_null(yi_out *o, uint64_t v)
{
	if (v == UINT64_MAX)
		yi_out_puts(o, "null");
	else
		yi_out_printf(o, "%" PRIu64, v);
}

/* seconds, or null for "not at that rate" (infinite) */
static void
eta_num(yi_out *o, double s)
{
	if (isfinite(s))
		yi_out_json_num(o, s);
	else
		yi_out_puts(o, "null");
}

/* The limit's "leak_*" keys: the growth runner's leak sites' summed rate
 * (bytes/s, live_leakhist.c) and when the usage reaches the limit at it;
 * leak_sites 0 and the rest null before any verdict. */
static void
leak_json(yi_out *o, double limit, double usage)
{
	yi_leak_sum s;
	double eta, lo, hi;

	if (!yi_leakhist_published(&s)) {
		yi_out_puts(o, ",\"leak_sites\":null");
		return;
	}
	yi_leak_eta(&s, limit, usage, &eta, &lo, &hi);
	yi_out_printf(o, ",\"leak_sites\":%zu,\"leak_points\":%zu", s.sites, s.dumps);
	if (s.sites == 0)
		return;
	yi_out_puts(o, ",\"leak_rate\":");
	yi_out_json_num(o, s.rate);
	yi_out_puts(o, ",\"leak_rate_lo\":");
	yi_out_json_num(o, s.rate_lo);
	yi_out_puts(o, ",\"leak_rate_hi\":");
	yi_out_json_num(o, s.rate_hi);
	yi_out_puts(o, ",\"leak_eta\":");
	eta_num(o, eta);
	yi_out_puts(o, ",\"leak_eta_lo\":");
	eta_num(o, lo);
	yi_out_puts(o, ",\"leak_eta_hi\":");
	eta_num(o, hi);
}

static void
leak_text(yi_out *o, double limit, double usage)
{
	yi_leak_sum s;
	double eta, lo, hi;
	char t[32], tl[32], th[32], r[32];

	if (!yi_leakhist_published(&s))
		return;
	if (s.sites == 0) {
		yi_out_printf(o, "  at the leaks' rate: no site is a leak so far (%zu points)\n",
		    s.dumps);
		return;
	}
	yi_leak_eta(&s, limit, usage, &eta, &lo, &hi);
	yi_out_printf(o, "  at the leaks' rate: in %s (95 %%: %s to %s), %zu leak site%s "
	    "growing %s/h\n", yi_fmt_duration(eta, false, t, sizeof(t)),
	    yi_fmt_duration(lo, false, tl, sizeof(tl)), yi_fmt_duration(hi, false, th,
	    sizeof(th)), s.sites, s.sites == 1 ? "" : "s", yi_fmt_bytes(s.rate * 3600, r,
	    sizeof(r)));
}

int
ying_memory_write_json(const ying_memory *m, ying_write_fn fn, void *opaque)
{
	yi_out *o;
	int rc;

	yi_error_clear();
	if (m == NULL || fn == NULL)
		return yi_error(YING_EINVAL, "ying_memory_write_json: NULL argument");
	if ((o = yi_malloc(sizeof(*o))) == NULL)
		return yi_oom("writing the memory breakdown");
	yi_out_init(o, fn, opaque);
	yi_out_printf(o, "{\"format\":\"ying-memory/1\",\"pid\":%ld,\"rss\":%" PRIu64
	    ",\"vmrss\":%" PRIu64 ",\"swap\":%" PRIu64 ",\"threads\":%u,"
	    "\"elapsed_us\":%" PRIu64 ",\"parts\":[", m->pid, m->proc.rss,
	    m->proc.vmrss, m->proc.swap, m->proc.n_threads, m->elapsed_us);
	for (int i = 0; i < YI_P_N; i++)
		yi_out_printf(o, "%s{\"key\":\"%s\",\"name\":\"%s\",\"group\":\"%s\","
		    "\"bytes\":%" PRIu64 "}", i ? "," : "", yi_mem_parts[i].key,
		    yi_mem_parts[i].name, yi_mem_parts[i].group, m->parts[i]);
	yi_out_printf(o, "],\"apart\":[{\"key\":\"jemalloc.retained\",\"name\":"
	    "\"retained (mapped, not resident)\",\"bytes\":%" PRIu64 "},"
	    "{\"key\":\"jemalloc.not_resident\",\"name\":\"counted by jemalloc, "
	    "not resident\",\"bytes\":%" PRIu64 "},{\"key\":\"swap\",\"name\":"
	    "\"swapped out\",\"bytes\":%" PRIu64 "}],",
	    m->have_jem ? m->retained : 0, m->not_resident, m->proc.swap);
	yi_out_printf(o, "\"resident_split\":\"%s\",\"jemalloc\":",
	    m->split ? "proportional" : "exact");
	if (m->have_jem) {
		yi_out_puts(o, "{\"version\":");
		yi_out_json_str(o, m->jem_version);
		yi_out_printf(o, ",\"allocated\":%" PRIu64 ",\"active\":%" PRIu64
		    ",\"resident\":%" PRIu64 ",\"metadata\":%" PRIu64 ",\"mapped\":%"
		    PRIu64 ",\"retained\":%" PRIu64 ",\"dirty\":%" PRIu64 ",\"muzzy\":%"
		    PRIu64 ",\"tcache\":%" PRIu64 ",\"narenas\":%u,\"background_thread\":%s,"
		    "\"dirty_decay_ms\":%" PRId64 ",\"muzzy_decay_ms\":%" PRId64
		    ",\"profiled\":", m->allocated, m->active, m->resident, m->metadata,
		    m->mapped, m->retained, m->dirty, m->muzzy, m->tcache, m->narenas,
		    m->bg_thread ? "true" : "false", m->dirty_decay_ms, m->muzzy_decay_ms);
		if (m->have_profiled)
			yi_out_printf(o, "%.0f}", m->profiled);
		else
			yi_out_puts(o, "null}");
	} else {
		yi_out_puts(o, "null,\"jemalloc_error\":");
		yi_out_json_str(o, m->jem_error);
	}
	yi_out_puts(o, ",\"glibc\":");
	if (m->have_glibc)
		yi_out_printf(o, "{\"arena\":%" PRIu64 ",\"hblkhd\":%" PRIu64
		    ",\"uordblks\":%" PRIu64 ",\"fordblks\":%" PRIu64 ",\"arenas\":%u}",
		    m->g_arena, m->g_hblkhd, m->g_uordblks, m->g_fordblks,
		    m->proc.n_glibc_arenas + 1);
	else
		yi_out_puts(o, "null");
	yi_out_puts(o, ",\"classes\":[");
	for (size_t i = 0, k = 0; i < m->nclasses; i++) {
		const yi_mem_class *c = &m->classes[i];
		uint64_t fr = c->slab_bytes - c->used_bytes;
		if (c->slab_bytes == 0)
			continue;
		yi_out_printf(o, "%s{\"size\":%" PRIu64 ",\"slab_bytes\":%" PRIu64
		    ",\"used_bytes\":%" PRIu64 ",\"free_bytes\":%" PRIu64
		    ",\"free_pct\":%.1f,\"sites\":[", k++ ? "," : "", c->size,
		    c->slab_bytes, c->used_bytes, fr, yi_mem_pct(fr, c->slab_bytes));
		for (unsigned s = 0; s < c->nsites; s++) {
			yi_out_puts(o, s ? ",{\"name\":" : "{\"name\":");
			yi_out_json_str(o, c->sites[s].name);
			yi_out_printf(o, ",\"bytes\":%.0f,\"estimate\":true}", c->sites[s].bytes);
		}
		yi_out_puts(o, "]}");
	}
	yi_out_puts(o, "],\"files\":[");
	for (unsigned i = 0; i < m->proc.n_files; i++) {
		yi_out_puts(o, i ? ",{\"path\":" : "{\"path\":");
		yi_out_json_str(o, m->proc.files[i].path);
		yi_out_printf(o, ",\"bytes\":%" PRIu64 ",\"code\":%s}", m->proc.files[i].rss,
		    m->proc.files[i].code ? "true" : "false");
	}
	yi_out_puts(o, "],\"cgroup\":");
	if (m->proc.cg_version) {
		yi_out_printf(o, "{\"version\":%d,\"path\":", m->proc.cg_version);
		yi_out_json_str(o, m->proc.cg_path);
		yi_out_printf(o, ",\"usage\":%" PRIu64 ",\"limit\":", m->proc.cg_usage);
		json_u64_or_null(o, m->proc.cg_limit);
		yi_out_puts(o, ",\"anon\":");
		json_u64_or_null(o, m->proc.cg_anon);
		yi_out_puts(o, ",\"file\":");
		json_u64_or_null(o, m->proc.cg_file);
		yi_out_puts(o, "}");
	} else {
		yi_out_puts(o, "null");
	}
	{
		/* the growth runner's limit and the usage's trend (live_limit.c) */
		yi_limit_eta e;
		uint64_t lim;
		const char *src;
		yi_out_puts(o, ",\"limit\":");
		if (yi_limit_published(&e, &lim, &src)) {
			yi_out_printf(o, "{\"bytes\":%" PRIu64 ",\"source\":", lim);
			yi_out_json_str(o, src);
			yi_out_printf(o, ",\"trend_known\":%s,\"points\":%u,\"span\":",
			    e.known ? "true" : "false", e.points);
			yi_out_json_num(o, e.span);
			yi_out_puts(o, ",\"usage\":");
			yi_out_json_num(o, e.usage);
			if (e.known) {
				yi_out_puts(o, ",\"rate\":");
				yi_out_json_num(o, e.rate);
				yi_out_puts(o, ",\"rate_lo\":");
				yi_out_json_num(o, e.rate_lo);
				yi_out_puts(o, ",\"rate_hi\":");
				yi_out_json_num(o, e.rate_hi);
				/* seconds; null: not reached at that rate */
				yi_out_puts(o, ",\"eta\":");
				eta_num(o, e.eta);
				yi_out_puts(o, ",\"eta_lo\":");
				eta_num(o, e.eta_lo);
				yi_out_puts(o, ",\"eta_hi\":");
				eta_num(o, e.eta_hi);
			}
			leak_json(o, (double)lim, e.usage);
			yi_out_putc(o, '}');
		} else {
			yi_out_puts(o, "null");
		}
	}
	yi_out_puts(o, ",\"advice\":[");
	for (unsigned i = 0; i < m->nadvice; i++) {
		yi_out_printf(o, "%s{\"part\":\"%s\",\"text\":", i ? "," : "",
		    m->advice[i].part < 0 ? "cgroup" : yi_mem_parts[m->advice[i].part].key);
		yi_out_json_str(o, m->advice[i].text);
		yi_out_puts(o, "}");
	}
	yi_out_puts(o, "]}\n");
	rc = yi_out_finish(o);
	yi_free(o);
	return rc;
}

/* ---- text ---------------------------------------------------------------- */

int
ying_memory_write_text(const ying_memory *m, int compact, ying_write_fn fn,
    void *opaque)
{
	char b1[32], b2[32], b3[32];
	uint64_t rss;
	yi_out *o;
	int rc;

	yi_error_clear();
	if (m == NULL || fn == NULL)
		return yi_error(YING_EINVAL, "ying_memory_write_text: NULL argument");
	if ((o = yi_malloc(sizeof(*o))) == NULL)
		return yi_oom("writing the memory breakdown");
	yi_out_init(o, fn, opaque);
	rss = m->proc.rss;
	yi_out_printf(o, "memory of pid %ld: RSS %s (%" PRIu64 " bytes), %u threads",
	    m->pid, yi_fmt_bytes((double)rss, b1, sizeof(b1)), rss, m->proc.n_threads);
	if (m->proc.cg_version) {
		yi_out_printf(o, "; cgroup %s: %s", m->proc.cg_path,
		    yi_fmt_bytes((double)m->proc.cg_usage, b1, sizeof(b1)));
		if (m->proc.cg_limit != UINT64_MAX)
			yi_out_printf(o, " of %s (%.0f %%)", yi_fmt_bytes((double)
			    m->proc.cg_limit, b2, sizeof(b2)), yi_mem_pct(m->proc.cg_usage,
			    m->proc.cg_limit));
		else
			yi_out_puts(o, ", no limit");
	}
	yi_out_putc(o, '\n');
	{
		yi_limit_eta e;
		uint64_t lim;
		const char *src;
		char eta[256];
		if (yi_limit_published(&e, &lim, &src)) {
			yi_limit_eta_text(&e, eta, sizeof(eta));
			yi_out_printf(o, "limit %s (%s): reached %s\n", yi_fmt_bytes((double)lim,
			    b1, sizeof(b1)), src, eta[0] ? eta : "(no trend yet)");
			leak_text(o, (double)lim, e.usage);
		}
	}
	for (int i = 0; i < YI_P_N; i++) {
		if (compact && m->parts[i] * 100 < rss)
			continue;
		yi_out_printf(o, "  %-9s %-24s %10s %6.1f %%", yi_mem_parts[i].group,
		    yi_mem_parts[i].name, yi_fmt_bytes((double)m->parts[i], b1, sizeof(b1)),
		    yi_mem_pct(m->parts[i], rss));
		if (i == YI_P_LIVE && m->have_profiled)
			yi_out_printf(o, "   (profiled: %s)", yi_fmt_bytes(m->profiled, b2,
			    sizeof(b2)));
		if (i == YI_P_STACK_THREADS && m->proc.n_thread_stacks)
			yi_out_printf(o, "   (%u stacks)", m->proc.n_thread_stacks);
		if (i == YI_P_GLIBC && m->have_glibc && m->g_uordblks)
			yi_out_printf(o, "   (in use: %s)", yi_fmt_bytes((double)m->g_uordblks,
			    b2, sizeof(b2)));
		yi_out_putc(o, '\n');
	}
	if (!compact)
		yi_out_printf(o, "  %-34s %10s  100.0 %%\n", "total",
		    yi_fmt_bytes((double)rss, b1, sizeof(b1)));
	if (!m->have_jem)
		yi_out_printf(o, "jemalloc: not read (%s)\n", m->jem_error);
	if (!compact) {
		yi_out_printf(o, "not in RSS: jemalloc retained %s (mapped, not resident)"
		    ", swapped %s", yi_fmt_bytes((double)(m->have_jem ? m->retained : 0),
		    b1, sizeof(b1)), yi_fmt_bytes((double)m->proc.swap, b2, sizeof(b2)));
		if (m->not_resident)
			yi_out_printf(o, ", counted by jemalloc but not resident %s (%s)",
			    yi_fmt_bytes((double)m->not_resident, b3, sizeof(b3)), m->split ?
			    "pages of live objects or slabs never written; the resident "
			    "rest is split between live heap and fragmentation in "
			    "proportion" : "jemalloc's metadata count is a maximum: "
			    "taken off it");
		yi_out_putc(o, '\n');
		unsigned shown = 0;
		for (size_t i = 0; i < m->nclasses && shown < YI_MEM_NCLASSES; i++) {
			const yi_mem_class *c = &m->classes[i];
			uint64_t fr = c->slab_bytes - c->used_bytes;
			if (fr == 0)
				break;
			if (shown++ == 0)
				yi_out_puts(o, "fragmented size classes (free regions in "
				    "partly used slabs; sites are an estimate):\n");
			yi_out_printf(o, "  %6" PRIu64 " B  %10s free of %10s (%4.1f %%)",
			    c->size, yi_fmt_bytes((double)fr, b1, sizeof(b1)),
			    yi_fmt_bytes((double)c->slab_bytes, b2, sizeof(b2)),
			    yi_mem_pct(fr, c->slab_bytes));
			for (unsigned s = 0; s < c->nsites; s++)
				yi_out_printf(o, "%s%s %s", s ? ", " : "  held by ",
				    c->sites[s].name, yi_fmt_bytes(c->sites[s].bytes, b3,
				    sizeof(b3)));
			yi_out_putc(o, '\n');
		}
		for (unsigned i = 0; i < m->proc.n_files && i < 5; i++)
			yi_out_printf(o, "%s  %10s  %s%s\n", i ? "" : "largest files:\n",
			    yi_fmt_bytes((double)m->proc.files[i].rss, b1, sizeof(b1)),
			    m->proc.files[i].path, m->proc.files[i].code ? " (code)" : "");
	}
	for (unsigned i = 0; i < m->nadvice; i++)
		yi_out_printf(o, "%s  - %s\n", i ? "" : "advice:\n", m->advice[i].text);
	rc = yi_out_finish(o);
	yi_free(o);
	return rc;
}
