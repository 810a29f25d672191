/*
 * test_runner.c: the growth runner's pieces without a live jemalloc: time
 * stamps and file names (with fixed time zones), the name parser, the
 * .report text and whole report sets written from fixture dumps, atomic
 * failure, directory bounding (options from the environment:
 * test_fe_settings.c; signal names: test_signal.c),
 * and the start/trigger/stop argument checks (this program has no jemalloc,
 * so starting must fail cleanly with YING_ENOJEMALLOC).  The runner thread
 * itself runs under real programs in tests/integration/run_*.sh.
 *
 * Function names are never asserted from the committed fixtures (their
 * mappings name the files of the machine that made them): the report's
 * names are checked on a dump made here by tests/programs/heapgen, the
 * fixtures' own program built by `make check` (found through
 * YING_BUILDDIR), run under MALLOC_CONF=prof:true,lg_prof_sample:0 so the
 * dump is exact and the biggest function is always alloc_big_1m.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "tap.h"

static char tmpdir[256];

static int64_t
utc(int y, int mo, int d, int h, int mi, int s)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = s;
	return (int64_t)timegm(&tm);
}

static void
with_tz(const char *tz)
{
	setenv("TZ", tz, 1);
	tzset();
}

static void
test_names(void)
{
	char buf[128];
	size_t bl = 0;
	int64_t t = utc(2026, 9, 9, 20, 45, 5);

	with_tz("EST5EDT,M3.2.0,M11.1.0");
	is_int(yi_report_iso_time(buf, sizeof(buf), t, false), 0, "iso time");
	is_str(buf, "2026-09-09T16:45:05-04:00", "local time with -04:00 (EDT)");
	yi_report_iso_time(buf, sizeof(buf), t, true);
	is_str(buf, "20260909T164505-0400", "portable: ISO 8601 basic, no ':'");
	yi_report_iso_time(buf, sizeof(buf), utc(2026, 1, 15, 12, 0, 0), false);
	is_str(buf, "2026-01-15T07:00:00-05:00", "winter: -05:00 (EST)");
	with_tz("IST-5:30");
	yi_report_iso_time(buf, sizeof(buf), t, false);
	is_str(buf, "2026-09-10T02:15:05+05:30", "half-hour offset +05:30");
	with_tz("UTC0");
	yi_report_iso_time(buf, sizeof(buf), t, false);
	is_str(buf, "2026-09-09T20:45:05+00:00", "UTC as +00:00");
	with_tz("EST5EDT,M3.2.0,M11.1.0");

	is_int(yi_report_base_name(buf, sizeof(buf), t, 159697234.0, false), 0, "base name");
	is_str(buf, "ying.2026-09-09T16:45:05-04:00.152MiB", "152.3 MiB -> 152MiB");
	yi_report_base_name(buf, sizeof(buf), t, 15.6 * 1048576, true);
	is_str(buf, "ying.20260909T164505-0400.16MiB", "portable name, 15.6 MiB -> 16MiB");
	ok(strchr(buf, ':') == NULL, "portable name has no ':'");
	yi_report_base_name(buf, sizeof(buf), t, 0, false);
	is_str(buf, "ying.2026-09-09T16:45:05-04:00.0MiB", "empty heap -> 0MiB");
	is_int(yi_report_base_name(buf, 10, t, 1, false), YING_EINVAL, "too small a buffer fails");

	ok(yi_report_parse_name("ying.2026-09-09T16:45:05-04:00.152MiB.report", &bl) &&
	    bl == strlen("ying.2026-09-09T16:45:05-04:00.152MiB"), "parse .report, base length");
	ok(yi_report_parse_name("ying.2026-09-09T16:45:05-04:00.152MiB.pb.gz", &bl) &&
	    bl == strlen("ying.2026-09-09T16:45:05-04:00.152MiB"), "parse .pb.gz");
	ok(yi_report_parse_name("ying.20260909T164505-0400.16MiB.svg", NULL), "parse portable .svg");
	ok(yi_report_parse_name("ying.20260909T164505-0400.0MiB.heap", NULL), "parse .heap");
	/* names written by older versions ("<N>MB") are still ours */
	ok(yi_report_parse_name("ying.2026-09-09T16:45:05-04:00.152MB.report", &bl) &&
	    bl == strlen("ying.2026-09-09T16:45:05-04:00.152MB"), "parse an older <N>MB name");
	ok(yi_report_parse_name("ying.20260909T164505-0400.16MB.pb.gz", NULL), "parse older portable");
	ok(!yi_report_parse_name("ying.20260909T164505-0400.16iB.heap", NULL), "reject <N>iB");
	ok(!yi_report_parse_name("ying.20260909T164505-0400.MiB.heap", NULL), "reject MiB without a number");
	ok(!yi_report_parse_name("ying.20260909T164505-0400.16MB.txt", NULL), "reject other ext");
	ok(!yi_report_parse_name("ying.notatime.16MB.report", NULL), "reject non-time");
	ok(!yi_report_parse_name("ying.20260909T164505-0400.MB.report", NULL), "reject no number");
	ok(!yi_report_parse_name(".ying-tmp.12.ying.20260909T164505-0400.1MB.report", NULL),
	    "reject temporary files");
	ok(!yi_report_parse_name("notes.report", NULL), "reject foreign files");
}

static char *
read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (f == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0) {
		rewind(f);
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
			buf[n] = '\0';
			if (len)
				*len = (size_t)n;
		} else {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

static int
count_entries(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
			n++;
	closedir(d);
	return n;
}

static void
test_report_set(void)
{
	ying_profile *now = NULL, *prev = NULL, *back = NULL;
	char *dump, *text, path[512], dir[300], base[128];
	size_t len = 0, tlen = 0;
	double total = 0, prev_total = 0, back_total = 0;
	yi_report_meta m;
	struct stat st;
	int64_t t = utc(2026, 9, 9, 20, 45, 5);

	dump = tap_slurp(tap_data("heap1.heap"), &len);
	is_int(ying_profile_read_mem(&now, dump, len, "heap1.heap"), 0, "read heap1");
	is_int(ying_profile_read_file(&prev, tap_data("heap_exact.heap")), 0, "read heap_exact");
	if (now == NULL || prev == NULL) {
		free(dump);
		return;
	}
	ying_profile_total(&total, now, YING_INUSE_SPACE);
	ying_profile_total(&prev_total, prev, YING_INUSE_SPACE);
	ying_profile_symbolize(prev, NULL, NULL);
	/* the report set only reads its profile: symbolizing is the caller's step */
	is_int(ying_profile_symbolize(now, NULL, NULL), 0, "symbolize heap1");

	memset(&m, 0, sizeof(m));
	m.time = t;
	m.pid = 4242;
	m.program = "/usr/bin/heapgen --fast";
	m.trigger = "live heap grew 10.0 % since the previous report";
	m.top = 3;
	m.have_stats = true;
	m.stats.allocated = 150u << 20;
	m.stats.resident = 200u << 20;
	m.prev = prev;
	m.prev_time = t - 300;
	m.prev_total = prev_total;

	snprintf(dir, sizeof(dir), "%s/reports/sub", tmpdir);
	is_int(yi_mkdir_p(dir), 0, "yi_mkdir_p creates nested directories");
	ok(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700, "created with mode 0700");
	is_int(yi_mkdir_p(dir), 0, "yi_mkdir_p on an existing directory");

	yi_report_base_name(base, sizeof(base), t, total, false);
	is_str(base, "ying.2026-09-09T16:45:05-04:00.132MiB", "heap1's total names the set");
	is_int(yi_runner_write_set(dir, base, now, total, dump, len, &m), 0, "write a set");
	is_int(count_entries(dir, "ying."), 4, "four files");
	is_int(count_entries(dir, ".ying-tmp"), 0, "no temporary file left");

	snprintf(path, sizeof(path), "%s/%s.heap", dir, base);
	text = read_all(path, &tlen);
	ok(text && tlen == len && memcmp(text, dump, len) == 0, ".heap is jemalloc's dump, byte for byte");
	free(text);

	snprintf(path, sizeof(path), "%s/%s.pb.gz", dir, base);
	is_int(ying_profile_read_file(&back, path), 0, ".pb.gz reads back as a profile");
	if (back) {
		ying_profile_total(&back_total, back, YING_INUSE_SPACE);
		is_near(back_total, total, total * 1e-6 + 1, ".pb.gz keeps the total");
		ying_profile_free(back);
	}

	snprintf(path, sizeof(path), "%s/%s.svg", dir, base);
	text = read_all(path, NULL);
	ok(text && strncmp(text, "<?xml", 5) == 0, ".svg is an SVG document");
	has_str(text, "heapgen (pid 4242)", ".svg title names program and pid");
	free(text);

	snprintf(path, sizeof(path), "%s/%s.report", dir, base);
	text = read_all(path, NULL);
	ok(text != NULL, ".report exists");
	has_str(text, "ying report: heapgen (pid 4242), live heap 131.9 MiB", "headline: program, pid, size");
	has_str(text, "time       2026-09-09T16:45:05-04:00", "time line");
	has_str(text, "program    /usr/bin/heapgen --fast", "program line");
	has_str(text, "trigger    live heap grew", "trigger line");
	has_str(text, "live heap  131.9 MiB", "live heap line");
	ok(text && strstr(text, "retained  ") == NULL && strstr(text, "MiB retained") == NULL,
	    "\"retained\" is only jemalloc's stats.retained");
	has_str(text, "previous   ", "previous line");
	has_str(text, "at 2026-09-09T16:40:05-04:00", "previous report's time");
	has_str(text, "jemalloc   allocated 150.0 MiB", "jemalloc statistics");
	has_str(text, "retained 0 B (unused, still mapped)", "stats.retained says what it is");
	has_str(text, "sampling   one sample per 512.0 KiB", "sample rate");
	has_str(text, "lg_prof_sample 19", "lg_prof_sample");
	has_str(text, "Top 3 stacks by live heap", "top stacks section");
	has_str(text, "#1 ", "numbered stacks");
	has_str(text, "... 2 more stacks", "the rest is counted");
	has_str(text, "Top functions", "top functions section");
	has_str(text, "Grew since the previous report (2026-09-09T16:40:05-04:00", "growth section");
	has_str(text, "Delta:", "the diff is included");
	has_str(text, "(\xc2\xb1: 95 % interval from jemalloc's sampling", "growth: the interval is explained");
	has_str(text, "\xc2\xb1" "95%", "growth rows: a \xc2\xb1" "95% column");
	has_str(text, " (95 %: ", "growth: the total delta's interval");
	free(text);

	/* First report: no previous profile. */
	m.prev = NULL;
	m.prev_time = 0;
	m.prev_total = 0;
	m.have_stats = false;
	m.stats_error = "no statistics here";
	{
		ying_membuf mb = YING_MEMBUF_INIT;
		is_int(yi_runner_write_report(now, total, &m, ying_write_membuf, &mb), 0,
		    "report without a previous one");
		has_str(mb.data, "previous   none (first report)", "says first report");
		has_str(mb.data, "nothing to compare with", "no diff section");
		has_str(mb.data, "statistics unavailable: no statistics here", "stats error shown");
		ying_membuf_release(&mb);
	}

	/* Failure: a directory that cannot take files leaves nothing behind. */
	snprintf(path, sizeof(path), "%s/not-a-dir", tmpdir);
	{
		FILE *f = fopen(path, "w");
		if (f)
			fclose(f);
	}
	is_int(yi_runner_write_set(path, base, now, total, dump, len, &m), YING_EIO,
	    "writing into a file (not a directory) fails with YING_EIO");
	has_str(ying_last_error(), "not-a-dir", "the error names the path");
	snprintf(path, sizeof(path), "%s/reports/sub/x/y", tmpdir);
	{
		FILE *f;
		char p2[512];
		snprintf(p2, sizeof(p2), "%s/reports/sub/x", tmpdir);
		f = fopen(p2, "w");
		if (f)
			fclose(f);
	}
	is_int(yi_mkdir_p(path), YING_EIO, "yi_mkdir_p through a file fails");

	ying_profile_free(now);
	ying_profile_free(prev);
	free(dump);
}

/* Finding 1 of issue 13: a report directory someone else owns or may write
 * into is refused, with the reason; created ones are 0700 and the files
 * 0600; a link pre-placed under a temporary name is never written through. */
static void
test_private_dir(void)
{
	ying_profile *now = NULL;
	char *dump, dir[400], path[700], tmpname[700], victim[400], base[128];
	size_t len = 0;
	double total = 0;
	yi_report_meta m;
	struct stat st;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/open", tmpdir);
	ok(mkdir(dir, 0700) == 0 && chmod(dir, 0777) == 0, "a 0777 directory");
	is_int(yi_mkdir_p(dir), YING_EIO, "a world-writable directory is refused");
	has_str(ying_last_error(), "open: mode 777 lets other users write",
	    "the error names the directory and why");
	chmod(dir, 0770);
	is_int(yi_mkdir_p(dir), YING_EIO, "a group-writable directory is refused");
	has_str(ying_last_error(), "lets its group write", "... and says so");
	chmod(dir, 0755);
	is_int(yi_mkdir_p(dir), 0, "0755 and ours: accepted");

	snprintf(dir, sizeof(dir), "%s/theirs", tmpdir);
	ok(mkdir(dir, 0700) == 0, "a directory for another uid");
	if (geteuid() == 0) {
		ok(chown(dir, 65534, 65534) == 0, "chown to 65534 (nobody)");
		is_int(yi_mkdir_p(dir), YING_EIO, "a directory owned by another uid is refused");
		has_str(ying_last_error(), "theirs: it belongs to uid 65534",
		    "the error names the directory and its owner");
	} else {
		/* not root: the root directory belongs to another user (root) */
		is_int(yi_mkdir_p("/"), YING_EIO, "/ (root's) is refused when not root");
		has_str(ying_last_error(), "it belongs to uid 0", "the error names the owner");
	}

	snprintf(dir, sizeof(dir), "%s/private/sub", tmpdir);
	is_int(yi_mkdir_p(dir), 0, "yi_mkdir_p creates a new directory");
	ok(stat(dir, &st) == 0 && (st.st_mode & 07777) == 0700, "... mode 0700");

	dump = tap_slurp(tap_data("heap1.heap"), &len);
	is_int(ying_profile_read_mem(&now, dump, len, "heap1.heap"), 0, "read heap1");
	if (now == NULL) {
		free(dump);
		return;
	}
	ying_profile_total(&total, now, YING_INUSE_SPACE);
	memset(&m, 0, sizeof(m));
	m.time = utc(2026, 9, 9, 20, 45, 5);
	m.pid = 4242;
	m.program = "heapgen";
	m.trigger = "test";
	yi_report_base_name(base, sizeof(base), m.time, total, false);

	/* a file elsewhere, hard-linked and symlinked under the temporary names */
	snprintf(victim, sizeof(victim), "%s/victim", tmpdir);
	f = fopen(victim, "w");
	if (f) {
		fputs("precious\n", f);
		fclose(f);
	}
	snprintf(tmpname, sizeof(tmpname), "%s/.ying-tmp.%ld.%s.heap", dir,
	    (long)getpid(), base);
	ok(link(victim, tmpname) == 0, "a hard link to another file under the .heap temp name");
	snprintf(tmpname, sizeof(tmpname), "%s/.ying-tmp.%ld.%s.report", dir,
	    (long)getpid(), base);
	ok(symlink(victim, tmpname) == 0, "a symlink to it under the .report temp name");
	is_int(yi_runner_write_set(dir, base, now, total, dump, len, &m), 0,
	    "the set is written all the same");
	{
		char *v = read_all(victim, NULL);
		is_str(v, "precious\n", "the other file is neither truncated nor written");
		free(v);
	}
	ok(lstat(victim, &st) == 0 && st.st_nlink == 1, "... and no longer linked from the directory");
	is_int(count_entries(dir, ".ying-tmp"), 0, "no temporary file left");
	snprintf(path, sizeof(path), "%s/%s.report", dir, base);
	ok(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600,
	    "the .report is a regular file, mode 0600");
	snprintf(path, sizeof(path), "%s/%s.heap", dir, base);
	ok(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600 &&
	    st.st_nlink == 1, "the .heap is a file of its own, mode 0600");
	ying_profile_free(now);
	free(dump);
}

/* Run the build tree's heapgen under exact profiling; it writes its
 * heap_v2 dump to path.  0 on success. */
static int
run_heapgen(const char *path)
{
	const char *b = getenv("YING_BUILDDIR");
	char prog[4096];
	pid_t pid;
	int st;

	if (b == NULL) {
		printf("# YING_BUILDDIR is not set: run through make check\n");
		return -1;
	}
	snprintf(prog, sizeof(prog), "%s/tests/programs/heapgen", b);
	if (access(prog, X_OK) != 0) {
		printf("# %s: %s (built by make check)\n", prog, strerror(errno));
		return -1;
	}
	fflush(stdout);
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		setenv("MALLOC_CONF", "prof:true,lg_prof_sample:0", 1);
		execl(prog, prog, path, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		printf("# %s exited abnormally (status 0x%x)\n", prog, (unsigned)st);
		return -1;
	}
	return 0;
}

/* A report set of a dump made now by heapgen: the names it shows come from
 * a binary of this build, so they are the same on every machine. */
static void
test_report_live(void)
{
	ying_profile *now = NULL;
	char *dump = NULL, *text, dpath[512], path[512], dir[300], base[128];
	size_t len = 0;
	double total = 0;
	yi_report_meta m;
	int64_t t = utc(2026, 9, 9, 20, 45, 5);

	snprintf(dpath, sizeof(dpath), "%s/heapgen.heap", tmpdir);
	is_int(run_heapgen(dpath), 0, "tests/programs/heapgen writes an exact dump");
	dump = read_all(dpath, &len);
	ok(dump != NULL && ying_profile_read_mem(&now, dump, len, dpath) == 0,
	    "read heapgen's dump");
	if (now == NULL) {
		free(dump);
		return;
	}
	has_str(ying_profile_program(now), "/tests/programs/heapgen",
	    "the dump maps the build tree's heapgen");
	ying_profile_total(&total, now, YING_INUSE_SPACE);
	/* 20000 x 1 KiB + 10000 x 1 KiB + 50 x 1 MiB + 5000 x 8 KiB, plus the
	 * thread start and jemalloc's own small allocations */
	ok(total >= 30000.0 * 1024 + 50.0 * 1048576 + 5000.0 * 8192 &&
	    total < 160.0 * 1048576, "exact total of what heapgen keeps");

	memset(&m, 0, sizeof(m));
	m.time = t;
	m.pid = 4243;
	m.program = "heapgen";
	m.trigger = "requested";
	m.top = 3;

	snprintf(dir, sizeof(dir), "%s/live", tmpdir);
	yi_mkdir_p(dir);
	yi_report_base_name(base, sizeof(base), t, total, false);
	is_int(ying_profile_symbolize(now, NULL, NULL), 0, "symbolize heapgen's dump");
	is_int(yi_runner_write_set(dir, base, now, total, dump, len, &m), 0,
	    "write a set of heapgen's dump");

	snprintf(path, sizeof(path), "%s/%s.svg", dir, base);
	text = read_all(path, NULL);
	ok(text && strncmp(text, "<?xml", 5) == 0, "live .svg is an SVG document");
	has_str(text, "alloc_big_1m", ".svg names the biggest function");
	has_str(text, "deeper1", ".svg has the caller chain deeper1 -> deeper2");
	free(text);

	snprintf(path, sizeof(path), "%s/%s.report", dir, base);
	text = read_all(path, NULL);
	ok(text != NULL, "live .report exists");
	has_str(text, "alloc_big_1m (heapgen.c:10)", "function (file:line) frames");
	has_str(text, "main (heapgen.c:", "callers get file:line too");
	has_str(text, "worker (heapgen.c:13)", "the thread's function and line");
	{
		const char *s1 = text ? strstr(text, "#1 ") : NULL;
		const char *s2 = s1 ? strstr(s1, "#2 ") : NULL;
		const char *f = s1 ? strstr(s1, "alloc_big_1m") : NULL;
		ok(s2 && f && f < s2, "#1 is alloc_big_1m's stack (50 MiB, the biggest)");
	}
	ok(text && strstr(text, "heapgen+0x") == NULL, "no unsymbolized heapgen frame");
	free(text);

	ying_profile_free(now);
	free(dump);
}

static void
touch(const char *dir, const char *name, size_t size, time_t mtime)
{
	char path[512];
	struct timespec ts[2];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "w")) == NULL)
		return;
	for (size_t i = 0; i < size; i++)
		fputc('x', f);
	fclose(f);
	ts[0].tv_sec = ts[1].tv_sec = mtime;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	utimensat(AT_FDCWD, path, ts, 0);
}

static bool
exists(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static void
test_prune(void)
{
	static const char *const ext[] = { ".report", ".svg", ".heap", ".pb.gz" };
	char dir[300], name[128];
	time_t t0 = 1700000000;
	int i;

	snprintf(dir, sizeof(dir), "%s/prune", tmpdir);
	yi_mkdir_p(dir);
	for (i = 0; i < 5; i++)
		for (int k = 0; k < 4; k++) {
			/* the two oldest sets were named by an older version */
			snprintf(name, sizeof(name), "ying.2026-09-09T16:4%d:00-04:00.%d%s%s",
			    i, 10 * (i + 1), i < 2 ? "MB" : "MiB", ext[k]);
			touch(dir, name, 100, t0 + 60 * i);
		}
	touch(dir, "notes.txt", 10, t0 - 1000);
	touch(dir, "ying.conf", 10, t0 - 1000);
	is_int(yi_runner_prune(dir, 0, 0, NULL), 0, "no bounds: nothing removed");
	is_int(yi_runner_prune(dir, 3, 0, NULL), 2, "max 3 sets: the 2 oldest (older <N>MB names) go");
	ok(!exists(dir, "ying.2026-09-09T16:40:00-04:00.10MB.report") &&
	    !exists(dir, "ying.2026-09-09T16:40:00-04:00.10MB.pb.gz") &&
	    !exists(dir, "ying.2026-09-09T16:41:00-04:00.20MB.heap"),
	    "oldest sets removed whole, although named <N>MB (upgrade leaves nothing stale)");
	ok(exists(dir, "ying.2026-09-09T16:42:00-04:00.30MiB.svg") &&
	    exists(dir, "ying.2026-09-09T16:44:00-04:00.50MiB.report"), "newer sets kept");
	ok(exists(dir, "notes.txt") && exists(dir, "ying.conf"), "foreign files untouched");
	/* 3 sets x 400 bytes = 1200; a bound of 900 removes one more. */
	is_int(yi_runner_prune(dir, 0, 900, NULL), 1, "byte bound removes the oldest set");
	ok(!exists(dir, "ying.2026-09-09T16:42:00-04:00.30MiB.svg"), "it was the oldest");
	/* keep protects a set even when it is the oldest */
	is_int(yi_runner_prune(dir, 1, 0, "ying.2026-09-09T16:43:00-04:00.40MiB"), 1,
	    "keep: the other set goes");
	ok(exists(dir, "ying.2026-09-09T16:43:00-04:00.40MiB.report") &&
	    !exists(dir, "ying.2026-09-09T16:44:00-04:00.50MiB.report"), "the kept set stays");
	is_int(yi_runner_prune("/nonexistent/ying", 1, 0, NULL), YING_EIO, "missing dir: YING_EIO");
}

static int
count_tasks(void)
{
	return tap_count_dir("/proc/self/task");
}

static void
test_api_checks(void)
{
	ying_runner_opts o = YING_RUNNER_OPTS_INIT;
	ying_runner *r = (ying_runner *)1;
	char dir[300];

	is_int(ying_runner_start(NULL, &o), YING_EINVAL, "NULL out");
	is_int(ying_runner_start(&r, NULL), YING_EINVAL, "NULL options");
	ok(r == NULL, "*out is NULL on failure");
	is_int(ying_runner_start(&r, &o), YING_EINVAL, "no directory");
	snprintf(dir, sizeof(dir), "%s/api", tmpdir);
	o.dir = dir;
	o.version = 99;
	is_int(ying_runner_start(&r, &o), YING_EINVAL, "wrong options version");
	o.version = YING_RUNNER_OPTS_VERSION;
	o.pct = -1;
	is_int(ying_runner_start(&r, &o), YING_EINVAL, "negative pct");
	o.pct = 10;
	is_int(ying_runner_start(&r, &o), YING_ENOJEMALLOC, "no jemalloc in this process");
	has_str(ying_last_error(), "LD_PRELOAD", "the error says how to fix it");
	ok(r == NULL, "no runner");
	is_int(ying_runner_trigger(NULL), YING_EINVAL, "trigger(NULL)");
	is_int(ying_runner_trigger_all(), 0, "trigger_all with no runner (a failed start "
	    "left no armed slot): 0 asked");
	is_int(ying_runner_reports(NULL), 0, "reports(NULL)");
	/* stop(NULL) is a no-op: nothing it could touch changes */
	{
		struct stat sb;
		int tasks = count_tasks(), had_dir = stat(dir, &sb) == 0;
		yi_error(YING_EIO, "detail before stop");
		errno = EAGAIN;
		ying_runner_stop(NULL);
		is_int(errno, EAGAIN, "stop(NULL) leaves errno");
		is_str(ying_last_error(), "detail before stop", "stop(NULL) leaves the error detail");
		is_int(count_tasks(), tasks, "stop(NULL) starts or joins no thread");
		is_int(stat(dir, &sb) == 0, had_dir, "stop(NULL) creates or removes no directory");
	}
}

/* The report directory held open (yi_rdir): a descriptor the program
 * closed and reused is not used (nor closed), a removed directory, one
 * replaced by a symlink and one opened to others are refused. */
static void
test_rdir(void)
{
	char dir[300], old[320], other[300], file[300];
	struct stat st, fst;
	yi_rdir d;
	int num, ffd;

	snprintf(dir, sizeof(dir), "%s/rdir", tmpdir);
	is_int(yi_rdir_open(&d, dir), 0, "yi_rdir_open creates and opens the directory");
	ok(d.fd >= 0 && fstat(d.fd, &st) == 0 && S_ISDIR(st.st_mode) &&
	    (st.st_mode & 0777) == 0700, "... a 0700 directory descriptor");
	is_int(yi_rdir_check(&d), 0, "yi_rdir_check: still the directory");
	/* the program closes the number and a file of its own gets it */
	snprintf(file, sizeof(file), "%s/program-file", tmpdir);
	num = d.fd;
	ffd = open(file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ok(ffd >= 0 && dup2(ffd, num) == num, "the number now names the program's file");
	close(ffd);
	is_int(yi_rdir_check(&d), 0, "yi_rdir_check: the directory is reopened by name");
	ok(d.fd >= 0 && d.fd != num && fstat(d.fd, &st) == 0 && S_ISDIR(st.st_mode),
	    "... as another descriptor, not the program's number");
	yi_rdir_close(&d);
	ok(fcntl(num, F_GETFD) >= 0 && fstat(num, &fst) == 0 && S_ISREG(fst.st_mode) &&
	    fst.st_size == 0, "yi_rdir_close left the program's file open and untouched");
	close(num);

	/* removed */
	is_int(yi_rdir_open(&d, dir), 0, "open again");
	ok(rmdir(dir) == 0, "the directory is removed");
	is_int(yi_rdir_check(&d), YING_EIO, "yi_rdir_check: removed");
	has_str(ying_last_error(), "was removed", "... says so");
	yi_rdir_close(&d);

	/* moved away, a symlink in its place */
	snprintf(old, sizeof(old), "%s.old", dir);
	snprintf(other, sizeof(other), "%s/elsewhere", tmpdir);
	mkdir(other, 0700);
	is_int(yi_rdir_open(&d, dir), 0, "a new directory");
	ok(rename(dir, old) == 0 && symlink(other, dir) == 0, "moved away, a symlink put there");
	is_int(yi_rdir_check(&d), YING_EIO, "yi_rdir_check: replaced");
	has_str(ying_last_error(), "replaced (by a symlink)", "... by a symlink, it says");
	yi_rdir_close(&d);
	is_int(yi_rdir_open(&d, dir), 0, "a symlink the user gives is resolved at the start");
	ok(d.real && lstat(d.real, &st) == 0 && S_ISDIR(st.st_mode) &&
	    stat(other, &fst) == 0 && st.st_ino == fst.st_ino,
	    "... to the directory it names");
	is_int(yi_rdir_check(&d), 0, "... and checked under that name");
	/* opened to others after the start */
	chmod(other, 0777);
	is_int(yi_rdir_check(&d), YING_EIO, "yi_rdir_check: now world-writable");
	has_str(ying_last_error(), "writable by other users", "... says so");
	yi_rdir_close(&d);
	unlink(dir);
}

int
main(void)
{
	char cmd[300];

	snprintf(tmpdir, sizeof(tmpdir), "%s/test_runner.XXXXXX", tap_tmpdir());
	if (mkdtemp(tmpdir) == NULL) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_names();
	test_report_set();
	test_private_dir();
	test_report_live();
	test_prune();
	test_rdir();
	test_api_checks();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmpdir);
	return tap_done();
}
