/*
 * test_heaps.c: several heaps in one heap_v2 dump (issue 26): the
 * `ying-heap: NAME STACKS` trailer read into each stack's heap, two heaps
 * with the same user stack kept apart, per-heap totals, keep_heap, bad
 * trailers (YING_EPARSE naming the line), the pprof round trip, top's
 * Heaps line and JSON, yingdiff's Heaps line, a merge, and a dump without
 * a trailer unchanged.  Stacks by heap: one path that grows in one heap
 * and shrinks in the other is two rows of yingdiff --stacks and of top
 * --stacks (text and JSON), function rows sum the heaps, a side without
 * heaps is the other's first heap.  Frames have no mapping: names are
 * addresses.
 */
#include "internal.h"
#include "tap.h"

/* rust: A (1 KiB), B (2 KiB); c: A again (4 KiB), the same addresses as
 * rust's A.  Period 1: the values are the raw bytes. */
#define HEAD \
    "heap_v2/1\n" \
    "  t*: 4: 7168 [0: 0]\n" \
    "  t0: 2: 3072 [0: 0] main\n" \
    "@ 0x1000 0x2001 0x3001\n  t*: 1: 1024 [0: 0]\n  t0: 1: 1024 [0: 0]\n" \
    "@ 0x1100 0x2001 0x3001\n  t*: 1: 2048 [0: 0]\n  t0: 1: 2048 [0: 0]\n" \
    "@ 0x1000 0x2001 0x3001\n  t*: 2: 4096 [0: 0]\n" \
    "\nMAPPED_LIBRARIES:\n"
static const char two[] = HEAD "ying-heap: rust 2\nying-heap: c 1\n";
static const char plain[] = HEAD;

static char *
top(const ying_profile *p, int json)
{
	ying_top_opts o = YING_TOP_OPTS_INIT;
	ying_membuf mb = YING_MEMBUF_INIT;

	o.json = json;
	if (ying_profile_write_top(p, &o, ying_write_membuf, &mb) != 0) {
		ying_membuf_release(&mb);
		return NULL;
	}
	return mb.data;
}

static ying_profile *
read_sym(const char *text, size_t len, const char *name)
{
	ying_profile *p;

	if (ying_profile_read_mem(&p, text, len, name) != 0)
		return NULL;
	(void)ying_profile_symbolize(p, NULL, NULL);
	return p;
}

/* NOW for the stacks-by-heap tests: rust's A grows to 3 KiB, B stays,
 * c's A shrinks to 1 KiB. */
static const char now2[] =
    "heap_v2/1\n"
    "  t*: 3: 6144 [0: 0]\n"
    "@ 0x1000 0x2001 0x3001\n  t*: 1: 3072 [0: 0]\n"
    "@ 0x1100 0x2001 0x3001\n  t*: 1: 2048 [0: 0]\n"
    "@ 0x1000 0x2001 0x3001\n  t*: 1: 1024 [0: 0]\n"
    "\nMAPPED_LIBRARIES:\n"
    "ying-heap: rust 2\nying-heap: c 1\n";

/* yingdiff of base and now (text or JSON, by stack or not), or folded. */
static char *
diff_out(const ying_profile *base, const ying_profile *now, int json, int stacks,
    int folded)
{
	ying_diff_opts o = YING_DIFF_OPTS_INIT;
	ying_membuf mb = YING_MEMBUF_INIT;
	ying_diff *d;
	int rc;

	if (ying_diff_build(&d, base, now, NULL) != 0)
		return NULL;
	o.json = json;
	o.granularity = stacks ? YING_BY_STACK : YING_BY_FUNCTION;
	rc = folded ? ying_diff_write_folded(d, ying_write_membuf, &mb) :
	    ying_diff_write_text(d, &o, ying_write_membuf, &mb);
	ying_diff_free(d);
	if (rc != 0) {
		ying_membuf_release(&mb);
		return NULL;
	}
	return mb.data;
}

static char *
top_stacks(const ying_profile *p, int json)
{
	ying_top_opts o = YING_TOP_OPTS_INIT;
	ying_membuf mb = YING_MEMBUF_INIT;

	o.json = json;
	o.granularity = YING_BY_STACK;
	if (ying_profile_write_top(p, &o, ying_write_membuf, &mb) != 0) {
		ying_membuf_release(&mb);
		return NULL;
	}
	return mb.data;
}

static ying_profile *read_sym(const char *text, size_t len, const char *name);

/* One call path (A) grows in rust and shrinks in c. */
static void
stacks_by_heap(void)
{
	ying_profile *b = read_sym(two, strlen(two), "base.heap");
	ying_profile *n = read_sym(now2, strlen(now2), "now.heap");
	ying_profile *pl = read_sym(plain, strlen(plain), "plain.heap");
	char *s;

	ok(b && n && pl, "stacks by heap: the dumps read");
	if (!(b && n && pl))
		goto out;
	s = diff_out(b, n, 0, 1, 0);
	has_str(s, "Top growth by stack (1 of 1):\n"
	    "  +2.00 KiB  (base 1.00 KiB, now 3.00 KiB)  [heap rust]\n"
	    "      0x0000000000001000\n", "diff --stacks: A grew in rust");
	has_str(s, "Top shrink by stack (1 of 1):\n"
	    "  -3.00 KiB  (base 4.00 KiB, now 1.00 KiB)  [heap c]\n"
	    "      0x0000000000001000\n", "diff --stacks: A shrank in c, another row");
	has_str(s, "Stacks: 3 in both, 0 new in NOW, 0 gone from BASE\n", "three matched stacks");
	has_str(s, "Heaps: rust 3.00 KiB -> 5.00 KiB (+2.00 KiB), c 4.00 KiB -> 1.00 KiB (-3.00 KiB)\n",
	    "diff Heaps line");
	free(s);
	s = diff_out(b, n, 1, 1, 0);
	has_str(s, "\"heaps\":[{\"name\":\"rust\",\"base\":3072,\"now\":5120,\"delta\":2048,"
	    "\"delta_lo\":2048,\"delta_hi\":2048,\"significant\":true},"
	    "{\"name\":\"c\",\"base\":4096,\"now\":1024,\"delta\":-3072,"
	    "\"delta_lo\":-3072,\"delta_hi\":-3072,\"significant\":true}]",
	    "diff JSON: the heaps list with base, now, delta");
	has_str(s, "\"base\":1024,\"now\":3072,\"delta\":2048,\"delta_lo\":2048,"
	    "\"delta_hi\":2048,\"significant\":true,\"heap\":\"rust\",\"stack\":",
	    "diff JSON: A's rust row");
	has_str(s, "\"base\":4096,\"now\":1024,\"delta\":-3072,\"delta_lo\":-3072,"
	    "\"delta_hi\":-3072,\"significant\":true,\"heap\":\"c\",\"stack\":",
	    "diff JSON: A's c row");
	free(s);
	s = diff_out(b, n, 0, 0, 0);
	has_str(s, "    -1.00 KiB     5.00 KiB     4.00 KiB     -1.00 KiB  0x0000000000001000\n",
	    "diff function rows sum the heaps (A: 5 KiB -> 4 KiB)");
	ok(s && strstr(s, "[heap") == NULL, "no heap on function rows");
	free(s);
	s = diff_out(b, n, 0, 0, 1);
	is_str(s, "0x0000000000003000;0x0000000000002000;0x0000000000001000 5120 4096\n"
	    "0x0000000000003000;0x0000000000002000;0x0000000000001100 2048 2048\n",
	    "diff folded: a path is one line, its heaps summed");
	free(s);

	/* BASE without heaps: taken as NOW's first heap (rust) */
	s = diff_out(pl, n, 0, 1, 0);
	has_str(s, "Heaps: rust 7.00 KiB -> 5.00 KiB (-2.00 KiB), c 0 B -> 1.00 KiB (+1.00 KiB)\n",
	    "one side without heaps: its total is the other's first heap's");
	has_str(s, "  -2.00 KiB  (base 5.00 KiB, now 3.00 KiB)  [heap rust]\n",
	    "... its stacks match rust's");
	has_str(s, "New stacks in NOW (1 of 1, +1.00 KiB):\n"
	    "  +1.00 KiB  (base 0 B, now 1.00 KiB)  [heap c]\n", "... c's A is new");
	free(s);
	s = diff_out(pl, pl, 1, 1, 0);
	ok(s && strstr(s, "\"heap\"") == NULL && strstr(s, "\"heaps\"") == NULL,
	    "no heaps on either side: no heap in the diff JSON");
	free(s);
	s = diff_out(pl, pl, 0, 1, 0);
	ok(s && strstr(s, "heap ") == NULL && strstr(s, "Heaps") == NULL,
	    "... nor in its text");
	free(s);

	/* ying top --stacks */
	s = top_stacks(n, 0);
	has_str(s, "\n3.00 KiB   50.0%  (sum  50.0%)  [heap rust]\n    0x0000000000001000\n",
	    "top --stacks: A in rust");
	has_str(s, "\n1.00 KiB   16.7%  (sum 100.0%)  [heap c]\n    0x0000000000001000\n",
	    "top --stacks: A in c, its own row");
	free(s);
	s = top_stacks(n, 1);
	has_str(s, "\"flat\":3072,\"cum\":3072,\"heap\":\"rust\",\"frames\":",
	    "top --stacks JSON: rust's A");
	has_str(s, "\"flat\":1024,\"cum\":1024,\"heap\":\"c\",\"frames\":",
	    "top --stacks JSON: c's A");
	free(s);
	s = top_stacks(pl, 0);
	has_str(s, "\n5.00 KiB   71.4%  (sum  71.4%)\n    0x0000000000001000\n",
	    "top --stacks without heaps: A's two stacks one row, no heap");
	free(s);
out:
	ying_profile_free(b);
	ying_profile_free(n);
	ying_profile_free(pl);
}

/* The trailer `tail` after HEAD must fail at line `where` ("bad.heap:N"). */
static void
bad(const char *tail, const char *where, const char *what)
{
	char buf[2048];
	ying_profile *p;

	snprintf(buf, sizeof(buf), "%s%s", HEAD, tail);
	is_int(ying_profile_read_mem(&p, buf, strlen(buf), "bad.heap"), YING_EPARSE, what);
	has_str(ying_last_error(), where, what);
	ok(p == NULL, "no profile on error");
}

int
main(void)
{
	ying_profile *p, *q, *k, *m;
	ying_membuf mb = YING_MEMBUF_INIT;
	ying_diff *d;
	char *s;

	p = read_sym(two, strlen(two), "two.heap");
	ok(p != NULL, "two-heap dump parses");
	if (p == NULL)
		return tap_done();
	is_int((int)ying_profile_nstacks(p), 3, "the identical stacks of two heaps stay apart");
	is_int((int)ying_profile_heap_count(p), 2, "two heaps");
	is_str(ying_profile_heap_name(p, 0), "rust", "first heap in dump order");
	is_str(ying_profile_heap_name(p, 1), "c", "second heap");
	ok(ying_profile_heap_name(p, 2) == NULL, "NULL past the end");
	is_near(ying_profile_heap_total(p, 0, YING_INUSE_SPACE), 3072, 0, "rust's bytes");
	is_near(ying_profile_heap_total(p, 1, YING_INUSE_SPACE), 4096, 0, "c's bytes");
	is_near(ying_profile_heap_total(p, 1, YING_INUSE_OBJECTS), 2, 0, "c's objects");

	s = top(p, 0);
	has_str(s, "Heaps: rust 3.00 KiB (42.9 %), c 4.00 KiB (57.1 %)\n", "top text Heaps line");
	free(s);
	s = top(p, 1);
	has_str(s, "\"heaps\":[{\"name\":\"rust\",\"bytes\":3072},{\"name\":\"c\",\"bytes\":4096}]",
	    "top JSON heaps");
	free(s);

	/* pprof round trip */
	is_int(ying_profile_write_pprof(p, NULL, ying_write_membuf, &mb), 0, "pprof written");
	q = read_sym(mb.data, mb.len, "two.pb.gz");
	ying_membuf_release(&mb);
	ok(q != NULL, "pprof read back");
	if (q != NULL) {
		is_int((int)ying_profile_heap_count(q), 2, "pprof keeps two heaps");
		is_str(ying_profile_heap_name(q, 1), "c", "pprof heap names");
		is_near(ying_profile_heap_total(q, 0, YING_INUSE_SPACE), 3072, 0, "pprof rust bytes");
		is_near(ying_profile_heap_total(q, 1, YING_INUSE_SPACE), 4096, 0, "pprof c bytes");
		is_int((int)ying_profile_nstacks(q), 3, "pprof keeps the stacks apart");
		ying_profile_free(q);
	}

	/* merge: the heap is part of the identity */
	{
		ying_profile *in[2] = { p, p };
		is_int(ying_profile_merge(&m, in, 2, NULL, NULL), 0, "merge of two");
		if (m != NULL) {
			is_int((int)ying_profile_nstacks(m), 3, "merge keeps heaps apart");
			is_near(ying_profile_heap_total(m, 1, YING_INUSE_SPACE), 8192, 0,
			    "merged c bytes");
			ying_profile_free(m);
		}
	}

	/* diff: BASE = c only, NOW = both */
	k = read_sym(two, strlen(two), "base.heap");
	is_int(ying_profile_keep_heap(k, "c"), 0, "keep_heap c");
	is_int((int)ying_profile_nstacks(k), 1, "one stack left");
	is_int((int)ying_profile_heap_count(k), 1, "one heap left");
	is_near(ying_profile_heap_total(k, 0, YING_INUSE_SPACE), 4096, 0, "kept c's bytes");
	{
		double t;
		ying_profile_total(&t, k, YING_INUSE_SPACE);
		is_near(t, 4096, 0, "total is the kept heap's");
	}
	is_int(ying_diff_build(&d, k, p, NULL), 0, "diff built");
	if (d != NULL) {
		is_int(ying_diff_write_text(d, NULL, ying_write_membuf, &mb), 0, "diff text");
		has_str(mb.data, "Heaps: rust 0 B -> 3.00 KiB (+3.00 KiB), c 4.00 KiB -> 4.00 KiB (0 B)\n",
		    "diff Heaps line");
		ying_membuf_release(&mb);
		ying_diff_free(d);
	}
	is_int(ying_profile_keep_heap(k, "rust"), YING_ENOTFOUND, "a heap dropped before");
	has_str(ying_last_error(), "heaps: c", "names the heaps there are");
	ying_profile_free(k);
	is_int(ying_profile_keep_heap(p, "nope"), YING_ENOTFOUND, "unknown heap");
	has_str(ying_last_error(), "no heap 'nope' (the profile's heaps: rust, c)", "message");
	is_int((int)ying_profile_nstacks(p), 3, "unchanged after a failed keep");
	ying_profile_free(p);

	/* no trailer: one unnamed heap, outputs as before */
	p = read_sym(plain, strlen(plain), "plain.heap");
	ok(p != NULL, "plain dump parses");
	if (p != NULL) {
		is_int((int)ying_profile_heap_count(p), 0, "no heaps");
		ok(ying_profile_heap_name(p, 0) == NULL, "no name");
		s = top(p, 0);
		ok(s != NULL && strstr(s, "Heaps") == NULL, "no Heaps line");
		free(s);
		s = top(p, 1);
		ok(s != NULL && strstr(s, "heaps") == NULL, "no heaps in JSON");
		free(s);
		is_int(ying_profile_keep_heap(p, "c"), YING_ENOTFOUND, "keep_heap without heaps");
		has_str(ying_last_error(), "one heap", "says so");
		ying_profile_free(p);
	}

	stacks_by_heap();

	bad("ying-heap: rust 2\nying-heap: c 2\n", "bad.heap:15:", "more stacks claimed");
	bad("ying-heap: rust 1\nying-heap: c 1\n", "bad.heap:15:", "fewer stacks claimed");
	bad("ying-heap: Rust 2\nying-heap: c 1\n", "bad.heap:14:", "upper case name");
	bad("ying-heap: rust 2\nying-heap: c 1 x\n", "bad.heap:15:", "trailing garbage");
	bad("ying-heap: rust\n", "bad.heap:14:", "no count");
	bad("ying-heap: rust 2\nying-heap: rust 1\n", "bad.heap:15:", "a heap named twice");
	bad("ying-heap: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 3\n", "bad.heap:14:", "33-character name");
	return tap_done();
}
