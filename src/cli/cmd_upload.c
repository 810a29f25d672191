/*
 * cmd_upload.c: `ying upload --url URL [--service NAME] [--tag K=V ...]
 * [--api push|ingest] FILE...`: send heap dumps or pprof files to Grafana
 * Pyroscope once each (report directories, CI artifacts).
 *
 * A thin caller of ying_pyroscope_upload: every FILE (a heap_v2 dump or a
 * pprof file, plain or gzipped, or an http(s):// URL like every reading
 * command) is read, symbolized like `ying pprof` does (one symbolizer for
 * all of them, warnings on stderr) and uploaded as its own profile, with
 * the file's time (--time file), oldest first, or shifted so that the newest is stamped
 * now and the spacing is kept (--time now), folded to the server's limits
 * by the library.  A file older than the server's window (--max-age,
 * default 1 h) is refused with the way out.  With cumulative counts, a
 * dump's alloc_* become what was allocated since the FILE before it when
 * that one is an older dump of the same program (a report directory of
 * one run), as the continuous uploader sends them.  Secrets come from
 * files or the environment, never from the command line.  A file that
 * cannot be read or sent is named with the reason (the HTTP status and
 * the server's message); the others are still sent, and the exit status
 * is 1.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "fe.h"

static const char usage_text[] =
    "usage: ying upload --url URL [options] FILE...\n"
    "\n"
    "Upload heap dumps (heap_v2) or pprof files to Grafana Pyroscope, each as\n"
    "one profile of the service's series (labels __name__=memory, service_name,\n"
    "the tags, hostname), oldest first.  With cumulative counts (--accum), a dump's alloc_*\n"
    "are sent as what was allocated since the FILE before it, when that is an\n"
    "older dump of the same program.\n"
    "\n"
    "      --url URL            the Pyroscope server (http://HOST:4040, https://...)\n"
    "      --service NAME       service_name (default: the profile's program name)\n"
    "      --tag K=V            a label (repeatable)\n"
    "      --api push|ingest    the push API (default) or the legacy /ingest\n"
    "      --hostname NAME      the hostname label: the host the dumps come from\n"
    "                           (default: this machine's name)\n"
    "      --time file|now      stamp each profile with its file's time (default),\n"
    "                           or shift them all so the newest is stamped now\n"
    "                           (the spacing is kept; each profile keeps its dump\n"
    "                           time as a comment)\n"
    "      --max-age S          refuse a profile older than S seconds (default\n"
    "                           3600: Pyroscope's reject-older-than; 0: never)\n"
    "      --pyroscope-max-samples N  fold profiles to at most N samples\n"
    "                           (default 16000, Pyroscope's samples_limit)\n"
    "      --pyroscope-max-bytes SIZE fold profiles to SIZE uncompressed with their\n"
    "                           labels (default 2MiB, Pyroscope's ingestion burst)\n"
    "      --pyroscope-user USER             basic auth user\n"
    "      --pyroscope-password-file FILE    basic auth password (first line)\n"
    "      --pyroscope-token-file FILE       bearer token (first line)\n"
    "      --pyroscope-tenant ID             X-Scope-OrgID\n"
    "      --pyroscope-header 'NAME: VALUE'  an extra header (repeatable)\n"
    "      --upload-timeout S   seconds per request (default 10)\n"
    "      --retries N          retries on 429, 5xx and network errors (default 4)\n"
    "      --binary PATH        the program's executable, if it moved since the dump\n"
    "      --binary-path DIRS   look for the mapped files in DIRS (':'-separated)\n"
    "  -v, --verbose            a line per file sent\n"
    CLI_FETCH_USAGE
    "  -h, --help               this text\n"
    "\n"
    "Environment: YING_PYROSCOPE_PASSWORD, YING_PYROSCOPE_TOKEN (instead of the\n"
    "files), YING_BINARY_PATH.\n";

static int upload_main(int argc, char **argv);

const cli_cmd cli_cmd_upload = {
	"upload", "upload heap dumps or pprof files to Grafana Pyroscope", usage_text,
	upload_main
};

enum {
	OPT_URL = 256, OPT_SERVICE, OPT_TAG, OPT_API, OPT_USER, OPT_PASSWORD_FILE,
	OPT_TOKEN_FILE, OPT_TENANT, OPT_UP_TIMEOUT, OPT_RETRIES, OPT_BINARY, OPT_HEADER,
	OPT_HOSTNAME, OPT_TIME, OPT_MAX_AGE, OPT_MAX_SAMPLES, OPT_MAX_BYTES
};

static void
wipe(char *s)
{
	if (s) {
		memset(s, 0, strlen(s));
		free(s);
	}
}

/* The program's name as a service name (ying_pyroscope_check's set). */
static void
service_from(const ying_profile *p, char *out, size_t n)
{
	const char *prog = ying_profile_program(p), *b = strrchr(prog, '/');
	size_t i;

	b = b ? b + 1 : prog;
	for (i = 0; b[i] && i + 1 < n && i < 128; i++)
		out[i] = (strchr("_./-", b[i]) || (b[i] >= 'a' && b[i] <= 'z') ||
		    (b[i] >= 'A' && b[i] <= 'Z') || (b[i] >= '0' && b[i] <= '9')) ? b[i] : '_';
	out[i] = '\0';
	if (i == 0)
		snprintf(out, n, "unknown");
}

/* A FILE argument and its dump time, to send them oldest first. */
typedef struct upload_file {
	int arg;
	int64_t time;
} upload_file;

static int
by_time(const void *a, const void *b)
{
	const upload_file *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->arg - y->arg;     /* ties: command-line order */
}

static int
upload_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "url", required_argument, NULL, OPT_URL },
		{ "service", required_argument, NULL, OPT_SERVICE },
		{ "tag", required_argument, NULL, OPT_TAG },
		{ "api", required_argument, NULL, OPT_API },
		{ "pyroscope-user", required_argument, NULL, OPT_USER },
		{ "pyroscope-password-file", required_argument, NULL, OPT_PASSWORD_FILE },
		{ "pyroscope-token-file", required_argument, NULL, OPT_TOKEN_FILE },
		{ "pyroscope-tenant", required_argument, NULL, OPT_TENANT },
		{ "pyroscope-header", required_argument, NULL, OPT_HEADER },
		{ "upload-timeout", required_argument, NULL, OPT_UP_TIMEOUT },
		{ "retries", required_argument, NULL, OPT_RETRIES },
		{ "binary", required_argument, NULL, OPT_BINARY },
		{ "hostname", required_argument, NULL, OPT_HOSTNAME },
		{ "time", required_argument, NULL, OPT_TIME },
		{ "max-age", required_argument, NULL, OPT_MAX_AGE },
		{ "pyroscope-max-samples", required_argument, NULL, OPT_MAX_SAMPLES },
		{ "pyroscope-max-bytes", required_argument, NULL, OPT_MAX_BYTES },
		{ "binary-path", required_argument, NULL, CLI_OPT_BINARY_PATH },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		CLI_FETCH_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	ying_pyroscope_opts o = YING_PYROSCOPE_OPTS_INIT;
	ying_symbolize_opts so = YING_SYMBOLIZE_OPTS_INIT;
	const char *password_file = NULL, *token_file = NULL, *e;
	char svc[160], *password = NULL, *token = NULL, *end;
	cli_pyro_lists pl;
	ying_symbolizer *sym = NULL;
	ying_profile *prev = NULL;
	int c, rc, status = CLI_EXIT_OK, verbose = 0, time_now = 0, nf;
	int64_t shift = 0, newest = 0;
	upload_file *order = NULL;
	char why[256];
	double d;
	long n;

	memset(&pl, 0, sizeof(pl));
	optind = 1;
	while ((c = cli_getopt(&cli_cmd_upload, argc, argv, "vh", longopts)) != -1) {
		switch (c) {
		case OPT_URL: o.url = optarg; break;
		case OPT_SERVICE: o.service = optarg; break;
		case OPT_TAG:
		case OPT_HEADER:
			if ((rc = cli_pyro_list_add(&cli_cmd_upload, &pl, c == OPT_HEADER,
			    optarg)) != 0)
				return rc;
			break;
		case OPT_API: o.api = optarg; break;
		case OPT_USER: o.user = optarg; break;
		case OPT_PASSWORD_FILE: password_file = optarg; break;
		case OPT_TOKEN_FILE: token_file = optarg; break;
		case OPT_TENANT: o.tenant = optarg; break;
		case OPT_UP_TIMEOUT:
			o.timeout = strtod(optarg, &end);
			if (end == optarg || *end || !(o.timeout >= 0.01 && o.timeout <= 3600))
				return cli_usage_error(&cli_cmd_upload, "--upload-timeout %s: "
				    "expected seconds (0.01 to 3600)", optarg);
			break;
		case OPT_RETRIES:
			n = strtol(optarg, &end, 10);
			if (end == optarg || *end || n < 0 || n > 100)
				return cli_usage_error(&cli_cmd_upload, "--retries %s: expected "
				    "0 to 100", optarg);
			o.retries = n == 0 ? -1 : (int)n;
			break;
		case OPT_BINARY: so.binary = optarg; break;
		case OPT_HOSTNAME: o.hostname = optarg; break;
		case OPT_TIME:
			if (strcmp(optarg, "now") == 0)
				time_now = 1;
			else if (strcmp(optarg, "file") == 0)
				time_now = 0;
			else
				return cli_usage_error(&cli_cmd_upload, "--time %s: expected file "
				    "or now", optarg);
			break;
		case OPT_MAX_AGE:
			d = strtod(optarg, &end);
			if (end == optarg || *end || !(d >= 0 && d <= 1e10))
				return cli_usage_error(&cli_cmd_upload, "--max-age %s: expected "
				    "seconds (0: never refuse)", optarg);
			o.max_age = d == 0 ? -1 : d;
			break;
		case OPT_MAX_SAMPLES:
			n = strtol(optarg, &end, 10);
			if (end == optarg || *end || n < 1 || n > 10000000)
				return cli_usage_error(&cli_cmd_upload, "--pyroscope-max-samples "
				    "%s: expected 1 to 10000000", optarg);
			o.max_samples = (size_t)n;
			break;
		case OPT_MAX_BYTES:
			if (yfe_parse_size("--pyroscope-max-bytes", optarg, 4096, &d, why,
			    sizeof(why)) != 0 || d > (double)((size_t)1 << 30))
				return cli_usage_error(&cli_cmd_upload, "%s", d > (double)((size_t)1 << 30) ?
				    "--pyroscope-max-bytes: at most 1GiB" : why);
			o.max_bytes = (size_t)d;
			break;
		case CLI_OPT_BINARY_PATH: so.search_path = optarg; break;
		case 'v': verbose = 1; break;
		case 'h': return cli_help(&cli_cmd_upload);
		default: return CLI_EXIT_USAGE;
		}
	}
	if (o.url == NULL)
		return cli_usage_error(&cli_cmd_upload, "no --url given (the Pyroscope server)");
	if (optind >= argc)
		return cli_usage_error(&cli_cmd_upload, "no file given");
	if (password_file && o.user == NULL)
		return cli_usage_error(&cli_cmd_upload, "--pyroscope-password-file needs "
		    "--pyroscope-user");
	cli_pyro_lists_apply(&pl, &o);
	if (so.search_path == NULL && (e = getenv("YING_BINARY_PATH")) != NULL && *e)
		so.search_path = e;
	so.debuginfod = cli_debuginfod();
	if (cli_frames(&so.frames) != 0)
		return CLI_EXIT_ERR;
	/* the options without the secrets first: a usage error is exit 2 */
	o.password = password_file || getenv("YING_PYROSCOPE_PASSWORD") ? "x" : NULL;
	o.token = token_file || getenv("YING_PYROSCOPE_TOKEN") ? "x" : NULL;
	if (o.password && o.user == NULL)
		o.password = NULL;
	if (ying_pyroscope_check(&o) != 0)
		return cli_usage_error(&cli_cmd_upload, "%s", ying_last_error());
	if (password_file) {
		if ((password = cli_read_secret_file("--pyroscope-password-file",
		    password_file)) == NULL)
			return CLI_EXIT_ERR;
	} else if (o.password && (password = strdup(getenv("YING_PYROSCOPE_PASSWORD"))) == NULL) {
		return cli_fail(YING_ENOMEM, "out of memory");
	}
	if (token_file) {
		if ((token = cli_read_secret_file("--pyroscope-token-file", token_file)) == NULL) {
			wipe(password);
			return CLI_EXIT_ERR;
		}
	} else if (o.token && (token = strdup(getenv("YING_PYROSCOPE_TOKEN"))) == NULL) {
		wipe(password);
		return cli_fail(YING_ENOMEM, "out of memory");
	}
	o.password = password;
	o.token = token;
	so.warnings = stderr;
	if ((rc = ying_symbolizer_new(&sym)) != 0) {
		wipe(password);
		wipe(token);
		return cli_fail(rc, "symbolizer");
	}
	/* several files: sent in the order of their dump times (a report
	 * directory's alloc_* are taken since the dump before), the newest
	 * stamped now with --time now */
	nf = argc - optind;
	if ((order = calloc((size_t)nf, sizeof(*order))) == NULL) {
		ying_symbolizer_free(sym);
		wipe(password);
		wipe(token);
		return cli_fail(YING_ENOMEM, "out of memory");
	}
	for (int i = 0; i < nf; i++) {
		order[i].arg = optind + i;
		order[i].time = 0;
		if (nf > 1 || time_now) {
			ying_profile *p = cli_load(argv[optind + i]);
			order[i].time = p ? ying_profile_time(p) : 0;
			if (order[i].time > newest)
				newest = order[i].time;
			ying_profile_free(p);
		}
	}
	qsort(order, (size_t)nf, sizeof(*order), by_time);
	if (time_now && newest > 0)
		shift = (int64_t)time(NULL) - newest;
	for (int k = 0; k < nf; k++) {
		const char *path = argv[order[k].arg];
		ying_profile *p = cli_load(path);
		const char *given = o.service;
		size_t changed = 0;

		if (p == NULL) {
			status = CLI_EXIT_ERR;
			continue;
		}
		if (given == NULL) {
			service_from(p, svc, sizeof(svc));
			o.service = svc;
		}
		/* alloc_* since the dump before, when it is an older one of the
		 * same program (a report directory of one run) */
		if (prev && strcmp(ying_profile_program(prev), ying_profile_program(p)) == 0 &&
		    ying_profile_time(prev) <= ying_profile_time(p) &&
		    ying_profile_subtract_alloc(p, prev, &changed) != 0)
			changed = 0;    /* not two dumps (a pprof file): sent as it is */
		if ((rc = ying_profile_symbolize(p, sym, &so)) != 0) {
			fprintf(stderr, "%s: %s: %s\n", cli_prog, path, ying_last_error());
			status = CLI_EXIT_ERR;
		} else if ((rc = ying_pyroscope_upload(&o, p, 0, shift && ying_profile_time(p) > 0 ?
		    (double)(ying_profile_time(p) + shift) : 0)) != 0) {
			fprintf(stderr, "%s: %s: not uploaded: %s\n", cli_prog, path,
			    ying_last_error());
			status = CLI_EXIT_ERR;
		} else if (verbose) {
			fprintf(stderr, "%s: %s: uploaded as %s%s\n", cli_prog, path, o.service,
			    changed ? " (alloc_* since the dump before)" : "");
		}
		o.service = given;
		ying_profile_free(prev);
		prev = p;
	}
	ying_profile_free(prev);
	free(order);
	ying_symbolizer_free(sym);
	wipe(password);
	wipe(token);
	return status;
}
