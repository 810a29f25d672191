/*
 * diff_flame.c: the diff as a two-column folded file (BASE and NOW per
 * stack, for flamegraph.pl's difffolded form) and as a differential SVG
 * flame graph (a yi_flame tree in diff mode).
 */
#include <math.h>
#include <stdlib.h>

#include "diff_int.h"
#include "write.h"

/* ---- two-column folded --------------------------------------------------- */

/* A frame name, cleaned by the folded rule (yi_folded_char). */
static void
folded_name(yi_out *o, const char *s)
{
	for (; *s; s++)
		yi_out_putc(o, yi_folded_char(*s));
}

/* Two diff stacks of the same functions (in two heaps). */
static bool
same_path(const dstack *a, const dstack *b)
{
	return a->nfuncs == b->nfuncs &&
	    memcmp(a->funcs, b->funcs, a->nfuncs * sizeof(*a->funcs)) == 0;
}

int
ying_diff_write_folded(ying_diff *d, ying_write_fn fn, void *opaque)
{
	sortctx c;
	uint32_t *v;
	yi_out *o;
	size_t i, n = 0;
	int rc;

	yi_error_clear();
	if (d == NULL || fn == NULL)
		return yi_error(YING_EINVAL, "ying_diff_write_folded: no diff or sink");
	if ((v = yi_malloc((d->stacks.n ? d->stacks.n : 1) * sizeof(*v))) == NULL)
		return yi_oom("writing folded stacks");
	for (i = 0; i < d->stacks.n; i++) {
		const dstack *s = &d->stacks.v[i];
		if (yi_folded_value(s->val[BASE][d->idx]) != 0 ||
		    yi_folded_value(s->val[NOW][d->idx]) != 0)
			v[n++] = (uint32_t)i;
	}
	/* by name, root first: deterministic and what flamegraph.pl expects */
	c.d = d;
	c.order = YI_ORDER_NAMES;
	qsort_r(v, n, sizeof(*v), yi_cmp_stacks, &c);
	if ((o = yi_malloc(sizeof(*o))) == NULL) {
		yi_free(v);
		return yi_oom("writing folded stacks");
	}
	yi_out_init(o, fn, opaque);
	for (i = 0; i < n; i++) {
		const dstack *s = &d->stacks.v[v[i]];
		double vb = yi_folded_value(s->val[BASE][d->idx]);
		double vn = yi_folded_value(s->val[NOW][d->idx]);
		uint32_t k;
		/* a path is one line: its stacks of several heaps (sorted
		 * next to each other) are summed */
		while (d->has_heaps && i + 1 < n && same_path(s, &d->stacks.v[v[i + 1]])) {
			i++;
			vb += yi_folded_value(d->stacks.v[v[i]].val[BASE][d->idx]);
			vn += yi_folded_value(d->stacks.v[v[i]].val[NOW][d->idx]);
		}
		for (k = s->nfuncs; k-- > 0;) {
			folded_name(o, yi_dstr(d, d->funcs.v[s->funcs[k]].show));
			if (k)
				yi_out_putc(o, ';');
		}
		yi_out_printf(o, " %.0f %.0f\n", vb, vn);
	}
	rc = yi_out_finish(o);
	yi_free(o);
	yi_free(v);
	return rc;
}

/* ---- differential flame graph -------------------------------------------- */

/* The tree of the diff: each diff stack once, with its representative
 * frames (NOW's when it has any), value NOW and base BASE. */
static int
diff_tree(ying_diff *d, yi_flame *f)
{
	yi_framevec fr = { 0 };
	int rc = 0;

	for (size_t i = 0; i < d->stacks.n && rc == 0; i++) {
		const dstack *s = &d->stacks.v[i];
		const ying_profile *p;
		long n;
		if (s->val[BASE][d->idx] == 0 && s->val[NOW][d->idx] == 0)
			continue;
		if ((n = yi_stack_frames(d, s, &p, &fr)) < 0) {
			rc = (int)n;
			break;
		}
		for (size_t k = 0; k < fr.n && k < s->nfuncs && rc == 0; k++)
			rc = yi_flame_override(f, p, fr.v[k].func,
			    yi_dstr(d, d->funcs.v[s->funcs[k]].show));
		if (rc == 0)
			rc = yi_flame_add_var(f, p, fr.v, fr.n, s->val[NOW][d->idx],
			    s->val[BASE][d->idx], yi_stack_dvar(s));
	}
	yi_vec_free(&fr);
	return rc;
}

int
yi_diff_write_tree(ying_diff *d, ying_write_fn fn, void *opaque)
{
	yi_flame *f = NULL;
	yi_out *o = NULL;
	int rc;

	yi_error_clear();
	if (d == NULL || fn == NULL)
		return yi_error(YING_EINVAL, "yi_diff_write_tree: no diff or sink");
	if ((rc = yi_flame_new(&f)) != 0)
		return rc;
	if ((rc = diff_tree(d, f)) == 0 && (o = yi_malloc(sizeof(*o))) == NULL)
		rc = yi_oom("writing a flame tree");
	if (rc == 0) {
		yi_out_init(o, fn, opaque);
		if ((rc = yi_flame_write_tree(f, d->idx, true, o)) == 0)
			rc = yi_out_finish(o);
	}
	yi_free(o);
	yi_flame_free(f);
	return rc;
}

int
ying_diff_write_svg(ying_diff *d, const ying_svg_opts *opts, ying_write_fn fn,
    void *opaque)
{
	ying_svg_opts def = YING_SVG_OPTS_INIT;
	yi_flame_meta meta;
	yi_flame *f = NULL;
	yi_out *o = NULL;
	char title[256], sub[1024], pc[40], b1[40], b2[40], b3[80];
	double tb, tn;
	int rc;

	yi_error_clear();
	if (d == NULL || fn == NULL)
		return yi_error(YING_EINVAL, "ying_diff_write_svg: no diff or sink");
	if (opts == NULL)
		opts = &def;
	if (opts->version != YING_SVG_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_svg_opts version %d unsupported", opts->version);
	if ((rc = yi_flame_new(&f)) != 0)
		return rc;
	/* width NOW, colour NOW - BASE */
	if ((rc = diff_tree(d, f)) != 0)
		goto done;
	ying_diff_totals(&tb, &tn, NULL, d);
	snprintf(title, sizeof(title), "Heap growth: %s, NOW minus BASE",
	    ying_sample_index_name(d->idx));
	if (tb != 0)
		snprintf(pc, sizeof(pc), " (%+.1f%%)", yi_pct(tn - tb, tb));
	else
		pc[0] = '\0';
	snprintf(sub, sizeof(sub), "base %s (%s), now %s (%s): %s%s; widths are NOW, "
	    "red grew, blue shrank%s",
	    yi_fmt_value(tb, d->idx, b1, sizeof(b1)), d->p[BASE]->source,
	    yi_fmt_value(tn, d->idx, b2, sizeof(b2)), d->p[NOW]->source,
	    yi_fmt_delta_pm(tn - tb, d->var[BASE] + d->var[NOW], d->idx, b3, sizeof(b3)), pc,
	    d->var[BASE] + d->var[NOW] > 0 ? "; \xc2\xb1 95 % sampling interval" : "");
	meta.title = opts->title ? opts->title : title;
	meta.subtitle = opts->subtitle ? opts->subtitle : sub;
	meta.idx = d->idx;
	meta.diff = true;
	if ((o = yi_malloc(sizeof(*o))) == NULL) {
		rc = yi_oom("writing a flame graph");
		goto done;
	}
	yi_out_init(o, fn, opaque);
	if ((rc = yi_flame_write_svg(f, opts, &meta, o)) == 0)
		rc = yi_out_finish(o);
done:
	yi_free(o);
	yi_flame_free(f);
	return rc;
}
