/*
 * leaky.c: a small "service" with a steady leak, for scripts/demo.sh.
 *
 * It serves fake requests in a loop.  Each request reads into a scratch
 * buffer (freed at the end of the request), refreshes a bounded session
 * cache (retained, but never more than SESSIONS entries), and appends an
 * audit record to a list that nobody ever trims: audit_log_append() is the
 * leak, about 1 KiB per request.  Startup loads a "config" once.
 *
 * It links jemalloc; run it with MALLOC_CONF=prof:true,prof_prefix:DIR/leaky
 * and send SIGUSR2 to write a heap profile (mallctl "prof.dump" with jemalloc's
 * default name DIR/leaky.<pid>.<seq>.m<n>.heap).  Options:
 *   -n N      stop after N requests (default 0: run until SIGINT/SIGTERM)
 *   -s USEC   sleep this long after every 100 requests (default 200)
 *   -d N      also dump by itself every N requests (default 0: never)
 * It prints one line when it starts and one for every dump it writes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jemalloc/jemalloc.h>

#define SESSIONS 256
#define SESSION_SIZE 512
#define AUDIT_SIZE 1000
#define SCRATCH_SIZE 8192
#define CONFIG_SIZE (64 * 1024)

struct audit_record {
	struct audit_record *next;
	unsigned long request;
	char text[AUDIT_SIZE - sizeof(void *) - sizeof(unsigned long)];
};

static volatile sig_atomic_t dump_requested, stop_requested;
static struct audit_record *audit_log;
static char *sessions[SESSIONS];
static char *config;

static void
on_usr2(int sig)
{
	(void)sig;
	dump_requested = 1;
}

static void
on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* Write a heap profile under the configured prof_prefix. */
static void
dump_profile(unsigned long served)
{
	int rc = mallctl("prof.dump", NULL, NULL, NULL, 0);

	if (rc != 0)
		fprintf(stderr, "leaky: prof.dump failed: %s (run with MALLOC_CONF=prof:true)\n",
		    strerror(rc));
	else
		printf("leaky: heap profile written after %lu requests\n", served);
	fflush(stdout);
}

__attribute__((noinline)) static void
config_load(void)
{
	config = malloc(CONFIG_SIZE);
	memset(config, 'c', CONFIG_SIZE);
}

/* Transient: freed before the request ends. */
__attribute__((noinline)) static char *
read_request(unsigned long n)
{
	char *buf = malloc(SCRATCH_SIZE);

	snprintf(buf, SCRATCH_SIZE, "GET /item/%lu HTTP/1.1", n);
	return buf;
}

/* Bounded: each slot is replaced, so the cache stays at SESSIONS entries. */
__attribute__((noinline)) static void
session_cache_put(unsigned long n, const char *req)
{
	char *s = malloc(SESSION_SIZE);

	snprintf(s, SESSION_SIZE, "session %lu: %s", n, req);
	free(sessions[n % SESSIONS]);
	sessions[n % SESSIONS] = s;
}

/* The leak: every request adds a record and nothing ever removes one. */
__attribute__((noinline)) static void
audit_log_append(unsigned long n, const char *req)
{
	struct audit_record *r = malloc(sizeof(*r));

	r->request = n;
	snprintf(r->text, sizeof(r->text), "served %s", req);
	r->next = audit_log;
	audit_log = r;
}

__attribute__((noinline)) static void
handle_request(unsigned long n)
{
	char *req = read_request(n);

	session_cache_put(n, req);
	audit_log_append(n, req);
	free(req);
}

int
main(int argc, char **argv)
{
	unsigned long limit = 0, every = 0, served = 0;
	useconds_t pause = 200;
	struct sigaction sa;
	int c;

	while ((c = getopt(argc, argv, "n:s:d:")) != -1) {
		switch (c) {
		case 'n': limit = strtoul(optarg, NULL, 10); break;
		case 's': pause = (useconds_t)strtoul(optarg, NULL, 10); break;
		case 'd': every = strtoul(optarg, NULL, 10); break;
		default:
			fprintf(stderr, "usage: leaky [-n requests] [-s usec] [-d every]\n");
			return 2;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	printf("leaky: pid %d serving requests; kill -USR2 %d writes a heap profile\n",
	    (int)getpid(), (int)getpid());
	fflush(stdout);
	config_load();
	while (!stop_requested && (limit == 0 || served < limit)) {
		handle_request(served++);
		if (served % 100 == 0 && pause > 0)
			usleep(pause);
		if (every > 0 && served % every == 0)
			dump_profile(served);
		if (dump_requested) {
			dump_requested = 0;
			dump_profile(served);
		}
	}
	printf("leaky: stopped after %lu requests\n", served);
	return 0;
}
