/*
 * cmd_sql.c: `ying sql -o DB DUMP|DIR|URL...`, dumps into a SQLite
 * database (docs/sql.md has the schema and queries).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage_text[] =
    "usage: ying sql -o DB [options] [--recent FILE]... [--giant FILE]...\n"
    "                [DUMP|DIR|URL]...\n"
    "\n"
    "Import heap dumps into the SQLite database DB (created when missing):\n"
    "dumps, their symbolized stacks and frames, samples (raw and unsampled\n"
    "like jeprof), threads and mappings, and views for the usual questions\n"
    "(docs/sql.md).  A DIR is a report directory of `ying run`: all its dumps,\n"
    "in time order, with their giant allocations (BASE.giant.json) and recent\n"
    "records (BASE.recent.json).  A dump already in DB is skipped (said on\n"
    "stderr).  Every heap of a dump of several heaps is imported, each sample\n"
    "with its heap (samples.heap; --heap is refused).\n"
    "Each dump is one transaction: a failure leaves nothing of that dump.\n"
    "\n"
    "  -o, --output DB          the database file (required)\n"
    CLI_SYMBOLIZE_USAGE_NO_HEAP
    "      --keep-allocator-frames  do not trim malloc/jemalloc/wrapper frames\n"
    "      --recent FILE        also import recent-allocation records (a capture of\n"
    "                           GET /debug/heap/recent, jemalloc's prof_recent or\n"
    "                           prof log JSON) into allocations; repeatable\n"
    "      --giant FILE         also import a giant-allocation listing (GET\n"
    "                           /debug/heap/giant, a report's .giant.json); repeatable\n"
    "  -q, --quiet              no summary line\n"
    CLI_FETCH_USAGE
    "  -h, --help               this text\n";

static int sql_main(int argc, char **argv);

const cli_cmd cli_cmd_sql = {
	"sql", "import dumps into a SQLite database", usage_text, sql_main
};

enum { OPT_RECENT = 256, OPT_GIANT };

#define MAX_RECENT 64

static int
is_url(const char *s)
{
	return strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0;
}

/* Append FILE of --recent or --giant (opt) to list; 0 or the usage error. */
static int
add_file(const char **list, size_t *n, const char *opt, const char *arg)
{
	if (*n == MAX_RECENT)
		return cli_usage_error(&cli_cmd_sql, "more than %d %s files", MAX_RECENT, opt);
	list[(*n)++] = arg;
	return 0;
}

static int
sql_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		CLI_SYMBOLIZE_OPTIONS,
		{ "recent", required_argument, NULL, OPT_RECENT },
		{ "giant", required_argument, NULL, OPT_GIANT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		CLI_FETCH_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	ying_symbolize_opts sopts = YING_SYMBOLIZE_OPTS_INIT;
	ying_sql_import_opts io = YING_SQL_IMPORT_OPTS_INIT;
	ying_sql_stats st = { 0, 0, 0, 0, 0 };
	ying_symbolizer *sym = NULL;
	ying_sql *db = NULL;
	const char *out_path = NULL;
	const char *recent[MAX_RECENT], *giant[MAX_RECENT];
	size_t nrecent = 0, ngiant = 0;
	int c, rc = 0, quiet = 0, status = CLI_EXIT_OK;

	optind = 1;
	while ((c = cli_getopt(&cli_cmd_sql, argc, argv, "o:qh", longopts)) != -1) {
		if (cli_symbolize_opt(c, optarg, &sopts))
			continue;
		switch (c) {
		case 'o': out_path = optarg; break;
		case OPT_RECENT:
			if ((rc = add_file(recent, &nrecent, "--recent", optarg)) != 0)
				return rc;
			break;
		case OPT_GIANT:
			if ((rc = add_file(giant, &ngiant, "--giant", optarg)) != 0)
				return rc;
			break;
		case 'q': quiet = 1; break;
		case 'h': return cli_help(&cli_cmd_sql);
		default: return CLI_EXIT_USAGE;
		}
	}
	if (out_path == NULL || out_path[0] == '\0')
		return cli_usage_error(&cli_cmd_sql, "-o DB is required");
	if (cli_heap != NULL)   /* the symbolize options bring it */
		return cli_usage_error(&cli_cmd_sql, "--heap: every heap is imported, each "
		    "sample with its heap (query WHERE heap = '%s')", cli_heap);
	if (optind >= argc && nrecent == 0 && ngiant == 0)
		return cli_usage_error(&cli_cmd_sql, "nothing to import (DUMP, DIR, URL, "
		    "--recent FILE or --giant FILE)");
	if (cli_symbolize_env(&sopts) != 0)
		return CLI_EXIT_ERR;
	io.symbolize = &sopts;
	io.messages = stderr;

	if ((rc = ying_symbolizer_new(&sym)) != 0)
		return cli_fail(rc, "cannot create a symbolizer");
	io.symbolizer = sym;
	if ((rc = ying_sql_open(&db, out_path)) != 0) {
		ying_symbolizer_free(sym);
		return cli_fail(rc, out_path);
	}
	for (int i = optind; i < argc && status == CLI_EXIT_OK; i++) {
		const char *in = argv[i];
		if (is_url(in)) {
			ying_profile *p = cli_load(in);
			if (p == NULL) {
				status = CLI_EXIT_ERR;
				break;
			}
			rc = ying_sql_import_profile(db, p, in, &io, &st);
			ying_profile_free(p);
		} else {
			rc = ying_sql_import_path(db, in, &io, &st);
		}
		if (rc == YING_EINVAL && sopts.drop_frames != NULL)
			status = cli_usage_error(&cli_cmd_sql, "%s", ying_last_error());
		else if (rc != 0)
			status = cli_fail(rc, in);
	}
	for (size_t i = 0; i < nrecent && status == CLI_EXIT_OK; i++) {
		if ((rc = ying_sql_import_recent(db, recent[i], &io, &st)) != 0)
			status = cli_fail(rc, recent[i]);
	}
	for (size_t i = 0; i < ngiant && status == CLI_EXIT_OK; i++) {
		if ((rc = ying_sql_import_giant(db, giant[i], &io, &st)) != 0)
			status = cli_fail(rc, giant[i]);
	}
	ying_sql_close(db);
	ying_symbolizer_free(sym);
	if (!quiet && (st.dumps_added || st.dumps_skipped))
		printf("%s: %zu added (%zu new stacks, %zu rows), %zu skipped\n",
		    out_path, st.dumps_added,
		    st.stacks_added, st.samples_added, st.dumps_skipped);
	return status;
}
