/*
 * flame_util.h: helpers for test_folded.c and test_flame.c.
 *
 * synth_*: build a symbolized profile in memory (functions, inline chains,
 * stacks with chosen values), so that golden output does not depend on a
 * compiler or a binary.  xml_check: a small, strict well-formedness check of
 * XML (balanced tags, quoted attributes, no raw '<' or stray '&' in text or
 * attribute values, CDATA and comments skipped), enough to catch a writer
 * that forgets to escape.
 */
#ifndef YING_FLAME_UTIL_H
#define YING_FLAME_UTIL_H

#include <ctype.h>

#include "internal.h"

#define FLAME_UNUSED __attribute__((unused))

FLAME_UNUSED static ying_profile *
synth_new(void)
{
	ying_profile *p = NULL;

	if (yi_profile_new(&p, "synthetic") != 0) {
		printf("Bail out! yi_profile_new failed\n");
		exit(1);
	}
	p->symbolized = true;
	p->period = 1;
	return p;
}

/* A location at addr whose inline chain is names[0] (innermost) ...
 * names[n-1]; files/lines may be NULL. */
FLAME_UNUSED static uint32_t
synth_loc(ying_profile *p, uint64_t addr, const char *const *names,
    const char *const *files, const uint32_t *lines, size_t n)
{
	yi_line ls[16];
	uint32_t loc;
	size_t i;

	if (n > 16 || yi_profile_loc(p, addr, true, &loc) != 0) {
		printf("Bail out! synth_loc\n");
		exit(1);
	}
	for (i = 0; i < n; i++) {
		if (yi_profile_func(p, names[i], NULL, files ? files[i] : "", &ls[i].func) != 0) {
			printf("Bail out! synth_loc func\n");
			exit(1);
		}
		ls[i].line = lines ? lines[i] : 0;
	}
	if (yi_profile_set_lines(p, loc, ls, n) != 0) {
		printf("Bail out! synth_loc lines\n");
		exit(1);
	}
	return loc;
}

/* A location with one function. */
FLAME_UNUSED static uint32_t
synth_fn(ying_profile *p, uint64_t addr, const char *name, const char *file,
    uint32_t line)
{
	return synth_loc(p, addr, &name, &file, &line, 1);
}

/* A stack of locations (leaf first) with inuse_space = bytes and
 * inuse_objects = objs; `skip` leading frames are allocator frames. */
FLAME_UNUSED static void
synth_stack_skip(ying_profile *p, const uint32_t *locs, size_t n, uint32_t skip,
    double bytes, double objs)
{
	yi_stack *st;

	if (yi_vec_grow(&p->stacks, 1) != 0 || yi_vec_grow(&p->frames, n) != 0) {
		printf("Bail out! synth_stack\n");
		exit(1);
	}
	st = &p->stacks.v[p->stacks.n++];
	memset(st, 0, sizeof(*st));
	st->frame_off = (uint32_t)p->frames.n;
	st->nframes = (uint32_t)n;
	st->skip = skip;
	memcpy(p->frames.v + p->frames.n, locs, n * sizeof(*locs));
	p->frames.n += n;
	st->raw.objs = (uint64_t)objs;
	st->raw.bytes = (uint64_t)bytes;
	st->val[YING_INUSE_SPACE] = bytes;
	st->val[YING_INUSE_OBJECTS] = objs;
}

FLAME_UNUSED static void
synth_stack(ying_profile *p, const uint32_t *locs, size_t n, double bytes, double objs)
{
	synth_stack_skip(p, locs, n, 0, bytes, objs);
}

/* ---- XML well-formedness ------------------------------------------------ */

FLAME_UNUSED static int
xml_name_char(int c)
{
	return isalnum(c) || c == '-' || c == '_' || c == ':' || c == '.' || c >= 0x80;
}

/* An entity reference at s ("&lt;", "&#39;", ...); returns its length or 0. */
FLAME_UNUSED static size_t
xml_entity(const char *s)
{
	static const char *const named[] = { "&lt;", "&gt;", "&amp;", "&quot;", "&apos;" };
	size_t i;

	for (i = 0; i < 5; i++)
		if (strncmp(s, named[i], strlen(named[i])) == 0)
			return strlen(named[i]);
	if (s[1] == '#') {
		i = 2;
		if (s[i] == 'x')
			i++;
		while (isxdigit((unsigned char)s[i]))
			i++;
		if (i > 2 && s[i] == ';')
			return i + 1;
	}
	return 0;
}

/* 0 when doc is well-formed; else writes what is wrong into why. */
FLAME_UNUSED static int
xml_check(const char *doc, char *why, size_t whylen)
{
	const char *s = doc;
	const char *stack[4096];
	size_t stack_len[4096], depth = 0, roots = 0;

#define XML_FAIL(...) do { snprintf(why, whylen, __VA_ARGS__); return -1; } while (0)
	if (strncmp(s, "<?xml", 5) == 0) {
		if ((s = strstr(s, "?>")) == NULL)
			XML_FAIL("unterminated XML declaration");
		s += 2;
	}
	while (*s) {
		if (*s == '<') {
			if (strncmp(s, "<!--", 4) == 0) {
				const char *e = strstr(s + 4, "-->");
				if (!e)
					XML_FAIL("unterminated comment at %ld", (long)(s - doc));
				s = e + 3;
			} else if (strncmp(s, "<![CDATA[", 9) == 0) {
				const char *e = strstr(s + 9, "]]>");
				if (!e || depth == 0)
					XML_FAIL("bad CDATA at %ld", (long)(s - doc));
				s = e + 3;
			} else if (s[1] == '/') {
				const char *n = s + 2;
				size_t len = 0;
				while (xml_name_char((unsigned char)n[len]))
					len++;
				if (depth == 0 || stack_len[depth - 1] != len ||
				    strncmp(stack[depth - 1], n, len) != 0)
					XML_FAIL("mismatched </%.*s> at %ld", (int)len, n, (long)(s - doc));
				depth--;
				s = n + len;
				while (isspace((unsigned char)*s))
					s++;
				if (*s != '>')
					XML_FAIL("bad end tag at %ld", (long)(s - doc));
				s++;
			} else {
				const char *n = s + 1;
				size_t len = 0;
				if (!isalpha((unsigned char)*n))
					XML_FAIL("raw '<' at %ld", (long)(s - doc));
				while (xml_name_char((unsigned char)n[len]))
					len++;
				s = n + len;
				for (;;) {
					while (isspace((unsigned char)*s))
						s++;
					if (*s == '>' || (s[0] == '/' && s[1] == '>'))
						break;
					if (!xml_name_char((unsigned char)*s))
						XML_FAIL("bad attribute at %ld", (long)(s - doc));
					while (xml_name_char((unsigned char)*s))
						s++;
					if (*s != '=' || (s[1] != '"' && s[1] != '\''))
						XML_FAIL("unquoted attribute at %ld", (long)(s - doc));
					{
						char q = s[1];
						s += 2;
						while (*s && *s != q) {
							if (*s == '<')
								XML_FAIL("'<' in attribute at %ld", (long)(s - doc));
							if (*s == '&') {
								size_t k = xml_entity(s);
								if (!k)
									XML_FAIL("stray '&' in attribute at %ld", (long)(s - doc));
								s += k;
							} else {
								s++;
							}
						}
						if (!*s)
							XML_FAIL("unterminated attribute");
						s++;
					}
				}
				if (*s == '/') {
					s += 2;
					if (depth == 0)
						roots++;
				} else {
					if (depth == 0)
						roots++;
					if (depth == 4096)
						XML_FAIL("too deep");
					stack[depth] = n;
					stack_len[depth] = len;
					depth++;
					s++;
				}
			}
		} else if (*s == '&') {
			size_t k = xml_entity(s);
			if (!k)
				XML_FAIL("stray '&' in text at %ld", (long)(s - doc));
			s += k;
		} else {
			if (depth == 0 && !isspace((unsigned char)*s))
				XML_FAIL("text outside the root at %ld", (long)(s - doc));
			s++;
		}
	}
	if (depth != 0)
		XML_FAIL("%zu unclosed elements (innermost <%.*s>)", depth,
		    (int)stack_len[depth - 1], stack[depth - 1]);
	if (roots != 1)
		XML_FAIL("%zu root elements", roots);
	why[0] = '\0';
	return 0;
#undef XML_FAIL
}

/* Number of non-overlapping occurrences of needle in hay. */
FLAME_UNUSED static size_t
count_str(const char *hay, const char *needle)
{
	size_t n = 0, len = strlen(needle);

	while ((hay = strstr(hay, needle)) != NULL) {
		n++;
		hay += len;
	}
	return n;
}

#endif
