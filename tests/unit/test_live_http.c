/*
 * test_live_http.c: the embedded HTTP endpoint (live_http*.c) in this process,
 * which has no jemalloc: options are checked, the server listens on a free
 * port of 127.0.0.1 (port 0), and real HTTP requests over a socket get the
 * documented answers: 404 for an unknown path, 405 with Allow, 409 naming
 * the fix on a profiling endpoint, 401 with WWW-Authenticate without the
 * token, the endpoint list at "/".  Stopping closes the port; stop(NULL)
 * changes nothing observable.  The Host rules (DNS rebinding) as pure
 * functions, and the refusal of a non-loopback bind without a token.  The
 * numeric parameters (live_http_param.c): the strict parser's edges, the
 * table's consistency, and 400s naming the range over real requests (they
 * come before the 409 of a process without jemalloc).  The endpoints under
 * a real jemalloc process are tested in tests/integration/http_*.sh.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "internal.h"
#include "live_http.h"
#include "tap.h"

/* Connect to 127.0.0.1:port; -1 (errno set) when refused. */
static int
connect_port(int port)
{
	struct sockaddr_in a;
	struct timeval tv = { 10, 0 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* Send one HTTP/1.0 request (extra: more header lines, each ending in \r\n);
 * returns the whole response (malloc'd) and its status in *status. */
static char *
request(int port, const char *method, const char *path, const char *extra, int *status)
{
	char req[1024], *buf;
	size_t len = 0, cap = 1 << 16;
	ssize_t n;
	int fd = connect_port(port);

	*status = -1;
	if (fd < 0)
		return NULL;
	snprintf(req, sizeof(req), "%s %s HTTP/1.0\r\nHost: 127.0.0.1\r\n%s\r\n", method, path,
	    extra ? extra : "");
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		close(fd);
		return NULL;
	}
	buf = malloc(cap + 1);
	while (len < cap && (n = read(fd, buf + len, cap - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	if (sscanf(buf, "HTTP/1.%*d %d", status) != 1)
		*status = -1;
	return buf;
}

/* The Host header rules (DNS rebinding), as pure functions. */
static void
host_rules(void)
{
	static const struct { const char *hdr, *host; } parts[] = {
		{ "127.0.0.1:6060", "127.0.0.1" }, { "LocalHost", "localhost" },
		{ "[::1]:80", "::1" }, { "[FD00::7]", "fd00::7" },
		{ "prof.internal:1", "prof.internal" },
	};
	static const char *bad_parts[] = {
		"", ":80", "a:", "a:8x", "[::1", "[::1]x", "a b", "a/b", "a:1:2", "a\x01",
	};
	static const struct { const char *host, *local, *allow; bool ok; } rules[] = {
		{ "localhost", NULL, NULL, true },
		{ "localhost.", NULL, NULL, true },
		{ "127.0.0.1", NULL, NULL, true },
		{ "127.9.8.7", NULL, NULL, true },
		{ "::1", NULL, NULL, true },
		{ "::ffff:127.0.0.1", NULL, NULL, true },
		{ "10.1.2.3", "10.1.2.3", NULL, true },       /* the bound address */
		{ "::ffff:10.1.2.3", "10.1.2.3", NULL, true },
		{ "10.1.2.3", "10.1.2.4", NULL, false },
		{ "10.1.2.3", "", NULL, false },
		{ "evil.example", "127.0.0.1", NULL, false },
		{ "localhost.evil.example", NULL, NULL, false },
		{ "127.0.0.1.evil.example", NULL, NULL, false },
		{ "128.0.0.1", NULL, NULL, false },
		{ "0.0.0.0", NULL, NULL, false },
		{ "::", NULL, NULL, false },
		{ "prof.internal", NULL, "a.b, Prof.Internal ,c", true },
		{ "prof.internal", NULL, "prof.internal", true },
		{ "notprof.internal", NULL, "prof.internal", false },
		{ "prof.internal", NULL, "prof.interna", false },
		{ "prof.internal", NULL, "", false },
		{ "fd00::7", NULL, "[fd00::7]", true },
		{ "fd00::7", NULL, "fd00::7", true },
	};
	char out[64], what[200];

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		bool got = yi_http_host_part(parts[i].hdr, out, sizeof(out));
		snprintf(what, sizeof(what), "Host '%s' names '%s'", parts[i].hdr,
		    parts[i].host);
		ok(got && strcmp(out, parts[i].host) == 0, what);
	}
	for (size_t i = 0; i < sizeof(bad_parts) / sizeof(bad_parts[0]); i++) {
		snprintf(what, sizeof(what), "Host '%s' is malformed", bad_parts[i]);
		ok(!yi_http_host_part(bad_parts[i], out, sizeof(out)), what);
	}
	ok(!yi_http_host_part("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	    out, sizeof(out)), "a Host longer than the buffer is refused");
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		snprintf(what, sizeof(what), "Host %s (local %s, allowed '%s'): %s",
		    rules[i].host, rules[i].local ? rules[i].local : "-",
		    rules[i].allow ? rules[i].allow : "", rules[i].ok ? "served" : "403");
		ok(yi_http_host_allowed(rules[i].host, rules[i].local, rules[i].allow) ==
		    rules[i].ok, what);
	}
}

/* A non-loopback bind needs a token or insecure. */
static void
bind_rules(void)
{
	ying_http_opts o = YING_HTTP_OPTS_INIT;
	ying_http *h = (ying_http *)1;

	o.bind = "0.0.0.0:0";
	is_int(ying_http_start(&h, &o), YING_EINVAL, "0.0.0.0 without a token is refused");
	ok(h == NULL, "... no server");
	has_str(ying_last_error(), "refusing to serve on 0.0.0.0:0 without a token",
	    "... saying so");
	is_int(ying_http_check(&o), YING_EINVAL, "ying_http_check refuses it too");
	o.allow_hosts = "a b";
	is_int(ying_http_check(&o), YING_EINVAL, "allowed hosts with a space inside a name are refused");
	o.allow_hosts = "a/b";
	is_int(ying_http_check(&o), YING_EINVAL, "allowed hosts with a slash are refused");
	o.allow_hosts = NULL;
	o.token = "t0k";
	is_int(ying_http_check(&o), 0, "0.0.0.0 with a token is accepted");
	o.token = NULL;
	o.insecure = 1;
	is_int(ying_http_check(&o), 0, "0.0.0.0 with insecure is accepted");
	is_int(ying_http_start(&h, &o), 0, "... and served");
	ying_http_stop(h);
	o.insecure = 0;
	o.bind = "[::1]:0";
	is_int(ying_http_check(&o), 0, "[::1] without a token is accepted (loopback)");
	o.bind = "127.0.0.2:0";
	is_int(ying_http_check(&o), 0, "127.0.0.2 without a token is accepted (loopback)");
}


/* The one parser and the table of ranges. */
static void
param_rules(int port)
{
	int64_t v = 12345;
	char *r;
	int st, i, j;

	ok(yi_http_num_parse("0", 0, 1, &v) && v == 0, "parse: 0 in 0..1");
	ok(yi_http_num_parse("1", 0, 1, &v) && v == 1, "parse: 1 in 0..1 (upper edge)");
	ok(yi_http_num_parse("007", 0, 10, &v) && v == 7, "parse: leading zeros are decimal");
	ok(yi_http_num_parse("9223372036854775807", 0, INT64_MAX, &v) && v == INT64_MAX,
	    "parse: INT64_MAX");
	ok(yi_http_num_parse("-9223372036854775808", INT64_MIN, 0, &v) && v == INT64_MIN,
	    "parse: INT64_MIN when the range is negative");
	ok(yi_http_num_parse("-5", -10, 10, &v) && v == -5, "parse: -5 in -10..10");
	v = 42;
	ok(!yi_http_num_parse("2", 0, 1, &v) && v == 42, "parse: 2 is out of 0..1, *out untouched");
	ok(!yi_http_num_parse("-1", 0, 10, &v), "parse: no sign when the range has none");
	ok(!yi_http_num_parse("-0", 0, 10, &v), "parse: not even -0");
	ok(!yi_http_num_parse("9223372036854775808", 0, INT64_MAX, &v), "parse: INT64_MAX + 1");
	ok(!yi_http_num_parse("-9223372036854775809", INT64_MIN, 0, &v), "parse: INT64_MIN - 1");
	ok(!yi_http_num_parse("18446744073709551617", 0, INT64_MAX, &v), "parse: past 2^64");
	ok(!yi_http_num_parse("", 0, 10, &v) && !yi_http_num_parse(NULL, 0, 10, &v),
	    "parse: empty and NULL");
	ok(!yi_http_num_parse("-", -10, 10, &v), "parse: a lone '-'");
	ok(!yi_http_num_parse("+1", 0, 10, &v) && !yi_http_num_parse(" 1", 0, 10, &v) &&
	    !yi_http_num_parse("1 ", 0, 10, &v), "parse: '+', leading and trailing space");
	ok(!yi_http_num_parse("1.0", 0, 10, &v) && !yi_http_num_parse("1e1", 0, 100, &v) &&
	    !yi_http_num_parse("0x1", 0, 10, &v) && !yi_http_num_parse("1k", 0, 10000, &v),
	    "parse: fraction, exponent, hex, unit");

	for (i = 0; i < YI_PARAM_COUNT; i++) {
		const yi_http_param *p = yi_http_param_get((yi_http_param_id)i);
		bool good = p && p->name && p->endpoint && p->what && p->lo <= p->hi &&
		    (p->required || (p->def >= p->lo && p->def <= p->hi));
		for (j = 0; good && j < i; j++)
			good = strcmp(yi_http_param_get((yi_http_param_id)j)->name, p->name) != 0;
		ok(good, p && p->name ? p->name : "(a row)");
	}
	ok(yi_http_param_get(YI_PARAM_COUNT) == NULL, "no row past the table");
	is_int((int)yi_http_param_get(YI_PARAM_MAX)->hi, YING_RECENT_MAX_LIMIT,
	    "max's upper end is YING_RECENT_MAX_LIMIT");
	ok(yi_http_param_get(YI_PARAM_MAX)->lo == 0, "max has no -1 (unlimited)");
	ok(yi_http_param_get(YI_PARAM_LG)->lo == 10 && yi_http_param_get(YI_PARAM_LG)->hi == 30,
	    "lg is 10..30");

	r = request(port, "POST", "/debug/prof/sample?lg=9", NULL, &st);
	is_int(st, 400, "POST lg=9 (no jemalloc): 400 before 409");
	has_str(r, "bad parameter lg=9: expected an integer in 10..30", "... naming lg and 10..30");
	free(r);
	r = request(port, "POST", "/debug/heap/recent?max=-1", NULL, &st);
	is_int(st, 400, "POST max=-1: 400");
	has_str(r, "max=-1: expected an integer in 0..10000", "... naming max and 0..10000");
	free(r);
	r = request(port, "GET", "/debug/pprof/heap?seconds=1&seconds=2", NULL, &st);
	is_int(st, 400, "seconds given twice: 400");
	has_str(r, "parameter seconds given 2 times", "... saying so");
	free(r);
	r = request(port, "GET", "/debug/pprof/heap?seconds=301", NULL, &st);
	is_int(st, 400, "seconds=301: 400");
	has_str(r, "in 0..300", "... naming 0..300 (max_seconds)");
	free(r);
	r = request(port, "POST", "/debug/prof/active", NULL, &st);
	is_int(st, 400, "POST /debug/prof/active without on: 400");
	has_str(r, "missing parameter on=N: an integer in 0..1", "... naming on and 0..1");
	free(r);
	r = request(port, "GET", "/debug/", NULL, &st);
	has_str(r, "<td>max</td><td>POST /debug/heap/recent</td><td>0..10000, required</td>",
	    "the index page lists the table");
	free(r);
}

int
main(void)
{
	ying_http_opts o = YING_HTTP_OPTS_INIT;
	ying_http *h = (ying_http *)1, *h2 = NULL;
	char bind_s[64], *r;
	int port, st;

	/* option checks */
	is_int(ying_http_start(NULL, &o), YING_EINVAL, "NULL out");
	o.version = 99;
	is_int(ying_http_start(&h, &o), YING_EINVAL, "wrong options version");
	has_str(ying_last_error(), "version", "the error names the version");
	o.version = YING_HTTP_OPTS_VERSION;
	o.bind = "127.0.0.1:0";
	o.token = "has space";
	is_int(ying_http_start(&h, &o), YING_EINVAL, "token with a space");
	o.token = NULL;

	is_int(ying_http_start(&h, &o), 0, "start on 127.0.0.1:0");
	port = h ? ying_http_port(h) : -1;
	ok(port > 0 && port < 65536, "a free port was picked");

	/* a second server on the same port fails cleanly */
	snprintf(bind_s, sizeof(bind_s), "127.0.0.1:%d", port);
	o.bind = bind_s;
	ok(ying_http_start(&h2, &o) < 0 && h2 == NULL, "the port in use: an error, no server");
	has_str(ying_last_error(), bind_s, "the error names the address");
	o.bind = "127.0.0.1:0";

	r = request(port, "GET", "/debug/", NULL, &st);
	is_int(st, 200, "GET /debug/ is 200");
	has_str(r, "/debug/pprof/heap", "and lists the endpoints");
	free(r);
	r = request(port, "GET", "/", NULL, &st);
	is_int(st, 200, "GET / (the live page) is 200");
	has_str(r, "Content-Security-Policy: default-src 'none'", "with the page's CSP");
	has_str(r, "<script src=\"/ui/app.js\"", "and the page's HTML");
	free(r);
	r = request(port, "GET", "/ui/app.js", NULL, &st);
	is_int(st, 200, "GET /ui/app.js is 200");
	has_str(r, "text/javascript", "as JavaScript");
	free(r);
	r = request(port, "GET", "/no/such/thing", NULL, &st);
	is_int(st, 404, "unknown path is 404");
	has_str(r, "/no/such/thing", "naming the path");
	free(r);
	r = request(port, "POST", "/debug/heap", "Content-Length: 0\r\n", &st);
	is_int(st, 405, "POST /debug/heap is 405");
	has_str(r, "GET, HEAD", "with the allowed methods");
	free(r);
	r = request(port, "GET", "/debug/heap", NULL, &st);
	is_int(st, 409, "no jemalloc: /debug/heap is 409");
	has_str(r, "no jemalloc", "saying why");
	free(r);

	param_rules(port);
	/* stop(NULL) is a no-op: the running server still answers */
	yi_error(YING_EIO, "detail before stop");

	ying_http_stop(NULL);
	is_str(ying_last_error(), "detail before stop", "stop(NULL) leaves the error detail");
	r = request(port, "GET", "/no/such/thing", NULL, &st);
	is_int(st, 404, "stop(NULL) leaves the server running");
	free(r);

	ying_http_stop(h);
	errno = 0;
	ok(connect_port(port) < 0 && errno == ECONNREFUSED, "after stop the port is closed");

	/* a token */
	o.token = "s3cret";
	is_int(ying_http_start(&h, &o), 0, "start with a token");
	port = ying_http_port(h);
	r = request(port, "GET", "/debug/heap", NULL, &st);
	is_int(st, 401, "no token: 401");
	has_str(r, "WWW-Authenticate", "with WWW-Authenticate");
	free(r);
	r = request(port, "GET", "/debug/heap", "Authorization: Bearer wrong\r\n", &st);
	is_int(st, 401, "wrong token: 401");
	free(r);
	r = request(port, "GET", "/debug/heap", "Authorization: Bearer s3cret\r\n", &st);
	is_int(st, 409, "right token: past the check (409: no jemalloc)");
	free(r);
	ying_http_stop(h);

	host_rules();
	bind_rules();
	return tap_done();
}
