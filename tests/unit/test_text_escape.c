/*
 * test_text_escape.c: names from a dump reach a terminal escaped (issue 13,
 * finding 8).  The text rule itself (yi_text_escape: control bytes, DEL,
 * C1 controls and invalid UTF-8 as \xHH, \n, \r, \t; valid UTF-8 and
 * ordinary names unchanged), then `ying top` text and `yingdiff` text of
 * a synthetic profile whose function and file are named
 * "evil\x1b[2J\nname" and "f\x07.c": no ESC or BEL byte, no extra line.
 */
#include "synth.h"
#include "tap.h"

static char *
esc(const char *s)
{
	ying_membuf b = YING_MEMBUF_INIT;

	yi_text_escape(s, ying_write_membuf, &b);
	ying_write_membuf(&b, "", 1);
	return (char *)b.data;
}

static void
check_esc(const char *in, const char *want, const char *what)
{
	char *s = esc(in);

	is_str(s, want, what);
	free(s);
}

static size_t
count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static bool
has_control(const char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\n') || *s == 0x7f)
			return true;
	return false;
}

static const char *evil = "evil\x1b[2J\nname";
static const char *evil_file = "src/f\x07.c";

/* One stack: evil <- main, `bytes` in use. */
static ying_profile *
mkprof(double bytes)
{
	ying_profile *p = synth_new("evil.heap", 524288);
	const char *names[1], *files[1];
	uint32_t lines[1] = { 7 }, locs[2];

	synth_map(p, "/usr/bin/prog\x1b]0;title\x07", 0x400000, 0x1400000);
	names[0] = evil;
	files[0] = evil_file;
	locs[0] = synth_loc_at(p, 0x401000, true, 0, names, names, files, lines, 1);
	names[0] = "main";
	files[0] = "main.c";
	locs[1] = synth_loc_at(p, 0x402001, false, 0, names, names, files, lines, 1);
	synth_stack(p, locs, 2, bytes, 1);
	return p;
}

int
main(void)
{
	ying_top_opts to = YING_TOP_OPTS_INIT;
	ying_diff_opts dopts = YING_DIFF_OPTS_INIT;
	ying_membuf mb = YING_MEMBUF_INIT;
	ying_profile *b, *n;
	ying_diff *d = NULL;
	char *s;

	/* the rule */
	check_esc("main", "main", "an ordinary name is unchanged");
	check_esc("std::vector<int>::push_back(int&&) [clone .cold]",
	    "std::vector<int>::push_back(int&&) [clone .cold]", "C++ names are unchanged");
	check_esc("a\\b", "a\\b", "a backslash is unchanged");
	check_esc("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x90\x8d", "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x90\x8d",
	    "valid UTF-8 passes");
	check_esc("evil\x1b[2J\nname", "evil\\x1b[2J\\nname", "ESC as \\x1b, newline as \\n");
	check_esc("a\rb\tc\x01\x7f", "a\\rb\\tc\\x01\\x7f", "CR, tab, 0x01 and DEL");
	check_esc("x\xc2\x9b" "31m", "x\\xc2\\x9b31m", "a C1 control (CSI, U+009B) escaped");
	check_esc("x\xc2\xa0y", "x\xc2\xa0y", "U+00A0 (not C1) passes");
	check_esc("\x9b\xff\xc3", "\\x9b\\xff\\xc3", "invalid UTF-8 bytes escaped one by one");
	check_esc("\xe0\x80\xaf", "\\xe0\\x80\\xaf", "an overlong form escaped");
	check_esc("", "", "the empty string");
	s = yi_text_escape_dup("a\nb");
	is_str(s, "a\\nb", "yi_text_escape_dup");
	yi_free(s);

	/* ying top, text */
	b = mkprof(1048576);
	is_int(ying_profile_write_top(b, &to, ying_write_membuf, &mb), 0, "top of the evil profile");
	ying_write_membuf(&mb, "", 1);
	s = (char *)mb.data;
	ok(strchr(s, 0x1b) == NULL && strchr(s, 0x07) == NULL, "top: no ESC or BEL byte");
	ok(!has_control(s), "top: no control byte but newlines");
	has_str(s, "evil\\x1b[2J\\nname (f\\x07.c:7)", "top: the name and file, escaped");
	is_int((long)count_lines(s), 4, "top: header, column titles and two rows (no extra line)");
	ying_membuf_release(&mb);

	/* ying top --stacks */
	to.granularity = YING_BY_STACK;
	is_int(ying_profile_write_top(b, &to, ying_write_membuf, &mb), 0, "top --stacks");
	ying_write_membuf(&mb, "", 1);
	s = (char *)mb.data;
	ok(!has_control(s), "top --stacks: no control byte");
	has_str(s, "    evil\\x1b[2J\\nname (f\\x07.c:7)\n", "top --stacks: the frame escaped");
	ying_membuf_release(&mb);

	/* yingdiff, text */
	n = mkprof(4194304);
	ok(synth_diff(&d, b, n, YING_INUSE_SPACE) == 0, "diff of the evil profiles");
	if (d != NULL) {
		is_int(ying_diff_write_text(d, &dopts, ying_write_membuf, &mb), 0, "diff text");
		ying_write_membuf(&mb, "", 1);
		s = (char *)mb.data;
		ok(strchr(s, 0x1b) == NULL && strchr(s, 0x07) == NULL, "diff: no ESC or BEL byte");
		ok(!has_control(s), "diff: no control byte but newlines");
		has_str(s, "evil\\x1b[2J\\nname (f\\x07.c:7)", "diff: the name escaped");
		ok(strstr(s, "\nname") == NULL, "diff: the name does not start a line");
		ying_membuf_release(&mb);
		ying_diff_free(d);
	}
	ying_profile_free(b);
	ying_profile_free(n);
	return tap_done();
}
