/*
 * live_serve_fetch.c: `ying serve URL`, the dumps of a live endpoint
 * fetched now and then.  The URL's heap (its /debug/pprof/heap when the
 * URL has no path: symbolized where it was taken, so the page works for a
 * remote machine's process too) is fetched once at start (a failure is
 * the start's error) and then every `every` seconds by one thread of
 * ours, each answer kept in memory as a dump named "fetch-N.pb.gz" at its
 * fetch time, the oldest dropped past max_dumps.  A failed fetch later on
 * is remembered (/debug/ui shows it) and retried at the next tick.  Why
 * fetching and not proxying: every answer of the offline server is then
 * the same code over the same entries (history, snapshots, any two dumps'
 * diff, leak verdicts over the series), the page needs nothing of the
 * remote process but its heap, and the remote endpoint sees one GET per
 * tick whatever the page does.  Here too: yi_serve_add_mem, a fetched
 * dump's entry, the oldest dropped past the bound.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live_serve_int.h"


int
yi_serve_add_mem(yi_serve *s, char *data, size_t len, const char *name, double t)
{
	ying_profile *p = NULL;
	yi_serve_entry e;
	int rc;

	memset(&e, 0, sizeof(e));
	if ((rc = ying_profile_read_mem(&p, data, len, name)) != 0) {
		yi_free(data);
		return rc;
	}
	yi_serve_entry_totals(s, &e, p);
	ying_profile_free(p);
	e.t = t;
	e.len = len;
	e.data = data;
	e.pid = -1;
	e.rss = e.limit = NAN;
	if ((e.name = yi_strdup(name)) == NULL || yi_vec_grow(&s->ents, 1) != 0) {
		yi_serve_entry_free(&e);
		return yi_oom("keeping a fetched dump");
	}
	s->ents.v[s->ents.n++] = e;
	/* the oldest dumps past the bound go */
	while (s->max_dumps && s->ents.n > s->max_dumps) {
		yi_serve_entry_free(&s->ents.v[0]);
		memmove(&s->ents.v[0], &s->ents.v[1], (s->ents.n - 1) * sizeof(*s->ents.v));
		s->ents.n--;
	}
	s->generation++;
	return 0;
}

bool
yi_serve_is_url(const char *s)
{
	return s != NULL && (strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0);
}

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One fetch into the entries (takes the lock to add). */
static int
fetch_once(yi_serve *s)
{
	ying_fetch_opts fo = YING_FETCH_OPTS_INIT;
	char *body = NULL, name[64];
	size_t len = 0;
	double t;
	int rc;

	fo.token = s->token;
	rc = ying_fetch_body(&body, &len, s->url, &fo);
	t = now_seconds();
	pthread_mutex_lock(&s->mtx);
	if (rc == 0) {
		/* ours: ying_fetch_body's buffer is libying's, copied to ours */
		char *mine = yi_malloc(len + 1);
		if (mine == NULL) {
			rc = yi_oom("keeping a fetched dump");
		} else {
			memcpy(mine, body, len);
			mine[len] = '\0';
			snprintf(name, sizeof(name), "fetch-%zu.pb.gz", ++s->fetches);
			rc = yi_serve_add_mem(s, mine, len, name, t);
		}
	}
	if (rc != 0)
		snprintf(s->last_error, sizeof(s->last_error), "%s", ying_last_error());
	else
		s->last_error[0] = '\0';
	pthread_mutex_unlock(&s->mtx);
	ying_free(body);
	return rc;
}

static void *
fetcher(void *arg)
{
	yi_serve *s = arg;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		struct timespec dl;
		bool stop;

		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += (time_t)s->every;
		dl.tv_nsec += (long)((s->every - floor(s->every)) * 1e9);
		if (dl.tv_nsec >= 1000000000L) {
			dl.tv_sec++;
			dl.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&s->mtx);
		while (!s->stop && pthread_cond_timedwait(&s->cv, &s->mtx, &dl) != ETIMEDOUT)
			;
		stop = s->stop;
		pthread_mutex_unlock(&s->mtx);
		if (stop)
			break;
		fetch_once(s);
		yi_error_clear();
	}
	return NULL;
}

int
yi_serve_fetch_start(yi_serve *s, const char *url, const ying_serve_opts *opts)
{
	const char *rest = strstr(url, "://") + 3;
	const char *slash = strchr(rest, '/');
	int rc;

	s->every = opts && opts->every > 0 ? opts->every : 10;
	s->max_dumps = opts && opts->max_dumps ? opts->max_dumps : 60;
	if (opts && opts->url_token && (s->token = yi_strdup(opts->url_token)) == NULL)
		return yi_oom("copying the URL's token");
	if (slash == NULL || strcmp(slash, "/") == 0) {
		size_t n = strlen(url) - (slash ? 1 : 0);
		if ((s->url = yi_malloc(n + sizeof("/debug/pprof/heap"))) == NULL)
			return yi_oom("copying the URL");
		memcpy(s->url, url, n);
		strcpy(s->url + n, "/debug/pprof/heap");
	} else if ((s->url = yi_strdup(url)) == NULL) {
		return yi_oom("copying the URL");
	}
	if ((rc = fetch_once(s)) != 0)
		return rc;
	if (pthread_create(&s->thread, NULL, fetcher, s) != 0)
		return yi_error(YING_ESYS, "ying serve: cannot start the fetching thread: %s",
		    strerror(errno));
	s->thread_on = true;
	return 0;
}

void
yi_serve_fetch_stop(yi_serve *s)
{
	if (s->thread_on) {
		pthread_mutex_lock(&s->mtx);
		s->stop = true;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mtx);
		pthread_join(s->thread, NULL);
		s->thread_on = false;
	}
	if (s->token) {
		memset(s->token, 0, strlen(s->token));
		yi_free(s->token);
		s->token = NULL;
	}
	yi_free(s->url);
	s->url = NULL;
}

const char *
yi_serve_fetch_error(yi_serve *s)
{
	return s->last_error;
}
