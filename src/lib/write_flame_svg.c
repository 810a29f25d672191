/*
 * write_flame_svg.c: a flame graph tree rendered as one self-contained
 * interactive SVG file (yi_flame_write_svg), and the public plain flame
 * graph of one profile (ying_profile_write_svg).
 *
 * The SVG is plain markup that renders without a script: one
 * <g><title/><rect/><text/></g> per frame, in depth-first order, then the
 * style sheet and the script of write_flame_js.h for hover, zoom and
 * search.  Frames narrower than min_width pixels are not written (nor
 * anything beneath them), which bounds the file: at most width/min_width
 * frames per level.  Children are laid out in byte order of their names
 * and colours are a hash of the name, so the output is a function of the
 * input alone.
 */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "write_flame.h"
#include "write_flame_js.h"

/* ---- layout -------------------------------------------------------------- */

typedef struct fvis {
	uint32_t node, depth;
	double x;               /* left edge in value units */
} fvis;

typedef YI_VEC(fvis) fvisvec;

typedef struct fkid {
	const char *name;
	uint32_t node;
} fkid;

static int
kid_cmp(const void *a, const void *b)
{
	return strcmp(((const fkid *)a)->name, ((const fkid *)b)->name);
}

/* Depth-first, children in name order; only frames at least min_px wide. */
static int
layout(yi_flame *f, double scale, double min_px, fvisvec *vis,
    uint32_t *maxdepth)
{
	YI_VEC(fvis) todo = { NULL, 0, 0 };
	YI_VEC(fkid) kids = { NULL, 0, 0 };
	int rc = 0;

	*maxdepth = 0;
	if ((rc = yi_vec_grow(&todo, 1)) != 0)
		return rc;
	todo.v[todo.n].node = 0;
	todo.v[todo.n].depth = 0;
	todo.v[todo.n].x = 0;
	todo.n++;
	while (todo.n) {
		fvis e = todo.v[--todo.n];
		uint32_t c;
		size_t k;

		if ((rc = yi_vec_grow(vis, 1)) != 0)
			goto out;
		vis->v[vis->n++] = e;
		if (e.depth > *maxdepth)
			*maxdepth = e.depth;
		kids.n = 0;
		for (c = f->nodes.v[e.node].child; c != NONE; c = f->nodes.v[c].sibling) {
			if ((rc = yi_vec_grow(&kids, 1)) != 0)
				goto out;
			kids.v[kids.n].name = yi_strtab_get(&f->strs, f->nodes.v[c].name);
			kids.v[kids.n].node = c;
			kids.n++;
		}
		if (kids.n > 1)
			qsort(kids.v, kids.n, sizeof(*kids.v), kid_cmp);
		/* x of each kid, then push the wide ones last-first so that they
		 * are visited in name order */
		if ((rc = yi_vec_grow(&todo, kids.n)) != 0)
			goto out;
		{
			size_t base = todo.n, m = 0;
			double xs = e.x;
			for (k = 0; k < kids.n; k++) {
				const fnode *nd = &f->nodes.v[kids.v[k].node];
				if (nd->value * scale >= min_px) {
					todo.v[base + m].node = kids.v[k].node;
					todo.v[base + m].depth = e.depth + 1;
					todo.v[base + m].x = xs;
					m++;
				}
				xs += nd->value;
			}
			/* reverse the pushed run so the first kid pops first */
			for (k = 0; k < m / 2; k++) {
				fvis t = todo.v[base + k];
				todo.v[base + k] = todo.v[base + m - 1 - k];
				todo.v[base + m - 1 - k] = t;
			}
			todo.n = base + m;
		}
	}
out:
	yi_vec_free(&todo);
	yi_vec_free(&kids);
	return rc;
}

/* ---- colours -------------------------------------------------------------- */

static void
hsl_rgb(double h, double s, double l, unsigned rgb[3])
{
	double c = (1 - fabs(2 * l - 1)) * s, hp = fmod(h, 360.0) / 60.0;
	double x = c * (1 - fabs(fmod(hp, 2.0) - 1)), m = l - c / 2, r = 0, g = 0, b = 0;

	if (hp < 1) { r = c; g = x; }
	else if (hp < 2) { r = x; g = c; }
	else if (hp < 3) { g = c; b = x; }
	else if (hp < 4) { g = x; b = c; }
	else if (hp < 5) { r = x; b = c; }
	else { r = c; b = x; }
	rgb[0] = (unsigned)lround((r + m) * 255);
	rgb[1] = (unsigned)lround((g + m) * 255);
	rgb[2] = (unsigned)lround((b + m) * 255);
}

/* A memory palette (greens to blues) chosen by a hash of the name only, so
 * a function has the same colour in every graph.  Unsymbolized frames
 * ("[unknown]", "module+0x...", "0x...") are grey. */
static void
name_colour(const char *name, bool root, unsigned rgb[3])
{
	uint64_t h = yi_hash_bytes(name, strlen(name), 0x79696e67);
	double a = (double)(h & 0xffff) / 65535.0;
	double b = (double)((h >> 16) & 0xffff) / 65535.0;
	double c = (double)((h >> 32) & 0xffff) / 65535.0;

	if (root) {
		rgb[0] = 0xb4; rgb[1] = 0xc4; rgb[2] = 0xb8;
	} else if (name[0] == '[' || strncmp(name, "0x", 2) == 0 || strstr(name, "+0x") != NULL) {
		unsigned g = 170 + (unsigned)(a * 40);
		rgb[0] = g; rgb[1] = g; rgb[2] = g + 6;
	} else {
		hsl_rgb(95.0 + 115.0 * a, 0.36 + 0.26 * b, 0.54 + 0.13 * c, rgb);
	}
}

/* Differential colour: red grew, blue shrank, light grey unchanged; intensity is
 * the relative change (capped at 100 %; new frames are full red). */
static void
diff_colour(double value, double base, unsigned rgb[3])
{
	double d = value - base, t, k;

	if (base > 0)
		t = fabs(d) / base;
	else
		t = value > 0 ? 1 : 0;
	if (t > 1)
		t = 1;
	if (d == 0)
		t = 0;
	k = sqrt(t);   /* small changes stay visible */
	if (d >= 0) {
		rgb[0] = 236 - (unsigned)lround(16 * k);
		rgb[1] = rgb[2] = 236 - (unsigned)lround(186 * k);
	} else {
		rgb[2] = 236 - (unsigned)lround(6 * k);
		rgb[0] = rgb[1] = 236 - (unsigned)lround(166 * k);
	}
}

/* ---- writing ---------------------------------------------------------------- */

/* Write at most `max` characters of s (UTF-8), "..": truncated, "" if
 * fewer than three fit. */
static void
put_label(yi_out *o, yi_flame *f, const char *s, double w)
{
	long max = (long)floor((w - 6) / CHAR_W);
	size_t chars = 0, i, cut = 0, cut2 = 0;

	if (max < 3)
		return;
	for (i = 0; s[i]; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80) {
			if ((long)chars == max - 2)
				cut2 = i;
			if ((long)chars == max) {
				cut = i;
				break;
			}
			chars++;
		}
	}
	if (!s[i] || cut == 0) {
		yi_out_xml(o, s);
		return;
	}
	f->tmp.n = 0;
	if (yi_vec_grow(&f->tmp, cut2 + 3) != 0) {
		if (o->err == 0)
			o->err = yi_oom("writing a flame graph");
		return;
	}
	memcpy(f->tmp.v, s, cut2);
	memcpy(f->tmp.v + cut2, "..", 3);
	yi_out_xml(o, f->tmp.v);
}

static void
put_value(yi_out *o, double v, ying_sample_index idx)
{
	char buf[64];

	yi_out_puts(o, yi_fmt_value(v, idx, buf, sizeof(buf)));
	if (!yi_index_is_bytes(idx))
		yi_out_puts(o, v == 1 ? " object" : " objects");
}

static void
put_pct(yi_out *o, double part, double total)
{
	yi_out_printf(o, "%.2f%%", total > 0 ? 100.0 * part / total : 0.0);
}

static void
write_frame(yi_out *o, yi_flame *f, const fvis *e, double scale, double total,
    double y0, double dy, const yi_flame_meta *meta)
{
	const fnode *nd = &f->nodes.v[e->node];
	const char *name = yi_strtab_get(&f->strs, nd->name);
	double x = PAD + e->x * scale, w = nd->value * scale;
	double y = y0 + dy * e->depth;
	uint32_t file, line;
	uint8_t inl;
	unsigned rgb[3];

	yi_best_variant(f, nd, &file, &line, &inl);
	if (meta->diff)
		diff_colour(nd->value, nd->base, rgb);
	else
		name_colour(name, e->node == 0, rgb);

	yi_out_puts(o, "<g><title>");
	/* the label is the short name; hovering shows the whole one */
	yi_out_xml(o, yi_strtab_get(&f->strs, yi_flame_full(f, nd->name)));
	yi_out_putc(o, '\n');
	if (file && *yi_strtab_get(&f->strs, file)) {
		yi_out_xml(o, yi_strtab_get(&f->strs, file));
		if (line)
			yi_out_printf(o, ":%u", line);
		if (inl)
			yi_out_puts(o, " (inlined)");
		yi_out_putc(o, '\n');
	} else if (inl) {
		yi_out_puts(o, "(inlined)\n");
	}
	if (meta->diff) {
		double d = nd->value - nd->base;
		char buf[64];
		yi_out_puts(o, "now ");
		put_value(o, nd->value, meta->idx);
		yi_out_puts(o, " (");
		put_pct(o, nd->value, total);
		yi_out_puts(o, "), base ");
		put_value(o, nd->base, meta->idx);
		yi_out_puts(o, ", ");
		yi_out_puts(o, d > 0 ? "+" : "");
		yi_out_puts(o, yi_fmt_value(d, meta->idx, buf, sizeof(buf)));
		if (nd->var > 0) {   /* its 95 % interval (model_noise.c) */
			yi_out_puts(o, " \xc2\xb1");
			yi_out_puts(o, yi_fmt_value(YI_Z95 * sqrt(nd->var), meta->idx, buf, sizeof(buf)));
		}
		if (nd->base > 0)
			yi_out_printf(o, " (%+.1f%%)", 100.0 * d / nd->base);
		else
			yi_out_puts(o, " (new)");
		if (nd->var > 0 && !yi_interval(d, nd->var, NULL, NULL))
			yi_out_puts(o, ", within sampling noise");
	} else {
		put_value(o, nd->value, meta->idx);
		yi_out_puts(o, " (");
		put_pct(o, nd->value, total);
		yi_out_puts(o, ")");
	}
	yi_out_printf(o, "</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" "
	    "fill=\"#%02x%02x%02x\"/>", x, y, w, FRAME_H - 1, rgb[0], rgb[1], rgb[2]);
	if (w >= 3 * CHAR_W + 6) {
		yi_out_printf(o, "<text x=\"%.2f\" y=\"%.0f\">", x + 3, y + FRAME_H - 5);
		put_label(o, f, name, w);
		yi_out_puts(o, "</text>");
	}
	yi_out_puts(o, "</g>\n");
}

int
yi_flame_write_svg(yi_flame *f, const ying_svg_opts *opts,
    const yi_flame_meta *meta, yi_out *o)
{
	ying_svg_opts def = YING_SVG_OPTS_INIT;
	fvisvec vis = { NULL, 0, 0 };
	double width, min_px, inner, total, scale, y0, dy, height;
	uint32_t maxdepth = 0;
	size_t i;
	int rc;

	if (f == NULL || meta == NULL || o == NULL)
		return yi_error(YING_EINVAL, "yi_flame_write_svg: missing argument");
	if (opts == NULL)
		opts = &def;
	if (opts->version != YING_SVG_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_svg_opts version %d unsupported", opts->version);
	width = opts->width ? (double)opts->width : 1200.0;
	if (width < 200 || width > 100000)
		return yi_error(YING_EINVAL, "flame graph width %u is out of range (200..100000)",
		    opts->width);
	min_px = opts->min_width == 0 ? 0.1 : opts->min_width;
	if (!isfinite(min_px) || min_px < 0 || min_px > width)
		return yi_error(YING_EINVAL, "flame graph min_width %g is out of range",
		    opts->min_width);
	if ((unsigned)meta->idx > 3)
		return yi_error(YING_EINVAL, "invalid sample index %d", (int)meta->idx);

	inner = width - 2 * PAD;
	total = f->nodes.v[0].value;
	scale = total > 0 ? inner / total : 0;
	if (total > 0 && (rc = layout(f, scale, min_px, &vis, &maxdepth)) != 0) {
		yi_vec_free(&vis);
		return rc;
	}
	height = TOP + (double)(maxdepth + 1) * FRAME_H + BOTTOM;
	if (opts->icicle) {
		y0 = TOP;
		dy = FRAME_H;
	} else {
		y0 = TOP + (double)maxdepth * FRAME_H;
		dy = -FRAME_H;
	}

	yi_out_puts(o, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
	yi_out_printf(o, "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
	    "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
	    width, height, width, height);
	yi_out_puts(o, "<style type=\"text/css\"><![CDATA[\n");
	yi_out_puts(o, yi_flame_css);
	yi_out_puts(o, "]]></style>\n<defs><linearGradient id=\"bg\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">");
	if (meta->diff)
		yi_out_puts(o, "<stop offset=\"0\" stop-color=\"#ffffff\"/>"
		    "<stop offset=\"1\" stop-color=\"#f3f3f6\"/>");
	else
		yi_out_puts(o, "<stop offset=\"0\" stop-color=\"#f2f8f2\"/>"
		    "<stop offset=\"1\" stop-color=\"#dfeaf0\"/>");
	yi_out_puts(o, "</linearGradient>");
	if (meta->diff) {
		unsigned lo[3], hi[3];
		diff_colour(0, 1, lo);
		diff_colour(2, 1, hi);
		yi_out_printf(o, "<linearGradient id=\"legend\"><stop offset=\"0\" "
		    "stop-color=\"#%02x%02x%02x\"/><stop offset=\"0.5\" stop-color=\"#ececec\"/>"
		    "<stop offset=\"1\" stop-color=\"#%02x%02x%02x\"/></linearGradient>",
		    lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
	}
	yi_out_puts(o, "</defs>\n");
	yi_out_puts(o, "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"url(#bg)\"/>\n");
	yi_out_printf(o, "<text id=\"title\" x=\"%.1f\" y=\"24\">", width / 2);
	yi_put_text(o, f, meta->title ? meta->title : "");
	yi_out_printf(o, "</text>\n<text id=\"subtitle\" x=\"%.1f\" y=\"44\">", width / 2);
	yi_put_text(o, f, meta->subtitle ? meta->subtitle : "");
	yi_out_puts(o, "</text>\n");
	yi_out_printf(o, "<text id=\"unzoom\" class=\"btn hide\" x=\"%.0f\" y=\"66\">Reset zoom</text>\n", PAD);
	yi_out_printf(o, "<text id=\"search\" class=\"btn\" x=\"%.0f\" y=\"66\" "
	    "style=\"text-anchor:end\">Search</text>\n", width - PAD);
	if (meta->diff) {
		double lx = width / 2 - 70;
		yi_out_printf(o, "<g class=\"legend\"><text x=\"%.1f\" y=\"66\" style=\"text-anchor:end\">"
		    "shrank</text><rect x=\"%.1f\" y=\"56\" width=\"140\" height=\"12\" rx=\"2\" "
		    "fill=\"url(#legend)\" stroke=\"#999\" stroke-width=\"0.5\"/><text x=\"%.1f\" y=\"66\">"
		    "grew (width: now; colour: change vs base, full at 100%%)</text></g>\n",
		    lx - 6, lx, lx + 146);
	}
	yi_out_printf(o, "<text id=\"details\" x=\"%.0f\" y=\"%.0f\">", PAD, height - 10);
	yi_out_puts(o, total > 0 ? "Click a frame to zoom, Search or Ctrl-F to find functions, "
	    "Esc to reset." : "No data: nothing to draw (the total is 0).");
	yi_out_printf(o, "</text>\n<text id=\"matched\" x=\"%.0f\" y=\"%.0f\"></text>\n",
	    width - PAD, height - 10);

	yi_out_puts(o, "<g id=\"frames\">\n");
	for (i = 0; i < vis.n && o->err == 0; i++)
		write_frame(o, f, &vis.v[i], scale, total, y0, dy, meta);
	yi_out_puts(o, "</g>\n");

	yi_out_puts(o, "<script type=\"text/ecmascript\"><![CDATA[\n");
	yi_out_printf(o, "var Y = { pad: %.0f, inner: %.1f, fh: %d, cw: %.1f, y0: %.0f, dy: %.0f, "
	    "total: %.17g, bytes: %d, unit: '%s', hl: '%s' };\n", PAD, inner, FRAME_H, CHAR_W,
	    y0, dy, total, yi_index_is_bytes(meta->idx) ? 1 : 0,
	    yi_index_is_bytes(meta->idx) ? "bytes" : "objects", HIGHLIGHT);
	yi_out_puts(o, yi_flame_js);
	yi_out_puts(o, "]]></script>\n</svg>\n");
	yi_vec_free(&vis);
	return o->err;
}

/* ---- the public plain flame graph ----------------------------------------- */

/* "512 KiB" for powers of two, yi_fmt_bytes otherwise. */
static const char *
fmt_period(uint64_t period, char *buf, size_t n)
{
	static const char *units[] = { "GiB", "MiB", "KiB" };
	int i;

	for (i = 0; i < 3; i++) {
		uint64_t u = (uint64_t)1 << (10 * (3 - i));
		if (period >= u && period % u == 0) {
			snprintf(buf, n, "%llu %s", (unsigned long long)(period / u), units[i]);
			return buf;
		}
	}
	return yi_fmt_bytes((double)period, buf, n);
}

static const char *
default_title(ying_sample_index idx)
{
	switch (idx) {
	case YING_INUSE_OBJECTS: return "Heap flame graph: live objects (inuse_objects)";
	case YING_ALLOC_SPACE: return "Heap flame graph: bytes allocated (alloc_space)";
	case YING_ALLOC_OBJECTS: return "Heap flame graph: objects allocated (alloc_objects)";
	default: return "Heap flame graph: live bytes (inuse_space)";
	}
}

/* A kept stack: its name ids (root first) in a shared vector. */
typedef struct stack_ref {
	const void *seq;        /* the YI_VEC(uint32_t) of write_svg */
	uint32_t off, n, idx;
} stack_ref;

/* By name ids, root first; a prefix first; then dump order. */
static int
stack_ref_cmp(const void *va, const void *vb)
{
	const stack_ref *a = va, *b = vb;
	const uint32_t *all = *(const uint32_t *const *)a->seq;
	const uint32_t *x = all + a->off, *y = all + b->off;
	uint32_t i, n = a->n < b->n ? a->n : b->n;

	for (i = 0; i < n; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

int
yi_write_svg(const ying_profile *p, const ying_svg_opts *opts,
    ying_write_fn fn, void *opaque)
{
	ying_svg_opts def = YING_SVG_OPTS_INIT;
	yi_framevec fr = { NULL, 0, 0 };
	yi_filter *filt = NULL;
	yi_flame *f = NULL;
	yi_out *o = NULL;
	yi_flame_meta meta;
	YI_VEC(uint32_t) seq = { NULL, 0, 0 };
	YI_VEC(stack_ref) refs = { NULL, 0, 0 };
	char sub[1024], vbuf[64], tbuf[64], rbuf[64];
	double total = 0, shown = 0;
	size_t i, k;
	int rc;

	yi_error_clear();
	if (p == NULL || fn == NULL)
		return yi_error(YING_EINVAL, "write_svg: no profile or no sink");
	if (opts == NULL)
		opts = &def;
	if (opts->version != YING_SVG_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_svg_opts version %d unsupported", opts->version);
	if ((rc = yi_profile_check_index(p, opts->sample_index)) != 0)
		return rc;
	if ((rc = yi_filter_new(&filt, opts->focus, opts->ignore)) != 0)
		return rc;
	if ((rc = yi_flame_new(&f)) != 0)
		goto out;
	/* Pass 1: the kept stacks as name ids, root first. */
	for (i = 0; i < p->stacks.n; i++) {
		const yi_stack *st = &p->stacks.v[i];
		double v = st->val[opts->sample_index];
		long n, j;

		if (v <= 0 || !isfinite(v))
			continue;
		total += v;
		if ((n = yi_stack_expand(p, st, &fr)) < 0) {
			rc = (int)n;
			goto out;
		}
		if (!yi_filter_keep(filt, p, fr.v, (size_t)n))
			continue;
		shown += v;
		if (seq.n + (size_t)n >= UINT32_MAX) {
			rc = yi_error(YING_ELIMIT, "%s: too many frames for a flame graph", p->source);
			goto out;
		}
		if ((rc = yi_vec_grow(&seq, (size_t)n)) != 0 || (rc = yi_vec_grow(&refs, 1)) != 0)
			goto out;
		refs.v[refs.n].seq = &seq;
		refs.v[refs.n].off = (uint32_t)seq.n;
		refs.v[refs.n].n = (uint32_t)n;
		refs.v[refs.n].idx = (uint32_t)i;
		refs.n++;
		for (j = n; j-- > 0;) {
			uint32_t file;
			if ((rc = yi_func_ids(f, p, fr.v[j].func, &seq.v[seq.n], &file)) != 0)
				goto out;
			seq.n++;
		}
	}
	/* Pass 2: in name order, so that each node is complete when the next
	 * stack leaves it and narrow ones are pruned at once (bounded memory
	 * on 200,000 distinct stacks). */
	if (refs.n > 1)
		qsort(refs.v, refs.n, sizeof(*refs.v), stack_ref_cmp);
	f->sorted = true;
	f->prune_below = shown * (opts->min_width > 0 ? opts->min_width : 0.1) /
	    ((opts->width ? (double)opts->width : 1200.0) - 2 * PAD) * (1 - 1e-9);
	for (k = 0; k < refs.n; k++) {
		const yi_stack *st = &p->stacks.v[refs.v[k].idx];
		long n;

		if ((n = yi_stack_expand(p, st, &fr)) < 0) {
			rc = (int)n;
			goto out;
		}
		if ((rc = yi_flame_add(f, p, fr.v, (size_t)n, st->val[opts->sample_index], 0)) != 0)
			goto out;
	}
	if (f->path.n)
		yi_sorted_leave_all(f);

	memset(&meta, 0, sizeof(meta));
	meta.idx = opts->sample_index;
	meta.diff = false;
	meta.title = opts->title ? opts->title : default_title(opts->sample_index);
	if (opts->subtitle) {
		meta.subtitle = opts->subtitle;
	} else {
		time_t t = (time_t)ying_profile_time(p);
		struct tm tm;
		const char *prog = ying_profile_program(p);
		size_t len;

		if (filt) {
			char all[64];
			yi_fmt_value(total, opts->sample_index, all, sizeof(all));
			snprintf(sub, sizeof(sub), "Shown: %s of %s%s",
			    yi_fmt_value(f->nodes.v[0].value, opts->sample_index, vbuf, sizeof(vbuf)),
			    all, yi_index_is_bytes(opts->sample_index) ? "" : " objects");
		} else {
			snprintf(sub, sizeof(sub), "Total: %s%s",
			    yi_fmt_value(total, opts->sample_index, vbuf, sizeof(vbuf)),
			    yi_index_is_bytes(opts->sample_index) ? "" : " objects");
		}
		len = strlen(sub);
		if (p->period > 1)
			snprintf(sub + len, sizeof(sub) - len, "  \xc2\xb7  1 sample per %s",
			    fmt_period(p->period, rbuf, sizeof(rbuf)));
		else
			snprintf(sub + len, sizeof(sub) - len, "  \xc2\xb7  every allocation sampled");
		len = strlen(sub);
		if (prog && *prog)
			snprintf(sub + len, sizeof(sub) - len, "  \xc2\xb7  %.600s", prog);
		len = strlen(sub);
		if (gmtime_r(&t, &tm) && strftime(tbuf, sizeof(tbuf), "%Y-%m-%dT%H:%M:%SZ", &tm))
			snprintf(sub + len, sizeof(sub) - len, "  \xc2\xb7  %s", tbuf);
		meta.subtitle = sub;
	}
	if ((o = yi_malloc(sizeof(*o))) == NULL) {
		rc = yi_oom("writing a flame graph");
		goto out;
	}
	yi_out_init(o, fn, opaque);
	rc = yi_flame_write_svg(f, opts, &meta, o);
	if (rc == 0)
		rc = yi_out_finish(o);
out:
	yi_free(o);
	yi_vec_free(&seq);
	yi_vec_free(&refs);
	yi_flame_free(f);
	yi_filter_free(filt);
	yi_vec_free(&fr);
	return rc;
}
