/*
 * model_filter.c: --focus / --ignore stack filters, and heaps.
 *
 * A stack is kept when some frame matches the focus expression (if any) and
 * no frame matches the ignore expression.  A frame matches when the POSIX
 * extended regex finds its function name or its "file:line".  Used by every
 * report so that `ying top --focus X` and `ying flamegraph --focus X` agree.
 * yi_stack_walk is the loop the reports share: the non-zero stacks a filter
 * keeps, expanded.  Heaps (several jemallocs in one dump: a stack's
 * `heap`, the profile's `heaps` in dump order) are the other filter:
 * ying_profile_keep_heap drops the stacks of every other heap (--heap),
 * and the public heap accessors read the list.
 */
#include <regex.h>
#include <stdlib.h>

#include "model.h"

struct yi_filter {
	bool has_focus, has_ignore;
	regex_t focus, ignore;
};

int
yi_filter_new(yi_filter **out, const char *focus, const char *ignore)
{
	yi_filter *f;
	int rc;

	*out = NULL;
	if ((focus == NULL || !*focus) && (ignore == NULL || !*ignore))
		return 0;   /* no filter: NULL keeps everything */
	if ((f = yi_calloc(1, sizeof(*f))) == NULL)
		return yi_oom("creating a filter");
	if (focus && *focus) {
		if ((rc = yi_regex_compile(&f->focus, focus, "--focus")) != 0) {
			yi_free(f);
			return rc;
		}
		f->has_focus = true;
	}
	if (ignore && *ignore) {
		if ((rc = yi_regex_compile(&f->ignore, ignore, "--ignore")) != 0) {
			yi_filter_free(f);
			return rc;
		}
		f->has_ignore = true;
	}
	*out = f;
	return 0;
}

void
yi_filter_free(yi_filter *f)
{
	if (f == NULL)
		return;
	if (f->has_focus)
		regfree(&f->focus);
	if (f->has_ignore)
		regfree(&f->ignore);
	yi_free(f);
}

static bool
frame_matches(regex_t *re, const ying_profile *p, const yi_frame *fr)
{
	const yi_func *fn = &p->funcs.v[fr->func];
	char where[4096];

	if (regexec(re, yi_profile_str(p, fn->name), 0, NULL, 0) == 0 ||
	    (fn->show != fn->name &&
	    regexec(re, yi_profile_str(p, fn->show), 0, NULL, 0) == 0))
		return true;
	if (fn->file) {
		snprintf(where, sizeof(where), "%s:%u", yi_profile_str(p, fn->file), fr->line);
		if (regexec(re, where, 0, NULL, 0) == 0)
			return true;
	}
	return false;
}

bool
yi_filter_keep(yi_filter *f, const ying_profile *p, const yi_frame *fr, size_t n)
{
	size_t i;
	bool focused;

	if (f == NULL)
		return true;
	focused = !f->has_focus;
	for (i = 0; i < n; i++) {
		if (f->has_ignore && frame_matches(&f->ignore, p, &fr[i]))
			return false;
		if (!focused && frame_matches(&f->focus, p, &fr[i]))
			focused = true;
	}
	return focused;
}

int
yi_stack_walk_next(yi_stack_walk *w)
{
	const ying_profile *p = w->p;

	for (w->s++; w->s < p->stacks.n; w->s++) {
		const yi_stack *st = &p->stacks.v[w->s];
		long n;

		if ((w->v = st->val[w->idx]) == 0)
			continue;
		if ((n = yi_stack_expand(p, st, &w->fr)) < 0)
			return (int)n;
		if (yi_filter_keep(w->f, p, w->fr.v, w->fr.n))
			return 1;
	}
	return 0;
}

void
yi_stack_walk_end(yi_stack_walk *w)
{
	yi_vec_free(&w->fr);
}

/* ---- heaps ----------------------------------------------------------------- */

bool
yi_heap_name_ok(const char *name, size_t len)
{
	if (len == 0 || len > YI_HEAP_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
		    c == '.' || c == '-'))
			return false;
	}
	return true;
}

int
yi_profile_add_heap(ying_profile *p, const char *name, size_t len, uint32_t *id)
{
	int rc;

	if ((rc = yi_strtab_intern(&p->strs, name, len, id)) != 0)
		return rc;
	p->has_heaps = true;
	for (size_t i = 0; i < p->heaps.n; i++)
		if (p->heaps.v[i] == *id)
			return 0;
	if ((rc = yi_vec_grow(&p->heaps, 1)) != 0)
		return rc;
	p->heaps.v[p->heaps.n++] = *id;
	return 0;
}

int
yi_profile_heaps_complete(ying_profile *p)
{
	uint32_t unnamed = 0;
	int rc;

	if (!p->has_heaps)
		return 0;
	for (size_t i = 0; i < p->stacks.n; i++) {
		if (p->stacks.v[i].heap != 0)
			continue;
		if (unnamed == 0 && (rc = yi_profile_add_heap(p, YI_HEAP_UNNAMED,
		    sizeof(YI_HEAP_UNNAMED) - 1, &unnamed)) != 0)
			return rc;
		p->stacks.v[i].heap = unnamed;
	}
	return 0;
}

size_t
ying_profile_heap_count(const ying_profile *p)
{
	return p != NULL && p->has_heaps ? p->heaps.n : 0;
}

const char *
ying_profile_heap_name(const ying_profile *p, size_t i)
{
	if (i >= ying_profile_heap_count(p))
		return NULL;
	return yi_profile_str(p, p->heaps.v[i]);
}

double
ying_profile_heap_total(const ying_profile *p, size_t i, ying_sample_index idx)
{
	double sum = 0;
	uint32_t id;

	if (i >= ying_profile_heap_count(p) || (unsigned)idx > 3)
		return 0;
	id = p->heaps.v[i];
	for (size_t s = 0; s < p->stacks.n; s++)
		if (p->stacks.v[s].heap == id)
			sum += p->stacks.v[s].val[idx];
	return sum;
}

/* "rust, c" into buf. */
static void
heap_list(const ying_profile *p, char *buf, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < p->heaps.n && used < n; i++) {
		int k = snprintf(buf + used, n - used, "%s%s", i ? ", " : "",
		    yi_profile_str(p, p->heaps.v[i]));
		if (k < 0)
			break;
		used += (size_t)k;
	}
}

int
ying_profile_keep_heap(ying_profile *p, const char *name)
{
	uint32_t *newidx, id = UINT32_MAX;
	size_t i, out, t, n0;
	char list[512];

	yi_error_clear();
	if (p == NULL || name == NULL)
		return yi_error(YING_EINVAL, "ying_profile_keep_heap: no profile or name");
	if (!p->has_heaps)
		return yi_error(YING_ENOTFOUND, "%s: no heap '%s': the profile has one heap "
		    "(no ying-heap trailer)", p->source, name);
	for (i = 0; i < p->heaps.n; i++)
		if (strcmp(yi_profile_str(p, p->heaps.v[i]), name) == 0)
			id = p->heaps.v[i];
	if (id == UINT32_MAX) {
		heap_list(p, list, sizeof(list));
		return yi_error(YING_ENOTFOUND, "%s: no heap '%s' (the profile's heaps: %s)",
		    p->source, name, list);
	}
	if ((newidx = yi_malloc((p->stacks.n ? p->stacks.n : 1) * sizeof(*newidx))) == NULL)
		return yi_oom("keeping one heap");
	n0 = p->stacks.n;
	memset(&p->header, 0, sizeof(p->header));
	for (i = out = 0; i < p->stacks.n; i++) {
		const yi_stack *st = &p->stacks.v[i];
		newidx[i] = UINT32_MAX;
		if (st->heap != id)
			continue;
		p->header.objs += st->raw.objs;
		p->header.bytes += st->raw.bytes;
		p->header.acc_objs += st->raw.acc_objs;
		p->header.acc_bytes += st->raw.acc_bytes;
		newidx[i] = (uint32_t)out;
		p->stacks.v[out++] = *st;
	}
	p->stacks.n = out;
	/* per-thread splits follow their stacks; the header's thread lines
	 * are the first heap's (the dump format), so they go with any other */
	for (t = out = 0; t < p->tcounts.n; t++) {
		yi_thread_count c = p->tcounts.v[t];
		if (c.stack >= n0 || newidx[c.stack] == UINT32_MAX)
			continue;
		c.stack = newidx[c.stack];
		p->tcounts.v[out++] = c;
	}
	p->tcounts.n = out;
	if (p->heaps.v[0] != id)
		p->threads.n = 0;
	p->heaps.v[0] = id;
	p->heaps.n = 1;
	yi_free(newidx);
	return 0;
}
