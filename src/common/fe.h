/*
 * fe.h: the front ends' private library (libying_fe.la, src/common): the
 * one table of the agent's and `ying run`'s settings (fe_settings.c) and
 * the readers it drives, and the number parser under the front ends' own
 * name (fe_num.c: base_num.c compiled as yfe_num_*, so that ying, yingdiff
 * and the agent link only libying's public API).  Not installed, not
 * exported: the agent links it with hidden visibility.
 *
 * Every setting has one row: its name, type, unit, range, `ying run` flag,
 * YING_* variable, default and a one-line doc.  `ying run`'s parser, the
 * agent's environment reader and yfe_runner_opts_from_env check a value
 * through the same row, so a value is accepted or refused the same way as
 * a flag and as a variable, with one message form that names what the
 * user wrote: "--interval 5x: expected ..." or
 * "YING_REPORT_INTERVAL=5x: expected ...".  `ying run --print-settings`
 * prints the table (tests/integration/settings_table.sh checks the man
 * pages against it).
 *
 * Nothing here allocates (but yfe_frames_load); messages go into the
 * caller's buffer.
 */
#ifndef YING_FE_H
#define YING_FE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <ying-live.h>
/* The number parser's types, and its functions as yfe_num_*.  A test that
 * includes libying's internal.h first keeps the yi_num_* names (and
 * needs no yfe_num_* function). */
#ifndef YING_BASE_NUM_H
#define YI_NUM_NAME(x) yfe_num_##x
#include "../lib/base_num.h"
#endif
/* The private-directory check, as yfe_dir_private (fe_dir.c). */
#ifndef YING_BASE_DIR_H
#define YI_DIR_NAME(x) yfe_dir_##x
#include "../lib/base_dir.h"
#endif

typedef enum yfe_type {
	YFE_BOOL,       /* 1, yes, true, on / 0, no, false, off (a flag: on) */
	YFE_COUNT,      /* digits only, within the range */
	YFE_SIZE,       /* bytes with binary units (yi_num_parse's YI_NUM_SIZE) */
	YFE_SECONDS,    /* seconds, or with ms, s, m, h */
	YFE_PERCENT,    /* percent, '%' optional */
	YFE_SIGNAL,     /* a signal name or number (ying_signal_parse) */
	YFE_ADDRESS,    /* HOST:PORT or unix:PATH */
	YFE_URL,
	YFE_PATH,
	YFE_STRING,
	YFE_SECRET,     /* read once, then erased from the environment */
	YFE_CHILDREN,   /* all, long, long:SECONDS or none (yfe_children_parse) */
	YFE_HEAPS,      /* all or one: the jemallocs profiled (issue 26) */
	YFE_PERCENTS,   /* "80,90": percentages of the memory limit, or none */
} yfe_type;

typedef struct yfe_setting {
	const char *name;    /* the API field it fills, or the setting's name */
	yfe_type type;
	double lo, hi;       /* numbers: the inclusive range */
	const char *flag;    /* `ying run` option ("--interval"), or NULL */
	const char *var;     /* YING_* variable, or NULL (a flag of ying run's own) */
	const char *def;     /* the default as documented, "-" when none */
	const char *hint;    /* appended to a refusal ("0: only on the dump signal"), or NULL */
	const char *doc;     /* one line */
} yfe_setting;

/* The table: *n rows, static. */
const yfe_setting *yfe_settings(size_t *n);
/* The row of a variable or a `ying run` flag ("--interval"); NULL if none. */
const yfe_setting *yfe_setting_by_var(const char *var);
const yfe_setting *yfe_setting_by_flag(const char *flag);
/* "bool", "count", "size", "seconds", ... */
const char *yfe_type_name(yfe_type t);

/*
 * Check `value` for row s as the user gave it: as_flag says whether by
 * s->flag ("--interval 5x: ...") or by s->var ("YING_REPORT_INTERVAL=5x:
 * ...").  Numbers go into *out (bytes, seconds, percent, the count; may be
 * NULL), a bool 1 or 0, a signal its number; strings are only checked for
 * emptiness.  0, or -1 with the message in why[wn].
 */
int yfe_setting_check(const yfe_setting *s, bool as_flag, const char *value,
    double *out, char *why, size_t wn);

/* Variable `var` (a row of the table) from the environment: 0 and *set =
 * false when unset or empty; 0, *set = true and the value in *out; -1 with
 * the message in why[wn]. */
int yfe_env_num(const char *var, double *out, bool *set, char *why, size_t wn);
/* A bool variable: unset or empty is false. */
int yfe_env_bool(const char *var, bool *out, char *why, size_t wn);

/*
 * Fill o from the environment, over what it holds (start from
 * YING_RUNNER_OPTS_INIT): YING_REPORT_DIR, YING_REPORT_INTERVAL,
 * YING_REPORT_PCT, YING_REPORT_FLOOR, YING_REPORT_MAX_BYTES,
 * YING_REPORT_PORTABLE_NAMES, YING_REPORT_MAX_SETS, YING_REPORT_TOP,
 * YING_VERBOSE, YING_LIMIT, YING_LIMIT_REPORTS and YING_CGROUP_ROOT, each
 * by its row.  Unset variables leave their field alone; o->dir and
 * o->cgroup_root point into the environment (not copied), o->limit_fracs
 * into static storage (one configuration per process).  0, or -1 with the
 * message naming the variable in why[wn].
 */
int yfe_runner_opts_from_env(ying_runner_opts *o, char *why, size_t wn);

/* A size as a front end's option reads it: what ("--floor", "--min") names
 * it in the message; at least lo bytes, at most 10^18. */
int yfe_parse_size(const char *what, const char *s, double lo, double *out, char *why,
    size_t wn);

/* Which forked children the agent profiles (YING_CHILDREN, `ying run
 * --children`): every one at once, those that have lived *secs seconds
 * (default YFE_CHILDREN_LONG_S), or none. */
typedef enum yfe_children { YFE_CHILDREN_NONE, YFE_CHILDREN_LONG, YFE_CHILDREN_ALL } yfe_children;
#define YFE_CHILDREN_LONG_S 3.0
/* value ("all", "long", "long:SECONDS", "none"; NULL or "": the default,
 * long:3) into *mode and *secs (0 for all and none).  0, or -1 with the
 * reason (without the variable's name) in why[wn]. */
int yfe_children_parse(const char *value, yfe_children *mode, double *secs, char *why,
    size_t wn);

/* A list of percentages of the memory limit (YING_LIMIT_REPORTS, `ying
 * run --limit-reports`): integers 1..100 separated by commas, each once,
 * at most YFE_PERCENTS_MAX, into out[*n]; "none": *n = 0.  0, or -1 with
 * the reason (without the variable's name) in why[wn]. */
#define YFE_PERCENTS_MAX 8
int yfe_percents_parse(const char *value, double *out, unsigned *n, char *why,
    size_t wn);

/* The table as `ying run --print-settings` prints it: a header line, then
 * one line per row, tab-separated: variable, flag, type, default, range
 * ("lo..hi" or "-"), name, doc. */
void yfe_settings_print(FILE *f);

/* ---- the user's allocator frames (fe_frames.c) ---------------------------- */
/* The frames file: $XDG_CONFIG_HOME/ying/frames (an absolute
 * XDG_CONFIG_HOME), else $HOME/.config/ying/frames; malloc'd (free it),
 * NULL without either variable. */
char *yfe_frames_path(void);
/*
 * The frames file (a missing one is no error) and YING_DROP_FRAMES
 * (entries separated by ';' or newlines, after the file's) as the text of
 * ying_symbolize_opts.frames: *out malloc'd (free it), NULL when there is
 * nothing.  A bad entry or an unreadable file: with `strict`, -1 and
 * "PATH:LINE: 'entry': why" (or "YING_DROP_FRAMES:N: ...") in why[wn];
 * without, one line "PROG: warning: ... (left out)" on warn (NULL: none)
 * and the rest is used.  0 or -1.  Allocates (unlike the rest of fe.h).
 */
int yfe_frames_load(char **out, bool strict, FILE *warn, const char *prog, char *why,
    size_t wn);

#endif /* YING_FE_H */
