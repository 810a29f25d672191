/*
 * agent_closefds.c: a host that closes every descriptor >= 3, as daemons
 * and sandboxes do, while the agent runs in it (tests/integration/
 * run_closefds.sh).
 *
 *     agent_closefds MODE DIR
 *
 * Waits for DIR/go (the test creates it once the agent is up), writes its
 * pid to DIR/pid, then closes fds 3..1023 one by one (MODE "loop") or with
 * close_range(3, ~0U, 0) (MODE "range"), and opens its own files at once,
 * which take the numbers the agent's descriptors had: DIR/host.0..7 (a
 * known text each, left open; their numbers in DIR/fds), an eventfd and
 * a pipe.  It writes
 * DIR/closed, idles 2 s and writes the CPU time the whole process used
 * meanwhile (all threads, getrusage, in ms) to DIR/idle-cpu, then waits
 * for DIR/done (at most 60 s; the test pokes the agent meanwhile), checks
 * that its files' offsets did not move, its eventfd was not counted and
 * its pipe holds only what it wrote, appends a last line to each file,
 * and exits 42.  Exit 3 and a line on stderr when something of its own
 * was touched.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NFILES 8

static char dir[4096];

static int
exists(const char *name)
{
	char p[4200];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &st) == 0;
}

static void
put(const char *name, const char *text)
{
	char p[4200];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if ((f = fopen(p, "w")) == NULL) {
		perror(p);
		exit(4);
	}
	fputs(text, f);
	fclose(f);
}

static void
nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static long
cpu_ms(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000L +
	    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000L;
}

int
main(int argc, char **argv)
{
	int fds[NFILES], efd, pfd[2], bad = 0;
	off_t want[NFILES];
	char buf[256];
	long c0;

	if (argc != 3 || (strcmp(argv[1], "loop") && strcmp(argv[1], "range"))) {
		fprintf(stderr, "usage: agent_closefds loop|range DIR\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", argv[2]);
	snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	put("pid", buf);
	for (int i = 0; i < 1200 && !exists("go"); i++)
		nap(50);
	if (strcmp(argv[1], "loop") == 0) {
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	} else if (syscall(SYS_close_range, 3U, ~0U, 0U) != 0) {
		perror("close_range");
		return 4;
	}
	/* the lowest numbers again: the ones the agent had */
	for (int i = 0; i < NFILES; i++) {
		char p[4200];
		snprintf(p, sizeof(p), "%s/host.%d", dir, i);
		if ((fds[i] = open(p, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
			perror(p);
			return 4;
		}
		snprintf(buf, sizeof(buf), "host file %d, fd %d: the program's own bytes\n",
		    i, fds[i]);
		if (write(fds[i], buf, strlen(buf)) != (ssize_t)strlen(buf))
			return 4;
		want[i] = lseek(fds[i], 0, SEEK_CUR);
	}
	if ((efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0 ||
	    pipe2(pfd, O_CLOEXEC | O_NONBLOCK) != 0) {
		perror("eventfd/pipe");
		return 4;
	}
	if (write(pfd[1], "P", 1) != 1)
		return 4;
	{
		/* the numbers its files got (the agent may have taken some of
		 * the low ones meanwhile, for a new descriptor of its own) */
		char list[512];
		size_t k = 0;
		for (int i = 0; i < NFILES; i++)
			k += (size_t)snprintf(list + k, sizeof(list) - k, "%d\n", fds[i]);
		put("fds", list);
	}
	put("closed", "1\n");
	c0 = cpu_ms();
	nap(2000);
	snprintf(buf, sizeof(buf), "%ld\n", cpu_ms() - c0);
	put("idle-cpu", buf);
	for (int i = 0; i < 1200 && !exists("done"); i++)
		nap(50);
	for (int i = 0; i < NFILES; i++) {
		off_t at = lseek(fds[i], 0, SEEK_CUR);
		if (at != want[i]) {
			fprintf(stderr, "agent_closefds: host.%d (fd %d): offset %lld, "
			    "expected %lld\n", i, fds[i], (long long)at, (long long)want[i]);
			bad = 1;
		}
		snprintf(buf, sizeof(buf), "host file %d: last line\n", i);
		if (write(fds[i], buf, strlen(buf)) != (ssize_t)strlen(buf)) {
			fprintf(stderr, "agent_closefds: host.%d (fd %d): write: %s\n", i,
			    fds[i], strerror(errno));
			bad = 1;
		}
		close(fds[i]);
	}
	{
		uint64_t v = 0;
		if (read(efd, &v, sizeof(v)) >= 0 || errno != EAGAIN) {
			fprintf(stderr, "agent_closefds: its eventfd (fd %d) was counted: %llu\n",
			    efd, (unsigned long long)v);
			bad = 1;
		}
	}
	{
		char pb[64];
		ssize_t n = read(pfd[0], pb, sizeof(pb));
		if (n != 1 || pb[0] != 'P') {
			fprintf(stderr, "agent_closefds: its pipe (fd %d) holds %zd bytes, "
			    "expected its own 1\n", pfd[0], n);
			bad = 1;
		}
	}
	return bad ? 3 : 42;
}
