/*
 * fuzz_http.c: the embedded HTTP endpoint's request handling: the real
 * request handler (yi_http_handle: token check, router, 404/405, the query
 * control-byte check, body bounds) and every endpoint behind it, among them
 * query decoding (format=, sample_index=, name=, base=, limit=, lg=, on=,
 * seconds=), snapshot names and their list, the diff parameters and
 * POST /pprof/symbol's address parsing.  One libmicrohttpd daemon is made
 * once, without a listening socket and without threads; each input becomes
 * one HTTP/1.1 request written into a socketpair handed to the daemon
 * (MHD_add_connection), which is then run (MHD_run, this thread) until the
 * connection is gone, so libmicrohttpd parses the request as it would from
 * the network and nothing listens on any port.
 *
 * Input: byte 0: bit 0 sets a bearer token ("fuzz-token") for this
 * request; then '\n'-separated: the method, the request target
 * ("/path?query"), header lines up to an empty line, and the body (the rest;
 * Content-Length is added).  Host and "Connection: close" are added too.
 * Up to 4 requests per input, separated by a line "~~" (body included).
 *
 * Endpoints that dump the heap need jemalloc, which this process does not
 * run: it is handed (ying_ctl_use) a mallctl that answers like a jemalloc
 * with prof:true and whose prof.dump writes one fixed, read-only dump
 * (DUMP below); prof.reset and prof.active change nothing.  The growth
 * profile's wait is off (max_seconds 0: ?seconds=N > 0 is a 400).  The
 * snapshots an input made are dropped after it.  YING_FUZZ_HTTP_ECHO=1
 * prints the responses on stderr (to check what a seed reaches).
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "fuzz.h"
#include "live_http.h"

/* What prof.dump writes: a small dump whose mappings exist nowhere. */
static const char DUMP[] =
	"heap_v2/524288\n"
	"  t*: 3: 12288 [3: 12288]\n"
	"  t0: 3: 12288 [3: 12288] main\n"
	"@ 0x401010 0x401020 0x7f0000001000\n"
	"  t*: 2: 8192 [2: 8192]\n"
	"  t0: 2: 8192 [2: 8192]\n"
	"@ 0x401030 0x7f0000001000\n"
	"  t*: 1: 4096 [1: 4096]\n"
	"  t0: 1: 4096 [1: 4096]\n"
	"\n"
	"MAPPED_LIBRARIES:\n"
	"00400000-00401000 r--p 00000000 fe:00 12 /nonexistent/fuzz/prog\n"
	"00401000-00402000 r-xp 00001000 fe:00 12 /nonexistent/fuzz/prog\n"
	"7f0000000000-7f0000010000 r-xp 00000000 fe:00 13 /nonexistent/fuzz/libc.so.6\n";

static int
fake_bool(void *oldp, size_t *oldlenp, bool v)
{
	if (oldp == NULL || oldlenp == NULL || *oldlenp != sizeof(bool))
		return EINVAL;
	*(bool *)oldp = v;
	return 0;
}

/* A jemalloc with prof:true, as far as ying asks; writes DUMP on prof.dump. */
static int
fake_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen)
{
	if (strcmp(name, "version") == 0) {
		if (oldp == NULL || *oldlenp != sizeof(const char *))
			return EINVAL;
		*(const char **)oldp = "5.3.0-0-fuzz";
		return 0;
	}
	if (strcmp(name, "config.prof") == 0 || strcmp(name, "opt.prof") == 0 ||
	    strcmp(name, "opt.prof_accum") == 0 || strcmp(name, "prof.active") == 0 ||
	    strcmp(name, "prof.thread_active_init") == 0 ||
	    strcmp(name, "thread.prof.active") == 0)
		return oldp ? fake_bool(oldp, oldlenp, true) : 0;
	if (strcmp(name, "prof.lg_sample") == 0 || strcmp(name, "prof.interval") == 0 ||
	    strcmp(name, "epoch") == 0 || strncmp(name, "stats.", 6) == 0) {
		if (oldp && oldlenp)
			memset(oldp, 0, *oldlenp);
		if (oldp && oldlenp && strcmp(name, "prof.lg_sample") == 0 &&
		    *oldlenp == sizeof(size_t))
			*(size_t *)oldp = 19;
		return 0;
	}
	if (strcmp(name, "prof.reset") == 0 || strcmp(name, "thread.prof.name") == 0) {
		if (oldp && oldlenp && *oldlenp == sizeof(const char *))
			*(const char **)oldp = "fuzz";
		return 0;
	}
	if (strcmp(name, "prof.dump") == 0) {
		const char *path;
		int fd;
		bool ok;

		if (newp == NULL || newlen != sizeof(const char *))
			return EINVAL;
		path = *(const char **)newp;
		if ((fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)) < 0)
			return errno;
		ok = write(fd, DUMP, sizeof(DUMP) - 1) == (ssize_t)(sizeof(DUMP) - 1);
		close(fd);
		return ok ? 0 : EIO;
	}
	return ENOENT;
}

static ying_http *h;
static struct MHD_Daemon *d;
/* The endpoint as ying_http_start sets it up, minus the listening socket
 * and the threads. */
static void
setup(void)
{
	ying_http_opts o = YING_HTTP_OPTS_INIT;

	if (ying_ctl_use(fake_mallctl) != 0)
		abort();
	if ((h = calloc(1, sizeof(*h))) == NULL)
		abort();
	h->o = o;
	h->o.max_connections = 4;
	h->o.timeout_sec = 5;
	h->o.max_seconds = 0;
	h->o.max_snapshots = 4;
	h->o.max_snapshot_bytes = 1 << 20;
	h->o.busy_wait_ms = 10;
	h->o.max_body = 64 << 10;
	pthread_mutex_init(&h->dump_mtx, NULL);
	pthread_mutex_init(&h->snap_mtx, NULL);
	pthread_mutex_init(&h->stop_mtx, NULL);
	pthread_cond_init(&h->stop_cv, NULL);
	pthread_mutex_init(&h->conn_mtx, NULL);
	if (yi_http_share_new(h) != 0)      /* shared dumps (live_http_share.c) */
		abort();
	snprintf(h->program, sizeof(h->program), "fuzz_http");
	if (ying_symbolizer_new(&h->sym) != 0)
		abort();
	d = MHD_start_daemon(MHD_USE_NO_LISTEN_SOCKET, 0, NULL, NULL, yi_http_handle, h,
	    MHD_OPTION_CONNECTION_LIMIT, 4u,
	    MHD_OPTION_CONNECTION_TIMEOUT, 5u,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)64 * 1024,
	    MHD_OPTION_NOTIFY_COMPLETED, yi_http_completed, h,
	    MHD_OPTION_END);
	if (d == NULL)
		abort();
}

static unsigned
connections(void)
{
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(d,
	    MHD_DAEMON_INFO_CURRENT_CONNECTIONS);

	return di ? di->num_connections : 0;
}

/* The next '\n'-separated field at *p (a trailing '\r' dropped), NUL-terminated
 * in place; *p moves past it (NULL after the last one). */
static const char *
next_line(char **p, size_t *len)
{
	char *s = *p, *nl;

	if (s == NULL)
		return "";
	nl = strchr(s, '\n');
	*len = nl ? (size_t)(nl - s) : strlen(s);
	*p = nl ? nl + 1 : NULL;
	if (*len && s[*len - 1] == '\r')
		(*len)--;
	s[*len] = '\0';
	return s;
}

/* Send req[0..n) on one connection and run the daemon until it is gone. */
static void
exchange(const char *req, size_t n)
{
	struct sockaddr_in sin;
	int sv[2];
	size_t sent = 0;
	char buf[16384];
	bool eof = false, shut = false;
	long idle = 0;
	bool echo = getenv("YING_FUZZ_HTTP_ECHO") != NULL;    /* to check seeds */

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0)
		abort();
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(40000);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (MHD_add_connection(d, sv[0], (struct sockaddr *)&sin, sizeof(sin)) != MHD_YES)
		abort();
	for (long i = 0; connections() > 0; i++) {
		bool progress = false;
		ssize_t k;

		if (sent < n) {
			k = write(sv[1], req + sent, n - sent);
			if (k > 0) {
				sent += (size_t)k;
				progress = true;
			}
		}
		if (MHD_run(d) != MHD_YES)
			abort();
		while (!eof) {
			k = read(sv[1], buf, sizeof(buf));
			if (k == 0)
				eof = true;
			if (k <= 0)
				break;
			if (echo)
				fwrite(buf, 1, (size_t)k, stderr);
			progress = true;
		}
		idle = progress ? 0 : idle + 1;
		/* a request the daemon still waits on (it never completes):
		 * end it as a client would, by closing */
		if (idle > 1000 && !shut) {
			shutdown(sv[1], SHUT_RDWR);
			shut = true;
			idle = 0;
		}
		if (i > 10000000)
			abort();    /* the connection never ends: a hang */
	}
	close(sv[1]);
}

/* One request from in[0..n) (see the top of the file for the layout). */
static void
one_request(const uint8_t *in, size_t n)
{
	char *s = fuzz_str(in, n), *p = s, *req;
	const char *method, *target, *line;
	size_t len, cap = 2 * n + 256, rn, blen;
	int k;

	method = next_line(&p, &len);
	target = next_line(&p, &len);
	if ((req = malloc(cap)) == NULL)
		abort();
	k = snprintf(req, cap, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n",
	    method[0] ? method : "GET", target[0] ? target : "/");
	rn = (size_t)k;
	while (p && (line = next_line(&p, &len), len > 0)) {
		memcpy(req + rn, line, len);
		memcpy(req + rn + len, "\r\n", 2);
		rn += len + 2;
	}
	/* the body: the rest of the input, bytes after a NUL included */
	blen = p ? n - (size_t)(p - s) : 0;
	k = snprintf(req + rn, cap - rn, "Content-Length: %zu\r\n\r\n", blen);
	rn += (size_t)k;
	if (blen)
		memcpy(req + rn, in + (p - s), blen);
	rn += blen;
	exchange(req, rn);
	yi_error_clear();
	free(req);
	free(s);
}

/* Requests are separated by a line "~~" (at most 4 per input), so that a
 * snapshot can be taken and then diffed against. */
FUZZ_TARGET(http)
{
	static const char sep[] = "\n~~\n";
	const uint8_t *in, *end;
	int nreq = 0;

	if (d == NULL)
		setup();
	if (size == 0)
		return 0;
	if (data[0] & 1) {
		h->token = yi_strdup("fuzz-token");
		h->token_len = strlen(h->token);
	}
	in = data + 1;
	end = data + size;
	while (in < end && nreq++ < 4) {
		const uint8_t *cut = memmem(in, (size_t)(end - in), sep, sizeof(sep) - 1);
		size_t n = cut ? (size_t)(cut - in) : (size_t)(end - in);

		one_request(in, n);
		in = cut ? cut + sizeof(sep) - 1 : end;
	}
	/* forget what this input changed */
	for (size_t i = 0; i < h->snaps.n; i++)
		yi_free(h->snaps.v[i].data);
	h->snaps.n = 0;
	h->snap_bytes = 0;
	/* no answer shared into the next input, no rate limit carried over */
	yi_http_share_free(h);
	if (yi_http_share_new(h) != 0)
		abort();
	if (h->token) {
		yi_free(h->token);
		h->token = NULL;
		h->token_len = 0;
	}
	yi_error_clear();
	return 0;
}
