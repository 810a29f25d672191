/*
 * cmd_flamegraph.c: `ying flamegraph`, a heap dump as one interactive SVG.
 *
 * The file stands alone (no external script, font or URL): open it in a
 * browser, hover for function, file:line, size and share, click to zoom,
 * Ctrl-F to search.  Widths are the chosen sample index; colours are a hash
 * of the function name, the same in every graph.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage_text[] =
    "usage: ying flamegraph [options] DUMP [-o FILE.svg]\n"
    "\n"
    "Draw a jemalloc heap dump (heap_v2, plain or gzipped) as a self-contained\n"
    "interactive SVG flame graph: hover a frame for details, click to zoom,\n"
    "Search or Ctrl-F to highlight functions matching a regular expression.\n"
    "\n"
    "  -i, --sample-index NAME  inuse_space (default), inuse_objects,\n"
    "                           alloc_space, alloc_objects\n"
    "  -o, --output FILE        write FILE (default: standard output)\n"
    "      --icicle             root at the top, callees below\n"
    "      --width N            image width in pixels (default 1200)\n"
    "      --title TEXT         replace the title\n"
    "      --subtitle TEXT      replace the subtitle (total, sample rate,\n"
    "                           program, time)\n"
    "      --min-width PX       leave out frames narrower than PX pixels\n"
    "                           (default 0.1)\n"
    "      --focus REGEX        keep only stacks with a frame matching REGEX\n"
    "                           (function name or file:line)\n"
    "      --ignore REGEX       drop stacks with a frame matching REGEX\n"
    CLI_SYMBOLIZE_USAGE
    CLI_NAMES_USAGE
    "      --keep-allocator-frames  keep malloc/jemalloc/wrapper frames at the leaf\n"
    CLI_FETCH_USAGE
    "  -h, --help               this text\n";

static int flamegraph_main(int argc, char **argv);

const cli_cmd cli_cmd_flamegraph = {
	"flamegraph", "draw an interactive SVG flame graph", usage_text, flamegraph_main
};

enum {
	OPT_ICICLE = 256, OPT_WIDTH, OPT_TITLE, OPT_SUBTITLE, OPT_MINWIDTH, OPT_FOCUS,
	OPT_IGNORE
};

static int
write_svg(const ying_profile *p, const void *o, ying_write_fn fn, void *opaque)
{
	return ying_profile_write_svg(p, o, fn, opaque);
}

static int
flamegraph_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "sample-index", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "icicle", no_argument, NULL, OPT_ICICLE },
		{ "width", required_argument, NULL, OPT_WIDTH },
		{ "title", required_argument, NULL, OPT_TITLE },
		{ "subtitle", required_argument, NULL, OPT_SUBTITLE },
		{ "min-width", required_argument, NULL, OPT_MINWIDTH },
		{ "focus", required_argument, NULL, OPT_FOCUS },
		{ "ignore", required_argument, NULL, OPT_IGNORE },
		CLI_SYMBOLIZE_OPTIONS,
		CLI_NAMES_OPTION,
		{ "help", no_argument, NULL, 'h' },
		CLI_FETCH_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	ying_svg_opts vopts = YING_SVG_OPTS_INIT;
	ying_symbolize_opts sopts = YING_SYMBOLIZE_OPTS_INIT;
	const char *out_path = NULL;
	char *end;
	long w;
	int c, rc;

	optind = 1;
	while ((c = cli_getopt(&cli_cmd_flamegraph, argc, argv, "i:o:h", longopts)) != -1) {
		if (cli_symbolize_opt(c, optarg, &sopts))
			continue;
		switch (c) {
		case 'i':
			if ((rc = cli_sample_index(&cli_cmd_flamegraph, optarg, &vopts.sample_index)) != 0)
				return rc;
			break;
		case 'o': out_path = optarg; break;
		case OPT_ICICLE: vopts.icicle = 1; break;
		case OPT_WIDTH:
			errno = 0;
			w = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || w < 200 || w > 100000)
				return cli_usage_error(&cli_cmd_flamegraph,
				    "--width wants pixels from 200 to 100000, not '%s'", optarg);
			vopts.width = (unsigned)w;
			break;
		case OPT_TITLE: vopts.title = optarg; break;
		case OPT_SUBTITLE: vopts.subtitle = optarg; break;
		case OPT_MINWIDTH:
			errno = 0;
			vopts.min_width = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(vopts.min_width) ||
			    vopts.min_width < 0)
				return cli_usage_error(&cli_cmd_flamegraph,
				    "--min-width wants a number of pixels, not '%s'", optarg);
			break;
		case OPT_FOCUS: vopts.focus = optarg; break;
		case OPT_IGNORE: vopts.ignore = optarg; break;
		case 'h': return cli_help(&cli_cmd_flamegraph);
		default: return CLI_EXIT_USAGE;
		}
	}
	return cli_one_dump(&cli_cmd_flamegraph, argc, argv, &sopts, out_path, write_svg, &vopts);
}
