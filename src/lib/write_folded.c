/*
 * write_folded.c: collapsed ("folded") stacks, the text form flame-graph tools
 * read: one line per distinct stack, frames root first joined by ';', a
 * space, and the chosen value truncated toward zero (as jeprof --collapsed
 * prints it).
 *
 * Each distinct frame text ("name", "name[inline]", "name (file:line)") is
 * interned once as a label, so a stack is a short run of label ids rather
 * than a long string; 200,000 stacks of 30 frames never materialise as text.
 * Stacks are sorted by the bytes of their joined text (compared label by
 * label, character by character only where labels differ), equal stacks
 * are summed in dump order and printed once.  The output depends only on
 * the profile and the options.
 */
#include <math.h>
#include <stdlib.h>

#include "write.h"

typedef struct fold_ctx {
	yi_strtab labels;         /* frame texts */
	yi_map64 label_of;        /* frame key -> label id */
	YI_VEC(uint32_t) ids;     /* label ids of every kept stack, root first */
	YI_VEC(char) buf;         /* scratch for building one label */
} fold_ctx;

typedef struct fold_stack {
	const fold_ctx *ctx;
	uint32_t off, n;          /* run in ctx->ids */
	uint32_t order;           /* position in the dump (tie-break) */
	double val;
} fold_stack;

static int
buf_put(fold_ctx *c, const char *s, size_t n)
{
	int rc;

	if ((rc = yi_vec_grow(&c->buf, n + 1)) != 0)
		return rc;
	memcpy(c->buf.v + c->buf.n, s, n);
	c->buf.n += n;
	return 0;
}

/* Copy a name, replacing what would break the line format (yi_folded_char). */
static int
buf_put_clean(fold_ctx *c, const char *s)
{
	size_t n = strlen(s), i;
	int rc;

	if ((rc = yi_vec_grow(&c->buf, n + 1)) != 0)
		return rc;
	for (i = 0; i < n; i++) {
		c->buf.v[c->buf.n++] = yi_folded_char(s[i]);
	}
	return 0;
}

/* The label id of one frame, interning its text on first sight. */
static int
frame_label(fold_ctx *c, const ying_profile *p, const yi_frame *fr, bool lines,
    uint32_t *out)
{
	const yi_func *fn;
	uint64_t key;
	uint32_t *slot, id;
	bool added;
	int rc;

	if (fr->func >= p->funcs.n)
		return yi_error(YING_EINVAL, "%s: frame names function %u of %zu",
		    p->source, fr->func, p->funcs.n);
	if (lines) {
		if (fr->func >= (1u << 31))
			return yi_error(YING_ELIMIT, "%s: too many functions for --lines", p->source);
		key = (uint64_t)fr->func << 33 | (uint64_t)fr->line << 1 | (fr->inlined ? 1 : 0);
	} else {
		key = (uint64_t)fr->func << 1 | (fr->inlined ? 1 : 0);
	}
	if ((slot = yi_map64_get(&c->label_of, key)) != NULL) {
		*out = *slot;
		return 0;
	}
	fn = &p->funcs.v[fr->func];
	c->buf.n = 0;
	if ((rc = buf_put_clean(c, yi_profile_str(p, fn->show))) != 0)
		return rc;
	if (fr->inlined && (rc = buf_put(c, "[inline]", 8)) != 0)
		return rc;
	if (lines && fn->file && *yi_profile_str(p, fn->file)) {
		char num[16];
		if ((rc = buf_put(c, " (", 2)) != 0 ||
		    (rc = buf_put_clean(c, yi_profile_str(p, fn->file))) != 0)
			return rc;
		if (fr->line) {
			snprintf(num, sizeof(num), ":%u", fr->line);
			if ((rc = buf_put(c, num, strlen(num))) != 0)
				return rc;
		}
		if ((rc = buf_put(c, ")", 1)) != 0)
			return rc;
	}
	if ((rc = yi_strtab_intern(&c->labels, c->buf.v, c->buf.n, &id)) != 0)
		return rc;
	if ((rc = yi_map64_put(&c->label_of, key, id, &slot, &added)) != 0)
		return rc;
	*out = id;
	return 0;
}

/* A reader of the joined text "l0;l1;...;ln" starting at label i. */
typedef struct text_iter {
	const yi_strtab *t;
	const uint32_t *ids;
	uint32_t n, i;
	const char *s;
} text_iter;

/* Next byte, or -1 at the end. */
static int
text_next(text_iter *it)
{
	for (;;) {
		if (it->s == NULL) {
			if (it->i >= it->n)
				return -1;
			it->s = yi_strtab_get(it->t, it->ids[it->i]);
		}
		if (*it->s)
			return (unsigned char)*it->s++;
		it->s = NULL;
		it->i++;
		if (it->i < it->n)
			return ';';
	}
}

static int
stack_cmp(const void *va, const void *vb)
{
	const fold_stack *a = va, *b = vb;
	const uint32_t *ia = a->ctx->ids.v + a->off, *ib = b->ctx->ids.v + b->off;
	uint32_t i = 0;

	while (i < a->n && i < b->n && ia[i] == ib[i])
		i++;
	if (i < a->n || i < b->n) {
		text_iter x = { &a->ctx->labels, ia, a->n, i, NULL };
		text_iter y = { &b->ctx->labels, ib, b->n, i, NULL };
		/* Both runs continue after a shared label sequence: compare the
		 * text from the separator onwards (the ';' is common). */
		if (i > 0) {
			if (i == a->n)
				return -1;   /* a's text is a proper prefix of b's */
			if (i == b->n)
				return 1;
		}
		for (;;) {
			int cx = text_next(&x), cy = text_next(&y);
			if (cx != cy)
				return cx < cy ? -1 : 1;
			if (cx < 0)
				break;
		}
	}
	return a->order < b->order ? -1 : a->order > b->order;
}

static void
fold_release(fold_ctx *c)
{
	yi_strtab_release(&c->labels);
	yi_map64_release(&c->label_of);
	yi_vec_free(&c->ids);
	yi_vec_free(&c->buf);
}

int
yi_write_folded(const ying_profile *p, const ying_folded_opts *opts,
    ying_write_fn fn, void *opaque)
{
	ying_folded_opts def = YING_FOLDED_OPTS_INIT;
	YI_VEC(fold_stack) stacks = { NULL, 0, 0 };
	yi_framevec fr = { NULL, 0, 0 };
	fold_ctx c;
	yi_out *o = NULL;
	size_t i, j;
	int rc;

	yi_error_clear();
	if (p == NULL || fn == NULL)
		return yi_error(YING_EINVAL, "write_folded: no profile or no sink");
	if (opts == NULL)
		opts = &def;
	if (opts->version != YING_FOLDED_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_folded_opts version %d unsupported", opts->version);
	if ((rc = yi_profile_check_index(p, opts->sample_index)) != 0)
		return rc;

	memset(&c, 0, sizeof(c));
	if ((rc = yi_strtab_init(&c.labels)) != 0)
		return rc;
	if ((rc = yi_map64_init(&c.label_of, 1024)) != 0) {
		fold_release(&c);
		return rc;
	}
	for (i = 0; i < p->stacks.n; i++) {
		const yi_stack *st = &p->stacks.v[i];
		double v = st->val[opts->sample_index];
		long n;

		if (v == 0 || !isfinite(v))
			continue;
		if ((n = yi_stack_expand(p, st, &fr)) < 0) {
			rc = (int)n;
			goto out;
		}
		if (c.ids.n + (size_t)n >= UINT32_MAX) {
			rc = yi_error(YING_ELIMIT, "%s: too many frames for folded output", p->source);
			goto out;
		}
		if ((rc = yi_vec_grow(&c.ids, (size_t)n)) != 0 ||
		    (rc = yi_vec_grow(&stacks, 1)) != 0)
			goto out;
		stacks.v[stacks.n].ctx = &c;
		stacks.v[stacks.n].off = (uint32_t)c.ids.n;
		stacks.v[stacks.n].n = (uint32_t)n;
		stacks.v[stacks.n].order = (uint32_t)i;
		stacks.v[stacks.n].val = v;
		/* frames come leaf first; store root first */
		for (j = (size_t)n; j-- > 0;) {
			if ((rc = frame_label(&c, p, &fr.v[j], opts->lines != 0,
			    &c.ids.v[c.ids.n])) != 0)
				goto out;
			c.ids.n++;
		}
		stacks.n++;
	}
	if (stacks.n > 1)
		qsort(stacks.v, stacks.n, sizeof(*stacks.v), stack_cmp);

	if ((o = yi_malloc(sizeof(*o))) == NULL) {
		rc = yi_oom("writing folded stacks");
		goto out;
	}
	yi_out_init(o, fn, opaque);
	for (i = 0; i < stacks.n && o->err == 0; i = j) {
		const fold_stack *s = &stacks.v[i];
		double sum = s->val, t;
		uint32_t k;

		for (j = i + 1; j < stacks.n && stacks.v[j].n == s->n &&
		    memcmp(c.ids.v + stacks.v[j].off, c.ids.v + s->off,
		    s->n * sizeof(uint32_t)) == 0; j++)
			sum += stacks.v[j].val;
		t = yi_folded_value(sum);
		if (t == 0)
			continue;
		for (k = 0; k < s->n; k++) {
			if (k)
				yi_out_putc(o, ';');
			yi_out_write(o, yi_strtab_get(&c.labels, c.ids.v[s->off + k]),
			    yi_strtab_len(&c.labels, c.ids.v[s->off + k]));
		}
		yi_out_printf(o, " %.0f\n", t);
	}
	rc = yi_out_finish(o);
out:
	yi_free(o);
	yi_vec_free(&stacks);
	yi_vec_free(&fr);
	fold_release(&c);
	return rc;
}
