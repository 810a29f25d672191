/*
 * live_memory.c: where the RSS goes (ying_memory_*).
 *
 * The kernel's side (live_memory_proc.c) sorts every mapping of
 * /proc/PID/smaps into one field, so the fields sum to the RSS; jemalloc's
 * pages are among the anonymous ones, where nothing in smaps tells them
 * apart.  This file reads jemalloc's own counters (after an `epoch`):
 * allocated, active, resident, the dirty and muzzy pages of every arena,
 * the bytes held in thread caches, and for each small size class the
 * regions its current slabs hold and the ones in use; and glibc's
 * mallinfo2 for its mmapped chunks.  Then it carves the anonymous RSS:
 *
 *   jemalloc.live           allocated - tcache-held
 *   jemalloc.tcache         regions cached by threads (counted allocated)
 *   jemalloc.fragmentation  active - allocated: free regions of partly used
 *                           slabs (per class below) and slab tails
 *   jemalloc.dirty/.muzzy   unused pages waiting for decay
 *   jemalloc.metadata       resident - active - dirty: jemalloc's own
 *                           (the profiler's tables among them)
 *   glibc.heap              [heap] + glibc's arena heaps + its mmapped
 *                           chunks (mallinfo2 hblkhd)
 *   anon.other              what remains of the anonymous RSS
 *
 * jemalloc's resident count is a maximum (a page of a live object never
 * written is counted, not resident); when its parts exceed what is left
 * of the anonymous RSS, the excess is taken off the live heap and listed
 * apart as "jemalloc.not_resident", so that the parts still sum to the RSS.
 *
 * Size-class sites (an estimate): each stack of the profile has a mean
 * object size (bytes / objects); the smallest class holding it is taken as
 * the class of its objects, and a fragmented class lists the call sites
 * (innermost frame after trimming) with the most bytes in it.  Those are
 * the objects that keep the class's slabs partly used; which site's frees
 * made the holes is not recorded anywhere.  A stack mixing sizes lands in
 * the class of its mean.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "live.h"
#include "live_memory.h"
#include "live_ctl.h"
#include "model.h"

/* The parts' keys, names and groups (live_memory.h). */
const yi_mem_part_def yi_mem_parts[YI_P_N] = {
	{ "jemalloc.live", "live heap", "jemalloc" },
	{ "jemalloc.tcache", "thread caches", "jemalloc" },
	{ "jemalloc.fragmentation", "fragmentation", "jemalloc" },
	{ "jemalloc.dirty", "dirty pages", "jemalloc" },
	{ "jemalloc.muzzy", "muzzy pages", "jemalloc" },
	{ "jemalloc.metadata", "metadata", "jemalloc" },
	{ "glibc.heap", "glibc malloc heap", "glibc" },
	{ "stacks.main", "main thread's stack", "stacks" },
	{ "stacks.threads", "thread stacks", "stacks" },
	{ "files.code", "programs and libraries", "files" },
	{ "files.data", "file mappings", "files" },
	{ "shmem", "shared memory", "other" },
	{ "kernel", "kernel (vdso, vvar)", "other" },
	{ "anon.other", "other anonymous", "other" },
};

void
ying_memory_opts_init(ying_memory_opts *o)
{
	static const ying_memory_opts init = YING_MEMORY_OPTS_INIT;

	if (o != NULL)
		*o = init;
}

/* ---- jemalloc's counters ------------------------------------------------- */

/* The jemalloc read on this thread: NULL the control layer's primary
 * (yi_ctl_call), else another heap's mallctl (jem_read_heaps). */
static _Thread_local ying_mallctl_fn jem_fn;

static int
jem_call(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen,
    int *e)
{
	if (jem_fn == NULL)
		return yi_ctl_call(name, oldp, oldlenp, newp, newlen, e);
	*e = jem_fn(name, oldp, oldlenp, newp, newlen);
	return 0;
}

/* Read an unsigned node (size_t, uint64_t, or unsigned / uint32_t) into
 * *v; false when jemalloc has no such node or no jemalloc is there.
 * jemalloc answers a length that is not the node's with EINVAL, having
 * copied the value and set the length to the node's: a 4-byte node read
 * with 8 comes back that way. */
static bool
jem_num(const char *name, uint64_t *v)
{
	union { uint64_t u64; uint32_t u32; } u;
	size_t sz = sizeof(u.u64);
	int e = 0;

	memset(&u, 0, sizeof(u));
	if (jem_call(name, &u.u64, &sz, NULL, 0, &e) != 0)
		return false;
	/* 5.3 says the node's size; 5.1 (jemalloc-sys) says nothing: try 4 */
	if (e == EINVAL && sz != sizeof(uint32_t))
		sz = sizeof(uint32_t);
	if (e == EINVAL) {
		sz = sizeof(uint32_t);
		if (jem_call(name, &u.u32, &sz, NULL, 0, &e) != 0)
			return false;
	}
	if (e != 0 || (sz != sizeof(uint32_t) && sz != sizeof(uint64_t)))
		return false;
	*v = sz == sizeof(uint32_t) ? u.u32 : u.u64;
	return true;
}

static bool
jem_numf(uint64_t *v, const char *fmt, unsigned i)
{
	char name[96];

	snprintf(name, sizeof(name), fmt, i);
	return jem_num(name, v);
}

static bool
jem_ssize(const char *name, int64_t *v)
{
	ssize_t s = 0;
	size_t sz = sizeof(s);
	int e = 0;

	if (jem_call(name, &s, &sz, NULL, 0, &e) != 0 || e != 0)
		return false;
	*v = s;
	return true;
}

static bool
jem_bool(const char *name, bool *v)
{
	bool b = false;
	size_t sz = sizeof(b);
	int e = 0;

	if (jem_call(name, &b, &sz, NULL, 0, &e) != 0 || e != 0)
		return false;
	*v = b;
	return true;
}

/* 4096 is MALLCTL_ARENAS_ALL: the sum over every arena. */
#define ALL "stats.arenas.4096."

static int
jem_read_one(ying_memory *m)
{
	static const char *const tot[] = {
		"stats.allocated", "stats.active", "stats.resident",
		"stats.metadata", "stats.mapped", "stats.retained"
	};
	uint64_t *const dst[] = {
		&m->allocated, &m->active, &m->resident, &m->metadata, &m->mapped,
		&m->retained
	};
	uint64_t epoch = 1, nbins = 0, v = 0;
	const char *ver = NULL;
	size_t sz = sizeof(ver);
	int e = 0, rc;

	if ((rc = jem_call("version", &ver, &sz, NULL, 0, &e)) != 0 || e != 0) {
		snprintf(m->jem_error, sizeof(m->jem_error), "%s", rc != 0 ?
		    ying_last_error() : "mallctl(\"version\") failed");
		return 0;
	}
	snprintf(m->jem_version, sizeof(m->jem_version), "%s", ver ? ver : "");
	if (jem_call("epoch", NULL, NULL, &epoch, sizeof(epoch), &e) != 0 || e != 0) {
		snprintf(m->jem_error, sizeof(m->jem_error), "mallctl(\"epoch\") "
		    "failed: %s", strerror(e));
		return 0;
	}
	for (size_t i = 0; i < sizeof(tot) / sizeof(tot[0]); i++)
		if (!jem_num(tot[i], dst[i])) {
			snprintf(m->jem_error, sizeof(m->jem_error), "jemalloc %s was "
			    "built without statistics (%s is missing; configure "
			    "--enable-stats)", m->jem_version, tot[i]);
			return 0;
		}
	m->page = 4096;
	if (jem_num("arenas.page", &v) && v > 0)
		m->page = v;
	if (jem_num(ALL "pdirty", &v))
		m->dirty = v * m->page;
	if (jem_num(ALL "pmuzzy", &v))
		m->muzzy = v * m->page;
	if (jem_num(ALL "tcache_bytes", &v))
		m->tcache = v;
	if (jem_num(ALL "tcache_stashed_bytes", &v))
		m->tcache += v;
	if (jem_num("arenas.narenas", &v))
		m->narenas = (unsigned)v;
	if (!jem_bool("background_thread", &m->bg_thread))
		m->bg_thread = false;
	m->dirty_decay_ms = m->muzzy_decay_ms = -2;     /* -2: unknown */
	if (!jem_ssize("arenas.dirty_decay_ms", &m->dirty_decay_ms))
		(void)jem_ssize("opt.dirty_decay_ms", &m->dirty_decay_ms);
	if (!jem_ssize("arenas.muzzy_decay_ms", &m->muzzy_decay_ms))
		(void)jem_ssize("opt.muzzy_decay_ms", &m->muzzy_decay_ms);
	if (jem_num("arenas.nbins", &nbins) && nbins > 0 && nbins < 1024) {
		if ((m->classes = yi_calloc((size_t)nbins, sizeof(*m->classes))) == NULL)
			return yi_oom("the size classes of the memory breakdown");
		for (unsigned j = 0; j < nbins; j++) {
			uint64_t size = 0, nregs = 0, curregs = 0, curslabs = 0;
			if (!jem_numf(&size, "arenas.bin.%u.size", j) ||
			    !jem_numf(&nregs, "arenas.bin.%u.nregs", j) ||
			    !jem_numf(&curregs, ALL "bins.%u.curregs", j) ||
			    !jem_numf(&curslabs, ALL "bins.%u.curslabs", j))
				break;
			yi_mem_class *c = &m->classes[m->nclasses++];
			c->size = size;
			c->slab_bytes = curslabs * nregs * size;
			c->used_bytes = curregs * size;
			if (c->used_bytes > c->slab_bytes)   /* counters read apart */
				c->used_bytes = c->slab_bytes;
		}
	}
	m->have_jem = true;
	return 0;
}

/* Every heap of the process (yi_ctl_heaps: a Rust program's _rjem_
 * jemalloc and a preloaded libjemalloc for its C code) summed into m, the
 * primary's read first: the totals, the page states, the caches, the
 * arenas and the bins of each size class, so that each heap's part is
 * carved from the mappings.  Version, decay and the background thread stay
 * the primary's. */
static int
jem_read(ying_memory *m)
{
	yi_ctl_heap h[YI_CTL_MAX_HEAPS];
	ying_mallctl_fn primary;
	size_t n = 0;
	int rc;

	jem_fn = NULL;
	if ((rc = jem_read_one(m)) != 0 || !m->have_jem)
		return rc;
	primary = ying_ctl_mallctl();
	if (yi_ctl_heaps(h, &n) != 0) {
		yi_error_clear();
		return 0;
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		ying_memory t;
		if (h[i].fn == primary)
			continue;
		memset(&t, 0, sizeof(t));
		jem_fn = h[i].fn;
		rc = jem_read_one(&t);
		jem_fn = NULL;
		if (rc == 0 && t.have_jem) {
			m->allocated += t.allocated;
			m->active += t.active;
			m->resident += t.resident;
			m->metadata += t.metadata;
			m->mapped += t.mapped;
			m->retained += t.retained;
			m->dirty += t.dirty;
			m->muzzy += t.muzzy;
			m->tcache += t.tcache;
			m->narenas += t.narenas;
			for (size_t k = 0; k < t.nclasses && rc == 0; k++) {
				size_t c = 0;
				while (c < m->nclasses && m->classes[c].size != t.classes[k].size)
					c++;
				if (c == m->nclasses) {
					yi_mem_class *nc = yi_realloc(m->classes,
					    (m->nclasses + 1) * sizeof(*nc));
					if (nc == NULL) {
						rc = yi_oom("the size classes of the memory breakdown");
						break;
					}
					m->classes = nc;
					memset(&nc[c], 0, sizeof(nc[c]));
					nc[c].size = t.classes[k].size;
					m->nclasses++;
				}
				m->classes[c].slab_bytes += t.classes[k].slab_bytes;
				m->classes[c].used_bytes += t.classes[k].used_bytes;
			}
		}
		yi_free(t.classes);
	}
	return rc;
}

/* ---- glibc's malloc ------------------------------------------------------ */

static void
glibc_read(ying_memory *m)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
	/* glibc's own: jemalloc defines no mallinfo2, so under a preloaded
	 * libjemalloc this still describes glibc's (then idle) arenas. */
	struct mallinfo2 mi = mallinfo2();

	m->have_glibc = true;
	m->g_arena = mi.arena;
	m->g_hblkhd = mi.hblkhd;
	m->g_uordblks = mi.uordblks;
	m->g_fordblks = mi.fordblks;
#else
	(void)m;
#endif
}

/* ---- the parts ----------------------------------------------------------- */

static uint64_t
take(uint64_t *from, uint64_t want)
{
	uint64_t t = want < *from ? want : *from;

	*from -= t;
	return t;
}

static void
carve(ying_memory *m)
{
	const yi_mem_proc *pr = &m->proc;
	uint64_t anon = pr->anon_other;
	uint64_t *p = m->parts;

	p[YI_P_STACK_MAIN] = pr->main_stack;
	p[YI_P_STACK_THREADS] = pr->thread_stacks;
	p[YI_P_FILES_CODE] = pr->file_code;
	p[YI_P_FILES_DATA] = pr->file_data;
	p[YI_P_SHMEM] = pr->shmem;
	p[YI_P_KERNEL] = pr->kernel;
	p[YI_P_GLIBC] = pr->brk_heap + pr->glibc_arenas;
	if (m->have_glibc) {
		/* Resident arena memory cannot exceed what glibc got from the
		 * system (mallinfo2 arena): more means a mapping taken for an
		 * arena heap by its shape (64 MiB aligned) was another
		 * allocator's; the excess goes back to the anonymous rest. */
		if (pr->glibc_arenas > 0 && p[YI_P_GLIBC] > m->g_arena) {
			uint64_t x = p[YI_P_GLIBC] - m->g_arena;
			if (x > pr->glibc_arenas)
				x = pr->glibc_arenas;
			p[YI_P_GLIBC] -= x;
			anon += x;
		}
		/* its mmapped chunks are plain anonymous maps */
		p[YI_P_GLIBC] += take(&anon, m->g_hblkhd);
	}
	if (m->have_jem) {
		uint64_t frag = m->active > m->allocated ? m->active - m->allocated : 0;
		uint64_t tc = m->tcache < m->allocated ? m->tcache : m->allocated;
		uint64_t live = m->allocated - tc;
		uint64_t meta = m->resident > m->active + m->dirty ?
		    m->resident - m->active - m->dirty : 0;
		uint64_t want = live + tc + frag + m->dirty + m->muzzy + meta;

		/* Cached regions and unused dirty pages have been written:
		 * resident.  jemalloc's metadata count is a maximum (its base
		 * allocator counts pages it has not touched: an idle process
		 * claims 2.7 MB with 0.4 MB resident), and so are pages of live
		 * objects and slabs never written.  What jemalloc counts beyond
		 * the anonymous memory comes off metadata first; when even live +
		 * fragmentation do not fit, what is left is split between them
		 * in proportion (an estimate, flagged).  The excess is listed
		 * apart. */
		p[YI_P_TCACHE] = take(&anon, tc);
		p[YI_P_DIRTY] = take(&anon, m->dirty);
		p[YI_P_MUZZY] = take(&anon, m->muzzy);
		if (anon >= live + frag) {
			p[YI_P_FRAG] = take(&anon, frag);
			p[YI_P_LIVE] = take(&anon, live);
			p[YI_P_META] = take(&anon, meta);
		} else {
			uint64_t r = anon;
			p[YI_P_FRAG] = live + frag ? (uint64_t)((double)r * (double)frag /
			    (double)(live + frag)) : 0;
			p[YI_P_LIVE] = r - p[YI_P_FRAG];
			anon = 0;
			m->split = true;
		}
		m->not_resident = want - (p[YI_P_META] + p[YI_P_TCACHE] + p[YI_P_DIRTY] +
		    p[YI_P_MUZZY] + p[YI_P_FRAG] + p[YI_P_LIVE]);
	}
	p[YI_P_ANON] = anon;
}

/* ---- size classes and their sites ---------------------------------------- */

typedef struct site_key {
	uint32_t cls;
	uint32_t func;
	double bytes;
} site_key;

static int
cmp_site_key(const void *a, const void *b)
{
	const site_key *x = a, *y = b;

	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

static int
cmp_class_size(const void *a, const void *b)
{
	const yi_mem_class *x = a, *y = b;

	return x->size < y->size ? -1 : x->size > y->size;
}

static int
cmp_class_free(const void *a, const void *b)
{
	const yi_mem_class *x = a, *y = b;
	uint64_t fx = x->slab_bytes - x->used_bytes, fy = y->slab_bytes - y->used_bytes;

	if (fx != fy)
		return fx < fy ? 1 : -1;
	return x->size < y->size ? -1 : x->size > y->size;
}

/* The class of a mean object size: the smallest class size >= mean, in
 * classes still sorted by size; SIZE_MAX above the small classes. */
static size_t
class_of(const ying_memory *m, double mean)
{
	size_t lo = 0, hi = m->nclasses;

	if (m->nclasses == 0 || mean > (double)m->classes[m->nclasses - 1].size)
		return SIZE_MAX;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((double)m->classes[mid].size < mean)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
site_insert(yi_mem_class *c, const char *name, double bytes)
{
	unsigned i = c->nsites;

	if (i == YI_MEM_NSITES) {
		if (bytes <= c->sites[YI_MEM_NSITES - 1].bytes)
			return;
		i = YI_MEM_NSITES - 1;
	} else {
		c->nsites++;
	}
	while (i > 0 && c->sites[i - 1].bytes < bytes) {
		c->sites[i] = c->sites[i - 1];
		i--;
	}
	snprintf(c->sites[i].name, sizeof(c->sites[i].name), "%s", name);
	c->sites[i].bytes = bytes;
}

static int
sites_read(ying_memory *m, const ying_profile *p)
{
	yi_framevec fv = { NULL, 0, 0 };
	site_key *keys;
	size_t n = 0;
	double total = 0;

	for (size_t i = 0; i < p->stacks.n; i++)
		total += p->stacks.v[i].val[YING_INUSE_SPACE];
	m->have_profiled = true;
	m->profiled = total;
	if (m->nclasses == 0 || p->stacks.n == 0)
		return 0;
	if ((keys = yi_calloc(p->stacks.n, sizeof(*keys))) == NULL)
		return yi_oom("the size classes' call sites");
	for (size_t i = 0; i < p->stacks.n; i++) {
		const yi_stack *st = &p->stacks.v[i];
		double b = st->val[YING_INUSE_SPACE], o = st->val[YING_INUSE_OBJECTS];
		size_t c;
		long nf;

		if (b <= 0 || o <= 0 || (c = class_of(m, b / o)) == SIZE_MAX)
			continue;
		if ((nf = yi_stack_expand(p, st, &fv)) < 0) {
			yi_free(keys);
			yi_vec_free(&fv);
			return (int)nf;
		}
		keys[n].cls = (uint32_t)c;
		keys[n].func = nf > 0 ? fv.v[0].func : UINT32_MAX;
		keys[n].bytes = b;
		n++;
	}
	yi_vec_free(&fv);
	if (n > 1)
		qsort(keys, n, sizeof(*keys), cmp_site_key);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		double b = 0;
		while (j < n && keys[j].cls == keys[i].cls && keys[j].func == keys[i].func)
			b += keys[j++].bytes;
		site_insert(&m->classes[keys[i].cls], keys[i].func == UINT32_MAX ?
		    "[unknown]" : yi_profile_str(p, p->funcs.v[keys[i].func].show), b);
		i = j;
	}
	yi_free(keys);
	return 0;
}

/* ---- advice -------------------------------------------------------------- */

static void YI_PRINTF(3, 4)
advise(ying_memory *m, int part, const char *fmt, ...)
{
	va_list ap;

	if (m->nadvice == YI_MEM_NADVICE)
		return;
	va_start(ap, fmt);
	vsnprintf(m->advice[m->nadvice].text, sizeof(m->advice[0].text), fmt, ap);
	va_end(ap);
	m->advice[m->nadvice++].part = part;
}

/* A part worth a word: at least 16 MiB and 10 % of the RSS. */
static bool
large(const ying_memory *m, uint64_t b)
{
	return b >= 16 * YI_MEM_MIB && b * 10 >= m->proc.rss;
}

static void
advice_build(ying_memory *m)
{
	const uint64_t *p = m->parts;
	uint64_t rss = m->proc.rss;
	char b1[32], b2[32], b3[32];

	if (m->proc.cg_version && m->proc.cg_limit != UINT64_MAX && m->proc.cg_limit > 0 &&
	    m->proc.cg_usage * 10 >= m->proc.cg_limit * 8)
		advise(m, -1, "the cgroup %s uses %s of its %s limit (%.0f %%): the "
		    "OOM killer acts at the limit%s", m->proc.cg_path,
		    yi_fmt_bytes((double)m->proc.cg_usage, b1, sizeof(b1)),
		    yi_fmt_bytes((double)m->proc.cg_limit, b2, sizeof(b2)),
		    yi_mem_pct(m->proc.cg_usage, m->proc.cg_limit),
		    m->proc.cg_file != UINT64_MAX && m->proc.cg_file * 5 >= m->proc.cg_usage ?
		    " (its page cache, \"file\" in memory.stat, is reclaimed first)" : "");
	if (large(m, p[YI_P_DIRTY]))
		advise(m, YI_P_DIRTY, "%s of dirty pages (%.0f %% of RSS) and background_thread "
		    "%s: %s dirty_decay_ms (now %" PRId64 " ms%s)",
		    yi_fmt_bytes((double)p[YI_P_DIRTY], b1, sizeof(b1)), yi_mem_pct(p[YI_P_DIRTY], rss),
		    m->bg_thread ? "on" : "off", m->bg_thread ? "lower" :
		    "start with background_thread:true or lower", m->dirty_decay_ms,
		    m->dirty_decay_ms < 0 ? ": never purged" : "");
	if (large(m, p[YI_P_MUZZY]))
		advise(m, YI_P_MUZZY, "%s of muzzy pages (%.0f %% of RSS; MADV_FREE'd, "
		    "resident until the kernel needs them): lower muzzy_decay_ms (now "
		    "%" PRId64 " ms)", yi_fmt_bytes((double)p[YI_P_MUZZY], b1, sizeof(b1)),
		    yi_mem_pct(p[YI_P_MUZZY], rss), m->muzzy_decay_ms);
	if (large(m, p[YI_P_FRAG])) {
		const yi_mem_class *c = m->nclasses ? &m->classes[0] : NULL;
		uint64_t fr = c ? c->slab_bytes - c->used_bytes : 0;
		if (c && fr > 0)
			advise(m, YI_P_FRAG, "fragmentation %.0f %% of the %" PRIu64 "-byte class "
			    "(%s free in its slabs, %.0f %% of RSS)%s%s%s: objects of that "
			    "class freed out of order keep slabs partly used",
			    yi_mem_pct(fr, c->slab_bytes), c->size, yi_fmt_bytes((double)fr, b1,
			    sizeof(b1)), yi_mem_pct(fr, rss), c->nsites ? "; most held by " : "",
			    c->nsites ? c->sites[0].name : "", c->nsites ? " (estimate)" : "");
		else
			advise(m, YI_P_FRAG, "%s active in jemalloc but not allocated (%.0f %% "
			    "of RSS)", yi_fmt_bytes((double)p[YI_P_FRAG], b1, sizeof(b1)),
			    yi_mem_pct(p[YI_P_FRAG], rss));
	}
	if (large(m, p[YI_P_META]))
		advise(m, YI_P_META, "jemalloc's metadata holds %s (%.0f %% of RSS; %u "
		    "arenas): with prof:true the profiler's tables are part of it; a "
		    "larger lg_prof_sample samples fewer stacks",
		    yi_fmt_bytes((double)p[YI_P_META], b1, sizeof(b1)), yi_mem_pct(p[YI_P_META], rss),
		    m->narenas);
	if (large(m, p[YI_P_TCACHE]))
		advise(m, YI_P_TCACHE, "thread caches hold %s (%.0f %% of RSS): many "
		    "threads; a lower tcache_max (or tcache:false) caches less",
		    yi_fmt_bytes((double)p[YI_P_TCACHE], b1, sizeof(b1)), yi_mem_pct(p[YI_P_TCACHE], rss));
	if (large(m, p[YI_P_GLIBC]))
		advise(m, YI_P_GLIBC, "%s in glibc's heap (%.0f %% of RSS%s%s): C code "
		    "not using jemalloc, which the heap profile does not see%s",
		    yi_fmt_bytes((double)p[YI_P_GLIBC], b1, sizeof(b1)), yi_mem_pct(p[YI_P_GLIBC], rss),
		    m->proc.n_glibc_arenas ? ", " : "",
		    m->proc.n_glibc_arenas ? (snprintf(b2, sizeof(b2), "%u arenas",
		    m->proc.n_glibc_arenas + 1), b2) : "",
		    m->proc.n_glibc_arenas >= 4 ? "; MALLOC_ARENA_MAX=2 bounds glibc's "
		    "arenas" : "");
	if (large(m, p[YI_P_STACK_THREADS]))
		advise(m, YI_P_STACK_THREADS, "%u thread stacks hold %s (%.0f %% of RSS, %s "
		    "each on average): fewer threads, or less stack per thread",
		    m->proc.n_thread_stacks, yi_fmt_bytes((double)p[YI_P_STACK_THREADS], b1,
		    sizeof(b1)), yi_mem_pct(p[YI_P_STACK_THREADS], rss),
		    yi_fmt_bytes((double)p[YI_P_STACK_THREADS] /
		    (m->proc.n_thread_stacks ? m->proc.n_thread_stacks : 1), b3, sizeof(b3)));
	if (large(m, p[YI_P_FILES_DATA]))
		advise(m, YI_P_FILES_DATA, "%s of file mappings are resident (%.0f %% of "
		    "RSS%s%s): page cache the kernel can take back, counted in RSS",
		    yi_fmt_bytes((double)p[YI_P_FILES_DATA], b1, sizeof(b1)),
		    yi_mem_pct(p[YI_P_FILES_DATA], rss), m->proc.n_files ? "; largest " : "",
		    m->proc.n_files ? m->proc.files[0].path : "");
	if (large(m, p[YI_P_ANON]))
		advise(m, YI_P_ANON, "%s of anonymous memory no allocator here accounts for "
		    "(%.0f %% of RSS): mmap by the program or a library, a second "
		    "allocator%s", yi_fmt_bytes((double)p[YI_P_ANON], b1, sizeof(b1)),
		    yi_mem_pct(p[YI_P_ANON], rss), m->have_jem ? "" : ", or a jemalloc the agent "
		    "cannot read");
}

/* ---- the breakdown ------------------------------------------------------- */

int
ying_memory_get(ying_memory **out, const ying_memory_opts *o)
{
	ying_memory_opts def = YING_MEMORY_OPTS_INIT;
	struct timespec t0, t1;
	ying_memory *m;
	volatile char here = 0;
	int rc;

	yi_error_clear();
	if (out == NULL)
		return yi_error(YING_EINVAL, "ying_memory_get: out is NULL");
	*out = NULL;
	if (o == NULL)
		o = &def;
	if (o->version != YING_MEMORY_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_memory_opts: version %d, expected %d "
		    "(use ying_memory_opts_init)", o->version, YING_MEMORY_OPTS_VERSION);
	if (o->pid < 0)
		return yi_error(YING_EINVAL, "ying_memory_opts: pid %ld", o->pid);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((m = yi_calloc(1, sizeof(*m))) == NULL)
		return yi_oom("the memory breakdown");
	m->pid = o->pid ? o->pid : (long)getpid();
	/* jemalloc first: its epoch and smaps as close together as can be */
	if (o->pid == 0 || o->pid == (long)getpid()) {
		/* the epoch and its ~150 reads as one snapshot (the memory
		 * history samples every second from the HTTP listener) */
		yi_ctl_stats_lock();
		rc = jem_read(m);
		yi_ctl_stats_unlock();
		if (rc != 0)
			goto fail;
		glibc_read(m);
	} else {
		snprintf(m->jem_error, sizeof(m->jem_error), "another process's "
		    "(pid %ld) jemalloc can only be read in it: ask its endpoint", o->pid);
	}
	if ((rc = yi_mem_proc_read(&m->proc, o->proc_root, o->cgroup_root,
	    (pid_t)m->pid, o->pid == 0 || o->pid == (long)getpid() ?
	    (uintptr_t)&here : 0)) != 0)
		goto fail;
	/* A chunk glibc mmapped may have been unmapped while smaps was read
	 * (another thread of the agent symbolizing, in a process where it
	 * allocates through glibc): only what was there before and after
	 * is taken from the anonymous memory. */
	if (m->have_glibc) {
		uint64_t before = m->g_hblkhd;
		glibc_read(m);
		if (before < m->g_hblkhd)
			m->g_hblkhd = before;
	}
	carve(m);
	/* sites_read finds a class by size: a second heap's classes were
	 * appended after the first's */
	if (m->nclasses > 1)
		qsort(m->classes, m->nclasses, sizeof(*m->classes), cmp_class_size);
	if (o->profile != NULL && m->have_jem && (rc = sites_read(m, o->profile)) != 0)
		goto fail;
	if (m->nclasses > 1)     /* classes may be NULL: no jemalloc */
		qsort(m->classes, m->nclasses, sizeof(*m->classes), cmp_class_free);
	advice_build(m);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	m->elapsed_us = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000 +
	    (t1.tv_nsec - t0.tv_nsec) / 1000);
	*out = m;
	return 0;
fail:
	ying_memory_free(m);
	return rc;
}

int
ying_memory_set_profile(ying_memory *m, const ying_profile *p)
{
	int rc;

	yi_error_clear();
	if (m == NULL || p == NULL)
		return yi_error(YING_EINVAL, "ying_memory_set_profile: NULL argument");
	if (!m->have_jem)
		return 0;
	for (size_t i = 0; i < m->nclasses; i++)
		m->classes[i].nsites = 0;
	if (m->nclasses > 1)
		qsort(m->classes, m->nclasses, sizeof(*m->classes), cmp_class_size);
	rc = sites_read(m, p);
	if (m->nclasses > 1)
		qsort(m->classes, m->nclasses, sizeof(*m->classes), cmp_class_free);
	m->nadvice = 0;
	advice_build(m);
	return rc;
}

uint64_t
ying_memory_rss(const ying_memory *m)
{
	return m ? m->proc.rss : 0;
}

void
ying_memory_free(ying_memory *m)
{
	if (m == NULL)
		return;
	yi_free(m->classes);
	yi_free(m);
}

