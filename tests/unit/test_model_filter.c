/*
 * test_model_filter.c: --focus / --ignore stack filters (model_filter.c): no
 * filter keeps all, focus on any frame, ignore beats focus, file:line
 * matching, bad expressions named by option.
 */
#include "internal.h"
#include "synth.h"
#include "tap.h"

static bool
keep(yi_filter *f, const ying_profile *p, size_t stack)
{
	yi_framevec fr = { 0 };
	bool k;

	if (yi_stack_expand(p, &p->stacks.v[stack], &fr) < 0) {
		printf("Bail out! expand\n");
		exit(1);
	}
	k = yi_filter_keep(f, p, fr.v, fr.n);
	yi_vec_free(&fr);
	return k;
}

int
main(void)
{
	ying_profile *p = synth_new("filter", 1);
	yi_filter *f = (yi_filter *)1;
	uint32_t a = synth_fn(p, 0x100, "alloc_node", "src/tree.c", 40);
	uint32_t b = synth_fn(p, 0x200, "parse_json", "src/json.c", 12);
	uint32_t c = synth_fn(p, 0x300, "main", "src/main.c", 5);
	uint32_t s0[] = { a, c }, s1[] = { b, c }, s2[] = { a, b, c };

	synth_stack(p, s0, 2, 100, 1);   /* 0: alloc_node <- main */
	synth_stack(p, s1, 2, 100, 1);   /* 1: parse_json <- main */
	synth_stack(p, s2, 3, 100, 1);   /* 2: alloc_node <- parse_json <- main */

	is_int(yi_filter_new(&f, NULL, ""), 0, "no filter");
	ok(f == NULL, "no filter is NULL");
	ok(keep(f, p, 0) && keep(f, p, 1) && keep(f, p, 2), "NULL keeps everything");

	is_int(yi_filter_new(&f, "^parse_", NULL), 0, "focus");
	ok(!keep(f, p, 0), "focus drops a stack without the frame");
	ok(keep(f, p, 1), "focus keeps a leaf match");
	ok(keep(f, p, 2), "focus keeps a caller match");
	yi_filter_free(f);

	is_int(yi_filter_new(&f, "main", "alloc_node"), 0, "focus and ignore");
	ok(!keep(f, p, 0) && keep(f, p, 1) && !keep(f, p, 2), "ignore wins over focus");
	yi_filter_free(f);

	is_int(yi_filter_new(&f, "json\\.c:12$", NULL), 0, "focus on file:line");
	ok(!keep(f, p, 0) && keep(f, p, 1), "file:line matches");
	yi_filter_free(f);
	is_int(yi_filter_new(&f, "json\\.c:13$", NULL), 0, "focus on another line");
	ok(!keep(f, p, 1), "the line number counts");
	yi_filter_free(f);

	f = (yi_filter *)1;
	is_int(yi_filter_new(&f, "([", NULL), YING_EINVAL, "bad focus");
	has_str(ying_last_error(), "--focus", "the error names --focus");
	ok(f == NULL, "no filter on error");
	is_int(yi_filter_new(&f, "ok", "+*("), YING_EINVAL, "bad ignore");
	has_str(ying_last_error(), "--ignore", "the error names --ignore");
	yi_filter_free(NULL);   /* a no-op; NULL is the "no filter" value */
	ying_profile_free(p);
	return tap_done();
}
