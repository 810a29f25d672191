/*
 * cmd_pprof.c: `ying pprof`, a jemalloc heap dump as a pprof profile.
 *
 * The output is what `go tool pprof` and Grafana Pyroscope read: a gzipped
 * profile.proto, symbolized by ying (functions, inline frames, file:line,
 * allocator frames trimmed), or with --unsymbolized just addresses and
 * mappings, for pprof to symbolize itself against the binaries.
 * --max-samples and --max-bytes fold the least significant stacks until
 * the profile fits a receiver's limits (ying_profile_fold; a line on
 * standard error says what was folded).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fe.h"

static const char usage_text[] =
    "usage: ying pprof [options] DUMP [-o FILE]\n"
    "\n"
    "Convert a jemalloc heap dump (heap_v2, plain or gzipped) into a pprof\n"
    "profile (gzipped profile.proto) with inuse_space/inuse_objects, and\n"
    "alloc_space/alloc_objects when the dump has prof_accum data.\n"
    "Then: go tool pprof -top heap.pb.gz, or pprof -http=: heap.pb.gz.\n"
    "\n"
    "  -o, --output FILE        write FILE (default: standard output, unless it\n"
    "                           is a terminal)\n"
    "      --unsymbolized       addresses and mappings only; pprof symbolizes\n"
    "                           them from the binaries itself\n"
    "      --keep-allocator-frames  keep malloc/jemalloc/wrapper frames at the leaf\n"
    CLI_SYMBOLIZE_USAGE
    "      --no-gzip            write the protobuf uncompressed\n"
    "      --no-size-label      no numeric 'bytes' label (mean object size) on\n"
    "                           the samples\n"
    "      --max-samples N      fold the least significant stacks (under a\n"
    "                           '[ying: folded]' frame, totals unchanged) until\n"
    "                           the profile has at most N samples\n"
    "      --max-bytes SIZE     ... and its uncompressed protobuf at most SIZE\n"
    "                           (512k, 2MiB; Pyroscope: 16000 samples, 2MiB)\n"
    CLI_FETCH_USAGE
    "  -h, --help               this text\n";

static int pprof_main(int argc, char **argv);

const cli_cmd cli_cmd_pprof = {
	"pprof", "convert a heap dump to a pprof profile (.pb.gz)", usage_text, pprof_main
};

enum { OPT_UNSYM = 256, OPT_NOGZIP, OPT_NO_SIZE_LABEL, OPT_MAX_SAMPLES, OPT_MAX_BYTES };

typedef struct pprof_cli {
	ying_pprof_opts po;
	ying_fold_opts fo;      /* fold when a limit is set */
} pprof_cli;

static int
write_pprof(const ying_profile *p, const void *o, ying_write_fn fn, void *opaque)
{
	const pprof_cli *c = o;
	ying_fold_opts fo = c->fo;
	ying_fold_stats st;
	ying_profile *q = NULL;
	int rc;

	if (fo.max_samples == 0 && fo.max_bytes == 0)
		return ying_profile_write_pprof(p, &c->po, fn, opaque);
	fo.pprof = &c->po;
	if ((rc = ying_profile_fold(&q, p, &fo, &st)) != 0)
		return rc;
	if (q == NULL)
		return ying_profile_write_pprof(p, &c->po, fn, opaque);
	fprintf(stderr, "ying pprof: folded %zu of %zu stacks at depth %u (%.1f%% of "
	    "inuse_space) to fit: %zu samples, %zu bytes uncompressed\n", st.stacks_folded,
	    st.samples_in, st.depth, 100 * st.folded_share, st.samples_out, st.bytes_out);
	rc = ying_profile_write_pprof(q, &c->po, fn, opaque);
	ying_profile_free(q);
	return rc;
}

/* --max-samples N, --max-bytes SIZE (0, no limit, is refused: a typo). */
static int
limit_opt(const char *opt, const char *arg, bool size, size_t *out)
{
	char why[400];
	double v;

	if (size ? yfe_parse_size(opt, arg, 1, &v, why, sizeof(why)) != 0 :
	    yfe_num_parse(arg, YI_NUM_COUNT, 1, 1e15, &v, why, sizeof(why)) != 0) {
		if (size)
			cli_usage_error(&cli_cmd_pprof, "%s", why);
		else
			cli_usage_error(&cli_cmd_pprof, "%s %.64s: %s", opt, arg, why);
		return -1;
	}
	*out = (size_t)v;
	return 0;
}

static int
pprof_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "unsymbolized", no_argument, NULL, OPT_UNSYM },
		CLI_SYMBOLIZE_OPTIONS,
		{ "no-gzip", no_argument, NULL, OPT_NOGZIP },
		{ "no-size-label", no_argument, NULL, OPT_NO_SIZE_LABEL },
		{ "max-samples", required_argument, NULL, OPT_MAX_SAMPLES },
		{ "max-bytes", required_argument, NULL, OPT_MAX_BYTES },
		{ "help", no_argument, NULL, 'h' },
		CLI_FETCH_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	pprof_cli pc = { YING_PPROF_OPTS_INIT, YING_FOLD_OPTS_INIT };
	ying_pprof_opts *popts = &pc.po;
	ying_symbolize_opts sopts = YING_SYMBOLIZE_OPTS_INIT;
	const char *out_path = NULL;
	int c;

	optind = 1;
	while ((c = cli_getopt(&cli_cmd_pprof, argc, argv, "o:h", longopts)) != -1) {
		if (cli_symbolize_opt(c, optarg, &sopts))
			continue;
		switch (c) {
		case 'o': out_path = optarg; break;
		case OPT_UNSYM: popts->unsymbolized = 1; break;
		case OPT_NOGZIP: popts->gzip = 0; break;
		case OPT_NO_SIZE_LABEL: popts->no_size_label = 1; break;
		case OPT_MAX_SAMPLES:
			if (limit_opt("--max-samples", optarg, false, &pc.fo.max_samples) != 0)
				return CLI_EXIT_USAGE;
			break;
		case OPT_MAX_BYTES:
			if (limit_opt("--max-bytes", optarg, true, &pc.fo.max_bytes) != 0)
				return CLI_EXIT_USAGE;
			break;
		case 'h': return cli_help(&cli_cmd_pprof);
		default: return CLI_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error(&cli_cmd_pprof, optind == argc ? "no dump given" :
		    "one dump at a time");
	if ((out_path == NULL || strcmp(out_path, "-") == 0) && isatty(STDOUT_FILENO))
		return cli_usage_error(&cli_cmd_pprof, "refusing to write a binary profile "
		    "to a terminal; use -o FILE or redirect standard output");

	/* --unsymbolized without symbolization: nothing is trimmed, and pprof
	 * is not asked to drop the allocator frames either (the one use left
	 * of the pprof option; trimming is the symbolization step's). */
	if (popts->unsymbolized && sopts.keep_allocator_frames)
		popts->keep_allocator_frames = 1;
	/* Symbolize here, not in the writer, so that warnings (a moved binary)
	 * reach the user and the options apply.  --unsymbolized skips it unless
	 * an option asks for symbol-dependent work (trimming by regex, another
	 * binary). */
	return cli_one_dump(&cli_cmd_pprof, argc, argv,
	    !popts->unsymbolized || sopts.binary || sopts.search_path || sopts.drop_frames ?
	    &sopts : NULL,
	    out_path, write_pprof, &pc);
}
