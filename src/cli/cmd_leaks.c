/*
 * cmd_leaks.c: `ying leaks DIR|DUMP...|DB|URL`, a verdict per call site
 * over a series of dumps (leak, filled, churn, released; ying(1) LEAKS has
 * the statistics).  A thin caller of ying_leaks_*: gather the dumps (a
 * report directory's *.heap files by modification time, several dump
 * files, a `ying sql` database through ying_sql_leaks_add, or an endpoint
 * fetched --count times --every S seconds), symbolize each with one shared
 * symbolizer, add it at its time (a file's mtime to the nanosecond, a
 * fetch's clock), compute, print, and exit 3 under --fail-on when a site
 * has that verdict.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"

static const char usage_text[] =
    "usage: ying leaks [options] DIR|DB|DUMP...\n"
    "       ying leaks [options] --count N [--every S] URL\n"
    "\n"
    "Per call site (the first function after the allocator frames, the function\n"
    "rows of `ying top`; --stacks: per stack), how its live bytes moved over a\n"
    "series of dumps: the growth rate in bytes per hour with its 95 % interval\n"
    "(least squares over time; the error from the residuals plus jemalloc's\n"
    "sampling variance), the fit's r2 and a verdict, ranked by rate:\n"
    "  leak      steady growth that does not level off\n"
    "  filled    grew, then levelled off (a cache or a pool reached its size)\n"
    "  churn     no significant trend\n"
    "  released  a significant decrease\n"
    "  unknown   too few dumps (4 for a trend, 6 to tell leak from filled)\n"
    "DIR is a report directory of `ying run` (its *.heap dumps, by modification\n"
    "time), DB a database of `ying sql`, DUMP... several dumps (each at its\n"
    "modification time), URL an endpoint's heap dump, fetched N times.\n"
    "\n"
    "      --count N            fetch URL N times (2 to 100000)\n"
    "      --every S            seconds between fetches (default 10)\n"
    "      --stacks             one site per whole stack\n"
    "      --json               one JSON object instead of the table\n"
    "  -n, --limit N            sites listed (default all)\n"
    "      --fail-on VERDICT    exit 3 when a site has VERDICT (leak, filled,\n"
    "                           churn, released, unknown); repeatable\n"
    "  -o, --output FILE        write to FILE (default: standard output)\n"
    CLI_SYMBOLIZE_USAGE
    "      --keep-allocator-frames  keep malloc/jemalloc/wrapper frames at the leaf\n"
    CLI_NAMES_USAGE
    CLI_FETCH_USAGE
    "  -h, --help               this text\n"
    "\n"
    "Exit status: 0, 1 on an error, 2 on a usage error, 3 when --fail-on matched.\n";

static int leaks_main(int argc, char **argv);

const cli_cmd cli_cmd_leaks = {
	"leaks", "leak, filled, churn or released per call site over dumps", usage_text,
	leaks_main
};

enum { OPT_STACKS = 256, OPT_JSON, OPT_FAIL_ON, OPT_COUNT, OPT_EVERY };

typedef struct dump_file {
	char *path;
	double t;       /* mtime, seconds with the nanoseconds */
} dump_file;

static int
file_cmp(const void *x, const void *y)
{
	const dump_file *a = x, *b = y;

	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return strcmp(a->path, b->path);
}

static double
mtime_of(const struct stat *sb)
{
	return (double)sb->st_mtim.tv_sec + (double)sb->st_mtim.tv_nsec / 1e9;
}

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A database of `ying sql`: a regular file starting with SQLite's magic. */
static bool
is_sqlite(const char *path)
{
	static const char magic[16] = "SQLite format 3";
	char head[16];
	FILE *f;
	bool yes;

	if (cli_is_url(path) || strcmp(path, "-") == 0 || (f = fopen(path, "rb")) == NULL)
		return false;
	yes = fread(head, 1, sizeof(head), f) == sizeof(head) &&
	    memcmp(head, magic, sizeof(magic)) == 0;
	fclose(f);
	return yes;
}

/* The *.heap files of dir into *files (malloc'd paths), by mtime. */
static int
list_dir(const char *dir, dump_file **files, size_t *n)
{
	DIR *d;
	struct dirent *e;
	size_t cap = 0;

	*files = NULL;
	*n = 0;
	if ((d = opendir(dir)) == NULL) {
		fprintf(stderr, "%s: %s: cannot open the directory: %s\n", cli_prog, dir,
		    strerror(errno));
		return CLI_EXIT_ERR;
	}
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		struct stat sb;
		char *p;

		if (len <= 5 || strcmp(e->d_name + len - 5, ".heap") != 0 || e->d_name[0] == '.')
			continue;
		if ((p = malloc(strlen(dir) + len + 2)) == NULL)
			goto oom;
		sprintf(p, "%s/%s", dir, e->d_name);
		if (stat(p, &sb) != 0 || !S_ISREG(sb.st_mode)) {
			free(p);
			continue;
		}
		if (*n == cap) {
			dump_file *nf;
			cap = cap ? 2 * cap : 64;
			if ((nf = realloc(*files, cap * sizeof(*nf))) == NULL) {
				free(p);
				goto oom;
			}
			*files = nf;
		}
		(*files)[*n].path = p;
		(*files)[(*n)++].t = mtime_of(&sb);
	}
	closedir(d);
	if (*n == 0) {
		fprintf(stderr, "%s: %s: no dumps (a report directory of `ying run` holds "
		    "ying.TIME.SIZE.heap files)\n", cli_prog, dir);
		return CLI_EXIT_ERR;
	}
	qsort(*files, *n, sizeof(**files), file_cmp);
	return 0;
oom:
	closedir(d);
	fprintf(stderr, "%s: out of memory listing %s\n", cli_prog, dir);
	return CLI_EXIT_ERR;
}

/* Load, symbolize and add one dump at time t (NaN: the profile's time). */
static int
add_one(ying_leaks *l, const char *path, double t, ying_symbolizer *sym,
    const ying_symbolize_opts *sopts)
{
	ying_profile *p;
	int rc;

	if ((p = cli_load(path)) == NULL)
		return CLI_EXIT_ERR;
	if (isnan(t))
		t = cli_is_url(path) ? now_seconds() : (double)ying_profile_time(p);
	if ((rc = ying_profile_symbolize(p, sym, sopts)) != 0) {
		ying_profile_free(p);
		return cli_fail(rc, "cannot symbolize");
	}
	rc = ying_leaks_add_at(l, p, t);
	ying_profile_free(p);
	return rc != 0 ? cli_fail(rc, path) : 0;
}

static int
add_db(ying_leaks *l, const char *path)
{
	ying_sql *db = NULL;
	int rc;

	if ((rc = ying_sql_open(&db, path)) != 0)
		return cli_fail(rc, path);
	rc = ying_sql_leaks_add(l, db);
	ying_sql_close(db);
	return rc != 0 ? cli_fail(rc, path) : 0;
}

static int
add_inputs(ying_leaks *l, int argc, char **argv, unsigned long count, double every,
    ying_symbolizer *sym, const ying_symbolize_opts *sopts)
{
	struct stat sb;
	int i, status;

	if (count > 0) {
		unsigned long k;
		for (k = 0; k < count; k++) {
			if (k > 0) {
				struct timespec ts;
				ts.tv_sec = (time_t)every;
				ts.tv_nsec = (long)((every - (double)ts.tv_sec) * 1e9);
				while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
					;
			}
			if ((status = add_one(l, argv[0], NAN, sym, sopts)) != 0)
				return status;
		}
		return 0;
	}
	if (argc == 1 && stat(argv[0], &sb) == 0 && S_ISDIR(sb.st_mode)) {
		dump_file *files;
		size_t n, k;
		if ((status = list_dir(argv[0], &files, &n)) != 0)
			return status;
		for (k = 0; k < n && status == 0; k++)
			status = add_one(l, files[k].path, files[k].t, sym, sopts);
		for (k = 0; k < n; k++)
			free(files[k].path);
		free(files);
		return status;
	}
	if (argc == 1 && is_sqlite(argv[0]))
		return add_db(l, argv[0]);
	for (i = 0; i < argc; i++) {
		double t = NAN;
		if (strcmp(argv[i], "-") != 0 && !cli_is_url(argv[i]) && stat(argv[i], &sb) == 0) {
			if (S_ISDIR(sb.st_mode) || is_sqlite(argv[i]))
				return cli_usage_error(&cli_cmd_leaks, "%s: a directory or a "
				    "database is the only input, not one of several", argv[i]);
			t = mtime_of(&sb);
		}
		if ((status = add_one(l, argv[i], t, sym, sopts)) != 0)
			return status;
	}
	return 0;
}

static int
leaks_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "every", required_argument, NULL, OPT_EVERY },
		{ "stacks", no_argument, NULL, OPT_STACKS },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "limit", required_argument, NULL, 'n' },
		{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
		{ "output", required_argument, NULL, 'o' },
		CLI_SYMBOLIZE_OPTIONS,
		CLI_NAMES_OPTION,
		CLI_FETCH_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	ying_symbolize_opts sopts = YING_SYMBOLIZE_OPTS_INIT;
	const char *out_path = NULL;
	ying_symbolizer *sym = NULL;
	ying_leaks *l = NULL;
	ying_leaks_verdict v;
	unsigned fail_on = 0;
	unsigned long count = 0, limit = 0;
	double every = 10;
	int c, rc, json = 0, stacks = 0, status;
	bool every_set = false;
	cli_output out;
	char *end;

	optind = 1;
	while ((c = cli_getopt(&cli_cmd_leaks, argc, argv, "n:o:h", longopts)) != -1) {
		if (cli_symbolize_opt(c, optarg, &sopts))
			continue;
		switch (c) {
		case 'n':
		case OPT_COUNT:
			errno = 0;
			limit = strtoul(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end != '\0' || errno != 0 ||
			    limit > 100000 || (c == OPT_COUNT && limit < 2))
				return cli_usage_error(&cli_cmd_leaks, "%s: expected a count "
				    "from %d to 100000, not '%s'", c == 'n' ? "--limit" : "--count",
				    c == 'n' ? 0 : 2, optarg);
			if (c == OPT_COUNT) {
				count = limit;
				limit = 0;
			}
			break;
		case OPT_EVERY:
			errno = 0;
			every = strtod(optarg, &end);
			if (*optarg < '0' || *optarg > '9' || *end != '\0' || errno != 0 ||
			    !(every >= 0.01 && every <= 86400))
				return cli_usage_error(&cli_cmd_leaks, "--every: expected seconds "
				    "from 0.01 to 86400, not '%s'", optarg);
			every_set = true;
			break;
		case OPT_FAIL_ON:
			if (ying_leaks_verdict_parse(&v, optarg) != 0)
				return cli_usage_error(&cli_cmd_leaks, "--fail-on: %s",
				    ying_last_error());
			fail_on |= 1u << v;
			break;
		case OPT_STACKS: stacks = 1; break;
		case OPT_JSON: json = 1; break;
		case 'o': out_path = optarg; break;
		case 'h': return cli_help(&cli_cmd_leaks);
		default: return CLI_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return cli_usage_error(&cli_cmd_leaks, "no dumps given");
	if (count > 0 && (optind + 1 != argc || !cli_is_url(argv[optind])))
		return cli_usage_error(&cli_cmd_leaks, "--count takes one http(s):// URL");
	if (count == 0 && every_set)
		return cli_usage_error(&cli_cmd_leaks, "--every needs --count N and a URL");
	if (count == 0 && optind + 1 == argc && cli_is_url(argv[optind]))
		return cli_usage_error(&cli_cmd_leaks, "a URL needs --count N (how many "
		    "dumps to take, --every S seconds apart)");
	if ((rc = ying_leaks_new(&l, stacks)) != 0)
		return cli_fail(rc, "cannot start a series");
	if ((rc = ying_symbolizer_new(&sym)) != 0) {
		status = cli_fail(rc, "cannot create a symbolizer");
		goto out;
	}
	if (cli_symbolize_env(&sopts) != 0) {
		status = CLI_EXIT_ERR;
		goto out;
	}
	if ((status = add_inputs(l, argc - optind, argv + optind, count, every, sym,
	    &sopts)) != 0)
		goto out;
	if ((rc = ying_leaks_compute(l)) != 0) {
		status = cli_fail(rc, "cannot compute the verdicts");
		goto out;
	}
	if ((rc = cli_open_output(&out, out_path)) != 0) {
		status = cli_fail(rc, out_path ? out_path : "standard output");
		goto out;
	}
	rc = ying_leaks_write(l, json, limit, ying_write_file, out.f);
	if ((rc = cli_close_output(&out, rc)) != 0) {
		status = cli_fail(rc, out_path ? out_path : "standard output");
		goto out;
	}
	status = CLI_EXIT_OK;
	for (c = 0; c <= YING_LEAKS_RELEASED; c++)
		if ((fail_on & (1u << c)) && ying_leaks_any(l, (ying_leaks_verdict)c)) {
			fprintf(stderr, "%s: a site has the verdict %s (--fail-on)\n", cli_prog,
			    ying_leaks_verdict_name((ying_leaks_verdict)c));
			status = CLI_EXIT_THRESHOLD;
			break;
		}
out:
	ying_symbolizer_free(sym);
	ying_leaks_free(l);
	return status;
}
