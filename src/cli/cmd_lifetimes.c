/*
 * cmd_lifetimes.c: `ying lifetimes`, how long the recent sampled
 * allocations of a capture lived, per call site.
 *
 * Reads a recent-allocation capture (ying's, from GET /debug/heap/recent or
 * ying_ctl_recent_dump; jemalloc's raw prof_recent JSON; or a prof log),
 * symbolizes its stacks and prints the lifetime histogram of each call
 * site (ying_recent_write_lifetimes), and with --svg also writes it as an
 * SVG chart.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage_text[] =
    "usage: ying lifetimes [options] CAPTURE.json\n"
    "\n"
    "Per call site (the allocation stack's first function after the allocator\n"
    "frames), how long the recent sampled allocations of a capture lived: counts\n"
    "in the buckets <1ms, <10ms, <100ms, <1s, <10s, <100s, >=100s and live (not\n"
    "freed at capture), sorted by bytes.  CAPTURE is ying's capture (GET\n"
    "/debug/heap/recent, ying_ctl_recent_dump), jemalloc's prof_recent JSON or\n"
    "its prof log (plain or gzipped; - reads standard input).\n"
    "\n"
    "  -n, --top N              call sites listed (default 20)\n"
    "      --stacks             group by whole allocation stack\n"
    "      --json               one JSON object instead of the table\n"
    "      --svg FILE           also write the chart as a self-contained SVG\n"
    "  -o, --output FILE        write the table to FILE (default: standard output)\n"
    "      --binary PATH        the program's executable, if it moved since the capture\n"
    "      --binary-path DIRS   look for the mapped files in DIRS (':'-separated;\n"
    "                           default $YING_BINARY_PATH) before the capture\'s paths\n"
    "      --keep-allocator-frames  keep malloc/jemalloc/wrapper frames at the leaf\n"
    CLI_NAMES_USAGE
    "  -h, --help               this text\n";

static int lifetimes_main(int argc, char **argv);

const cli_cmd cli_cmd_lifetimes = {
	"lifetimes", "lifetimes of recent allocations per call site", usage_text,
	lifetimes_main
};

enum { OPT_STACKS = 256, OPT_JSON, OPT_SVG };

typedef int (*lt_write_fn)(const ying_recent *r, const ying_lifetimes_opts *opts,
    ying_write_fn fn, void *opaque);

/* Write r with `write` to path (NULL or "-": standard output), atomically;
 * returns the exit status (the error said). */
static int
write_out(const ying_recent *r, const ying_lifetimes_opts *opts, const char *path,
    lt_write_fn write)
{
	const char *name = path ? path : "standard output";
	cli_output out;
	int rc;

	if ((rc = cli_open_output(&out, path)) != 0)
		return cli_fail(rc, name);
	rc = write(r, opts, ying_write_file, out.f);
	if ((rc = cli_close_output(&out, rc)) != 0)
		return cli_fail(rc, name);
	return CLI_EXIT_OK;
}

static int
lifetimes_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "top", required_argument, NULL, 'n' },
		{ "stacks", no_argument, NULL, OPT_STACKS },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "output", required_argument, NULL, 'o' },
		{ "binary", required_argument, NULL, CLI_OPT_BINARY },
		{ "binary-path", required_argument, NULL, CLI_OPT_BINARY_PATH },
		{ "keep-allocator-frames", no_argument, NULL, CLI_OPT_KEEP_ALLOCATOR_FRAMES },
		CLI_NAMES_OPTION,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	ying_lifetimes_opts lopts = YING_LIFETIMES_OPTS_INIT;
	ying_symbolize_opts sopts = YING_SYMBOLIZE_OPTS_INIT;
	const char *out_path = NULL, *svg_path = NULL;
	ying_recent *r = NULL;
	char *end;
	unsigned long n;
	int c, rc;

	optind = 1;
	while ((c = cli_getopt(&cli_cmd_lifetimes, argc, argv, "n:o:h", longopts)) != -1) {
		if (cli_symbolize_opt(c, optarg, &sopts))
			continue;
		switch (c) {
		case 'n':
			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (*optarg == '\0' || *optarg == '-' || *end != '\0' || errno != 0 ||
			    n == 0 || n > 1000000)
				return cli_usage_error(&cli_cmd_lifetimes, "--top: expected a "
				    "count from 1 to 1000000, not '%s'", optarg);
			lopts.top = n;
			break;
		case OPT_STACKS: lopts.stacks = 1; break;
		case OPT_JSON: lopts.json = 1; break;
		case OPT_SVG: svg_path = optarg; break;
		case 'o': out_path = optarg; break;
		case 'h': return cli_help(&cli_cmd_lifetimes);
		default: return CLI_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return cli_usage_error(&cli_cmd_lifetimes, "no capture given");
	if (optind + 1 < argc)
		return cli_usage_error(&cli_cmd_lifetimes, "one capture only (got '%s' too)",
		    argv[optind + 1]);
	if ((rc = ying_recent_read_file(&r, argv[optind])) != 0)
		return cli_fail(rc, argv[optind]);
	if (cli_symbolize_env(&sopts) != 0) {
		ying_recent_free(r);
		return CLI_EXIT_ERR;
	}
	if ((rc = ying_recent_symbolize(r, NULL, &sopts)) != 0) {
		ying_recent_free(r);
		return cli_fail(rc, "cannot symbolize");
	}
	rc = CLI_EXIT_OK;
	if (svg_path != NULL)
		rc = write_out(r, &lopts, svg_path, ying_recent_write_lifetimes_svg);
	if (rc == CLI_EXIT_OK)
		rc = write_out(r, &lopts, out_path, ying_recent_write_lifetimes);
	ying_recent_free(r);
	return rc;
}
