/*
 * cmd_callgraph.c: `ying callgraph`, a heap dump as jeprof's call graph:
 * DOT written by libying (ying_profile_write_dot), or SVG, PDF or PNG
 * rendered from it by Graphviz `dot` (ying_graphviz_render).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage_text[] =
    "usage: ying callgraph [options] DUMP|URL\n"
    "\n"
    "Draw a jemalloc heap dump as jeprof's call graph: nodes sized by the memory\n"
    "allocated in them (flat), edges by the memory allocated through them.\n"
    "Writes Graphviz DOT, or SVG, PDF or PNG through Graphviz's `dot`.\n"
    "\n"
    "  -o, --output FILE        write FILE (default: DOT on standard output);\n"
    "                           .svg, .pdf, .png and .dot (.gv) choose the format\n"
    "      --format FMT         dot (default), svg, pdf or png (overrides -o's)\n"
    "  -i, --sample-index NAME  inuse_space (default), inuse_objects,\n"
    "                           alloc_space, alloc_objects\n"
    "      --lines              one node per function and source line\n"
    "      --nodecount N        keep at most N nodes (default 80)\n"
    "      --nodefraction F     drop nodes below F of the total (default 0.005)\n"
    "      --edgefraction F     drop edges below F of the total (default 0.001)\n"
    "      --maxdegree N        keep at most N edges into and out of a node (default 8)\n"
    "      --focus REGEX        keep only stacks with a frame matching REGEX\n"
    "      --ignore REGEX       drop stacks with a frame matching REGEX\n"
    "      --title TEXT         the legend's first line (default: the program)\n"
    "      --show-bytes         space in bytes instead of MB\n"
    CLI_SYMBOLIZE_USAGE
    CLI_NAMES_USAGE
    "      --keep-allocator-frames  keep malloc/jemalloc/wrapper frames at the leaf\n"
    CLI_FETCH_USAGE
    "  -h, --help               this text\n";

static int callgraph_main(int argc, char **argv);

const cli_cmd cli_cmd_callgraph = {
	"callgraph", "draw the call graph (DOT, SVG, PDF, PNG)", usage_text, callgraph_main
};

enum {
	OPT_FORMAT = 256, OPT_LINES, OPT_NODECOUNT, OPT_NODEFRAC, OPT_EDGEFRAC,
	OPT_MAXDEGREE, OPT_FOCUS, OPT_IGNORE, OPT_TITLE, OPT_SHOW_BYTES
};

typedef struct graph_opts {
	ying_dot_opts dot;
	const char *format;     /* "dot", "svg", "pdf", "png" */
} graph_opts;

static int
write_graph(const ying_profile *p, const void *opts, ying_write_fn fn, void *opaque)
{
	const graph_opts *g = opts;
	ying_membuf dot = YING_MEMBUF_INIT;
	int rc;

	if (strcmp(g->format, "dot") == 0)
		return ying_profile_write_dot(p, &g->dot, fn, opaque);
	if ((rc = ying_profile_write_dot(p, &g->dot, ying_write_membuf, &dot)) == 0)
		rc = ying_graphviz_render(g->format, dot.data, dot.len, fn, opaque);
	ying_membuf_release(&dot);
	return rc;
}

static const char *
format_of(const char *s)
{
	static const char *const fmts[] = { "dot", "svg", "pdf", "png" };
	size_t i;

	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++)
		if (strcmp(s, fmts[i]) == 0)
			return fmts[i];
	return NULL;
}

/* The format named by PATH's extension (.gv is DOT too), or NULL. */
static const char *
format_of_path(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (dot == NULL || strchr(dot, '/'))
		return NULL;
	return strcmp(dot, ".gv") == 0 ? "dot" : format_of(dot + 1);
}

static int
parse_count(const char *opt, const char *arg, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(arg, &end, 10);
	if (errno || end == arg || *end || *out < 1 || *out > max)
		return cli_usage_error(&cli_cmd_callgraph, "%s wants a whole number from 1 to %ld, not '%s'",
		    opt, max, arg);
	return 0;
}

static int
parse_fraction(const char *opt, const char *arg, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(*out) || *out < 0 || *out > 1)
		return cli_usage_error(&cli_cmd_callgraph, "%s wants a fraction from 0 to 1, not '%s'",
		    opt, arg);
	return 0;
}

static int
callgraph_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "sample-index", required_argument, NULL, 'i' },
		{ "lines", no_argument, NULL, OPT_LINES },
		{ "nodecount", required_argument, NULL, OPT_NODECOUNT },
		{ "nodefraction", required_argument, NULL, OPT_NODEFRAC },
		{ "edgefraction", required_argument, NULL, OPT_EDGEFRAC },
		{ "maxdegree", required_argument, NULL, OPT_MAXDEGREE },
		{ "focus", required_argument, NULL, OPT_FOCUS },
		{ "ignore", required_argument, NULL, OPT_IGNORE },
		{ "title", required_argument, NULL, OPT_TITLE },
		{ "show-bytes", no_argument, NULL, OPT_SHOW_BYTES },
		CLI_SYMBOLIZE_OPTIONS,
		CLI_NAMES_OPTION,
		{ "help", no_argument, NULL, 'h' },
		CLI_FETCH_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	graph_opts g = { YING_DOT_OPTS_INIT, NULL };
	ying_symbolize_opts sopts = YING_SYMBOLIZE_OPTS_INIT;
	const char *out_path = NULL;
	long n;
	int c, rc;

	optind = 1;
	while ((c = cli_getopt(&cli_cmd_callgraph, argc, argv, "i:o:h", longopts)) != -1) {
		if (cli_symbolize_opt(c, optarg, &sopts))
			continue;
		switch (c) {
		case 'o': out_path = optarg; break;
		case OPT_FORMAT:
			if ((g.format = format_of(optarg)) == NULL)
				return cli_usage_error(&cli_cmd_callgraph,
				    "--format wants dot, svg, pdf or png, not '%s'", optarg);
			break;
		case 'i':
			if ((rc = cli_sample_index(&cli_cmd_callgraph, optarg, &g.dot.sample_index)) != 0)
				return rc;
			break;
		case OPT_LINES: g.dot.granularity = YING_BY_LINE; break;
		case OPT_NODECOUNT:
			if ((rc = parse_count("--nodecount", optarg, 1000000, &n)) != 0)
				return rc;
			g.dot.nodecount = (size_t)n;
			break;
		case OPT_NODEFRAC:
			if ((rc = parse_fraction("--nodefraction", optarg, &g.dot.nodefraction)) != 0)
				return rc;
			break;
		case OPT_EDGEFRAC:
			if ((rc = parse_fraction("--edgefraction", optarg, &g.dot.edgefraction)) != 0)
				return rc;
			break;
		case OPT_MAXDEGREE:
			if ((rc = parse_count("--maxdegree", optarg, 1000000, &n)) != 0)
				return rc;
			g.dot.maxdegree = (int)n;
			break;
		case OPT_FOCUS: g.dot.focus = optarg; break;
		case OPT_IGNORE: g.dot.ignore = optarg; break;
		case OPT_TITLE: g.dot.title = optarg; break;
		case OPT_SHOW_BYTES: g.dot.show_bytes = 1; break;
		case 'h': return cli_help(&cli_cmd_callgraph);
		default: return CLI_EXIT_USAGE;
		}
	}
	if (g.format == NULL && out_path != NULL && strcmp(out_path, "-") != 0 &&
	    (g.format = format_of_path(out_path)) == NULL)
		return cli_usage_error(&cli_cmd_callgraph,
		    "cannot tell the format of '%s': name it .dot, .svg, .pdf or .png, or use --format",
		    out_path);
	if (g.format == NULL)
		g.format = "dot";
	return cli_one_dump(&cli_cmd_callgraph, argc, argv, &sopts, out_path, write_graph, &g);
}
