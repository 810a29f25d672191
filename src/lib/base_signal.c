/*
 * base_signal.c: signal names for dump requests (YING_DUMP_SIGNAL, ying
 * run --signal, the agent): "USR2", "SIGUSR2", "12", "RTMIN+2" parsed, and
 * numbers named; signals that must not be caught are refused.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base.h"

#define MIB 1048576.0
#define RUNNER_MAX_ENTRIES 100000  /* directory entries considered by prune */
#define REPORT_MAX_FRAMES 10       /* frames printed per stack */
#define PROGRAM_MAX 512            /* program label length */

/* ---- signal names (for YING_DUMP_SIGNAL and ying run) ------------------------- */

static const struct {
	const char *name;
	int sig;
	bool ok;                   /* may be used for dump requests */
} sig_table[] = {
	{ "HUP", SIGHUP, true }, { "INT", SIGINT, true }, { "QUIT", SIGQUIT, true },
	{ "ILL", SIGILL, false }, { "TRAP", SIGTRAP, false }, { "ABRT", SIGABRT, false },
	{ "BUS", SIGBUS, false }, { "FPE", SIGFPE, false }, { "KILL", SIGKILL, false },
	{ "USR1", SIGUSR1, true }, { "SEGV", SIGSEGV, false }, { "USR2", SIGUSR2, true },
	{ "PIPE", SIGPIPE, true }, { "ALRM", SIGALRM, true }, { "TERM", SIGTERM, true },
	{ "CHLD", SIGCHLD, false }, { "CONT", SIGCONT, false }, { "STOP", SIGSTOP, false },
	{ "TSTP", SIGTSTP, false }, { "TTIN", SIGTTIN, false }, { "TTOU", SIGTTOU, false },
	{ "URG", SIGURG, true }, { "XCPU", SIGXCPU, true }, { "XFSZ", SIGXFSZ, true },
	{ "VTALRM", SIGVTALRM, true }, { "PROF", SIGPROF, true }, { "WINCH", SIGWINCH, true },
	{ "IO", SIGIO, true }, { "PWR", SIGPWR, true }, { "SYS", SIGSYS, false },
};
#define NSIGTAB (sizeof(sig_table) / sizeof(sig_table[0]))

int
yi_signal_parse(const char *s, int *sig)
{
	const char *n = s;
	char *end;
	long v = -1;
	size_t i;

	if (s == NULL || sig == NULL || *s == '\0')
		return yi_error(YING_EINVAL, "no signal given");
	if (strncasecmp(n, "SIG", 3) == 0)
		n += 3;
	if (*n >= '0' && *n <= '9') {
		v = strtol(n, &end, 10);
		if (*end != '\0')
			v = -1;
	} else if (strncasecmp(n, "RTMIN", 5) == 0) {
		v = SIGRTMIN;
		if (n[5] == '+') {
			long k = strtol(n + 6, &end, 10);
			v = (end == n + 6 || *end != '\0') ? -1 : v + k;
		} else if (n[5] != '\0') {
			v = -1;
		}
	} else if (strncasecmp(n, "RTMAX", 5) == 0) {
		v = SIGRTMAX;
		if (n[5] == '-') {
			long k = strtol(n + 6, &end, 10);
			v = (end == n + 6 || *end != '\0') ? -1 : v - k;
		} else if (n[5] != '\0') {
			v = -1;
		}
	} else {
		for (i = 0; i < NSIGTAB; i++)
			if (strcasecmp(n, sig_table[i].name) == 0) {
				v = sig_table[i].sig;
				break;
			}
	}
	if (v <= 0 || v > SIGRTMAX)
		return yi_error(YING_EINVAL, "'%s' is not a signal (try USR2, SIGUSR2, "
		    "12, RTMIN+2)", s);
	for (i = 0; i < NSIGTAB; i++)
		if (sig_table[i].sig == v && !sig_table[i].ok)
			return yi_error(YING_EINVAL, "SIG%s cannot be used to request "
			    "dumps (use USR2, USR1, HUP, PWR or a real-time signal)",
			    sig_table[i].name);
	if (v > SIGSYS && v < SIGRTMIN)
		return yi_error(YING_EINVAL, "signal %ld is reserved by the C library", v);
	*sig = (int)v;
	return 0;
}

const char *
yi_signal_name(int sig, char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < NSIGTAB; i++)
		if (sig_table[i].sig == sig) {
			snprintf(buf, n, "SIG%s", sig_table[i].name);
			return buf;
		}
	if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		snprintf(buf, n, "SIGRTMIN+%d", sig - SIGRTMIN);
	else
		snprintf(buf, n, "signal %d", sig);
	return buf;
}

int
ying_signal_parse(const char *s, int *sig)
{
	if (sig == NULL)
		return yi_error(YING_EINVAL, "ying_signal_parse: no output pointer");
	return yi_signal_parse(s, sig);
}

const char *
ying_signal_name(int sig, char *buf, size_t n)
{
	return yi_signal_name(sig, buf, n);
}
