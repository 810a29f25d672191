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
#include <sys/types.h>

#include <ying-live.h>
#include "cli.h"
#include "run_elf.h"

/* The Pyroscope options of `ying run`, passed to the agent as
 * YING_PYROSCOPE_*.  Secrets are never options: --pyroscope-password-file
 * and --pyroscope-token-file name files that the agent reads (their paths,
 * not their contents, go into the environment). */
typedef struct pyro_args {
	ying_pyroscope_opts o;
	cli_pyro_lists l;           /* --tag, --pyroscope-header */
	const char *interval, *password_file, *token_file;
	const char *max_samples, *max_bytes;    /* as given, for the agent */
} pyro_args;

/* ---- run_child.c */
/* setenv(name, value) for CMD, said on stderr with -v; -1 (said) on failure. */
int run_set_env(const char *name, const char *value, bool verbose);
struct run_args;
/* Run path with argv as a child (as a->user when --user), pass signals
 * on, keep the report directory for its processes (a->keep_dir: the
 * report keeper on YING_RUN_SINK), say the agents' lines, follow a
 * daemonizing survivor; CMD's exit status (128 + N for a death by signal
 * N). */
int run_child(const char *path, char **argv, const struct run_args *a);
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
	const char *limit, *limit_reports;    /* --limit, --limit-reports */
	int sample;
	const char *user, *children, *heaps;
	bool portable, full_names, accum, quiet, verbose, insecure, open_all;
	char allow[1024], unix_abs[PATH_MAX + 8], token_path[PATH_MAX];
	pyro_args pa;
	/* --user, looked up (run_user_lookup) */
	bool switch_user;
	char user_name[256], user_home[PATH_MAX];
	uid_t uid;
	gid_t gid;
	/* the report directory ying run keeps (run_report_dir), or NULL */
	const char *keep_dir;
} run_args;

#define RUN_GO (-1)     /* a step's "carry on"; anything else is the exit code */

/* ---- run_keep.c */
/* --user NAME (or uid): looked up; refused unless ying run is root.
 * RUN_GO or the exit code (said). */
int run_user_lookup(run_args *a);
/* In the child, right before exec: initgroups, setgid, setuid to --user's;
 * HOME, USER and LOGNAME become the user's (as su does).  0, or -1 (said). */
int run_become_user(const run_args *a);
/* The report directory in effect (--report-dir, or YING_REPORT_DIR passed
 * on): created 0700 with its parents; kept (a->keep_dir) when private to
 * us; with --user NAME one private to NAME is accepted (CMD writes it
 * itself); any other refused, saying how.  RUN_GO or the exit code. */
int run_report_dir(run_args *a);

/* The agents' lines on the YING_RUN_FD pipe ("member PID PPID UID SUBDIR
 * ROLE...", "skip PID PPID WHY...", "follow PID WHAT..."), read as they
 * come: each said on stderr (not with quiet); garbage and lines over the
 * buffer are ignored. */
#define RUN_WATCH_PIDS 64
typedef struct run_watch {
	char buf[1024];
	size_t len;
	bool drop, quiet, verbose;
	const char *dir;           /* the report directory, for the lines */
	unsigned members, skipped;
	long pids[RUN_WATCH_PIDS];
	size_t npids;
	long follow;               /* a daemon's survivor named itself */
	char follow_what[1024];
	long head;                 /* CMD's first process */
	char memory[4096];         /* its "memory" lines at exit (where the RSS
	                              went), '\n'-separated */
	size_t memory_len;
} run_watch;
void run_watch_feed(run_watch *w, const char *data, size_t n);
/* "ying run: N processes profiled (PIDS); reports in DIR" and the keeper's
 * per-directory counts, when CMD had members or ying run wrote reports
 * for it (or with -v); k may be NULL. */
void run_watch_summary(const run_watch *w, long head, const ying_keeper *k);

/* The agent's variables for what a asked (run_child.c); user_active: the
 * user's MALLOC_CONF sets prof_active.  0 or -1. */
int run_agent_env(const run_args *a, bool user_active);
/* A secret's file given to the agent (--*-file FILE): checked with
 * cli_read_secret_file, FILE's absolute path into out[n]; the secret is
 * wiped, or given to *secret (malloc'd; the caller wipes and frees it)
 * when secret is not NULL.  0, or CLI_EXIT_ERR after saying why. */
int run_secret_file(const char *opt, const char *file, char *out, size_t n,
    char **secret);

/* ---- run_preload.c: what ying run preloads */
/* The agent: --agent's, YING_AGENT_LIB, the build tree, the install
 * directories; 0 with out, or -1 after saying why. */
int run_find_agent(const char *opt, char *out, size_t n);
/* A path fit for LD_PRELOAD (absolute, no ':' or space); 0 or -1 said. */
int run_preload_path_ok(const char *what, const char *p);
/* -v: which jemalloc CMD uses, one line. */
void run_say_jemalloc(const elf_scan *sc);
/* Set LD_PRELOAD: [jemalloc:]agent[:the user's]; 0 or -1 (said). */
int run_preload(const elf_scan *sc, const char *path, const char *agent,
    const char *preload, bool heaps_all, bool verbose, bool quiet);

#endif /* YING_RUN_H */
