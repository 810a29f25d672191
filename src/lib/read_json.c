/*
 * read_json.c: the project's one JSON reader, small and strict, for the
 * recent-allocation captures (read_recent.c) and the giant-allocation
 * listings (read_giant.c): the whole text into a tree of nodes held in one
 * vector, strings decoded (escapes, \u surrogate pairs) into one buffer.
 * Numbers are checked against JSON's grammar and keep their text, converted
 * on access, so a value that does not fit 64 bits is an error naming its
 * field, never a silent wrap.  Nesting is bounded (YI_JSON_MAX_DEPTH), so no
 * input can exhaust the stack; every error names NAME:LINE:COLUMN
 * (yi_json_error), the form editors jump to.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "read.h"

typedef struct jp {
	yi_json *j;
	const char *s;
	size_t n, i;
} jp;

int
yi_json_error(const yi_json *j, size_t off, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	size_t line = 1, col = 1;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	for (size_t k = 0; k < off && k < j->len; k++) {
		if (j->text[k] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	return yi_error(YING_EPARSE, "%s:%zu:%zu: %s", j->name, line, col, what);
}

static int
jerr(const jp *p, const char *what)
{
	return yi_json_error(p->j, p->i, "%s", what);
}

static bool
digit(const jp *p)
{
	return p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9';
}

static void
skip_ws(jp *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' ||
	    p->s[p->i] == '\n' || p->s[p->i] == '\r'))
		p->i++;
}

static int
new_node(jp *p, int type, uint32_t *id)
{
	yi_json *j = p->j;
	int rc;

	if (j->nodes.n >= UINT32_MAX - 1)
		return jerr(p, "too many JSON values");
	if (j->budget && (j->nodes.n + 1) * sizeof(yi_jnode) + j->strs.n > j->budget)
		return yi_budget_error(j->name, "the JSON tree", j->budget);
	if ((rc = yi_vec_grow(&j->nodes, 1)) != 0)
		return rc;
	memset(&j->nodes.v[j->nodes.n], 0, sizeof(yi_jnode));
	j->nodes.v[j->nodes.n].type = (uint8_t)type;
	j->nodes.v[j->nodes.n].off = p->i;
	j->nodes.v[j->nodes.n].key = UINT32_MAX;
	*id = (uint32_t)j->nodes.n++;
	return 0;
}

static int
str_put(yi_json *j, const char *b, size_t n)
{
	int rc;

	if (j->strs.n + n + 1 >= UINT32_MAX)
		return yi_error(YING_ELIMIT, "%s: more than 4 GiB of strings", j->name);
	if ((rc = yi_vec_grow(&j->strs, n + 1)) != 0)
		return rc;
	memcpy(j->strs.v + j->strs.n, b, n);
	j->strs.n += n;
	return 0;
}

static int
hex4(jp *p, unsigned *out)
{
	unsigned v = 0;

	if (p->n - p->i < 4)
		return jerr(p, "truncated \\u escape");
	for (int k = 0; k < 4; k++) {
		char c = p->s[p->i++];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return jerr(p, "bad hex digit in \\u escape");
	}
	*out = v;
	return 0;
}

/* A string at p->i (the opening quote), decoded into j->strs, NUL-terminated;
 * *off is its offset there. */
static int
parse_string(jp *p, uint32_t *off, uint32_t *len)
{
	yi_json *j = p->j;
	size_t start = j->strs.n;
	int rc;

	p->i++;
	for (;;) {
		size_t run = p->i;
		while (p->i < p->n && p->s[p->i] != '"' && p->s[p->i] != '\\' &&
		    (unsigned char)p->s[p->i] >= 0x20)
			p->i++;
		if ((rc = str_put(j, p->s + run, p->i - run)) != 0)
			return rc;
		if (p->i >= p->n)
			return jerr(p, "input ends inside a string (truncated?)");
		if (p->s[p->i] == '"') {
			p->i++;
			break;
		}
		if ((unsigned char)p->s[p->i] < 0x20)
			return jerr(p, "control character inside a string");
		/* backslash */
		if (++p->i >= p->n)
			return jerr(p, "input ends inside an escape");
		char c = p->s[p->i++], o[4];
		size_t on = 1;
		switch (c) {
		case '"': o[0] = '"'; break;
		case '\\': o[0] = '\\'; break;
		case '/': o[0] = '/'; break;
		case 'b': o[0] = '\b'; break;
		case 'f': o[0] = '\f'; break;
		case 'n': o[0] = '\n'; break;
		case 'r': o[0] = '\r'; break;
		case 't': o[0] = '\t'; break;
		case 'u': {
			unsigned u, lo;
			if ((rc = hex4(p, &u)) != 0)
				return rc;
			if (u >= 0xd800 && u < 0xdc00) {
				if (p->n - p->i < 6 || p->s[p->i] != '\\' || p->s[p->i + 1] != 'u')
					return jerr(p, "lone high surrogate in \\u escape");
				p->i += 2;
				if ((rc = hex4(p, &lo)) != 0)
					return rc;
				if (lo < 0xdc00 || lo >= 0xe000)
					return jerr(p, "bad low surrogate in \\u escape");
				u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
			} else if (u >= 0xdc00 && u < 0xe000) {
				return jerr(p, "lone low surrogate in \\u escape");
			}
			if (u == 0)
				return jerr(p, "\\u0000 inside a string");
			if (u < 0x80) {
				o[0] = (char)u;
			} else if (u < 0x800) {
				o[0] = (char)(0xc0 | (u >> 6));
				o[1] = (char)(0x80 | (u & 0x3f));
				on = 2;
			} else if (u < 0x10000) {
				o[0] = (char)(0xe0 | (u >> 12));
				o[1] = (char)(0x80 | ((u >> 6) & 0x3f));
				o[2] = (char)(0x80 | (u & 0x3f));
				on = 3;
			} else {
				o[0] = (char)(0xf0 | (u >> 18));
				o[1] = (char)(0x80 | ((u >> 12) & 0x3f));
				o[2] = (char)(0x80 | ((u >> 6) & 0x3f));
				o[3] = (char)(0x80 | (u & 0x3f));
				on = 4;
			}
			break;
		}
		default:
			p->i--;
			return jerr(p, "unknown escape in a string");
		}
		if ((rc = str_put(j, o, on)) != 0)
			return rc;
	}
	if ((rc = str_put(j, "", 0)) != 0)
		return rc;
	j->strs.v[j->strs.n++] = '\0';
	*off = (uint32_t)start;
	*len = (uint32_t)(j->strs.n - 1 - start);
	return 0;
}

static int parse_value(jp *p, unsigned depth, uint32_t *id);

static int
parse_container(jp *p, unsigned depth, bool obj, uint32_t id)
{
	uint32_t last = 0, child, koff = 0, klen = 0;
	int rc;

	p->i++;
	skip_ws(p);
	if (p->i < p->n && p->s[p->i] == (obj ? '}' : ']')) {
		p->i++;
		return 0;
	}
	for (;;) {
		skip_ws(p);
		if (obj) {
			if (p->i >= p->n)
				return jerr(p, "input ends inside an object (truncated?)");
			if (p->s[p->i] != '"')
				return jerr(p, "expected a member name (a string)");
			if ((rc = parse_string(p, &koff, &klen)) != 0)
				return rc;
			skip_ws(p);
			if (p->i >= p->n || p->s[p->i] != ':')
				return jerr(p, "expected ':' after a member name");
			p->i++;
		}
		if ((rc = parse_value(p, depth + 1, &child)) != 0)
			return rc;
		if (obj)
			p->j->nodes.v[child].key = koff;
		if (last == 0)
			p->j->nodes.v[id].child = child;
		else
			p->j->nodes.v[last].next = child;
		last = child;
		p->j->nodes.v[id].count++;
		skip_ws(p);
		if (p->i >= p->n)
			return jerr(p, obj ? "input ends inside an object (truncated?)" :
			    "input ends inside an array (truncated?)");
		if (p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->s[p->i] == (obj ? '}' : ']')) {
			p->i++;
			return 0;
		}
		return jerr(p, obj ? "expected ',' or '}' in an object" :
		    "expected ',' or ']' in an array");
	}
}

static int
parse_value(jp *p, unsigned depth, uint32_t *id)
{
	int rc;
	char c;

	skip_ws(p);
	if (depth > YI_JSON_MAX_DEPTH)
		return jerr(p, "nested more than " "64" " levels deep");
	if (p->i >= p->n)
		return jerr(p, "input ends where a value was expected (truncated?)");
	c = p->s[p->i];
	if (c == '{' || c == '[') {
		if ((rc = new_node(p, c == '{' ? YI_JOBJ : YI_JARR, id)) != 0)
			return rc;
		return parse_container(p, depth, c == '{', *id);
	}
	if (c == '"') {
		uint32_t off, len;
		if ((rc = new_node(p, YI_JSTR, id)) != 0 ||
		    (rc = parse_string(p, &off, &len)) != 0)
			return rc;
		p->j->nodes.v[*id].str = off;
		p->j->nodes.v[*id].len = len;
		return 0;
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		size_t st = p->i;
		uint32_t off;
		if ((rc = new_node(p, YI_JNUM, id)) != 0)
			return rc;
		/* -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
		if (p->s[p->i] == '-')
			p->i++;
		if (!digit(p))
			return jerr(p, "expected a digit");
		if (p->s[p->i++] != '0')
			while (digit(p))
				p->i++;
		if (p->i < p->n && p->s[p->i] == '.') {
			p->i++;
			if (!digit(p))
				return jerr(p, "expected a digit after '.' in a number");
			while (digit(p))
				p->i++;
		}
		if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
			p->i++;
			if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
				p->i++;
			if (!digit(p))
				return jerr(p, "expected a digit in a number's exponent");
			while (digit(p))
				p->i++;
		}
		if (p->i - st > 64)
			return jerr(p, "number longer than 64 characters");
		off = (uint32_t)p->j->strs.n;
		if ((rc = str_put(p->j, p->s + st, p->i - st)) != 0)
			return rc;
		p->j->strs.v[p->j->strs.n++] = '\0';
		p->j->nodes.v[*id].str = off;
		p->j->nodes.v[*id].len = (uint32_t)(p->i - st);
		return 0;
	}
	if (p->n - p->i >= 4 && memcmp(p->s + p->i, "true", 4) == 0) {
		if ((rc = new_node(p, YI_JBOOL, id)) != 0)
			return rc;
		p->j->nodes.v[*id].b = 1;
		p->i += 4;
		return 0;
	}
	if (p->n - p->i >= 5 && memcmp(p->s + p->i, "false", 5) == 0) {
		if ((rc = new_node(p, YI_JBOOL, id)) != 0)
			return rc;
		p->i += 5;
		return 0;
	}
	if (p->n - p->i >= 4 && memcmp(p->s + p->i, "null", 4) == 0) {
		if ((rc = new_node(p, YI_JNULL, id)) != 0)
			return rc;
		p->i += 4;
		return 0;
	}
	return jerr(p, "expected a JSON value");
}

int
yi_json_parse(yi_json *j, const char *data, size_t len, const char *name,
    size_t budget)
{
	jp p = { j, data, len, 0 };
	uint32_t root;
	int rc;

	memset(j, 0, sizeof(*j));
	j->name = name ? name : "(memory)";
	j->text = data;
	j->len = len;
	j->budget = budget;
	if ((rc = parse_value(&p, 0, &root)) != 0)
		return rc;
	skip_ws(&p);
	if (p.i != p.n)
		return jerr(&p, "unexpected text after the JSON value");
	return 0;
}

void
yi_json_release(yi_json *j)
{
	if (j == NULL)
		return;
	yi_vec_free(&j->nodes);
	yi_vec_free(&j->strs);
}

const yi_jnode *
yi_json_get(const yi_json *j, const yi_jnode *obj, const char *key)
{
	if (obj == NULL || obj->type != YI_JOBJ)
		return NULL;
	for (uint32_t c = obj->child; c != 0; c = j->nodes.v[c].next)
		if (strcmp(j->strs.v + j->nodes.v[c].key, key) == 0)
			return &j->nodes.v[c];
	return NULL;
}

const yi_jnode *
yi_json_first(const yi_json *j, const yi_jnode *n)
{
	if (n == NULL || (n->type != YI_JARR && n->type != YI_JOBJ) || n->child == 0)
		return NULL;
	return &j->nodes.v[n->child];
}

const yi_jnode *
yi_json_next(const yi_json *j, const yi_jnode *n)
{
	return n->next ? &j->nodes.v[n->next] : NULL;
}

const char *
yi_json_str(const yi_json *j, const yi_jnode *n)
{
	return j->strs.v + n->str;
}

int
yi_json_u64(const yi_json *j, const yi_jnode *n, const char *what, uint64_t *out)
{
	const char *s;
	char *end;
	unsigned long long v;

	if (n == NULL || n->type != YI_JNUM)
		return yi_json_error(j, n ? n->off : 0, "%s: expected a number",
		    what);
	s = yi_json_str(j, n);
	if (s[0] == '-')
		return yi_json_error(j, n->off, "%s: negative number %s", what, s);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end != '\0')
		return yi_json_error(j, n->off, "%s: expected an integer, not %s",
		    what, s);
	if (errno == ERANGE || v > UINT64_MAX)
		return yi_json_error(j, n->off, "%s: number %s does not fit 64 bits",
		    what, s);
	*out = (uint64_t)v;
	return 0;
}

int
yi_json_i64(const yi_json *j, const yi_jnode *n, const char *what, int64_t *out)
{
	const char *s;
	char *end;
	long long v;

	if (n == NULL || n->type != YI_JNUM)
		return yi_json_error(j, n ? n->off : 0, "%s: expected a number",
		    what);
	s = yi_json_str(j, n);
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end != '\0')
		return yi_json_error(j, n->off, "%s: expected an integer, not %s",
		    what, s);
	if (errno == ERANGE)
		return yi_json_error(j, n->off, "%s: number %s does not fit 64 bits",
		    what, s);
	*out = (int64_t)v;
	return 0;
}
