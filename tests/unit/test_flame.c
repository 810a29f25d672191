/*
 * test_flame.c: flame graph trees and SVG output (write_flame_tree.c, write_flame_svg.c).
 *
 * Checks that the SVG is well-formed XML with every name escaped (C++
 * templates with <, > and &; invalid UTF-8), holds the expected frames with
 * file:line, values and shares, is the same bytes for the same input (and
 * for the same stacks added in another order), honours width, icicle, title,
 * subtitle, min_width, focus and ignore, colours a differential tree red
 * and blue with a legend, and stays bounded on a 200,000-stack profile
 * (every frame at least min_width wide, at most width/min_width per row),
 * which is also timed.
 */
#include <time.h>

#include "tap.h"
#include "flame_util.h"

static char *
svg_of(ying_profile *p, const ying_svg_opts *o, int *rc)
{
	ying_membuf b = YING_MEMBUF_INIT;

	/* writers never symbolize: the caller's step, as before any write */
	if (p != NULL)
		(void)ying_profile_symbolize(p, NULL, NULL);
	*rc = ying_profile_write_svg(p, o, ying_write_membuf, &b);
	return b.data ? b.data : strdup("");
}

static char *
svg_of_tree(yi_flame *f, const ying_svg_opts *o, const yi_flame_meta *m, int *rc)
{
	ying_membuf b = YING_MEMBUF_INIT;
	yi_out *out = malloc(sizeof(*out));

	yi_out_init(out, ying_write_membuf, &b);
	*rc = yi_flame_write_svg(f, o, m, out);
	if (*rc == 0)
		*rc = yi_out_finish(out);
	free(out);
	return b.data ? b.data : strdup("");
}

/* The <g> of the frame whose title starts with name + newline; NULL if none.
 * *end is set past its "</g>". */
static const char *
frame_of(const char *svg, const char *name, const char **end)
{
	char key[1024];
	const char *g, *e;

	snprintf(key, sizeof(key), "<g><title>%s\n", name);
	if ((g = strstr(svg, key)) == NULL)
		return NULL;
	e = strstr(g, "</g>");
	if (end)
		*end = e ? e + 4 : g + strlen(g);
	return g;
}

/* Attribute of the frame's <rect> as a number (NAN if absent). */
static double
frame_num(const char *svg, const char *name, const char *attr)
{
	const char *end, *g = frame_of(svg, name, &end), *r, *a;
	char key[64];

	if (g == NULL || (r = strstr(g, "<rect ")) == NULL || r > end)
		return NAN;
	snprintf(key, sizeof(key), " %s=\"", attr);
	if ((a = strstr(r, key)) == NULL || a > end)
		return NAN;
	return atof(a + strlen(key));
}

/* The fill of a frame as r, g, b; 0 on success. */
static int
frame_rgb(const char *svg, const char *name, unsigned rgb[3])
{
	const char *end, *g = frame_of(svg, name, &end), *a;

	if (g == NULL || (a = strstr(g, "fill=\"#")) == NULL || a > end)
		return -1;
	return sscanf(a + 7, "%2x%2x%2x", &rgb[0], &rgb[1], &rgb[2]) == 3 ? 0 : -1;
}

static int
valid_utf8(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	while (*u) {
		int n = *u < 0x80 ? 0 : (*u & 0xe0) == 0xc0 ? 1 : (*u & 0xf0) == 0xe0 ? 2 :
		    (*u & 0xf8) == 0xf0 ? 3 : -1;
		if (n < 0)
			return 0;
		u++;
		while (n--) {
			if ((*u & 0xc0) != 0x80)
				return 0;
			u++;
		}
	}
	return 1;
}

static ying_profile *
small_profile(void)
{
	ying_profile *p = synth_new("synthetic", 1);
	const char *inl_names[] = { "helper", "g" };
	const char *inl_files[] = { "h.h", "g.c" };
	const uint32_t inl_lines[] = { 3, 7 };
	uint32_t main_ = synth_fn(p, 0x1000, "main", "m.c", 10);
	uint32_t f5 = synth_fn(p, 0x2000, "f", "f.c", 5);
	uint32_t f6 = synth_fn(p, 0x2010, "f", "f.c", 6);
	uint32_t f1 = synth_fn(p, 0x3000, "f1", "f.c", 9);
	uint32_t inl = synth_loc(p, 0x4000, inl_names, inl_files, inl_lines, 2);
	uint32_t tmpl = synth_fn(p, 0x6000, "std::map<int, char*>&", "/usr/include/c++/12/bits/stl_map.h", 511);
	uint32_t bad = synth_fn(p, 0x7000, "bad\xff\xfe" "name\x01", "", 0);
	uint32_t lng = synth_fn(p, 0x8000, "a_function_with_a_very_long_name_that_cannot_fit_"
	    "in_a_narrow_frame_at_all", "long.c", 1);
	uint32_t tiny = synth_fn(p, 0x9000, "tiny_frame", "t.c", 1);
	uint32_t s1[] = { f5, main_ }, s2[] = { f6, main_ }, s3[] = { f1, main_ };
	uint32_t s4[] = { inl, main_ }, s5[] = { tmpl, f5, main_ }, s6[] = { bad, main_ };
	uint32_t s7[] = { lng, main_ }, s8[] = { tiny, main_ };

	synth_stack(p, s1, 2, 10 << 20, 10);
	synth_stack(p, s2, 2, 30 << 20, 30);
	synth_stack(p, s3, 2, 20 << 20, 20);
	synth_stack(p, s4, 2, 15 << 20, 15);
	synth_stack(p, s5, 3, 5 << 20, 5);
	synth_stack(p, s6, 2, 1 << 20, 1);
	synth_stack(p, s7, 2, 300 << 10, 1);
	synth_stack(p, s8, 2, 1000, 1);   /* 1000 B of ~81 MiB: 0.014 px, pruned */
	return p;
}

static void
test_plain(void)
{
	ying_profile *p = small_profile();
	ying_svg_opts o = YING_SVG_OPTS_INIT;
	char why[256], *svg, *again;
	const char *end, *g;
	int rc;

	svg = svg_of(p, NULL, &rc);
	is_int(rc, 0, "plain SVG is written");
	ok(xml_check(svg, why, sizeof(why)) == 0, "the SVG is well-formed XML");
	if (why[0])
		printf("# %s\n", why);
	ok(valid_utf8(svg), "the SVG is valid UTF-8 (bad bytes in names replaced)");
	ok(strncmp(svg, "<?xml", 5) == 0 && strstr(svg, "<svg ") && strstr(svg, "</svg>\n"),
	    "one <svg> document");
	ok(strstr(svg, "<script type=\"text/ecmascript\"><![CDATA[") != NULL &&
	    strstr(svg, "<style type=\"text/css\"><![CDATA[") != NULL, "script and style are inline CDATA");
	is_int(count_str(svg, "http"), count_str(svg, "http://www.w3.org/2000/svg"), "no URL other than the SVG namespace");
	ok(strstr(svg, "href") == NULL && strstr(svg, "@import") == NULL &&
	    strstr(svg, "src=") == NULL, "no external references");
	has_str(svg, "<title>std::map&lt;int, char*&gt;&amp;\n/usr/include/c++/12/bits/stl_map.h:511\n",
	    "template names are escaped in the tooltip");
	ok(strstr(svg, "std::map<int") == NULL, "no raw template name anywhere");
	has_str(svg, "<title>all\n81.3 MiB (100.00%)</title>", "root frame: total and 100%");
	has_str(svg, "<title>f\nf.c:6\n45.0 MiB (55.35%)</title>",
	    "f merges two lines, shows the bigger contributor (f.c:6), bytes and share");
	has_str(svg, "<title>helper\nh.h:3 (inlined)\n15.0 MiB (18.45%)</title>",
	    "inlined frame is marked in its tooltip");
	has_str(svg, "<title>g\ng.c:7\n", "the function it was inlined into follows");
	has_str(svg, "<title>bad\xef\xbf\xbd\xef\xbf\xbdname \n", "invalid UTF-8 and control bytes replaced");
	ok(frame_of(svg, "tiny_frame", NULL) == NULL, "a frame narrower than 0.1 px is pruned");
	g = frame_of(svg, "a_function_with_a_very_long_name_that_cannot_fit_in_a_narrow_frame_at_all", &end);
	ok(g && (strstr(g, "<text") == NULL || strstr(g, "<text") > end),
	    "a 4 px frame has no label");
	has_str(svg, ">std::map..</text>", "a name is cut to fit its 72 px frame with '..'");
	is_near(frame_num(svg, "all", "width"), 1180.0, 0.001, "root spans width - 2*10 px");
	{
		const char *lname = "a_function_with_a_very_long_name_that_cannot_fit_in_a_narrow_frame_at_all";
		const char *bname = "bad\xef\xbf\xbd\xef\xbf\xbdname ";
		double mx = frame_num(svg, "main", "x"), mw = frame_num(svg, "main", "width");
		double ax = frame_num(svg, lname, "x"), aw = frame_num(svg, lname, "width");
		double bx = frame_num(svg, bname, "x"), bw = frame_num(svg, bname, "width");
		double fx = frame_num(svg, "f", "x"), fw = frame_num(svg, "f", "width");
		double f1x = frame_num(svg, "f1", "x"), f1w = frame_num(svg, "f1", "width");
		double gx = frame_num(svg, "g", "x"), gw = frame_num(svg, "g", "width");
		ok(fabs(ax - mx) < 0.011 && fabs(bx - (ax + aw)) < 0.011 && fabs(fx - (bx + bw)) < 0.011 &&
		    fabs(f1x - (fx + fw)) < 0.011 && fabs(gx - (f1x + f1w)) < 0.011 &&
		    fabs(gx + gw + 1000.0 / 85245900.0 * 1180 - (mx + mw)) < 0.011,
		    "children sit side by side in name order and fill the parent");
	}
	ok(frame_num(svg, "f", "x") < frame_num(svg, "f1", "x") &&
	    frame_num(svg, "f1", "x") < frame_num(svg, "g", "x"), "siblings are in name order");
	is_near(frame_num(svg, "all", "y"), 78 + 3 * 16, 0.001, "flame: root at the bottom row");
	is_near(frame_num(svg, "main", "y"), 78 + 2 * 16, 0.001, "flame: callees above");
	has_str(svg, ">Heap flame graph: live bytes (inuse_space)</text>", "default title names the index");
	has_str(svg, "Total: 81.3 MiB", "default subtitle has the total");
	has_str(svg, "every allocation sampled", "period 1 is described");
	has_str(svg, "width=\"1200\" height=\"172\"", "default width 1200, height from depth");
	has_str(svg, "Reset zoom", "has a Reset zoom control");
	has_str(svg, ">Search</text>", "has a Search control");

	again = svg_of(p, NULL, &rc);
	ok(rc == 0 && strcmp(svg, again) == 0, "the same input gives the same bytes");
	free(again);
	free(svg);

	o.icicle = 1;
	o.width = 800;
	o.title = "Title <A&B>";
	o.subtitle = "sub \"quoted\" 'x'";
	svg = svg_of(p, &o, &rc);
	is_int(rc, 0, "icicle SVG is written");
	ok(xml_check(svg, why, sizeof(why)) == 0, "icicle SVG is well-formed");
	is_near(frame_num(svg, "all", "y"), 78, 0.001, "icicle: root at the top row");
	is_near(frame_num(svg, "main", "y"), 78 + 16, 0.001, "icicle: callees below");
	is_near(frame_num(svg, "all", "width"), 780, 0.001, "width 800 is honoured");
	has_str(svg, ">Title &lt;A&amp;B&gt;</text>", "title override, escaped");
	has_str(svg, ">sub &quot;quoted&quot; &#39;x&#39;</text>", "subtitle override, escaped");
	free(svg);

	o = (ying_svg_opts)YING_SVG_OPTS_INIT;
	o.min_width = 100;
	svg = svg_of(p, &o, &rc);
	is_int(rc, 0, "min_width 100 px works");
	ok(frame_of(svg, "g", NULL) && frame_of(svg, "std::map&lt;int, char*&gt;&amp;", NULL) == NULL,
	    "min_width 100: g (217 px) kept, std::map (72 px) pruned");
	free(svg);

	o = (ying_svg_opts)YING_SVG_OPTS_INIT;
	o.focus = "^f1$";
	svg = svg_of(p, &o, &rc);
	is_int(rc, 0, "focus works");
	ok(frame_of(svg, "f1", NULL) && !frame_of(svg, "f", NULL) && !frame_of(svg, "g", NULL),
	    "focus keeps only stacks through f1");
	has_str(svg, "Shown: 20.0 MiB of 81.3 MiB", "focused subtitle says what is shown");
	free(svg);
	o.focus = NULL;
	o.ignore = "^(f|g)$";
	svg = svg_of(p, &o, &rc);
	ok(rc == 0 && frame_of(svg, "f1", NULL) && !frame_of(svg, "f", NULL) &&
	    !frame_of(svg, "g", NULL) && !frame_of(svg, "helper", NULL), "ignore drops stacks through f or g");
	free(svg);

	o = (ying_svg_opts)YING_SVG_OPTS_INIT;
	o.sample_index = YING_INUSE_OBJECTS;
	svg = svg_of(p, &o, &rc);
	is_int(rc, 0, "inuse_objects SVG");
	has_str(svg, "<title>f\nf.c:6\n45 objects (54.22%)</title>", "objects are counted, not sized");
	has_str(svg, "Total: 83 objects", "objects total in the subtitle");
	free(svg);

	o = (ying_svg_opts)YING_SVG_OPTS_INIT;
	o.width = 50;
	free(svg_of(p, &o, &rc));
	is_int(rc, YING_EINVAL, "width 50 is rejected");
	o.width = 0;
	o.min_width = -1;
	free(svg_of(p, &o, &rc));
	is_int(rc, YING_EINVAL, "negative min_width is rejected");
	o.min_width = NAN;
	free(svg_of(p, &o, &rc));
	is_int(rc, YING_EINVAL, "NaN min_width is rejected");
	o.min_width = 0;
	o.focus = "(";
	free(svg_of(p, &o, &rc));
	is_int(rc, YING_EINVAL, "a bad focus regex is rejected");
	o.focus = NULL;
	o.version = 2;
	free(svg_of(p, &o, &rc));
	is_int(rc, YING_EINVAL, "unknown opts version is rejected");
	o.version = YING_SVG_OPTS_VERSION;
	o.sample_index = YING_ALLOC_SPACE;
	free(svg_of(p, &o, &rc));
	is_int(rc, YING_ENODATA, "alloc_space without accum data is ENODATA");
	is_int(ying_profile_write_svg(NULL, NULL, ying_write_membuf, NULL), YING_EINVAL,
	    "NULL profile is EINVAL");
	ying_profile_free(p);

	p = synth_new("synthetic", 1);
	svg = svg_of(p, NULL, &rc);
	is_int(rc, 0, "an empty profile still gives an SVG");
	ok(xml_check(svg, why, sizeof(why)) == 0 && strstr(svg, "No data") != NULL,
	    "empty profile: well-formed, says there is no data");
	free(svg);
	ying_profile_free(p);
}

static void
test_fixture(void)
{
	ying_profile *p = NULL;
	char *svg, iso[64], why[256];
	time_t t;
	struct tm tm;
	int rc;

	if (ying_profile_read_file(&p, tap_data("flame_fake.heap")) != 0) {
		ok(0, "fixture reads");
		return;
	}
	svg = svg_of(p, NULL, &rc);
	is_int(rc, 0, "fixture SVG is written");
	ok(xml_check(svg, why, sizeof(why)) == 0, "fixture SVG is well-formed");
	has_str(svg, "1 sample per 512 KiB", "subtitle has the sample rate");
	has_str(svg, "/nonexistent/ying-flame/flamefix", "subtitle names the program");
	t = (time_t)ying_profile_time(p);
	gmtime_r(&t, &tm);
	strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%SZ", &tm);
	has_str(svg, iso, "subtitle has the dump time in UTC ISO 8601");
	has_str(svg, "<title>flamefix+0x11ff\n54.8 MiB (92.41%)</title>",
	    "fixture frame with unsampled bytes and share");
	free(svg);
	ying_profile_free(p);
}

/* Differential trees through the internal API yingdiff uses. */
static void
test_diff(void)
{
	ying_profile *p = synth_new("synthetic", 1);
	uint32_t m = synth_fn(p, 0x1000, "main", "m.c", 1);
	uint32_t a = synth_fn(p, 0x2000, "grew", "d.c", 2);
	uint32_t b = synth_fn(p, 0x3000, "shrank", "d.c", 3);
	uint32_t c = synth_fn(p, 0x4000, "fresh", "d.c", 4);
	uint32_t d = synth_fn(p, 0x5000, "same", "d.c", 5);
	uint32_t e = synth_fn(p, 0x6000, "gone", "d.c", 6);
	uint32_t sa[] = { a, m }, sb[] = { b, m }, sc[] = { c, m }, sd[] = { d, m }, se[] = { e, m };
	yi_framevec fr = { NULL, 0, 0 };
	yi_flame *f = NULL, *f2 = NULL;
	yi_flame_meta meta = { "Diff <title>", "base vs now", YING_INUSE_SPACE, true };
	unsigned rgb[3], rgb2[3];
	char *svg, *svg2, why[256];
	size_t i;
	int rc;

	synth_stack(p, sa, 2, 1, 1);
	synth_stack(p, sb, 2, 1, 1);
	synth_stack(p, sc, 2, 1, 1);
	synth_stack(p, sd, 2, 1, 1);
	synth_stack(p, se, 2, 1, 1);
	is_int(yi_flame_new(&f), 0, "yi_flame_new");
	is_int(yi_flame_new(&f2), 0, "yi_flame_new (second tree)");
	{
		const double now[] = { 300 << 10, 50 << 10, 10 << 10, 40 << 10, 0 };
		const double base[] = { 100 << 10, 200 << 10, 0, 40 << 10, 30 << 10 };
		for (i = 0; i < 5; i++) {
			long n = yi_stack_expand(p, &p->stacks.v[i], &fr);
			rc = yi_flame_add(f, p, fr.v, (size_t)n, now[i], base[i]);
			if (rc)
				break;
		}
		is_int(rc, 0, "diff stacks added");
		for (i = 5; i-- > 0;) {   /* same stacks, reverse order */
			long n = yi_stack_expand(p, &p->stacks.v[i], &fr);
			yi_flame_add(f2, p, fr.v, (size_t)n, now[i], base[i]);
		}
	}
	svg = svg_of_tree(f, NULL, &meta, &rc);
	is_int(rc, 0, "diff SVG is written");
	ok(xml_check(svg, why, sizeof(why)) == 0, "diff SVG is well-formed");
	if (why[0])
		printf("# %s\n", why);
	svg2 = svg_of_tree(f2, NULL, &meta, &rc);
	ok(rc == 0 && strcmp(svg, svg2) == 0, "stacks added in another order give the same bytes");
	free(svg2);
	has_str(svg, ">Diff &lt;title&gt;</text>", "diff title from meta, escaped");
	has_str(svg, "url(#legend)", "diff has a colour legend");
	has_str(svg, ">shrank</text>", "legend names blue");
	has_str(svg, "grew (width: now", "legend names red and the width");
	has_str(svg, "<title>grew\nd.c:2\nnow 300.0 KiB (75.00%), base 100.0 KiB, +200.0 KiB (+200.0%)</title>",
	    "grown frame: now, share, base, delta and relative change");
	has_str(svg, "<title>shrank\nd.c:3\nnow 50.0 KiB (12.50%), base 200.0 KiB, -150.0 KiB (-75.0%)</title>",
	    "shrunk frame: negative delta");
	has_str(svg, "<title>fresh\nd.c:4\nnow 10.0 KiB (2.50%), base 0 B, +10.0 KiB (new)</title>",
	    "new frame is marked new");
	ok(frame_of(svg, "gone", NULL) == NULL, "a frame with nothing left now has no width");
	is_near(frame_num(svg, "all", "width"), 1180, 0.001, "width comes from now");
	is_near(frame_num(svg, "grew", "width"), 1180 * 0.75, 0.01, "grew is 75% wide");
	ok(frame_rgb(svg, "grew", rgb) == 0 && rgb[0] > 200 && rgb[2] < 100 && rgb[1] == rgb[2],
	    "grew by 200%: strong red");
	ok(frame_rgb(svg, "shrank", rgb) == 0 && rgb[2] > 200 && rgb[0] < 150 && rgb[0] == rgb[1],
	    "shrank by 75%: blue");
	ok(frame_rgb(svg, "fresh", rgb2) == 0 && frame_rgb(svg, "grew", rgb) == 0 &&
	    rgb2[0] == rgb[0] && rgb2[1] == rgb[1], "new frame: full red, like +100% or more");
	ok(frame_rgb(svg, "same", rgb) == 0 && rgb[0] > 230 && rgb[0] == rgb[1] && rgb[1] == rgb[2],
	    "unchanged frame: light grey");
	ok(frame_rgb(svg, "main", rgb) == 0 && frame_rgb(svg, "grew", rgb2) == 0 &&
	    rgb[0] > rgb[2] && rgb[1] > rgb2[1], "main grew 8% (370 to 400 KiB): pale red");
	free(svg);

	is_int(yi_flame_add(f, p, fr.v, 1, -1, 0), YING_EINVAL, "negative value is EINVAL");
	is_int(yi_flame_add(f, p, fr.v, 1, NAN, 0), YING_EINVAL, "NaN value is EINVAL");
	{
		yi_frame bogus = { 999999, 0, 0, 0 };
		is_int(yi_flame_add(f, p, &bogus, 1, 1, 1), YING_EINVAL, "unknown function is EINVAL");
	}
	is_int(yi_flame_write_svg(f, NULL, NULL, NULL), YING_EINVAL, "missing meta is EINVAL");
	yi_flame_free(f);
	yi_flame_free(f2);
	yi_flame_free(NULL);
	yi_vec_free(&fr);
	ying_profile_free(p);
}

/* xorshift: the same "random" profile on every run. */
static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void
test_big(void)
{
	ying_profile *p = synth_new("synthetic", 1);
	enum { NFUNC = 3000, NSTACK = 200000 };
	uint32_t *loc = malloc(NFUNC * sizeof(*loc)), st[64];
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	ying_svg_opts o = YING_SVG_OPTS_INIT;
	struct timespec t0, t1;
	char name[64], why[256], *svg;
	const char *s;
	size_t i, nframes = 0, narrow = 0, rows[128] = { 0 };
	double secs, cpu, minw = 1e9;
	clock_t c0;
	int rc, k;

	for (i = 0; i < NFUNC; i++) {
		snprintf(name, sizeof(name), "ns%zu::Class%zu::method_%zu", i % 17, i % 101, i);
		loc[i] = synth_fn(p, 0x10000 + i * 16, name, "big.cc", (uint32_t)i);
	}
	for (i = 0; i < NSTACK; i++) {
		/* a call tree: frame k is chosen among few callees of frame k-1 */
		int depth = 8 + (int)(rnd(&seed) % 40);
		uint64_t at = 0;
		double bytes = (double)(16 << (rnd(&seed) % 16));
		for (k = 0; k < depth; k++) {
			at = (at * 7 + 1 + rnd(&seed) % (k < 3 ? 2 : 6)) % NFUNC;
			st[depth - 1 - k] = loc[at];
		}
		synth_stack(p, st, (size_t)depth, bytes, 1);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	c0 = clock();
	svg = svg_of(p, &o, &rc);
	cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	is_int(rc, 0, "200,000-stack SVG is written");
	ok(xml_check(svg, why, sizeof(why)) == 0, "200,000-stack SVG is well-formed");
	for (s = svg; (s = strstr(s, "<g><title>")) != NULL; s++) {
		const char *r = strstr(s, "<rect x=\"");
		double w = atof(strstr(r, "width=\"") + 7), y = atof(strstr(r, " y=\"") + 4);
		int row = (int)((y - 78) / 16);
		nframes++;
		if (w < 0.1 - 1e-9)
			narrow++;
		if (w < minw)
			minw = w;
		if (row >= 0 && row < 128)
			rows[row]++;
	}
	printf("# 200,000 stacks: %.3f s (%.3f s CPU), %zu frames, %.2f MB, narrowest %.3f px\n",
	    secs, cpu, nframes,
	    (double)strlen(svg) / 1e6, minw);
	is_int(narrow, 0, "no frame narrower than min_width (0.1 px)");
	for (k = 0, i = 0; k < 128; k++)
		if (rows[k] > 1180 / 0.1 + 1)
			i++;
	is_int(i, 0, "no row holds more than width/min_width frames");
	ok(strlen(svg) < 12 * 1000 * 1000, "file stays small (< 12 MB)");
	ok(cpu < 5.0, "written in under 5 s of CPU (about 0.5 s here; generous for sanitizer builds)");
	free(svg);
	o.min_width = 1;
	svg = svg_of(p, &o, &rc);
	ok(rc == 0 && count_str(svg, "<g><title>") < nframes, "min_width 1 px leaves fewer frames");
	free(svg);
	free(loc);
	ying_profile_free(p);
}

int
main(void)
{
	test_plain();
	test_fixture();
	test_diff();
	test_big();
	return tap_done();
}
