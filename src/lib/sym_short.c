/*
 * sym_short.c: short function names, as jeprof and `go tool pprof` print
 * them.  A demangled C++ or Rust name loses its parameter lists (with the
 * `const`, `&`, `&&`, `volatile`, `noexcept` after them), its template and
 * generic arguments, ABI tags and a template function's return type:
 * `std::vector<int>::push_back(int const&)` is `std::vector::push_back`,
 * `f(int)::{lambda(int)#1}::operator()(int) const` is
 * `f::{lambda#1}::operator()`.  What is kept: operator names (`operator()`,
 * `operator<<`, `operator new[]`), `(anonymous namespace)`, Rust's
 * qualified paths (`<alloc::vec::Vec as core::clone::Clone>::clone`,
 * `<impl Trait for Type>::m`, shortened inside) and closures (`{closure#0}`),
 * clone suffixes, and names that are not C++ or Rust (C, `module+0x1f`
 * whatever the module's file name holds, Go's `main.(*T).m`).  A name that does not parse (unbalanced brackets, nesting
 * deeper than 64) is printed whole.
 *
 * yi_names_show chooses what a set of functions prints: the short name,
 * unless two different full names would print the same, in which case
 * that group prints the shortest form that tells its members apart
 * (template arguments kept, then parameters, then both, then the whole
 * name).  yi_profile_names stores the choice in each function's `show`,
 * once per profile (the symbolize pass, a merge); the diff does the same
 * for its own functions.  Aggregation keys stay the full names.
 */
#include <stdlib.h>
#include <string.h>

#include "sym.h"

#define MAX_DEPTH 64

typedef struct shortener {
	const char *s;          /* the input */
	size_t n, i;            /* its length, the read position */
	char *o;                /* the output (at least n + 1 bytes) */
	size_t on;              /* output length */
	int keep;               /* YI_SHORT_* */
	bool bad;               /* unbalanced or too deep: print it whole */
	bool in_operator;       /* after `operator`: spaces are part of the name */
	size_t op_end;          /* input position after an operator's symbol */
	size_t cut;             /* the name starts here (after a return type) */
} shortener;

static bool
is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '$';
}

static bool
at(const shortener *z, const char *lit)
{
	size_t l = strlen(lit);

	return z->n - z->i >= l && memcmp(z->s + z->i, lit, l) == 0;
}

/* The end (one past the closer) of the bracket group opening at i, or 0
 * when it is not closed.  (), [] and {} nest everywhere; <> nest outside
 * parentheses, and `->` closes nothing. */
static size_t
group_end(const shortener *z, size_t i)
{
	char want[MAX_DEPTH];
	int d = 0, paren = 0;

	for (; i < z->n; i++) {
		char c = z->s[i];
		char close = c == '(' ? ')' : c == '[' ? ']' : c == '{' ? '}' :
		    c == '<' && paren == 0 ? '>' : 0;

		if (close) {
			if (d == MAX_DEPTH)
				return 0;
			want[d++] = close;
			paren += c == '(';
		} else if (d > 0 && c == want[d - 1] &&
		    !(c == '>' && i > 0 && z->s[i - 1] == '-')) {
			paren -= c == ')';
			if (--d == 0)
				return i + 1;
		}
	}
	return 0;
}

static void
put(shortener *z, const char *p, size_t l)
{
	memcpy(z->o + z->on, p, l);
	z->on += l;
}

/* Copy or drop the group at z->i; returns false when it is not closed. */
static bool
group(shortener *z, bool keep)
{
	size_t e = group_end(z, z->i);

	if (e == 0)
		return false;
	if (keep)
		put(z, z->s + z->i, e - z->i);
	z->i = e;
	return true;
}

/* The qualifiers after a parameter list (" const", " &&", ...): copied
 * (keep) or dropped. */
static void
qualifiers(shortener *z, bool keep)
{
	static const char *const q[] = { " const", " volatile", " noexcept",
	    " &&", " &", "&&", "&" };

	for (bool more = true; more;) {
		more = false;
		for (size_t k = 0; k < sizeof(q) / sizeof(q[0]); k++) {
			size_t l = strlen(q[k]);
			char next;

			if (!at(z, q[k]))
				continue;
			next = z->i + l < z->n ? z->s[z->i + l] : 0;
			if (is_ident(next))
				continue;       /* " constexpr_thing" */
			if (keep)
				put(z, z->s + z->i, l);
			z->i += l;
			more = true;
			break;
		}
	}
}

static void name(shortener *z, char close, int depth);

/* A '<' that starts a path component is a Rust qualified path
 * (<T as Trait>, <impl X for Y>, <[T]>) or a C++ one; elsewhere it opens
 * template arguments. */
static bool
starts_component(const shortener *z)
{
	return z->on == z->cut || (z->on >= 2 && z->o[z->on - 1] == ':' &&
	    z->o[z->on - 2] == ':') || z->o[z->on - 1] == '<' ||
	    (z->o[z->on - 1] == ' ' && !z->in_operator);
}

/* After the word `operator`: its symbol (`()`, `[]`, `<<=`, `->*`, ...). */
static void
operator_symbol(shortener *z)
{
	z->in_operator = true;
	if (at(z, "()") || at(z, "[]")) {
		put(z, z->s + z->i, 2);
		z->i += 2;
		z->op_end = z->i;
		return;
	}
	while (z->i < z->n && strchr("<>=!+-*/%^&|~,", z->s[z->i]) != NULL) {
		put(z, z->s + z->i, 1);
		z->i++;
	}
	z->op_end = z->i;
}

/* Rust's `f::<T>` (generic arguments) against `m::<impl X for Y>` and
 * `m::<T as X>` (qualified paths): what the group at z->i holds. */
static bool
qualified_after_colons(const shortener *z)
{
	size_t e;

	if (z->on < 2 || z->o[z->on - 1] != ':' || z->o[z->on - 2] != ':')
		return true;
	if ((e = group_end(z, z->i)) == 0)
		return false;
	if (at(z, "<impl "))
		return true;
	for (size_t k = z->i + 1; k + 4 <= e; k++)
		if (memcmp(z->s + k, " as ", 4) == 0)
			return true;
	return false;
}

static void
angle(shortener *z, int depth)
{
	if (starts_component(z) && qualified_after_colons(z)) {
		/* qualified path: shortened inside */
		put(z, "<", 1);
		z->i++;
		name(z, '>', depth + 1);
		if (z->bad || z->i >= z->n || z->s[z->i] != '>') {
			z->bad = true;
			return;
		}
		put(z, ">", 1);
		z->i++;
		return;
	}
	if (!(z->keep & YI_SHORT_TEMPLATES)) {
		/* Rust's turbofish `f::<T>` loses its `::` with the arguments;
		 * `operator< <T>` its space */
		if (z->on >= 2 && z->o[z->on - 1] == ':' && z->o[z->on - 2] == ':')
			z->on -= 2;
		while (z->on > z->cut && z->o[z->on - 1] == ' ')
			z->on--;
	}
	if (!group(z, (z->keep & YI_SHORT_TEMPLATES) != 0))
		z->bad = true;
}

static void
paren(shortener *z)
{
	char prev = z->i > 0 ? z->s[z->i - 1] : 0;
	bool params = is_ident(prev) || prev == '>' || prev == ']' || prev == ')' ||
	    (z->in_operator && z->i == z->op_end);

	if (at(z, "(anonymous namespace)")) {
		put(z, "(anonymous namespace)", 21);
		z->i += 21;
		return;
	}
	if (!params) {                  /* Go's main.(*T).m, a (*)(int) type */
		if (!group(z, true))
			z->bad = true;
		return;
	}
	if (!group(z, (z->keep & YI_SHORT_PARAMS) != 0)) {
		z->bad = true;
		return;
	}
	qualifiers(z, (z->keep & YI_SHORT_PARAMS) != 0);
}

/* The name up to `close` (0: the end), at bracket depth `depth`. */
static void
name(shortener *z, char close, int depth)
{
	if (depth > MAX_DEPTH) {
		z->bad = true;
		return;
	}
	while (!z->bad && z->i < z->n && z->s[z->i] != close) {
		char c = z->s[z->i];

		if (c == 'o' && at(z, "operator") && (z->i == 0 ||
		    !is_ident(z->s[z->i - 1])) && !is_ident(z->i + 8 < z->n ?
		    z->s[z->i + 8] : 0)) {
			put(z, "operator", 8);
			z->i += 8;
			operator_symbol(z);
		} else if (c == '<') {
			angle(z, depth);
		} else if (c == '(') {
			paren(z);
		} else if (c == '{') {          /* {lambda(int)#1}, {closure#0} */
			put(z, "{", 1);
			z->i++;
			name(z, '}', depth + 1);
			if (z->bad || z->i >= z->n) {
				z->bad = true;
				return;
			}
			put(z, "}", 1);
			z->i++;
		} else if (c == '-' && at(z, "->")) {
			put(z, "->", 2);
			z->i += 2;
		} else if (c == '[' && at(z, "[clone ")) {
			if (!group(z, true))
				z->bad = true;
		} else if (c == '[' && at(z, "[abi:")) {
			if (!group(z, (z->keep & YI_SHORT_TEMPLATES) != 0))
				z->bad = true;
		} else if (c == ')' || c == '>' || c == '}') {
			z->bad = true;          /* a closer nothing opened */
		} else {
			z->o[z->on++] = c;
			z->i++;
			/* a return type ends at a space at the top (not in
			 * `operator new`, not before " [clone .cold]") */
			if (c == ' ' && depth == 0 && !z->in_operator &&
			    !at(z, "[clone"))
				z->cut = z->on;
		}
	}
}

/* `module+0x1f2e`: code without a symbol, named after its file (which may
 * hold anything) */
static bool
is_module_offset(const char *s, size_t n)
{
	size_t k = n;

	while (k > 0 && strchr("0123456789abcdefABCDEF", s[k - 1]) != NULL)
		k--;
	return k < n && k >= 3 && memcmp(s + k - 3, "+0x", 3) == 0;
}

size_t
yi_name_short(const char *s, int keep, char *out)
{
	size_t n = strlen(s);
	shortener z = { s, n, 0, out, 0, keep, false, false, 0, 0 };

	if (keep == YI_SHORT_FULL || strpbrk(s, "(<[{") == NULL ||
	    is_module_offset(s, n)) {
		memcpy(out, s, n + 1);
		return n;
	}
	name(&z, 0, 0);
	while (z.on > z.cut && z.o[z.on - 1] == ' ')
		z.on--;
	if (z.bad || z.on == z.cut) {
		memcpy(out, s, n + 1);
		return n;
	}
	memmove(out, out + z.cut, z.on - z.cut);
	out[z.on - z.cut] = '\0';
	return z.on - z.cut;
}

/* ---- choosing what a set of functions prints ------------------------------ */

typedef struct pick {
	uint32_t show, full, idx;
} pick;

static int
cmp_pick(const void *a, const void *b)
{
	const pick *x = a, *y = b;

	if (x->show != y->show)
		return x->show < y->show ? -1 : 1;
	if (x->full != y->full)
		return x->full < y->full ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int
form(yi_strtab *st, uint32_t full, int keep, char **buf, size_t *cap, uint32_t *id)
{
	size_t l = yi_strtab_len(st, full);

	if (l + 1 > *cap) {
		char *b = yi_realloc(*buf, l + 1);
		if (b == NULL)
			return yi_oom("shortening names");
		*buf = b;
		*cap = l + 1;
	}
	if (yi_name_short(yi_strtab_get(st, full), keep, *buf) == l) {
		*id = full;     /* nothing dropped (a form is never longer) */
		return 0;
	}
	return yi_strtab_intern(st, *buf, strlen(*buf), id);
}

/* A candidate form of one full name of a group. */
typedef struct tform {
	const char *s;
	uint32_t full;
} tform;

static int
cmp_tform(const void *a, const void *b)
{
	return strcmp(((const tform *)a)->s, ((const tform *)b)->s);
}

/* Scratch space of settle, grown as needed. */
typedef struct scratch {
	char *buf;
	size_t cap;
	tform *tf, *sorted;
	size_t tcap;
} scratch;

static int
scratch_need(scratch *sc, size_t bytes, size_t forms)
{
	if (bytes > sc->cap) {
		char *b = yi_realloc(sc->buf, bytes);
		if (b == NULL)
			return yi_oom("shortening names");
		sc->buf = b;
		sc->cap = bytes;
	}
	if (forms > sc->tcap) {
		tform *t = yi_reallocarray(sc->tf, forms, sizeof(*t));
		if (t == NULL)
			return yi_oom("shortening names");
		sc->tf = t;
		if ((t = yi_reallocarray(sc->sorted, forms, sizeof(*t))) == NULL)
			return yi_oom("shortening names");
		sc->sorted = t;
		sc->tcap = forms;
	}
	return 0;
}

/* One group of functions (v[0..k), sorted by full) whose short names agree
 * but whose full names do not: the first form that tells them apart, tried
 * in scratch space and interned once chosen. */
static int
settle(yi_strtab *st, pick *v, size_t k, scratch *sc)
{
	static const int levels[] = { YI_SHORT_TEMPLATES, YI_SHORT_PARAMS,
	    YI_SHORT_TEMPLATES | YI_SHORT_PARAMS, YI_SHORT_FULL };
	size_t m = 0, bytes = 0, j;
	int rc;

	for (size_t i = 0; i < k; i++)
		if (i == 0 || v[i].full != v[i - 1].full) {
			m++;
			bytes += yi_strtab_len(st, v[i].full) + 1;
		}
	if ((rc = scratch_need(sc, bytes, m)) != 0)
		return rc;
	for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
		char *w = sc->buf;
		bool apart = true;

		for (size_t i = 0, t = 0; i < k; i++)
			if (i == 0 || v[i].full != v[i - 1].full) {
				sc->tf[t].s = w;
				sc->tf[t++].full = v[i].full;
				w += yi_name_short(yi_strtab_get(st, v[i].full), levels[l], w) + 1;
			}
		memcpy(sc->sorted, sc->tf, m * sizeof(*sc->tf));
		qsort(sc->sorted, m, sizeof(*sc->sorted), cmp_tform);
		for (j = 1; j < m && apart; j++)
			apart = strcmp(sc->sorted[j].s, sc->sorted[j - 1].s) != 0;
		if (apart || l + 1 == sizeof(levels) / sizeof(levels[0]))
			break;
	}
	j = 0;
	for (size_t i = 0; i < k; i++) {
		if (i > 0 && v[i].full != v[i - 1].full)
			j++;
		size_t l = strlen(sc->tf[j].s);
		if (l == yi_strtab_len(st, v[i].full))
			v[i].show = v[i].full;
		else if ((rc = yi_strtab_intern(st, sc->tf[j].s, l, &v[i].show)) != 0)
			return rc;
	}
	return 0;
}

int
yi_names_show(yi_strtab *st, const uint32_t *full, size_t n, bool whole,
    uint32_t *show)
{
	scratch sc = { 0 };
	pick *v;
	char *buf = NULL;
	size_t cap = 0;
	int rc = 0;

	if (whole || n == 0) {
		memcpy(show, full, n * sizeof(*show));
		return 0;
	}
	if ((v = yi_calloc(n, sizeof(*v))) == NULL)
		return yi_oom("shortening names");
	for (size_t i = 0; i < n && rc == 0; i++) {
		v[i].full = full[i];
		v[i].idx = (uint32_t)i;
		rc = form(st, full[i], 0, &buf, &cap, &v[i].show);
	}
	if (rc == 0)
		qsort(v, n, sizeof(*v), cmp_pick);
	for (size_t i = 0, j; rc == 0 && i < n; i = j) {
		for (j = i + 1; j < n && v[j].show == v[i].show; j++)
			;
		if (v[j - 1].full != v[i].full)
			rc = settle(st, v + i, j - i, &sc);
	}
	/* a form chosen for one group may still be another's short name */
	if (rc == 0) {
		qsort(v, n, sizeof(*v), cmp_pick);
		for (size_t i = 0, j; i < n; i = j) {
			for (j = i + 1; j < n && v[j].show == v[i].show; j++)
				;
			if (v[j - 1].full != v[i].full)
				for (size_t k = i; k < j; k++)
					v[k].show = v[k].full;
		}
		for (size_t i = 0; i < n; i++)
			show[v[i].idx] = v[i].show;
	}
	yi_free(buf);
	yi_free(sc.buf);
	yi_free(sc.tf);
	yi_free(sc.sorted);
	yi_free(v);
	return rc;
}

int
yi_profile_names(ying_profile *p)
{
	uint32_t *full, *show;
	size_t n = p->funcs.n;
	int rc;

	if (n == 0)
		return 0;
	if ((full = yi_calloc(2 * n, sizeof(*full))) == NULL)
		return yi_oom("shortening names");
	show = full + n;
	for (size_t i = 0; i < n; i++)
		full[i] = p->funcs.v[i].name;
	if ((rc = yi_names_show(&p->strs, full, n, p->full_names, show)) == 0)
		for (size_t i = 0; i < n; i++)
			p->funcs.v[i].show = show[i];
	yi_free(full);
	return rc;
}
