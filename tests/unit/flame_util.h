/*
 * flame_util.h: helpers for test_folded.c and test_flame.c (their synthetic
 * profiles come from synth.h).
 *
 * xml_check: a small, strict well-formedness check of
 * XML (balanced tags, quoted attributes, no raw '<' or stray '&' in text or
 * attribute values, CDATA and comments skipped), enough to catch a writer
 * that forgets to escape.
 */
#ifndef YING_FLAME_UTIL_H
#define YING_FLAME_UTIL_H

#include <ctype.h>

#include "internal.h"
#include "synth.h"

#define FLAME_UNUSED __attribute__((unused))

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
