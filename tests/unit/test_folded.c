/*
 * test_folded.c: collapsed stacks (write_folded.c).
 *
 * Golden output of a fixture dump whose mappings name files that do not
 * exist (tests/data/flame_fake.heap: frames become "module+0xOFFSET" the
 * same way on every machine; allocator frames in a jemalloc mapping are
 * trimmed; two stacks merge after trimming; a zero stack is left out), and
 * exact checks on a profile built in memory: merging before truncation,
 * byte order of the stack text ("f" < "f1" < "f;g"), [inline] suffixes,
 * --lines, names with ';' and newlines, allocator-only stacks, errors.
 */
#include "tap.h"
#include "flame_util.h"

static char *
folded(ying_profile *p, ying_sample_index idx, int lines, int *rc)
{
	ying_folded_opts o = YING_FOLDED_OPTS_INIT;
	ying_membuf b = YING_MEMBUF_INIT;

	o.sample_index = idx;
	o.lines = lines;
	/* writers never symbolize: the caller's step, as before any write */
	if (p != NULL)
		(void)ying_profile_symbolize(p, NULL, NULL);
	*rc = ying_profile_write_folded(p, &o, ying_write_membuf, &b);
	if (b.data == NULL)
		return strdup("");
	return b.data;
}

static int
fail_sink(void *opaque, const void *data, size_t len)
{
	(void)opaque;
	(void)data;
	(void)len;
	return YING_EIO;
}

/* Every line's stack text (before the last space) sorts strictly after the
 * previous one. */
static int
sorted_unique(const char *text)
{
	char prev[65536] = "", cur[65536];
	const char *s = text;
	int first = 1;

	while (*s) {
		const char *nl = strchr(s, '\n'), *sp;
		size_t n;
		if (!nl)
			return 0;
		for (sp = nl; sp > s && *sp != ' '; sp--)
			;
		n = (size_t)(sp - s);
		if (n >= sizeof(cur))
			return 0;
		memcpy(cur, s, n);
		cur[n] = '\0';
		if (!first && strcmp(prev, cur) >= 0)
			return 0;
		memcpy(prev, cur, n + 1);
		first = 0;
		s = nl + 1;
	}
	return 1;
}

static void
test_fixture(void)
{
	ying_profile *p = NULL;
	char *got, *want;
	int rc;

	rc = ying_profile_read_file(&p, tap_data("flame_fake.heap"));
	is_int(rc, 0, "fixture flame_fake.heap reads");
	if (rc != 0)
		return;
	got = folded(p, YING_INUSE_SPACE, 0, &rc);
	is_int(rc, 0, "folded inuse_space succeeds");
	want = tap_slurp(tap_data("flame_fake.folded"), NULL);
	is_str(got, want, "inuse_space matches tests/data/flame_fake.folded");
	ok(sorted_unique(got), "lines are sorted by stack and unique");
	ok(strstr(got, "libjemalloc") == NULL, "jemalloc frames are trimmed");
	ok(strstr(got, "0x15ff 1048588\n") != NULL,
	    "24 B in 2 samples at 512 KiB unsample to 1048588 (truncated)");
	free(got);
	free(want);

	got = folded(p, YING_INUSE_OBJECTS, 0, &rc);
	is_int(rc, 0, "folded inuse_objects succeeds");
	want = tap_slurp(tap_data("flame_fake_objects.folded"), NULL);
	is_str(got, want, "inuse_objects matches tests/data/flame_fake_objects.folded");
	free(got);
	free(want);

	got = folded(p, YING_ALLOC_SPACE, 0, &rc);
	is_int(rc, YING_ENODATA, "alloc_space without prof_accum data fails with ENODATA");
	is_str(got, "", "nothing is written on failure");
	free(got);
	ying_profile_free(p);
}

static ying_profile *
synth_profile(void)
{
	ying_profile *p = synth_new("synthetic", 1);
	const char *inl_names[] = { "helper", "g" };
	const char *inl_files[] = { "h.h", "g.c" };
	const uint32_t inl_lines[] = { 3, 7 };
	uint32_t main_ = synth_fn(p, 0x1000, "main", "m.c", 10);
	uint32_t f = synth_fn(p, 0x2000, "f", "f.c", 5);
	uint32_t f6 = synth_fn(p, 0x2010, "f", "f.c", 6);
	uint32_t fo = synth_fn(p, 0x2020, "f", "other.c", 5);
	uint32_t f1 = synth_fn(p, 0x3000, "f1", "f.c", 9);
	uint32_t inl = synth_loc(p, 0x4000, inl_names, inl_files, inl_lines, 2);
	uint32_t semi = synth_fn(p, 0x5000, "odd;name", "", 0);
	uint32_t tmpl = synth_fn(p, 0x6000, "std::map<int, char*>&", "t.cc", 0);
	uint32_t alloc = synth_fn(p, 0x7000, "malloc", "", 0);
	uint32_t nl = synth_fn(p, 0x8000, "two\nlines", "", 0);
	uint32_t s1[] = { alloc, f, main_ }, s2[] = { f, main_ }, s3[] = { f1, main_ };
	uint32_t s4[] = { f6, main_ }, s5[] = { inl, main_ }, s6[] = { semi, main_ };
	uint32_t s7[] = { tmpl, f, main_ }, s8[] = { main_ }, s10[] = { fo, main_ };
	uint32_t s11[] = { alloc }, s12[] = { nl, main_ };

	synth_stack_skip(p, s1, 3, 1, 100.7, 1);
	synth_stack(p, s2, 2, 50.6, 1);
	synth_stack(p, s3, 2, 10, 1);
	synth_stack(p, s4, 2, 5, 1);
	synth_stack(p, s5, 2, 20, 2);
	synth_stack(p, s6, 2, 3, 1);
	synth_stack(p, s7, 3, 7, 1);
	synth_stack(p, s8, 1, 0.5, 1);
	synth_stack(p, s3, 2, 0, 0);
	synth_stack(p, s10, 2, 2, 1);
	synth_stack_skip(p, s11, 1, 1, 4, 1);
	synth_stack(p, s12, 2, 1, 1);
	return p;
}

static void
test_synthetic(void)
{
	ying_profile *p = synth_profile();
	char *got;
	int rc;

	got = folded(p, YING_INUSE_SPACE, 0, &rc);
	is_int(rc, 0, "synthetic folded succeeds");
	is_str(got,
	    "[unknown] 4\n"
	    "main;f 158\n"
	    "main;f1 10\n"
	    "main;f;std::map<int, char*>& 7\n"
	    "main;g;helper[inline] 20\n"
	    "main;odd:name 3\n"
	    "main;two lines 1\n",
	    "merged before truncation, byte order, [inline], ';' and newline cleaned, 0 left out");
	ok(sorted_unique(got), "synthetic lines sorted and unique");
	free(got);

	got = folded(p, YING_INUSE_SPACE, 1, &rc);
	is_int(rc, 0, "synthetic folded --lines succeeds");
	is_str(got,
	    "[unknown] 4\n"
	    "main (m.c:10);f (f.c:5) 151\n"
	    "main (m.c:10);f (f.c:5);std::map<int, char*>& (t.cc) 7\n"
	    "main (m.c:10);f (f.c:6) 5\n"
	    "main (m.c:10);f (other.c:5) 2\n"
	    "main (m.c:10);f1 (f.c:9) 10\n"
	    "main (m.c:10);g (g.c:7);helper[inline] (h.h:3) 20\n"
	    "main (m.c:10);odd:name 3\n"
	    "main (m.c:10);two lines 1\n",
	    "--lines: file:line per frame, lines split stacks, no suffix without a file");
	ok(sorted_unique(got), "--lines output sorted and unique");
	free(got);

	got = folded(p, YING_INUSE_OBJECTS, 0, &rc);
	is_int(rc, 0, "synthetic inuse_objects succeeds");
	is_str(got,
	    "[unknown] 1\n"
	    "main 1\n"
	    "main;f 4\n"
	    "main;f1 1\n"
	    "main;f;std::map<int, char*>& 1\n"
	    "main;g;helper[inline] 2\n"
	    "main;odd:name 1\n"
	    "main;two lines 1\n",
	    "inuse_objects counts objects");
	free(got);
	ying_profile_free(p);
}

static void
test_errors(void)
{
	ying_profile *p = synth_profile();
	ying_folded_opts o = YING_FOLDED_OPTS_INIT;
	ying_membuf b = YING_MEMBUF_INIT;

	is_int(ying_profile_write_folded(NULL, NULL, ying_write_membuf, &b), YING_EINVAL,
	    "NULL profile is EINVAL");
	is_int(ying_profile_write_folded(p, NULL, NULL, NULL), YING_EINVAL, "NULL sink is EINVAL");
	o.version = 99;
	is_int(ying_profile_write_folded(p, &o, ying_write_membuf, &b), YING_EINVAL,
	    "unknown opts version is EINVAL");
	o.version = YING_FOLDED_OPTS_VERSION;
	o.sample_index = (ying_sample_index)7;
	is_int(ying_profile_write_folded(p, &o, ying_write_membuf, &b), YING_EINVAL,
	    "bad sample index is EINVAL");
	o.sample_index = YING_ALLOC_OBJECTS;
	is_int(ying_profile_write_folded(p, &o, ying_write_membuf, &b), YING_ENODATA,
	    "alloc_objects without accum data is ENODATA");
	is_int(ying_profile_write_folded(p, NULL, fail_sink, NULL), YING_EIO,
	    "a failing sink's error is returned");
	ok(b.len == 0, "no output on errors");
	ying_membuf_release(&b);
	ying_profile_free(p);

	p = synth_new("synthetic", 1);
	is_int(ying_profile_write_folded(p, NULL, ying_write_membuf, &b), 0,
	    "an empty profile writes nothing, successfully");
	ok(b.len == 0, "empty profile: empty output");
	ying_membuf_release(&b);
	ying_profile_free(p);
}

int
main(void)
{
	test_fixture();
	test_synthetic();
	test_errors();
	return tap_done();
}
