/*
 * agent_config.c: the agent's configuration, read once in the constructor
 * from the YING_* variables (the program may change its environment
 * later): YING_HTTP, YING_HTTP_TOKEN, YING_REPORT_DIR and the runner's
 * YING_REPORT_* (ying_runner_opts_from_env), YING_DUMP_SIGNAL, YING_QUIET,
 * YING_VERBOSE, YING_HTTP_REQUIRED, and from `ying run` YING_RUN_FD and
 * YING_AGENT_PID.  A bad or too long value makes the agent inert with one
 * line naming the variable; nothing set means nothing to do.
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

char cfg_http[256];
char cfg_token[4097];
char cfg_dir[PATH_MAX];
ying_runner_opts cfg_runner = YING_RUNNER_OPTS_INIT;
int cfg_signal;
bool cfg_quiet;
bool cfg_required;
bool cfg_verbose;

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

bool
agent_config_read(void)
{
	const char *s;
	char why[1100];
	int rc;

	/* Under `ying run`, only the process it started carries the agent; the
	 * programs that one starts inherit the variables but stay out. */
	if ((s = getenv("YING_AGENT_PID")) != NULL && *s &&
	    strtol(s, NULL, 10) != (long)getpid()) {
		set_state("off: YING_AGENT_PID=%s is another process", s);
		return false;
	}
	self_pid = getpid();
	cfg_quiet = env_true("YING_QUIET");
	cfg_verbose = env_true("YING_VERBOSE");
	cfg_required = env_true("YING_HTTP_REQUIRED");
	if ((s = getenv("YING_RUN_FD")) != NULL && *s) {
		char *end;
		long fd = strtol(s, &end, 10);
		struct stat st;
		if (*end == '\0' && fd > 2 && fd < INT_MAX && fstat((int)fd, &st) == 0 &&
		    S_ISFIFO(st.st_mode)) {
			run_fd = (int)fd;
			run_dev = st.st_dev;
			run_ino = st.st_ino;
		}
	}
	if ((rc = copy_env("YING_HTTP", cfg_http, sizeof(cfg_http), why, sizeof(why))) != 0 ||
	    (rc = copy_env("YING_HTTP_TOKEN", cfg_token, sizeof(cfg_token), why,
	    sizeof(why))) != 0 ||
	    (rc = copy_env("YING_REPORT_DIR", cfg_dir, sizeof(cfg_dir), why, sizeof(why))) != 0) {
		go_inert(why);
		return false;
	}
	if ((rc = ying_runner_opts_from_env(&cfg_runner)) != 0) {
		go_inert(ying_last_error());
		return false;
	}
	if ((s = getenv("YING_DUMP_SIGNAL")) != NULL && *s &&
	    ying_signal_parse(s, &cfg_signal) != 0) {
		snprintf(why, sizeof(why), "YING_DUMP_SIGNAL: %s", ying_last_error());
		go_inert(why);
		return false;
	}
	if (cfg_http[0] == '\0' && cfg_dir[0] == '\0' && cfg_signal == 0) {
		go_inert("nothing to do: set YING_HTTP, YING_REPORT_DIR or "
		    "YING_DUMP_SIGNAL (see ying-agent(7))");
		return false;
	}
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
	}
	if (cfg_dir[0]) {
		cfg_runner.dir = cfg_dir;
	} else if (cfg_signal) {
		/* Dumps on request only, into a private directory. */
		const char *tmp = getenv("TMPDIR");
		if (tmp == NULL || tmp[0] != '/' || strlen(tmp) > PATH_MAX - 64)
			tmp = "/tmp";
		snprintf(cfg_dir, sizeof(cfg_dir), "%s/ying-%ld", tmp, (long)getpid());
		cfg_runner.dir = cfg_dir;
		cfg_runner.interval = 0;
	}
	return true;
}
