/*
 * cmd_run.c: `ying run [options] -- CMD ARGS`: run any dynamically linked
 * program under jemalloc's heap profiler with the ying agent inside it.
 *
 * It only prepares the environment and then gets out of the way:
 * MALLOC_CONF gets prof:true merged into the user's own setting (the user's
 * keys win unless an explicit option of ours names them); LD_PRELOAD gets
 * libying-agent.so, and libjemalloc.so.2 too when CMD does not bring a
 * jemalloc of its own (DT_NEEDED of CMD and, recursively, of its libraries,
 * read with libelf; or one defined in CMD or a library, by libying's
 * ying_jem_elf_read: the agent's own rule, .dynsym, .symtab or a stripped
 * one's strings; a prefixed one also gets its own variable, e.g.
 * _RJEM_MALLOC_CONF), so a
 * second jemalloc never enters a process; the YING_* variables configure the
 * agent.  CMD runs as a child: signals sent to `ying run` (INT, TERM, HUP,
 * QUIT, USR1, USR2, WINCH, ALRM) are passed on, and its exit status comes
 * back, death by a signal as 128 + the signal number.  YING_AGENT_PID names
 * the child so that processes CMD starts in turn (other pids) keep the agent
 * inert; a program image CMD execs into (same pid) gets it again.
 * Sampling starts inactive (prof_active:false, unless the user set it) and
 * the agent activates it (YING_PROF_ACTIVATE) once its own libraries are
 * initialized.  --http is checked (listened on and released) before CMD
 * starts, and YING_HTTP_REQUIRED makes the agent stop CMD if it cannot
 * listen after all.  With nothing asked for, reports go to ./ying-reports.
 * YING_RUN_FD is a pipe on which the agent in the survivor of a daemonizing
 * CMD names itself; ying run prints that after CMD's first process exits.
 * Finding files and the ELF scan of CMD are in run_elf.c; the child's
 * environment and life in run_child.c; the Pyroscope options in run_pyro.c.
 */
#include <errno.h>
#include <gelf.h>
#include <getopt.h>
#include <libelf.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "run_elf.h"
#include "run.h"
#include "agent_paths.h"
#include "fe.h"

#define YI_RUN_STR_(x) #x
#define YI_RUN_STR(x) YI_RUN_STR_(x)   /* a number macro as a string literal */

#define SCAN_MAX_DEPTH 8
#define SCAN_MAX_OBJECTS 512

static const char run_usage[] =
"usage: ying run [options] [--] CMD [ARGS...]\n"
"\n"
"Run CMD (any dynamically linked program) with jemalloc's heap profiler on\n"
"and the ying agent inside it: an HTTP endpoint, growth reports that appear\n"
"as ying.<time>.<N>MiB.{report,svg,heap,pb.gz} when the live heap moves,\n"
"and dumps on a signal.  libjemalloc is preloaded when CMD does not link it.\n"
"Signals are passed on to CMD; its exit status is ying run's (128+N when it\n"
"dies of signal N).  Without --http, --report-dir, --dump-signal and\n"
"--pyroscope, growth reports go to ./ying-reports.  A bad --http address\n"
"exits 2, a busy one 1, before CMD starts.  A daemonizing CMD is followed:\n"
"the process that keeps running gets the endpoint and the reports, and ying\n"
"run names it.\n"
"\n"
"options:\n"
"  --http ADDR          serve /debug/heap, /debug/pprof/heap, ... on ADDR\n"
"                       (HOST:PORT; port 0 picks a free one, printed on stderr;\n"
"                       unix:PATH: a Unix-domain socket, mode 0600)\n"
"  --token-file FILE    require 'Authorization: Bearer T' on HTTP requests,\n"
"                       T the first line of FILE (chmod 600 it)\n"
"  --token T            the same with T on the command line, which every\n"
"                       user can read (ps, /proc): prefer --token-file\n"
"  --http-allow-host NAME  also answer requests whose Host is NAME (besides\n"
"                       localhost, loopback and the bound address; repeat or\n"
"                       separate names with commas; others get 403)\n"
"  --http-insecure      allow a non-loopback --http without a token (refused\n"
"                       otherwise, exit 2); a warning says so\n"
"  --http-open          serve every local user; without a token the endpoint\n"
"                       answers only CMD's own user and root (others: 403)\n"
"  --report-dir DIR     write growth reports into DIR (created 0700;\n"
"                       default ./ying-reports when nothing else is asked)\n"
"  --interval S         seconds between heap checks (default 300; 5m, 1h)\n"
"  --pct P              report when the live heap moved by P % (default 10)\n"
"  --floor SIZE         first report once the heap reaches SIZE (default 20MiB)\n"
"  --limit SIZE         the memory limit (64MiB, 2G); the cgroup's is found by\n"
"                       itself, the smaller counts: reports at its fractions\n"
"                       and at new high-water marks of the heap, fsync'd\n"
"  --limit-reports P,P  percentages of the limit whose crossing writes a\n"
"                       report set (default 80,90; none: never)\n"
"  --portable-names     no ':' in report file names\n"
"  --full-names         whole function names in reports (parameters, templates)\n"
"  --dump-signal SIG    write a report set when CMD receives SIG (e.g. USR2)\n"
"  --sample LG          sample one allocation per 2^LG bytes (lg_prof_sample)\n"
"  --accum              keep cumulative allocation counts (prof_accum)\n"
"  --recent-max N       keep the last N sampled allocations with their free\n"
"                       time and stack (N <= " YI_RUN_STR(YING_RECENT_MAX_LIMIT)
"; GET /debug/heap/recent)\n"
"  --giant SIZE         record every allocation of at least SIZE (64M, 1G)\n"
"                       with its stack, thread and time; log each place once;\n"
"                       listed at /debug/heap/giant and in growth reports\n"
"  --frames ENTRIES     more allocator wrappers to trim (NAME or PREFIX*, ';'-\n"
"                       separated; added to YING_DROP_FRAMES and ying/frames)\n"
"  --pyroscope URL      upload the heap to Grafana Pyroscope at URL every 15 s\n"
"    --service NAME     its service_name (default: CMD's name)\n"
"    --tag K=V          a label of the series (repeatable)\n"
"    --pyroscope-api push|ingest       push API (default) or legacy /ingest\n"
"    --pyroscope-interval S            seconds between uploads (default 15)\n"
"    --pyroscope-user USER             basic auth user\n"
"    --pyroscope-password-file FILE    basic auth password (first line of FILE)\n"
"    --pyroscope-token-file FILE       bearer token (first line of FILE)\n"
"    --pyroscope-tenant ID             X-Scope-OrgID\n"
"    --pyroscope-header 'NAME: VALUE'  an extra header (repeatable)\n"
"    --pyroscope-max-samples N         fold profiles to N samples (default 16000)\n"
"    --pyroscope-max-bytes SIZE        and to SIZE with labels (default 2MiB)\n"
"  --children all|long|none  forked children profiled, each with its own\n"
"                       reports: every one, those living 3 s (default;\n"
"                       long:SECONDS), or none\n"
"  --heaps all|one      all (default): a CMD with a prefixed jemalloc of its\n"
"                       own (Rust's _rjem_) also gets libjemalloc preloaded\n"
"                       for its C code's malloc, and dumps hold both heaps;\n"
"                       one: only CMD's own\n"
"  --user NAME          run CMD as NAME (ying run as root); reports still\n"
"                       go to the report directory (ying run keeps it)\n"
"  --agent PATH         use this libying-agent.so\n"
"  -q, --quiet          no informational lines from the agent\n"
"  -v, --verbose        print the environment given to CMD; a line per report\n"
"  -h, --help           this text\n"
"\n"
"Environment: MALLOC_CONF (merged; prof_active:false until the agent is up,\n"
"unless you set prof_active), LD_PRELOAD (kept, after ours),\n"
"YING_AGENT_LIB and YING_JEMALLOC_LIB (paths), YING_* (see ying-agent(7));\n"
"YING_PYROSCOPE_PASSWORD / YING_PYROSCOPE_TOKEN instead of the files (the\n"
"agent reads and erases them; secrets are never options).\n";

static int run_main(int argc, char **argv);

const cli_cmd cli_cmd_run = {
	"run",
	"run a program with the heap profiler, the agent, HTTP and growth reports",
	run_usage,
	run_main,
};

/* ---- environment ------------------------------------------------------------ */

/* MALLOC_CONF: the user's pairs minus the keys we set, then ours. */
static char *
merge_conf(const char *user, const char *const *keys, const char *const *vals,
    size_t n)
{
	size_t cap = (user ? strlen(user) : 0) + 256, len = 0;
	char *out = malloc(cap);
	const char *p, *q;

	if (out == NULL)
		return NULL;
	out[0] = '\0';
	for (p = user; p && *p; p = q ? q + 1 : p + strlen(p)) {
		size_t plen, klen;
		bool ours = false;
		q = strchr(p, ',');
		plen = q ? (size_t)(q - p) : strlen(p);
		klen = strcspn(p, ":,");
		if (klen > plen)
			klen = plen;
		for (size_t i = 0; i < n; i++)
			if (strlen(keys[i]) == klen && strncmp(p, keys[i], klen) == 0)
				ours = true;
		if (plen == 0 || ours)
			continue;
		if (len + plen + 2 > cap) {
			char *no;
			cap = (len + plen + 2) * 2;
			if ((no = realloc(out, cap)) == NULL) {
				free(out);
				return NULL;
			}
			out = no;
		}
		if (len)
			out[len++] = ',';
		memcpy(out + len, p, plen);
		len += plen;
		out[len] = '\0';
	}
	for (size_t i = 0; i < n; i++) {
		size_t need = strlen(keys[i]) + strlen(vals[i]) + 3;
		if (len + need > cap) {
			char *no;
			cap = (len + need) * 2;
			if ((no = realloc(out, cap)) == NULL) {
				free(out);
				return NULL;
			}
			out = no;
		}
		len += (size_t)snprintf(out + len, cap - len, "%s%s:%s", len ? "," : "",
		    keys[i], vals[i]);
	}
	return out;
}

/* dir/name into out; false when it does not fit. */
/* ---- the command -------------------------------------------------------------- */

#define DEFAULT_REPORT_DIR "ying-reports"

/* Does the MALLOC_CONF string conf set key? */
static bool
conf_has_key(const char *conf, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = conf; p && *p; ) {
		size_t n = strcspn(p, ":,");
		if (n == kl && strncmp(p, key, kl) == 0 && p[n] == ':')
			return true;
		p += strcspn(p, ",");
		if (*p == ',')
			p++;
	}
	return false;
}

/* Create dir 0700, or accept it when it is already a private directory of
 * ours (yfe_dir_private: the library's rule for every report directory). */
static int
make_private_dir(const char *dir)
{
	char why[PATH_MAX + 200];
	int e;

	if (mkdir(dir, 0700) == 0)
		return 0;
	e = errno;
	if (e == EEXIST && yfe_dir_private("report directory", dir, NULL, why,
	    sizeof(why)) == 0)
		return 0;
	if (e == EEXIST)
		fprintf(stderr, "%s: ./%s exists but is not a directory of yours (%s); "
		    "give --report-dir DIR\n", cli_prog, dir, why);
	else
		fprintf(stderr, "%s: cannot create ./%s: %s; give --report-dir DIR\n",
		    cli_prog, dir, strerror(e));
	return -1;
}

/* --http ADDR: parse, resolve and listen on it now, so that a malformed
 * address (exit 2) or a busy or unusable one (exit 1) is said before CMD
 * starts.  The agent binds again in CMD; YING_HTTP_REQUIRED makes it stop
 * CMD should that fail in between. */
static int
check_http(const char *addr, const char *token, const char *allow, bool insecure)
{
	ying_http_opts o = YING_HTTP_OPTS_INIT;
	const char *et = getenv("YING_HTTP_TOKEN"), *ef = getenv("YING_HTTP_TOKEN_FILE");
	int rc;

	o.bind = addr;
	/* A token file in the environment is read by the agent; here it only
	 * has to count as "a token" for the bind rule. */
	o.token = token ? token : et && *et ? et : ef && *ef ? "(YING_HTTP_TOKEN_FILE)" : NULL;
	o.allow_hosts = allow;
	o.insecure = insecure;
	/* plain sockets: `ying` itself never loads libmicrohttpd */
	if ((rc = ying_http_check(&o)) != 0) {
		fprintf(stderr, "%s: --http %s: %s\n", cli_prog, addr, ying_last_error());
		return rc == YING_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_ERR;
	}
	if (insecure && o.token == NULL)
		fprintf(stderr, "%s: warning: --http-insecure: the endpoint on %s takes no "
		    "token; whoever can reach it can read the heap and change the "
		    "profiler\n", cli_prog, addr);
	return 0;
}

enum {
	OPT_HTTP = 256, OPT_TOKEN, OPT_REPORT_DIR, OPT_INTERVAL, OPT_PCT, OPT_FLOOR,
	OPT_PORTABLE, OPT_FULL_NAMES, OPT_DUMP_SIGNAL, OPT_SAMPLE, OPT_ACCUM, OPT_AGENT,
	OPT_PYRO, OPT_SERVICE, OPT_TAG, OPT_PYRO_API, OPT_PYRO_INTERVAL, OPT_PYRO_USER,
	OPT_PYRO_PASSWORD_FILE, OPT_PYRO_TOKEN_FILE, OPT_PYRO_TENANT, OPT_PYRO_HEADER,
	OPT_HTTP_ALLOW_HOST, OPT_HTTP_INSECURE, OPT_HTTP_OPEN, OPT_TOKEN_FILE, OPT_RECENT_MAX,
	OPT_GIANT, OPT_FRAMES, OPT_PRINT_SETTINGS, OPT_CHILDREN, OPT_USER,
	OPT_HEAPS, OPT_PYRO_MAX_SAMPLES, OPT_PYRO_MAX_BYTES, OPT_LIMIT, OPT_LIMIT_REPORTS
};

static const struct option run_options[] = {
	{ "http", required_argument, NULL, OPT_HTTP },
	{ "token", required_argument, NULL, OPT_TOKEN },
	{ "token-file", required_argument, NULL, OPT_TOKEN_FILE },
	{ "report-dir", required_argument, NULL, OPT_REPORT_DIR },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "pct", required_argument, NULL, OPT_PCT },
	{ "floor", required_argument, NULL, OPT_FLOOR },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "limit-reports", required_argument, NULL, OPT_LIMIT_REPORTS },
	{ "portable-names", no_argument, NULL, OPT_PORTABLE },
	{ "full-names", no_argument, NULL, OPT_FULL_NAMES },
	{ "dump-signal", required_argument, NULL, OPT_DUMP_SIGNAL },
	{ "sample", required_argument, NULL, OPT_SAMPLE },
	{ "accum", no_argument, NULL, OPT_ACCUM },
	{ "recent-max", required_argument, NULL, OPT_RECENT_MAX },
	{ "giant", required_argument, NULL, OPT_GIANT },
	{ "frames", required_argument, NULL, OPT_FRAMES },
	{ "agent", required_argument, NULL, OPT_AGENT },
	{ "children", required_argument, NULL, OPT_CHILDREN },
	{ "heaps", required_argument, NULL, OPT_HEAPS },
	{ "user", required_argument, NULL, OPT_USER },
	{ "pyroscope", required_argument, NULL, OPT_PYRO },
	{ "service", required_argument, NULL, OPT_SERVICE },
	{ "tag", required_argument, NULL, OPT_TAG },
	{ "pyroscope-api", required_argument, NULL, OPT_PYRO_API },
	{ "pyroscope-interval", required_argument, NULL, OPT_PYRO_INTERVAL },
	{ "pyroscope-user", required_argument, NULL, OPT_PYRO_USER },
	{ "pyroscope-password-file", required_argument, NULL, OPT_PYRO_PASSWORD_FILE },
	{ "pyroscope-token-file", required_argument, NULL, OPT_PYRO_TOKEN_FILE },
	{ "pyroscope-tenant", required_argument, NULL, OPT_PYRO_TENANT },
	{ "pyroscope-max-samples", required_argument, NULL, OPT_PYRO_MAX_SAMPLES },
	{ "pyroscope-max-bytes", required_argument, NULL, OPT_PYRO_MAX_BYTES },
	{ "pyroscope-header", required_argument, NULL, OPT_PYRO_HEADER },
	{ "http-allow-host", required_argument, NULL, OPT_HTTP_ALLOW_HOST },
	{ "http-insecure", no_argument, NULL, OPT_HTTP_INSECURE },
	{ "http-open", no_argument, NULL, OPT_HTTP_OPEN },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	/* hidden: the settings table (tests/integration/settings_table.sh) */
	{ "print-settings", no_argument, NULL, OPT_PRINT_SETTINGS },
	{ NULL, 0, NULL, 0 }
};

/* The argument of option `flag` checked by its row of the settings table
 * (src/common/fe_settings.c), the same rule and words as the agent's for
 * its variable; the value into *v.  0, or a usage error (exit 2). */
static int
run_check(const char *flag, const char *arg, double *v)
{
	const yfe_setting *s = yfe_setting_by_flag(flag);
	char why[512];

	if (s == NULL)
		return cli_usage_error(&cli_cmd_run, "%s: not in the settings table", flag);
	if (yfe_setting_check(s, true, arg, v, why, sizeof(why)) != 0)
		return cli_usage_error(&cli_cmd_run, "%s", why);
	return 0;
}

/* The YING_* variables CMD inherits from our environment, checked by the
 * agent's rows now: a bad one is the same usage error as the flag's (the
 * agent would only go inert).  YING_AGENT_PID and YING_RUN_FD are ours. */
static int
run_check_env(void)
{
	size_t n;
	const yfe_setting *t = yfe_settings(&n);
	char why[512];

	for (size_t i = 0; i < n; i++) {
		const char *e = t[i].var ? getenv(t[i].var) : NULL;
		if (e == NULL || *e == '\0' || strcmp(t[i].var, "YING_AGENT_PID") == 0 ||
		    strcmp(t[i].var, "YING_RUN_FD") == 0 ||
		    strcmp(t[i].var, "YING_RUN_SINK") == 0)
			continue;
		if (yfe_setting_check(&t[i], false, e, NULL, why, sizeof(why)) != 0)
			return cli_usage_error(&cli_cmd_run, "%s", why);
	}
	return 0;
}

/* MALLOC_CONF (and a prefixed jemalloc's own variable: Rust's _rjem_):
 * prof:true; sampling starts inactive and the agent turns it on once its
 * own libraries are initialized (their start-up allocations are not the
 * program's), unless the user chose prof_active or nothing can be
 * preloaded (user_active); --sample, --accum.  0 or -1 (said). */
static int
run_malloc_conf(const elf_scan *sc, bool user_active, int sample, bool accum,
    bool verbose)
{
	const char *keys[4], *vals[4];
	char lgbuf[16], *conf;
	size_t nk = 0;
	int rc = 0;

	keys[nk] = "prof";
	vals[nk++] = "true";
	if (!user_active) {
		keys[nk] = "prof_active";
		vals[nk++] = "false";
	}
	if (sample >= 0) {
		snprintf(lgbuf, sizeof(lgbuf), "%d", sample);
		keys[nk] = "lg_prof_sample";
		vals[nk++] = lgbuf;
	}
	if (accum) {
		keys[nk] = "prof_accum";
		vals[nk++] = "true";
	}
	if ((conf = merge_conf(getenv("MALLOC_CONF"), keys, vals, nk)) == NULL ||
	    run_set_env("MALLOC_CONF", conf, verbose) != 0)
		rc = -1;
	free(conf);
	conf = NULL;
	/* A prefixed jemalloc (Rust's _rjem_) reads its own variable. */
	if (rc == 0 && sc->jemalloc_defined && sc->jem.prefix[0]) {
		if ((conf = merge_conf(getenv(sc->jem.conf_var), keys, vals, nk)) == NULL ||
		    run_set_env(sc->jem.conf_var, conf, verbose) != 0)
			rc = -1;
		free(conf);
	}
	return rc;
}

static int
run_checked(const char *name, const char **out, double *v)
{
	int rc = run_check(name, optarg, v);

	if (rc == 0)
		*out = optarg;
	return rc != 0 ? rc : RUN_GO;
}

/* One option c of the command line into a; RUN_GO or the exit code. */
static int
run_option(run_args *a, int c)
{
	double v;
	int rc;

	switch (c) {
	case OPT_HTTP: a->http = optarg; break;
	case OPT_TOKEN: a->token = optarg; break;
	case OPT_HTTP_INSECURE: a->insecure = true; break;
	case OPT_HTTP_OPEN: a->open_all = true; break;
	case OPT_HTTP_ALLOW_HOST:
		if (optarg[0] == '\0' || strlen(a->allow) + strlen(optarg) + 2 > sizeof(a->allow))
			return cli_usage_error(&cli_cmd_run, "--http-allow-host '%s': "
			    "empty, or the names are longer than %zu characters",
			    optarg, sizeof(a->allow) - 1);
		if (a->allow[0])
			strcat(a->allow, ",");
		strcat(a->allow, optarg);
		break;
	case OPT_TOKEN_FILE: a->token_file = optarg; break;
	case OPT_REPORT_DIR: a->dir = optarg; break;
	/* numbers and the signal: checked by their rows of the settings
	 * table and handed on as written */
	case OPT_INTERVAL: return run_checked("--interval", &a->interval, &v);
	case OPT_PCT: return run_checked("--pct", &a->pct, &v);
	case OPT_FLOOR: return run_checked("--floor", &a->floor_s, &v);
	case OPT_LIMIT: return run_checked("--limit", &a->limit, &v);
	case OPT_LIMIT_REPORTS: return run_checked("--limit-reports", &a->limit_reports, &v);
	case OPT_PORTABLE: a->portable = true; break;
	case OPT_FULL_NAMES: a->full_names = true; break;
	case OPT_DUMP_SIGNAL: return run_checked("--dump-signal", &a->sigs, &v);
	case OPT_SAMPLE:
		if ((rc = run_check("--sample", optarg, &v)) != 0)
			return rc;
		a->sample = (int)v;
		break;
	case OPT_ACCUM: a->accum = true; break;
	case OPT_RECENT_MAX: return run_checked("--recent-max", &a->recent_max, &v);
	case OPT_GIANT: return run_checked("--giant", &a->giant, &v);
	case OPT_FRAMES: return run_checked("--frames", &a->frames, &v);
	case OPT_PRINT_SETTINGS:
		yfe_settings_print(stdout);
		return fflush(stdout) == 0 ? 0 : CLI_EXIT_ERR;
	case OPT_AGENT: a->agent_opt = optarg; break;
	case OPT_CHILDREN: return run_checked("--children", &a->children, &v);
	case OPT_HEAPS: return run_checked("--heaps", &a->heaps, &v);
	case OPT_USER: a->user = optarg; break;
	case OPT_PYRO: a->pa.o.url = optarg; break;
	case OPT_SERVICE: a->pa.o.service = optarg; break;
	case OPT_TAG:
	case OPT_PYRO_HEADER:
		if ((rc = cli_pyro_list_add(&cli_cmd_run, &a->pa.l, c == OPT_PYRO_HEADER,
		    optarg)) != 0)
			return rc;
		break;
	case OPT_PYRO_API: a->pa.o.api = optarg; break;
	case OPT_PYRO_INTERVAL:
		if ((rc = run_check("--pyroscope-interval", optarg, &v)) != 0)
			return rc;
		a->pa.interval = optarg;
		a->pa.o.interval = v;
		break;
	case OPT_PYRO_USER: a->pa.o.user = optarg; break;
	case OPT_PYRO_PASSWORD_FILE: a->pa.password_file = optarg; break;
	case OPT_PYRO_TOKEN_FILE: a->pa.token_file = optarg; break;
	case OPT_PYRO_TENANT: a->pa.o.tenant = optarg; break;
	case OPT_PYRO_MAX_SAMPLES:
		if ((rc = run_check("--pyroscope-max-samples", optarg, &v)) != 0)
			return rc;
		a->pa.max_samples = optarg;
		a->pa.o.max_samples = (size_t)v;
		break;
	case OPT_PYRO_MAX_BYTES:
		if ((rc = run_check("--pyroscope-max-bytes", optarg, &v)) != 0)
			return rc;
		a->pa.max_bytes = optarg;
		a->pa.o.max_bytes = (size_t)v;
		break;
	case 'q': a->quiet = true; break;
	case 'v': a->verbose = true; break;
	case 'h': return cli_help(&cli_cmd_run);
	default: return CLI_EXIT_USAGE;   /* cli_getopt said what */
	}
	return RUN_GO;
}

/* The endpoint's options, checked together (and against the environment
 * ying run passes on): a token needs an endpoint, a relative unix: path is
 * made absolute, the address is tried (check_http).  RUN_GO or the exit
 * code. */
static int
run_http_args(run_args *a)
{
	bool has_http = a->http != NULL || getenv("YING_HTTP") != NULL;
	int rc;

	if (a->token && a->token_file)
		return cli_usage_error(&cli_cmd_run, "--token and --token-file: give one");
	if ((a->token || a->token_file) && !has_http)
		return cli_usage_error(&cli_cmd_run, "%s needs --http",
		    a->token ? "--token" : "--token-file");
	if ((a->allow[0] || a->insecure || a->open_all) && !has_http)
		return cli_usage_error(&cli_cmd_run, "%s needs --http", a->insecure ?
		    "--http-insecure" : a->open_all ? "--http-open" : "--http-allow-host");
	if (a->http && strncmp(a->http, "unix:", 5) == 0 && a->http[5] != '/') {
		/* the agent (and its removal at exit) must not depend on CMD's
		 * working directory */
		char cwd[PATH_MAX];
		if (a->http[5] == '\0')
			return cli_usage_error(&cli_cmd_run, "--http unix:PATH: no path given");
		if (getcwd(cwd, sizeof(cwd)) == NULL || (size_t)snprintf(a->unix_abs,
		    sizeof(a->unix_abs), "unix:%s/%s", cwd, a->http + 5) >= sizeof(a->unix_abs))
			return cli_usage_error(&cli_cmd_run, "--http %s: cannot make the path "
			    "absolute", a->http);
		a->http = a->unix_abs;
	}
	if (!a->insecure) {
		const char *ei = getenv("YING_HTTP_INSECURE");
		a->insecure = ei && *ei && strcmp(ei, "0") != 0;
	}
	a->allowp = a->allow[0] ? a->allow : getenv("YING_HTTP_ALLOW_HOSTS");
	if (a->token)
		fprintf(stderr, "%s: warning: --token puts the token on the command line, "
		    "where every user of this machine can read it (ps, /proc/PID/cmdline); "
		    "write it into a file only you can read and give --token-file FILE\n",
		    cli_prog);
	if (a->token_file) {
		/* checked and handed on as its path: the agent reads it itself */
		char *secret = NULL;
		if ((rc = run_secret_file("--token-file", a->token_file, a->token_path,
		    sizeof(a->token_path), &secret)) != 0)
			return rc;
		rc = a->http ? check_http(a->http, secret, a->allowp, a->insecure) : 0;
		memset(secret, 0, strlen(secret));
		free(secret);
		if (rc != 0)
			return rc;
	} else if (a->http && (rc = check_http(a->http, a->token, a->allowp,
	    a->insecure)) != 0) {
		return rc;
	}
	return RUN_GO;
}

/* Nothing asked for: growth reports into ./ying-reports.  RUN_GO or the
 * exit code. */
static int
run_default_dir(run_args *a)
{
	if (a->http || a->dir || a->sigs || a->pa.o.url || a->giant || getenv("YING_GIANT") ||
	    getenv("YING_HTTP") || getenv("YING_REPORT_DIR") ||
	    getenv("YING_DUMP_SIGNAL") || getenv("YING_PYROSCOPE_URL"))
		return RUN_GO;
	if (make_private_dir(DEFAULT_REPORT_DIR) != 0)
		return CLI_EXIT_ERR;
	a->dir = DEFAULT_REPORT_DIR;
	fprintf(stderr, "%s: no --http, --report-dir or --dump-signal: growth "
	    "reports (at %s %% change, from %s) go to ./%s; choose with "
	    "--report-dir DIR, --http ADDR or --dump-signal SIG\n", cli_prog,
	    a->pct ? a->pct : "10", a->floor_s ? a->floor_s : "20MiB", DEFAULT_REPORT_DIR);
	return RUN_GO;
}

/* The program's environment: MALLOC_CONF, LD_PRELOAD (the agent, and
 * libjemalloc for a program that does not link it), the agent's
 * variables.  0 or -1. */
static int
run_environment(const run_args *a, const char *path, const char *agent)
{
	const char *preload = getenv("LD_PRELOAD");
	const char *heaps = a->heaps ? a->heaps : getenv("YING_HEAPS");
	bool user_active, heaps_all = heaps == NULL || *heaps == '\0' ||
	    strcmp(heaps, "one") != 0;
	elf_scan sc;
	int rc;

	memset(&sc, 0, sizeof(sc));
	run_scan_command(&sc, path);
	if (sc.is_static)
		fprintf(stderr, "%s: warning: %s is statically linked: nothing can "
		    "be preloaded into it (link libying and call ying_http_start or "
		    "ying_runner_start instead)\n", cli_prog, path);
	user_active = conf_has_key(getenv("MALLOC_CONF"), "prof_active") ||
	    sc.is_static;    /* no agent to turn it on */
	rc = run_malloc_conf(&sc, user_active, a->sample, a->accum, a->verbose);
	if (a->verbose)
		run_say_jemalloc(&sc);
	if (rc == 0 && !sc.is_static)
		rc = run_preload(&sc, path, agent, preload, heaps_all, a->verbose,
		    a->quiet);
	if (rc == 0)
		rc = run_agent_env(a, user_active);
	run_strlist_free(&sc.seen);
	free(sc.jemalloc_by);
	free(sc.jem_file);
	return rc;
}

static int
run_main(int argc, char **argv)
{
	char agent[PATH_MAX], *path = NULL;
	run_args a;
	int c, rc;

	memset(&a, 0, sizeof(a));
	a.sample = -1;
	a.pa.o.version = YING_PYROSCOPE_OPTS_VERSION;
	optind = 1;
	while ((c = cli_getopt(&cli_cmd_run, argc, argv, "+qvh", run_options)) != -1)
		if ((rc = run_option(&a, c)) != RUN_GO)
			return rc;
	if (optind >= argc)
		return cli_usage_error(&cli_cmd_run, "no command given");
	if ((rc = run_check_env()) != 0)
		return rc;
	if ((rc = run_http_args(&a)) != RUN_GO)
		return rc;
	if ((rc = run_pyro_setup(&a.pa, a.verbose)) != 0)
		return rc;
	if ((rc = run_user_lookup(&a)) != RUN_GO || (rc = run_default_dir(&a)) != RUN_GO ||
	    (rc = run_report_dir(&a)) != RUN_GO)
		return rc;
	if (run_find_in_path(argv[optind], &path) != 0) {
		fprintf(stderr, "%s: %s: command not found\n", cli_prog, argv[optind]);
		return 127;
	}
	if (run_find_agent(a.agent_opt, agent, sizeof(agent)) != 0 ||
	    run_preload_path_ok("the agent", agent) != 0 ||
	    run_environment(&a, path, agent) != 0) {
		free(path);
		return CLI_EXIT_ERR;
	}
	rc = run_child(path, argv + optind, &a);
	if (a.http && strncmp(a.http, "unix:", 5) == 0)
		run_unix_cleanup(a.http + 5);
	free(path);
	return rc;
}
