/*
 * test_signal.c: signal names for dump requests (yfe_signal_parse and
 * yfe_signal_name, the front ends' signal module, src/common/fe_signal.c):
 * names with and without SIG, any case, numbers, real-time offsets, and the
 * signals refused (fatal, job-control, reserved by the C library).
 */
#include <signal.h>

#include "internal.h"
#include "fe_signal.h"
#include "tap.h"

static char why[200];

/* 0, or YING_EINVAL with the reason in why */
static int
parse(const char *s, int *sig)
{
	why[0] = '\0';
	return yfe_signal_parse(s, sig, why, sizeof(why)) == 0 ? 0 : YING_EINVAL;
}

int
main(void)
{
	char buf[32];
	int sig = 0;

	ok(parse("USR2", &sig) == 0 && sig == SIGUSR2, "USR2");
	ok(parse("SIGUSR1", &sig) == 0 && sig == SIGUSR1, "SIGUSR1");
	ok(parse("sigusr1", &sig) == 0 && sig == SIGUSR1, "case-insensitive");
	ok(parse("12", &sig) == 0 && sig == 12, "a number");
	ok(parse("RTMIN+2", &sig) == 0 && sig == SIGRTMIN + 2, "RTMIN+2");
	ok(parse("SIGRTMAX-1", &sig) == 0 && sig == SIGRTMAX - 1, "SIGRTMAX-1");
	ok(parse("RTMIN", &sig) == 0 && sig == SIGRTMIN, "RTMIN");
	ok(parse("winch", &sig) == 0 && sig == SIGWINCH, "WINCH");
	ok(parse("URG", &sig) == 0 && sig == SIGURG, "URG");
	ok(parse("RTMAX", &sig) == 0 && sig == SIGRTMAX, "RTMAX");
	ok(parse("RTMAX-0", &sig) == 0 && sig == SIGRTMAX, "RTMAX-0");
	ok(parse("RTMIN+007", &sig) == 0 && sig == SIGRTMIN + 7, "RTMIN+007");
	sig = 0;
	is_int(parse("KILL", &sig), YING_EINVAL, "KILL refused");
	has_str(why, "SIGKILL cannot be used", "the error names the signal");
	is_int(sig, 0, "no signal stored on error");
	is_int(parse("SEGV", &sig), YING_EINVAL, "SEGV refused");
	is_int(parse("STOP", &sig), YING_EINVAL, "STOP refused");
	is_int(parse("9", &sig), YING_EINVAL, "9 refused");
	is_int(parse("0", &sig), YING_EINVAL, "0 refused");
	is_int(parse("33", &sig), YING_EINVAL, "a libc-reserved signal refused");
	is_int(parse("12x", &sig), YING_EINVAL, "a number with junk refused");
	is_int(parse("RTMIN+", &sig), YING_EINVAL, "RTMIN+ without a number refused");
	is_int(parse("RTMINUS", &sig), YING_EINVAL, "RTMINUS refused");
	is_int(parse("RTMAX+1", &sig), YING_EINVAL, "beyond RTMAX refused");
	is_int(parse("bogus", &sig), YING_EINVAL, "unknown name refused");
	has_str(why, "'bogus' is not a signal", "the error quotes the input");
	/* offsets: no overflow (UBSan), no sign, no spaces, within RTMIN..RTMAX */
	is_int(parse("RTMIN+9223372036854775807", &sig), YING_EINVAL,
	    "RTMIN+LONG_MAX refused (no signed overflow)");
	has_str(why, "is not a signal", "... as not a signal");
	is_int(parse("RTMIN+99999999999999999999999", &sig), YING_EINVAL,
	    "RTMIN+ beyond long refused");
	is_int(parse("RTMAX-9223372036854775807", &sig), YING_EINVAL,
	    "RTMAX-LONG_MAX refused (no signed overflow)");
	is_int(parse("RTMAX--9223372036854775807", &sig), YING_EINVAL,
	    "RTMAX minus a negative refused");
	is_int(parse("RTMIN+-1", &sig), YING_EINVAL, "RTMIN+-1 refused");
	is_int(parse("RTMAX-+1", &sig), YING_EINVAL, "RTMAX-+1 refused");
	is_int(parse("RTMIN+ 2", &sig), YING_EINVAL, "RTMIN+ 2 (space) refused");
	is_int(parse("RTMIN+\t2", &sig), YING_EINVAL, "RTMIN+<tab>2 refused");
	is_int(parse("RTMIN+1000", &sig), YING_EINVAL, "RTMIN+1000 refused");
	is_int(parse("99999999999999999999999", &sig), YING_EINVAL,
	    "a number beyond long refused");
	is_int(parse(" 12", &sig), YING_EINVAL, "a leading space refused");
	/* a dump signal must not change the host's fate: those that ask a
	 * program to stop, kernel-raised ones and timers are refused */
	is_int(parse("TERM", &sig), YING_EINVAL, "TERM refused");
	has_str(why, "SIGTERM cannot be used to request dumps",
	    "... and the error names it");
	is_int(parse("15", &sig), YING_EINVAL, "15 (TERM) refused");
	is_int(parse("INT", &sig), YING_EINVAL, "INT refused");
	is_int(parse("PIPE", &sig), YING_EINVAL, "PIPE refused");
	is_int(parse("XFSZ", &sig), YING_EINVAL, "XFSZ refused");
	is_int(parse("XCPU", &sig), YING_EINVAL, "XCPU refused");
	is_int(parse("HUP", &sig), YING_EINVAL, "HUP refused");
	is_int(parse("QUIT", &sig), YING_EINVAL, "QUIT refused");
	is_int(parse("ALRM", &sig), YING_EINVAL, "ALRM refused");
	is_int(parse("PROF", &sig), YING_EINVAL, "PROF refused");
	is_int(parse("PWR", &sig), YING_EINVAL, "PWR refused");
	is_int(parse("CHLD", &sig), YING_EINVAL, "CHLD refused");
	is_int(parse("ABRT", &sig), YING_EINVAL, "ABRT refused");
	is_int(parse("", &sig), YING_EINVAL, "empty refused");
	is_int(parse(NULL, &sig), YING_EINVAL, "NULL refused");
	is_int(parse("USR1", NULL), YING_EINVAL, "no output pointer refused");
	is_str(yfe_signal_name(SIGUSR2, buf, sizeof(buf)), "SIGUSR2", "name of SIGUSR2");
	is_str(yfe_signal_name(SIGRTMIN + 3, buf, sizeof(buf)), "SIGRTMIN+3", "name of RTMIN+3");
	is_str(yfe_signal_name(SIGHUP, buf, sizeof(buf)), "SIGHUP", "name of SIGHUP");
	is_str(yfe_signal_name(0, buf, sizeof(buf)), "signal 0", "a number without a name");

	/* the library helpers the front ends use (ying.h) */
	yi_error(YING_EINVAL, "x");
	ying_error_clear();
	is_str(ying_last_error(), "", "ying_error_clear empties the detail");
	is_str(ying_format_bytes(1536.0 * 1024, buf, sizeof(buf)), "1.50 MiB",
	    "ying_format_bytes 1.50 MiB");
	is_str(ying_format_bytes(512, buf, sizeof(buf)), "512 B", "ying_format_bytes 512 B");
	return tap_done();
}
