/*
 * agent_config.c: the agent's configuration, read once in the constructor
 * from the YING_* variables (the program may change its environment
 * later): YING_HTTP, YING_HTTP_TOKEN or YING_HTTP_TOKEN_FILE (the token
 * wiped from the environment once read), YING_HTTP_ALLOW_HOSTS,
 * YING_HTTP_INSECURE, YING_HTTP_OPEN, YING_REPORT_DIR and the runner's
 * YING_REPORT_* (yfe_runner_opts_from_env), YING_DUMP_SIGNAL, the
 * Pyroscope uploader's YING_PYROSCOPE_* (its password and token read from
 * their files, then wiped and unset), YING_QUIET,
 * YING_VERBOSE, YING_HTTP_REQUIRED, YING_RECENT_MAX, YING_GIANT, and from
 * `ying run` YING_RUN_FD and YING_AGENT_PID.  Numbers, bools and the signal
 * are checked by their rows of the settings table (src/common, fe.h), as
 * `ying run` checks its flags.  A bad or too long value makes the agent
 * inert with one line naming the variable; nothing set means nothing to do.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "fe.h"

char cfg_http[256];
char cfg_token[4097];
char cfg_allow_hosts[1024];
bool cfg_insecure;
bool cfg_open;
char cfg_dir[PATH_MAX];
ying_runner_opts cfg_runner = YING_RUNNER_OPTS_INIT;
int cfg_signal;
bool cfg_quiet;
bool cfg_required;
bool cfg_verbose;
ying_pyroscope_opts cfg_pyro = YING_PYROSCOPE_OPTS_INIT;
int64_t cfg_recent_max = YING_RECENT_KEEP;
uint64_t cfg_giant;
char *cfg_frames;
int cfg_children = CHILDREN_LONG;
long cfg_children_ms = CHILDREN_LONG_MS;
bool cfg_exec_member;
char cfg_family[40];

/* YING_PYROSCOPE_*, copied (the secrets wiped from the environment). */
static char pyro_url[1024], pyro_service[129], pyro_tags[2048], pyro_api[16];
static char pyro_user[256], pyro_tenant[256], pyro_password[4097], pyro_token[4097];
static char pyro_headers[4097];
static const char *pyro_header_lines[17];

/* A YING_* flag: set, not empty, not "0". */
bool
env_true(const char *name)
{
	const char *s = getenv(name);

	return s != NULL && *s && strcmp(s, "0") != 0;
}

/* Copy variable `name` into dst[n]; too long: the reason into why[wn]. */
static int
copy_env(const char *name, char *dst, size_t n, char *why, size_t wn)
{
	const char *s = getenv(name);

	dst[0] = '\0';
	if (s == NULL || *s == '\0')
		return 0;
	if (strlen(s) >= n) {
		snprintf(why, wn, "%s is too long (%zu bytes at most)", name, n - 1);
		return YING_EINVAL;
	}
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

/* Forget variable `name`: its bytes are overwritten where they are (so
 * not even /proc/PID/environ shows them any more) and it is unset, so
 * nothing the program starts inherits it.  Runs in the constructor,
 * before any thread of the agent exists. */
static void
scrub_env(const char *name)
{
	char *v = getenv(name);

	if (v == NULL)
		return;
	memset(v, 0, strlen(v));
	unsetenv(name);
}

/* The first line of file `path` (a secret: password or token) into
 * dst[n]; false with the reason in why[wn]. */
static bool
read_secret_file(const char *var, const char *path, char *dst, size_t n, char *why,
    size_t wn)
{
	struct stat st;
	ssize_t r;
	size_t len = 0;
	int fd;

	dst[0] = '\0';
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0) {
		snprintf(why, wn, "%s=%s: %s", var, path, strerror(errno));
		return false;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 077))
		say("ying-agent: warning: %s=%s can be read by other users (chmod 600 it)",
		    var, path);
	while (len < n - 1 && (r = read(fd, dst + len, n - 1 - len)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(why, wn, "%s=%s: %s", var, path, strerror(errno));
			close(fd);
			memset(dst, 0, n);
			return false;
		}
		len += (size_t)r;
	}
	close(fd);
	dst[len] = '\0';
	dst[strcspn(dst, "\r\n")] = '\0';
	if (dst[0] == '\0' || strlen(dst) >= n - 1) {
		memset(dst, 0, n);
		snprintf(why, wn, "%s=%s: %s", var, path, len == 0 || dst[0] == '\0' ?
		    "the first line is empty" : "the first line is too long");
		return false;
	}
	return true;
}

/* The endpoint's token into cfg_token: YING_HTTP_TOKEN_FILE (its first
 * line; preferred when both are set) or YING_HTTP_TOKEN.  YING_HTTP_TOKEN
 * is then wiped and unset, whatever happens next, so that nothing the
 * program starts inherits it and /proc/PID/environ no longer shows it;
 * YING_HTTP_TOKEN_ERASED=1 takes its place, so that a program image this
 * process execs into (the agent starts over there) refuses to serve
 * without the token rather than serve without it.  The file's path stays:
 * that image reads the file again.  false: inert (the reason in why). */
static bool
http_token_read(char *why, size_t wn)
{
	const char *f = getenv("YING_HTTP_TOKEN_FILE");
	const char *t = getenv("YING_HTTP_TOKEN");
	bool had = t != NULL && *t, ok = true;

	if (f != NULL && *f)
		ok = read_secret_file("YING_HTTP_TOKEN_FILE", f, cfg_token,
		    sizeof(cfg_token), why, wn);
	else if (copy_env("YING_HTTP_TOKEN", cfg_token, sizeof(cfg_token), why, wn) != 0)
		ok = false;
	scrub_env("YING_HTTP_TOKEN");
	if (had) {
		setenv("YING_HTTP_TOKEN_ERASED", "1", 1);
	} else if (ok && cfg_token[0] == '\0' && env_true("YING_HTTP_TOKEN_ERASED") &&
	    getenv("YING_HTTP") != NULL && *getenv("YING_HTTP")) {
		snprintf(why, wn, "YING_HTTP_TOKEN was erased from the environment by "
		    "the agent before this program was exec'd, so the endpoint would "
		    "have no token: give it as YING_HTTP_TOKEN_FILE (ying run "
		    "--token-file), which is read again after an exec");
		ok = false;
	}
	return ok;
}

/* YING_PYROSCOPE_* into cfg_pyro.  The secrets (the variables holding
 * them or naming their files) are read and scrubbed first, whatever
 * happens next.  false: inert (the reason in why). */
static bool
pyro_config_read(char *why, size_t wn)
{
	static const char *const secret_vars[] = { "YING_PYROSCOPE_PASSWORD",
	    "YING_PYROSCOPE_PASSWORD_FILE", "YING_PYROSCOPE_TOKEN",
	    "YING_PYROSCOPE_TOKEN_FILE", "YING_PYROSCOPE_HEADERS", NULL };
	const char *s;
	bool ok = true;
	int rc;

	/* secrets: a file (preferred) or the variable itself */
	if ((s = getenv("YING_PYROSCOPE_PASSWORD_FILE")) != NULL && *s)
		ok = read_secret_file("YING_PYROSCOPE_PASSWORD_FILE", s, pyro_password,
		    sizeof(pyro_password), why, wn);
	else if (copy_env("YING_PYROSCOPE_PASSWORD", pyro_password,
	    sizeof(pyro_password), why, wn) != 0)
		ok = false;
	if (ok && (s = getenv("YING_PYROSCOPE_TOKEN_FILE")) != NULL && *s)
		ok = read_secret_file("YING_PYROSCOPE_TOKEN_FILE", s, pyro_token,
		    sizeof(pyro_token), why, wn);
	else if (ok && copy_env("YING_PYROSCOPE_TOKEN", pyro_token, sizeof(pyro_token),
	    why, wn) != 0)
		ok = false;
	/* extra headers may carry keys too: "Name: value" lines */
	if (ok && copy_env("YING_PYROSCOPE_HEADERS", pyro_headers, sizeof(pyro_headers),
	    why, wn) != 0)
		ok = false;
	for (int i = 0; secret_vars[i]; i++)
		scrub_env(secret_vars[i]);
	if (!ok)
		return false;
	if ((rc = copy_env("YING_PYROSCOPE_URL", pyro_url, sizeof(pyro_url), why, wn)) != 0 ||
	    (rc = copy_env("YING_PYROSCOPE_SERVICE", pyro_service, sizeof(pyro_service),
	    why, wn)) != 0 ||
	    (rc = copy_env("YING_PYROSCOPE_TAGS", pyro_tags, sizeof(pyro_tags), why, wn)) != 0 ||
	    (rc = copy_env("YING_PYROSCOPE_API", pyro_api, sizeof(pyro_api), why, wn)) != 0 ||
	    (rc = copy_env("YING_PYROSCOPE_USER", pyro_user, sizeof(pyro_user), why, wn)) != 0 ||
	    (rc = copy_env("YING_PYROSCOPE_TENANT", pyro_tenant, sizeof(pyro_tenant), why,
	    wn)) != 0)
		return false;
	if (pyro_url[0] == '\0') {
		if (pyro_password[0] || pyro_token[0] || pyro_service[0] || pyro_tags[0]) {
			snprintf(why, wn, "YING_PYROSCOPE_* without YING_PYROSCOPE_URL");
			return false;
		}
		return true;
	}
	cfg_pyro.url = pyro_url;
	cfg_pyro.service = pyro_service[0] ? pyro_service : NULL;
	cfg_pyro.tags = pyro_tags[0] ? pyro_tags : NULL;
	cfg_pyro.api = pyro_api[0] ? pyro_api : NULL;
	cfg_pyro.user = pyro_user[0] ? pyro_user : NULL;
	cfg_pyro.password = pyro_password[0] ? pyro_password : NULL;
	cfg_pyro.token = pyro_token[0] ? pyro_token : NULL;
	cfg_pyro.tenant = pyro_tenant[0] ? pyro_tenant : NULL;
	if (pyro_headers[0]) {
		size_t k = 0;
		for (char *line = pyro_headers, *nl; line && *line; line = nl) {
			if ((nl = strchr(line, '\n')) != NULL)
				*nl++ = '\0';
			if (*line == '\0')
				continue;
			if (k == sizeof(pyro_header_lines) / sizeof(pyro_header_lines[0]) - 1) {
				snprintf(why, wn, "YING_PYROSCOPE_HEADERS: more than %zu lines", k);
				return false;
			}
			pyro_header_lines[k++] = line;
		}
		pyro_header_lines[k] = NULL;
		cfg_pyro.headers = pyro_header_lines;
	}
	{
		double v;
		bool set;
		if (yfe_env_num("YING_PYROSCOPE_INTERVAL", &v, &set, why, wn) != 0)
			return false;
		if (set)
			cfg_pyro.interval = v;
		if (yfe_env_num("YING_PYROSCOPE_MAX_SAMPLES", &v, &set, why, wn) != 0)
			return false;
		if (set)
			cfg_pyro.max_samples = (size_t)v;
		if (yfe_env_num("YING_PYROSCOPE_MAX_BYTES", &v, &set, why, wn) != 0)
			return false;
		if (set)
			cfg_pyro.max_bytes = (size_t)v;
	}
	if (ying_pyroscope_check(&cfg_pyro) != 0) {
		snprintf(why, wn, "YING_PYROSCOPE_*: %s", ying_last_error());
		return false;
	}
	return true;
}

/* YING_CHILDREN: "none", "long" (3 s), "long:SECONDS" or "all"; unset:
 * long.  YING_FAMILY (a valid id) into cfg_family.  false:
 * a bad value (why). */
static bool
children_read(char *why, size_t wn)
{
	const char *s = getenv("YING_CHILDREN"), *f = getenv("YING_FAMILY");

	if (f && yi_family_set(f, 0) == 0 && f[0])
		snprintf(cfg_family, sizeof(cfg_family), "%s", f);
	yi_family_set(NULL, 0);
	ying_error_clear();
	{
		/* the settings table's one parser (ying run --children) */
		yfe_children mode;
		double secs;
		char msg[300];
		if (yfe_children_parse(s, &mode, &secs, msg, sizeof(msg)) != 0) {
			snprintf(why, wn, "YING_CHILDREN=%.100s: %s", s, msg);
			return false;
		}
		cfg_children = mode == YFE_CHILDREN_NONE ? CHILDREN_NONE :
		    mode == YFE_CHILDREN_ALL ? CHILDREN_ALL : CHILDREN_LONG;
		cfg_children_ms = mode == YFE_CHILDREN_LONG ? (long)(secs * 1000) : 0;
	}
	return true;
}

/* Is YING_FAMILY_HEAD another process (this image was exec'd in a member
 * or a child of the head)? */
static bool
family_elsewhere(void)
{
	const char *h = getenv("YING_FAMILY_HEAD");
	char *end;
	long v;

	if (cfg_family[0] == '\0' || h == NULL || *h == '\0')
		return false;
	v = strtol(h, &end, 10);
	return *end == '\0' && v > 0 && v != (long)getpid();
}

/* YING_RUN_SINK, set by ying run: the socket of the report keeper, for
 * runners of this process (or of a forked member, which inherits it; or
 * an exec'd image: it is not close-on-exec) that can no longer write
 * their directory because the process switched user.  A bad one is not
 * the user's: only ignored (yi_runner_set_sink takes only a SOCK_SEQPACKET
 * socket and forgets it once the number is something else). */
static void
config_run_sink(void)
{
	double fd;
	bool set;
	char ignored[200];

	if (yfe_env_num("YING_RUN_SINK", &fd, &set, ignored, sizeof(ignored)) == 0 && set)
		yi_runner_set_sink((int)fd);
}

bool
agent_config_read(void)
{
	const char *s;
	char why[1100];
	double pid;
	bool pid_set;
	int rc;

	if (!children_read(why, sizeof(why))) {
		go_inert(why);
		return false;
	}
	/* Under `ying run`, only the process it started is the head; an image
	 * exec'd anywhere else in the family (YING_AGENT_PID or
	 * YING_FAMILY_HEAD naming another pid) may only become a member, and
	 * without a family, or with YING_CHILDREN=none, it stays out.  Its
	 * secrets are erased either way: a member needs none. */
	if (yfe_env_num("YING_AGENT_PID", &pid, &pid_set, why, sizeof(why)) != 0 ||
	    (pid_set && (long)pid != (long)getpid()) || family_elsewhere()) {
		s = getenv("YING_AGENT_PID");
		/* a secret that reached us anyway goes no further */
		scrub_env("YING_HTTP_TOKEN");
		scrub_env("YING_PYROSCOPE_PASSWORD");
		scrub_env("YING_PYROSCOPE_TOKEN");
		scrub_env("YING_PYROSCOPE_HEADERS");
		if (cfg_family[0] == '\0' || cfg_children == CHILDREN_NONE) {
			if (s)
				set_state("off: YING_AGENT_PID=%s is another process", s);
			else
				set_state("off: YING_FAMILY_HEAD=%s is another process",
				    getenv("YING_FAMILY_HEAD"));
			return false;
		}
		cfg_exec_member = true;
		set_state("off: an image exec'd in the family; a member once it has "
		    "lived %ld ms", cfg_children_ms);
	}
	self_pid = getpid();
	if (!cfg_exec_member) {
		/* both read (and their secrets erased) whatever the other says */
		char why_tok[1100];
		bool tok_ok = http_token_read(why_tok, sizeof(why_tok));
		bool pyro_ok = pyro_config_read(why, sizeof(why));
		if (!tok_ok || !pyro_ok) {
			go_inert(tok_ok ? why : why_tok);
			return false;
		}
	}
	if (yfe_env_bool("YING_QUIET", &cfg_quiet, why, sizeof(why)) != 0 ||
	    yfe_env_bool("YING_VERBOSE", &cfg_verbose, why, sizeof(why)) != 0 ||
	    yfe_env_bool("YING_HTTP_REQUIRED", &cfg_required, why, sizeof(why)) != 0 ||
	    yfe_env_bool("YING_HTTP_INSECURE", &cfg_insecure, why, sizeof(why)) != 0 ||
	    yfe_env_bool("YING_HTTP_OPEN", &cfg_open, why, sizeof(why)) != 0) {
		go_inert(why);
		return false;
	}
	{
		/* set by ying run: a bad one is not the user's, and only ignored */
		double fd;
		bool set;
		struct stat st;
		char ignored[200];
		/* An exec'd image never takes it: a forked child made it
		 * close-on-exec, so that number is now the program's own (sshd
		 * passes its configuration on a pipe there). */
		if (!cfg_exec_member &&
		    yfe_env_num("YING_RUN_FD", &fd, &set, ignored, sizeof(ignored)) == 0 &&
		    set && fstat((int)fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
			run_fd = (int)fd;
			run_dev = st.st_dev;
			run_ino = st.st_ino;
			/* a `ying run` that stopped reading never blocks a process */
			fcntl(run_fd, F_SETFL, fcntl(run_fd, F_GETFL) | O_NONBLOCK);
		}
	}
	config_run_sink();
	if ((rc = copy_env("YING_HTTP", cfg_http, sizeof(cfg_http), why, sizeof(why))) != 0 ||
	    (rc = copy_env("YING_HTTP_ALLOW_HOSTS", cfg_allow_hosts, sizeof(cfg_allow_hosts),
	    why, sizeof(why))) != 0 ||
	    (rc = copy_env("YING_REPORT_DIR", cfg_dir, sizeof(cfg_dir), why, sizeof(why))) != 0) {
		go_inert(why);
		return false;
	}
	if (yfe_runner_opts_from_env(&cfg_runner, why, sizeof(why)) != 0) {
		go_inert(why);
		return false;
	}
	{
		/* YING_RECENT_MAX: experimental.prof_recent.alloc_max, a count,
		 * never -1 (unlimited) */
		double sig, recent, giant;
		bool sig_set, recent_set, giant_set;
		if (yfe_env_num("YING_DUMP_SIGNAL", &sig, &sig_set, why, sizeof(why)) != 0 ||
		    yfe_env_num("YING_RECENT_MAX", &recent, &recent_set, why,
		    sizeof(why)) != 0 ||
		    yfe_env_num("YING_GIANT", &giant, &giant_set, why, sizeof(why)) != 0) {
			go_inert(why);
			return false;
		}
		if (sig_set)
			cfg_signal = (int)sig;
		if (recent_set)
			cfg_recent_max = (int64_t)recent;
		if (giant_set)
			cfg_giant = (uint64_t)giant;
	}
	if (cfg_exec_member) {
		/* a member of the family: its reports and its endpoint only */
		cfg_signal = 0;
		cfg_giant = 0;
		cfg_recent_max = YING_RECENT_KEEP;
		if (cfg_http[0] == '\0' && cfg_dir[0] == '\0') {
			set_state("off: an image exec'd in the family, with nothing to do");
			return false;
		}
	}
	if (cfg_http[0] == '\0' && cfg_dir[0] == '\0' && cfg_signal == 0 &&
	    cfg_pyro.url == NULL && cfg_giant == 0) {
		go_inert("nothing to do: set YING_HTTP, YING_REPORT_DIR, "
		    "YING_DUMP_SIGNAL, YING_PYROSCOPE_URL or YING_GIANT (see ying-agent(7))");
		return false;
	}
	/* the user's allocator frames (ying/frames, YING_DROP_FRAMES), read
	 * once: a bad entry or an unreadable file is a warning and left out,
	 * never the program's problem */
	if (yfe_frames_load(&cfg_frames, false, stderr, "ying-agent", why, sizeof(why)) != 0)
		say("ying-agent: pid %ld: allocator frames not read: %s", (long)getpid(), why);
	cfg_runner.frames = cfg_pyro.frames = cfg_frames;
	return true;
}

bool
agent_config_dir(void)
{
	if (cfg_dir[0] && cfg_dir[0] != '/') {
		/* A daemon changes directory: keep the one meant at start. */
		char cwd[PATH_MAX];
		if (getcwd(cwd, sizeof(cwd)) == NULL ||
		    strlen(cwd) + strlen(cfg_dir) + 2 > sizeof(cfg_dir)) {
			go_inert("YING_REPORT_DIR: cannot make it absolute");
			return false;
		}
		memmove(cfg_dir + strlen(cwd) + 1, cfg_dir, strlen(cfg_dir) + 1);
		memcpy(cfg_dir, cwd, strlen(cwd));
		cfg_dir[strlen(cwd)] = '/';
		/* and the images exec'd in the family (members) find it too,
		 * whatever their working directory (still the constructor) */
		if (!cfg_exec_member)
			setenv("YING_REPORT_DIR", cfg_dir, 1);
	}
	if (cfg_dir[0]) {
		cfg_runner.dir = cfg_dir;
	} else if (cfg_signal) {
		/* Dumps on request only, into a private directory. */
		const char *tmp = getenv("TMPDIR");
		if (tmp == NULL || tmp[0] != '/' || strlen(tmp) > PATH_MAX - 64)
			tmp = "/tmp";
		/* A fresh name made by mkdtemp (0700, never one that exists): a
		 * predictable ying-<pid> could be pre-created by another user. */
		snprintf(cfg_dir, sizeof(cfg_dir), "%s/ying-%ld-XXXXXX", tmp,
		    (long)getpid());
		if (mkdtemp(cfg_dir) == NULL) {
			char why[PATH_MAX + 100];
			snprintf(why, sizeof(why), "cannot create a report directory in "
			    "%s: %s", tmp, strerror(errno));
			cfg_dir[0] = '\0';
			go_inert(why);
			return false;
		}
		cfg_runner.dir = cfg_dir;
		cfg_runner.interval = 0;
	}
	return true;
}
