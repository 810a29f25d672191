/*
 * test_ctl.c: the control layer against the real jemalloc.
 *
 * jemalloc reads MALLOC_CONF once at startup, so each configuration is a
 * child process: the parent re-runs this program (or test_ctl_nojem, the
 * same source linked without jemalloc) with `child CASE` and a chosen
 * MALLOC_CONF, and renumbers the children's TAP lines into one plan.
 * Cases: prof (prof:true, every allocation sampled), noprof (jemalloc
 * without prof:true), standby (prof:true,prof_active:false), nojem (no
 * jemalloc in the process).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ying-live.h"
#include "tap.h"

extern bool yi_ctl_force_dir_dump;
extern void yi_ctl_release_thread(void);

#ifndef TEST_CTL_NO_JEMALLOC
static int
count_fds(void)
{
	return tap_count_dir("/proc/self/fd");
}

static int
count_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

void *volatile ctl_keep[64];

__attribute__((noinline)) void
ctl_test_alloc(void)
{
	for (int i = 0; i < 64; i++)
		ctl_keep[i] = malloc(10000);
}

static int
not_jemalloc(const char *name, void *oldp, size_t *oldlenp, void *newp,
    size_t newlen)
{
	(void)name; (void)oldp; (void)oldlenp; (void)newp; (void)newlen;
	return ENOENT;
}

extern int mallctl(const char *, void *, size_t *, void *, size_t);

static void
case_prof(void)
{
	ying_ctl_status st;
	ying_ctl_stats ss;
	ying_profile *p = NULL;
	char *buf = NULL, *name = NULL, tmpl[PATH_MAX], path[PATH_MAX + 64];
	size_t len = 0;
	int old = -1, fds0, fds1;

	is_int(ying_ctl_available(), 0, "available under prof:true");
	is_int(ying_ctl_status_get(&st), 0, "status");
	ok(st.config_prof && st.opt_prof, "config.prof and opt.prof are true");
	ok(st.version[0] >= '1' && st.version[0] <= '9', "version string read");
	is_str(st.mallctl_symbol, "mallctl", "found by dlsym as mallctl");
	is_str(st.mallctl_how, "dlsym", "status says how: dlsym");
	has_str(st.mallctl_file, "libjemalloc.so", "... in libjemalloc.so");
	is_int(st.lg_sample, 0, "lg_sample 0 from MALLOC_CONF");
	is_int(st.prof_active, 1, "prof.active on");
	is_int(st.opt_prof_accum, 0, "prof_accum off");

	/* activate / deactivate */
	is_int(ying_ctl_active(&old, 0), 0, "deactivate");
	is_int(old, 1, "previous value was on");
	is_int(ying_ctl_active(&old, -1), 0, "read prof.active");
	is_int(old, 0, "now off");
	is_int(ying_ctl_active(&old, 1), 0, "activate");
	is_int(ying_ctl_active(&old, 2), YING_EINVAL, "active(2) rejected");

	/* reset with a new rate */
	is_int(ying_ctl_reset(10), 0, "reset lg 10");
	ying_ctl_status_get(&st);
	is_int(st.lg_sample, 10, "lg_sample now 10");
	is_int(ying_ctl_reset(-1), 0, "reset keeping the rate");
	ying_ctl_status_get(&st);
	is_int(st.lg_sample, 10, "lg_sample still 10");
	is_int(ying_ctl_reset(64), YING_EINVAL, "lg 64 rejected");
	is_int(ying_ctl_reset(0), 0, "reset lg 0");

	/* dump to memory, parse */
	ctl_test_alloc();
	fds0 = count_fds();
	is_int(ying_ctl_dump_mem(&buf, &len), 0, "dump to memory");
	ok(buf && len > 20 && strncmp(buf, "heap_v2/1\n", 10) == 0,
	    "dump starts with heap_v2/1");
	ok(buf && strstr(buf, "MAPPED_LIBRARIES:") != NULL, "dump has the maps");
	{
		/* ying-build-id lines: the first is the program's own, keyed by
		 * the start of its first mapping, a 20-byte GNU build ID */
		const char *l = buf ? strstr(buf, "\nying-build-id: ") : NULL;
		char start[32] = "", id[128] = "", key[40];
		ok(l != NULL, "dump has build-id lines");
		if (l)
			sscanf(l + 16, "%31[0-9a-f] %127[0-9a-f]", start, id);
		snprintf(key, sizeof(key), "\n%s-", start);
		ok(start[0] && strstr(buf, key) != NULL, "keyed by the start of a mapping");
		is_int(strlen(id), 40, "a 20-byte build ID in lowercase hex");
	}
	ok(buf && strlen(buf) == len, "buffer is NUL-terminated at len");
	fds1 = count_fds();
	is_int(fds1, fds0, "no descriptor left open by the dump");
	ying_free(buf);
	buf = NULL;
	is_int(ying_ctl_dump_profile(&p), 0, "dump to a profile");
	ok(p && ying_profile_nstacks(p) > 0, "profile has stacks");
	if (p) {
		double total = 0;
		ying_profile_total(&total, p, YING_INUSE_SPACE);
		ok(total >= 640000, "in-use total covers the 640 kB allocated");
		printf("# total %.0f bytes, %zu stacks\n", total, ying_profile_nstacks(p));
	}
	ying_profile_free(p);

	/* the private-directory fallback leaves nothing behind */
	snprintf(tmpl, sizeof(tmpl), "%s/ying-ctl-test.XXXXXX", tap_tmpdir());
	if (mkdtemp(tmpl) == NULL) {
		printf("Bail out! mkdtemp\n");
		exit(1);
	}
	setenv("TMPDIR", tmpl, 1);
	yi_ctl_force_dir_dump = true;
	is_int(ying_ctl_dump_mem(&buf, &len), 0, "dump through a private directory");
	ok(buf && strncmp(buf, "heap_v2/", 8) == 0, "directory dump is heap_v2");
	is_int(count_dir(tmpl), 0, "private directory removed");
	yi_ctl_force_dir_dump = false;
	ying_free(buf);
	buf = NULL;

	/* dump to a file */
	snprintf(path, sizeof(path), "%s/x.heap", tmpl);
	is_int(ying_ctl_dump_file(path), 0, "dump to a file");
	{
		char *t = tap_slurp(path, NULL);
		ok(strncmp(t, "heap_v2/", 8) == 0, "file is heap_v2");
		ok(strstr(t, "\nying-build-id: ") != NULL, "file has build-id lines");
		free(t);
	}
	unlink(path);
	snprintf(path, sizeof(path), "%s/missing/x.heap", tmpl);
	is_int(ying_ctl_dump_file(path), YING_EIO, "dump to a missing directory fails");
	has_str(ying_last_error(), "missing/x.heap", "error names the path");
	is_int(ying_ctl_dump_file(NULL), YING_EINVAL, "NULL path rejected");
	rmdir(tmpl);

	/* thread name and per-thread sampling */
	is_int(ying_ctl_thread_name_set("ctl tester\t1"), 0, "set thread name");
	is_int(ying_ctl_thread_name_get(&name), 0, "get thread name");
	is_str(name, "ctl tester\t1", "thread name round trip");
	ying_free(name);
	is_int(ying_ctl_thread_name_set("bad\nname"), YING_EINVAL, "newline rejected");
	is_int(ying_ctl_thread_active(&old, 0), 0, "thread sampling off");
	is_int(old, 1, "thread was sampling");
	is_int(ying_ctl_thread_active(&old, -1), 0, "read thread sampling");
	is_int(old, 0, "thread sampling is off");
	is_int(ying_ctl_thread_active(NULL, 1), 0, "thread sampling on again");

	/* statistics */
	is_int(ying_ctl_stats_get(&ss), 0, "stats");
	ok(ss.allocated >= 640000, "stats.allocated covers our allocations");
	ok(ss.active >= ss.allocated && ss.resident >= ss.active &&
	    ss.mapped >= ss.active && ss.metadata > 0, "stats are consistent");
	is_int(ying_ctl_stats_json(&buf, &len), 0, "stats JSON");
	ok(buf && buf[0] == '{' && strstr(buf, "\"jemalloc\"") &&
	    strstr(buf, "\"allocated\"") && len == strlen(buf), "stats JSON content");
	ying_free(buf);

	/* the caller's mallctl */
	is_int(ying_ctl_use(not_jemalloc), YING_EINVAL, "a non-jemalloc function rejected");
	is_int(ying_ctl_use(mallctl), 0, "use the caller's mallctl");
	ying_ctl_status_get(&st);
	is_str(st.mallctl_symbol, "caller", "status says caller");
	is_str(st.mallctl_how, "caller", "how: caller");
	is_str(st.mallctl_file, "", "no file for the caller's function");
	is_int(ying_ctl_dump_mem(&buf, &len), 0, "dump via the caller's mallctl");
	ying_free(buf);
	is_int(ying_ctl_use(NULL), 0, "back to dlsym");
	ying_ctl_status_get(&st);
	is_str(st.mallctl_symbol, "mallctl", "dlsym again");
	is_int(ying_ctl_status_get(NULL), YING_EINVAL, "NULL status rejected");
	is_int(ying_ctl_dump_mem(NULL, &len), YING_EINVAL, "NULL out rejected");
}

/* Unused dirty pages of the calling thread's arena (bytes). */
static size_t
arena_dirty(void)
{
	unsigned arena;
	size_t sz = sizeof(arena), pd = 0, psz = sizeof(pd);
	uint64_t epoch = 1;
	char name[64];

	if (mallctl("thread.arena", &arena, &sz, NULL, 0) != 0 ||
	    mallctl("epoch", NULL, NULL, &epoch, sizeof(epoch)) != 0)
		return (size_t)-1;
	snprintf(name, sizeof(name), "stats.arenas.%u.pdirty", arena);
	if (mallctl(name, &pd, &psz, NULL, 0) != 0)
		return (size_t)-1;
	return pd * (size_t)sysconf(_SC_PAGESIZE);
}

/* yi_ctl_release_thread (the end of an agent cycle): what the thread freed
 * leaves the process now, not when its arena is busy again.  128 blocks of
 * 64 KiB (above the tcache's sizes) are written and freed: their pages stay
 * dirty in the arena (dirty_decay_ms 10 s) until the call purges them. */
static void
check_release(void)
{
	void *b[128];
	size_t before, after;

	for (int i = 0; i < 128; i++)
		if ((b[i] = malloc(65536)) != NULL)
			memset(b[i], 1, 65536);
	for (int i = 0; i < 128; i++)
		free(b[i]);
	before = arena_dirty();
	yi_ctl_release_thread();
	after = arena_dirty();
	printf("# dirty pages of the thread's arena: %zu bytes, %zu after\n", before, after);
	ok(before != (size_t)-1 && before >= 4u << 20, "freed blocks leave >= 4 MiB of dirty "
	    "pages in the thread's arena");
	is_int((int)after, 0, "yi_ctl_release_thread purges them");
}

static void
case_noprof(void)
{
	ying_ctl_status st;
	ying_ctl_stats ss;
	char *buf = (char *)1;
	size_t len;

	is_int(ying_ctl_status_get(&st), 0, "status without prof:true");
	is_int(st.config_prof, 1, "config.prof true");
	is_int(st.opt_prof, 0, "opt.prof false");
	is_int(ying_ctl_available(), YING_ENOPROF, "not available");
	has_str(ying_last_error(), "MALLOC_CONF=prof:true", "message names the fix");
	has_str(ying_last_error(), "prof_active:false", "message names the standby form");
	is_int(ying_ctl_dump_mem(&buf, &len), YING_ENOPROF, "dump fails with ENOPROF");
	ok(buf == NULL, "out set to NULL");
	is_int(ying_ctl_active(NULL, 1), YING_ENOPROF, "activate fails");
	is_int(ying_ctl_reset(5), YING_ENOPROF, "reset fails");
	is_int(ying_ctl_thread_name_set("x"), YING_ENOPROF, "thread name fails");
	is_int(ying_ctl_stats_get(&ss), 0, "stats work without prof");
	ok(ss.allocated > 0, "allocated > 0");
	check_release();
}

static void
case_standby(void)
{
	ying_ctl_status st;
	int old = -1;
	char *buf;
	size_t len;

	is_int(ying_ctl_available(), 0, "standby is available");
	ying_ctl_status_get(&st);
	is_int(st.opt_prof, 1, "opt.prof true");
	is_int(st.prof_active, 0, "prof.active false in standby");
	ctl_test_alloc();
	is_int(ying_ctl_dump_mem(&buf, &len), 0, "dump works while inactive");
	ok(buf && strstr(buf, "@ ") == NULL, "nothing sampled while inactive");
	ying_free(buf);
	is_int(ying_ctl_active(&old, 1), 0, "activate from standby");
	is_int(old, 0, "was inactive");
	ctl_test_alloc();
	is_int(ying_ctl_dump_mem(&buf, &len), 0, "dump after activation");
	ok(buf && strstr(buf, "@ ") != NULL, "stacks sampled after activation");
	ying_free(buf);
}
#endif /* TEST_CTL_NO_JEMALLOC */

static void
case_nojem(void)
{
	ying_ctl_status st;
	char *buf = (char *)1;
	size_t len;

	is_int(ying_ctl_status_get(&st), YING_ENOJEMALLOC, "status: no jemalloc");
	has_str(ying_last_error(), "dlsym or in the .symtab of a loaded object",
	    "message says where it looked");
	has_str(ying_last_error(), "LD_PRELOAD=libjemalloc.so.2", "message says how to preload");
	has_str(ying_last_error(), "ying_ctl_use", "message mentions ying_ctl_use");
	is_int(ying_ctl_available(), YING_ENOJEMALLOC, "not available");
	is_int(ying_ctl_dump_mem(&buf, &len), YING_ENOJEMALLOC, "dump fails");
	ok(buf == NULL, "out set to NULL");
}

/* Run a child, copy its TAP lines into ours; false if it failed to run. */
static void
run_child(const char *exe, const char *what, const char *conf)
{
	int pfd[2], st;
	pid_t pid;
	FILE *f;
	char line[4096];

	if (pipe(pfd) != 0) {
		printf("Bail out! pipe\n");
		exit(1);
	}
	fflush(stdout);
	if ((pid = fork()) == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		if (conf)
			setenv("MALLOC_CONF", conf, 1);
		else
			unsetenv("MALLOC_CONF");
		execl(exe, exe, "child", what, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	f = fdopen(pfd[0], "r");
	while (fgets(line, sizeof(line), f)) {
		char *p = line;
		int good;
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(p, "not ok ", 7) == 0)
			good = 0, p += 7;
		else if (strncmp(p, "ok ", 3) == 0)
			good = 1, p += 3;
		else {
			if (strncmp(p, "1..", 3) != 0)
				printf("%s\n", p);
			continue;
		}
		p += strspn(p, "0123456789");
		if (strncmp(p, " - ", 3) == 0)
			p += 3;
		{
			char what_buf[4200];
			snprintf(what_buf, sizeof(what_buf), "[%s] %s", what, p);
			tap_ok(good, what_buf);
		}
	}
	fclose(f);
	waitpid(pid, &st, 0);
	{
		char m[128];
		snprintf(m, sizeof(m), "[%s] child exited cleanly", what);
		is_int(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), 0, m);
	}
}

int
main(int argc, char **argv)
{
	char exe[PATH_MAX], other[PATH_MAX + 32];
	ssize_t n;

	if (argc == 3 && strcmp(argv[1], "child") == 0) {
#ifndef TEST_CTL_NO_JEMALLOC
		if (strcmp(argv[2], "prof") == 0)
			case_prof();
		else if (strcmp(argv[2], "noprof") == 0)
			case_noprof();
		else if (strcmp(argv[2], "standby") == 0)
			case_standby();
		else
#endif
		if (strcmp(argv[2], "nojem") == 0)
			case_nojem();
		return tap_done();
	}
	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) <= 0) {
		printf("Bail out! readlink /proc/self/exe\n");
		return 1;
	}
	exe[n] = '\0';
#ifdef TEST_CTL_NO_JEMALLOC
	run_child(exe, "nojem", NULL);
#else
	run_child(exe, "prof", "prof:true,lg_prof_sample:0");
	run_child(exe, "noprof", NULL);
	run_child(exe, "standby", "prof:true,prof_active:false,lg_prof_sample:0");
	snprintf(other, sizeof(other), "%s_nojem", exe);
	run_child(other, "nojem", NULL);
#endif
	(void)other;
	return tap_done();
}
