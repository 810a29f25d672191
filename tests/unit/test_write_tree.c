/*
 * test_write_tree.c: the live page's flame tree (write_tree.c, and
 * yi_diff_write_tree in diff_flame.c).
 *
 * Checks the JSON's keys, that nodes are in preorder (every parent before
 * its children, node 0 the root "all" with parent -1), children by
 * decreasing value, frames merged by name from the root (two stacks
 * through main share its node), each value = self + the children's
 * values, the root's value the total, names and files by id (files[0]
 * ""), file:line of a frame, the other sample indexes, the same bytes for
 * the stacks in another order, a diff's value (NOW) and base (BASE), and
 * the errors.
 */
#include "tap.h"
#include "synth.h"
#include "write.h"

typedef struct tree {
	double *n;               /* the flat nodes */
	size_t len, stride;
	char names[64][32], files[16][32];
	size_t nnames, nfiles;
} tree;

/* The JSON array of strings after key into out (simple strings only). */
static size_t
strs_of(const char *j, const char *key, char (*out)[32], size_t max)
{
	const char *p = strstr(j, key), *e;
	size_t n = 0;

	if (p == NULL)
		return 0;
	p += strlen(key);
	while (*p == '"' && n < max) {
		e = strchr(p + 1, '"');
		snprintf(out[n++], 32, "%.*s", (int)(e - p - 1), p + 1);
		p = e + 1;
		if (*p == ',')
			p++;
	}
	return n;
}

/* Parse the writer's JSON (its own layout) into t; 0 on success. */
static int
parse(const char *j, tree *t)
{
	const char *p = strstr(j, "\"nodes\":[");
	char *e;

	memset(t, 0, sizeof(*t));
	t->stride = strstr(j, ",\"base\"]") ? 7 : 6;
	if (p == NULL)
		return -1;
	p += 9;
	t->n = calloc(strlen(p) + 1, sizeof(double));
	while (*p && *p != ']') {
		t->n[t->len++] = strtod(p, &e);
		if (e == p)
			return -1;
		p = e;
		if (*p == ',')
			p++;
	}
	t->nnames = strs_of(j, "\"names\":[", t->names, 64);
	t->nfiles = strs_of(j, "\"files\":[", t->files, 16);
	return t->len % t->stride == 0 ? 0 : -1;
}

#define F(t, i, k) ((t)->n[(i) * (t)->stride + (k)])

/* The index of the node named name under parent (-1: none). */
static long
find(const tree *t, long parent, const char *name)
{
	for (size_t i = 0; i < t->len / t->stride; i++)
		if ((long)F(t, i, 0) == parent && strcmp(t->names[(size_t)F(t, i, 1)], name) == 0)
			return (long)i;
	return -1;
}

/* Preorder, parents first, value = self + children, children sorted. */
static void
check_shape(const tree *t, const char *what)
{
	size_t n = t->len / t->stride;
	bool pre = n > 0 && F(t, 0, 0) == -1, sums = true, sorted = true;
	char msg[160];

	for (size_t i = 1; i < n; i++)
		if (!(F(t, i, 0) >= 0 && F(t, i, 0) < (double)i))
			pre = false;
	for (size_t i = 0; i < n; i++) {
		double below = 0, last = INFINITY;
		for (size_t k = i + 1; k < n; k++)
			if (F(t, k, 0) == (double)i) {
				below += F(t, k, 4);
				if (F(t, k, 4) > last)
					sorted = false;
				last = F(t, k, 4);
			}
		if (fabs(F(t, i, 4) - F(t, i, 5) - below) > 1e-6)
			sums = false;
	}
	snprintf(msg, sizeof(msg), "%s: preorder, the root first, parents before children", what);
	ok(pre, msg);
	snprintf(msg, sizeof(msg), "%s: every value is self + its children's values", what);
	ok(sums, msg);
	snprintf(msg, sizeof(msg), "%s: children by decreasing value", what);
	ok(sorted, msg);
}

static char *
tree_of(ying_profile *p, ying_sample_index idx, int *rc)
{
	ying_membuf b = YING_MEMBUF_INIT;

	(void)ying_profile_symbolize(p, NULL, NULL);
	*rc = yi_write_tree(p, idx, ying_write_membuf, &b);
	return b.data ? b.data : strdup("");
}

/* fan plus main -> a -> x (50 bytes) and main -> d -> a (20), stacks in
 * the order given by rev. */
static ying_profile *
deep(bool rev)
{
	ying_profile *p = synth_new("deep", 1);
	uint32_t m = synth_fn(p, 0x1000, "main", "m.c", 1);
	uint32_t a = synth_fn(p, 0x2000, "a", "a.c", 2);
	uint32_t b = synth_fn(p, 0x3000, "b", "b.c", 3);
	uint32_t x = synth_fn(p, 0x5000, "x", "x.c", 5);
	uint32_t d = synth_fn(p, 0x6000, "d", "d.c", 6);
	uint32_t s1[] = { a, m }, s2[] = { b, m }, s3[] = { x, a, m }, s4[] = { a, d, m };
	const uint32_t *st[] = { s1, s2, s3, s4 };
	size_t len[] = { 2, 2, 3, 3 };
	double val[] = { 600, 300, 50, 20 };

	for (int k = 0; k < 4; k++) {
		int i = rev ? 3 - k : k;
		synth_stack(p, st[i], len[i], val[i], val[i] / 100);
	}
	return p;
}

static void
test_plain(void)
{
	ying_profile *p = deep(false), *q = deep(true);
	char *j, *j2;
	tree t;
	long all, m, a, x, d, da;
	int rc;

	j = tree_of(p, YING_INUSE_SPACE, &rc);
	is_int(rc, 0, "yi_write_tree: 0");
	has_str(j, "{\"sample_index\":\"inuse_space\",\"unit\":\"bytes\",\"total\":970,",
	    "sample index, unit, total");
	has_str(j, "\"fields\":[\"parent\",\"name\",\"file\",\"line\",\"value\",\"self\"],",
	    "the fields");
	ok(parse(j, &t) == 0, "the nodes parse");
	is_int(t.len / t.stride, 7, "7 nodes: all, main, a, x, b, d, d's a");
	check_shape(&t, "plain");
	all = 0;
	is_str(t.names[(size_t)F(&t, 0, 1)], "all", "node 0 is all");
	is_int((long)F(&t, 0, 4), 970, "the root's value is the total");
	is_str(t.files[0], "", "files[0] is unknown");
	m = find(&t, all, "main");
	a = find(&t, m, "a");
	x = find(&t, a, "x");
	d = find(&t, m, "d");
	da = find(&t, d, "a");
	ok(m == 1 && a == 2 && x == 3, "preorder, largest first: all, main, a, x");
	ok(m > 0 && a > 0 && x > 0 && d > 0 && da > 0, "every frame found under its caller");
	if (a > 0 && x > 0 && d > 0 && da > 0 && m > 0) {
		is_int((long)F(&t, m, 4), 970, "main: both stacks through it merged");
		is_int((long)F(&t, a, 4), 650, "main's a: 600 + x's 50");
		is_int((long)F(&t, a, 5), 600, "a's self");
		is_int((long)F(&t, x, 4), 50, "x");
		is_int((long)F(&t, da, 4), 20, "d's a is its own node");
		is_str(t.files[(size_t)F(&t, a, 2)], "a.c", "a's file");
		is_int((long)F(&t, a, 3), 2, "a's line");
	}
	free(t.n);
	j2 = tree_of(q, YING_INUSE_SPACE, &rc);
	is_str(j2, j, "the same tree for the stacks in another order");
	free(j);
	free(j2);
	j = tree_of(p, YING_INUSE_OBJECTS, &rc);
	has_str(j, "\"sample_index\":\"inuse_objects\",\"unit\":\"objects\",\"total\":9.700,",
	    "inuse_objects: objects, a fraction written as such");
	free(j);
	j = tree_of(p, YING_ALLOC_SPACE, &rc);
	ok(rc != 0, "alloc_space of a profile without it: an error");
	free(j);
	ok(yi_write_tree(NULL, YING_INUSE_SPACE, ying_write_membuf, NULL) == YING_EINVAL,
	    "no profile: EINVAL");
	ying_profile_free(p);
	ying_profile_free(q);

	/* an empty profile: only the root */
	p = synth_new("empty", 1);
	j = tree_of(p, YING_INUSE_SPACE, &rc);
	has_str(j, "\"total\":0,", "empty: total 0");
	has_str(j, "\"nodes\":[-1,0,0,0,0,0]", "empty: the root alone");
	free(j);
	ying_profile_free(p);
}

static void
test_diff(void)
{
	ying_profile *b = synth_new("base", 1), *n = synth_new("now", 1);
	ying_membuf out = YING_MEMBUF_INIT;
	ying_diff *d = NULL;
	tree t;
	long am, bm, cm;

	/* a diff matches frames through the mappings: one for each side */
	synth_map(b, "/usr/bin/prog", 0x400000, 0x500000);
	synth_map(n, "/usr/bin/prog", 0x400000, 0x500000);
	{
		uint32_t m = synth_fn(b, 0x401000, "main", "m.c", 1);
		uint32_t a = synth_fn(b, 0x402000, "a", "a.c", 2);
		uint32_t bb = synth_fn(b, 0x403000, "b", "b.c", 3);
		uint32_t c = synth_fn(b, 0x404000, "c", "c.c", 4);
		uint32_t s1[] = { a, m }, s2[] = { bb, m }, s3[] = { c, m };
		synth_stack(b, s1, 2, 600, 6);
		synth_stack(b, s2, 2, 300, 3);
		synth_stack(b, s3, 2, 100, 1);
	}
	{
		uint32_t m = synth_fn(n, 0x401000, "main", "m.c", 1);
		uint32_t a = synth_fn(n, 0x402000, "a", "a.c", 2);
		uint32_t c = synth_fn(n, 0x404000, "c", "c.c", 4);
		uint32_t s1[] = { a, m }, s3[] = { c, m };
		synth_stack(n, s1, 2, 5000, 50);       /* a grew 600 -> 5000 */
		synth_stack(n, s3, 2, 100, 1);         /* c the same; b freed */
	}
	if (!ok(synth_diff(&d, b, n, YING_INUSE_SPACE) == 0, "a diff"))
		printf("# %s\n", ying_last_error());
	is_int(yi_diff_write_tree(d, ying_write_membuf, &out), 0, "yi_diff_write_tree: 0");
	has_str(out.data, "\"total\":5100,\"base_total\":1000,", "NOW's and BASE's totals");
	has_str(out.data, "\"value\",\"self\",\"base\"]", "a diff's fields add base");
	ok(parse(out.data ? out.data : "", &t) == 0 && t.stride == 7, "the diff's nodes parse");
	check_shape(&t, "diff");
	is_int((long)F(&t, 0, 6), 1000, "the root's base");
	am = find(&t, find(&t, 0, "main"), "a");
	bm = find(&t, find(&t, 0, "main"), "b");
	cm = find(&t, find(&t, 0, "main"), "c");
	ok(am > 0 && bm > 0 && cm > 0, "a, b and c under main");
	if (am > 0 && bm > 0 && cm > 0) {
		ok(F(&t, am, 4) == 5000 && F(&t, am, 6) == 600, "a: value NOW 5000, base 600");
		ok(F(&t, bm, 4) == 0 && F(&t, bm, 6) == 300, "b (freed): value 0, base 300");
		ok(F(&t, cm, 4) == 100 && F(&t, cm, 6) == 100, "c: the same");
		ok(am < cm && cm < bm, "a diff's children by NOW, then BASE");
	}
	free(t.n);
	ying_membuf_release(&out);
	ok(yi_diff_write_tree(NULL, ying_write_membuf, &out) == YING_EINVAL,
	    "no diff: EINVAL");
	ying_diff_free(d);
	ying_profile_free(b);
	ying_profile_free(n);
}

int
main(void)
{
	test_plain();
	test_diff();
	return tap_done();
}
