/*
 * test_diff.c: unit tests of the diff engine (src/lib/diff_*.c).
 *
 * Profiles are built by hand, already "symbolized" (functions and lines
 * set on every location), so the tests control exactly which frames each
 * side has: the same functions at different addresses (two runs under
 * ASLR), different lines, a same-named function in another file, a stack
 * only in NOW or only in BASE, recursion, different sample periods.  The
 * outputs are checked through the public writers (folded, JSON, text,
 * pprof read back with the pprof reader, SVG).
 */
#include <math.h>

#include "internal.h"
#include "synth.h"
#include "tap.h"

/* A profile whose frames are already symbolized; one executable mapping
 * "/usr/bin/prog" at `base`. */
static ying_profile *
mkprof(const char *name, uint64_t period, uint64_t base)
{
	ying_profile *p = synth_new(name, period);

	synth_map(p, "/usr/bin/prog", base, base + 0x1000000);
	return p;
}

static uint64_t
frame_off(const char *fn, const char *file, unsigned line)
{
	uint64_t h = yi_hash_bytes(fn, strlen(fn), line) ^ yi_hash_bytes(file, strlen(file), 7);
	return (h % 0xfff00) * 16 + 16;
}

/*
 * Add a stack: spec is "leaf@file:line;caller@file:line;...", leaf first.
 * `base` shifts every address (a different run); `salt` makes addresses
 * differ for the same frames (another call site of the same line).
 */
static void
add(ying_profile *p, uint64_t base, const char *spec, uint64_t objs, uint64_t bytes,
    uint64_t acc_objs, uint64_t acc_bytes)
{
	char buf[1024], *save = NULL, *tok;
	uint32_t locs[128];
	size_t depth = 0;
	yi_counts raw = { objs, bytes, acc_objs, acc_bytes };

	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ";", &save); tok && depth < 128;
	    tok = strtok_r(NULL, ";", &save)) {
		char *at = strchr(tok, '@'), *colon;
		const char *file = "", *name = tok;
		uint32_t line = 0;
		uint64_t pc;

		if (at) {
			*at = '\0';
			file = at + 1;
			if ((colon = strrchr(at + 1, ':')) != NULL) {
				*colon = '\0';
				line = (uint32_t)atoi(colon + 1);
			}
		}
		pc = base + frame_off(tok, file, line) + (depth ? 1 : 0);
		locs[depth] = synth_loc_at(p, pc, depth == 0, 0, &name, &name, &file,
		    &line, 1);
		depth++;
	}
	synth_stack_counts(p, locs, depth, 0, &raw);
}

static char *
folded(ying_diff *d)
{
	ying_membuf b = YING_MEMBUF_INIT;

	if (ying_diff_write_folded(d, ying_write_membuf, &b) != 0)
		return NULL;
	return b.data ? b.data : yi_strdup("");
}

static char *
report(ying_diff *d, const ying_diff_opts *o)
{
	ying_membuf b = YING_MEMBUF_INIT;
	int rc = ying_diff_write_text(d, o, ying_write_membuf, &b);

	if (rc != 0) {
		printf("# write_text: %s\n", ying_last_error());
		ying_membuf_release(&b);
		return NULL;
	}
	return b.data;
}

static int
count_lines(const char *s)
{
	int n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

#define MAIN "main@prog.c:50"

static void
test_matching(void)
{
	ying_profile *b = mkprof("base.heap", 1, 0x555500000000ULL);
	ying_profile *n = mkprof("now.heap", 1, 0x563200000000ULL);  /* another run */
	ying_diff *d = NULL;
	double tb, tn, td;
	size_t m, a, g;
	char *s;

	/* unchanged, at different addresses in the two runs */
	add(b, 0x555500000000ULL, "keep_a@prog.c:10;" MAIN, 64, 262144, 0, 0);
	add(n, 0x563200000000ULL, "keep_a@prog.c:10;" MAIN, 64, 262144, 0, 0);
	/* grew by 40960, line numbers moved (another build): still matched */
	add(b, 0x555500000000ULL, "grow@prog.c:20;" MAIN, 10, 40960, 0, 0);
	add(n, 0x563200000000ULL, "grow@prog.c:22;main@prog.c:51", 20, 81920, 0, 0);
	/* only in NOW */
	add(n, 0x563200000000ULL, "fresh@prog.c:30;helper@util.c:5;" MAIN, 3, 12288, 0, 0);
	/* only in BASE */
	add(b, 0x555500000000ULL, "gone@prog.c:40;" MAIN, 2, 8192, 0, 0);
	/* same function name in another file: a different function */
	add(b, 0x555500000000ULL, "dup@a.c:1;" MAIN, 1, 4096, 0, 0);
	add(n, 0x563200000000ULL, "dup@b.c:1;" MAIN, 1, 4096, 0, 0);

	ok(synth_diff(&d, b, n, YING_INUSE_SPACE) == 0, "diff built");
	ying_diff_totals(&tb, &tn, &td, d);
	is_near(tb, 262144 + 40960 + 8192 + 4096, 1e-6, "base total");
	is_near(tn, 262144 + 81920 + 12288 + 4096, 1e-6, "now total");
	is_near(td, 40960 + 12288 - 8192, 1e-6, "delta");
	ying_diff_stack_counts(&m, &a, &g, d);
	is_int(m, 2, "matched stacks (keep_a, grow)");
	is_int(a, 2, "new stacks (fresh, dup@b.c)");
	is_int(g, 2, "gone stacks (gone, dup@a.c)");

	s = folded(d);
	has_str(s, "main;keep_a 262144 262144\n", "folded: unchanged stack matched across addresses");
	has_str(s, "main;grow 40960 81920\n", "folded: stack matched although lines differ");
	has_str(s, "main;helper;fresh 0 12288\n", "folded: new stack");
	has_str(s, "main;gone 8192 0\n", "folded: gone stack");
	has_str(s, "main;dup 4096 0\n", "folded: dup@a.c only in base");
	has_str(s, "main;dup 0 4096\n", "folded: dup@b.c only in now");
	is_int(count_lines(s), 6, "folded: one line per diff stack");
	yi_free(s);

	{
		ying_diff_opts o = YING_DIFF_OPTS_INIT;
		o.json = 1;
		s = report(d, &o);
		has_str(s, "\"base_total\":315392,\"now_total\":360448,\"delta\":45056,",
		    "json: totals unrounded");
		has_str(s, "\"unit\":\"bytes\",\"sample_index\":\"inuse_space\"", "json: unit and index");
		has_str(s, "{\"function\":\"grow\",\"full_name\":\"grow\",\"file\":\"prog.c\",\"line\":22,\"base\":40960,"
		    "\"now\":81920,\"delta\":40960,\"delta_lo\":40960,\"delta_hi\":40960,\"significant\":true,"
		    "\"cum_base\":40960,\"cum_now\":81920,\"cum_delta\":40960,"
		    "\"cum_delta_lo\":40960,\"cum_delta_hi\":40960,\"cum_significant\":true}", "json: grow row (line that changed most)");
		has_str(s, "{\"function\":\"gone\",\"full_name\":\"gone\",\"file\":\"prog.c\",\"line\":40,\"base\":8192,"
		    "\"now\":0,\"delta\":-8192", "json: gone row");
		has_str(s, "\"function\":\"main\",\"full_name\":\"main\",\"file\":\"prog.c\",\"line\":", "json: has main");
		ok(strstr(s, "\"function\":\"keep_a\"") == NULL, "json: unchanged function not listed");
		has_str(s, "\"new_stacks\":[\n{\"base\":0,\"now\":12288,\"delta\":12288,\"delta_lo\":12288,"
		    "\"delta_hi\":12288,\"significant\":true,\"frames\":["
		    "{\"function\":\"fresh\",\"full_name\":\"fresh\",\"file\":\"prog.c\",\"line\":30,\"inlined\":false},"
		    "{\"function\":\"helper\",\"full_name\":\"helper\",\"file\":\"util.c\",\"line\":5,\"inlined\":false},"
		    "{\"function\":\"main\",\"full_name\":\"main\",\"file\":\"prog.c\",\"line\":50,\"inlined\":false}]}",
		    "json: new stack with frames");
		/* rows sorted by delta: grow first */
		ok(s && strstr(s, "\"function\":\"grow\"") < strstr(s, "\"function\":\"fresh\"") &&
		    strstr(s, "\"function\":\"fresh\"") < strstr(s, "\"function\":\"gone\""),
		    "json: rows sorted by delta");
		yi_free(s);
	}
	{
		ying_diff_opts o = YING_DIFF_OPTS_INIT;
		s = report(d, &o);
		has_str(s, "Delta:", "text: summary");
		has_str(s, "Delta:     +44.0 KiB  (+14.3%)  +45056 bytes", "text: delta formatted");
		has_str(s, "(+14.3%)", "text: delta percent");
		has_str(s, "Top growth, flat (3 of 3):", "text: growth section: the 3 flat changes only");
		{
			const char *gr = s ? strstr(s, "Top growth") : NULL;
			const char *e = gr ? strstr(gr, "New stacks") : NULL;
			const char *mn = gr ? strstr(gr, "main (") : NULL;
			const char *h = gr ? strstr(gr, "helper (") : NULL;
			ok(gr && e && (mn == NULL || mn > e) && (h == NULL || h > e),
			    "text: no flat list row for main or helper (flat change 0)");
			ok(s && strstr(s, "\n          0 B ") == NULL && strstr(s, "\n         -0 B ") == NULL,
			    "text: no row with a 0 B flat change");
		}
		has_str(s, "dup (b.c:1)", "text: same name in another file is its own row");
		has_str(s, "grow (prog.c:22)", "text: grow row with file:line");
		has_str(s, "Top shrink, flat (2 of 2):", "text: shrink section");
		has_str(s, "gone (prog.c:40)", "text: shrink row");
		has_str(s, "New stacks in NOW (2 of 2", "text: new stacks section");
		has_str(s, "      helper (util.c:5)\n", "text: new stack frames");
		yi_free(s);

		o.min_delta = 10000;
		s = report(d, &o);
		has_str(s, "Top growth, flat (2 of 2):",
		    "min_delta filters on the flat change: grow, fresh (not helper, main: cum only)");
		has_str(s, "Top shrink, flat (0 of 0):", "min_delta hides the 8 KiB shrink");
		has_str(s, "New stacks in NOW (1 of 1", "min_delta hides the 4 KiB new stack");
		yi_free(s);

		o.min_delta = 0;
		o.cum = 1;
		s = report(d, &o);
		has_str(s, "Top growth, cumulative (5 of 5):",
		    "cum: grow, fresh, dup, helper and main (cum +44 KiB, flat 0)");
		has_str(s, "main (prog.c:", "cum: main is listed");
		yi_free(s);
		o.min_delta = 40000;
		s = report(d, &o);
		has_str(s, "Top growth, cumulative (2 of 2):",
		    "cum + min_delta 40000: grow (+40 KiB) and main (+44 KiB), by the cum change");
		yi_free(s);
		o.cum = 0;
		o.min_delta = 0;
		o.version = 1;    /* the old layout is not accepted any more */
		is_int(ying_diff_write_text(d, &o, ying_write_membuf, NULL), YING_EINVAL,
		    "ying_diff_opts version 1 is EINVAL (one version per struct)");
		has_str(ying_last_error(), "ying_diff_opts", "... naming the struct");
		o.version = YING_DIFF_OPTS_VERSION;
		o.limit = 1;
		s = report(d, &o);
		has_str(s, "Top growth, flat (1 of 3):", "limit 1");
		{
			const char *gr = s ? strstr(s, "Top growth") : NULL;
			const char *e = gr ? strstr(gr, "Top shrink") : NULL;
			const char *f = gr ? strstr(gr, "fresh") : NULL;
			ok(gr && e && f && f > e, "limit 1: fresh not in the growth section");
		}
		yi_free(s);

		o.limit = 0;
		o.granularity = YING_BY_LINE;
		o.json = 1;
		s = report(d, &o);
		has_str(s, "{\"function\":\"grow\",\"full_name\":\"grow\",\"file\":\"prog.c\",\"line\":22,\"base\":0,"
		    "\"now\":81920,\"delta\":81920,", "by line: grow:22 grew");
		has_str(s, "{\"function\":\"grow\",\"full_name\":\"grow\",\"file\":\"prog.c\",\"line\":20,\"base\":40960,"
		    "\"now\":0,\"delta\":-40960,", "by line: grow:20 shrank");
		ok(s && strstr(s, "\"delta\":0,") == NULL, "by line: no row whose flat change is 0");
		yi_free(s);

		o.granularity = YING_BY_STACK;
		s = report(d, &o);
		has_str(s, "\"granularity\":\"stack\"", "by stack json");
		has_str(s, "{\"function\":\"grow\",\"full_name\":\"grow\",\"file\":\"prog.c\",\"line\":0,\"base\":40960,"
		    "\"now\":81920,\"delta\":40960,\"delta_lo\":40960,\"delta_hi\":40960,"
		    "\"significant\":true,\"stack\":{", "by stack: grow row");
		yi_free(s);
	}
	ying_diff_free(d);

	/* with --focus: only kept stacks count */
	{
		ying_diff_build_opts bo = YING_DIFF_BUILD_OPTS_INIT;
		bo.focus = "^grow$|helper";
		ok(ying_diff_build(&d, b, n, &bo) == 0, "focus diff built");
		ying_diff_totals(&tb, &tn, &td, d);
		is_near(tb, 40960, 1e-6, "focus: base total");
		is_near(tn, 81920 + 12288, 1e-6, "focus: now total");
		ying_diff_free(d);
		bo.focus = NULL;
		bo.ignore = "util\\.c";
		ok(ying_diff_build(&d, b, n, &bo) == 0, "ignore diff built");
		ying_diff_totals(NULL, &tn, NULL, d);
		is_near(tn, 262144 + 81920 + 4096, 1e-6, "ignore: fresh dropped by file");
		ying_diff_free(d);
		bo.ignore = "(";
		is_int(ying_diff_build(&d, b, n, &bo), YING_EINVAL, "bad regex -> EINVAL");
		ok(d == NULL, "out NULL on failure");
	}
	ying_profile_free(b);
	ying_profile_free(n);
}

static void
test_rates_and_indices(void)
{
	ying_profile *b = mkprof("b", 524288, 0x1000000);
	ying_profile *n = mkprof("n", 1, 0x2000000);
	ying_diff *d = NULL;
	double tb, tn, f;
	char *s;

	/* BASE sampled at 512 KiB: 1 x 64 KiB is scaled by 1/(1-e^-0.125) */
	add(b, 0x1000000, "x@x.c:1;" MAIN, 1, 65536, 0, 0);
	add(n, 0x2000000, "x@x.c:1;" MAIN, 1, 65536, 0, 0);
	ok(synth_diff(&d, b, n, YING_INUSE_SPACE) == 0, "diff across rates");
	ying_diff_totals(&tb, &tn, NULL, d);
	f = 1.0 / (1.0 - exp(-65536.0 / 524288.0));
	is_near(tb, floor(65536 * f + 0.5), 1e-6, "base unsampled at its own rate (rounded once)");
	is_near(tn, 65536, 1e-9, "now exact at rate 1");
	ying_diff_free(d);

	ok(synth_diff(&d, b, n, YING_INUSE_OBJECTS) == 0, "objects diff");
	ying_diff_totals(&tb, &tn, NULL, d);
	is_near(tb, floor(f + 0.5), 1e-9, "objects: base (rounded once)");
	is_near(tn, 1, 1e-9, "objects: now");
	{
		ying_diff_opts o = YING_DIFF_OPTS_INIT;
		o.json = 1;
		s = report(d, &o);
		has_str(s, "\"unit\":\"objects\",\"sample_index\":\"inuse_objects\"", "objects unit");
		yi_free(s);
	}
	ying_diff_free(d);

	is_int(synth_diff(&d, b, n, YING_ALLOC_SPACE), YING_ENODATA,
	    "alloc_space without prof_accum -> ENODATA");
	ok(d == NULL, "no diff on failure");
	ying_profile_free(b);
	ying_profile_free(n);

	/* accum data on both sides: alloc_space diffs too */
	b = mkprof("b", 1, 0x1000000);
	n = mkprof("n", 1, 0x1000000);
	add(b, 0x1000000, "x@x.c:1;" MAIN, 1, 4096, 5, 20480);
	add(n, 0x1000000, "x@x.c:1;" MAIN, 0, 0, 9, 36864);
	ok(synth_diff(&d, b, n, YING_ALLOC_SPACE) == 0, "alloc_space diff");
	ying_diff_totals(&tb, &tn, NULL, d);
	is_near(tn - tb, 16384, 1e-9, "alloc_space delta");
	ying_diff_free(d);
	ok(synth_diff(&d, b, n, YING_INUSE_SPACE) == 0, "inuse diff of accum dumps");
	ying_diff_totals(&tb, &tn, NULL, d);
	is_near(tn - tb, -4096, 1e-9, "inuse delta negative");
	s = folded(d);
	has_str(s, "main;x 4096 0\n", "folded of freed stack");
	yi_free(s);
	ying_diff_free(d);
	ying_profile_free(b);
	ying_profile_free(n);
}

static void
test_recursion(void)
{
	ying_profile *b = mkprof("b", 1, 0x1000000);
	ying_profile *n = mkprof("n", 1, 0x1000000);
	ying_diff *d = NULL;
	ying_diff_opts o = YING_DIFF_OPTS_INIT;
	char *s;

	add(n, 0x1000000, "rec@r.c:3;rec@r.c:4;rec@r.c:4;" MAIN, 1, 1024, 0, 0);
	ok(synth_diff(&d, b, n, YING_INUSE_SPACE) == 0, "diff against an empty base");
	o.json = 1;
	s = report(d, &o);
	has_str(s, "\"function\":\"rec\",\"full_name\":\"rec\",\"file\":\"r.c\",\"line\":3,\"base\":0,\"now\":1024,"
	    "\"delta\":1024,\"delta_lo\":1024,\"delta_hi\":1024,\"significant\":true,"
	    "\"cum_base\":0,\"cum_now\":1024,", "recursion counted once in cum");
	has_str(s, "\"delta_percent\":null", "no percentage against an empty base");
	yi_free(s);
	ying_diff_free(d);
	ying_profile_free(b);
	ying_profile_free(n);
}

static void
test_pprof(void)
{
	ying_profile *b = mkprof("base.heap", 1, 0x555500000000ULL);
	ying_profile *n = mkprof("now.heap", 1, 0x563200000000ULL);
	ying_profile *q = NULL, *r = NULL;
	ying_membuf buf = YING_MEMBUF_INIT;
	ying_diff *d = NULL;
	double t;
	size_t i;
	int neg = 0, found_gone = 0;

	add(b, 0x555500000000ULL, "keep@p.c:1;" MAIN, 4, 16384, 0, 0);
	add(n, 0x563200000000ULL, "keep@p.c:1;" MAIN, 4, 16384, 0, 0);
	add(b, 0x555500000000ULL, "grow@p.c:2;" MAIN, 1, 4096, 0, 0);
	add(n, 0x563200000000ULL, "grow@p.c:2;" MAIN, 3, 12288, 0, 0);
	add(b, 0x555500000000ULL, "gone@p.c:3;" MAIN, 2, 2048, 0, 0);
	ok(synth_diff(&d, b, n, YING_INUSE_SPACE) == 0, "pprof: diff built");

	ok(yi_diff_profile(d, &q) == 0 && q != NULL, "synthetic profile built");
	if (q) {
		is_int(q->format, YI_FMT_PPROF, "synthetic: pprof format (never re-symbolized)");
		ok(q->symbolized, "synthetic: symbolized");
		is_int(q->stacks.n, 2, "synthetic: unchanged stack left out");
		is_int(q->maps.n, 1, "synthetic: NOW's mappings");
		is_u64(q->maps.v[0].start, 0x563200000000ULL, "synthetic: NOW's mapping start");
		ying_profile_total(&t, q, YING_INUSE_SPACE);
		is_near(t, 8192 - 2048, 1e-9, "synthetic: total = delta");
		for (i = 0; i < q->stacks.n; i++) {
			const yi_stack *st = &q->stacks.v[i];
			const yi_loc *l = &q->locs.v[q->frames.v[st->frame_off]];
			const char *fn = yi_profile_str(q, q->funcs.v[q->lines.v[l->line_off].func].name);
			if (st->val[YING_INUSE_SPACE] < 0)
				neg++;
			if (strcmp(fn, "gone") == 0) {
				found_gone = 1;
				is_near(st->val[YING_INUSE_SPACE], -2048, 1e-9, "synthetic: gone is negative");
				is_near(st->val[YING_INUSE_OBJECTS], -2, 1e-9, "synthetic: objects delta");
				/* moved from BASE's address space into NOW's mapping */
				is_u64(l->addr - 0x563200000000ULL, frame_off("gone", "p.c", 3),
				    "synthetic: BASE address moved into NOW's mapping");
				is_int(l->mapping, 0, "synthetic: mapping index");
				/* built with the model's constructors, so the
				 * model's address index knows the location */
				ok(yi_map64_get(&q->loc_by_addr, l->addr) != NULL &&
				    *yi_map64_get(&q->loc_by_addr, l->addr) == q->frames.v[st->frame_off],
				    "synthetic: location found by address (yi_profile_loc_distinct)");
			}
		}
		is_int(neg, 1, "synthetic: one negative stack");
		ok(found_gone, "synthetic: gone stack present");
	}
	ying_profile_free(q);

	ok(ying_diff_write_pprof(d, NULL, ying_write_membuf, &buf) == 0, "pprof written");
	ok(buf.len > 20 && (unsigned char)buf.data[0] == 0x1f, "pprof is gzipped");
	if (ying_profile_read_mem(&r, buf.data, buf.len, "diff.pb.gz") == 0) {
		ok(1, "pprof read back");
		ying_profile_total(&t, r, YING_INUSE_SPACE);
		is_near(t, 6144, 1e-6, "pprof read back: total = delta (negative sample kept)");
	} else {
		ok(0, "pprof read back");
		printf("# %s\n", ying_last_error());
	}
	ying_profile_free(r);
	ying_membuf_release(&buf);
	ying_diff_free(d);
	ying_profile_free(b);
	ying_profile_free(n);
}

static void
test_svg(void)
{
	ying_profile *b = mkprof("base.heap", 1, 0x1000000);
	ying_profile *n = mkprof("now.heap", 1, 0x2000000);
	ying_membuf buf = YING_MEMBUF_INIT;
	ying_diff *d = NULL;

	add(b, 0x1000000, "shrinker@s.c:1;" MAIN, 10, 40960, 0, 0);
	add(n, 0x2000000, "shrinker@s.c:1;" MAIN, 5, 20480, 0, 0);
	add(n, 0x2000000, "grower_fn@s.c:2;" MAIN, 50, 204800, 0, 0);
	ok(synth_diff(&d, b, n, YING_INUSE_SPACE) == 0, "svg: diff built");
	ok(ying_diff_write_svg(d, NULL, ying_write_membuf, &buf) == 0, "svg written");
	has_str(buf.data, "<svg", "svg: an svg element");
	has_str(buf.data, "grower_fn", "svg: grown function drawn");
	has_str(buf.data, "shrinker", "svg: shrunk function drawn");
	has_str(buf.data, "NOW minus BASE", "svg: default title");
	ying_membuf_release(&buf);
	ying_diff_free(d);
	ying_profile_free(b);
	ying_profile_free(n);
}

static void
test_args(void)
{
	ying_profile *p = mkprof("p", 1, 0x1000000);
	ying_diff *d = (ying_diff *)&d;
	ying_diff_opts o = YING_DIFF_OPTS_INIT;
	ying_diff_build_opts bo = YING_DIFF_BUILD_OPTS_INIT;
	double t = 1;

	is_int(synth_diff(&d, NULL, p, YING_INUSE_SPACE), YING_EINVAL, "NULL base");
	ok(d == NULL, "out cleared");
	is_int(synth_diff(NULL, p, p, YING_INUSE_SPACE), YING_EINVAL, "NULL out");
	is_int(synth_diff(&d, p, p, (ying_sample_index)9), YING_EINVAL, "bad index");
	bo.version = 99;
	is_int(ying_diff_build(&d, p, p, &bo), YING_EINVAL, "bad build opts version");
	ok(synth_diff(&d, p, p, YING_INUSE_SPACE) == 0, "empty vs empty");
	o.version = 99;
	is_int(ying_diff_write_text(d, &o, ying_write_membuf, NULL), YING_EINVAL, "bad opts version");
	is_int(ying_diff_write_text(NULL, NULL, ying_write_membuf, NULL), YING_EINVAL, "NULL diff");
	is_int(ying_diff_write_folded(d, NULL, NULL), YING_EINVAL, "NULL sink");
	ying_diff_totals(&t, NULL, NULL, NULL);
	is_near(t, 0, 0, "totals of NULL diff");
	{
		ying_membuf b = YING_MEMBUF_INIT;
		ok(ying_diff_write_text(d, NULL, ying_write_membuf, &b) == 0, "empty diff report");
		has_str(b.data, "Top growth, flat (0 of 0):\n  (none)", "empty diff: no rows");
		ying_membuf_release(&b);
	}
	ying_diff_free(d);
	ying_diff_free(NULL);
	/* a heap_v2 dump cut before MAPPED_LIBRARIES cannot be matched */
	add(p, 0x1000000, "x@x.c:1;" MAIN, 1, 4096, 0, 0);
	p->has_maps = false;
	is_int(synth_diff(&d, p, p, YING_INUSE_SPACE), YING_EPARSE, "no maps section -> EPARSE");
	has_str(ying_last_error(), "truncated", "no maps: says truncated");
	p->format = YI_FMT_PPROF;
	ok(synth_diff(&d, p, p, YING_INUSE_SPACE) == 0, "pprof input needs no maps section");
	ying_diff_free(d);
	ying_profile_free(p);
}

/* The one folded rule (write.h): control characters in names become
 * spaces, ';' becomes ':', values are truncated toward zero as
 * `ying folded` does (they were rounded here before). */
static void
test_folded_rule(void)
{
	ying_profile *b = mkprof("fb", 524288, 0x400000), *n = mkprof("fn", 524288, 0x400000);
	ying_diff *d = NULL;
	double tb, tn, td;
	char want[128], *s;

	add(b, 0x400000, "odd\tname;" MAIN, 1, 100, 0, 0);
	add(n, 0x400000, "odd\tname;" MAIN, 3, 301, 0, 0);
	is_int(synth_diff(&d, b, n, YING_INUSE_SPACE), 0, "folded rule: diff built");
	ying_diff_totals(&tb, &tn, &td, d);
	/* the estimates of sampled stacks are rounded once, when read */
	ok(tb == trunc(tb) && tn == trunc(tn) && tb > 100 && tn > 301,
	    "sampled values: whole numbers, unsampled");
	snprintf(want, sizeof(want), "main;odd name %.0f %.0f\n", tb, tn);
	s = folded(d);
	has_str(s, want, "folded diff: tab cleaned to a space, the same whole numbers");
	yi_free(s);
	ying_diff_free(d);
	ying_profile_free(b);
	ying_profile_free(n);
}

int
main(void)
{
	test_folded_rule();
	test_matching();
	test_rates_and_indices();
	test_recursion();
	test_pprof();
	test_svg();
	test_args();
	return tap_done();
}
