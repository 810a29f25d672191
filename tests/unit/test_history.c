/*
 * test_history.c: the in-agent memory history (live_history.c).
 *
 * Checks the columns (the fixed ones, then "heap:NAME" per heap), the
 * bounds (600 fine points, 1440 coarse, 256 events: the oldest dropped
 * when the rings wrap), the minute roll-up (a coarse point per finished
 * minute: its last point, with the minute's largest rss), since filtering
 * of points and events, unknown values written as null, the RSS peak
 * events, the JSON's shape, and the process's history: a tick samples
 * once a second, and a forked child starts empty while the parent keeps
 * its points.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "live.h"
#include "live_history.h"

/* The JSON of h (since, pid 7, now 9, limit) in a string the caller frees. */
static char *
json_of(yi_hist *h, double since, uint64_t limit)
{
	ying_membuf b = YING_MEMBUF_INIT;
	int rc = yi_hist_write_json(h, since, 7, 9, limit, ying_write_membuf, &b);

	if (rc != 0) {
		ying_membuf_release(&b);
		return strdup("");
	}
	return b.data;
}

/* Points of the ring "fine" or "coarse" in json: how many, the first t. */
static size_t
points_of(const char *json, const char *ring, double *first_t)
{
	char key[64];
	const char *p, *end;
	size_t n = 0;

	*first_t = -1;
	snprintf(key, sizeof(key), "\"%s\":{\"step\":", ring);
	if ((p = strstr(json, key)) == NULL || (p = strstr(p, "\"points\":[")) == NULL)
		return 0;
	p += 10;
	end = strstr(p, "]}");
	while (p < end && (p = strchr(p, '[')) != NULL && p < end) {
		if (n == 0)
			*first_t = strtod(p + 1, NULL);
		n++;
		p = strchr(p, ']');
	}
	return n;
}

static void
point(double *v, double t, double rss, double alloc)
{
	for (int k = 0; k < YI_HIST_MAXCOL; k++)
		v[k] = NAN;
	v[0] = t;
	v[1] = rss;
	for (int k = 2; k < YI_HIST_FIXED; k++)
		v[k] = alloc + k;
	v[YI_HIST_FIXED] = alloc;
	v[YI_HIST_FIXED + 1] = alloc / 2;
}

static void
test_rings(void)
{
	const char *names[] = { "c", "rust" };
	yi_hist *h = NULL;
	double v[YI_HIST_MAXCOL], t0;
	size_t fine, coarse, ev;
	char *j;

	ok(yi_hist_new(&h, 5, (const char *const[]){ "a", "b", "c", "d", "e" }) ==
	    YING_EINVAL, "five heaps: EINVAL");
	ok(yi_hist_new(&h, 2, names) == 0 && h != NULL, "a history of two heaps");
	if (h == NULL)
		return;
	ok(yi_hist_bytes() < 256 * 1024, "the history is under 256 KiB");
	printf("# the history: %zu bytes\n", yi_hist_bytes());
	j = json_of(h, -1, 0);
	has_str(j, "\"columns\":[\"t\",\"rss\",\"allocated\",\"active\",\"metadata\","
	    "\"resident\",\"retained\",\"heap:c\",\"heap:rust\"]", "the columns");
	has_str(j, "\"pid\":7,\"now\":9.000,\"limit\":null,", "pid, now, no limit: null");
	has_str(j, "\"fine\":{\"step\":1,\"points\":[]}", "no point yet");
	free(j);

	/* 700 seconds from t = 960 (a minute's start): rss is largest at the
	 * 17th second of each minute, allocated grows */
	for (int i = 0; i < 700; i++) {
		double t = 960 + i;
		point(v, t, 1000 + (i % 60 == 17 ? 500 : (double)(i % 60)), 4096.0 * i);
		yi_hist_add(h, v);
	}
	yi_hist_counts(h, &fine, &coarse, &ev);
	is_int(fine, 600, "600 fine points at most");
	is_int(coarse, 11, "a coarse point per finished minute (11 of 700 s)");
	j = json_of(h, -1, 1 << 30);
	is_int(points_of(j, "fine", &t0), 600, "the JSON: 600 fine points");
	is_near(t0, 960 + 100, 1e-9, "the oldest 100 were dropped");
	is_int(points_of(j, "coarse", &t0), 11, "the JSON: 11 coarse points");
	is_near(t0, 960 + 59, 1e-9, "a coarse point: the minute's last point");
	/* minute 0's point: t 1019, rss the max 1500, allocated its last */
	has_str(j, "[1019.000,1500,241666,", "the minute's largest rss, last allocated");
	has_str(j, "\"limit\":1073741824,", "the limit in bytes");
	free(j);
	/* since: the points after it */
	j = json_of(h, 1600, 0);
	is_int(points_of(j, "fine", &t0), 59, "since=1600: 59 fine points");
	is_near(t0, 1601, 1e-9, "since: t > since only");
	is_int(points_of(j, "coarse", &t0), 1, "since=1600: the one coarse point after it");
	free(j);
	j = json_of(h, 1e9, 0);
	is_int(points_of(j, "fine", &t0) + points_of(j, "coarse", &t0), 0,
	    "since after the last point: none");
	free(j);

	/* a minute apart: every point closes a minute; the coarse ring wraps */
	for (int i = 0; i < 1500; i++) {
		point(v, 2000 + 60.0 * i, 1e6, 1);
		yi_hist_add(h, v);
	}
	yi_hist_counts(h, &fine, &coarse, &ev);
	is_int(coarse, 1440, "1440 coarse points at most");
	is_int(fine, 600, "still 600 fine points");
	j = json_of(h, -1, 0);
	is_int(points_of(j, "coarse", &t0), 1440, "the JSON: 1440 coarse points");
	/* 11 + 1 + 1499 closed minutes, the newest 1440 kept: 71 dropped */
	is_near(t0, 2000 + 60.0 * 59, 1e-9, "the coarse ring wrapped: oldest dropped");
	free(j);
	yi_hist_free(h);
}

static void
test_values_events(void)
{
	yi_hist *h = NULL;
	double v[YI_HIST_MAXCOL];
	size_t fine, coarse, ev;
	char name[16], *j;

	ok(yi_hist_new(&h, 1, (const char *const[]){ "je" }) == 0, "a history of one heap");
	if (h == NULL)
		return;
	point(v, 100, NAN, 5);
	v[3] = NAN;
	yi_hist_add(h, v);
	j = json_of(h, -1, 0);
	has_str(j, "[100.000,null,7,null,9,10,11,5]", "unknown values: null");
	has_str(j, "\"columns\":[\"t\",\"rss\",\"allocated\",\"active\",\"metadata\","
	    "\"resident\",\"retained\",\"heap:je\"]", "one heap: one heap column");
	free(j);
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "e%03d", i);
		yi_hist_add_event(h, 200 + i, "report", name);
	}
	yi_hist_counts(h, &fine, &coarse, &ev);
	is_int(ev, 256, "256 events at most");
	j = json_of(h, -1, 0);
	ok(strstr(j, "\"e043\"") == NULL, "the oldest events were dropped");
	has_str(j, "{\"t\":244.000,\"kind\":\"report\",\"name\":\"e044\"}",
	    "the oldest kept event");
	has_str(j, "\"name\":\"e299\"}]}", "the newest event last");
	free(j);
	j = json_of(h, 498, 0);
	ok(strstr(j, "e298") == NULL && strstr(j, "e299") != NULL, "since filters events");
	free(j);
	yi_hist_add_event(h, 600, "snapshot", "quote\"and\\slash");
	j = json_of(h, 599, 0);
	has_str(j, "\"name\":\"quote\\\"and\\\\slash\"", "an event's name is escaped");
	free(j);
	yi_hist_free(h);

	/* RSS peaks: a new one past the last by 10 % and 1 MiB */
	ok(yi_hist_new(&h, 0, NULL) == 0, "a history without heaps");
	if (h == NULL)
		return;
	{
		const double rss[] = { 100e6, 105e6, 111e6, 112e6, 80e6, 123e6, 123.5e6 };
		for (size_t i = 0; i < sizeof(rss) / sizeof(rss[0]); i++) {
			point(v, 10 + (double)i, rss[i], 1);
			yi_hist_add(h, v);
		}
	}
	yi_hist_counts(h, &fine, &coarse, &ev);
	is_int(ev, 2, "two peak events (111 MB, 123 MB)");
	j = json_of(h, -1, 0);
	has_str(j, "{\"t\":12.000,\"kind\":\"peak\",\"name\":\"rss 105.9 MiB\"}",
	    "a peak event: its time and RSS");
	has_str(j, "\"columns\":[\"t\",\"rss\",\"allocated\",\"active\",\"metadata\","
	    "\"resident\",\"retained\"]", "no heap: no heap column");
	free(j);
	yi_hist_free(h);
}

static void
test_global_fork(void)
{
	size_t fine = 0, coarse = 0, ev = 0;
	int ms, st = 0;
	pid_t pid;
	char *j;

	ms = yi_hist_tick();
	ok(yi_hist_global() != NULL, "the first tick makes the process's history");
	if (yi_hist_global() == NULL)
		return;
	ok(ms > 0 && ms <= 1000, "the next sample within a second");
	(void)yi_hist_tick();
	yi_hist_event("snapshot", "s1");
	yi_hist_counts(yi_hist_global(), &fine, &coarse, &ev);
	is_int(fine, 1, "one sample: the second tick came too soon");
	is_int(ev, 1, "one event");
	{
		ying_membuf b = YING_MEMBUF_INIT;
		ok(yi_hist_json(-1, ying_write_membuf, &b) == 0, "the process's history as JSON");
		j = b.data ? b.data : strdup("");
	}
	ok(strstr(j, "\"points\":[[") != NULL && strstr(j, "[[0") == NULL,
	    "a point with the time now");
	free(j);
	usleep(1100 * 1000);
	(void)yi_hist_tick();
	yi_hist_counts(yi_hist_global(), &fine, &coarse, &ev);
	is_int(fine, 2, "a second later: a second sample");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		size_t f2 = 9, c2 = 9, e2 = 9;
		yi_hist_counts(yi_hist_global(), &f2, &c2, &e2);
		if (f2 != 0 || c2 != 0 || e2 != 0)
			_exit(1);
		(void)yi_hist_tick();       /* the child samples at once */
		yi_hist_counts(yi_hist_global(), &f2, &c2, &e2);
		_exit(f2 == 1 ? 0 : 2);
	}
	ok(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "a forked child starts empty and samples at its first tick");
	yi_hist_counts(yi_hist_global(), &fine, &coarse, &ev);
	is_int(fine + ev, 3, "the parent keeps its points and events");
}

int
main(void)
{
	test_rings();
	test_values_events();
	test_global_fork();
	return tap_done();
}
