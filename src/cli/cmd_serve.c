/*
 * cmd_serve.c: `ying serve [--http ADDR] DIR|DUMP...|URL`, the live page
 * and the endpoint's JSON API over files, offline, like `go tool pprof
 * -http`: a report directory of `ying run --report-dir`, dump files, or a
 * live endpoint's heap fetched now and then.  A thin caller of
 * ying_http_serve_files: parse the options, start, print the URL on
 * standard error ("ying serve: http://127.0.0.1:PORT/"), wait for SIGINT
 * or SIGTERM, stop.  The doors are the agent's (loopback by default,
 * owner-only without a token, --token-file, Host and Origin rules).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char usage_text[] =
    "usage: ying serve [options] DIR|DUMP...|URL\n"
    "\n"
    "Serve the live page and the endpoint's JSON API (ying-http(7)) over files,\n"
    "offline, with no process to profile: memory over time (one point per dump),\n"
    "the top table and flame graph of any dump, the diff of any two, the leak\n"
    "verdicts over all of them.  DIR is a report directory of `ying run\n"
    "--report-dir` (or any directory of heap dumps; a file there that is not a\n"
    "dump is skipped with a warning, and new dumps appear as they are written),\n"
    "DUMP... dump files (heap_v2, gzipped or not, or pprof), URL a live\n"
    "endpoint whose heap is fetched every --every seconds.  The URL is printed on\n"
    "standard error: \"ying serve: http://127.0.0.1:PORT/\".  SIGINT or SIGTERM\n"
    "stops it.\n"
    "\n"
    "      --http ADDR          listen on ADDR (HOST:PORT, :PORT, unix:/PATH;\n"
    "                           default 127.0.0.1:0, a free port)\n"
    "      --token-file FILE    require 'Authorization: Bearer T', T the first\n"
    "                           line of FILE (without it: only your own user)\n"
    "      --allow-host NAME    also serve requests whose Host is NAME\n"
    "      --url-token-file FILE  bearer token sent when fetching URL\n"
    "      --every S            seconds between fetches of URL (default 10)\n"
    "      --keep N             dumps of URL kept in memory (default 60)\n"
    "      --log                one line per request on standard error\n"
    "  -h, --help               this text\n"
    "\n"
    "Exit status: 0 after SIGINT or SIGTERM, 1 on an error (an input that is not\n"
    "a dump, an address in use), 2 on a usage error.\n";

static int serve_main(int argc, char **argv);

const cli_cmd cli_cmd_serve = {
	"serve", "the live page over dumps or a report directory, offline", usage_text,
	serve_main
};

enum { OPT_HTTP = 256, OPT_TOKEN_FILE, OPT_ALLOW_HOST, OPT_URL_TOKEN_FILE, OPT_EVERY,
	OPT_KEEP, OPT_LOG };

static volatile sig_atomic_t stop_sig;

static void
on_signal(int sig)
{
	stop_sig = sig;
}

static void
wipe(char *s)
{
	if (s != NULL) {
		memset(s, 0, strlen(s));
		free(s);
	}
}

/* "ying serve: http://HOST:PORT/" with the host of --http (a wildcard
 * address: loopback, where a browser here reaches it). */
static void
print_url(const char *bind, int port)
{
	const char *colon;
	size_t n;

	if (port <= 0) {        /* unix:/PATH */
		fprintf(stderr, "%s: %s\n", cli_prog, bind);
		return;
	}
	if (bind[0] == '[') {
		n = strcspn(bind, "]") + 1;
		if (strncmp(bind, "[::]", 4) == 0)
			bind = "[::1]", n = 5;
	} else {
		colon = strrchr(bind, ':');
		n = colon ? (size_t)(colon - bind) : strlen(bind);
		if (n == 0 || (n == 7 && strncmp(bind, "0.0.0.0", 7) == 0))
			bind = "127.0.0.1", n = 9;
	}
	fprintf(stderr, "%s: http://%.*s:%d/\n", cli_prog, (int)n, bind, port);
}

static int
serve_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "http", required_argument, NULL, OPT_HTTP },
		{ "token-file", required_argument, NULL, OPT_TOKEN_FILE },
		{ "allow-host", required_argument, NULL, OPT_ALLOW_HOST },
		{ "url-token-file", required_argument, NULL, OPT_URL_TOKEN_FILE },
		{ "every", required_argument, NULL, OPT_EVERY },
		{ "keep", required_argument, NULL, OPT_KEEP },
		{ "log", no_argument, NULL, OPT_LOG },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	ying_http_opts ho = YING_HTTP_OPTS_INIT;
	ying_serve_opts so = YING_SERVE_OPTS_INIT;
	const char *token_file = NULL, *url_token_file = NULL, *frames = NULL;
	char *token = NULL, *url_token = NULL, *end;
	ying_http *h = NULL;
	struct sigaction sa;
	sigset_t set, old;
	int c, rc, status = CLI_EXIT_ERR;
	unsigned long keep;

	optind = 1;
	ho.bind = "127.0.0.1:0";
	while ((c = cli_getopt(&cli_cmd_serve, argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case OPT_HTTP: ho.bind = optarg; break;
		case OPT_TOKEN_FILE: token_file = optarg; break;
		case OPT_ALLOW_HOST: ho.allow_hosts = optarg; break;
		case OPT_URL_TOKEN_FILE: url_token_file = optarg; break;
		case OPT_LOG: ho.log = stderr; break;
		case OPT_EVERY:
			errno = 0;
			so.every = strtod(optarg, &end);
			if (*optarg < '0' || *optarg > '9' || *end != '\0' || errno != 0 ||
			    !(so.every >= 0.1 && so.every <= 86400))
				return cli_usage_error(&cli_cmd_serve, "--every: expected seconds "
				    "from 0.1 to 86400, not '%s'", optarg);
			break;
		case OPT_KEEP:
			errno = 0;
			keep = strtoul(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end != '\0' || errno != 0 ||
			    keep < 2 || keep > 100000)
				return cli_usage_error(&cli_cmd_serve, "--keep: expected a count "
				    "from 2 to 100000, not '%s'", optarg);
			so.max_dumps = (unsigned)keep;
			break;
		case 'h': return cli_help(&cli_cmd_serve);
		default: return CLI_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return cli_usage_error(&cli_cmd_serve, "no input given (a report directory, "
		    "dump files or a URL)");
	if (cli_frames(&frames) != 0)
		return CLI_EXIT_ERR;
	ho.frames = frames;
	if (token_file && (token = cli_read_secret_file("--token-file", token_file)) == NULL)
		return CLI_EXIT_ERR;
	if (url_token_file && (url_token = cli_read_secret_file("--url-token-file",
	    url_token_file)) == NULL)
		goto out;
	ho.token = token;
	so.url_token = url_token;
	so.warn = stderr;
	/* the signals that stop us, blocked before any thread starts */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigprocmask(SIG_BLOCK, &set, &old);
	rc = ying_http_serve_files(&h, &ho, (const char *const *)argv + optind,
	    (size_t)(argc - optind), &so);
	if (rc != 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		status = cli_fail(rc, argc - optind == 1 ? argv[optind] : "cannot serve");
		goto out;
	}
	print_url(ho.bind, ying_http_port(h));
	fflush(stderr);
	while (!stop_sig)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
	ying_http_stop(h);
	status = CLI_EXIT_OK;
out:
	wipe(token);
	wipe(url_token);
	return status;
}
