/*
 * live_ctl_prof.c: the control layer's calls that need a profiling
 * jemalloc and change its state: prof.reset (on every heap of the process,
 * so that a combined dump's heaps keep one sampling period), the
 * calling thread's profile name (thread.prof.name), and giving back what
 * an agent cycle freed (yi_ctl_release_thread).
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "live_ctl.h"

int
ying_ctl_reset(int lg_sample)
{
	ying_mallctl_fn fn;
	yi_ctl_heap h[YI_CTL_MAX_HEAPS];
	size_t lg, nh = 0;
	int rc, e;

	yi_error_clear();
	if (lg_sample < -1 || lg_sample > 63)
		return yi_error(YING_EINVAL, "lg_sample %d out of range (0..63, -1 "
		    "keeps the current rate)", lg_sample);
	if ((rc = yi_ctl_need_prof(&fn)) != 0)
		return rc;
	lg = (size_t)(lg_sample < 0 ? 0 : lg_sample);
	if (yi_ctl_heaps(h, &nh) != 0) {
		yi_error_clear();
		nh = 0;
	}
	pthread_mutex_lock(&yi_ctl_dump_lock);
	e = fn("prof.reset", NULL, NULL, lg_sample < 0 ? NULL : &lg,
	    lg_sample < 0 ? 0 : sizeof(lg));
	/* every heap, so that their periods stay one (a combined dump) */
	for (size_t i = 0; e == 0 && i < nh; i++)
		if (h[i].fn != fn)
			h[i].fn("prof.reset", NULL, NULL, lg_sample < 0 ? NULL : &lg,
			    lg_sample < 0 ? 0 : sizeof(lg));
	pthread_mutex_unlock(&yi_ctl_dump_lock);
	if (e != 0)
		return yi_error(YING_ESYS, "mallctl(\"prof.reset\") failed: %s", strerror(e));
	return 0;
}

int
ying_ctl_thread_name_set(const char *name)
{
	ying_mallctl_fn fn;
	int rc, e;

	yi_error_clear();
	if (name == NULL)
		return yi_error(YING_EINVAL, "thread name is NULL");
	for (const char *p = name; *p; p++)
		if (!isgraph((unsigned char)*p) && !isblank((unsigned char)*p))
			return yi_error(YING_EINVAL, "thread name has a character jemalloc "
			    "rejects (0x%02x); only printable characters, space and tab",
			    (unsigned char)*p);
	if ((rc = yi_ctl_need_prof(&fn)) != 0)
		return rc;
	e = fn("thread.prof.name", NULL, NULL, (void *)&name, sizeof(name));
	if (e == ENOENT)
		return yi_error(YING_ENOTSUP, "jemalloc refuses thread.prof.name: with "
		    "prof_sys_thread_name:true it takes names from the OS thread name "
		    "(pthread_setname_np)");
	if (e != 0)
		return yi_error(e == EAGAIN ? YING_ENOMEM : YING_ESYS,
		    "mallctl(\"thread.prof.name\") failed: %s", strerror(e));
	return 0;
}

int
ying_ctl_thread_name_get(char **out)
{
	ying_mallctl_fn fn;
	const char *name = NULL;
	size_t sz = sizeof(name);
	int rc, e;

	yi_error_clear();
	if (out == NULL)
		return yi_error(YING_EINVAL, "ying_ctl_thread_name_get: out is NULL");
	*out = NULL;
	if ((rc = yi_ctl_need_prof(&fn)) != 0)
		return rc;
	if ((e = fn("thread.prof.name", &name, &sz, NULL, 0)) != 0)
		return yi_error(YING_ESYS, "mallctl(\"thread.prof.name\") failed: %s",
		    strerror(e));
	if ((*out = yi_strdup(name ? name : "")) == NULL)
		return yi_oom("copying the thread name");
	return 0;
}

/* After an agent cycle: the calling thread's cached objects go back to its
 * arena (thread.tcache.flush) and the arena's unused dirty pages to the
 * system (arena.<i>.purge), so that what the cycle freed does not stay
 * resident until that arena is busy again (jemalloc decays on activity).
 * Best effort: without jemalloc, nothing. */
void
yi_ctl_release_thread(void)
{
	ying_mallctl_fn fn = ying_ctl_mallctl();
	unsigned arena;
	size_t sz = sizeof(arena);
	char name[64];

	if (fn == NULL) {
		yi_error_clear();
		return;
	}
	fn("thread.tcache.flush", NULL, NULL, NULL, 0);
	if (fn("thread.arena", &arena, &sz, NULL, 0) != 0)
		return;
	snprintf(name, sizeof(name), "arena.%u.purge", arena);
	fn(name, NULL, NULL, NULL, 0);
}
