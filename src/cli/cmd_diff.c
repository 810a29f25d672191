/*
 * cmd_diff.c: `yingdiff BASE NOW` (also `ying diff`): what grew between two
 * heap dumps.
 *
 * A thin caller of the ying_diff_* API: load both dumps, symbolize them
 * with one shared symbolizer (each with its own --binary), build the diff,
 * then write the report (text, --json or --folded) and any --svg / --pprof
 * files.  --fail-over turns it into a CI gate: exit 3 when the total growth
 * is above the threshold (after everything was written).
 */
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fe.h"

static const char usage_text[] =
    "usage: yingdiff [options] BASE NOW\n"
    "       ying diff [options] BASE NOW\n"
    "\n"
    "Show what grew between two jemalloc heap dumps (heap_v2, plain or gzipped,\n"
    "or pprof files written by ying).  Each dump is unsampled at its own rate;\n"
    "stacks are matched by symbolized function and file, so dumps of different\n"
    "processes of the same build diff correctly.\n"
    "\n"
    "  -i, --sample-index IDX   inuse_space (default), inuse_objects,\n"
    "                           alloc_space, alloc_objects (need prof_accum)\n"
    "  -n, --limit N            rows per section (default 20; --json: all rows,\n"
    "                           100 stacks per stack list); 0 = all\n"
    "      --min-delta SIZE     hide rows whose flat change (--cum: cumulative\n"
    "                           change; stacks: change) is below SIZE (e.g. 64KiB)\n"
    "      --cum                rank and list functions by their cumulative change\n"
    "                           (default: flat, what they allocated themselves)\n"
    "      --significant        hide rows and stacks whose change is within\n"
    "                           sampling noise (every delta carries its 95 %\n"
    "                           interval from jemalloc's sampling; text marks\n"
    "                           changes within noise with ~)\n"
    "      --lines              one row per function and source line\n"
    "      --stacks             one row per stack\n"
    "      --json               one JSON object instead of text\n"
    "      --folded             two-column folded stacks (\"stack base now\")\n"
    "      --svg FILE           also write a differential flame graph\n"
    "      --title TEXT         title of the flame graph\n"
    "      --pprof FILE         also write NOW minus BASE as a gzipped pprof profile\n"
    "      --fail-over SIZE     exit 3 when the total growth exceeds SIZE (CI gate)\n"
    "      --focus REGEX        only stacks with a frame matching REGEX\n"
    "      --ignore REGEX       drop stacks with a frame matching REGEX\n"
    "      --binary PATH        the program's executable (both dumps)\n"
    "      --base-binary PATH   the executable of BASE, when it differs\n"
    "      --binary-path DIRS   look for the mapped files in DIRS (':'-separated;\n"
    "                           default $YING_BINARY_PATH) before the dumps' paths\n"
    "      --drop-frames REGEX  also trim leading frames matching REGEX\n"
    "      --keep-allocator-frames  do not trim malloc/jemalloc/wrapper frames\n"
    CLI_HEAP_USAGE
    CLI_NAMES_USAGE
    "  -o, --output FILE        write the report to FILE instead of standard output\n"
    "  -q, --quiet              no report (with --svg, --pprof or --fail-over), no hint\n"
    CLI_FETCH_USAGE
    "  -h, --help               this text\n"
    "\n"
    "Exit status: 0 ok, 1 error, 2 usage error, 3 growth above --fail-over.\n";

static int diff_main(int argc, char **argv);

const cli_cmd cli_cmd_diff = {
	"diff", "show what grew between two dumps (also: yingdiff)", usage_text, diff_main
};

enum { OPT_MIN_DELTA = 256, OPT_LINES, OPT_STACKS, OPT_JSON, OPT_FOLDED, OPT_SVG,
	OPT_TITLE, OPT_PPROF, OPT_FAIL_OVER, OPT_FOCUS, OPT_IGNORE, OPT_BINARY,
	OPT_BASE_BINARY, OPT_DROP, OPT_KEEP, OPT_CUM, OPT_SIGNIFICANT };

/* Write one output file (or "-" = stdout) with a diff writer. */
typedef int (*writer_fn)(ying_diff *d, const void *opts, ying_write_fn fn, void *opaque);

static int
svg_writer(ying_diff *d, const void *opts, ying_write_fn fn, void *opaque)
{
	return ying_diff_write_svg(d, opts, fn, opaque);
}

static int
pprof_writer(ying_diff *d, const void *opts, ying_write_fn fn, void *opaque)
{
	return ying_diff_write_pprof(d, opts, fn, opaque);
}

static int
text_writer(ying_diff *d, const void *opts, ying_write_fn fn, void *opaque)
{
	return ying_diff_write_text(d, opts, fn, opaque);
}

static int
folded_writer(ying_diff *d, const void *opts, ying_write_fn fn, void *opaque)
{
	(void)opts;
	return ying_diff_write_folded(d, fn, opaque);
}

static int
write_to(const char *path, ying_diff *d, writer_fn w, const void *opts, const char *what)
{
	cli_output out;
	int rc;

	if (cli_open_output(&out, path) != 0)
		return CLI_EXIT_ERR;
	rc = w(d, opts, ying_write_file, out.f);
	if (rc != 0)
		cli_fail(rc, what);
	rc = cli_close_output(&out, rc);
	return rc ? CLI_EXIT_ERR : CLI_EXIT_OK;
}

static int
parse_size_opt(const char *opt, const char *arg, double *out)
{
	char why[400];

	if (yfe_parse_size(opt, arg, 0, out, why, sizeof(why)) != 0) {
		cli_usage_error(&cli_cmd_diff, "%s", why);
		return -1;
	}
	return 0;
}

static int
symbolize(ying_profile *p, ying_symbolizer *sym, const ying_symbolize_opts *o)
{
	int rc = ying_profile_symbolize(p, sym, o);

	if (rc != 0)
		return cli_fail(rc, "cannot symbolize");
	return 0;
}

static int
diff_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "sample-index", required_argument, NULL, 'i' },
		{ "limit", required_argument, NULL, 'n' },
		{ "min-delta", required_argument, NULL, OPT_MIN_DELTA },
		{ "lines", no_argument, NULL, OPT_LINES },
		{ "stacks", no_argument, NULL, OPT_STACKS },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "title", required_argument, NULL, OPT_TITLE },
		{ "pprof", required_argument, NULL, OPT_PPROF },
		{ "fail-over", required_argument, NULL, OPT_FAIL_OVER },
		{ "focus", required_argument, NULL, OPT_FOCUS },
		{ "ignore", required_argument, NULL, OPT_IGNORE },
		{ "binary", required_argument, NULL, OPT_BINARY },
		{ "base-binary", required_argument, NULL, OPT_BASE_BINARY },
		{ "binary-path", required_argument, NULL, CLI_OPT_BINARY_PATH },
		{ "drop-frames", required_argument, NULL, OPT_DROP },
		{ "keep-allocator-frames", no_argument, NULL, OPT_KEEP },
		{ "cum", no_argument, NULL, OPT_CUM },
		{ "significant", no_argument, NULL, OPT_SIGNIFICANT },
		CLI_NAMES_OPTION,
		CLI_HEAP_OPTION,
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		CLI_FETCH_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	ying_diff_build_opts bopts = YING_DIFF_BUILD_OPTS_INIT;
	ying_diff_opts dopts = YING_DIFF_OPTS_INIT;
	ying_symbolize_opts sopts = YING_SYMBOLIZE_OPTS_INIT, bsopts;
	ying_svg_opts svgopts = YING_SVG_OPTS_INIT;
	ying_pprof_opts popts = YING_PPROF_OPTS_INIT;
	const char *out_path = NULL, *svg_path = NULL, *pprof_path = NULL;
	const char *base_binary = NULL;
	ying_profile *base = NULL, *now = NULL;
	ying_symbolizer *sym = NULL;
	ying_diff *d = NULL;
	double fail_over = -1, tb, tn, delta;
	int c, rc, status = CLI_EXIT_OK, folded = 0, quiet = 0, hint = 1;
	char *end;
	long limit;

	optind = 1;
	while ((c = cli_getopt(&cli_cmd_diff, argc, argv, "i:n:o:qh", longopts)) != -1) {
		switch (c) {
		case 'i':
			if (cli_sample_index(&cli_cmd_diff, optarg, &bopts.sample_index) != 0)
				return CLI_EXIT_USAGE;
			break;
		case 'n':
			limit = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end || limit < 0)
				return cli_usage_error(&cli_cmd_diff, "-n wants a number >= 0, not '%s'", optarg);
			dopts.limit = limit == 0 ? SIZE_MAX : (size_t)limit;
			break;
		case OPT_MIN_DELTA:
			if (parse_size_opt("--min-delta", optarg, &dopts.min_delta) != 0)
				return CLI_EXIT_USAGE;
			break;
		case OPT_LINES: dopts.granularity = YING_BY_LINE; break;
		case OPT_STACKS: dopts.granularity = YING_BY_STACK; break;
		case OPT_JSON: dopts.json = 1; break;
		case OPT_FOLDED: folded = 1; break;
		case OPT_SVG: svg_path = optarg; break;
		case OPT_TITLE: svgopts.title = optarg; break;
		case OPT_PPROF: pprof_path = optarg; break;
		case OPT_FAIL_OVER:
			if (parse_size_opt("--fail-over", optarg, &fail_over) != 0)
				return CLI_EXIT_USAGE;
			break;
		case OPT_FOCUS: bopts.focus = optarg; break;
		case OPT_IGNORE: bopts.ignore = optarg; break;
		case OPT_BINARY: sopts.binary = optarg; break;
		case OPT_BASE_BINARY: base_binary = optarg; break;
		case CLI_OPT_BINARY_PATH: sopts.search_path = optarg; break;
		case OPT_DROP: sopts.drop_frames = optarg; break;
		case OPT_KEEP: sopts.keep_allocator_frames = 1; break;
		case OPT_CUM: dopts.cum = 1; break;
		case OPT_SIGNIFICANT: dopts.significant = 1; break;
		case CLI_OPT_FULL_NAMES: sopts.full_names = 1; break;
		case CLI_OPT_HEAP: cli_heap = optarg; break;
		case 'o': out_path = optarg; break;
		case 'q': quiet = 1; hint = 0; break;
		case 'h': return cli_help(&cli_cmd_diff);
		default: return CLI_EXIT_USAGE;
		}
	}
	if (argc - optind != 2)
		return cli_usage_error(&cli_cmd_diff, argc - optind < 2 ?
		    "need two dumps: BASE NOW" : "too many arguments (need two dumps: BASE NOW)");
	if (folded && dopts.json)
		return cli_usage_error(&cli_cmd_diff, "--folded and --json exclude each other");
	if (quiet && out_path)
		return cli_usage_error(&cli_cmd_diff, "-q and -o exclude each other");
	/* an image on standard output replaces the report */
	if ((svg_path && strcmp(svg_path, "-") == 0) || (pprof_path && strcmp(pprof_path, "-") == 0)) {
		if (out_path == NULL || strcmp(out_path, "-") == 0)
			quiet = 1;
		if (svg_path && pprof_path && strcmp(svg_path, pprof_path) == 0)
			return cli_usage_error(&cli_cmd_diff, "--svg and --pprof both on standard output");
	}

	if ((base = cli_load(argv[optind])) == NULL ||
	    (now = cli_load(argv[optind + 1])) == NULL) {
		status = CLI_EXIT_ERR;
		goto done;
	}
	if ((rc = ying_symbolizer_new(&sym)) != 0) {
		status = cli_fail(rc, "cannot create a symbolizer");
		goto done;
	}
	if (cli_symbolize_env(&sopts) != 0) {
		status = CLI_EXIT_ERR;
		goto done;
	}
	bsopts = sopts;
	if (base_binary)
		bsopts.binary = base_binary;
	if ((status = symbolize(base, sym, &bsopts)) != 0 ||
	    (status = symbolize(now, sym, &sopts)) != 0)
		goto done;
	if (hint)       /* on NOW: what the heap is made of now */
		cli_hint(now, bopts.sample_index);
	if ((rc = ying_diff_build(&d, base, now, &bopts)) != 0) {
		status = rc == YING_EINVAL ? cli_usage_error(&cli_cmd_diff, "%s", ying_last_error()) :
		    cli_fail(rc, "cannot diff");
		goto done;
	}
	if (ying_diff_warning(d) != NULL)
		fprintf(stderr, "%s: warning: %s\n", cli_prog, ying_diff_warning(d));
	if (!quiet && (status = write_to(out_path, d, folded ? folded_writer : text_writer,
	    &dopts, "cannot write the report")) != 0)
		goto done;
	if (svg_path && (status = write_to(svg_path, d, svg_writer, &svgopts,
	    "cannot write the flame graph")) != 0)
		goto done;
	if (pprof_path && (status = write_to(pprof_path, d, pprof_writer, &popts,
	    "cannot write the pprof profile")) != 0)
		goto done;
	ying_diff_totals(&tb, &tn, &delta, d);
	if (fail_over >= 0 && delta > fail_over) {
		fprintf(stderr, "%s: growth %.0f %s exceeds --fail-over %.0f\n", cli_prog, delta,
		    bopts.sample_index == YING_INUSE_SPACE || bopts.sample_index == YING_ALLOC_SPACE ?
		    "bytes" : "objects", fail_over);
		status = CLI_EXIT_THRESHOLD;
	}
done:
	ying_diff_free(d);
	ying_symbolizer_free(sym);
	ying_profile_free(base);
	ying_profile_free(now);
	return status;
}
