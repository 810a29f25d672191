/*
 * test_signal.c: signal names for dump requests (yi_signal_parse and
 * yi_signal_name; the signal module): names with and without SIG, any
 * case, numbers, real-time offsets, and the signals refused (fatal,
 * job-control, reserved by the C library).
 */
#include <signal.h>

#include "internal.h"
#include "tap.h"

int
main(void)
{
	char buf[32];
	int sig = 0;

	ok(yi_signal_parse("USR2", &sig) == 0 && sig == SIGUSR2, "USR2");
	ok(yi_signal_parse("SIGUSR1", &sig) == 0 && sig == SIGUSR1, "SIGUSR1");
	ok(yi_signal_parse("sigusr1", &sig) == 0 && sig == SIGUSR1, "case-insensitive");
	ok(yi_signal_parse("12", &sig) == 0 && sig == 12, "a number");
	ok(yi_signal_parse("RTMIN+2", &sig) == 0 && sig == SIGRTMIN + 2, "RTMIN+2");
	ok(yi_signal_parse("SIGRTMAX-1", &sig) == 0 && sig == SIGRTMAX - 1, "SIGRTMAX-1");
	ok(yi_signal_parse("RTMIN", &sig) == 0 && sig == SIGRTMIN, "RTMIN");
	ok(yi_signal_parse("winch", &sig) == 0 && sig == SIGWINCH, "WINCH");
	ok(yi_signal_parse("URG", &sig) == 0 && sig == SIGURG, "URG");
	ok(yi_signal_parse("RTMAX", &sig) == 0 && sig == SIGRTMAX, "RTMAX");
	ok(yi_signal_parse("RTMAX-0", &sig) == 0 && sig == SIGRTMAX, "RTMAX-0");
	ok(yi_signal_parse("RTMIN+007", &sig) == 0 && sig == SIGRTMIN + 7, "RTMIN+007");
	sig = 0;
	is_int(yi_signal_parse("KILL", &sig), YING_EINVAL, "KILL refused");
	has_str(ying_last_error(), "SIGKILL cannot be used", "the error names the signal");
	is_int(sig, 0, "no signal stored on error");
	is_int(yi_signal_parse("SEGV", &sig), YING_EINVAL, "SEGV refused");
	is_int(yi_signal_parse("STOP", &sig), YING_EINVAL, "STOP refused");
	is_int(yi_signal_parse("9", &sig), YING_EINVAL, "9 refused");
	is_int(yi_signal_parse("0", &sig), YING_EINVAL, "0 refused");
	is_int(yi_signal_parse("33", &sig), YING_EINVAL, "a libc-reserved signal refused");
	is_int(yi_signal_parse("12x", &sig), YING_EINVAL, "a number with junk refused");
	is_int(yi_signal_parse("RTMIN+", &sig), YING_EINVAL, "RTMIN+ without a number refused");
	is_int(yi_signal_parse("RTMINUS", &sig), YING_EINVAL, "RTMINUS refused");
	is_int(yi_signal_parse("RTMAX+1", &sig), YING_EINVAL, "beyond RTMAX refused");
	is_int(yi_signal_parse("bogus", &sig), YING_EINVAL, "unknown name refused");
	has_str(ying_last_error(), "'bogus' is not a signal", "the error quotes the input");
	/* offsets: no overflow (UBSan), no sign, no spaces, within RTMIN..RTMAX */
	is_int(yi_signal_parse("RTMIN+9223372036854775807", &sig), YING_EINVAL,
	    "RTMIN+LONG_MAX refused (no signed overflow)");
	has_str(ying_last_error(), "is not a signal", "... as not a signal");
	is_int(yi_signal_parse("RTMIN+99999999999999999999999", &sig), YING_EINVAL,
	    "RTMIN+ beyond long refused");
	is_int(yi_signal_parse("RTMAX-9223372036854775807", &sig), YING_EINVAL,
	    "RTMAX-LONG_MAX refused (no signed overflow)");
	is_int(yi_signal_parse("RTMAX--9223372036854775807", &sig), YING_EINVAL,
	    "RTMAX minus a negative refused");
	is_int(yi_signal_parse("RTMIN+-1", &sig), YING_EINVAL, "RTMIN+-1 refused");
	is_int(yi_signal_parse("RTMAX-+1", &sig), YING_EINVAL, "RTMAX-+1 refused");
	is_int(yi_signal_parse("RTMIN+ 2", &sig), YING_EINVAL, "RTMIN+ 2 (space) refused");
	is_int(yi_signal_parse("RTMIN+\t2", &sig), YING_EINVAL, "RTMIN+<tab>2 refused");
	is_int(yi_signal_parse("RTMIN+1000", &sig), YING_EINVAL, "RTMIN+1000 refused");
	is_int(yi_signal_parse("99999999999999999999999", &sig), YING_EINVAL,
	    "a number beyond long refused");
	is_int(yi_signal_parse(" 12", &sig), YING_EINVAL, "a leading space refused");
	/* a dump signal must not change the host's fate: those that ask a
	 * program to stop, kernel-raised ones and timers are refused */
	is_int(yi_signal_parse("TERM", &sig), YING_EINVAL, "TERM refused");
	has_str(ying_last_error(), "SIGTERM cannot be used to request dumps",
	    "... and the error names it");
	is_int(yi_signal_parse("15", &sig), YING_EINVAL, "15 (TERM) refused");
	is_int(yi_signal_parse("INT", &sig), YING_EINVAL, "INT refused");
	is_int(yi_signal_parse("PIPE", &sig), YING_EINVAL, "PIPE refused");
	is_int(yi_signal_parse("XFSZ", &sig), YING_EINVAL, "XFSZ refused");
	is_int(yi_signal_parse("XCPU", &sig), YING_EINVAL, "XCPU refused");
	is_int(yi_signal_parse("HUP", &sig), YING_EINVAL, "HUP refused");
	is_int(yi_signal_parse("QUIT", &sig), YING_EINVAL, "QUIT refused");
	is_int(yi_signal_parse("ALRM", &sig), YING_EINVAL, "ALRM refused");
	is_int(yi_signal_parse("PROF", &sig), YING_EINVAL, "PROF refused");
	is_int(yi_signal_parse("PWR", &sig), YING_EINVAL, "PWR refused");
	is_int(yi_signal_parse("CHLD", &sig), YING_EINVAL, "CHLD refused");
	is_int(yi_signal_parse("ABRT", &sig), YING_EINVAL, "ABRT refused");
	is_int(yi_signal_parse("", &sig), YING_EINVAL, "empty refused");
	is_int(yi_signal_parse(NULL, &sig), YING_EINVAL, "NULL refused");
	is_str(yi_signal_name(SIGUSR2, buf, sizeof(buf)), "SIGUSR2", "name of SIGUSR2");
	is_str(yi_signal_name(SIGRTMIN + 3, buf, sizeof(buf)), "SIGRTMIN+3", "name of RTMIN+3");
	is_str(yi_signal_name(SIGHUP, buf, sizeof(buf)), "SIGHUP", "name of SIGHUP");
	is_str(yi_signal_name(0, buf, sizeof(buf)), "signal 0", "a number without a name");

	/* the public helpers the front ends use (ying.h) */
	sig = 0;
	ok(ying_signal_parse("SIGUSR2", &sig) == 0 && sig == SIGUSR2, "ying_signal_parse SIGUSR2");
	is_int(ying_signal_parse("KILL", &sig), YING_EINVAL, "ying_signal_parse refuses KILL");
	has_str(ying_last_error(), "SIGKILL cannot be used", "... and says why");
	is_int(ying_signal_parse("USR1", NULL), YING_EINVAL, "ying_signal_parse without *sig");
	ying_error_clear();
	is_str(ying_last_error(), "", "ying_error_clear empties the detail");
	is_str(ying_signal_name(SIGRTMIN + 2, buf, sizeof(buf)), "SIGRTMIN+2",
	    "ying_signal_name");
	is_str(ying_format_bytes(1536.0 * 1024, buf, sizeof(buf)), "1.50 MiB",
	    "ying_format_bytes 1.50 MiB");
	is_str(ying_format_bytes(512, buf, sizeof(buf)), "512 B", "ying_format_bytes 512 B");
	return tap_done();
}
