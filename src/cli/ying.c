/*
 * ying.c: the `ying` front end: a table of subcommands.
 *
 * `ying <command> [options] ...` dispatches to the entry of that name; each
 * lives in its own src/cli/cmd_*.c and is a thin caller of libying.  The
 * program also answers to the name `yingdiff` (installed as a link or a
 * separate binary) by running `ying diff`.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const cli_cmd *const cmds[] = {
	&cli_cmd_top,
	/* formats area */
	&cli_cmd_pprof,
	&cli_cmd_folded, &cli_cmd_flamegraph,
	&cli_cmd_callgraph,
	/* diff area */
	&cli_cmd_diff,
	&cli_cmd_leaks,       /* verdicts over a series (issue 28) */
	&cli_cmd_serve,       /* the live page over files (issue 29) */
	/* control area */
	/* agent area */
	&cli_cmd_run,
	/* Pyroscope */
	&cli_cmd_upload,
	&cli_cmd_lifetimes,   /* lifetimes (issue 15) */
	/* SQLite */
	&cli_cmd_sql,
	&cli_cmd_memory,
	NULL
};

static int
usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: ying <command> [options] ...\n\n"
	    "jemalloc-native heap profiling (libying %s).\n\ncommands:\n", ying_version());
	for (i = 0; cmds[i]; i++)
		fprintf(f, "  %-12s %s\n", cmds[i]->name, cmds[i]->summary);
	fprintf(f, "\n`ying <command> --help` shows a command's options; `man ying` has more.\n");
	return f == stdout ? CLI_EXIT_OK : CLI_EXIT_USAGE;
}

int
main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	size_t i;

	base = base ? base + 1 : argv[0];
	if (strcmp(base, "yingdiff") == 0) {
		for (i = 0; cmds[i]; i++) {
			if (strcmp(cmds[i]->name, "diff") == 0) {
				cli_prog = "yingdiff";
				return cmds[i]->main(argc, argv);
			}
		}
	}
	if (argc < 2) {
		fprintf(stderr, "ying: no command given (one of:");
		for (i = 0; cmds[i]; i++)
			fprintf(stderr, " %s", cmds[i]->name);
		fprintf(stderr, ")\nsee 'ying --help'\n");
		return CLI_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0)
		return usage(stdout);
	if (strcmp(argv[1], "--version") == 0) {
		printf("ying %s\n", ying_version());
		return 0;
	}
	for (i = 0; cmds[i]; i++) {
		if (strcmp(cmds[i]->name, argv[1]) == 0) {
			static char prog[64];
			snprintf(prog, sizeof(prog), "ying %s", cmds[i]->name);
			cli_prog = prog;
			return cmds[i]->main(argc - 1, argv + 1);
		}
	}
	fprintf(stderr, "ying: unknown command '%s'\nsee 'ying --help'\n", argv[1]);
	return CLI_EXIT_USAGE;
}
