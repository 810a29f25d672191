/*
 * cli.h: what every `ying` subcommand shares.
 *
 * Subcommands are entries in a table (src/cli/ying.c): a name, a one-line
 * summary, a usage text and a main function.  They are thin: parse options
 * with getopt_long, call the public libying API, print the result.  Exit
 * codes: 0 success, 1 error (bad input, I/O), 2 usage error, 3 a --fail-over
 * threshold was exceeded (yingdiff), or --fail-on matched (ying leaks).
 */
#ifndef YING_CLI_H
#define YING_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include <ying-live.h>

#include "fe_signal.h"

#define CLI_EXIT_OK 0
#define CLI_EXIT_ERR 1
#define CLI_EXIT_USAGE 2
#define CLI_EXIT_THRESHOLD 3

typedef struct cli_cmd {
	const char *name;
	const char *summary;
	const char *usage;      /* printed by --help and on usage errors */
	int (*main)(int argc, char **argv);   /* argv[0] is the command name */
} cli_cmd;

/* The program name used in messages ("ying top", "yingdiff"). */
extern const char *cli_prog;

/* Print "<prog>: <what>: <detail of the last libying error>" and return 1.
 * When the detail already starts with "<what>:" (a file name), it is not
 * repeated. */
int cli_fail(int rc, const char *what);
/* Print two lines, "<prog>: <fmt...>" and "see '<prog> --help'" (never the
 * whole usage); return CLI_EXIT_USAGE. */
int cli_usage_error(const cli_cmd *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/*
 * getopt_long for the subcommands: getopt's own messages are off; a bad
 * option (unknown, ambiguous, missing or unexpected value) is reported by
 * cli_usage_error naming the option, and '?' is returned (the caller then
 * returns CLI_EXIT_USAGE).  The options of CLI_FETCH_OPTIONS (in longopts)
 * are handled here and never returned.  shortopts may start with '+'.
 */
int cli_getopt(const cli_cmd *cmd, int argc, char **argv, const char *shortopts,
    const struct option *longopts);

/* Options of every command that reads profiles, which may be URLs:
 * --token-file FILE and --timeout SECONDS (append to a longopts table). */
enum { CLI_OPT_TOKEN_FILE = 0x1000, CLI_OPT_TIMEOUT, CLI_OPT_BINARY_PATH };
#define CLI_FETCH_OPTIONS \
	{ "token-file", required_argument, NULL, CLI_OPT_TOKEN_FILE }, \
	{ "timeout", required_argument, NULL, CLI_OPT_TIMEOUT }
/* Their lines in a usage text. */
#define CLI_FETCH_USAGE \
    "      --token-file FILE    bearer token for http(s):// inputs (first line of FILE)\n" \
    "      --timeout SECONDS    limit for fetching an http(s):// input (default 60)\n"
/* The first line of a secret's file (token, password) in a malloc'd string
 * (the caller wipes and frees it), or NULL after printing why (opt names
 * the option); warns when others may read the file. */
char *cli_read_secret_file(const char *opt, const char *path);

/* --tag K=V and --pyroscope-header 'Name: value' (repeatable), gathered for
 * ying_pyroscope_opts by `ying run` and `ying upload`: tags as "K=V,K=V",
 * headers as a NULL-terminated list and as '\n'-separated lines (for
 * YING_PYROSCOPE_HEADERS).  The strings point into argv; nothing to free. */
typedef struct cli_pyro_lists {
	char tags[2048];
	size_t tags_len;
	char headers[4097];
	size_t headers_len;
	const char *header_v[17];
	size_t nheaders;
} cli_pyro_lists;
/* Add --tag arg (header false) or --pyroscope-header arg (header true);
 * 0, or a usage error said for cmd (its exit status). */
int cli_pyro_list_add(const cli_cmd *cmd, cli_pyro_lists *l, bool header,
    const char *arg);
/* Point o->tags and o->headers at l's (NULL when none). */
void cli_pyro_lists_apply(cli_pyro_lists *l, ying_pyroscope_opts *o);
/* Print the usage of cmd to stdout; return 0. */
int cli_help(const cli_cmd *cmd);

/* Read and symbolize-ready load of a dump: a file, "-" (stdin) or an
 * http:// or https:// URL (fetched with --token-file / --timeout); prints
 * the error itself.  Returns NULL on failure; free with ying_profile_free. */
ying_profile *cli_load(const char *path);
/* GET an http(s):// URL as given (--token-file / --timeout as cli_load);
 * 0 with *out (free with ying_free) or the error code (not printed). */
int cli_fetch_body(const char *url, char **out, size_t *len);
/* path is an http:// or https:// URL. */
bool cli_is_url(const char *path);

/* Open -o PATH for writing ("-" or NULL = stdout).  Files are written to
 * an unpredictable temporary DIR/.BASE.XXXXXX next to PATH, created
 * exclusively (never through a planted link or someone else's file), and
 * renamed by cli_close_output on success, so a failed run never leaves a
 * half-written file; the result has the mode the umask gives a new file.
 * "/dev/stdout" is stdout; a FIFO or character device (directly, or through
 * a symlink root or this user owns) is written through, not replaced. */
typedef struct cli_output {
	FILE *f;
	char *path, *tmp;
} cli_output;
int cli_open_output(cli_output *o, const char *path);
/* rc: the writer's result; on failure the temp file is removed.  Returns the
 * final status (0 or a ying_err). */
int cli_close_output(cli_output *o, int rc);

/* A writer of one profile, with its own option struct behind `opts`. */
typedef int (*cli_write_fn)(const ying_profile *p, const void *opts, ying_write_fn fn,
    void *opaque);
/*
 * The rest of every one-dump command once its options are parsed: exactly
 * one DUMP operand (argv[optind]), load it, symbolize it with *sopts
 * (warnings to stderr; sopts NULL leaves it to the writer), open -o PATH,
 * write, close atomically.  A YING_EINVAL from the writer can only come
 * from an option (a bad --focus regex) and is a usage error.  Returns the
 * exit status.
 */
int cli_one_dump(const cli_cmd *cmd, int argc, char **argv,
    ying_symbolize_opts *sopts, const char *out_path, cli_write_fn write,
    const void *wopts);

/* Parse a sample index option value; prints the usage error itself. */
int cli_sample_index(const cli_cmd *cmd, const char *arg, ying_sample_index *out);

/* The symbolizer's options of the one-dump commands (append to a longopts
 * table): --binary PATH, --binary-path DIRS, --drop-frames REGEX,
 * --keep-allocator-frames.  CLI_OPT_BINARY_PATH is above. */
enum { CLI_OPT_BINARY = 0x1100, CLI_OPT_DROP_FRAMES, CLI_OPT_KEEP_ALLOCATOR_FRAMES,
	CLI_OPT_FULL_NAMES, CLI_OPT_HEAP };
/* --heap NAME: cli_load keeps that heap of every dump it loads
 * (ying_profile_keep_heap; an unknown heap is an error, exit 1).  Part of
 * CLI_SYMBOLIZE_OPTIONS (cli_symbolize_opt sets cli_heap). */
extern const char *cli_heap;
#define CLI_HEAP_OPTION { "heap", required_argument, NULL, CLI_OPT_HEAP }
#define CLI_HEAP_USAGE \
    "      --heap NAME          only the stacks of heap NAME (a dump of several heaps)\n"
#define CLI_SYMBOLIZE_OPTIONS \
	{ "binary", required_argument, NULL, CLI_OPT_BINARY }, \
	{ "binary-path", required_argument, NULL, CLI_OPT_BINARY_PATH }, \
	{ "drop-frames", required_argument, NULL, CLI_OPT_DROP_FRAMES }, \
	{ "keep-allocator-frames", no_argument, NULL, CLI_OPT_KEEP_ALLOCATOR_FRAMES }, \
	CLI_HEAP_OPTION
/* Their lines in a usage text but --keep-allocator-frames' (each command
 * words that one); _NO_HEAP for `ying sql`, which refuses --heap. */
#define CLI_SYMBOLIZE_USAGE_NO_HEAP \
    "      --binary PATH        the program's executable, if it moved since the dump\n" \
    "      --binary-path DIRS   look for the mapped files in DIRS (':'-separated;\n" \
    "                           default $YING_BINARY_PATH) before the dump\'s paths\n" \
    "      --drop-frames REGEX  also trim leading frames matching REGEX\n"
#define CLI_SYMBOLIZE_USAGE CLI_SYMBOLIZE_USAGE_NO_HEAP CLI_HEAP_USAGE
/* --full-names, for the commands that print names (top, folded,
 * flamegraph, callgraph, lifetimes, diff); cli_symbolize_opt sets it. */
#define CLI_NAMES_OPTION { "full-names", no_argument, NULL, CLI_OPT_FULL_NAMES }
#define CLI_NAMES_USAGE \
    "      --full-names         whole function names (parameters, template\n" \
    "                           arguments), not the short ones\n"
/* When c (from cli_getopt) is one of CLI_SYMBOLIZE_OPTIONS, set it in *s
 * (arg is optarg; it must outlive *s) and return true; else false. */
bool cli_symbolize_opt(int c, const char *arg, ying_symbolize_opts *s);
/* The rest of *s before symbolizing: warnings to stderr, without
 * --binary-path the directories of $YING_BINARY_PATH, debuginfod when
 * DEBUGINFOD_URLS is set (cli_debuginfod) and the user's frames. */
int cli_symbolize_env(ying_symbolize_opts *s);
/* The user's allocator frames ($XDG_CONFIG_HOME/ying/frames and
 * YING_DROP_FRAMES, fe_frames.c) as ying_symbolize_opts.frames takes them,
 * read once per run (*out: NULL when none; ours, never freed).  0, or
 * CLI_EXIT_ERR after saying which entry of which file is bad.
 * cli_symbolize_env calls it (0 or CLI_EXIT_ERR). */
int cli_frames(const char **out);
/* Print ying_profile_wrapper_hint's hint for p (symbolized) at idx to
 * stderr, with where to add the wrapper; nothing when there is none. */
void cli_hint(const ying_profile *p, ying_sample_index idx);
/* Set by a command before cli_one_dump: print the hint at this sample
 * index after symbolizing (-1, the default: none). */
extern int cli_hint_index;
/* 1 when DEBUGINFOD_URLS names a server (DEBUGINFOD_TIMEOUT defaults to 10
 * then), else 0: ying_symbolize_opts.debuginfod of a command. */
int cli_debuginfod(void);

/* Subcommand entry points (one file each under src/cli/). */
extern const cli_cmd cli_cmd_top;
extern const cli_cmd cli_cmd_diff;      /* diff area */
extern const cli_cmd cli_cmd_pprof;     /* formats area */
extern const cli_cmd cli_cmd_folded;    /* formats area */
extern const cli_cmd cli_cmd_flamegraph; /* formats area */
extern const cli_cmd cli_cmd_run;       /* agent area */
extern const cli_cmd cli_cmd_upload;    /* Pyroscope */
extern const cli_cmd cli_cmd_callgraph; /* call graph (DOT, Graphviz) */
extern const cli_cmd cli_cmd_lifetimes; /* lifetimes (issue 15) */
extern const cli_cmd cli_cmd_sql;       /* SQLite */
extern const cli_cmd cli_cmd_memory;    /* where the RSS goes (issue 26) */
extern const cli_cmd cli_cmd_leaks;     /* verdicts over a series (issue 28) */
extern const cli_cmd cli_cmd_serve;     /* the live page over files (issue 29) */

#endif
