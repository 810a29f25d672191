/*
 * cmd_folded.c: `ying folded`, a heap dump as collapsed stacks.
 *
 * One line per distinct stack, root first, ';'-joined, then the value:
 * what flamegraph.pl, inferno, speedscope and Pyroscope's ingest read, and
 * what jeprof --collapsed prints (values truncated toward zero).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage_text[] =
    "usage: ying folded [options] DUMP [-o FILE]\n"
    "\n"
    "Print the stacks of a jemalloc heap dump (heap_v2, plain or gzipped) as\n"
    "collapsed stacks: function names root first joined by ';', a space, and\n"
    "the value (bytes or objects, truncated to an integer).  Equal stacks are\n"
    "summed, lines are sorted, inlined frames end in [inline].\n"
    "\n"
    "  -i, --sample-index NAME  inuse_space (default), inuse_objects,\n"
    "                           alloc_space, alloc_objects\n"
    "  -l, --lines              append (file:line) to every frame\n"
    "  -o, --output FILE        write FILE (default: standard output)\n"
    CLI_SYMBOLIZE_USAGE
    CLI_NAMES_USAGE
    "      --keep-allocator-frames  keep malloc/jemalloc/wrapper frames at the leaf\n"
    CLI_FETCH_USAGE
    "  -h, --help               this text\n";

static int folded_main(int argc, char **argv);

const cli_cmd cli_cmd_folded = {
	"folded", "print collapsed stacks (flamegraph.pl input)", usage_text, folded_main
};

static int
write_folded(const ying_profile *p, const void *o, ying_write_fn fn, void *opaque)
{
	return ying_profile_write_folded(p, o, fn, opaque);
}

static int
folded_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "sample-index", required_argument, NULL, 'i' },
		{ "lines", no_argument, NULL, 'l' },
		{ "output", required_argument, NULL, 'o' },
		CLI_SYMBOLIZE_OPTIONS,
		CLI_NAMES_OPTION,
		{ "help", no_argument, NULL, 'h' },
		CLI_FETCH_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	ying_folded_opts fopts = YING_FOLDED_OPTS_INIT;
	ying_symbolize_opts sopts = YING_SYMBOLIZE_OPTS_INIT;
	const char *out_path = NULL;
	int c, rc;

	optind = 1;
	while ((c = cli_getopt(&cli_cmd_folded, argc, argv, "i:lo:h", longopts)) != -1) {
		if (cli_symbolize_opt(c, optarg, &sopts))
			continue;
		switch (c) {
		case 'i':
			if ((rc = cli_sample_index(&cli_cmd_folded, optarg, &fopts.sample_index)) != 0)
				return rc;
			break;
		case 'l': fopts.lines = 1; break;
		case 'o': out_path = optarg; break;
		case 'h': return cli_help(&cli_cmd_folded);
		default: return CLI_EXIT_USAGE;
		}
	}
	return cli_one_dump(&cli_cmd_folded, argc, argv, &sopts, out_path, write_folded, &fopts);
}
