/*
 * write_jeprof.c: jeprof's own output forms for ying-jeprof: the --text
 * table (ying_profile_write_jeprof), the --list annotated source (same
 * function, opts->list) and the --raw symbolized profile
 * (ying_profile_write_raw).
 *
 * The numbers come from the one flat/cum rule (yi_agg, model_agg.c) over
 * row ids chosen here per granularity: a function id (twice: jeprof names
 * an inlined frame "NAME (inline)", a row of its own), or an id from an id
 * set keyed by (function, line), (location, function, line) or the file.
 * What is jeprof's is only the presentation: its Unparse (MB with %.1f,
 * or %d bytes / objects), Percent ("nan", "+inf"), PrintText's widths,
 * its sort (value descending, then name in byte order), Total printed only
 * when not 0, over every stack while percentages are of the kept ones.
 * Like the other public writers, the entry points symbolize p with
 * defaults first when that step has not run.
 */
#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdlib.h>

#include "sym.h"
#include "write.h"

typedef struct jrow {
	double flat, cum;
	char *label;
} jrow;

typedef struct jrep {
	yi_frame frame;         /* first frame seen for this row id */
} jrep;

typedef struct jctx {
	const ying_profile *p;
	const ying_jeprof_opts *o;
	yi_idset keys;          /* lines, addresses, files: key -> row id */
	YI_VEC(jrep) reps;      /* row id -> representative frame */
	YI_VEC(uint32_t) ids;   /* the row ids of the stack being counted */
	yi_agg agg;
	double kept;            /* sum over the stacks kept by focus/ignore */
	char **jn;              /* per function: the name jeprof prints (jname),
	                           NAME '\0' and one byte for the inline flag */
} jctx;

/*
 * The name jeprof prints for function func: its ShortFunctionName, the
 * demangled name without argument lists and template arguments (the
 * whole name when the profile was symbolized with full_names).  jeprof
 * keys its rows by that text, so the instances of one template
 * (std::vector<int>::push_back and std::vector<Foo>::push_back) are one
 * row there, and here.  NULL when out of memory.
 */
static const char *
jname(jctx *c, uint32_t func)
{
	const ying_profile *p = c->p;
	const char *full = yi_profile_str(p, p->funcs.v[func].name);
	size_t len = strlen(full);

	if (c->jn == NULL && (c->jn = yi_calloc(p->funcs.n, sizeof(*c->jn))) == NULL)
		return NULL;
	if (c->jn[func] == NULL) {
		if ((c->jn[func] = yi_malloc(len + 2)) == NULL)
			return NULL;
		if (p->full_names)
			memcpy(c->jn[func], full, len + 1);
		else
			yi_name_short(full, 0, c->jn[func]);
	}
	return c->jn[func];
}

/* jeprof's Unparse and units (write.h) under o's options. */
static const char *
unparse(const ying_jeprof_opts *o, double v, char *buf, size_t n)
{
	return yi_jeprof_unparse(o->sample_index, o->show_bytes, v, buf, n);
}

static const char *
units(const ying_jeprof_opts *o)
{
	return yi_jeprof_units(o->sample_index, o->show_bytes);
}

/* The row id of frame f under the chosen granularity. */
static int
row_id(jctx *c, const yi_frame *f, uint32_t *id)
{
	const ying_profile *p = c->p;
	uint64_t key[3];
	size_t nk;
	uint32_t fi = f->func * 2u + (f->inlined ? 1u : 0u);
	bool added;
	int rc;

	switch (c->o->granularity) {
	case YING_BY_FUNCTION: {
		/* keyed by the printed name, as jeprof's rows are */
		char *nm = (char *)jname(c, f->func);
		size_t l;
		if (nm == NULL)
			return yi_oom("naming jeprof's rows");
		l = strlen(nm);
		nm[l + 1] = f->inlined ? 1 : 0;
		if ((rc = yi_idset_add(&c->keys, nm, l + 2, id, &added)) != 0)
			return rc;
		break;
	}
	case YING_BY_LINE:
		key[0] = (uint64_t)fi << 32 | f->line;
		nk = 1;
		goto set;
	case YING_BY_ADDRESS:
		key[0] = f->loc;
		key[1] = (uint64_t)fi << 32 | f->line;
		nk = 2;
		goto set;
	default: {
		uint32_t file = p->funcs.v[f->func].file;
		/* no file: the address names the row, as jeprof does */
		key[0] = *yi_profile_str(p, file) ? file : (uint64_t)1 << 63 | f->loc;
		nk = 1;
	}
	set:
		if ((rc = yi_idset_add(&c->keys, key, nk * sizeof(key[0]), id, &added)) != 0)
			return rc;
		break;
	}
	if (*id >= c->reps.n) {
		size_t n = (size_t)*id + 1;
		if ((rc = yi_vec_grow(&c->reps, n - c->reps.n)) != 0)
			return rc;
		memset(&c->reps.v[c->reps.n], 0xff, (n - c->reps.n) * sizeof(jrep));
		c->reps.n = n;
	}
	if (added || c->reps.v[*id].frame.func == UINT32_MAX)
		c->reps.v[*id].frame = *f;
	return 0;
}

static int
count_stacks(jctx *c, yi_filter *flt, int what, bool plain_funcs)
{
	yi_stack_walk w = YI_STACK_WALK_INIT(c->p, flt, c->o->sample_index);
	size_t i;
	int rc;

	yi_agg_init(&c->agg, what);
	while ((rc = yi_stack_walk_next(&w)) > 0) {
		const yi_framevec fr = w.fr;     /* a view: the walk owns it */
		double v = w.v;

		c->kept += v;
		if (plain_funcs) {
			rc = yi_agg_stack(&c->agg, 0, fr.v, NULL, fr.n, v);
		} else {
			c->ids.n = 0;
			if ((rc = yi_vec_grow(&c->ids, fr.n)) != 0)
				break;
			for (i = 0; i < fr.n && rc == 0; i++)
				rc = row_id(c, &fr.v[i], &c->ids.v[i]);
			if (rc == 0)
				rc = yi_agg_stack(&c->agg, 0, fr.v, c->ids.v, fr.n, v);
		}
		if (rc != 0)
			break;
	}
	yi_stack_walk_end(&w);
	return rc;
}

/* "NAME", "NAME (inline)", with " FILE:LINE" or a leading address. */
static char *
row_label(const jctx *c, const yi_frame *f)
{
	const ying_profile *p = c->p;
	const yi_func *fn = &p->funcs.v[f->func];
	const char *name = jname((jctx *)c, f->func), *file = yi_profile_str(p, fn->file);
	const char *inl = f->inlined ? " (inline)" : "";
	uint64_t addr = f->loc < p->locs.n ? p->locs.v[f->loc].addr : 0;
	char where[64], *s = NULL;
	int n;

	if (name == NULL)
		return NULL;
	if (*file)
		snprintf(where, sizeof(where), ":%u", f->line);
	switch (c->o->granularity) {
	case YING_BY_FUNCTION:
		n = asprintf(&s, "%s%s", name, inl);
		break;
	case YING_BY_LINE:
		n = *file ? asprintf(&s, "%s%s %s%s", name, inl, file, where) :
		    asprintf(&s, "%s%s ??:0", name, inl);
		break;
	case YING_BY_ADDRESS:
		n = *file ? asprintf(&s, "%016" PRIx64 " %s%s %s%s", addr, name, inl, file, where) :
		    asprintf(&s, "%016" PRIx64 " %s%s ??:0", addr, name, inl);
		break;
	default:
		n = *file ? asprintf(&s, "%s", file) : asprintf(&s, "%016" PRIx64, addr);
		break;
	}
	return n < 0 ? NULL : s;
}

static int
cmp_jrows(const void *a, const void *b, void *ctx)
{
	const jrow *x = a, *y = b;
	bool by_cum = *(const bool *)ctx;
	double vx = by_cum ? x->cum : x->flat, vy = by_cum ? y->cum : y->flat;

	if (vx != vy)
		return vx > vy ? -1 : 1;
	return strcmp(x->label, y->label);
}

static int
write_table(jctx *c, yi_out *o, double total)
{
	YI_VEC(jrow) rows = { 0 };
	char b[5][64];
	double running = 0;
	bool by_cum = c->o->sort_cum != 0;
	size_t i;
	int rc = 0;

	for (i = 0; i < c->agg.funcs.n; i++) {
		const yi_agg_row *r = &c->agg.funcs.v[i];
		jrow *j;
		if ((r->flat[0] == 0 && r->cum[0] == 0) || i >= c->reps.n)
			continue;
		if ((rc = yi_vec_grow(&rows, 1)) != 0)
			goto out;
		j = &rows.v[rows.n];
		j->flat = r->flat[0];
		j->cum = r->cum[0];
		if ((j->label = row_label(c, &c->reps.v[i].frame)) == NULL) {
			rc = yi_oom("writing a jeprof report");
			goto out;
		}
		rows.n++;
	}
	if (rows.n > 1)
		qsort_r(rows.v, rows.n, sizeof(jrow), cmp_jrows, &by_cum);
	if (total != 0)
		yi_out_printf(o, "Total: %s %s\n", unparse(c->o, total, b[0], sizeof(b[0])),
		    units(c->o));
	for (i = 0; i < rows.n; i++) {
		const jrow *j = &rows.v[i];
		running += j->flat;
		yi_out_printf(o, "%8s %6s %6s %8s %6s ", unparse(c->o, j->flat, b[0], 64),
		    yi_jeprof_percent(j->flat, c->kept, b[1], 64),
		    yi_jeprof_percent(running, c->kept, b[2], 64),
		    unparse(c->o, j->cum, b[3], 64), yi_jeprof_percent(j->cum, c->kept, b[4], 64));
		yi_out_text(o, j->label);
		yi_out_putc(o, '\n');
	}
out:
	for (i = 0; i < rows.n; i++)
		free(rows.v[i].label);
	yi_vec_free(&rows);
	return rc;
}

/* ---- --list: annotated source ------------------------------------------- */

typedef struct lrow {
	uint32_t line;
	double flat, cum;
} lrow;

static int
cmp_lrows(const void *a, const void *b)
{
	const lrow *x = a, *y = b;

	return x->line < y->line ? -1 : x->line > y->line;
}

typedef struct lfunc {
	uint32_t func;
	const char *name;
} lfunc;

static int
cmp_lfuncs(const void *a, const void *b)
{
	const lfunc *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->func < y->func ? -1 : x->func > y->func);
}

/* A source line as it is (tabs kept, as jeprof prints it); other control
 * bytes become spaces so a line stays a line. */
static void
src_text(yi_out *o, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		yi_out_putc(o, (ch < 0x20 && ch != '\t') || ch == 0x7f ? ' ' : (char)ch);
	}
}

/* The lines of one function with their values, then the source around them. */
static int
list_function(jctx *c, yi_out *o, uint32_t func)
{
	const ying_profile *p = c->p;
	const yi_func *fn = &p->funcs.v[func];
	const char *file = yi_profile_str(p, fn->file);
	const yi_agg_row *fr = &c->agg.funcs.v[func];
	YI_VEC(lrow) lines = { 0 };
	char b[4][64], *text = NULL;
	size_t i, k, cap = 0;
	uint32_t lo, hi, l;
	FILE *src;
	int rc;

	for (i = 0; i < c->agg.lines.n; i++) {
		const yi_agg_row *r = &c->agg.lines.v[i];
		if (r->func != func || r->line == 0 || (r->flat[0] == 0 && r->cum[0] == 0))
			continue;
		if ((rc = yi_vec_grow(&lines, 1)) != 0)
			return rc;
		lines.v[lines.n++] = (lrow){ r->line, r->flat[0], r->cum[0] };
	}
	if (lines.n > 1)
		qsort(lines.v, lines.n, sizeof(lrow), cmp_lrows);
	yi_out_puts(o, "ROUTINE ====================== ");
	yi_out_text(o, yi_profile_str(p, fn->show));
	yi_out_puts(o, " in ");
	yi_out_text(o, *file ? file : "??");
	yi_out_printf(o, "\n%6s %6s Total %s (flat / cumulative)\n",
	    unparse(c->o, fr->flat[0], b[0], 64), unparse(c->o, fr->cum[0], b[1], 64),
	    units(c->o));
	if (lines.n == 0) {
		yi_out_puts(o, "  (no line numbers for this function: built without -g?)\n");
		yi_vec_free(&lines);
		return 0;
	}
	lo = lines.v[0].line > 5 ? lines.v[0].line - 5 : 1;
	hi = lines.v[lines.n - 1].line + 5;
	src = *file ? fopen(file, "r") : NULL;
	if (src == NULL) {
		yi_out_puts(o, "  (source not readable: ");
		yi_out_text(o, *file ? file : "no file name");
		yi_out_printf(o, "%s%s; values per line:)\n", *file ? ": " : "",
		    *file ? strerror(errno) : "");
		for (k = 0; k < lines.n; k++)
			yi_out_printf(o, "%6s %6s %4u: ?\n",
			    lines.v[k].flat ? unparse(c->o, lines.v[k].flat, b[2], 64) : ".",
			    lines.v[k].cum ? unparse(c->o, lines.v[k].cum, b[3], 64) : ".",
			    lines.v[k].line);
		yi_vec_free(&lines);
		return 0;
	}
	for (l = 1, k = 0; l <= hi; l++) {
		ssize_t len = getline(&text, &cap, src);
		double fv = 0, cv = 0;
		if (len < 0)
			break;
		while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
			text[--len] = 0;
		if (l < lo)
			continue;
		while (k < lines.n && lines.v[k].line < l)
			k++;
		if (k < lines.n && lines.v[k].line == l) {
			fv = lines.v[k].flat;
			cv = lines.v[k].cum;
		}
		yi_out_printf(o, "%6s %6s %4u: ", fv ? unparse(c->o, fv, b[2], 64) : ".",
		    cv ? unparse(c->o, cv, b[3], 64) : ".", l);
		src_text(o, text);
		yi_out_putc(o, '\n');
	}
	free(text);
	fclose(src);
	yi_vec_free(&lines);
	return 0;
}

static int
write_listing(jctx *c, yi_out *o)
{
	const ying_profile *p = c->p;
	YI_VEC(lfunc) fs = { 0 };
	regex_t re;
	size_t i;
	int rc;

	if ((rc = yi_regex_compile(&re, c->o->list, "--list")) != 0)
		return rc;
	for (i = 0; i < c->agg.funcs.n; i++) {
		const char *name = yi_profile_str(p, p->funcs.v[i].name);
		if (c->agg.funcs.v[i].cum[0] == 0 || regexec(&re, name, 0, NULL, 0) != 0)
			continue;
		if ((rc = yi_vec_grow(&fs, 1)) != 0)
			goto out;
		fs.v[fs.n++] = (lfunc){ (uint32_t)i, name };
	}
	if (fs.n > 1)
		qsort(fs.v, fs.n, sizeof(lfunc), cmp_lfuncs);
	if (fs.n == 0)
		rc = yi_error(YING_ENOTFOUND, "--list: no function with memory matches '%s'",
		    c->o->list);
	for (i = 0; i < fs.n && rc == 0; i++)
		rc = list_function(c, o, fs.v[i].func);
out:
	regfree(&re);
	yi_vec_free(&fs);
	return rc;
}

static int
write_jeprof(const ying_profile *p, const ying_jeprof_opts *opts, ying_write_fn fn,
    void *opaque)
{
	ying_jeprof_opts def = YING_JEPROF_OPTS_INIT;
	yi_filter *flt = NULL;
	yi_out *o = NULL;
	double total = 0;
	jctx c;
	int rc;

	if (p == NULL || fn == NULL)
		return yi_error(YING_EINVAL, "ying_profile_write_jeprof: no profile or sink");
	if (opts == NULL)
		opts = &def;
	if (opts->version != YING_JEPROF_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_jeprof_opts version %d unsupported", opts->version);
	if (opts->granularity != YING_BY_FUNCTION && opts->granularity != YING_BY_LINE &&
	    opts->granularity != YING_BY_ADDRESS && opts->granularity != YING_BY_FILE)
		return yi_error(YING_EINVAL, "ying_profile_write_jeprof: invalid granularity %d",
		    (int)opts->granularity);
	if ((rc = yi_profile_check_index(p, opts->sample_index)) != 0)
		return rc;
	if ((rc = yi_filter_new(&flt, opts->focus, opts->ignore)) != 0)
		return rc;
	memset(&c, 0, sizeof(c));
	c.p = p;
	c.o = opts;
	yi_idset_init(&c.keys, NULL);
	if (opts->list)
		rc = count_stacks(&c, flt, YI_AGG_FUNCS | YI_AGG_LINES, true);
	else
		rc = count_stacks(&c, flt, YI_AGG_FUNCS, false);
	if (rc != 0)
		goto done;
	ying_profile_total(&total, p, opts->sample_index);
	if ((o = yi_malloc(sizeof(*o))) == NULL) {
		rc = yi_oom("writing a jeprof report");
		goto done;
	}
	yi_out_init(o, fn, opaque);
	rc = opts->list ? write_listing(&c, o) : write_table(&c, o, total);
	if (rc == 0)
		rc = yi_out_finish(o);
done:
	yi_free(o);
	yi_filter_free(flt);
	yi_agg_release(&c.agg);
	yi_idset_release(&c.keys);
	yi_vec_free(&c.reps);
	yi_vec_free(&c.ids);
	if (c.jn != NULL)
		for (size_t i = 0; i < p->funcs.n; i++)
			yi_free(c.jn[i]);
	yi_free(c.jn);
	return rc;
}

int
ying_profile_write_jeprof(const ying_profile *p, const ying_jeprof_opts *opts,
    ying_write_fn fn, void *opaque)
{
	/* never symbolizes: p is written as it is (ying.h) */
	yi_error_clear();
	return write_jeprof(p, opts, fn, opaque);
}

/* ---- --raw: the symbolized profile ---------------------------------------- */

/* A name for the symbol section: "--" separates inline names, whitespace
 * and control bytes would end the line or the name. */
static void
raw_name(yi_out *o, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch < 0x20 || ch == 0x7f)
			ch = ' ';
		if (ch == '-' && s[1] == '-') {
			yi_out_puts(o, "-_");
			s++;
			continue;
		}
		yi_out_putc(o, (char)ch);
	}
}

static void
raw_counts(yi_out *o, const yi_counts *c)
{
	yi_out_printf(o, "  t*: %" PRIu64 ": %" PRIu64 " [%" PRIu64 ": %" PRIu64 "]\n",
	    c->objs, c->bytes, c->acc_objs, c->acc_bytes);
}

static int
write_raw(const ying_profile *p, const char *program, ying_write_fn fn, void *opaque)
{
	uint8_t *used = NULL;
	yi_out *o = NULL;
	size_t s, i;
	int rc;

	if (p == NULL || fn == NULL)
		return yi_error(YING_EINVAL, "ying_profile_write_raw: no profile or sink");
	if (p->format != YI_FMT_HEAP_V2)
		return yi_error(YING_ENOTSUP, "%s: --raw needs a heap_v2 dump (a pprof or a "
		    "merged profile has no raw counts)", p->source);
	if ((used = yi_calloc(p->locs.n ? p->locs.n : 1, 1)) == NULL ||
	    (o = yi_malloc(sizeof(*o))) == NULL) {
		yi_free(used);
		return yi_oom("writing a raw profile");
	}
	for (s = 0; s < p->stacks.n; s++) {
		const yi_stack *st = &p->stacks.v[s];
		for (i = st->skip; i < st->nframes; i++)
			used[p->frames.v[st->frame_off + i]] = 1;
	}
	yi_out_init(o, fn, opaque);
	yi_out_puts(o, "--- symbol\n");
	if (program && *program) {
		yi_out_puts(o, "binary=");
		raw_name(o, program);
		yi_out_putc(o, '\n');
	}
	/* one line per address kept, in address order (locations are in
	 * first-seen order; jeprof does not care) */
	for (i = 0; i < p->locs.n; i++) {
		const yi_loc *l = &p->locs.v[i];
		uint32_t k;
		if (!used[i] || l->nlines == 0)
			continue;
		yi_out_printf(o, "0x%016" PRIx64 " ", l->addr);
		for (k = l->nlines; k-- > 0;) {
			const yi_line *ln = &p->lines.v[l->line_off + k];
			raw_name(o, yi_profile_str(p, p->funcs.v[ln->func].name));
			if (k)
				yi_out_puts(o, "--");
		}
		yi_out_putc(o, '\n');
	}
	yi_out_puts(o, "---\n--- heap\n");
	yi_out_printf(o, "heap_v2/%" PRIu64 "\n", p->period);
	raw_counts(o, &p->header);
	for (s = 0; s < p->stacks.n; s++) {
		const yi_stack *st = &p->stacks.v[s];
		yi_out_putc(o, '@');
		/* the trimmed stack: its first frame becomes the leaf, so it is
		 * written at its location's address; callers at address + 1
		 * (jeprof subtracts 1 from callers again) */
		for (i = st->skip; i < st->nframes; i++) {
			const yi_loc *l = &p->locs.v[p->frames.v[st->frame_off + i]];
			yi_out_printf(o, " 0x%" PRIx64, l->addr + (i > st->skip ? 1 : 0));
		}
		yi_out_putc(o, '\n');
		raw_counts(o, &st->raw);
	}
	if (p->has_maps) {
		yi_out_puts(o, "\nMAPPED_LIBRARIES:\n");
		if (p->maps_text_len)
			yi_out_write(o, p->maps_text, p->maps_text_len);
	}
	rc = yi_out_finish(o);
	yi_free(o);
	yi_free(used);
	return rc;
}

int
ying_profile_write_raw(const ying_profile *p, const char *program, ying_write_fn fn,
    void *opaque)
{
	yi_error_clear();
	/* the symbol section is the symbolizer's names: none to write before
	 * the caller's explicit step */
	if (p != NULL && !(p->symbolized && p->trimmed))
		return yi_error(YING_EINVAL, "ying_profile_write_raw: %s is not symbolized "
		    "(call ying_profile_symbolize first)", p->source ? p->source : "the profile");
	return write_raw(p, program, fn, opaque);
}
