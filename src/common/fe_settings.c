/*
 * fe_settings.c: the one table of the agent's and `ying run`'s settings
 * (fe.h), its checker and the environment readers it drives.
 *
 * Each row names the setting (the API field it fills where there is one),
 * its type and range, the `ying run` flag, the YING_* variable, the
 * default and a one-line doc.  A number is read by the one parser
 * (base_num.c, here as yfe_num_parse) with the row's kind and range, so
 * `ying run --interval 5m` and YING_REPORT_INTERVAL=5m are the same value,
 * and a bad one is refused by both with the same words after the name the
 * user wrote.  Bools are 1/yes/true/on or 0/no/false/off for every
 * variable.  docs/ying-agent.7 (SETTINGS) lists the same rows;
 * tests/integration/settings_table.sh compares them with
 * `ying run --print-settings`.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fe.h"
#include "fe_signal.h"

#define NUM(name, type, lo, hi, flag, var, def, hint, doc) \
	{ name, type, lo, hi, flag, var, def, hint, doc }
#define TXT(name, type, flag, var, def, doc) \
	{ name, type, 0, 0, flag, var, def, NULL, doc }

static const yfe_setting table[] = {
	/* the HTTP endpoint */
	TXT("http", YFE_ADDRESS, "--http", "YING_HTTP", "-",
	    "serve the endpoint on HOST:PORT or unix:PATH"),
	TXT("http.token", YFE_SECRET, "--token", "YING_HTTP_TOKEN", "-",
	    "the bearer token itself (prefer the file)"),
	TXT("http.token_file", YFE_PATH, "--token-file", "YING_HTTP_TOKEN_FILE", "-",
	    "a file whose first line is the bearer token"),
	TXT("http.allow_hosts", YFE_STRING, "--http-allow-host", "YING_HTTP_ALLOW_HOSTS", "-",
	    "more Host names answered (comma-separated)"),
	TXT("http.insecure", YFE_BOOL, "--http-insecure", "YING_HTTP_INSECURE", "0",
	    "allow a non-loopback address without a token"),
	TXT("http.open", YFE_BOOL, "--http-open", "YING_HTTP_OPEN", "0",
	    "serve every local user, not only the program's"),
	TXT("http.required", YFE_BOOL, NULL, "YING_HTTP_REQUIRED", "0",
	    "stop the program when the endpoint cannot listen"),
	TXT("http.token_erased", YFE_BOOL, NULL, "YING_HTTP_TOKEN_ERASED", "0",
	    "set by the agent: YING_HTTP_TOKEN was erased before an exec"),
	/* growth reports: ying_runner_opts */
	TXT("ying_runner_opts.dir", YFE_PATH, "--report-dir", "YING_REPORT_DIR", "-",
	    "write growth reports into this directory"),
	NUM("ying_runner_opts.interval", YFE_SECONDS, 0, 1e7, "--interval",
	    "YING_REPORT_INTERVAL", "300", "0: only on the dump signal",
	    "seconds between heap checks"),
	NUM("ying_runner_opts.pct", YFE_PERCENT, 0, 1e6, "--pct", "YING_REPORT_PCT", "10",
	    NULL, "report when the live heap moved by this many percent"),
	NUM("ying_runner_opts.floor", YFE_SIZE, 0, YI_NUM_SIZE_MAX, "--floor",
	    "YING_REPORT_FLOOR", "20MiB", NULL,
	    "no report before the live heap first reaches this size"),
	TXT("ying_runner_opts.portable_names", YFE_BOOL, "--portable-names",
	    "YING_REPORT_PORTABLE_NAMES", "0", "no ':' in report file names"),
	TXT("ying_runner_opts.full_names", YFE_BOOL, "--full-names",
	    "YING_REPORT_FULL_NAMES", "0",
	    "whole function names in reports (parameters, template arguments)"),
	NUM("ying_runner_opts.max_sets", YFE_COUNT, 0, 1000000, NULL, "YING_REPORT_MAX_SETS",
	    "64", "0: no bound", "report sets kept"),
	NUM("ying_runner_opts.max_bytes", YFE_SIZE, 0, YI_NUM_SIZE_MAX, NULL,
	    "YING_REPORT_MAX_BYTES", "512MiB", "0: no bound", "bytes of report files kept"),
	NUM("ying_runner_opts.top", YFE_COUNT, 0, 1000, NULL, "YING_REPORT_TOP", "10", NULL,
	    "stacks listed in each .report"),
	/* the memory limit: ying_runner_opts too */
	NUM("ying_runner_opts.limit", YFE_SIZE, 1, YI_NUM_SIZE_MAX, "--limit", "YING_LIMIT",
	    "-", NULL, "the memory limit (the cgroup's is found; the smaller counts)"),
	TXT("ying_runner_opts.limit_fracs", YFE_PERCENTS, "--limit-reports",
	    "YING_LIMIT_REPORTS", "80,90",
	    "report when usage crosses these percentages of the limit (none: never)"),
	TXT("ying_runner_opts.cgroup_root", YFE_PATH, NULL, "YING_CGROUP_ROOT",
	    "/sys/fs/cgroup", "the cgroup file system's mount (containers, tests)"),
	/* sampling and records */
	TXT("dump_signal", YFE_SIGNAL, "--dump-signal", "YING_DUMP_SIGNAL", "-",
	    "write a report set when the program receives this signal"),
	NUM("recent_max", YFE_COUNT, 0, YING_RECENT_MAX_LIMIT, "--recent-max",
	    "YING_RECENT_MAX", "-", "there is no unlimited: the record would grow "
	    "without bound", "keep the last N sampled allocations"),
	NUM("giant", YFE_SIZE, 1, YI_NUM_SIZE_MAX, "--giant", "YING_GIANT", "-", NULL,
	    "record every allocation of at least this size"),
	NUM("lg_prof_sample", YFE_COUNT, 0, 63, "--sample", NULL, "-", NULL,
	    "sample one allocation per 2^N bytes (MALLOC_CONF)"),
	TXT("prof_accum", YFE_BOOL, "--accum", NULL, "0",
	    "keep cumulative allocation counts (MALLOC_CONF)"),
	/* Pyroscope: ying_pyroscope_opts */
	TXT("ying_pyroscope_opts.url", YFE_URL, "--pyroscope", "YING_PYROSCOPE_URL", "-",
	    "upload the heap to the Pyroscope server at this URL"),
	TXT("ying_pyroscope_opts.service", YFE_STRING, "--service", "YING_PYROSCOPE_SERVICE",
	    "-", "its service_name (default: the program's name)"),
	TXT("ying_pyroscope_opts.tags", YFE_STRING, "--tag", "YING_PYROSCOPE_TAGS", "-",
	    "more labels of the series (k=v,k=v)"),
	TXT("ying_pyroscope_opts.api", YFE_STRING, "--pyroscope-api", "YING_PYROSCOPE_API",
	    "push", "push or ingest"),
	NUM("ying_pyroscope_opts.interval", YFE_SECONDS, 0.1, 1e6, "--pyroscope-interval",
	    "YING_PYROSCOPE_INTERVAL", "15", NULL, "seconds between uploads"),
	NUM("ying_pyroscope_opts.max_samples", YFE_COUNT, 1, 10000000,
	    "--pyroscope-max-samples", "YING_PYROSCOPE_MAX_SAMPLES", "16000", NULL,
	    "fold profiles to at most N samples (Pyroscope's samples_limit)"),
	NUM("ying_pyroscope_opts.max_bytes", YFE_SIZE, 4096, 1073741824.0,
	    "--pyroscope-max-bytes", "YING_PYROSCOPE_MAX_BYTES", "2MiB", NULL,
	    "fold profiles to this size, uncompressed with their labels (its burst)"),
	TXT("ying_pyroscope_opts.user", YFE_STRING, "--pyroscope-user", "YING_PYROSCOPE_USER",
	    "-", "basic auth user"),
	TXT("ying_pyroscope_opts.password", YFE_SECRET, NULL, "YING_PYROSCOPE_PASSWORD", "-",
	    "basic auth password itself (prefer the file)"),
	TXT("ying_pyroscope_opts.password_file", YFE_PATH, "--pyroscope-password-file",
	    "YING_PYROSCOPE_PASSWORD_FILE", "-", "a file whose first line is the password"),
	TXT("ying_pyroscope_opts.token", YFE_SECRET, NULL, "YING_PYROSCOPE_TOKEN", "-",
	    "bearer token itself (prefer the file)"),
	TXT("ying_pyroscope_opts.token_file", YFE_PATH, "--pyroscope-token-file",
	    "YING_PYROSCOPE_TOKEN_FILE", "-", "a file whose first line is a bearer token"),
	TXT("ying_pyroscope_opts.tenant", YFE_STRING, "--pyroscope-tenant",
	    "YING_PYROSCOPE_TENANT", "-", "X-Scope-OrgID"),
	TXT("ying_pyroscope_opts.headers", YFE_STRING, "--pyroscope-header",
	    "YING_PYROSCOPE_HEADERS", "-", "extra 'Name: value' header lines"),
	/* the agent itself and ying run */
	TXT("quiet", YFE_BOOL, "--quiet", "YING_QUIET", "0", "no informational lines"),
	TXT("ying_runner_opts.verbose", YFE_BOOL, "--verbose", "YING_VERBOSE", "0",
	    "a line per report set; ying run prints the environment"),
	TXT("agent", YFE_PATH, "--agent", "YING_AGENT_LIB", "-",
	    "the libying-agent.so ying run preloads"),
	TXT("jemalloc", YFE_PATH, NULL, "YING_JEMALLOC_LIB", "-",
	    "the libjemalloc ying run preloads when the program has none"),
	NUM("agent_pid", YFE_COUNT, 1, INT_MAX, NULL, "YING_AGENT_PID", "-", NULL,
	    "set by ying run: the only process whose agent works"),
	NUM("run_fd", YFE_COUNT, 3, INT_MAX, NULL, "YING_RUN_FD", "-", NULL,
	    "set by ying run: the pipe a daemon's survivor names itself on"),
	TXT("prof_activate", YFE_BOOL, NULL, "YING_PROF_ACTIVATE", "0",
	    "set by ying run: switch sampling on once the agent is up"),
	TXT("family", YFE_STRING, NULL, "YING_FAMILY", "-",
	    "set by the agent: the id of the service's processes"),
	NUM("family_head", YFE_COUNT, 1, INT_MAX, NULL, "YING_FAMILY_HEAD", "-", NULL,
	    "set by the agent: the pid whose endpoint lists them"),
	NUM("run_sink", YFE_COUNT, 3, INT_MAX, NULL, "YING_RUN_SINK", "-", NULL,
	    "set by ying run: the socket it writes reports through for a process "
	    "that switched user"),
	/* forked children and users */
	TXT("children", YFE_CHILDREN, "--children", "YING_CHILDREN", "long",
	    "forked children profiled: all, long (lived 3 s; long:SECONDS) or none"),
	TXT("heaps", YFE_HEAPS, "--heaps", "YING_HEAPS", "all",
	    "jemallocs profiled: all (a Rust program's own and one preloaded for "
	    "its C code) or one"),
	TXT("user", YFE_STRING, "--user", NULL, "-",
	    "run the program as this user (ying run started as root)"),
	/* the user's allocator wrappers, read by every command and the agent */
	TXT("frames", YFE_STRING, "--frames", "YING_DROP_FRAMES", "-",
	    "more allocator wrappers to trim (NAME or PREFIX*, ';'-separated)"),
	TXT("frames_file", YFE_PATH, NULL, "XDG_CONFIG_HOME", "~/.config",
	    "its ying/frames lists the allocator wrappers to trim"),
	/* read by libying itself, in every program */
	NUM("max_memory", YFE_SIZE, 1, YI_NUM_SIZE_MAX, NULL, "YING_MAX_MEMORY", "-", NULL,
	    "memory budget of one profile read"),
	TXT("cache_dir", YFE_PATH, NULL, "YING_CACHE_DIR", "-",
	    "the symbol cache's directory ('off': none)"),
	NUM("cache_max", YFE_COUNT, 0, 9e18, NULL, "YING_CACHE_MAX", "-", NULL,
	    "bytes the symbol cache keeps"),
};

#define NROWS (sizeof(table) / sizeof(table[0]))

static const char *const type_names[] = {
	[YFE_BOOL] = "bool", [YFE_COUNT] = "count", [YFE_SIZE] = "size",
	[YFE_SECONDS] = "seconds", [YFE_PERCENT] = "percent", [YFE_SIGNAL] = "signal",
	[YFE_ADDRESS] = "address", [YFE_URL] = "url", [YFE_PATH] = "path",
	[YFE_STRING] = "string", [YFE_SECRET] = "secret", [YFE_CHILDREN] = "children",
	[YFE_HEAPS] = "heaps", [YFE_PERCENTS] = "percents",
};

const yfe_setting *
yfe_settings(size_t *n)
{
	if (n)
		*n = NROWS;
	return table;
}

const char *
yfe_type_name(yfe_type t)
{
	return (unsigned)t <= YFE_PERCENTS ? type_names[t] : "?";
}

const yfe_setting *
yfe_setting_by_var(const char *var)
{
	for (size_t i = 0; var && i < NROWS; i++)
		if (table[i].var && strcmp(table[i].var, var) == 0)
			return &table[i];
	return NULL;
}

const yfe_setting *
yfe_setting_by_flag(const char *flag)
{
	for (size_t i = 0; flag && i < NROWS; i++)
		if (table[i].flag && strcmp(table[i].flag, flag) == 0)
			return &table[i];
	return NULL;
}

static yi_num_kind
num_kind(yfe_type t)
{
	switch (t) {
	case YFE_COUNT: return YI_NUM_COUNT;
	case YFE_SIZE: return YI_NUM_SIZE;
	case YFE_SECONDS: return YI_NUM_SECONDS;
	case YFE_PERCENT: return YI_NUM_PERCENT;
	default: return YI_NUM_REAL;
	}
}

int
yfe_setting_check(const yfe_setting *s, bool as_flag, const char *value, double *out,
    char *why, size_t wn)
{
	const char *who = as_flag && s->flag ? s->flag : s->var ? s->var : s->name;
	const char *sep = as_flag && s->flag ? " " : "=";
	char msg[300];
	double v = 0;

	if (value == NULL && as_flag && s->type == YFE_BOOL) {
		if (out)
			*out = 1;
		return 0;
	}
	if (value == NULL)
		value = "";
	switch (s->type) {
	case YFE_COUNT:
	case YFE_SIZE:
	case YFE_SECONDS:
	case YFE_PERCENT:
		if (yfe_num_parse(value, num_kind(s->type), s->lo, s->hi, &v, msg,
		    sizeof(msg)) != 0) {
			snprintf(why, wn, "%s%s%.64s: %s%s%s", who, sep, value, msg,
			    s->hint ? "; " : "", s->hint ? s->hint : "");
			return -1;
		}
		break;
	case YFE_BOOL:
		if (strcmp(value, "1") == 0 || strcasecmp(value, "yes") == 0 ||
		    strcasecmp(value, "true") == 0 || strcasecmp(value, "on") == 0) {
			v = 1;
		} else if (strcmp(value, "0") == 0 || strcasecmp(value, "no") == 0 ||
		    strcasecmp(value, "false") == 0 || strcasecmp(value, "off") == 0) {
			v = 0;
		} else {
			snprintf(why, wn, "%s%s%.64s: expected 1 or 0 (yes/no, true/false, "
			    "on/off)", who, sep, value);
			return -1;
		}
		break;
	case YFE_SIGNAL: {
		int sig;
		char reason[200];
		if (yfe_signal_parse(value, &sig, reason, sizeof(reason)) != 0) {
			snprintf(why, wn, "%s%s%.64s: %s", who, sep, value, reason);
			return -1;
		}
		v = sig;
		break;
	}
	case YFE_CHILDREN: {
		yfe_children mode;
		char reason[200];
		if (yfe_children_parse(value, &mode, &v, reason, sizeof(reason)) != 0) {
			snprintf(why, wn, "%s%s%.64s: %s", who, sep, value, reason);
			return -1;
		}
		break;
	}
	case YFE_PERCENTS: {
		double fr[YFE_PERCENTS_MAX];
		unsigned nf;
		char reason[200];
		if (yfe_percents_parse(value, fr, &nf, reason, sizeof(reason)) != 0) {
			snprintf(why, wn, "%s%s%.64s: %s", who, sep, value, reason);
			return -1;
		}
		v = nf;
		break;
	}
	case YFE_HEAPS:
		if (strcmp(value, "all") != 0 && strcmp(value, "one") != 0) {
			snprintf(why, wn, "%s%s%.64s: expected all or one", who, sep, value);
			return -1;
		}
		v = value[0] == 'a';
		break;
	default:
		if (value[0] == '\0') {
			snprintf(why, wn, "%s%s: empty", who, sep);
			return -1;
		}
		break;
	}
	if (out)
		*out = v;
	return 0;
}

int
yfe_children_parse(const char *value, yfe_children *mode, double *secs, char *why,
    size_t wn)
{
	char msg[300];

	*mode = YFE_CHILDREN_LONG;
	*secs = YFE_CHILDREN_LONG_S;
	if (value == NULL || value[0] == '\0' || strcmp(value, "long") == 0)
		return 0;
	if (strcmp(value, "all") == 0 || strcmp(value, "none") == 0) {
		*mode = value[0] == 'a' ? YFE_CHILDREN_ALL : YFE_CHILDREN_NONE;
		*secs = 0;
		return 0;
	}
	if (strncmp(value, "long:", 5) == 0) {
		if (yfe_num_parse(value + 5, YI_NUM_SECONDS, 0.1, 86400, secs, msg,
		    sizeof(msg)) != 0) {
			snprintf(why, wn, "long:SECONDS: %s", msg);
			return -1;
		}
		return 0;
	}
	snprintf(why, wn, "expected all, long, long:SECONDS or none");
	return -1;
}

int
yfe_percents_parse(const char *value, double *out, unsigned *n, char *why, size_t wn)
{
	const char *p = value ? value : "";

	*n = 0;
	if (strcmp(p, "none") == 0)
		return 0;
	for (;;) {
		char *end;
		long v;
		if (*p < '0' || *p > '9') {
			snprintf(why, wn, "expected percentages of the limit (integers 1..100) "
			    "separated by commas, as 80,90, or none");
			return -1;
		}
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno != 0 || v < 1 || v > 100 || (*end != ',' && *end != '\0')) {
			snprintf(why, wn, "%.*s: expected an integer percentage 1..100 (a list "
			    "as 80,90, or none)", (int)strcspn(p, ","), p);
			return -1;
		}
		for (unsigned i = 0; i < *n; i++)
			if (out[i] == (double)v) {
				snprintf(why, wn, "%ld given twice", v);
				return -1;
			}
		if (*n == YFE_PERCENTS_MAX) {
			snprintf(why, wn, "more than %d percentages", YFE_PERCENTS_MAX);
			return -1;
		}
		out[(*n)++] = (double)v;
		if (*end == '\0')
			return 0;
		p = end + 1;
	}
}

int
yfe_env_num(const char *var, double *out, bool *set, char *why, size_t wn)
{
	const yfe_setting *s = yfe_setting_by_var(var);
	const char *e = getenv(var);

	*set = false;
	if (s == NULL) {
		snprintf(why, wn, "%s: not in the settings table", var);
		return -1;
	}
	if (e == NULL || *e == '\0')
		return 0;
	if (yfe_setting_check(s, false, e, out, why, wn) != 0)
		return -1;
	*set = true;
	return 0;
}

int
yfe_env_bool(const char *var, bool *out, char *why, size_t wn)
{
	double v = 0;
	bool set;

	if (yfe_env_num(var, &v, &set, why, wn) != 0)
		return -1;
	*out = set && v != 0;
	return 0;
}

int
yfe_runner_opts_from_env(ying_runner_opts *o, char *why, size_t wn)
{
	const char *dir;
	double v;
	bool set;

	if (o == NULL) {
		snprintf(why, wn, "yfe_runner_opts_from_env: o is NULL");
		return -1;
	}
	if ((dir = getenv("YING_REPORT_DIR")) != NULL && *dir)
		o->dir = dir;
#define RD(var, stmt) do { \
		if (yfe_env_num(var, &v, &set, why, wn) != 0) \
			return -1; \
		if (set) \
			stmt; \
	} while (0)
	RD("YING_REPORT_INTERVAL", o->interval = v);
	RD("YING_REPORT_PCT", o->pct = v);
	RD("YING_REPORT_FLOOR", o->floor = (uint64_t)v);
	RD("YING_REPORT_MAX_BYTES", o->max_bytes = (uint64_t)v);
	RD("YING_REPORT_PORTABLE_NAMES", o->portable_names = v != 0);
	RD("YING_REPORT_FULL_NAMES", o->full_names = v != 0);
	RD("YING_REPORT_MAX_SETS", o->max_sets = (unsigned)v);
	RD("YING_REPORT_TOP", o->top = (unsigned)v);
	RD("YING_VERBOSE", o->verbose = v != 0);
	RD("YING_LIMIT", o->limit = (uint64_t)v);
#undef RD
	if ((dir = getenv("YING_CGROUP_ROOT")) != NULL && *dir)
		o->cgroup_root = dir;
	if ((dir = getenv("YING_LIMIT_REPORTS")) != NULL && *dir) {
		static double fracs[YFE_PERCENTS_MAX];
		char reason[200];
		unsigned nf;
		if (yfe_percents_parse(dir, fracs, &nf, reason, sizeof(reason)) != 0) {
			snprintf(why, wn, "YING_LIMIT_REPORTS=%.64s: %s", dir, reason);
			return -1;
		}
		o->limit_fracs = fracs;
		o->n_limit_fracs = nf;
	}
	return 0;
}

int
yfe_parse_size(const char *what, const char *s, double lo, double *out, char *why,
    size_t wn)
{
	char msg[300];

	if (yfe_num_parse(s, YI_NUM_SIZE, lo, YI_NUM_SIZE_MAX, out, msg, sizeof(msg)) != 0) {
		snprintf(why, wn, "%s %.64s: %s", what, s ? s : "", msg);
		return -1;
	}
	return 0;
}

void
yfe_settings_print(FILE *f)
{
	fprintf(f, "variable\tflag\ttype\tdefault\trange\tname\tdoc\n");
	for (size_t i = 0; i < NROWS; i++) {
		const yfe_setting *s = &table[i];
		char range[80] = "-";
		if (s->type == YFE_COUNT || s->type == YFE_SIZE || s->type == YFE_SECONDS ||
		    s->type == YFE_PERCENT)
			snprintf(range, sizeof(range), "%.15g..%.15g", s->lo, s->hi);
		fprintf(f, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s->var ? s->var : "-",
		    s->flag ? s->flag : "-", type_names[s->type], s->def, range, s->name,
		    s->doc);
	}
}
