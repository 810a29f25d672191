/*
 * test_write_dot.c: the call graph as DOT (write_dot.c) on profiles built
 * in memory: jeprof's labels and legend, node selection at the nodecount
 * and nodefraction boundaries, edge selection at edgefraction and
 * maxdegree (the first edge into a node is always kept), recursion,
 * inline edges, per-line nodes, negative values, hostile names, the same
 * bytes every time, and the errors; ying_graphviz_render with the real
 * Graphviz dot (SVG, PNG, dot's own error, a failing sink, no dot).
 */
#include <sys/wait.h>
#include <errno.h>
#include <unistd.h>

#include "tap.h"
#include "synth.h"

static char *
dot(ying_profile *p, const ying_dot_opts *o, int *rc)
{
	ying_membuf b = YING_MEMBUF_INIT;

	*rc = ying_profile_write_dot(p, o, ying_write_membuf, &b);
	if (b.data == NULL)
		return strdup("");
	return b.data;
}

/* Options that show bytes and keep every node and edge unless changed. */
static ying_dot_opts
all_opts(void)
{
	ying_dot_opts o = YING_DOT_OPTS_INIT;

	o.show_bytes = 1;
	o.nodefraction = 0;
	o.edgefraction = 0;
	o.nodecount = 1000;
	return o;
}

static int
count(const char *s, const char *needle)
{
	int n = 0;

	while ((s = strstr(s, needle)) != NULL) {
		n++;
		s += strlen(needle);
	}
	return n;
}

/* The label of the node named `name` (NULL when absent), in buf. */
static const char *
node_label(const char *text, const char *name, char *buf, size_t len)
{
	char pat[256];
	const char *s, *e;

	snprintf(pat, sizeof(pat), "[label=\"%s\\n", name);
	if ((s = strstr(text, pat)) == NULL)
		return NULL;
	s += strlen("[label=\"");
	if ((e = strstr(s, "\",shape=")) == NULL || (size_t)(e - s) >= len)
		return NULL;
	memcpy(buf, s, (size_t)(e - s));
	buf[e - s] = '\0';
	return buf;
}

/* The node number of `name`, 0 when absent. */
static int
node_id(const char *text, const char *name)
{
	char pat[256];
	const char *s;

	snprintf(pat, sizeof(pat), " [label=\"%s\\n", name);
	if ((s = strstr(text, pat)) == NULL)
		return 0;
	while (s > text && s[-1] != '\n')
		s--;
	return s[0] == 'N' ? atoi(s + 1) : 0;
}

static int
has_edge(const char *text, int from, int to)
{
	char pat[64];

	snprintf(pat, sizeof(pat), "\nN%d -> N%d [", from, to);
	return from && to && strstr(text, pat) != NULL;
}

/* DOT lexically sound: no control byte but the line ends, every line ends
 * outside a quoted string (backslash escapes honoured), braces balance. */
static int
dot_sound(const char *s)
{
	int in = 0, depth = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\n') {
			if (in)
				return 0;
			continue;
		}
		if (c < 0x20 || c == 0x7f)
			return 0;
		if (in) {
			if (c == '\\') {
				if (s[1] == '\0' || s[1] == '\n')
					return 0;
				s++;
			} else if (c == '"') {
				in = 0;
			}
		} else if (c == '"') {
			in = 1;
		} else if (c == '{') {
			depth++;
		} else if (c == '}') {
			depth--;
		}
	}
	return !in && depth == 0;
}

static void
test_labels(void)
{
	ying_profile *p = synth_fan(0);
	ying_dot_opts o = all_opts();
	char *t, *t2, buf[512];
	int rc, rc2;

	t = dot(p, &o, &rc);
	is_int(rc, 0, "fan: write_dot succeeds");
	/* a synthetic profile has no main executable: the program is "" */
	ok(strncmp(t, "digraph \"; 1000 B\" {\n", 21) == 0, "digraph named by program and total");
	has_str(t, "label=\"\\lTotal B: 1000\\lFocusing on: 1000\\l"
	    "Dropped nodes with <= 0 abs(B)\\lDropped edges with <= 0 B\\l"
	    "Showing top 4 nodes out of 4\\l\"", "legend as jeprof's, with the node count");
	is_str(node_label(t, "main", buf, sizeof(buf)), "main\\n0 (0.0%)\\rof 1000 (100.0%)\\r",
	    "main: flat 0 of cum 1000");
	is_str(node_label(t, "a", buf, sizeof(buf)), "a\\n600 (60.0%)\\r", "a: flat = cum, no 'of'");
	is_int(node_id(t, "main"), 1, "main first (largest cum)");
	is_int(node_id(t, "a"), 2, "then a");
	is_int(node_id(t, "c"), 4, "c last");
	/* fontsize 8 + 50 * sqrt(600/1000) = 46.7 */
	has_str(t, "N2 [label=\"a\\n600 (60.0%)\\r\",shape=box,fontsize=46.7,tooltip=\"a\"];",
	    "a: fontsize scaled by sqrt(flat/total)");
	has_str(t, "shape=box,fontsize=8.0,tooltip=\"main\"", "main: flat 0, fontsize 8");
	/* weight int(600^0.7) = 88, width min(1, 3*0.6)*2 = 2 */
	has_str(t, "\nN1 -> N2 [label=\"600\", weight=88, style=\"setlinewidth(2.000000)\"];\n",
	    "edge main -> a: value, weight, width");
	has_str(t, "\nN1 -> N4 [label=\"100\", weight=25, style=\"setlinewidth(0.600000)\"];\n",
	    "edge main -> c: width 3*0.1*2");
	ok(strstr(t, "N1 -> N2") < strstr(t, "N1 -> N3") && strstr(t, "N1 -> N3") < strstr(t, "N1 -> N4"),
	    "edges by decreasing value");
	ok(t[strlen(t) - 2] == '}' && dot_sound(t), "ends with } and is sound DOT");
	t2 = dot(p, &o, &rc2);
	ok(rc2 == 0 && strcmp(t, t2) == 0, "the same profile and options give the same bytes");
	free(t2);
	free(t);

	o = all_opts();
	o.show_bytes = 0;
	o.title = "my title";
	t = dot(p, &o, &rc);
	ok(rc == 0 && strncmp(t, "digraph \"my title; 0.0 MB\" {\n", 29) == 0,
	    "MB with one decimal by default; title replaces the program");
	has_str(t, "label=\"my title\\lTotal MB: 0.0\\l", "legend in MB");
	free(t);

	o = all_opts();
	o.sample_index = YING_INUSE_OBJECTS;
	o.show_bytes = 0;
	t = dot(p, &o, &rc);
	ok(rc == 0 && strstr(t, "Total objects: 10\\l") && strstr(t, "a\\n6 (60.0%)\\r"),
	    "objects as counts");
	free(t);

	o = all_opts();
	o.focus = "^b$";
	t = dot(p, &o, &rc);
	ok(rc == 0 && strstr(t, "Total B: 1000\\lFocusing on: 300\\l") && node_id(t, "a") == 0 &&
	    strstr(t, "main\\n0 (0.0%)\\rof 300 (100.0%)"),
	    "--focus: Total unfiltered, percentages of the focused 300");
	free(t);
	ying_profile_free(p);
}

static void
test_node_selection(void)
{
	ying_profile *p = synth_fan(0);
	ying_dot_opts o = all_opts();
	char *t;
	int rc;

	o.nodecount = 3;
	t = dot(p, &o, &rc);
	ok(rc == 0 && node_id(t, "b") == 3 && node_id(t, "c") == 0 &&
	    strstr(t, "Showing top 3 nodes out of 4\\l"), "nodecount 3 keeps main, a, b");
	ok(has_edge(t, 1, 3) && !strstr(t, "-> N4"), "no edge to a dropped node");
	free(t);

	/* nodefraction 0.1 of 1000: limit 100, c (cum 100) is at it: dropped */
	o = all_opts();
	o.nodefraction = 0.1;
	t = dot(p, &o, &rc);
	ok(rc == 0 && node_id(t, "c") == 0 && node_id(t, "b") == 3 &&
	    strstr(t, "Dropped nodes with <= 100 abs(B)\\l"), "nodefraction: cum == limit is dropped");
	free(t);
	o.nodefraction = 0.0999;
	t = dot(p, &o, &rc);
	ok(rc == 0 && node_id(t, "c") == 4 && strstr(t, "Dropped nodes with <= 99 abs(B)\\l"),
	    "nodefraction: limit truncated (99), cum 100 kept");
	free(t);

	/* defaults: 0.005 and 0.001 of the total */
	o = all_opts();
	o.nodefraction = -1;
	o.edgefraction = -1;
	o.nodecount = 0;
	t = dot(p, &o, &rc);
	ok(rc == 0 && strstr(t, "Dropped nodes with <= 5 abs(B)\\lDropped edges with <= 1 B\\l"),
	    "default fractions 0.005 and 0.001");
	free(t);

	/* everything dropped: still a valid graph */
	o = all_opts();
	o.nodefraction = 1;
	t = dot(p, &o, &rc);
	ok(rc == 0 && strstr(t, "Showing top 0 nodes out of 4\\l") && !strstr(t, "N1 ") &&
	    dot_sound(t), "nodefraction 1: no node, a valid graph");
	free(t);
	ying_profile_free(p);
}

/* x is called by m1 (50), m2 (30), m3 (20), m4 (1); each mK is called by
 * main. */
static void
test_edge_selection(void)
{
	ying_profile *p = synth_new("edges", 1);
	uint32_t m = synth_fn(p, 0x1000, "main", "", 0);
	uint32_t x = synth_fn(p, 0x2000, "x", "", 0);
	uint32_t m1 = synth_fn(p, 0x3000, "m1", "", 0), m2 = synth_fn(p, 0x4000, "m2", "", 0);
	uint32_t m3 = synth_fn(p, 0x5000, "m3", "", 0), m4 = synth_fn(p, 0x6000, "m4", "", 0);
	uint32_t s1[] = { x, m1, m }, s2[] = { x, m2, m }, s3[] = { x, m3, m };
	uint32_t s4[] = { x, m4, m };
	ying_dot_opts o = all_opts();
	int ix, i1, i2, i3, i4, rc;
	char *t;

	synth_stack(p, s1, 3, 50, 1);
	synth_stack(p, s2, 3, 30, 1);
	synth_stack(p, s3, 3, 20, 1);
	synth_stack(p, s4, 3, 1, 1);
	t = dot(p, &o, &rc);
	ix = node_id(t, "x");
	i1 = node_id(t, "m1"), i2 = node_id(t, "m2"), i3 = node_id(t, "m3"), i4 = node_id(t, "m4");
	ok(rc == 0 && has_edge(t, i1, ix) && has_edge(t, i2, ix) && has_edge(t, i3, ix) &&
	    has_edge(t, i4, ix), "all four edges into x without limits");
	free(t);

	o.maxdegree = 2;
	t = dot(p, &o, &rc);
	ok(rc == 0 && has_edge(t, i1, ix) && has_edge(t, i2, ix) && !has_edge(t, i3, ix) &&
	    !has_edge(t, i4, ix), "maxdegree 2: the two largest edges into x");
	ok(has_edge(t, 1, i4) && has_edge(t, 1, i3), "maxdegree: the first edge into a node is kept");
	free(t);
	o.maxdegree = 3;
	t = dot(p, &o, &rc);
	ok(rc == 0 && has_edge(t, i3, ix) && !has_edge(t, i4, ix), "maxdegree 3: three edges");
	free(t);

	/* edgefraction 0.2 of 101: limit 20; m3 -> x (20) is at it */
	o = all_opts();
	o.edgefraction = 0.2;
	t = dot(p, &o, &rc);
	ok(rc == 0 && has_edge(t, i2, ix) && !has_edge(t, i3, ix) && !has_edge(t, i4, ix),
	    "edgefraction: an edge at the limit is dropped");
	ok(has_edge(t, 1, i4), "edgefraction: main -> m4 (1) kept, the first into m4");
	free(t);
	ying_profile_free(p);
}

static void
test_shapes(void)
{
	ying_profile *p = synth_new("shapes", 1);
	const char *inl_names[] = { "helper", "outer" };
	const char *inl_files[] = { "h.h", "o.c" };
	const uint32_t inl_lines[] = { 3, 7 };
	uint32_t m = synth_fn(p, 0x1000, "main", "m.c", 10);
	uint32_t r = synth_fn(p, 0x2000, "rec", "r.c", 5);
	uint32_t r6 = synth_fn(p, 0x2010, "rec", "r.c", 6);
	uint32_t inl = synth_loc(p, 0x3000, inl_names, inl_files, inl_lines, 2);
	uint32_t s1[] = { r, r6, r6, m }, s2[] = { inl, m };
	ying_dot_opts o = all_opts();
	char *t, buf[256];
	int rc;

	synth_stack(p, s1, 4, 64, 1);
	synth_stack(p, s2, 2, 16, 1);
	t = dot(p, &o, &rc);
	is_int(rc, 0, "shapes: write_dot succeeds");
	has_str(t, "\nN2 -> N2 [label=\"64\",", "recursion: a self edge counted once per stack (64)");
	ok(count(t, "-> N2 [") == 2, "rec: one edge from main, one self edge");
	has_str(t, "-> N3 [label=\"16\", weight=6, style=\"setlinewidth(1.200000),dashed\"];",
	    "the edge into an inlined frame is dashed");
	is_str(node_label(t, "helper", buf, sizeof(buf)), "helper\\n16 (20.0%)\\r",
	    "the inlined function is its own node");
	ok(node_id(t, "outer") > 0, "and so is the function it is inlined into");
	free(t);

	o.granularity = YING_BY_LINE;
	t = dot(p, &o, &rc);
	is_int(rc, 0, "--lines: write_dot succeeds");
	is_str(node_label(t, "rec", buf, sizeof(buf)), "rec\\nr.c:5\\n64 (80.0%)\\r",
	    "--lines: the leaf line of rec is a node");
	has_str(t, "label=\"rec\\nr.c:6\\n0 (0.0%)\\rof 64 (80.0%)\\r\"",
	    "--lines: rec's calling line is another node");
	has_str(t, "label=\"main\\nm.c:10\\n", "--lines: main with its line");
	free(t);
	ying_profile_free(p);
}

static void
test_negative(void)
{
	ying_profile *p = synth_new("neg", 1);
	uint32_t m = synth_fn(p, 0x1000, "main", "", 0);
	uint32_t a = synth_fn(p, 0x2000, "shrunk", "", 0);
	uint32_t b = synth_fn(p, 0x3000, "grew", "", 0);
	uint32_t s1[] = { a, m }, s2[] = { b, m };
	ying_dot_opts o = all_opts();
	char *t, buf[256];
	int rc;

	synth_stack(p, s1, 2, 1, 1);
	synth_stack(p, s2, 2, 1, 1);
	p->stacks.v[0].val[YING_INUSE_SPACE] = -5000;
	p->stacks.v[1].val[YING_INUSE_SPACE] = 1000;
	t = dot(p, &o, &rc);
	is_int(rc, 0, "negative values: write_dot succeeds");
	has_str(t, "Total B: -4000\\lFocusing on: -4000\\l", "signed totals");
	is_int(node_id(t, "shrunk"), 1, "nodes by |cum|: shrunk (-5000) first");
	is_int(node_id(t, "main"), 2, "then main (-4000)");
	is_int(node_id(t, "grew"), 3, "then grew (1000)");
	is_str(node_label(t, "shrunk", buf, sizeof(buf)), "shrunk\\n-5000 (125.0%)\\r",
	    "a negative node prints its signed value");
	/* sizes from |flat| / sum of |values| = 5000 / 6000 */
	has_str(t, "shape=box,fontsize=53.6,tooltip=\"shrunk\"", "fontsize from |flat|");
	has_str(t, "\nN2 -> N1 [label=\"-5000\", weight=388, style=\"setlinewidth(2.000000)\"];",
	    "a negative edge: signed label, weight and width from |value|");
	ok(strstr(t, "N2 -> N1") < strstr(t, "N2 -> N3"), "edges by |value|");
	o.nodefraction = 0.5;   /* limit 3000 of 6000: grew (1000) dropped */
	free(t);
	t = dot(p, &o, &rc);
	ok(rc == 0 && node_id(t, "grew") == 0 && node_id(t, "shrunk") == 1 &&
	    strstr(t, "Dropped nodes with <= 3000 abs(B)"), "nodefraction of the sum of |values|");
	free(t);
	ying_profile_free(p);
}

static void
test_hostile(void)
{
	ying_profile *p = synth_new("hostile", 1);
	uint32_t m = synth_fn(p, 0x1000, "main", "", 0);
	uint32_t q = synth_fn(p, 0x2000, "a\"b\\c", "", 0);
	uint32_t n = synth_fn(p, 0x3000, "two\nlines\x01\x7f", "", 0);
	uint32_t u = synth_fn(p, 0x4000, "bad\xff\xfeutf8 \xc3\xa9t\xc3\xa9", "", 0);
	uint32_t c = synth_fn(p, 0x5000, "ns::Cls<int>::f(char const*) {}[]|<>", "", 0);
	uint32_t s1[] = { q, m }, s2[] = { n, m }, s3[] = { u, m }, s4[] = { c, m };
	ying_dot_opts o = all_opts();
	char *t;
	int rc;

	synth_stack(p, s1, 2, 10, 1);
	synth_stack(p, s2, 2, 20, 1);
	synth_stack(p, s3, 2, 30, 1);
	synth_stack(p, s4, 2, 40, 1);
	o.title = "prog \"x\"\n\\";
	t = dot(p, &o, &rc);
	is_int(rc, 0, "hostile names: write_dot succeeds");
	ok(dot_sound(t), "hostile names: sound DOT (quotes, backslashes, no control byte)");
	has_str(t, "digraph \"prog \\\"x\\\"\\\\n\\\\; 100 B\" {", "title escaped in the graph name");
	has_str(t, "label=\"prog \\\"x\\\"\\\\n\\\\\\lTotal", "and in the legend");
	has_str(t, "[label=\"a\\\"b\\\\c\\n10 ", "quote and backslash escaped");
	has_str(t, "tooltip=\"a\\\"b\\\\c\"", "the tooltip too");
	has_str(t, "[label=\"two\\\\nlines\\\\x01\\\\x7f\\n20 ", "newline and controls as visible escapes");
	has_str(t, "[label=\"bad\\\\xff\\\\xfeutf8\\n\xc3\xa9t\xc3\xa9\\n30 ",
	    "invalid UTF-8 escaped, valid UTF-8 kept, a space splits the label");
	has_str(t, "[label=\"ns\\nCls<int>\\nf(char\\nconst*)\\n{}[]|<>\\n40 ",
	    "'::' and spaces split the label as jeprof's");
	has_str(t, "tooltip=\"ns::Cls<int>::f(char const*) {}[]|<>\"", "the tooltip keeps the name");
	free(t);
	ying_profile_free(p);
}

static void
test_errors(void)
{
	ying_profile *p = synth_fan(0);
	ying_dot_opts o = all_opts();
	ying_membuf b = YING_MEMBUF_INIT;
	char *t;
	int rc;

	o.granularity = YING_BY_STACK;
	t = dot(p, &o, &rc);
	is_int(rc, YING_EINVAL, "granularity by stack: EINVAL");
	free(t);
	o = all_opts();
	o.version = 99;
	t = dot(p, &o, &rc);
	is_int(rc, YING_EINVAL, "unknown version: EINVAL");
	free(t);
	o = all_opts();
	o.focus = "(";
	t = dot(p, &o, &rc);
	ok(rc == YING_EINVAL && strstr(ying_last_error(), "focus"), "bad --focus regex: EINVAL naming it");
	free(t);
	o = all_opts();
	o.maxdegree = -1;
	t = dot(p, &o, &rc);
	is_int(rc, YING_EINVAL, "negative maxdegree: EINVAL");
	free(t);
	o = all_opts();
	o.nodefraction = NAN;
	t = dot(p, &o, &rc);
	is_int(rc, YING_EINVAL, "NaN fraction: EINVAL");
	free(t);
	o = all_opts();
	o.sample_index = YING_ALLOC_SPACE;
	t = dot(p, &o, &rc);
	is_int(rc, YING_ENODATA, "alloc_space without accum data: ENODATA");
	free(t);
	is_int(ying_profile_write_dot(NULL, NULL, ying_write_membuf, &b), YING_EINVAL, "NULL profile");
	is_int(ying_profile_write_dot(p, NULL, NULL, NULL), YING_EINVAL, "NULL sink");
	ying_membuf_release(&b);
	rc = ying_graphviz_render("gif", "digraph{}", 9, ying_write_membuf, &b);
	ok(rc == YING_EINVAL && strstr(ying_last_error(), "gif"), "render: an unknown format is EINVAL");
	ying_membuf_release(&b);
	ying_profile_free(p);
}

static int
fail_sink(void *opaque, const void *data, size_t len)
{
	(void)data;
	(void)len;
	++*(int *)opaque;
	return YING_EIO;
}

/* ying_graphviz_render with the real Graphviz dot. */
static void
test_render(void)
{
	static const char good[] = "digraph g { a -> b; }\n";
	ying_membuf b = YING_MEMBUF_INIT;
	const char *path = getenv("PATH");
	char *saved = path ? strdup(path) : NULL;
	int rc, calls = 0, st;
	pid_t pid;

	rc = ying_graphviz_render("svg", good, strlen(good), ying_write_membuf, &b);
	ok(rc == 0 && b.data && strstr(b.data, "<svg") && strstr(b.data, "</svg>"),
	    "render svg: a whole SVG document");
	ying_membuf_release(&b);
	rc = ying_graphviz_render("png", good, strlen(good), ying_write_membuf, &b);
	ok(rc == 0 && b.len > 8 && memcmp(b.data, "\x89PNG\r\n\x1a\n", 8) == 0, "render png: PNG magic");
	ying_membuf_release(&b);
	rc = ying_graphviz_render("svg", "digraph { a -> ", 15, ying_write_membuf, &b);
	ok(rc == YING_EPARSE && strstr(ying_last_error(), "Graphviz dot failed (exit 1): ") &&
	    strstr(ying_last_error(), "syntax error"),
	    "render: dot's failure is EPARSE with its first stderr line");
	if (rc != YING_EPARSE || !strstr(ying_last_error(), "syntax error"))
		printf("#   %d %s\n", rc, ying_last_error());
	ying_membuf_release(&b);
	rc = ying_graphviz_render("svg", good, strlen(good), fail_sink, &calls);
	ok(rc == YING_EIO && calls == 1, "render: the sink's error stops it at once");
	errno = 0;
	ok(waitpid(-1, &st, WNOHANG) == -1 && errno == ECHILD, "no child left behind");
	/* a process without standard descriptors: the socket and the pipes
	 * land on 0, 1 and 2 unless moved */
	fflush(stdout);
	if ((pid = fork()) == 0) {
		close(0);
		close(1);
		close(2);
		rc = ying_graphviz_render("svg", good, strlen(good), ying_write_membuf, &b);
		_exit(rc == 0 && b.data && strstr(b.data, "</svg>") ? 0 : 1);
	}
	ok(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "render with stdin, stdout and stderr closed");
	setenv("PATH", "/nonexistent-ying-test-dir", 1);
	rc = ying_graphviz_render("svg", good, strlen(good), ying_write_membuf, &b);
	ok(rc == YING_ENOTFOUND && strcmp(ying_last_error(), "Graphviz 'dot' not found on PATH: "
	    "install graphviz (apt-get install graphviz)") == 0, "render: no dot on PATH is ENOTFOUND");
	ying_membuf_release(&b);
	if (saved) {
		setenv("PATH", saved, 1);
		free(saved);
	}
}

int
main(void)
{
	test_labels();
	test_node_selection();
	test_edge_selection();
	test_shapes();
	test_negative();
	test_hostile();
	test_errors();
	test_render();
	return tap_done();
}
