/*
 * run.h: what `ying run` (cmd_run.c) shares with run_child.c (the child's
 * environment and its life) and run_pyro.c (the Pyroscope options).
 * Nothing here allocates; strings stay the caller's.
 */
#ifndef YING_RUN_H
#define YING_RUN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <ying-live.h>
#include "cli.h"

/* The Pyroscope options of `ying run`, passed to the agent as
 * YING_PYROSCOPE_*.  Secrets are never options: --pyroscope-password-file
 * and --pyroscope-token-file name files that the agent reads (their paths,
 * not their contents, go into the environment). */
typedef struct pyro_args {
	ying_pyroscope_opts o;
	cli_pyro_lists l;           /* --tag, --pyroscope-header */
	const char *interval, *password_file, *token_file;
} pyro_args;

/* ---- run_child.c */
/* setenv(name, value) for CMD, said on stderr with -v; -1 (said) on failure. */
int run_set_env(const char *name, const char *value, bool verbose);
/* Run path with argv as a child, pass signals on, follow a daemonizing
 * survivor; CMD's exit status (128 + N for a death by signal N). */
int run_child(const char *path, char **argv);
/* After CMD: remove the socket file of `--http unix:PATH` if it is this
 * user's and nobody listens on it any more (the agent removes it at a
 * normal exit; not when CMD died of a signal). */
void run_unix_cleanup(const char *path);

/* ---- run_pyro.c */
/* Check a's options (usage error: exit 2; unreadable secret file: 1) and
 * put them into the environment as YING_PYROSCOPE_*; 0 when fine. */
int run_pyro_setup(pyro_args *a, bool verbose);

/* What `ying run`'s options asked for (cmd_run.c's run_option fills it). */
typedef struct run_args {
	const char *http, *token, *token_file, *dir, *sigs, *agent_opt;
	const char *interval, *pct, *floor_s, *recent_max, *giant, *allowp, *frames;
	int sample;
	bool portable, full_names, accum, quiet, verbose, insecure, open_all;
	char allow[1024], unix_abs[PATH_MAX + 8], token_path[PATH_MAX];
	pyro_args pa;
} run_args;

/* The agent's variables for what a asked (run_child.c); user_active: the
 * user's MALLOC_CONF sets prof_active.  0 or -1. */
int run_agent_env(const run_args *a, bool user_active);
/* A secret's file given to the agent (--*-file FILE): checked with
 * cli_read_secret_file, FILE's absolute path into out[n]; the secret is
 * wiped, or given to *secret (malloc'd; the caller wipes and frees it)
 * when secret is not NULL.  0, or CLI_EXIT_ERR after saying why. */
int run_secret_file(const char *opt, const char *file, char *out, size_t n,
    char **secret);

#endif /* YING_RUN_H */
