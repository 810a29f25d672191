/*
 * sym_userframes.c: the caller's own allocator wrappers
 * (ying_symbolize_opts.frames) and the hint that a profile may need one.
 *
 * A team names its wrappers once (the front ends read them from
 * $XDG_CONFIG_HOME/ying/frames and YING_DROP_FRAMES; libying only gets the
 * text).  The text holds one entry per line: `#` starts a comment, blank
 * lines are ignored, spaces and tabs around an entry are dropped.  NAME
 * matches a function whose demangled or symbol name is NAME, optionally
 * followed by an argument list or a clone suffix ("arena_grab",
 * "arena_grab.constprop.0", "Pool::grab(unsigned long)"), as the built-in
 * wrapper list does; PREFIX* matches every name starting with PREFIX.
 * sym_trim.c trims matching frames like the built-in wrappers: leading
 * frames only, kept with keep_allocator_frames.
 *
 * ying_profile_wrapper_hint looks at a trimmed profile for the sign of a
 * wrapper nobody listed: one function leads most of the heap and is called
 * from many places.  It only says so; nothing is trimmed automatically.
 */
#include <stdlib.h>

#include "sym.h"

#define ENTRY_MAX 4096          /* bytes of one entry */

struct yi_uframes {
	YI_VEC(struct yi_uentry {
		const char *s;  /* points into text */
		size_t len;     /* without the '*' */
		bool prefix;
	}) e;
	char *text;             /* our copy of the entries, NUL-separated */
};

/* The entry of one line s[0..len): *start and *elen exclude the comment
 * and surrounding blanks (elen 0: nothing).  NULL, or why it is bad. */
static const char *
entry_of(const char *s, size_t len, size_t *start, size_t *elen)
{
	const char *h = memchr(s, '#', len);
	size_t a = 0, b = h ? (size_t)(h - s) : len, i;

	while (a < b && (s[a] == ' ' || s[a] == '\t'))
		a++;
	while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r'))
		b--;
	*start = a;
	*elen = b - a;
	if (a == b)
		return NULL;
	if (b - a > ENTRY_MAX)
		return "longer than 4096 bytes";
	for (i = a; i < b; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			return "a control character in a function name";
		if (c == '*' && i + 1 != b)
			return "'*' may only end an entry (PREFIX*)";
	}
	if (b - a == 1 && s[a] == '*')
		return "'*' alone would trim every frame";
	if (s[a] == '(' || s[a] == '.')
		return "no function name before the argument list or clone suffix";
	return NULL;
}

/* The error of a bad entry: "'ENTRY': why" after `what` ("" or a prefix). */
static int
entry_error(const char *what, const char *s, size_t start, size_t elen, const char *why)
{
	int show = elen > 80 ? 80 : (int)elen;

	return yi_error(YING_EINVAL, "%s'%.*s%s': %s", what, show, s + start,
	    elen > 80 ? "..." : "", why);
}

int
ying_frames_entry_check(const char *line, size_t len)
{
	size_t start, elen;
	const char *why;

	yi_error_clear();
	if (line == NULL)
		return len == 0 ? 0 : yi_error(YING_EINVAL, "ying_frames_entry_check: no line");
	if ((why = entry_of(line, len, &start, &elen)) != NULL)
		return entry_error("", line, start, elen, why);
	return 0;
}

void
yi_uframes_free(yi_uframes *u)
{
	if (u == NULL)
		return;
	yi_vec_free(&u->e);
	yi_free(u->text);
	yi_free(u);
}

int
yi_uframes_parse(yi_uframes **out, const char *text)
{
	yi_uframes *u;
	const char *s;
	size_t lineno = 0, tlen;

	*out = NULL;
	if (text == NULL || text[0] == '\0')
		return 0;
	tlen = strlen(text);
	if ((u = yi_calloc(1, sizeof(*u))) == NULL || (u->text = yi_malloc(tlen + 1)) == NULL) {
		yi_uframes_free(u);
		return yi_oom("reading the frames list");
	}
	memcpy(u->text, text, tlen + 1);
	for (s = u->text; *s; ) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s), start, elen;
		const char *why = entry_of(s, len, &start, &elen);
		char what[64];

		lineno++;
		if (why != NULL) {
			int rc;
			snprintf(what, sizeof(what), "ying_symbolize_opts.frames line %zu: ", lineno);
			rc = entry_error(what, s, start, elen, why);
			yi_uframes_free(u);
			return rc;
		}
		if (elen > 0) {
			struct yi_uentry *e;
			if (yi_vec_grow(&u->e, 1) != 0) {
				yi_uframes_free(u);
				return yi_oom("reading the frames list");
			}
			e = &u->e.v[u->e.n++];
			e->s = s + start;
			e->prefix = s[start + elen - 1] == '*';
			e->len = elen - e->prefix;
		}
		s += len + (nl != NULL);
	}
	if (u->e.n == 0) {
		yi_uframes_free(u);
		return 0;
	}
	*out = u;
	return 0;
}

bool
yi_uframes_match(const yi_uframes *u, const char *name)
{
	size_t i;

	if (u == NULL || name == NULL || name[0] == '\0')
		return false;
	for (i = 0; i < u->e.n; i++) {
		const struct yi_uentry *e = &u->e.v[i];
		if (strncmp(name, e->s, e->len) != 0)
			continue;
		if (e->prefix || name[e->len] == '\0' || name[e->len] == '(' ||
		    name[e->len] == '.')
			return true;
	}
	return false;
}

bool
yi_uframes_match_func(const yi_uframes *u, const ying_profile *p, uint32_t func)
{
	const yi_func *fn;

	if (u == NULL || func >= p->funcs.n)
		return false;
	fn = &p->funcs.v[func];
	return yi_uframes_match(u, yi_profile_str(p, fn->name)) ||
	    (fn->sysname != fn->name && yi_uframes_match(u, yi_profile_str(p, fn->sysname)));
}

/* ---- the hint ------------------------------------------------------------ */

#define HINT_SHARE 0.5          /* of the profile's total */
#define HINT_CALLERS 8          /* distinct calling functions */

typedef struct lead {
	uint32_t name;          /* strtab id of the leading function's name */
	uint32_t callers;       /* distinct callers (by name) */
	double v;
} lead;

/* Bytes of `name` worth showing as an entry: without its argument list or
 * (a plain C name) its clone suffix, so it can be pasted into the list. */
static int
entry_len(const char *name)
{
	const char *op = strstr(name, "operator()");
	size_t n = op ? (size_t)(op - name) + 10 + strcspn(op + 10, "(") :
	    strcspn(name, "(");

	if (strpbrk(name, ":<") == NULL)
		n = strcspn(name, ".(");
	return n > 200 ? 200 : (int)n;
}

int
ying_profile_wrapper_hint(char **msg, const ying_profile *p, ying_sample_index idx)
{
	yi_stack_walk w = YI_STACK_WALK_INIT(p, NULL, idx);
	YI_VEC(lead) leads = { 0 };
	yi_map64 by_name, pairs;
	double total = 0;
	size_t i, best = SIZE_MAX;
	int rc = 0, r;

	yi_error_clear();
	if (msg == NULL || p == NULL)
		return yi_error(YING_EINVAL, "ying_profile_wrapper_hint: no %s",
		    msg == NULL ? "msg" : "profile");
	*msg = NULL;
	if ((rc = yi_profile_check_index(p, idx)) != 0)
		return rc;
	if (yi_map64_init(&by_name, 64) != 0)
		return yi_oom("the wrapper hint");
	if (yi_map64_init(&pairs, 256) != 0) {
		yi_map64_release(&by_name);
		return yi_oom("the wrapper hint");
	}
	while ((r = yi_stack_walk_next(&w)) == 1) {
		uint32_t name, *slot;
		bool added;

		total += w.v;
		if (w.fr.n == 0 || w.fr.v[0].func == p->unknown_func)
			continue;
		name = p->funcs.v[w.fr.v[0].func].name;
		if ((rc = yi_map64_put(&by_name, name, (uint32_t)leads.n, &slot, &added)) != 0)
			break;
		if (added) {
			if ((rc = yi_vec_grow(&leads, 1)) != 0)
				break;
			leads.v[leads.n].name = name;
			leads.v[leads.n].callers = 0;
			leads.v[leads.n++].v = 0;
		}
		leads.v[*slot].v += w.v;
		if (w.fr.n > 1) {
			uint32_t caller = p->funcs.v[w.fr.v[1].func].name, li = *slot;
			if ((rc = yi_map64_put(&pairs, (uint64_t)name << 32 | caller, 0,
			    &slot, &added)) != 0)
				break;
			if (added)
				leads.v[li].callers++;
		}
	}
	if (r < 0 && rc == 0)
		rc = r;
	yi_stack_walk_end(&w);
	for (i = 0; rc == 0 && i < leads.n; i++)
		if (best == SIZE_MAX || leads.v[i].v > leads.v[best].v)
			best = i;
	if (rc == 0 && best != SIZE_MAX && total > 0 &&
	    leads.v[best].v >= HINT_SHARE * total && leads.v[best].callers >= HINT_CALLERS) {
		const char *n = yi_profile_str(p, leads.v[best].name);
		char buf[512];
		snprintf(buf, sizeof(buf), "`%.*s` leads %.0f %% of the heap from %u callers",
		    entry_len(n), n, 100.0 * leads.v[best].v / total, leads.v[best].callers);
		if ((*msg = yi_strdup(buf)) == NULL)
			rc = yi_oom("the wrapper hint");
	}
	yi_free(leads.v);
	yi_map64_release(&by_name);
	yi_map64_release(&pairs);
	return rc;
}
