/*
 * run_keep.c: what `ying run` keeps for the processes of CMD: the report
 * directory (made 0700 by the starting user before CMD starts, or, with
 * --user NAME, NAME's own private directory accepted), the user CMD runs
 * as (--user: looked up here, switched to in the child right before exec),
 * and the agents' lines on the YING_RUN_FD pipe ("member", "skip",
 * "follow"), each said on stderr, with the summary at exit.  The report
 * keeper itself (writing the files a process that switched user hands
 * over) is libying-live's ying_keeper_*; run_child.c serves it.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "fe.h"
#include "run.h"

/* ---- the report directory ------------------------------------------------------ */

/* A user's name for messages ("uid N" when it has none). */
static const char *
user_name(uid_t uid, char *buf, size_t n)
{
	struct passwd *pw = getpwuid(uid);

	if (pw != NULL)
		snprintf(buf, n, "%s", pw->pw_name);
	else
		snprintf(buf, n, "uid %ld", (long)uid);
	return buf;
}

int
run_user_lookup(run_args *a)
{
	struct passwd *pw;

	if (a->user == NULL)
		return RUN_GO;
	if ((pw = getpwnam(a->user)) == NULL) {
		char *end;
		long v = strtol(a->user, &end, 10);
		if (*a->user == '\0' || *end != '\0' || v < 0 ||
		    (pw = getpwuid((uid_t)v)) == NULL)
			return cli_usage_error(&cli_cmd_run, "--user %s: no such user",
			    a->user);
	}
	if (geteuid() != 0) {
		char me[64];
		fprintf(stderr, "%s: --user %s: ying run must be started as root to run "
		    "CMD as another user (it runs as %s)\n", cli_prog, a->user,
		    user_name(geteuid(), me, sizeof(me)));
		return CLI_EXIT_ERR;
	}
	snprintf(a->user_name, sizeof(a->user_name), "%s", pw->pw_name);
	snprintf(a->user_home, sizeof(a->user_home), "%s", pw->pw_dir ? pw->pw_dir : "/");
	a->uid = pw->pw_uid;
	a->gid = pw->pw_gid;
	a->switch_user = true;
	return RUN_GO;
}

int
run_become_user(const run_args *a)
{
	if (!a->switch_user)
		return 0;
	if (initgroups(a->user_name, a->gid) != 0 || setgid(a->gid) != 0 ||
	    setuid(a->uid) != 0) {
		fprintf(stderr, "%s: cannot switch to user %s: %s\n", cli_prog,
		    a->user_name, strerror(errno));
		return -1;
	}
	/* as su does: the user's own home (and frames file) */
	setenv("HOME", a->user_home, 1);
	setenv("USER", a->user_name, 1);
	setenv("LOGNAME", a->user_name, 1);
	return 0;
}

/* Create dir and its parents 0700 (as mkdir -p); 0 or errno. */
static int
mkdir_parents(const char *dir)
{
	char p[PATH_MAX];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof(p))
		return ENAMETOOLONG;
	memcpy(p, dir, n + 1);
	for (char *s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;
			*s = '\0';
			if (mkdir(p, 0700) != 0 && errno != EEXIST)
				return errno;
			*s = c;
			if (c == '\0')
				break;
		}
	}
	return 0;
}

int
run_report_dir(run_args *a)
{
	const char *dir = a->dir ? a->dir : getenv("YING_REPORT_DIR");
	const char *what = a->dir ? "--report-dir" : "YING_REPORT_DIR";
	char why[PATH_MAX + 200], owner[64], me[64];
	struct stat st;
	int e;

	a->keep_dir = NULL;
	if (dir == NULL || *dir == '\0')
		return RUN_GO;
	if ((e = mkdir_parents(dir)) != 0) {
		fprintf(stderr, "%s: %s %s: cannot create it: %s\n", cli_prog, what, dir,
		    strerror(e));
		return CLI_EXIT_ERR;
	}
	if (yfe_dir_private("report directory", dir, &st, why, sizeof(why)) == 0) {
		/* ours: kept, so that a process of CMD that switches user (or
		 * runs as --user NAME) still gets its reports written here */
		a->keep_dir = dir;
		return RUN_GO;
	}
	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid != geteuid() &&
	    !(st.st_mode & (S_IWGRP | S_IWOTH))) {
		if (a->switch_user && st.st_uid == a->uid)
			return RUN_GO;     /* NAME's own: CMD writes it directly */
		user_name(st.st_uid, owner, sizeof(owner));
		fprintf(stderr, "%s: %s %s belongs to %s, not to %s who starts CMD: if "
		    "CMD runs as %s, say so with --user %s; otherwise give a directory "
		    "of yours (ying run creates it 0700 and writes the reports of every "
		    "process of CMD there, also after they switch user)\n", cli_prog,
		    what, dir, owner, user_name(geteuid(), me, sizeof(me)), owner, owner);
		return CLI_EXIT_ERR;
	}
	fprintf(stderr, "%s: %s: %s\n", cli_prog, what, why);
	return CLI_EXIT_ERR;
}

/* ---- the agents' lines --------------------------------------------------------- */

/* The program's name of pid (/proc/PID/comm), printable, into buf. */
static const char *
proc_name(long pid, char *buf, size_t n)
{
	char path[64];
	ssize_t k;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	snprintf(buf, n, "?");
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return buf;
	k = read(fd, buf, n - 1);
	close(fd);
	if (k <= 0) {
		snprintf(buf, n, "?");
		return buf;
	}
	buf[k] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	for (char *s = buf; *s; s++)
		if (!isprint((unsigned char)*s))
			*s = '?';
	return buf;
}

/* A decimal pid field: its value, or 0 when it is not one. */
static long
field_pid(char **p)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)**p))
		return 0;
	errno = 0;
	v = strtol(*p, &end, 10);
	if (errno || v <= 0 || v > INT32_MAX || (*end != ' ' && *end != '\0'))
		return 0;
	*p = *end ? end + 1 : end;
	return v;
}

/* The next space-separated field (up to 255 characters) into out. */
static bool
field_word(char **p, char *out, size_t n)
{
	size_t k = strcspn(*p, " ");

	if (k == 0 || k >= n)
		return false;
	memcpy(out, *p, k);
	out[k] = '\0';
	*p += k + ((*p)[k] == ' ');
	return true;
}

static void
watch_line(run_watch *w, char *line)
{
	char prog[64], who[64], sub[256];
	long pid, ppid, uid;

	for (char *s = line; *s; s++)       /* the free text is printed */
		if (!isprint((unsigned char)*s))
			*s = '?';
	if (strncmp(line, "follow ", 7) == 0) {
		char *p = line + 7;
		if ((pid = field_pid(&p)) > 0 && *p) {
			w->follow = pid;
			snprintf(w->follow_what, sizeof(w->follow_what), "%s", p);
		}
		return;
	}
	if (strncmp(line, "member ", 7) == 0) {
		char *p = line + 7, *end;
		if ((pid = field_pid(&p)) == 0 || (ppid = field_pid(&p)) == 0 ||
		    !isdigit((unsigned char)*p))
			return;
		uid = strtol(p, &end, 10);
		if (*end != ' ')
			return;
		p = end + 1;
		if (!field_word(&p, sub, sizeof(sub)) || strchr(sub, '/') != NULL ||
		    (sub[0] == '.' && strcmp(sub, "-") != 0))
			return;
		w->members++;
		if (w->npids < RUN_WATCH_PIDS)
			w->pids[w->npids++] = pid;
		if (w->quiet)
			return;
		proc_name(pid, prog, sizeof(prog));
		fprintf(stderr, "%s: profiling pid %ld (%s%s%s, user %s), ", cli_prog, pid,
		    prog, *p ? " " : "", p, user_name((uid_t)uid, who, sizeof(who)));
		if (strcmp(sub, "-") == 0 || w->dir == NULL)
			fprintf(stderr, "no reports\n");
		else
			fprintf(stderr, "reports in %s/%s\n", w->dir, sub);
		return;
	}
	if (strncmp(line, "skip ", 5) == 0) {
		char *p = line + 5;
		if ((pid = field_pid(&p)) == 0 || (ppid = field_pid(&p)) == 0 || *p == '\0')
			return;
		w->skipped++;
		if (!w->quiet)
			fprintf(stderr, "%s: pid %ld (%s) not profiled: %s\n", cli_prog, pid,
			    proc_name(pid, prog, sizeof(prog)), p);
	}
	if (strncmp(line, "memory ", 7) == 0) {
		/* the head's breakdown at exit, one line each, for the summary */
		char *p = line + 7;
		size_t n;
		if ((pid = field_pid(&p)) == 0 || pid != w->head)
			return;
		n = strlen(p);
		if (w->memory_len + n + 2 < sizeof(w->memory)) {
			memcpy(w->memory + w->memory_len, p, n);
			w->memory_len += n;
			w->memory[w->memory_len++] = '\n';
			w->memory[w->memory_len] = '\0';
		}
		return;
	}
	/* anything else: not ours, ignored */
}

void
run_watch_feed(run_watch *w, const char *data, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = data[i];
		if (c == '\n') {
			if (!w->drop) {
				w->buf[w->len] = '\0';
				watch_line(w, w->buf);
			}
			w->len = 0;
			w->drop = false;
		} else if (w->len < sizeof(w->buf) - 1) {
			w->buf[w->len++] = c;
		} else {
			w->drop = true;     /* over-long: not ours */
		}
	}
}

void
run_watch_summary(const run_watch *w, long head, const ying_keeper *k)
{
	const char *sub;
	unsigned sets;
	int col;

	if (!w->quiet && w->memory_len > 0) {
		const char *s = w->memory, *e;
		fprintf(stderr, "%s: where the RSS went, at exit of pid %ld:\n", cli_prog, head);
		for (; *s && (e = strchr(s, '\n')) != NULL; s = e + 1)
			fprintf(stderr, "%s:   %.*s\n", cli_prog, (int)(e - s), s);
	}
	if (w->quiet || (w->members == 0 && w->skipped == 0 && !w->verbose &&
	    ying_keeper_count(k, 0, NULL, NULL) != 0))
		return;
	col = fprintf(stderr, "%s: %u process%s profiled (%ld", cli_prog, w->members + 1,
	    w->members ? "es" : "", head);
	for (size_t i = 0; i < w->npids; i++)
		col += fprintf(stderr, " %ld", w->pids[i]);
	if (w->npids < w->members)
		fprintf(stderr, " ...");
	fprintf(stderr, ")");
	if (w->skipped)
		fprintf(stderr, ", %u not profiled", w->skipped);
	if (w->dir)
		fprintf(stderr, "; reports in %s", w->dir);
	fprintf(stderr, "\n");
	(void)col;
	for (size_t i = 0; k && ying_keeper_count(k, i, &sub, &sets) == 0; i++)
		fprintf(stderr, "%s:   %s%s%s: %u report set%s written by ying run\n",
		    cli_prog, w->dir ? w->dir : "", *sub ? "/" : "", sub, sets,
		    sets == 1 ? "" : "s");
}
