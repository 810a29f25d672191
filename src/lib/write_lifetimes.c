/*
 * write_lifetimes.c: `ying lifetimes`, the recent-allocation records of a
 * ying_recent grouped by call site (the alloc stack's first frame after
 * allocator trimming, or the whole stack), each with a histogram of
 * lifetimes (free time minus alloc time) in decades from < 1 ms to
 * >= 100 s, plus the records still live at capture: short-lived churn
 * against long-lived memory.  Text (or JSON) and a self-contained SVG,
 * both from one grouping pass; names are escaped for their medium.
 */
#include <stdlib.h>

#include "read.h"
#include "write.h"

#define NB 8
static const char *const bucket_names[NB] = {
	"<1ms", "<10ms", "<100ms", "<1s", "<10s", "<100s", ">=100s", "live"
};
/* short-lived red through long-lived blue; live grey */
static const char *const bucket_colors[NB] = {
	"#d73027", "#f46d43", "#fdae61", "#fee090", "#abd9e9", "#74add1",
	"#4575b4", "#999999"
};

typedef struct lt_group {
	uint64_t key;
	char *name;
	uint64_t count[NB], bytes[NB];
	uint64_t total_count, total_bytes;
} lt_group;

typedef struct lt {
	YI_VEC(lt_group) g;
	size_t records, live;
} lt;

static int
bucket_of(const yi_recent_rec *r)
{
	uint64_t d, lim = 1000000;      /* 1 ms in ns */
	int b;

	if (!r->released)
		return NB - 1;
	d = r->fns > r->ans ? r->fns - r->ans : 0;
	for (b = 0; b < NB - 2; b++, lim *= 10)
		if (d < lim)
			return b;
	return NB - 2;
}

/* The group name: the call site, or the stack leaf first joined by " <- ". */
static char *
group_name(const ying_profile *p, const yi_frame *fr, long n, bool stacks)
{
	ying_membuf b = YING_MEMBUF_INIT;
	long lim = stacks ? (n < 16 ? n : 16) : 1;

	for (long i = 0; i < lim; i++) {
		const char *s = yi_profile_str(p, p->funcs.v[fr[i].func].show);
		if ((i && ying_write_membuf(&b, " <- ", 4) != 0) ||
		    ying_write_membuf(&b, s, strlen(s)) != 0) {
			ying_membuf_release(&b);
			return NULL;
		}
	}
	if (stacks && n > lim && ying_write_membuf(&b, " <- ...", 7) != 0) {
		ying_membuf_release(&b);
		return NULL;
	}
	if (b.data == NULL && ying_write_membuf(&b, "", 0) != 0)
		return NULL;
	return b.data;
}

static int
cmp_group(const void *a, const void *b)
{
	const lt_group *x = a, *y = b;

	if (x->total_bytes != y->total_bytes)
		return x->total_bytes > y->total_bytes ? -1 : 1;
	if (x->total_count != y->total_count)
		return x->total_count > y->total_count ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void
lt_release(lt *t)
{
	for (size_t i = 0; i < t->g.n; i++)
		yi_free(t->g.v[i].name);
	yi_vec_free(&t->g);
}

static int
lt_build(lt *t, const ying_recent *r, bool stacks)
{
	const ying_profile *p = r->prof;
	yi_framevec fr = { NULL, 0, 0 };
	yi_map64 by;
	int rc;

	memset(t, 0, sizeof(*t));
	if ((rc = yi_map64_init(&by, 64)) != 0)
		return rc;
	for (size_t i = 0; i < r->recs.n && rc == 0; i++) {
		const yi_recent_rec *rec = &r->recs.v[i];
		uint32_t *slot;
		bool added;
		uint64_t key;
		long n;
		lt_group *g;
		int b;

		if (rec->astack < 0 || (size_t)rec->astack >= p->stacks.n)
			continue;
		if ((n = yi_stack_expand(p, &p->stacks.v[rec->astack], &fr)) < 0) {
			rc = (int)n;
			break;
		}
		key = stacks ? (uint64_t)rec->astack : fr.v[0].func;
		if ((rc = yi_map64_put(&by, key, (uint32_t)t->g.n, &slot, &added)) != 0)
			break;
		if (added) {
			if ((rc = yi_vec_grow(&t->g, 1)) != 0)
				break;
			g = &t->g.v[t->g.n];
			memset(g, 0, sizeof(*g));
			g->key = key;
			if ((g->name = group_name(p, fr.v, n, stacks)) == NULL) {
				rc = yi_oom("naming a call site");
				break;
			}
			t->g.n++;
		}
		g = &t->g.v[*slot];
		b = bucket_of(rec);
		g->count[b]++;
		g->bytes[b] += rec->usize;
		g->total_count++;
		g->total_bytes += rec->usize;
		t->records++;
		if (!rec->released)
			t->live++;
	}
	yi_map64_release(&by);
	yi_vec_free(&fr);
	if (rc != 0) {
		lt_release(t);
		return rc;
	}
	if (t->g.n > 1)
		qsort(t->g.v, t->g.n, sizeof(lt_group), cmp_group);
	return 0;
}

static int
check_args(const ying_recent *r, const ying_lifetimes_opts **opts, ying_write_fn fn)
{
	static const ying_lifetimes_opts defaults = YING_LIFETIMES_OPTS_INIT;

	if (r == NULL || fn == NULL)
		return yi_error(YING_EINVAL, "lifetimes: recent records or sink is NULL");
	if (*opts == NULL)
		*opts = &defaults;
	else if ((*opts)->version < 1 || (*opts)->version > YING_LIFETIMES_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_lifetimes_opts: unknown version %d",
		    (*opts)->version);
	return 0;
}

/* What both writers start with: the arguments checked (*opts defaulted),
 * the table *t built, an output *o on fn and the number of rows *top
 * (--top, default 20, at most the groups).  On success lt_end releases t
 * and frees o; on failure there is nothing to free. */
static int
lt_begin(const ying_recent *r, const ying_lifetimes_opts **opts, ying_write_fn fn,
    void *opaque, lt *t, yi_out **o, size_t *top)
{
	int rc;

	yi_error_clear();
	if ((rc = check_args(r, opts, fn)) != 0)
		return rc;
	if ((rc = lt_build(t, r, (*opts)->stacks != 0)) != 0)
		return rc;
	if ((*o = yi_malloc(sizeof(**o))) == NULL) {
		lt_release(t);
		return yi_oom("writing lifetimes");
	}
	yi_out_init(*o, fn, opaque);
	*top = (*opts)->top ? (*opts)->top : 20;
	if (*top > t->g.n)
		*top = t->g.n;
	return 0;
}

/* Flush o (its first error is the result), free it and release t. */
static int
lt_end(lt *t, yi_out *o)
{
	int rc = yi_out_finish(o);

	yi_free(o);
	lt_release(t);
	return rc;
}

int
ying_recent_write_lifetimes(const ying_recent *r, const ying_lifetimes_opts *opts,
    ying_write_fn fn, void *opaque)
{
	lt t;
	yi_out *o;
	size_t top;
	char b1[32];
	int rc;

	if ((rc = lt_begin(r, &opts, fn, opaque, &t, &o, &top)) != 0)
		return rc;
	if (opts->json) {
		yi_out_printf(o, "{\"records\":%zu,\"live\":%zu,\"buckets\":[", t.records, t.live);
		for (int b = 0; b < NB; b++)
			yi_out_printf(o, "%s\"%s\"", b ? "," : "", bucket_names[b]);
		yi_out_printf(o, "],\"%s\":[", opts->stacks ? "stacks" : "sites");
		for (size_t i = 0; i < top; i++) {
			const lt_group *g = &t.g.v[i];
			yi_out_puts(o, i ? ",{\"name\":" : "{\"name\":");
			yi_out_json_str(o, g->name);
			yi_out_printf(o, ",\"count\":%llu,\"bytes\":%llu,\"counts\":[",
			    (unsigned long long)g->total_count, (unsigned long long)g->total_bytes);
			for (int b = 0; b < NB; b++)
				yi_out_printf(o, "%s%llu", b ? "," : "", (unsigned long long)g->count[b]);
			yi_out_puts(o, "],\"bucket_bytes\":[");
			for (int b = 0; b < NB; b++)
				yi_out_printf(o, "%s%llu", b ? "," : "", (unsigned long long)g->bytes[b]);
			yi_out_puts(o, "]}");
		}
		yi_out_puts(o, "]}\n");
	} else {
		yi_out_printf(o, "Lifetimes of %zu recent allocation%s (%zu still live), "
		    "per %s, by bytes; columns count allocations by lifetime\n",
		    t.records, t.records == 1 ? "" : "s", t.live,
		    opts->stacks ? "allocation stack" : "call site");
		yi_out_printf(o, "%8s %10s", "allocs", "bytes");
		for (int b = 0; b < NB; b++)
			yi_out_printf(o, " %7s", bucket_names[b]);
		yi_out_puts(o, opts->stacks ? "  allocation stack\n" : "  call site\n");
		for (size_t i = 0; i < top; i++) {
			const lt_group *g = &t.g.v[i];
			yi_out_printf(o, "%8llu %10s", (unsigned long long)g->total_count,
			    yi_fmt_bytes((double)g->total_bytes, b1, sizeof(b1)));
			for (int b = 0; b < NB; b++)
				yi_out_printf(o, " %7llu", (unsigned long long)g->count[b]);
			yi_out_puts(o, "  ");
			yi_out_text(o, g->name);
			yi_out_putc(o, '\n');
		}
		if (t.g.n > top)
			yi_out_printf(o, "(%zu more; --top N shows more)\n", t.g.n - top);
	}
	return lt_end(&t, o);
}

int
ying_recent_write_lifetimes_svg(const ying_recent *r, const ying_lifetimes_opts *opts,
    ying_write_fn fn, void *opaque)
{
	const double row = 22, top_y = 70, label_w = 360;
	lt t;
	yi_out *o;
	size_t top;
	uint64_t maxb = 1;
	unsigned w;
	double bar_w, y;
	char b1[32];
	int rc;

	if ((rc = lt_begin(r, &opts, fn, opaque, &t, &o, &top)) != 0)
		return rc;
	w = opts->width ? opts->width : 1200;
	if (w < 600)
		w = 600;
	bar_w = w - label_w - 20;
	for (size_t i = 0; i < top; i++)
		if (t.g.v[i].total_bytes > maxb)
			maxb = t.g.v[i].total_bytes;
	yi_out_printf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%.0f\" "
	    "viewBox=\"0 0 %u %.0f\" font-family=\"monospace\" font-size=\"12\">\n",
	    w, top_y + row * (double)top + 20, w, top_y + row * (double)top + 20);
	yi_out_printf(o, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
	    "<text x=\"10\" y=\"20\" font-size=\"16\">");
	yi_out_xml(o, opts->title ? opts->title : "Allocation lifetimes per call site");
	yi_out_printf(o, "</text>\n<text x=\"10\" y=\"38\">%zu recent allocations, %zu still "
	    "live; bar length = bytes, segments = lifetime</text>\n", t.records, t.live);
	for (int b = 0; b < NB; b++) {
		double x = 10 + b * 80.0;
		yi_out_printf(o, "<rect x=\"%.0f\" y=\"46\" width=\"12\" height=\"12\" "
		    "fill=\"%s\"/><text x=\"%.0f\" y=\"57\">", x, bucket_colors[b], x + 16);
		yi_out_xml(o, bucket_names[b]);
		yi_out_puts(o, "</text>\n");
	}
	y = top_y;
	for (size_t i = 0; i < top; i++, y += row) {
		const lt_group *g = &t.g.v[i];
		double x = label_w;
		yi_out_printf(o, "<g class=\"site\"><text x=\"10\" y=\"%.0f\">", y + 15);
		{
			/* at most 48 characters of the name (whole UTF-8 sequences) */
			size_t k = 0, chars = 0, n = strlen(g->name);
			char *cut;
			while (k < n && chars < 48) {
				size_t l = yi_utf8_len((const unsigned char *)g->name + k);
				k += l ? l : 1;
				chars++;
			}
			if ((cut = yi_strndup(g->name, k)) == NULL) {
				o->err = o->err ? o->err : YING_ENOMEM;
			} else {
				yi_out_xml(o, cut);
				yi_free(cut);
			}
			if (k < n)
				yi_out_puts(o, "...");
		}
		yi_out_printf(o, "<title>");
		yi_out_xml(o, g->name);
		yi_out_printf(o, ": %llu allocations, %s</title></text>\n",
		    (unsigned long long)g->total_count,
		    yi_fmt_bytes((double)g->total_bytes, b1, sizeof(b1)));
		for (int b = 0; b < NB; b++) {
			double sw;
			if (g->count[b] == 0)
				continue;
			sw = bar_w * (double)g->bytes[b] / (double)maxb;
			if (sw < 1)
				sw = 1;
			yi_out_printf(o, "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%.0f\" "
			    "fill=\"%s\"><title>", x, y + 3, sw, row - 6, bucket_colors[b]);
			yi_out_xml(o, g->name);
			yi_out_putc(o, ' ');
			yi_out_xml(o, bucket_names[b]);
			yi_out_printf(o, ": %llu allocations, %s</title></rect>\n",
			    (unsigned long long)g->count[b],
			    yi_fmt_bytes((double)g->bytes[b], b1, sizeof(b1)));
			x += sw;
		}
		yi_out_puts(o, "</g>\n");
	}
	yi_out_puts(o, "</svg>\n");
	return lt_end(&t, o);
}
