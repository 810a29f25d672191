/*
 * test_base_error.c: errors and allocation (base_error.c, base_alloc.c): fixed texts,
 * thread-local detail (one thread's error never shows in another), the
 * cleared state, no stale detail after a public call succeeds (every public
 * entry point clears it first), and the fault-injection seam: every failed allocation while
 * parsing gives YING_ENOMEM and no profile.
 */
#include <pthread.h>

#include "internal.h"
#include "tap.h"

extern long yi_alloc_fail_countdown;

static char thread_saw_before[64], thread_saw_after[64];
static int thread_rc;

static void *
other_thread(void *arg)
{
	(void)arg;
	snprintf(thread_saw_before, sizeof(thread_saw_before), "%s", ying_last_error());
	thread_rc = yi_error(YING_EIO, "thread detail %d", 2);
	snprintf(thread_saw_after, sizeof(thread_saw_after), "%s", ying_last_error());
	return NULL;
}

int
main(void)
{
	pthread_t t;
	void *p;

	is_str(ying_strerror(YING_EPARSE), "malformed input", "strerror");
	is_str(ying_strerror(YING_ENOMEM), "out of memory", "strerror ENOMEM");
	is_str(ying_strerror(YING_OK), "success", "strerror OK");
	is_str(ying_strerror(12345), "unknown error", "strerror unknown");
	ok(ying_version() && *ying_version(), "a version string");

	/* detail per thread */
	is_str(ying_last_error(), "", "no detail at start");
	is_int(yi_error(YING_EPARSE, "main detail %s:%d", "f.heap", 7), YING_EPARSE,
	    "yi_error returns its code");
	is_str(ying_last_error(), "main detail f.heap:7", "detail formatted");
	ok(pthread_create(&t, NULL, other_thread, NULL) == 0 && pthread_join(t, NULL) == 0,
	    "thread ran");
	is_str(thread_saw_before, "", "a new thread starts with no detail");
	is_int(thread_rc, YING_EIO, "the thread's code");
	is_str(thread_saw_after, "thread detail 2", "the thread sees its own detail");
	is_str(ying_last_error(), "main detail f.heap:7", "main's detail untouched by the thread");
	is_int(yi_oom("testing"), YING_ENOMEM, "yi_oom is ENOMEM");
	is_str(ying_last_error(), "out of memory while testing", "yi_oom detail");
	yi_error_clear();
	is_str(ying_last_error(), "", "clear empties the detail");
	{
		char longmsg[3000];
		memset(longmsg, 'x', sizeof(longmsg) - 1);
		longmsg[sizeof(longmsg) - 1] = '\0';
		yi_error(YING_EINVAL, "%s", longmsg);
		ok(strlen(ying_last_error()) > 100 && strlen(ying_last_error()) < sizeof(longmsg) - 1,
		    "a long detail is truncated, not overflowed");
		yi_error_clear();
	}

	/* allocation wrappers */
	ok(yi_reallocarray(NULL, SIZE_MAX / 2, 4) == NULL, "reallocarray overflow is NULL");
	yi_alloc_fail_countdown = 1;
	ok(yi_malloc(10) == NULL, "the injected failure fails");
	is_int(yi_alloc_fail_countdown, 0, "countdown consumed");
	p = yi_malloc(10);
	ok(p != NULL, "the next allocation works");
	yi_free(p);
	p = yi_strndup("abcdef", 3);
	is_str(p, "abc", "strndup");
	yi_free(p);

	/* out-of-memory paths report ENOMEM, never crash */
	{
		const char *dump = "heap_v2/1\n  t*: 1: 10 [0: 0]\n@ 0x10 0x20\n  t*: 1: 10 [0: 0]\n"
		    "\nMAPPED_LIBRARIES:\n00400000-00401000 r-xp 00000000 08:01 1 /bin/x\n";
		int n, rc, bad = 0, enomem = 0, nulls = 0;
		for (n = 1; n < 200; n++) {
			ying_profile *prof = NULL;
			yi_alloc_fail_countdown = n;
			rc = ying_profile_read_mem(&prof, dump, strlen(dump), "oom");
			yi_alloc_fail_countdown = 0;
			if (rc == YING_ENOMEM) {
				enomem++;
				if (prof == NULL)
					nulls++;
			} else if (rc != 0) {
				bad++;
			}
			ying_profile_free(prof);
			if (rc == 0)
				break;
		}
		ok(enomem > 5 && bad == 0, "every failed allocation while parsing gives ENOMEM");
		is_int(nulls, enomem, "and no profile");
		ok(n < 200, "parsing succeeds once allocations stop failing");
	}

	/* a public call that succeeds leaves no stale detail from an earlier failure */
	{
		const char *dump = "heap_v2/1\n  t*: 1: 10 [0: 0]\n@ 0x10 0x20\n  t*: 1: 10 [0: 0]\n"
		    "\nMAPPED_LIBRARIES:\n00400000-00401000 r-xp 00000000 08:01 1 /bin/x\n";
		ying_profile *prof = NULL;
		ying_membuf mb = YING_MEMBUF_INIT;
		ying_sample_index si;

		ok(ying_sample_index_parse(&si, "nope") != 0, "a bad sample index fails");
		ok(ying_last_error()[0] != '\0', "with detail");
		is_int(ying_sample_index_parse(&si, "inuse_space"), 0, "a good one parses");
		is_str(ying_last_error(), "", "and the earlier detail is gone");
		ok(ying_sample_index_parse(&si, "nonsense") != 0 && ying_last_error()[0],
		    "a bad sample index fails with detail");
		is_int(ying_profile_read_mem(&prof, dump, strlen(dump), "ok"), 0, "a dump reads");
		is_str(ying_last_error(), "", "no stale detail after reading");
		yi_error(YING_EIO, "stale");
		is_int(ying_profile_write_folded(prof, NULL, ying_write_membuf, &mb), 0, "folded writes");
		is_str(ying_last_error(), "", "no stale detail after writing");
		ying_membuf_release(&mb);
		ying_profile_free(prof);
	}
	return tap_done();
}
