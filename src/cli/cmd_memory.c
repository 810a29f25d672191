/*
 * cmd_memory.c: `ying memory URL|PID`, where a process's RSS goes.
 *
 * A URL is an endpoint of ying's agent: its /debug/memory is fetched
 * (text, or JSON with --json), which has jemalloc's and glibc's counters
 * read inside the process.  A PID is read from /proc here
 * (ying_memory_get): the kernel's side only, since another process's
 * allocator counters can only be read in it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage_text[] =
    "usage: ying memory [options] URL|PID\n"
    "\n"
    "Where a process's resident memory goes: parts that sum to its RSS (jemalloc's\n"
    "live heap, thread caches, fragmentation per size class, dirty and muzzy pages,\n"
    "metadata; glibc's heap; thread stacks; file mappings; other anonymous memory),\n"
    "what is mapped but not resident, the cgroup's usage and limit, and advice for\n"
    "each large part.  URL: a ying endpoint (http://HOST:PORT, its /debug/memory is\n"
    "read; ?pid=N asks another process of the service).  PID: read from /proc by\n"
    "this command, without the allocators' counters (those need the endpoint).\n"
    "\n"
    "      --json               the JSON object (ying-memory/1) instead of text\n"
    "      --no-sites           URL: take no heap dump (no call sites per class)\n"
    "  -o, --output FILE        write FILE (default: standard output)\n"
    CLI_FETCH_USAGE
    "  -h, --help               this text\n";

static int memory_main(int argc, char **argv);

const cli_cmd cli_cmd_memory = {
	"memory", "where the RSS goes (parts summing to it, advice)", usage_text,
	memory_main
};

enum { OPT_JSON = 256, OPT_NO_SITES };

/* URL's /debug/memory with format and sites added: the path is
 * /debug/memory unless the URL names one; its query is kept. */
static char *
memory_url(const char *url, bool json, bool sites)
{
	const char *hs = strstr(url, "://") + 3;
	const char *path = hs + strcspn(hs, "/?#");
	const char *query = strchr(path, '?');
	size_t n = strlen(url) + 64;
	char *u = malloc(n);
	int w;

	if (u == NULL)
		return NULL;
	if (*path == '\0' || *path == '?' || strcmp(path, "/") == 0 ||
	    strncmp(path, "/?", 2) == 0)
		w = snprintf(u, n, "%.*s/debug/memory?%s%sformat=%s&sites=%d",
		    (int)(path - url), url, query ? query + 1 : "", query && query[1] ?
		    "&" : "", json ? "json" : "text", sites ? 1 : 0);
	else
		w = snprintf(u, n, "%s%sformat=%s&sites=%d", url, query ? (query[1] ?
		    "&" : "") : "?", json ? "json" : "text", sites ? 1 : 0);
	if (w < 0 || (size_t)w >= n) {
		free(u);
		return NULL;
	}
	return u;
}

static int
from_url(const char *url, bool json, bool sites, cli_output *out)
{
	char *u, *body = NULL;
	size_t len = 0;
	int rc;

	if ((u = memory_url(url, json, sites)) == NULL)
		return cli_fail(YING_ENOMEM, "building the URL"), 1;
	rc = cli_fetch_body(u, &body, &len);
	free(u);
	if (rc != 0)
		return cli_fail(rc, "cannot read the memory breakdown"), 1;
	rc = ying_write_file(out->f, body, len);
	ying_free(body);
	return rc;
}

static int
from_pid(long pid, bool json, cli_output *out)
{
	ying_memory_opts mo = YING_MEMORY_OPTS_INIT;
	ying_memory *m;
	int rc;

	mo.pid = pid;
	if ((rc = ying_memory_get(&m, &mo)) != 0)
		return cli_fail(rc, "cannot read the memory breakdown"), 1;
	rc = json ? ying_memory_write_json(m, ying_write_file, out->f) :
	    ying_memory_write_text(m, 0, ying_write_file, out->f);
	ying_memory_free(m);
	return rc;
}

static int
memory_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "no-sites", no_argument, NULL, OPT_NO_SITES },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		CLI_FETCH_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	const char *out_path = NULL, *what;
	bool json = false, sites = true;
	cli_output out;
	long pid = 0;
	char *end;
	int c, rc;

	while ((c = cli_getopt(&cli_cmd_memory, argc, argv, "o:h", longopts)) != -1) {
		switch (c) {
		case OPT_JSON:
			json = true;
			break;
		case OPT_NO_SITES:
			sites = false;
			break;
		case 'o':
			out_path = optarg;
			break;
		case 'h':
			return cli_help(&cli_cmd_memory);
		default:
			return CLI_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error(&cli_cmd_memory, optind == argc ?
		    "give a URL or a PID" : "one URL or PID, not %d operands",
		    argc - optind);
	what = argv[optind];
	if (!cli_is_url(what)) {
		errno = 0;
		pid = strtol(what, &end, 10);
		if (errno || end == what || *end || pid <= 0 || pid > 0x3fffffff)
			return cli_usage_error(&cli_cmd_memory, "'%s' is neither an "
			    "http(s):// URL nor a process id", what);
	}
	if ((rc = cli_open_output(&out, out_path)) != 0)
		return cli_fail(rc, out_path ? out_path : "standard output");
	rc = pid == 0 ? from_url(what, json, sites, &out) : from_pid(pid, json, &out);
	if (rc == 1) {             /* said */
		cli_close_output(&out, YING_EIO);
		return CLI_EXIT_ERR;
	}
	if ((rc = cli_close_output(&out, rc)) != 0)
		return cli_fail(rc, out_path ? out_path : "standard output");
	return CLI_EXIT_OK;
}
