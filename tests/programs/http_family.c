/*
 * http_family.c: a small pre-fork service for tests/integration/http_family.sh
 * (issue 25): the head draws a family id (yi_family_new_id, yi_family_set),
 * allocates 4 MiB in family_head_alloc, starts ying_http on 127.0.0.1:0
 * (--token T), then forks two members that join the family, allocate
 * 8 MiB in family_child_alpha / 24 MiB in family_child_beta and serve
 * their own endpoints (yi_http_member_start) until killed.  It prints
 * "family ID", "port N", then "member PID alpha|beta" as each is ready;
 * SIGTERM ends the members and the head.
 *
 * --ask ID PID PATH: join family ID (no head) and ask member PID for PATH
 * with yi_family_request from this process (a non-ancestor: the member
 * must refuse it); prints "status N" and the body, or "error MESSAGE".
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ying-live.h"
#include "live_family.h"

#ifdef __clang__
#pragma clang optimize off
#else
#pragma GCC optimize "O0"
#endif

static void *volatile keep[1024];

__attribute__((noinline)) void
family_head_alloc(void)
{
	for (int i = 0; i < 64; i++)
		keep[i] = malloc(64 * 1024);
}

__attribute__((noinline)) void
family_child_alpha(void)
{
	for (int i = 0; i < 128; i++)
		keep[100 + i] = malloc(64 * 1024);
}

__attribute__((noinline)) void
family_child_beta(void)
{
	for (int i = 0; i < 384; i++)
		keep[300 + i] = malloc(64 * 1024);
}

static volatile sig_atomic_t stop;

static void
on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static pid_t
member(const char *id, pid_t head, const char *what, void (*alloc)(void))
{
	pid_t pid;
	ying_http *h = NULL;

	fflush(stdout);
	if ((pid = fork()) != 0)
		return pid;
	signal(SIGTERM, SIG_DFL);
	if (yi_family_set(id, head) != 0) {
		fprintf(stderr, "member: %s\n", ying_last_error());
		_exit(1);
	}
	alloc();
	if (yi_http_member_start(&h, NULL) != 0) {
		fprintf(stderr, "member: %s\n", ying_last_error());
		_exit(1);
	}
	printf("member %ld %s\n", (long)getpid(), what);
	fflush(stdout);
	for (;;)
		pause();
}

static int
ask(const char *id, const char *pid, const char *path)
{
	yi_family_resp r;

	if (yi_family_set(id, 0) != 0) {
		printf("error %s\n", ying_last_error());
		return 1;
	}
	if (yi_family_request((pid_t)atol(pid), "GET", path, NULL, NULL, 0, 1 << 20,
	    3000, &r) != 0) {
		printf("error %s\n", ying_last_error());
		return 1;
	}
	printf("status %d\n%.*s\n", r.status, (int)r.len, r.body);
	yi_family_resp_free(&r);
	return 0;
}

int
main(int argc, char **argv)
{
	ying_http_opts o = YING_HTTP_OPTS_INIT;
	ying_http *h = NULL;
	char id[YI_FAMILY_ID_LEN + 1];
	pid_t kids[2];

	if (argc == 5 && strcmp(argv[1], "--ask") == 0)
		return ask(argv[2], argv[3], argv[4]);
	if (argc == 3 && strcmp(argv[1], "--token") == 0)
		o.token = argv[2];
	o.bind = "127.0.0.1:0";
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	if (yi_family_new_id(id, sizeof(id)) != 0 || yi_family_set(id, getpid()) != 0) {
		fprintf(stderr, "family: %s\n", ying_last_error());
		return 1;
	}
	family_head_alloc();
	if (ying_http_start(&h, &o) != 0) {
		fprintf(stderr, "start: %s\n", ying_last_error());
		return 1;
	}
	printf("family %s\nport %d\n", id, ying_http_port(h));
	kids[0] = member(id, getpid(), "alpha", family_child_alpha);
	kids[1] = member(id, getpid(), "beta", family_child_beta);
	while (!stop)
		pause();
	for (int i = 0; i < 2; i++) {
		kill(kids[i], SIGTERM);
		waitpid(kids[i], NULL, 0);
	}
	ying_http_stop(h);
	return 0;
}
