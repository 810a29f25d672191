/*
 * test_heaps.c: several heaps in one heap_v2 dump (issue 26): the
 * `ying-heap: NAME STACKS` trailer read into each stack's heap, two heaps
 * with the same user stack kept apart, per-heap totals, keep_heap, bad
 * trailers (YING_EPARSE naming the line), the pprof round trip, top's
 * Heaps line and JSON, yingdiff's Heaps line, a merge, and a dump without
 * a trailer unchanged.  Frames have no mapping: names are addresses.
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

	bad("ying-heap: rust 2\nying-heap: c 2\n", "bad.heap:15:", "more stacks claimed");
	bad("ying-heap: rust 1\nying-heap: c 1\n", "bad.heap:15:", "fewer stacks claimed");
	bad("ying-heap: Rust 2\nying-heap: c 1\n", "bad.heap:14:", "upper case name");
	bad("ying-heap: rust 2\nying-heap: c 1 x\n", "bad.heap:15:", "trailing garbage");
	bad("ying-heap: rust\n", "bad.heap:14:", "no count");
	bad("ying-heap: rust 2\nying-heap: rust 1\n", "bad.heap:15:", "a heap named twice");
	bad("ying-heap: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 3\n", "bad.heap:14:", "33-character name");
	return tap_done();
}
