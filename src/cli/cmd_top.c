/*
 * cmd_top.c: `ying top`, the table of what holds the memory.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage_text[] =
    "usage: ying top [options] DUMP\n"
    "\n"
    "Show which functions hold the memory in a jemalloc heap dump (heap_v2,\n"
    "plain or gzipped, or a pprof file written by ying).\n"
    "\n"
    "  -n, --limit N            rows to show (default 25 for text, all for --json; 0 = all)\n"
    "      --lines              one row per function and source line\n"
    "      --stacks             whole stacks instead of functions\n"
    "      --cum                sort by cumulative value\n"
    "  -i, --sample-index IDX   inuse_space (default), inuse_objects,\n"
    "                           alloc_space, alloc_objects (the last two need prof_accum)\n"
    "      --focus REGEX        only stacks with a frame matching REGEX\n"
    "      --ignore REGEX       drop stacks with a frame matching REGEX\n"
    "      --json               one JSON object: total, unit, sample_index, rows\n"
    CLI_SYMBOLIZE_USAGE
    CLI_NAMES_USAGE
    "      --keep-allocator-frames  do not trim malloc/jemalloc/wrapper frames\n"
    "  -o, --output FILE        write to FILE instead of standard output\n"
    "  -q, --quiet              no hint that a wrapper may lead the table\n"
    CLI_FETCH_USAGE
    "  -h, --help               this text\n";

static int top_main(int argc, char **argv);

const cli_cmd cli_cmd_top = {
	"top", "show the functions that hold the memory", usage_text, top_main
};

enum { OPT_LINES = 256, OPT_STACKS, OPT_CUM, OPT_FOCUS, OPT_IGNORE, OPT_JSON };

static int
write_top(const ying_profile *p, const void *o, ying_write_fn fn, void *opaque)
{
	return ying_profile_write_top(p, o, fn, opaque);
}

static int
top_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "limit", required_argument, NULL, 'n' },
		{ "lines", no_argument, NULL, OPT_LINES },
		{ "stacks", no_argument, NULL, OPT_STACKS },
		{ "cum", no_argument, NULL, OPT_CUM },
		{ "sample-index", required_argument, NULL, 'i' },
		{ "focus", required_argument, NULL, OPT_FOCUS },
		{ "ignore", required_argument, NULL, OPT_IGNORE },
		{ "json", no_argument, NULL, OPT_JSON },
		CLI_SYMBOLIZE_OPTIONS,
		CLI_NAMES_OPTION,
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		CLI_FETCH_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	ying_top_opts topts = YING_TOP_OPTS_INIT;
	ying_symbolize_opts sopts = YING_SYMBOLIZE_OPTS_INIT;
	const char *out_path = NULL;
	long limit = -1;
	char *end;
	int c, hint = 1;

	optind = 1;
	while ((c = cli_getopt(&cli_cmd_top, argc, argv, "n:i:o:qh", longopts)) != -1) {
		if (cli_symbolize_opt(c, optarg, &sopts))
			continue;
		switch (c) {
		case 'n':
			limit = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end || limit < 0)
				return cli_usage_error(&cli_cmd_top, "-n wants a number >= 0, not '%s'", optarg);
			break;
		case OPT_LINES: topts.granularity = YING_BY_LINE; break;
		case OPT_STACKS: topts.granularity = YING_BY_STACK; break;
		case OPT_CUM: topts.sort_cum = 1; break;
		case 'i':
			if (cli_sample_index(&cli_cmd_top, optarg, &topts.sample_index) != 0)
				return CLI_EXIT_USAGE;
			break;
		case OPT_FOCUS: topts.focus = optarg; break;
		case OPT_IGNORE: topts.ignore = optarg; break;
		case OPT_JSON: topts.json = 1; break;
		case 'o': out_path = optarg; break;
		case 'q': hint = 0; break;
		case 'h': return cli_help(&cli_cmd_top);
		default: return CLI_EXIT_USAGE;
		}
	}
	if (limit >= 0)
		topts.limit = (size_t)limit;
	else
		topts.limit = topts.json ? 0 : 25;

	/* a hint on stderr when a wrapper seems to lead (not for --json,
	 * which a program reads) */
	cli_hint_index = hint && !topts.json ? (int)topts.sample_index : -1;
	return cli_one_dump(&cli_cmd_top, argc, argv, &sopts, out_path, write_top, &topts);
}
