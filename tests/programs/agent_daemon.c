/*
 * agent_daemon.c: a classic double-forking daemon, for the fork-following
 * test of the agent (tests/integration/run_daemon.sh).
 *
 *   agent_daemon DIR      fork; the first process exits 0 at once; the child
 *                         calls setsid() and forks again; the middle one
 *                         exits; the grandchild (the daemon) keeps 8 MiB from
 *                         agent_daemon_hold(), writes its pid into DIR/pid,
 *                         then serves "commands" until DIR/stop appears (at
 *                         most 120 s): DIR/fork makes it fork a child that
 *                         lives 3 s and writes its pid into DIR/child;
 *                         DIR/exec makes it fork and exec "agent_daemon
 *                         --status", whose output goes to DIR/exec.out.
 *   agent_daemon --status print what ying_agent_status() of this process
 *                         says ("none" without the agent) and exit 0.
 *
 * Plain malloc: `ying run` preloads jemalloc.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char dir[4096];

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
}

static int
exists(const char *name)
{
	char p[4200];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &st) == 0;
}

static void
put(const char *name, long v)
{
	char p[4200], t[4200];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	snprintf(t, sizeof(t), "%s/.%s.tmp", dir, name);
	if ((f = fopen(t, "w")) == NULL)
		return;
	fprintf(f, "%ld\n", v);
	fclose(f);
	rename(t, p);
}

__attribute__((noinline)) static void *
agent_daemon_hold(size_t n)
{
	char *p = malloc(n);

	if (p)
		memset(p, 1, n);
	return p;
}

int
main(int argc, char **argv)
{
	void *held[8];
	pid_t pid;
	int forked = 0;

	if (argc == 2 && strcmp(argv[1], "--status") == 0) {
		const char *(*st)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT,
		    "ying_agent_status");
		printf("%s\n", st ? st() : "none");
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: agent_daemon DIR | --status\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	if ((pid = fork()) < 0)
		return 1;
	if (pid > 0)
		return 0;            /* the first process: done */
	setsid();
	if ((pid = fork()) < 0)
		_exit(1);
	if (pid > 0)
		_exit(0);            /* the middle process */
	for (int i = 0; i < 8; i++)
		held[i] = agent_daemon_hold(1 << 20);
	put("pid", (long)getpid());
	for (int t = 0; t < 1200 && !exists("stop"); t++) {
		char p[4200];
		if (exists("fork") && !forked) {
			forked = 1;
			if ((pid = fork()) == 0) {
				put("child", (long)getpid());
				sleep_ms(3000);
				_exit(0);
			}
		}
		if (exists("exec") && !exists("exec.out")) {
			snprintf(p, sizeof(p), "%s/exec", dir);
			unlink(p);
			if ((pid = fork()) == 0) {
				int fd;
				snprintf(p, sizeof(p), "%s/exec.out", dir);
				if ((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0)
					dup2(fd, 1);
				execl("/proc/self/exe", "agent_daemon", "--status", (char *)NULL);
				_exit(127);
			}
		}
		sleep_ms(100);
	}
	for (int i = 0; i < 8; i++)
		free(held[i]);
	return 0;
}
