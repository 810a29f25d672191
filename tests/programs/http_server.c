/*
 * http_server.c: a jemalloc program that embeds the ying HTTP endpoint, for
 * tests/integration/http_*.sh and the latency/RSS measurements.
 *
 * It allocates in functions with known names (http_alloc_alpha,
 * http_alloc_beta_leaf under http_alloc_beta, http_worker_alloc in a thread
 * named "http worker"), optionally builds a big heap over many distinct
 * stacks (--heap-mb N), starts the server (--bind, default 127.0.0.1:0;
 * --token, --max-connections, --busy-wait-ms, --timeout, --allow-hosts,
 * --insecure), prints "port N"
 * and its RSS before/after the start, then waits: SIGUSR1 allocates 32 MiB
 * more in http_grow_on_signal (for growth and diff tests), SIGTERM/SIGINT
 * stop the server and exit 0.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ying-live.h"

#ifdef __clang__
#pragma clang optimize off
#else
#pragma GCC optimize "O0"
#endif

static void *volatile keep_alpha[64], *volatile keep_beta[2048],
    *volatile keep_worker[256];
static void **big_blocks;
static size_t big_n;
static void **grow_blocks;
static size_t grow_n;

__attribute__((noinline)) void
http_alloc_alpha(void)
{
	for (int i = 0; i < 64; i++)
		keep_alpha[i] = malloc(256 * 1024);
}

__attribute__((noinline)) void
http_alloc_beta_leaf(int i)
{
	keep_beta[i] = malloc(4096);
}

__attribute__((noinline)) void
http_alloc_beta(void)
{
	for (int i = 0; i < 2048; i++)
		http_alloc_beta_leaf(i);
}

__attribute__((noinline)) void
http_worker_alloc(void)
{
	for (int i = 0; i < 256; i++)
		keep_worker[i] = malloc(32 * 1024);
}

static void *
worker(void *arg)
{
	(void)arg;
	ying_ctl_thread_name_set("http worker");
	http_worker_alloc();
	return NULL;
}

__attribute__((noinline)) void
http_grow_on_signal(void)
{
	void **nb = realloc(grow_blocks, (grow_n + 512) * sizeof(void *));
	if (nb == NULL)
		return;
	grow_blocks = nb;
	for (int i = 0; i < 512; i++)
		grow_blocks[grow_n++] = malloc(64 * 1024);
}

/* Many distinct stacks: recursion depth and leaf vary per block. */
__attribute__((noinline)) void *big_leaf_a(size_t n) { return malloc(n); }
__attribute__((noinline)) void *big_leaf_b(size_t n) { return malloc(n); }
__attribute__((noinline)) void *big_leaf_c(size_t n) { return calloc(1, n); }
__attribute__((noinline)) void *big_leaf_d(size_t n) { return malloc(n); }

__attribute__((noinline)) void *
http_big_chain(int depth, int leaf, size_t n)
{
	void *p;

	if (depth > 0) {
		p = http_big_chain(depth - 1, leaf, n);
		return p;
	}
	switch (leaf) {
	case 0: return big_leaf_a(n);
	case 1: return big_leaf_b(n);
	case 2: return big_leaf_c(n);
	default: return big_leaf_d(n);
	}
}

static void
build_big_heap(size_t mb)
{
	size_t total = 0, want = mb << 20, i = 0;

	big_blocks = malloc((want / 512 + 16) * sizeof(void *));
	while (big_blocks && total < want) {
		size_t n = 512 + (i * 7919) % 16384;    /* 0.5 .. 16.5 KiB */
		void *p = http_big_chain((int)(i % 48), (int)((i / 48) % 4), n);
		if (p == NULL)
			break;
		memset(p, 1, n);
		big_blocks[big_n++] = p;
		total += n;
		i++;
	}
}

/* A line of /proc/self/status in kB ("VmRSS:", "RssAnon:", "RssFile:"). */
static long
status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	size_t n = strlen(key);
	long v = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, n) == 0)
			v = strtol(line + n, NULL, 10);
	fclose(f);
	return v;
}

int
main(int argc, char **argv)
{
	ying_http_opts o = YING_HTTP_OPTS_INIT;
	ying_http *h;
	pthread_t t;
	sigset_t set;
	size_t heap_mb = 0;
	int sig, rc;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--bind") == 0 && i + 1 < argc)
			o.bind = argv[++i];
		else if (strcmp(argv[i], "--token") == 0 && i + 1 < argc)
			o.token = argv[++i];
		else if (strcmp(argv[i], "--heap-mb") == 0 && i + 1 < argc)
			heap_mb = (size_t)atol(argv[++i]);
		else if (strcmp(argv[i], "--max-connections") == 0 && i + 1 < argc)
			o.max_connections = (unsigned)atoi(argv[++i]);
		else if (strcmp(argv[i], "--busy-wait-ms") == 0 && i + 1 < argc)
			o.busy_wait_ms = (unsigned)atoi(argv[++i]);
		else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc)
			o.timeout_sec = (unsigned)atoi(argv[++i]);
		else if (strcmp(argv[i], "--allow-hosts") == 0 && i + 1 < argc)
			o.allow_hosts = argv[++i];
		else if (strcmp(argv[i], "--insecure") == 0)
			o.insecure = 1;
		else if (strcmp(argv[i], "--log") == 0)
			o.log = stderr;
		else {
			fprintf(stderr, "usage: http_server [--bind ADDR] [--token T] "
			    "[--heap-mb N] [--max-connections N] [--busy-wait-ms N] "
			    "[--timeout S] [--allow-hosts NAMES] [--insecure] [--log]\n");
			return 2;
		}
	}
	if (o.bind == NULL)
		o.bind = "127.0.0.1:0";

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	http_alloc_alpha();
	http_alloc_beta();
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	if (heap_mb)
		build_big_heap(heap_mb);

	printf("rss_before_kb %ld anon %ld file %ld\n", status_kb("VmRSS:"),
	    status_kb("RssAnon:"), status_kb("RssFile:"));
	if ((rc = ying_http_start(&h, &o)) != 0) {
		fprintf(stderr, "http_server: %s: %s\n", ying_strerror(rc),
		    ying_last_error());
		return 1;
	}
	printf("rss_after_start_kb %ld anon %ld file %ld\n", status_kb("VmRSS:"),
	    status_kb("RssAnon:"), status_kb("RssFile:"));
	printf("port %d\n", ying_http_port(h));
	fflush(stdout);

	for (;;) {
		if (sigwait(&set, &sig) != 0)
			continue;
		if (sig == SIGUSR1) {
			http_grow_on_signal();
			printf("grown %zu\n", grow_n);
			fflush(stdout);
			continue;
		}
		break;
	}
	ying_http_stop(h);
	printf("stopped\n");
	fflush(stdout);
	return 0;
}
