/*
 * write_dot.c: the call graph as Graphviz DOT (`ying callgraph`,
 * ying-jeprof --dot), with jeprof's PrintDot semantics.
 *
 * One pass over the stacks that pass --focus/--ignore gives every node's
 * flat and cumulative value (yi_agg, model_agg.c: the rule `ying top`
 * uses, so the nodes' flat values sum to its total) and every caller ->
 * callee edge's value (counted once per stack, like cum, so recursion
 * does not count an edge twice).  Then jeprof's selection: nodes sorted by
 * |cum| (ties by name, file, line: the output never depends on hash
 * order), the first `nodecount` kept, then the tail whose |cum| is at or
 * below nodefraction of the total dropped; edges between kept nodes in
 * order of decreasing |value|, each kept when it is its callee's first
 * (reachability), else dropped at or below edgefraction of the total or
 * past `maxdegree` in- or out-edges.  Node font sizes grow with the square
 * root of |flat|; edge widths and weights with |value|.  Values may be
 * negative (a subtracted profile): sizes and limits use absolute values
 * (limits are fractions of the sum of |stack values|, which is the total
 * for an ordinary profile), labels print the signed value.  Names go
 * through the terminal escaping (controls, bad UTF-8 as \xHH), then DOT's
 * (backslash, quote), so any name gives valid DOT.
 */
#include <math.h>
#include <stdlib.h>

#include "write.h"

typedef struct node {
	uint32_t func, line;    /* line: YING_BY_LINE only */
	double flat, cum;
	uint32_t id;            /* N<id> once kept, else 0 */
	uint32_t indeg, outdeg; /* kept edges so far */
} node;

typedef struct edge {
	uint32_t src, dst;      /* node indices: caller, callee */
	double v;
	uint32_t stamp;         /* last stack counted */
	uint8_t inl;            /* the callee frame was inlined */
} edge;

typedef struct graph {
	const ying_profile *p;
	const ying_dot_opts *o;
	yi_agg agg;
	YI_VEC(node) nodes;
	YI_VEC(edge) edges;
	yi_map64 edge_of;       /* src << 32 | dst -> index in edges */
	YI_VEC(uint32_t) fnode; /* frame i of the current stack -> node */
	double total;           /* unfiltered sum (jeprof's Total) */
	double local;           /* filtered sum ("Focusing on") */
	double abs_local;       /* filtered sum of |value|: limits, scales */
	uint32_t stamp;
} graph;

/* jeprof's Unparse and units (write.h) under the graph's options. */
static const char *
unparse(const graph *g, double v, char *buf, size_t n)
{
	return yi_jeprof_unparse(g->o->sample_index, g->o->show_bytes, v, buf, n);
}

static const char *
units(const graph *g)
{
	return yi_jeprof_units(g->o->sample_index, g->o->show_bytes);
}

/* s inside a DOT double-quoted string: terminal escaping first (no control
 * byte or invalid UTF-8 left), then '\\' and '"' escaped.  With `split`,
 * runs of spaces and "::" become DOT line breaks, as jeprof's labels. */
static void
dot_str(yi_out *o, const char *s, bool split)
{
	char *t = yi_text_escape_dup(s);
	const char *c;

	if (t == NULL) {
		yi_out_puts(o, "?");    /* out of memory: o keeps going */
		return;
	}
	for (c = t; *c; c++) {
		if (split && (*c == ' ' || *c == '\t')) {
			while (c[1] == ' ' || c[1] == '\t')
				c++;
			yi_out_puts(o, "\\n");
		} else if (split && c[0] == ':' && c[1] == ':') {
			yi_out_puts(o, "\\n");
			c++;
		} else if (*c == '\\' || *c == '"') {
			yi_out_putc(o, '\\');
			yi_out_putc(o, *c);
		} else {
			yi_out_putc(o, *c);
		}
	}
	yi_free(t);
}

static const char *
node_name(const graph *g, const node *n)
{
	return yi_profile_str(g->p, g->p->funcs.v[n->func].show);
}

/* "file.c:line" of a line node ("" when the file is unknown). */
static void
node_where(const graph *g, const node *n, char *buf, size_t len)
{
	const char *file = yi_profile_str(g->p, g->p->funcs.v[n->func].file);
	const char *base = strrchr(file, '/');

	base = base ? base + 1 : file;
	if (*base == '\0')
		*buf = '\0';
	else if (n->line)
		snprintf(buf, len, "%s:%u", base, n->line);
	else
		snprintf(buf, len, "%s", base);
}

/* Node order: |cum| descending, then name, file, line (and function id:
 * equal names in different files stay in one order). */
static int
cmp_nodes(const void *a, const void *b, void *ctx)
{
	const node *x = a, *y = b;
	const graph *g = ctx;
	const yi_func *fx = &g->p->funcs.v[x->func], *fy = &g->p->funcs.v[y->func];
	double cx = fabs(x->cum), cy = fabs(y->cum);
	int c;

	if (cx != cy)
		return cx > cy ? -1 : 1;
	if ((c = strcmp(yi_profile_str(g->p, fx->show), yi_profile_str(g->p, fy->show))) != 0)
		return c;
	if ((c = strcmp(yi_profile_str(g->p, fx->file), yi_profile_str(g->p, fy->file))) != 0)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

/* Edge order: |value| descending, then by the kept ids of caller and
 * callee (a total order: one edge per pair). */
static int
cmp_edges(const void *a, const void *b, void *ctx)
{
	const edge *x = a, *y = b;
	const graph *g = ctx;
	double vx = fabs(x->v), vy = fabs(y->v);
	uint32_t sx = g->nodes.v[x->src].id, sy = g->nodes.v[y->src].id;
	uint32_t dx = g->nodes.v[x->dst].id, dy = g->nodes.v[y->dst].id;

	if (vx != vy)
		return vx > vy ? -1 : 1;
	if (sx != sy)
		return sx < sy ? -1 : 1;
	return dx < dy ? -1 : dx > dy;
}

/* Count one stack's edges (caller fr[i+1] -> callee fr[i]), each distinct
 * pair once. */
static int
add_edges(graph *g, const yi_frame *fr, size_t n, double v)
{
	uint32_t stamp = g->stamp++;
	size_t i;
	int rc;

	if (g->edge_of.cap == 0 && (rc = yi_map64_init(&g->edge_of, 1024)) != 0)
		return rc;
	for (i = 0; i + 1 < n; i++) {
		uint32_t src = g->fnode.v[i + 1], dst = g->fnode.v[i], *slot;
		bool added;
		edge *e;

		if ((rc = yi_map64_put(&g->edge_of, (uint64_t)src << 32 | dst,
		    (uint32_t)g->edges.n, &slot, &added)) != 0)
			return rc;
		if (added) {
			if (g->edges.n >= UINT32_MAX - 1)
				return yi_error(YING_ELIMIT, "more than 4 billion call graph edges");
			if ((rc = yi_vec_grow(&g->edges, 1)) != 0)
				return rc;
			e = &g->edges.v[g->edges.n++];
			memset(e, 0, sizeof(*e));
			e->src = src;
			e->dst = dst;
			e->stamp = UINT32_MAX;
		}
		e = &g->edges.v[*slot];
		if (fr[i].inlined)
			e->inl = 1;
		if (e->stamp != stamp) {
			e->stamp = stamp;
			e->v += v;
		}
	}
	return 0;
}

/* The node of frame fr (after yi_agg_stack counted it). */
static uint32_t
frame_node(const graph *g, const yi_frame *fr)
{
	if (g->o->granularity == YING_BY_LINE)
		return *yi_map64_get(&g->agg.line_of, (uint64_t)fr->func << 32 | fr->line);
	return fr->func;
}

static int
collect(graph *g, yi_filter *flt)
{
	yi_stack_walk w = YI_STACK_WALK_INIT(g->p, flt, g->o->sample_index);
	size_t i;
	int rc;

	while ((rc = yi_stack_walk_next(&w)) > 0) {
		const yi_framevec fr = w.fr;     /* a view: the walk owns it */
		double v = w.v;

		g->local += v;
		g->abs_local += fabs(v);
		if ((rc = yi_agg_stack(&g->agg, 0, fr.v, NULL, fr.n, v)) != 0)
			break;
		g->fnode.n = 0;
		if ((rc = yi_vec_grow(&g->fnode, fr.n)) != 0)
			break;
		for (i = 0; i < fr.n; i++)
			g->fnode.v[i] = frame_node(g, &fr.v[i]);
		g->fnode.n = fr.n;
		if ((rc = add_edges(g, fr.v, fr.n, v)) != 0)
			break;
	}
	yi_stack_walk_end(&w);
	return rc;
}

/* Nodes from the aggregate, indexed like the edges' src/dst. */
static int
make_nodes(graph *g)
{
	const yi_agg_rows *rows = g->o->granularity == YING_BY_LINE ? &g->agg.lines : &g->agg.funcs;
	size_t i;
	int rc;

	if ((rc = yi_vec_grow(&g->nodes, rows->n)) != 0)
		return rc;
	for (i = 0; i < rows->n; i++) {
		node *n = &g->nodes.v[i];
		memset(n, 0, sizeof(*n));
		n->func = rows->v[i].func;
		n->line = g->o->granularity == YING_BY_LINE ? rows->v[i].line : 0;
		n->flat = rows->v[i].flat[0];
		n->cum = rows->v[i].cum[0];
	}
	g->nodes.n = rows->n;
	return 0;
}

static void
write_node(yi_out *o, const graph *g, const node *n)
{
	char b1[48], b2[48], b3[48], b4[48], where[512];
	double fs = 8;

	if (g->abs_local > 0)
		fs = 8 + 50.0 * sqrt(fabs(n->flat) / g->abs_local);
	yi_out_printf(o, "N%u [label=\"", n->id);
	dot_str(o, node_name(g, n), true);
	if (g->o->granularity == YING_BY_LINE) {
		node_where(g, n, where, sizeof(where));
		if (*where) {
			yi_out_puts(o, "\\n");
			dot_str(o, where, false);
		}
	}
	yi_out_printf(o, "\\n%s (%s)", unparse(g, n->flat, b1, sizeof(b1)),
	    yi_jeprof_percent(n->flat, g->local, b2, sizeof(b2)));
	if (n->flat != n->cum)
		yi_out_printf(o, "\\rof %s (%s)", unparse(g, n->cum, b3, sizeof(b3)),
		    yi_jeprof_percent(n->cum, g->local, b4, sizeof(b4)));
	yi_out_printf(o, "\\r\",shape=box,fontsize=%.1f,tooltip=\"", fs);
	dot_str(o, node_name(g, n), false);
	yi_out_puts(o, "\"];\n");
}

static void
write_edge(yi_out *o, const graph *g, const edge *e)
{
	double frac = g->abs_local > 0 ? 3 * fabs(e->v) / g->abs_local : 0;
	double w, weight = pow(fabs(e->v), 0.7);
	char b[48];

	if (frac > 1)
		frac = 1;
	w = frac * 2;
	if (weight > 100000)
		weight = 100000;
	yi_out_printf(o, "N%u -> N%u [label=\"%s\", weight=%.0f, style=\"setlinewidth(%f)%s\"];\n",
	    g->nodes.v[e->src].id, g->nodes.v[e->dst].id, unparse(g, e->v, b, sizeof(b)),
	    floor(weight), w, e->inl ? ",dashed" : "");
}

/* Edges between kept nodes, sorted; then jeprof's keep rule. */
static int
write_edges(yi_out *o, graph *g, size_t maxdeg, double edgelimit)
{
	YI_VEC(edge) kept = { 0 };
	size_t i;
	int rc;

	for (i = 0; i < g->edges.n; i++) {
		const edge *e = &g->edges.v[i];
		if (g->nodes.v[e->src].id == 0 || g->nodes.v[e->dst].id == 0 || e->v == 0)
			continue;
		if ((rc = yi_vec_grow(&kept, 1)) != 0) {
			yi_vec_free(&kept);
			return rc;
		}
		kept.v[kept.n++] = *e;
	}
	if (kept.n > 1)
		qsort_r(kept.v, kept.n, sizeof(edge), cmp_edges, g);
	for (i = 0; i < kept.n; i++) {
		const edge *e = &kept.v[i];
		node *src = &g->nodes.v[e->src], *dst = &g->nodes.v[e->dst];
		if (dst->indeg != 0 && (fabs(e->v) <= edgelimit ||
		    src->outdeg >= maxdeg || dst->indeg >= maxdeg))
			continue;
		src->outdeg++;
		dst->indeg++;
		write_edge(o, g, e);
	}
	yi_vec_free(&kept);
	return 0;
}

static int
write_graph(yi_out *o, graph *g)
{
	const ying_dot_opts *opts = g->o;
	const char *prog = opts->title ? opts->title : ying_profile_program(g->p);
	size_t nodecount = opts->nodecount ? opts->nodecount : 80;
	double nodefrac = opts->nodefraction < 0 ? 0.005 : opts->nodefraction;
	double edgefrac = opts->edgefraction < 0 ? 0.001 : opts->edgefraction;
	size_t maxdeg = opts->maxdegree > 0 ? (size_t)opts->maxdegree : 8;
	double nodelimit = trunc(nodefrac * g->abs_local);
	double edgelimit = trunc(edgefrac * g->abs_local);
	char b1[48], b2[48], b3[48], b4[48];
	YI_VEC(node) order = { 0 };
	size_t last, i;
	int rc;

	/* nodes with a value, by |cum|: the first nodecount, minus a tail at
	 * or below the limit; `order` holds copies, ids go to g->nodes */
	for (i = 0; i < g->nodes.n; i++) {
		if (g->nodes.v[i].flat == 0 && g->nodes.v[i].cum == 0)
			continue;
		if ((rc = yi_vec_grow(&order, 1)) != 0) {
			yi_vec_free(&order);
			return rc;
		}
		order.v[order.n] = g->nodes.v[i];
		order.v[order.n++].id = (uint32_t)i;    /* index, for now */
	}
	if (order.n > 1)
		qsort_r(order.v, order.n, sizeof(node), cmp_nodes, g);
	last = order.n < nodecount ? order.n : nodecount;
	while (last > 0 && fabs(order.v[last - 1].cum) <= nodelimit)
		last--;
	for (i = 0; i < last; i++) {
		uint32_t at = order.v[i].id;
		order.v[i].id = g->nodes.v[at].id = (uint32_t)i + 1;
	}

	yi_out_puts(o, "digraph \"");
	dot_str(o, prog, false);
	yi_out_printf(o, "; %s %s\" {\n", unparse(g, g->total, b1, sizeof(b1)), units(g));
	yi_out_puts(o, "node [width=0.375,height=0.25];\n");
	yi_out_puts(o, "Legend [shape=box,fontsize=24,shape=plaintext,label=\"");
	dot_str(o, prog, false);
	yi_out_printf(o, "\\lTotal %s: %s\\l", units(g), unparse(g, g->total, b1, sizeof(b1)));
	yi_out_printf(o, "Focusing on: %s\\l", unparse(g, g->local, b2, sizeof(b2)));
	yi_out_printf(o, "Dropped nodes with <= %s abs(%s)\\l",
	    unparse(g, nodelimit, b3, sizeof(b3)), units(g));
	yi_out_printf(o, "Dropped edges with <= %s %s\\l",
	    unparse(g, edgelimit, b4, sizeof(b4)), units(g));
	yi_out_printf(o, "Showing top %zu nodes out of %zu\\l\"];\n", last, order.n);
	for (i = 0; i < last; i++)
		write_node(o, g, &order.v[i]);
	yi_vec_free(&order);
	if ((rc = write_edges(o, g, maxdeg, edgelimit)) != 0)
		return rc;
	yi_out_puts(o, "}\n");
	return 0;
}

int
yi_write_dot(const ying_profile *p, const ying_dot_opts *opts,
    ying_write_fn fn, void *opaque)
{
	ying_dot_opts def = YING_DOT_OPTS_INIT;
	yi_filter *flt = NULL;
	yi_out *o = NULL;
	graph g;
	int rc;

	yi_error_clear();
	if (p == NULL || fn == NULL)
		return yi_error(YING_EINVAL, "ying_profile_write_dot: no profile or sink");
	if (opts == NULL)
		opts = &def;
	if (opts->version != YING_DOT_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_dot_opts version %d unsupported", opts->version);
	if (opts->granularity != YING_BY_FUNCTION && opts->granularity != YING_BY_LINE)
		return yi_error(YING_EINVAL, "call graph granularity %d: only functions or lines",
		    (int)opts->granularity);
	if (isnan(opts->nodefraction) || isnan(opts->edgefraction))
		return yi_error(YING_EINVAL, "node or edge fraction is not a number");
	if (opts->maxdegree < 0)
		return yi_error(YING_EINVAL, "maxdegree %d is negative", opts->maxdegree);
	if ((rc = yi_profile_check_index(p, opts->sample_index)) != 0)
		return rc;
	if ((rc = yi_filter_new(&flt, opts->focus, opts->ignore)) != 0)
		return rc;
	memset(&g, 0, sizeof(g));
	g.p = p;
	g.o = opts;
	yi_agg_init(&g.agg, opts->granularity == YING_BY_LINE ? YI_AGG_LINES : YI_AGG_FUNCS);
	ying_profile_total(&g.total, p, opts->sample_index);
	if ((rc = collect(&g, flt)) != 0 || (rc = make_nodes(&g)) != 0)
		goto done;
	if ((o = yi_malloc(sizeof(*o))) == NULL) {
		rc = yi_oom("writing a call graph");
		goto done;
	}
	yi_out_init(o, fn, opaque);
	if ((rc = write_graph(o, &g)) == 0)
		rc = yi_out_finish(o);
done:
	yi_free(o);
	yi_filter_free(flt);
	yi_agg_release(&g.agg);
	yi_vec_free(&g.nodes);
	yi_vec_free(&g.edges);
	yi_vec_free(&g.fnode);
	yi_map64_release(&g.edge_of);
	return rc;
}
