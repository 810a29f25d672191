/*
 * model_filter.c: --focus / --ignore stack filters.
 *
 * A stack is kept when some frame matches the focus expression (if any) and
 * no frame matches the ignore expression.  A frame matches when the POSIX
 * extended regex finds its function name or its "file:line".  Used by every
 * report so that `ying top --focus X` and `ying flamegraph --focus X` agree.
 * yi_stack_walk is the loop the reports share: the non-zero stacks a filter
 * keeps, expanded.
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
