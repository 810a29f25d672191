/*
 * test_model.c: the profile model (model.c): location interning with the
 * caller adjustment, function interning, inline chains, unsampling
 * (jeprof's AdjustSamples), stack expansion with allocator trimming, and
 * the sample-index checks, and mappings by address (yi_maps_sort/find).
 * Flat/cum aggregation (model_agg.c): the leaf gets flat, every distinct
 * function or line of a stack gets cum once (recursion), two sides, rows
 * in order of first appearance, leaf-only line rows, caller function ids.
 */
#include <math.h>

#include "internal.h"
#include "synth.h"
#include "tap.h"

static void
test_maps(void)
{
	ying_profile *p = synth_new("maps", 1);
	uint32_t idx[4] = { 0, 1, 2, 3 };

	/* given out of order, with a gap, and two starting at the same address */
	synth_map(p, "/c", 0x5000, 0x6000);
	synth_map(p, "/a", 0x1000, 0x2000);
	synth_map(p, "/b", 0x3000, 0x4000);
	synth_map(p, "/b2", 0x3000, 0x3800);
	yi_maps_sort(p, idx, 4);
	ok(idx[0] == 1 && idx[1] == 2 && idx[2] == 3 && idx[3] == 0,
	    "sorted by start, ties by index");
	is_int(yi_maps_find(p, idx, 4, 0x1000), 1, "first byte of a mapping");
	is_int(yi_maps_find(p, idx, 4, 0x1fff), 1, "last byte of a mapping");
	is_int(yi_maps_find(p, idx, 4, 0x2000), -1, "end is outside");
	is_int(yi_maps_find(p, idx, 4, 0x0fff), -1, "below every mapping");
	is_int(yi_maps_find(p, idx, 4, 0x5800), 0, "the highest mapping");
	is_int(yi_maps_find(p, idx, 4, 0x9000), -1, "above every mapping");
	is_int(yi_maps_find(p, idx, 4, 0x3100), 3, "same start: the later one");
	is_int(yi_maps_find(p, idx, 0, 0x1000), -1, "no mappings");
	ying_profile_free(p);
}

static yi_frame
F(uint32_t func, uint32_t line)
{
	yi_frame f = { func, line, 0, 0 };
	return f;
}

static void
test_agg(void)
{
	yi_frame a[4] = { F(2, 10), F(1, 5), F(2, 20), F(3, 1) };
	yi_frame b[2] = { F(1, 5), F(3, 1) };
	yi_frame c[2] = { F(2, 10), F(3, 1) };
	yi_frame r[2] = { F(4, 9), F(4, 9) };
	uint32_t remap[2] = { 7, 7 };
	yi_agg g;

	yi_agg_init(&g, YI_AGG_FUNCS | YI_AGG_LINES);
	is_int(yi_agg_stack(&g, 0, a, NULL, 4, 100), 0, "agg: a recursive stack");
	is_int(yi_agg_stack(&g, 0, b, NULL, 2, 50), 0, "agg: a second stack");
	is_int(yi_agg_stack(&g, 1, c, NULL, 2, 7), 0, "agg: a stack on side 1");
	is_int(yi_agg_stack(&g, 0, r, NULL, 2, 1), 0, "agg: same function and line twice");
	is_int(g.funcs.n, 5, "agg: function rows up to the highest id");
	ok(g.funcs.v[0].flat[0] == 0 && g.funcs.v[0].cum[0] == 0 && g.funcs.v[0].func == 0,
	    "agg: an id never counted is a zero row");
	ok(g.funcs.v[2].flat[0] == 100 && g.funcs.v[2].cum[0] == 100,
	    "agg: leaf flat; a recursive function's cum counted once per stack");
	ok(g.funcs.v[1].flat[0] == 50 && g.funcs.v[1].cum[0] == 150, "agg: caller cum, leaf flat");
	ok(g.funcs.v[3].flat[0] == 0 && g.funcs.v[3].cum[0] == 150, "agg: root: cum only");
	ok(g.funcs.v[2].flat[1] == 7 && g.funcs.v[3].cum[1] == 7 && g.funcs.v[1].cum[1] == 0,
	    "agg: side 1 kept apart");
	ok(g.funcs.v[4].flat[0] == 1 && g.funcs.v[4].cum[0] == 1, "agg: a self-call counts once");
	is_int(g.lines.n, 5, "agg: one row per function and line");
	ok(g.lines.v[0].func == 2 && g.lines.v[0].line == 10 && g.lines.v[1].func == 1 &&
	    g.lines.v[2].line == 20 && g.lines.v[3].func == 3 && g.lines.v[4].func == 4,
	    "agg: line rows in order of first appearance");
	ok(g.lines.v[0].flat[0] == 100 && g.lines.v[0].cum[0] == 100 && g.lines.v[0].flat[1] == 7,
	    "agg: the leaf line's flat and cum");
	ok(g.lines.v[2].flat[0] == 0 && g.lines.v[2].cum[0] == 100,
	    "agg: the recursive call's line: cum only");
	ok(g.lines.v[4].flat[0] == 1 && g.lines.v[4].cum[0] == 1, "agg: a repeated line counts once");
	yi_agg_release(&g);

	yi_agg_init(&g, YI_AGG_LEAF_LINES);
	is_int(yi_agg_stack(&g, 0, a, NULL, 4, 100), 0, "agg leaf lines: a stack");
	ok(g.funcs.n == 0 && g.lines.n == 1 && g.lines.v[0].line == 10 && g.lines.v[0].flat[0] == 100,
	    "agg leaf lines: only the leaf's line, no function rows");
	yi_agg_release(&g);

	yi_agg_init(&g, YI_AGG_FUNCS);
	is_int(yi_agg_stack(&g, 0, r, remap, 2, 3), 0, "agg: caller's function ids");
	ok(g.funcs.n == 8 && g.funcs.v[7].flat[0] == 3 && g.funcs.v[7].cum[0] == 3 &&
	    g.lines.n == 0, "agg: rows by the given ids, no line rows");
	yi_agg_release(&g);
}

int
main(void)
{
	test_maps();
	test_agg();
	ying_profile *p;
	uint32_t l1, l2, l3, l4, f1, f2, f3, f4;
	yi_line chain[2];
	yi_framevec fr = { 0 };
	double n, s;
	long k;

	is_int(yi_profile_new(&p, "model"), 0, "new profile");
	is_int(p->main_map, -1, "no main mapping yet");
	is_int(p->period, 1, "period 1 by default");
	is_str(yi_profile_str(p, p->funcs.v[p->unknown_func].name), "[unknown]", "[unknown] function exists");

	/* locations: leaves as dumped, callers at pc - 1 */
	is_int(yi_profile_loc(p, 0x1000, true, &l1), 0, "leaf loc");
	is_int(yi_profile_loc(p, 0x1001, false, &l2), 0, "caller loc");
	ok(l1 == l2, "a caller at 0x1001 is the leaf 0x1000");
	is_u64(p->locs.v[l1].addr, 0x1000, "adjusted address");
	is_int(yi_profile_loc(p, 0x1001, true, &l3), 0, "leaf at 0x1001");
	ok(l3 != l1, "a leaf is not adjusted");
	is_int(yi_profile_loc(p, 0, false, &l4), 0, "caller pc 0");
	is_u64(p->locs.v[l4].addr, 0, "pc 0 is not wrapped to -1");
	is_int(p->locs.n, 3, "three distinct locations");
	is_int(p->locs.v[l1].mapping, -1, "no mapping");
	is_int(p->locs.v[l1].nlines, 0, "no lines yet");

	/* functions: keyed by (name, file); sysname defaults to name */
	is_int(yi_profile_func(p, "f", NULL, "a.c", &f1), 0, "func f in a.c");
	is_int(yi_profile_func(p, "f", "_Z1fv", "a.c", &f2), 0, "func f in a.c again");
	ok(f1 == f2, "same name and file: same function");
	is_str(yi_profile_str(p, p->funcs.v[f1].sysname), "f", "first sysname kept (name)");
	is_int(yi_profile_func(p, "f", NULL, "b.c", &f3), 0, "func f in b.c");
	ok(f3 != f1, "another file: another function");
	is_int(yi_profile_func(p, "g", NULL, NULL, &f4), 0, "func g, no file");
	is_str(yi_profile_str(p, p->funcs.v[f4].file), "", "NULL file is empty");

	/* inline chain: innermost first */
	chain[0].func = f4;
	chain[0].line = 7;
	chain[1].func = f1;
	chain[1].line = 12;
	is_int(yi_profile_set_lines(p, l1, chain, 2), 0, "set an inline chain");
	is_int(p->locs.v[l1].nlines, 2, "two lines");

	/* expansion: leaf first, inlined marks, unknown frames, skip */
	{
		uint32_t locs[3] = { l3, l1, l4 };
		yi_counts raw = { 2, 2048, 0, 0 };
		synth_stack_counts(p, locs, 3, 1, &raw);   /* l3 trimmed as allocator */
		synth_stack_counts(p, locs, 1, 1, &raw);   /* everything trimmed */
	}
	k = yi_stack_expand(p, &p->stacks.v[0], &fr);
	is_int(k, 3, "two inline frames + one unsymbolized");
	ok(fr.v[0].func == f4 && fr.v[0].line == 7 && fr.v[0].inlined, "innermost inlined frame");
	ok(fr.v[1].func == f1 && fr.v[1].line == 12 && !fr.v[1].inlined, "its caller");
	ok(fr.v[0].loc == l1 && fr.v[1].loc == l1, "both on the same location");
	ok(fr.v[2].func == p->unknown_func && fr.v[2].loc == l4, "no lines: [unknown]");
	k = yi_stack_expand(p, &p->stacks.v[1], &fr);
	is_int(k, 1, "a fully trimmed stack is one frame");
	ok(fr.v[0].func == p->unknown_func && fr.v[0].loc == UINT32_MAX, "[unknown], no location");
	yi_vec_free(&fr);

	/* unsampling */
	yi_unsample(0, 0, 524288, &n, &s);
	ok(n == 0 && s == 0, "zero stays zero");
	yi_unsample(3, 0, 524288, &n, &s);
	ok(n == 3 && s == 0, "no bytes: nothing to scale");
	yi_unsample(1, 1048576, 1, &n, &s);
	ok(n == 1 && s == 1048576, "period 1: big objects unchanged");
	yi_unsample_exact(1, 16, 524288, &n, &s);
	{
		double f = 1.0 / (1.0 - exp(-(16.0 / 524288.0)));
		is_near(n, f, 1e-6, "small objects scaled up (count)");
		is_near(s, 16.0 * f, 1e-3, "small objects scaled up (bytes)");
		/* the one rounding rule: to the nearest whole unit, once */
		yi_unsample(1, 16, 524288, &n, &s);
		is_near(n, floor(f + 0.5), 0, "rounded: count");
		is_near(s, floor(16.0 * f + 0.5), 0, "rounded: bytes");
	}
	p->period = 524288;
	yi_stack_compute_values(p, &p->stacks.v[0]);
	yi_unsample(2, 2048, 524288, &n, &s);
	is_near(p->stacks.v[0].val[YING_INUSE_SPACE], s, 1e-9, "stack values use the profile period");
	is_near(p->stacks.v[0].val[YING_INUSE_OBJECTS], n, 1e-9, "objects too");
	is_near(p->stacks.v[0].val[YING_ALLOC_SPACE], 0, 0, "no accum: alloc_space 0");

	/* sample indices */
	is_int(yi_profile_check_index(p, YING_INUSE_SPACE), 0, "inuse_space available");
	is_int(yi_profile_check_index(p, YING_ALLOC_OBJECTS), YING_ENODATA, "alloc_* needs accum");
	has_str(ying_last_error(), "model", "the error names the profile");
	is_int(yi_profile_check_index(p, (ying_sample_index)7), YING_EINVAL, "bad index");
	{
		uint32_t locs[1] = { l1 };
		yi_counts raw = { 1, 100, 4, 400 };
		synth_stack_counts(p, locs, 1, 0, &raw);
	}
	is_int(yi_profile_check_index(p, YING_ALLOC_OBJECTS), 0, "accum data: alloc_* available");
	ying_profile_free(p);
	return tap_done();
}
