/*
 * test_fetch.c: ying_profile_read_url.  Bad URLs and options are refused
 * before any network use; a closed port on 127.0.0.1 gives a refusal
 * naming host:port; a one-shot HTTP peer on a loopback socket (a thread of
 * this test) shows the request ying sends (default path for a bare URL,
 * the bearer header) and how answers are read: a heap_v2 body, a 401, a
 * body that is no profile, a body over max_bytes.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "internal.h"
#include "tap.h"

static const char heap[] =
    "heap_v2/1\n  t*: 1: 4096 [0: 0]\n@ 0x1000 0x2001\n  t*: 1: 4096 [0: 0]\n";

typedef struct peer {
	int lfd, port;
	const char *answer;     /* full HTTP response */
	char request[4096];     /* what the client sent (headers) */
} peer;

static int
listen_loopback(int *port)
{
	struct sockaddr_in a;
	socklen_t n = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 1) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &n) != 0)
		return -1;
	*port = ntohs(a.sin_port);
	return fd;
}

static void *
serve_one(void *arg)
{
	peer *pe = arg;
	size_t got = 0;
	ssize_t r;
	int c = accept(pe->lfd, NULL, NULL);

	if (c < 0)
		return NULL;
	while (got < sizeof(pe->request) - 1 && !strstr(pe->request, "\r\n\r\n")) {
		if ((r = read(c, pe->request + got, sizeof(pe->request) - 1 - got)) <= 0)
			break;
		got += (size_t)r;
		pe->request[got] = '\0';
	}
	if (write(c, pe->answer, strlen(pe->answer)) < 0)
		perror("write");
	close(c);
	return NULL;
}

/* Fetch url (with %d for the peer's port) from a peer answering `answer`. */
static int
fetch_from(const char *answer, const char *url_fmt, const ying_fetch_opts *o,
    ying_profile **p, peer *pe)
{
	pthread_t t;
	char url[256];
	int rc;

	memset(pe, 0, sizeof(*pe));
	pe->answer = answer;
	if ((pe->lfd = listen_loopback(&pe->port)) < 0)
		return -1000;
	snprintf(url, sizeof(url), url_fmt, pe->port);
	pthread_create(&t, NULL, serve_one, pe);
	rc = ying_profile_read_url(p, url, o);
	pthread_join(t, NULL);
	close(pe->lfd);
	return rc;
}

static int
has(const char *s, const char *part)
{
	return s != NULL && strstr(s, part) != NULL;
}

int
main(void)
{
	ying_fetch_opts o = YING_FETCH_OPTS_INIT;
	ying_profile *p = (ying_profile *)1;
	char answer[1024], buf[128];
	peer pe;
	double total;
	int rc, port, fd;

	/* refused before any network use */
	is_int(ying_profile_read_url(NULL, "http://127.0.0.1:1/", NULL), YING_EINVAL, "NULL out");
	is_int(ying_profile_read_url(&p, NULL, NULL), YING_EINVAL, "NULL url");
	ok(p == NULL, "out cleared on failure");
	is_int(ying_profile_read_url(&p, "ftp://host/x", NULL), YING_EINVAL, "ftp:// refused");
	ok(has(ying_last_error(), "not an http:// or https:// URL"), "ftp://: says http(s) only");
	is_int(ying_profile_read_url(&p, "http://", NULL), YING_EINVAL, "no host");
	is_int(ying_profile_read_url(&p, "http://:80/", NULL), YING_EINVAL, "empty host");
	ok(has(ying_last_error(), "no host"), "empty host: says so");
	is_int(ying_profile_read_url(&p, "http://h:123456/", NULL), YING_EINVAL, "6-digit port");
	is_int(ying_profile_read_url(&p, "http://h:80x/", NULL), YING_EINVAL, "bad port");
	is_int(ying_profile_read_url(&p, "http://h/a b", NULL), YING_EINVAL, "space in URL");
	o.token = "two words";
	is_int(ying_profile_read_url(&p, "http://h/", &o), YING_EINVAL, "token with a space");
	o.token = "";
	is_int(ying_profile_read_url(&p, "http://h/", &o), YING_EINVAL, "empty token");
	o = (ying_fetch_opts)YING_FETCH_OPTS_INIT;
	o.version = 99;
	is_int(ying_profile_read_url(&p, "http://h/", &o), YING_EINVAL, "bad opts version");
	o = (ying_fetch_opts)YING_FETCH_OPTS_INIT;
	{
		/* /pprof/symbol POSTs check their options the same way: a token
		 * that would break the Authorization header is refused before
		 * any connection (the closed port would say YING_EIO) */
		ying_profile *q = NULL;
		uint32_t loc;
		yi_counts raw = { 1, 16, 0, 0 };
		ok(yi_profile_new(&q, "remote") == 0 && (q->period = 1) &&
		    yi_profile_loc(q, 0x401234, true, &loc) == 0 &&
		    yi_profile_add_stack(q, &loc, 1, &raw, NULL) == 0, "a profile to name remotely");
		o.token = "tok\r\nX-Injected: 1";
		is_int(ying_profile_symbolize_remote(NULL, q, "http://127.0.0.1:1/", &o), YING_EINVAL,
		    "symbolize_remote: a token with CR LF is refused");
		ok(has(ying_last_error(), "control characters"), "... saying why");
		o = (ying_fetch_opts)YING_FETCH_OPTS_INIT;
		o.version = 99;
		is_int(ying_profile_symbolize_remote(NULL, q, "http://127.0.0.1:1/", &o), YING_EINVAL,
		    "symbolize_remote: bad opts version");
		o = (ying_fetch_opts)YING_FETCH_OPTS_INIT;
		ying_profile_free(q);
	}

	/* a closed port: refused, naming host:port */
	fd = listen_loopback(&port);
	close(fd);
	snprintf(buf, sizeof(buf), "http://127.0.0.1:%d", port);
	rc = ying_profile_read_url(&p, buf, NULL);
	is_int(rc, YING_EIO, "closed port -> YING_EIO");
	snprintf(buf, sizeof(buf), "cannot connect to 127.0.0.1:%d: Connection refused", port);
	ok(has(ying_last_error(), buf), "closed port: names host:port and the refusal");

	/* a bare URL asks for /debug/pprof/heap, with the bearer token */
	snprintf(answer, sizeof(answer), "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n"
	    "Connection: close\r\n\r\n%s", strlen(heap), heap);
	o.token = "tok-123";
	rc = fetch_from(answer, "http://127.0.0.1:%d", &o, &p, &pe);
	is_int(rc, 0, "heap_v2 body read");
	ok(strncmp(pe.request, "GET /debug/pprof/heap HTTP/1.1\r\n", 32) == 0,
	    "bare URL -> GET /debug/pprof/heap");
	ok(has(pe.request, "\r\nAuthorization: Bearer tok-123\r\n"), "bearer token sent");
	if (p) {
		ok(ying_profile_total(&total, p, YING_INUSE_SPACE) == 0 && total == 4096,
		    "the body is the profile (4096 bytes)");
		ok(ying_profile_time(p) > 0, "fetched profile has a time");
		ying_profile_free(p);
	}
	o.token = NULL;
	rc = fetch_from(answer, "http://127.0.0.1:%d/?x=1", NULL, &p, &pe);
	ok(strncmp(pe.request, "GET /debug/pprof/heap?x=1 ", 26) == 0, "'/?query' keeps the query");
	ying_profile_free(p);
	rc = fetch_from(answer, "http://127.0.0.1:%d/debug/heap", NULL, &p, &pe);
	ok(strncmp(pe.request, "GET /debug/heap ", 16) == 0, "a path is kept");
	ok(!has(pe.request, "Authorization"), "no token, no header");
	ying_profile_free(p);

	/* HTTP errors and bodies that are no profile */
	rc = fetch_from("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
	    "http://127.0.0.1:%d/", NULL, &p, &pe);
	is_int(rc, YING_EIO, "401 -> YING_EIO");
	ok(has(ying_last_error(), "HTTP 401: the endpoint wants a token: --token-file FILE"),
	    "401 without a token asks for one");
	o.token = "secret-xyz";
	rc = fetch_from("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
	    "http://127.0.0.1:%d/", &o, &p, &pe);
	ok(has(ying_last_error(), "rejected the token") && !has(ying_last_error(), "secret-xyz"),
	    "401 with a token: rejected, token not echoed");
	o.token = NULL;
	rc = fetch_from("HTTP/1.1 409 Conflict\r\nContent-Length: 22\r\nConnection: close\r\n\r\n"
	    "start with prof:true\r\n", "http://127.0.0.1:%d/", NULL, &p, &pe);
	ok(rc == YING_EIO && has(ying_last_error(), "HTTP 409: start with prof:true"),
	    "other status: the body's first line is shown");
	rc = fetch_from("HTTP/1.1 200 OK\r\nContent-Length: 12\r\nConnection: close\r\n\r\n"
	    "hello world\n", "http://127.0.0.1:%d/x", NULL, &p, &pe);
	is_int(rc, YING_EPARSE, "text body -> YING_EPARSE");
	ok(has(ying_last_error(), "/x: not a heap profile (expected heap_v2 or pprof)"),
	    "text body: not a heap profile, naming the URL");
	o.max_bytes = 16;
	rc = fetch_from(answer, "http://127.0.0.1:%d/", &o, &p, &pe);
	is_int(rc, YING_ELIMIT, "body over max_bytes -> YING_ELIMIT");
	o.max_bytes = 0;
	rc = fetch_from("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
	    "http://u:pw@127.0.0.1:%d/nope", NULL, &p, &pe);
	is_int(rc, YING_ENOTFOUND, "404 -> YING_ENOTFOUND");
	ok(has(ying_last_error(), "http://***@127.0.0.1:") && !has(ying_last_error(), "pw"),
	    "user:password hidden in messages");
	return tap_done();
}
