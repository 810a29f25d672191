/*
 * cmd_serve_exec.c: `ying serve` in ying itself runs the program
 * ying-serve (src/cli/ying_serve.c, the command's real code in
 * cmd_serve.c) with the same arguments.  The offline server is the
 * agent's HTTP server (libmicrohttpd and its TLS stack); ying-serve links
 * it so that ying, whose every other command starts in milliseconds and
 * whose `ying run --http` checks its address with plain sockets, does not
 * (tests/integration/run_http_fail.sh checks it).
 *
 * ying-serve is looked for next to the running ying (the build tree, or
 * the bin directory it was installed to), then on PATH.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char usage_text[] =
    "usage: ying serve [options] DIR|DUMP...|URL\n"
    "\n"
    "The live page over files, offline (runs ying-serve; `ying serve --help`\n"
    "lists its options).\n";

static int
serve_exec(int argc, char **argv)
{
	char self[PATH_MAX], path[PATH_MAX + 16], **args;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int i;

	if ((args = calloc((size_t)argc + 1, sizeof(*args))) == NULL) {
		fprintf(stderr, "%s: out of memory\n", cli_prog);
		return CLI_EXIT_ERR;
	}
	args[0] = "ying-serve";
	for (i = 1; i < argc; i++)
		args[i] = argv[i];
	if (n > 0) {
		char *slash;
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			snprintf(path, sizeof(path), "%s/ying-serve", self);
			execv(path, args);
		}
	}
	execvp("ying-serve", args);
	fprintf(stderr, "%s: cannot run ying-serve (next to this ying, or on PATH): %s\n",
	    cli_prog, strerror(errno));
	free(args);
	return CLI_EXIT_ERR;
}

const cli_cmd cli_cmd_serve = {
	"serve", "the live page over dumps or a report directory, offline", usage_text,
	serve_exec
};
