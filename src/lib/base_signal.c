/*
 * base_signal.c: signal names for dump requests (YING_DUMP_SIGNAL, ying
 * run --signal, the agent): "USR2", "SIGUSR2", "12", "RTMIN+2" parsed, and
 * numbers named.  Only signals nothing sends except on purpose may request
 * dumps: USR1, USR2, the real-time RTMIN..RTMAX, and WINCH and URG (ignored
 * by default, so catching them changes nothing for the host).  Refused: the
 * ones that ask a program to stop (HUP, INT, QUIT, TERM, PWR), that the
 * kernel raises on a fault, a limit or an event (SEGV, PIPE, XFSZ, XCPU,
 * CHLD, IO...), timers (ALRM, VTALRM, PROF), job control, KILL and STOP:
 * catching those would change the host's fate (it would survive a SIGTERM).
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
	{ "HUP", SIGHUP, false }, { "INT", SIGINT, false }, { "QUIT", SIGQUIT, false },
	{ "ILL", SIGILL, false }, { "TRAP", SIGTRAP, false }, { "ABRT", SIGABRT, false },
	{ "BUS", SIGBUS, false }, { "FPE", SIGFPE, false }, { "KILL", SIGKILL, false },
	{ "USR1", SIGUSR1, true }, { "SEGV", SIGSEGV, false }, { "USR2", SIGUSR2, true },
	{ "PIPE", SIGPIPE, false }, { "ALRM", SIGALRM, false }, { "TERM", SIGTERM, false },
	{ "CHLD", SIGCHLD, false }, { "CONT", SIGCONT, false }, { "STOP", SIGSTOP, false },
	{ "TSTP", SIGTSTP, false }, { "TTIN", SIGTTIN, false }, { "TTOU", SIGTTOU, false },
	{ "URG", SIGURG, true }, { "XCPU", SIGXCPU, false }, { "XFSZ", SIGXFSZ, false },
	{ "VTALRM", SIGVTALRM, false }, { "PROF", SIGPROF, false }, { "WINCH", SIGWINCH, true },
	{ "IO", SIGIO, false }, { "PWR", SIGPWR, false }, { "SYS", SIGSYS, false },
};
#define NSIGTAB (sizeof(sig_table) / sizeof(sig_table[0]))

/* A real-time offset: digits only (no sign, no spaces), at most the span
 * RTMIN..RTMAX; -1 otherwise (no overflow whatever the input). */
static long
rt_offset(const char *s)
{
	long k = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		k = k * 10 + (*s - '0');
		if (k > SIGRTMAX - SIGRTMIN)
			return -1;
	}
	return *s == '\0' ? k : -1;
}

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
		errno = 0;
		v = strtol(n, &end, 10);
		if (*end != '\0' || errno)
			v = -1;
	} else if (strncasecmp(n, "RTMIN", 5) == 0) {
		v = SIGRTMIN;
		if (n[5] == '+') {
			long k = rt_offset(n + 6);
			v = k < 0 ? -1 : v + k;
		} else if (n[5] != '\0') {
			v = -1;
		}
	} else if (strncasecmp(n, "RTMAX", 5) == 0) {
		v = SIGRTMAX;
		if (n[5] == '-') {
			long k = rt_offset(n + 6);
			v = k < 0 ? -1 : v - k;
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
			    "dumps: it would change what the signal does to the program "
			    "(use USR2, USR1, WINCH, URG or RTMIN..RTMAX)",
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
	yi_error_clear();    /* success leaves no stale detail (libying(3)) */
	if (sig == NULL)
		return yi_error(YING_EINVAL, "ying_signal_parse: no output pointer");
	return yi_signal_parse(s, sig);
}

const char *
ying_signal_name(int sig, char *buf, size_t n)
{
	return yi_signal_name(sig, buf, n);
}
