/*
 * write_tree.c: the flame graph tree as flat JSON (yi_flame_write_tree,
 * yi_write_tree), for the live page's flame graph and its differential
 * form (yi_diff_write_tree in diff_flame.c builds the tree of a diff).
 *
 * The tree is the SVG's (write_flame_tree.c: frames merged by function
 * name from the root, each node keeping the file:line that contributed
 * most), written as one array of numbers so that a browser parses a
 * 262,144-stack heap's tree in one JSON.parse without an object per node:
 *
 *   {"sample_index": "inuse_space", "unit": "bytes", "total": T,
 *    "names": [...], "files": ["", ...],
 *    "fields": ["parent", "name", "file", "line", "value", "self"(, "base")],
 *    "nodes": [parent, name, file, line, value, self, ...]}
 *
 * Nodes are in preorder (a node's parent comes before it; node 0 is the
 * root "all" with parent -1), the children of a node by decreasing value
 * (then base, then name), so the output does not depend on the order of
 * the dump's stacks.  `names` and `files` are indexed by the node's name
 * and file ids; files[0] is "" (unknown).  value is the node's total,
 * self its own part (value minus its children's); a diff's value is NOW
 * and base is BASE.  Nothing is pruned: the page decides what is too
 * narrow to draw.
 */
#include <math.h>
#include <stdlib.h>

#include "write_flame.h"

typedef struct tree_item {
	uint32_t node;
	int64_t parent;          /* output index of the parent, -1 for the root */
} tree_item;

typedef YI_VEC(uint32_t) idvec;

typedef struct kid_ctx {
	const yi_flame *f;
} kid_ctx;

/* Decreasing value, then base, then name (a total order on siblings:
 * siblings have distinct names). */
static int
kid_cmp(const void *va, const void *vb, void *arg)
{
	const kid_ctx *c = arg;
	const fnode *a = &c->f->nodes.v[*(const uint32_t *)va];
	const fnode *b = &c->f->nodes.v[*(const uint32_t *)vb];

	if (a->value != b->value)
		return a->value > b->value ? -1 : 1;
	if (a->base != b->base)
		return a->base > b->base ? -1 : 1;
	return strcmp(yi_strtab_get(&c->f->strs, a->name),
	    yi_strtab_get(&c->f->strs, b->name));
}

/* The output id of string id s in map (a new one, appended to order, the
 * first time); map has one slot per string of the tree. */
static uint32_t
remap(uint32_t *map, uint32_t s, idvec *order, int *rc)
{
	if (map[s] != NONE)
		return map[s];
	if (yi_vec_grow(order, 1) != 0) {
		*rc = YING_ENOMEM;
		return 0;
	}
	map[s] = (uint32_t)order->n;
	order->v[order->n++] = s;
	return map[s];
}

/* An unsigned decimal without printf (millions of them per tree). */
static void
put_u64(yi_out *o, uint64_t v)
{
	char b[24];
	size_t k = sizeof(b);

	do {
		b[--k] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	yi_out_write(o, b + k, sizeof(b) - k);
}

/* A value as JSON: an integer when it is one (the usual case: bytes and
 * unsampled counts), else with a few decimals (scaled estimates). */
static void
put_num(yi_out *o, double v)
{
	if (v >= 0 && v < 9007199254740992.0 && v == floor(v))
		put_u64(o, (uint64_t)v);
	else if (isfinite(v))
		yi_out_printf(o, "%.3f", v);
	else
		yi_out_putc(o, '0');
}

static void
put_strs(yi_out *o, const yi_flame *f, const uint32_t *ids, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			yi_out_putc(o, ',');
		yi_out_json_str(o, yi_strtab_get(&f->strs, ids[i]));
	}
}

int
yi_flame_write_tree(yi_flame *f, ying_sample_index idx, bool diff, yi_out *o)
{
	YI_VEC(tree_item) stack = { NULL, 0, 0 };
	idvec kids = { NULL, 0, 0 }, names = { NULL, 0, 0 }, files = { NULL, 0, 0 };
	uint32_t *name_map = NULL, *file_map = NULL;
	size_t nstr = yi_strtab_count(&f->strs);
	kid_ctx kc = { f };
	int64_t next = 0;
	int rc = 0;

	if ((name_map = yi_malloc(nstr * sizeof(*name_map))) == NULL ||
	    (file_map = yi_malloc(nstr * sizeof(*file_map))) == NULL) {
		rc = yi_oom("writing a flame tree");
		goto out;
	}
	memset(name_map, 0xff, nstr * sizeof(*name_map));
	memset(file_map, 0xff, nstr * sizeof(*file_map));
	(void)remap(file_map, 0, &files, &rc);     /* files[0]: "" (id 0) */
	yi_out_printf(o, "{\"sample_index\":\"%s\",\"unit\":\"%s\",\"total\":",
	    ying_sample_index_name(idx), yi_index_is_bytes(idx) ? "bytes" : "objects");
	put_num(o, f->nodes.v[0].value);
	if (diff) {
		yi_out_puts(o, ",\"base_total\":");
		put_num(o, f->nodes.v[0].base);
	}
	yi_out_printf(o, ",\"fields\":[\"parent\",\"name\",\"file\",\"line\",\"value\","
	    "\"self\"%s],\"nodes\":[", diff ? ",\"base\"" : "");
	if (rc == 0 && (rc = yi_vec_grow(&stack, 1)) == 0) {
		stack.v[0].node = 0;
		stack.v[0].parent = -1;
		stack.n = 1;
	}
	while (rc == 0 && stack.n > 0) {
		tree_item it = stack.v[--stack.n];
		const fnode *nd = &f->nodes.v[it.node];
		double below = 0;
		uint32_t file, line, c;
		uint8_t inl;
		int64_t me = next++;

		kids.n = 0;
		for (c = nd->child; c != NONE && rc == 0; c = f->nodes.v[c].sibling) {
			if ((rc = yi_vec_grow(&kids, 1)) != 0)
				break;
			kids.v[kids.n++] = c;
			below += f->nodes.v[c].value;
		}
		if (rc != 0)
			break;
		if (it.node == 0) {
			file = 0;
			line = 0;
		} else {
			yi_best_variant(f, nd, &file, &line, &inl);
		}
		{
			uint32_t nid = remap(name_map, nd->name, &names, &rc);
			uint32_t fid = remap(file_map, file, &files, &rc);
			double self = nd->value - below;
			if (self < 0)
				self = 0;       /* rounding of summed doubles */
			if (me)
				yi_out_putc(o, ',');
			if (it.parent < 0)
				yi_out_puts(o, "-1");
			else
				put_u64(o, (uint64_t)it.parent);
			yi_out_putc(o, ',');
			put_u64(o, nid);
			yi_out_putc(o, ',');
			put_u64(o, fid);
			yi_out_putc(o, ',');
			put_u64(o, line);
			yi_out_putc(o, ',');
			put_num(o, nd->value);
			yi_out_putc(o, ',');
			put_num(o, self);
			if (diff) {
				yi_out_putc(o, ',');
				put_num(o, nd->base);
			}
		}
		if (kids.n > 1)
			qsort_r(kids.v, kids.n, sizeof(*kids.v), kid_cmp, &kc);
		if ((rc = yi_vec_grow(&stack, kids.n)) != 0)
			break;
		/* the largest child is popped first: preorder, largest first */
		for (size_t k = kids.n; k-- > 0;) {
			stack.v[stack.n].node = kids.v[k];
			stack.v[stack.n].parent = me;
			stack.n++;
		}
		if (o->err)
			break;
	}
	if (rc == 0) {
		yi_out_puts(o, "],\"names\":[");
		put_strs(o, f, names.v, names.n);
		yi_out_puts(o, "],\"files\":[");
		put_strs(o, f, files.v, files.n);
		yi_out_puts(o, "]}\n");
	}
out:
	yi_free(name_map);
	yi_free(file_map);
	yi_vec_free(&stack);
	yi_vec_free(&kids);
	yi_vec_free(&names);
	yi_vec_free(&files);
	return rc;
}

int
yi_write_tree(const ying_profile *p, ying_sample_index idx, ying_write_fn fn,
    void *opaque)
{
	yi_framevec fr = { NULL, 0, 0 };
	yi_flame *f = NULL;
	yi_out *o = NULL;
	int rc;

	yi_error_clear();
	if (p == NULL || fn == NULL)
		return yi_error(YING_EINVAL, "yi_write_tree: no profile or no sink");
	if ((rc = yi_profile_check_index(p, idx)) != 0)
		return rc;
	if ((rc = yi_flame_new(&f)) != 0)
		return rc;
	for (size_t i = 0; i < p->stacks.n && rc == 0; i++) {
		const yi_stack *st = &p->stacks.v[i];
		double v = st->val[idx];
		long n;

		if (v <= 0 || !isfinite(v))
			continue;
		if ((n = yi_stack_expand(p, st, &fr)) < 0)
			rc = (int)n;
		else
			rc = yi_flame_add(f, p, fr.v, (size_t)n, v, 0);
	}
	if (rc == 0 && (o = yi_malloc(sizeof(*o))) == NULL)
		rc = yi_oom("writing a flame tree");
	if (rc == 0) {
		yi_out_init(o, fn, opaque);
		rc = yi_flame_write_tree(f, idx, false, o);
		if (rc == 0)
			rc = yi_out_finish(o);
	}
	yi_free(o);
	yi_flame_free(f);
	yi_vec_free(&fr);
	return rc;
}
