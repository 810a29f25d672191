/*
 * test_write_jeprof.c: jeprof's forms (write_jeprof.c) and the sum/base of
 * profiles (diff_merge.c) on profiles built in memory: the exact text of
 * jeprof's table (widths, units, Total only when not 0, percentages of the
 * kept stacks, "nan"/"+inf"/"-inf", sort by flat or cum then by name),
 * inline rows, recursion counted once, the four granularities, the raw
 * symbolized form, merging by symbols (not addresses), --base and
 * drop_negative, and the errors.
 */
#include "tap.h"
#include "synth.h"

static char *
text(ying_profile *p, const ying_jeprof_opts *o, int *rc)
{
	ying_membuf b = YING_MEMBUF_INIT;

	*rc = ying_profile_write_jeprof(p, o, ying_write_membuf, &b);
	return b.data ? b.data : strdup("");
}

static void
test_table(void)
{
	ying_profile *p = synth_fan(0);
	ying_jeprof_opts o = YING_JEPROF_OPTS_INIT;
	char *t;
	int rc;

	o.show_bytes = 1;
	t = text(p, &o, &rc);
	is_int(rc, 0, "write_jeprof succeeds");
	is_str(t, "Total: 1000 B\n"
	    "     600  60.0%  60.0%      600  60.0% a\n"
	    "     300  30.0%  90.0%      300  30.0% b\n"
	    "     100  10.0% 100.0%      100  10.0% c\n"
	    "       0   0.0% 100.0%     1000 100.0% main\n",
	    "--show_bytes: jeprof's widths, sort by flat, rows with cum only last");
	free(t);

	o.show_bytes = 0;
	t = text(p, &o, &rc);
	is_str(t, "Total: 0.0 MB\n"
	    "     0.0  60.0%  60.0%      0.0  60.0% a\n"
	    "     0.0  30.0%  90.0%      0.0  30.0% b\n"
	    "     0.0  10.0% 100.0%      0.0  10.0% c\n"
	    "     0.0   0.0% 100.0%      0.0 100.0% main\n",
	    "MB with one decimal by default");
	free(t);

	o.sample_index = YING_INUSE_OBJECTS;
	o.sort_cum = 1;
	t = text(p, &o, &rc);
	is_str(t, "Total: 10 objects\n"
	    "       0   0.0%   0.0%       10 100.0% main\n"
	    "       6  60.0%  60.0%        6  60.0% a\n"
	    "       3  30.0%  90.0%        3  30.0% b\n"
	    "       1  10.0% 100.0%        1  10.0% c\n",
	    "objects as integers; --cum sorts by cum");
	free(t);

	o = (ying_jeprof_opts)YING_JEPROF_OPTS_INIT;
	o.show_bytes = 1;
	o.focus = "^b$";
	t = text(p, &o, &rc);
	is_str(t, "Total: 1000 B\n"
	    "     300 100.0% 100.0%      300 100.0% b\n"
	    "       0   0.0% 100.0%      300 100.0% main\n",
	    "--focus: Total of the whole profile, percentages of the kept stacks");
	free(t);

	o.focus = "(";
	t = text(p, &o, &rc);
	is_int(rc, YING_EINVAL, "a bad regex is YING_EINVAL");
	free(t);
	o.focus = NULL;
	o.granularity = YING_BY_STACK;
	t = text(p, &o, &rc);
	is_int(rc, YING_EINVAL, "YING_BY_STACK is YING_EINVAL");
	free(t);
	ying_profile_free(p);
}

static void
test_names(void)
{
	ying_profile *p = synth_new("names", 1);
	const char *chain[] = { "inner", "outer" }, *files[] = { "i.c", "o.c" };
	const uint32_t lines[] = { 10, 20 };
	uint32_t in = synth_loc(p, 0x5000, chain, files, lines, 2);
	uint32_t r = synth_fn(p, 0x6000, "rec", "r.c", 7);
	uint32_t r2 = synth_fn(p, 0x6100, "rec", "r.c", 8);
	uint32_t z = synth_fn(p, 0x7000, "zz", "", 0);
	uint32_t y = synth_fn(p, 0x7100, "aa", "", 0);
	uint32_t s1[] = { in }, s2[] = { r, r2, r }, s3[] = { z }, s4[] = { y };
	ying_jeprof_opts o = YING_JEPROF_OPTS_INIT;
	char *t;
	int rc;

	synth_stack(p, s1, 1, 400, 4);
	synth_stack(p, s2, 3, 300, 3);
	synth_stack(p, s3, 1, 150, 1);
	synth_stack(p, s4, 1, 150, 1);
	o.show_bytes = 1;
	t = text(p, &o, &rc);
	is_str(t, "Total: 1000 B\n"
	    "     400  40.0%  40.0%      400  40.0% inner (inline)\n"
	    "     300  30.0%  70.0%      300  30.0% rec\n"
	    "     150  15.0%  85.0%      150  15.0% aa\n"
	    "     150  15.0% 100.0%      150  15.0% zz\n"
	    "       0   0.0% 100.0%      400  40.0% outer\n",
	    "inlined frame 'NAME (inline)'; recursion counted once; ties by name");
	free(t);

	o.granularity = YING_BY_LINE;
	t = text(p, &o, &rc);
	has_str(t, "% inner (inline) i.c:10\n", "--lines: NAME FILE:LINE");
	has_str(t, "     300  30.0%  70.0%      300  30.0% rec r.c:7\n", "--lines: rec's leaf line");
	has_str(t, "       0   0.0% 100.0%      300  30.0% rec r.c:8\n", "--lines: and its caller line");
	has_str(t, "% zz ??:0\n", "--lines: no file is ??:0");
	free(t);

	o.granularity = YING_BY_ADDRESS;
	t = text(p, &o, &rc);
	has_str(t, "% 0000000000005000 inner (inline) i.c:10\n", "--addresses: 16 hex digits first");
	free(t);

	o.granularity = YING_BY_FILE;
	t = text(p, &o, &rc);
	has_str(t, "     400  40.0%  40.0%      400  40.0% i.c\n", "--files: a row per file");
	has_str(t, "% 0000000000007000\n", "--files: no file, the address");
	free(t);

	o.granularity = YING_BY_FUNCTION;
	o.list = "^rec$";
	t = text(p, &o, &rc);
	is_int(rc, 0, "--list");
	has_str(t, "ROUTINE ====================== rec in r.c\n"
	    "   300    300 Total B (flat / cumulative)\n", "--list: jeprof's ROUTINE header");
	has_str(t, "source not readable: r.c", "--list: an unreadable file is said");
	has_str(t, "   300    300    7: ?\n     .    300    8: ?\n", "--list: values per line");
	free(t);
	o.list = "^nothing$";
	t = text(p, &o, &rc);
	is_int(rc, YING_ENOTFOUND, "--list matching nothing: YING_ENOTFOUND");
	free(t);
	ying_profile_free(p);
}

static void
test_raw(void)
{
	ying_profile *p = synth_new("raw", 1024);
	uint32_t m = synth_loc_at(p, 0x1001, false, -1, (const char *[]){ "main" }, NULL, NULL, NULL, 1);
	uint32_t a = synth_loc_at(p, 0x2000, true, -1, (const char *[]){ "a" }, NULL, NULL, NULL, 1);
	uint32_t s[] = { a, m };
	yi_counts raw = { 2, 4096, 3, 8192 };
	ying_membuf b = YING_MEMBUF_INIT;
	int rc;

	synth_stack_counts(p, s, 2, 0, &raw);
	rc = ying_profile_write_raw(p, "/bin/prog", ying_write_membuf, &b);
	is_int(rc, 0, "write_raw");
	has_str(b.data, "--- symbol\nbinary=/bin/prog\n", "symbol section and binary=");
	has_str(b.data, "0x0000000000001000 main\n", "callers named at pc - 1");
	has_str(b.data, "---\n--- heap\nheap_v2/1024\n", "then the heap section");
	has_str(b.data, "@ 0x2000 0x1001\n  t*: 2: 4096 [3: 8192]\n",
	    "stacks as dumped: callers at pc again (jeprof subtracts 1)");
	ying_membuf_release(&b);
	ying_profile_free(p);
}

static void
test_merge(void)
{
	ying_profile *x = synth_fan(0), *y = synth_fan(0x100000), *big = synth_fan(0x200000);
	ying_profile *q = NULL;
	ying_profile *in[2];
	ying_merge_opts mo = YING_MERGE_OPTS_INIT;
	ying_jeprof_opts o = YING_JEPROF_OPTS_INIT;
	ying_membuf b = YING_MEMBUF_INIT;
	double tot;
	char *t;
	int rc;

	in[0] = x;
	in[1] = y;
	rc = ying_profile_merge(&q, in, 2, NULL, &mo);
	is_int(rc, 0, "merge two profiles");
	ying_profile_total(&tot, q, YING_INUSE_SPACE);
	ok(tot == 2000 && ying_profile_nstacks(q) == 3,
	    "stacks at other addresses are matched by their names: 3 stacks, 2000");
	ying_profile_free(q);

	rc = ying_profile_merge(&q, in, 1, y, &mo);
	o.show_bytes = 1;
	t = text(q, &o, &rc);
	is_str(t, "", "a profile minus the same profile elsewhere: nothing, no Total line");
	free(t);
	ying_profile_free(q);

	/* b grows in big: x minus big' where big has b at 300 + 500 */
	{
		uint32_t m = synth_fn(big, 0x2ff000, "main", "m.c", 1);
		uint32_t bb = synth_fn(big, 0x2fe000, "b", "b.c", 3);
		uint32_t s[] = { bb, m };
		synth_stack(big, s, 2, 500, 5);
	}
	rc = ying_profile_merge(&q, in, 1, big, &mo);
	is_int(rc, 0, "merge with a base");
	t = text(q, &o, &rc);
	is_str(t, "Total: -500 B\n"
	    "       0  -0.0%  -0.0%     -500 100.0% main\n"
	    "    -500 100.0% 100.0%     -500 100.0% b\n",
	    "--base: a and c cancel (left out), negative values sort last, jeprof's -0.0%");
	free(t);
	ying_profile_free(q);

	mo.drop_negative = 1;
	rc = ying_profile_merge(&q, in, 1, big, &mo);
	ying_profile_total(&tot, q, YING_INUSE_SPACE);
	ok(rc == 0 && tot == 0, "drop_negative: the negative stack counts 0");
	rc = ying_profile_write_raw(q, NULL, ying_write_membuf, &b);
	is_int(rc, YING_ENOTSUP, "a merged profile has no raw form");
	ying_membuf_release(&b);
	ying_profile_free(q);

	rc = ying_profile_merge(&q, in, 0, NULL, NULL);
	ok(rc == YING_EINVAL && q == NULL, "no profile: YING_EINVAL");
	ying_profile_free(x);
	ying_profile_free(y);
	ying_profile_free(big);
}

static void
test_inf(void)
{
	ying_profile *p = synth_new("inf", 1), *neg = synth_new("neg", 1), *q = NULL;
	uint32_t a = synth_fn(p, 0x1000, "a", "", 0), b = synth_fn(neg, 0x2000, "b", "", 0);
	uint32_t s1[] = { a }, s2[] = { b };
	ying_jeprof_opts o = YING_JEPROF_OPTS_INIT;
	char *t;
	int rc;

	synth_stack(p, s1, 1, 100, 1);
	synth_stack(neg, s2, 1, 100, 1);
	rc = ying_profile_merge(&q, &p, 1, neg, NULL);
	o.show_bytes = 1;
	t = text(q, &o, &rc);
	is_str(t, "     100   +inf   +inf      100   +inf a\n"
	    "    -100   -inf    nan     -100   -inf b\n",
	    "a kept total of 0: no Total line, jeprof's +inf/-inf/nan");
	free(t);
	ying_profile_free(q);
	ying_profile_free(p);
	ying_profile_free(neg);
}

/* ying_profile_merge_labeled: each input kept apart under its label value,
 * which a pprof written and read again still carries. */
static void
test_merge_labeled(void)
{
	ying_profile *x = synth_fan(0), *y = synth_fan(0x100000), *q = NULL, *r = NULL;
	ying_profile *in[2] = { x, y };
	const int64_t pids[2] = { 100, 200 };
	ying_pprof_opts po = YING_PPROF_OPTS_INIT;
	ying_membuf b = YING_MEMBUF_INIT;
	double tot, by[2] = { 0, 0 };
	bool labels_ok = true;
	int rc;

	rc = ying_profile_merge_labeled(&q, in, 2, "pid", pids, NULL);
	is_int(rc, 0, "merge two profiles labeled pid=100, pid=200");
	ying_profile_total(&tot, q, YING_INUSE_SPACE);
	ok(rc == 0 && tot == 2000 && ying_profile_nstacks(q) == 6,
	    "the same stacks of two processes stay apart: 6 stacks, 2000 in all");
	rc = ying_profile_write_pprof(q, &po, ying_write_membuf, &b);
	is_int(rc, 0, "written as pprof");
	rc = ying_profile_read_mem(&r, b.data, b.len, "labeled");
	is_int(rc, 0, "read back");
	ok(rc == 0 && r->has_label && strcmp(yi_profile_str(r, r->label_key), "pid") == 0,
	    "the reader keeps the pid label (and not Go's bytes)");
	for (size_t i = 0; rc == 0 && i < r->stacks.n; i++) {
		const yi_stack *st = &r->stacks.v[i];
		if (st->label == 100 || st->label == 200)
			by[st->label == 200] += st->val[YING_INUSE_SPACE];
		else
			labels_ok = false;
	}
	ok(labels_ok && by[0] == 1000 && by[1] == 1000,
	    "every sample has pid 100 or 200, each holding its process's 1000 bytes");
	ying_profile_free(q);
	q = NULL;
	is_int(ying_profile_merge_labeled(&q, in, 2, "bytes", pids, NULL), YING_EINVAL,
	    "the key bytes (the average size's) is refused");
	ok(q == NULL, "... and nothing made");
	is_int(ying_profile_merge_labeled(&q, in, 2, "pid", NULL, NULL), YING_EINVAL,
	    "no values: YING_EINVAL");
	ying_membuf_release(&b);
	ying_profile_free(r);
	ying_profile_free(x);
	ying_profile_free(y);
}

int
main(void)
{
	test_table();
	test_names();
	test_raw();
	test_merge();
	test_merge_labeled();
	test_inf();
	return tap_done();
}
