/*
 * agent_member.c: the agent in a member of the service, a process forked
 * from the one that holds the endpoint (or exec'd under the agent) that
 * keeps running: a worker, a backend (live_family.h says what a family
 * is).
 *
 * agent_fork.c's watcher decides when: a forked child whose parent is
 * still alive once it has lived cfg_children_ms (YING_CHILDREN: "long",
 * 3 s by default; "all": at once; "none": never) calls member_up.  A
 * member serves its own endpoint on the abstract socket of its pid
 * (yi_http_member_start: only its ancestors may connect, so no port and
 * no file), runs its own growth runner into a subdirectory of the report
 * directory named after it ("nginx.1234.worker-process") and its own
 * Pyroscope uploader (its series carry its pid), and says so to `ying
 * run` ("member PID PPID UID SUBDIR ROLE").  When the head of the family
 * exits while a member lives on (a daemonizing program whose first
 * process was slow to leave), member_down stops the member's services and
 * the watcher brings the agent up as the new head.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"

bool agent_member;
char member_subdir[128];
static char member_dir[PATH_MAX];
/* The program's name: /proc/self/exe's base name (a server that rewrites
 * its argv for its process title, as nginx does, has overwritten the
 * string program_invocation_short_name points to), else comm. */
static char prog[64];

static void
own_program(void)
{
	char exe[PATH_MAX];
	ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (k > 0) {
		const char *b;
		exe[k] = '\0';
		/* " (deleted)" after an upgrade in place */
		if (k > 10 && strcmp(exe + k - 10, " (deleted)") == 0)
			exe[k - 10] = '\0';
		b = strrchr(exe, '/');
		snprintf(prog, sizeof(prog), "%s", b ? b + 1 : exe);
		return;
	}
	if (prctl(PR_GET_NAME, exe, 0, 0, 0) == 0) {
		exe[15] = '\0';
		snprintf(prog, sizeof(prog), "%s", exe);
		return;
	}
	snprintf(prog, sizeof(prog), "process");
}

/* The process title's text after "PROGRAM: " (nginx "worker process",
 * postgres "checkpointer"), when the program rewrote its argv; else "". */
static void
own_role(char *role, size_t n)
{
	char buf[512];
	size_t pl = strlen(prog);
	ssize_t k;
	int fd;

	role[0] = '\0';
	if ((fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC)) < 0)
		return;
	k = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (k <= 0)
		return;
	buf[k] = '\0';
	/* "nginx: worker process", "postgres: 15/main: checkpointer" */
	if (strncmp(buf, prog, pl) == 0 && buf[pl] == ':' && buf[pl + 1] == ' ') {
		const char *r = buf + pl + 2, *last = strrchr(r, ':');
		char *cut;
		/* postgres puts its cluster first: keep the last part */
		if (last && last[1] == ' ' && strlen(last + 2) > 0)
			r = last + 2;
		snprintf(role, n, "%s", r);
		/* a backend's "alice db [local] idle": who, not what it does now */
		if ((cut = strstr(role, " [")) != NULL || (cut = strstr(role, " (")) != NULL)
			*cut = '\0';
	}
}

/* "PROGRAM.PID" or "PROGRAM.PID.ROLE": only [A-Za-z0-9_-] of the program
 * and the role (lowercased, runs of anything else one '-'), at most 24
 * bytes of the role. */
static void
subdir_name(char *out, size_t n, const char *role)
{
	char pname[48], slug[32];
	size_t w = 0;
	bool dash = false;

	for (const char *s = prog; *s && w < sizeof(pname) - 1; s++)
		pname[w++] = (char)((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || *s == '_' || *s == '-' ? *s : '_');
	pname[w] = '\0';
	if (w == 0)
		snprintf(pname, sizeof(pname), "process");
	w = 0;
	for (const char *s = role; *s && w < 24; s++) {
		char c = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
			if (dash && w > 0)
				slug[w++] = '-';
			dash = false;
			if (w < 24)
				slug[w++] = c;
		} else {
			dash = true;
		}
	}
	slug[w] = '\0';
	if (w)
		snprintf(out, n, "%s.%ld.%s", pname, (long)getpid(), slug);
	else
		snprintf(out, n, "%s.%ld", pname, (long)getpid());
}

/* The member's endpoint; agent_lock held. */
static bool
member_http_up(char *err, size_t errn)
{
	ying_http_opts ho = YING_HTTP_OPTS_INIT;
	int rc;

	ho.frames = cfg_frames;
	pthread_mutex_lock(&fork_lock);
	if ((rc = yi_http_member_start(&agent_http, &ho)) == 0) {
		listen_fd_note();
	} else {
		agent_http = NULL;
		snprintf(err, errn, "%s", ying_last_error());
	}
	pthread_mutex_unlock(&fork_lock);
	return rc == 0;
}

void
member_up(pid_t parent, bool exec_image)
{
	char role[128], err[600] = "", what[900];
	bool http_ok = false, runner_ok = false, pyro_ok = false;
	size_t w = 0;

	pthread_mutex_lock(&agent_lock);
	if (agent_stopping) {
		pthread_mutex_unlock(&agent_lock);
		return;
	}
	agent_pid = getpid();
	agent_member = true;
	atomic_store(&agent_forked, false);
	signal_take_back();
	own_program();
	own_role(role, sizeof(role));
	subdir_name(member_subdir, sizeof(member_subdir), role);
	what[0] = '\0';
	/* the head lists us only if it has an endpoint */
	if (cfg_http[0] && yi_family_id()[0])
		http_ok = member_http_up(err, sizeof(err));
	if (cfg_dir[0] && (cfg_runner.dir || cfg_signal)) {
		ying_runner_opts ro = cfg_runner;
		ying_runner *r = NULL;
		snprintf(member_dir, sizeof(member_dir), "%s/%s", cfg_dir, member_subdir);
		ro.dir = member_dir;
		if (ying_runner_start(&r, &ro) == 0) {
			atomic_store(&agent_runner, r);
			runner_ok = true;
		} else {
			say("ying-agent: pid %ld (%s): growth reports in %s not started: %s",
			    (long)getpid(), prog, member_dir,
			    ying_last_error());
		}
	}
	if (cfg_pyro.url && !exec_image) {
		if (ying_pyroscope_start(&agent_pyro, &cfg_pyro) == 0)
			pyro_ok = true;
		else
			say("ying-agent: pid %ld: Pyroscope uploads not started: %s",
			    (long)getpid(), ying_last_error());
	}
	if (!runner_ok && agent_sa_installed)
		signal_give_back();
	if (http_ok)
		w += (size_t)snprintf(what + w, sizeof(what) - w, "served through the "
		    "endpoint of pid %ld (?pid=%ld)", (long)yi_family_head(), (long)getpid());
	if (runner_ok && w < sizeof(what))
		w += (size_t)snprintf(what + w, sizeof(what) - w, "%sgrowth reports in %s",
		    w ? "; " : "", member_dir);
	if (pyro_ok && w < sizeof(what))
		w += (size_t)snprintf(what + w, sizeof(what) - w, "%sPyroscope as pid %ld",
		    w ? "; " : "", (long)getpid());
	if (!http_ok && !runner_ok && !pyro_ok) {
		set_state("inert: member of pid %ld: nothing could be started%s%s",
		    (long)parent, err[0] ? ": " : "", err);
		tell_run("skip %ld %ld nothing could be started in it%s%s", (long)getpid(),
		    (long)parent, err[0] ? ": " : "", err);
		pthread_mutex_unlock(&agent_lock);
		return;
	}
	set_state("active: member (%s) of pid %ld: %s", role[0] ? role : "child",
	    (long)parent, what);
	if (!cfg_quiet)
		say("ying-agent: pid %ld (%s%s%s), %s pid %ld, profiled: %s",
		    (long)getpid(), prog, role[0] ? ": " : "", role,
		    exec_image ? "started by" : "forked from", (long)parent, what);
	tell_run("member %ld %ld %ld %s %s", (long)getpid(), (long)parent,
	    (long)geteuid(), runner_ok ? member_subdir : "-", role);
	pthread_mutex_unlock(&agent_lock);
}

void
member_down(void)
{
	ying_runner *r;
	ying_http *h;
	ying_pyroscope *py;

	pthread_mutex_lock(&agent_lock);
	r = atomic_exchange(&agent_runner, NULL);
	h = agent_http;
	agent_http = NULL;
	py = agent_pyro;
	agent_pyro = NULL;
	agent_member = false;
	pthread_mutex_unlock(&agent_lock);
	pthread_mutex_lock(&fork_lock);
	http_listen_fd = -1;
	pthread_mutex_unlock(&fork_lock);
	ying_http_stop(h);
	ying_runner_stop(r);
	if (py)
		ying_pyroscope_stop_within(py, 1.0);
}
