/*
 * agent_exit.c: a plain glibc program for the exit-status, signal and
 * "inert agent" tests (tests/integration/run_exit.sh, agent_inert.sh).
 *
 *   agent_exit CODE            print a line, allocate a little, exit CODE
 *   agent_exit --raise SIG     print a line, then die of signal SIG (number)
 *   agent_exit --wait FILE     write "ready" into FILE, then wait for signals:
 *                              SIGTERM prints "got SIGTERM" and exits 3;
 *                              others keep their default action
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t got_term;

static void
on_term(int sig)
{
	(void)sig;
	got_term = 1;
}

int
main(int argc, char **argv)
{
	char *p = malloc(1000);

	if (p == NULL)
		return 1;
	snprintf(p, 1000, "agent_exit: hello from pid %ld", (long)getpid());
	if (argc == 2) {
		printf("%s\n", "agent_exit: hello");
		free(p);
		return atoi(argv[1]);
	}
	if (argc == 3 && strcmp(argv[1], "--raise") == 0) {
		printf("%s\n", "agent_exit: raising");
		fflush(stdout);
		signal(atoi(argv[2]), SIG_DFL);
		raise(atoi(argv[2]));
		return 99;
	}
	if (argc == 3 && strcmp(argv[1], "--wait") == 0) {
		struct sigaction sa;
		sigset_t term, none;
		FILE *f;

		/* a test run under nohup inherits SIGHUP ignored: the checks
		 * are of ying run passing signals on, to a program that takes
		 * the default action */
		signal(SIGHUP, SIG_DFL);
		signal(SIGUSR1, SIG_DFL);
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_term;
		sigaction(SIGTERM, &sa, NULL);
		/* SIGTERM is blocked except inside sigsuspend: no lost wake-up */
		sigemptyset(&term);
		sigaddset(&term, SIGTERM);
		sigprocmask(SIG_BLOCK, &term, &none);
		sigdelset(&none, SIGTERM);
		if ((f = fopen(argv[2], "w")) == NULL)
			return 1;
		fprintf(f, "ready\n");
		fclose(f);
		while (!got_term)
			sigsuspend(&none);
		printf("got SIGTERM\n");
		return 3;
	}
	fprintf(stderr, "usage: agent_exit CODE | --raise SIG | --wait FILE\n");
	return 2;
}
