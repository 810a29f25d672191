/*
 * write_flame_tree.c: the flame graph tree: frames merged by function name
 * from the root (yi_flame_new, yi_flame_add, yi_flame_free).
 *
 * The tree (yi_flame) copies every name and file it is given into its own
 * string table, so it outlives the profiles that fed it; the differential
 * graph of yingdiff builds one from two profiles and sets both a value
 * (NOW, the width) and a base (BASE) per stack.  Children are found through
 * one hash map keyed by (parent, name); a node that several source lines
 * reach keeps the file:line that contributed most.
 */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "write_flame.h"

/* ---- building ----------------------------------------------------------- */

int
yi_flame_new(yi_flame **out)
{
	yi_flame *f;
	uint32_t all;
	int rc;

	if (out == NULL)
		return yi_error(YING_EINVAL, "yi_flame_new: no output pointer");
	*out = NULL;
	if ((f = yi_calloc(1, sizeof(*f))) == NULL)
		return yi_oom("creating a flame graph");
	if ((rc = yi_strtab_init(&f->strs)) != 0 ||
	    (rc = yi_map64_init(&f->child_of, 4096)) != 0 ||
	    (rc = yi_strtab_intern(&f->strs, "all", 3, &all)) != 0 ||
	    (rc = yi_vec_grow(&f->nodes, 1)) != 0) {
		yi_flame_free(f);
		return rc;
	}
	memset(&f->nodes.v[0], 0, sizeof(fnode));
	f->nodes.v[0].name = all;
	f->nodes.v[0].child = NONE;
	f->nodes.v[0].sibling = NONE;
	f->nodes.v[0].extra = NONE;
	f->nodes.n = 1;
	*out = f;
	return 0;
}

static void
cache_reset(fcache *c)
{
	yi_free(c->name);
	yi_free(c->file);
	memset(c, 0, sizeof(*c));
}

void
yi_flame_free(yi_flame *f)
{
	if (f == NULL)
		return;
	yi_strtab_release(&f->strs);
	yi_vec_free(&f->nodes);
	yi_vec_free(&f->vars);
	yi_map64_release(&f->child_of);
	yi_vec_free(&f->full);
	for (int k = 0; k < 2; k++)
		yi_free(f->over[k]);
	cache_reset(&f->cache[0]);
	cache_reset(&f->cache[1]);
	yi_vec_free(&f->tmp);
	yi_vec_free(&f->path);
	yi_free(f);
}

/* Copy s into f->tmp (NUL-terminated) as valid UTF-8 without control
 * characters, so that it can always be written into XML. */
static int
clean_copy(yi_flame *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i, k;
	int rc;

	f->tmp.n = 0;
	if ((rc = yi_vec_grow(&f->tmp, n * 3 + 1)) != 0)
		return rc;
	for (i = 0; i < n; i += k) {
		k = yi_utf8_len(u + i);
		/* XML also forbids the noncharacters U+FFFE and U+FFFF */
		if (k == 3 && u[i] == 0xef && u[i + 1] == 0xbf && u[i + 2] >= 0xbe)
			k = 0;
		if (k == 0) {
			memcpy(f->tmp.v + f->tmp.n, "\xef\xbf\xbd", 3);   /* U+FFFD */
			f->tmp.n += 3;
			k = 1;
		} else if (k == 1 && (u[i] < 0x20 || u[i] == 0x7f)) {
			f->tmp.v[f->tmp.n++] = ' ';
		} else {
			memcpy(f->tmp.v + f->tmp.n, u + i, k);
			f->tmp.n += k;
		}
	}
	f->tmp.v[f->tmp.n] = '\0';
	return 0;
}

/* Intern s into the tree's table, cleaned as by clean_copy. */
static int
intern_clean(yi_flame *f, const char *s, uint32_t *id)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i;
	int rc;

	for (i = 0; i < n && u[i] >= 0x20 && u[i] < 0x7f; i++)
		;
	if (i == n)
		return yi_strtab_intern(&f->strs, s, n, id);
	if ((rc = clean_copy(f, s)) != 0)
		return rc;
	return yi_strtab_intern(&f->strs, f->tmp.v, f->tmp.n, id);
}

/* XML text of any string (cleaned first). */
void
yi_put_text(yi_out *o, yi_flame *f, const char *s)
{
	int rc = clean_copy(f, s);

	if (rc != 0) {
		if (o->err == 0)
			o->err = rc;
		return;
	}
	yi_out_xml(o, f->tmp.v);
}

/* Name and file ids of a function of p, cached per profile. */
int
yi_func_ids(yi_flame *f, const ying_profile *p, uint32_t func, uint32_t *name,
    uint32_t *file)
{
	fcache *c = NULL;
	unsigned k;
	int rc;

	if (func >= p->funcs.n)
		return yi_error(YING_EINVAL, "%s: frame names function %u of %zu",
		    p->source, func, p->funcs.n);
	for (k = 0; k < 2; k++)
		if (f->cache[k].p == p)
			c = &f->cache[k];
	if (c == NULL) {
		c = &f->cache[f->cache_next];
		f->cache_next ^= 1;
		cache_reset(c);
		c->p = p;
	}
	if (c->n < p->funcs.n) {
		size_t i, nn = p->funcs.n;
		uint32_t *a = yi_reallocarray(c->name, nn, sizeof(*a));
		if (a == NULL)
			return yi_oom("building a flame graph");
		c->name = a;
		if ((a = yi_reallocarray(c->file, nn, sizeof(*a))) == NULL)
			return yi_oom("building a flame graph");
		c->file = a;
		for (i = c->n; i < nn; i++)
			c->name[i] = c->file[i] = NONE;
		c->n = nn;
	}
	if (c->name[func] == NONE) {
		const yi_func *fn = &p->funcs.v[func];
		const char *show = yi_profile_str(p, fn->show);
		uint32_t nid, fid, full;
		for (k = 0; k < 2; k++)
			if (f->over_p[k] == p && f->over[k][func] != NULL)
				show = f->over[k][func];
		if ((rc = intern_clean(f, show, &nid)) != 0 ||
		    (rc = intern_clean(f, yi_profile_str(p, fn->name), &full)) != 0 ||
		    (rc = intern_clean(f, yi_profile_str(p, fn->file), &fid)) != 0)
			return rc;
		if (full != nid) {
			if (f->full.n <= nid) {
				size_t old = f->full.n;
				if ((rc = yi_vec_grow(&f->full, nid + 1 - old)) != 0)
					return rc;
				for (size_t i = old; i <= nid; i++)
					f->full.v[i] = NONE;
				f->full.n = nid + 1;
			}
			f->full.v[nid] = full;
		}
		c->name[func] = nid;
		c->file[func] = fid;
	}
	*name = c->name[func];
	*file = c->file[func];
	return 0;
}

uint32_t
yi_flame_full(const yi_flame *f, uint32_t name)
{
	return name < f->full.n && f->full.v[name] != NONE ? f->full.v[name] : name;
}

/* Print `show` for function `func` of p instead of its own name (a diff's
 * choice); the first call for p allocates its table. */
int
yi_flame_override(yi_flame *f, const ying_profile *p, uint32_t func, const char *show)
{
	int k;

	for (k = 0; k < 2 && f->over_p[k] != p; k++)
		;
	if (k == 2) {
		for (k = 0; k < 2 && f->over_p[k] != NULL; k++)
			;
		if (k == 2)
			return yi_error(YING_EINVAL, "yi_flame_override: two profiles at most");
		if ((f->over[k] = yi_calloc(p->funcs.n ? p->funcs.n : 1, sizeof(char *))) == NULL)
			return yi_oom("building a flame graph");
		f->over_p[k] = p;
	}
	if (func < p->funcs.n)
		f->over[k][func] = show;
	return 0;
}

/* Credit `contrib` to the (file, line, inlined) variant of node n. */
static int
add_variant(yi_flame *f, uint32_t n, uint32_t file, uint32_t line, uint8_t inl,
    double contrib)
{
	fnode *nd = &f->nodes.v[n];
	uint32_t k;
	int rc;

	if (nd->file == file && nd->line == line && nd->inl == inl)
		return 0;   /* the first variant gets the remainder */
	for (k = nd->extra; k != NONE; k = f->vars.v[k].next) {
		fvariant *v = &f->vars.v[k];
		if (v->file == file && v->line == line && v->inl == inl) {
			v->contrib += contrib;
			return 0;
		}
	}
	if (f->vars.n >= NONE - 1)
		return yi_error(YING_ELIMIT, "flame graph: too many source lines");
	if ((rc = yi_vec_grow(&f->vars, 1)) != 0)
		return rc;
	nd = &f->nodes.v[n];
	f->vars.v[f->vars.n].file = file;
	f->vars.v[f->vars.n].line = line;
	f->vars.v[f->vars.n].inl = inl;
	f->vars.v[f->vars.n].contrib = contrib;
	f->vars.v[f->vars.n].next = nd->extra;
	nd->extra = (uint32_t)f->vars.n++;
	return 0;
}

/* Sorted mode: the path of the last stack is left at depth d for `name`.
 * Its nodes from the deepest up to d are complete; prune the narrow ones.
 * In name order the new name is greater than the one it replaces. */
static int
sorted_leave(yi_flame *f, size_t d, size_t prev_n, uint32_t name)
{
	size_t k;

	if (name <= f->path.v[d].name)
		return yi_error(YING_EINVAL, "flame graph: stacks out of order");
	for (k = prev_n; k-- > d;) {
		fnode *nd = &f->nodes.v[f->path.v[k].node];
		if (nd->value < f->prune_below) {
			/* everything made after it is its subtree */
			f->nodes.n = (size_t)f->path.v[k].node + 1;
			nd->child = NONE;
		}
	}
	return 0;
}

/* Sorted mode, after the last stack: complete the whole path. */
void
yi_sorted_leave_all(yi_flame *f)
{
	size_t k;

	for (k = f->path.n; k-- > 0;) {
		fnode *nd = &f->nodes.v[f->path.v[k].node];
		if (nd->value < f->prune_below) {
			f->nodes.n = (size_t)f->path.v[k].node + 1;
			nd->child = NONE;
		}
	}
	f->path.n = 0;
}

/* The child of `parent` named `name`, or NONE; *count is set to the
 * number of children looked at. */
static uint32_t
find_child(const yi_flame *f, uint32_t parent, uint32_t name, size_t *count)
{
	const fnode *pn = &f->nodes.v[parent];
	uint32_t c, *slot;

	*count = 0;
	if (pn->big) {
		slot = yi_map64_get(&f->child_of, (uint64_t)parent << 32 | name);
		return slot ? *slot : NONE;
	}
	for (c = pn->child; c != NONE; c = f->nodes.v[c].sibling, (*count)++)
		if (f->nodes.v[c].name == name)
			return c;
	return NONE;
}

/* A new child of `parent` that has `count` children so far (exact unless
 * the parent is big). */
static int
add_child(yi_flame *f, uint32_t parent, uint32_t name, uint32_t file,
    const yi_frame *fr, double value, double base, size_t count, uint32_t *out)
{
	uint32_t child, *slot, c;
	fnode *nd;
	bool added;
	int rc;

	if (f->nodes.n >= NONE - 1)
		return yi_error(YING_ELIMIT, "flame graph: too many frames");
	if ((rc = yi_vec_grow(&f->nodes, 1)) != 0)
		return rc;
	child = (uint32_t)f->nodes.n++;
	nd = &f->nodes.v[child];
	nd->name = name;
	nd->child = NONE;
	nd->sibling = f->nodes.v[parent].child;
	nd->file = file;
	nd->line = fr->line;
	nd->extra = NONE;
	nd->inl = fr->inlined ? 1 : 0;
	nd->big = 0;
	nd->value = value;
	nd->base = base;
	nd->var = 0;
	f->nodes.v[parent].child = child;
	if (f->nodes.v[parent].big) {
		rc = yi_map64_put(&f->child_of, (uint64_t)parent << 32 | name, child, &slot, &added);
	} else if (count + 1 > SMALL) {
		/* too many for a list walk: index all of them */
		f->nodes.v[parent].big = 1;
		for (c = child, rc = 0; c != NONE && rc == 0; c = f->nodes.v[c].sibling)
			rc = yi_map64_put(&f->child_of, (uint64_t)parent << 32 |
			    f->nodes.v[c].name, c, &slot, &added);
	} else {
		rc = 0;
	}
	*out = child;
	return rc;
}

int
yi_flame_add(yi_flame *f, const ying_profile *p, const yi_frame *frames,
    size_t n, double value, double base)
{
	return yi_flame_add_var(f, p, frames, n, value, base, 0);
}

int
yi_flame_add_var(yi_flame *f, const ying_profile *p, const yi_frame *frames,
    size_t n, double value, double base, double var)
{
	uint32_t node = 0;
	bool on_path = true, fresh = false;
	size_t j, d, prev_n;
	int rc;

	if (f == NULL || p == NULL || (n && frames == NULL))
		return yi_error(YING_EINVAL, "yi_flame_add: missing argument");
	if (!isfinite(value) || !isfinite(base) || value < 0 || base < 0 ||
	    !isfinite(var) || var < 0)
		return yi_error(YING_EINVAL, "yi_flame_add: values must be finite and >= 0");
	if (value == 0 && base == 0)
		return 0;
	if ((rc = yi_vec_grow(&f->path, n)) != 0)
		return rc;
	f->nodes.v[0].value += value;
	f->nodes.v[0].base += base;
	f->nodes.v[0].var += var;
	prev_n = f->path.n;
	f->path.n = 0;          /* stays 0 if this call fails half way */
	for (j = n, d = 0; j-- > 0; d++) {
		const yi_frame *fr = &frames[j];
		uint32_t name = 0, file = 0, child;
		fnode *c;

		if ((rc = yi_func_ids(f, p, fr->func, &name, &file)) != 0)
			return rc;
		/* Three ways to the child, cheapest first: the previous stack
		 * went through the same names down to here (callers that add
		 * sorted stacks mostly take this); the parent was made by this
		 * call, so the child cannot exist; else a search. */
		if (on_path && d < prev_n && f->path.v[d].name == name) {
			child = f->path.v[d].node;
		} else {
			size_t count = 0;
			on_path = false;
			if (f->sorted && !fresh) {
				if (d < prev_n && (rc = sorted_leave(f, d, prev_n, name)) != 0)
					return rc;
				fresh = true;   /* in name order the child is new */
			}
			child = fresh ? NONE : find_child(f, node, name, &count);
			if (child == NONE) {
				if ((rc = add_child(f, node, name, file, fr, value, base, count,
				    &child)) != 0)
					return rc;
				f->nodes.v[child].var = var;
				fresh = true;
				f->path.v[d].name = name;
				f->path.v[d].node = child;
				node = child;
				continue;
			}
		}
		c = &f->nodes.v[child];
		c->value += value;
		c->base += base;
		c->var += var;
		if ((rc = add_variant(f, child, file, fr->line, fr->inlined, value + base)) != 0)
			return rc;
		f->path.v[d].name = name;
		f->path.v[d].node = child;
		node = child;
	}
	if (f->sorted && on_path && n < prev_n) {
		/* a shorter stack after a longer one: not in name order */
		return yi_error(YING_EINVAL, "flame graph: stacks out of order");
	}
	f->path.n = n;
	return 0;
}

/* The variant of node n that contributed most: larger contribution, then
 * smaller line, then the smaller file name (independent of input order). */
void
yi_best_variant(const yi_flame *f, const fnode *nd, uint32_t *file, uint32_t *line,
    uint8_t *inl)
{
	double best = nd->value + nd->base;
	uint32_t k;

	for (k = nd->extra; k != NONE; k = f->vars.v[k].next)
		best -= f->vars.v[k].contrib;
	*file = nd->file;
	*line = nd->line;
	*inl = nd->inl;
	for (k = nd->extra; k != NONE; k = f->vars.v[k].next) {
		const fvariant *v = &f->vars.v[k];
		int better = v->contrib > best;
		if (v->contrib == best) {
			int fc = strcmp(yi_strtab_get(&f->strs, v->file), yi_strtab_get(&f->strs, *file));
			better = v->line < *line || (v->line == *line &&
			    (fc < 0 || (fc == 0 && v->inl < *inl)));
		}
		if (better) {
			best = v->contrib;
			*file = v->file;
			*line = v->line;
			*inl = v->inl;
		}
	}
}
