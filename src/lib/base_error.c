/*
 * base_error.c: error codes, their fixed texts, and the thread-local detail.
 *
 * Functions return a negative ying_err; the human detail ("now.heap:17:
 * expected '@' line") lives in a per-thread buffer written by yi_error() and
 * read with ying_last_error().  Messages are truncated, never allocated, so
 * reporting an out-of-memory error cannot itself fail.
 */
#include <errno.h>
#include <stdio.h>

#include "base.h"

static _Thread_local char last_error[1024];

const char *
ying_version(void)
{
	return YING_VERSION_STRING;
}

const char *
ying_strerror(int err)
{
	switch (err) {
	case YING_OK: return "success";
	case YING_EINVAL: return "invalid argument";
	case YING_ENOMEM: return "out of memory";
	case YING_EIO: return "input/output error";
	case YING_EPARSE: return "malformed input";
	case YING_ENODATA: return "the profile lacks the requested data";
	case YING_ENOTFOUND: return "not found";
	case YING_ENOJEMALLOC: return "jemalloc not found in this process";
	case YING_ENOPROF: return "jemalloc heap profiling is not enabled";
	case YING_EBUSY: return "busy";
	case YING_ENOTSUP: return "not supported";
	case YING_ELIMIT: return "limit exceeded";
	case YING_ESYS: return "system call failed";
	default: return "unknown error";
	}
}

const char *
ying_last_error(void)
{
	return last_error;
}

int
yi_verror(int code, const char *fmt, va_list ap)
{
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	return code;
}

int
yi_error(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	yi_verror(code, fmt, ap);
	va_end(ap);
	return code;
}

int
yi_oom(const char *what)
{
	return yi_error(YING_ENOMEM, "out of memory while %s", what);
}

void
yi_error_clear(void)
{
	last_error[0] = '\0';
}

void
ying_error_clear(void)
{
	yi_error_clear();
}
