/*
 * live_http_addr.c: the HTTP endpoint's address and options, with plain
 * sockets only (no libmicrohttpd here, so a program that only checks an
 * address does not load it): "HOST:PORT" parsing and resolution, the
 * listening socket ying_http_start hands to libmicrohttpd, the option
 * checks and their version-1 form, ying_http_check (can ying_http_start
 * listen there?  a "unix:/PATH" socket is made and removed again), the
 * rule for a non-loopback bind (a token, or insecure) and the Host names a
 * request may carry (DNS rebinding).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include "live.h"

/* "HOST:PORT", "[V6]:PORT", ":PORT" or "PORT" (loopback). */
int
yi_http_listen(const char *bind_addr, int *fd_out, int *family, int *port)
{
	char host[256], portstr[16];
	const char *colon, *h0 = bind_addr;
	struct addrinfo hints, *res = NULL, *ai;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int fd = -1, one = 1, e, err = 0;
	size_t hl;

	if (bind_addr[0] == '[') {
		const char *rb = strchr(bind_addr, ']');
		if (rb == NULL || rb[1] != ':')
			return yi_error(YING_EINVAL, "bad bind address '%s' (expected "
			    "[IPV6]:PORT)", bind_addr);
		h0 = bind_addr + 1;
		hl = (size_t)(rb - h0);
		colon = rb + 1;
	} else if ((colon = strrchr(bind_addr, ':')) != NULL) {
		hl = (size_t)(colon - bind_addr);
	} else {
		colon = bind_addr - 1;   /* "PORT" */
		hl = 0;
	}
	if (hl >= sizeof(host))
		return yi_error(YING_EINVAL, "bind address '%s' too long", bind_addr);
	memcpy(host, h0, hl);
	host[hl] = '\0';
	if (hl == 0)
		strcpy(host, "127.0.0.1");
	{
		int64_t pv;
		if (yi_num_int64(colon + 1, 0, 65535, &pv, NULL, 0) != 0)
			return yi_error(YING_EINVAL, "bad port in bind address '%s' "
			    "(0..65535; 0 picks a free one)", bind_addr);
		snprintf(portstr, sizeof(portstr), "%d", (int)pv);
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	if ((e = getaddrinfo(host, portstr, &hints, &res)) != 0)
		return yi_error(YING_EINVAL, "cannot resolve bind address '%s': %s",
		    bind_addr, gai_strerror(e));
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			err = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ai->ai_family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 64) == 0) {
			*family = ai->ai_family;
			break;
		}
		err = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return yi_error(YING_ESYS, "cannot listen on %s: %s", bind_addr,
		    strerror(err));
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
		err = errno;
		close(fd);
		return yi_error(YING_ESYS, "getsockname failed: %s", strerror(err));
	}
	*port = ntohs(ss.ss_family == AF_INET6 ?
	    ((struct sockaddr_in6 *)&ss)->sin6_port :
	    ((struct sockaddr_in *)&ss)->sin_port);
	*fd_out = fd;
	return 0;
}

int
yi_http_check_opts(const ying_http_opts *opts)
{
	if (opts->version != YING_HTTP_OPTS_VERSION)
		return yi_error(YING_EINVAL, "ying_http_opts.version is %d, expected %d "
		    "(use YING_HTTP_OPTS_INIT)", opts->version, YING_HTTP_OPTS_VERSION);
	if (opts->token && (opts->token[0] == '\0' || strlen(opts->token) > 4096))
		return yi_error(YING_EINVAL, "token must be 1..4096 characters");
	if (opts->token) {
		for (const char *t = opts->token; *t; t++)
			if (*t <= ' ' || *t == 0x7f)
				return yi_error(YING_EINVAL, "token must not contain spaces "
				    "or control characters");
	}
	for (const char *a = opts->allow_hosts; a && *a; a++)
		if (!((*a >= 'a' && *a <= 'z') || (*a >= 'A' && *a <= 'Z') ||
		    (*a >= '0' && *a <= '9') || strchr(".-_:[], ", *a)))
			return yi_error(YING_EINVAL, "allowed hosts '%.200s': a name may hold "
			    "only letters, digits, '.', '-', '_', ':' and brackets, names "
			    "separated by commas", opts->allow_hosts);
	if (opts->allow_hosts && strlen(opts->allow_hosts) > 4096)
		return yi_error(YING_EINVAL, "allowed hosts: at most 4096 characters");
	return yi_live_frames_check(opts->frames, "ying_http_opts.frames");
}

int
yi_http_opts_open(const ying_http_opts *opts)
{
	return opts->open != 0;
}

void
yi_http_opts_copy(ying_http_opts *dst, const ying_http_opts *src)
{
	*dst = *src;
}

int
ying_http_check(const ying_http_opts *opts)
{
	ying_http_opts def = YING_HTTP_OPTS_INIT;
	int rc, fd = -1, family, port;

	if (opts == NULL)
		opts = &def;
	if ((rc = yi_http_check_opts(opts)) != 0)
		return rc;
	if (yi_http_is_unix(opts->bind)) {
		yi_http_unix u;
		if ((rc = yi_http_unix_listen(opts->bind, &fd, &u)) != 0)
			return rc;
		close(fd);
		yi_http_unix_remove(&u);
		return 0;
	}
	if ((rc = yi_http_listen(opts->bind && opts->bind[0] ? opts->bind : YI_HTTP_DEFAULT_BIND,
	    &fd, &family, &port)) != 0)
		return rc;
	rc = yi_http_bind_policy(fd, opts, opts->bind && opts->bind[0] ? opts->bind :
	    YI_HTTP_DEFAULT_BIND);
	close(fd);
	return rc;
}

/* ---- Host names and the bind policy ----------------------------------------- */

/* A literal IPv4 or IPv6 address (no brackets) as its canonical text, a
 * v4-mapped IPv6 address as IPv4; *loopback when 127.0.0.0/8 or ::1.
 * false when s is not a literal address. */
static bool
literal_norm(const char *s, char *out, size_t n, bool *loopback)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (inet_pton(AF_INET, s, &a4) == 1) {
	} else if (inet_pton(AF_INET6, s, &a6) == 1) {
		if (!IN6_IS_ADDR_V4MAPPED(&a6)) {
			if (loopback)
				*loopback = IN6_IS_ADDR_LOOPBACK(&a6);
			return inet_ntop(AF_INET6, &a6, out, (socklen_t)n) != NULL;
		}
		memcpy(&a4, &a6.s6_addr[12], 4);
	} else {
		return false;
	}
	if (loopback)
		*loopback = (ntohl(a4.s_addr) >> 24) == 127;
	return inet_ntop(AF_INET, &a4, out, (socklen_t)n) != NULL;
}

bool
yi_http_host_part(const char *hdr, char *out, size_t n)
{
	const char *end, *p;
	size_t len;

	if (hdr[0] == '[') {
		if ((end = strchr(hdr, ']')) == NULL)
			return false;
		hdr++;
		p = end + 1;
	} else {
		end = strchr(hdr, ':');
		if (end == NULL)
			end = hdr + strlen(hdr);
		p = end;
	}
	if (*p == ':') {        /* a port: digits only */
		if (p[1] == '\0')
			return false;
		for (p++; *p; p++)
			if (*p < '0' || *p > '9')
				return false;
	} else if (*p != '\0') {
		return false;
	}
	len = (size_t)(end - hdr);
	if (len == 0 || len >= n)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = hdr[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
		    c == '-' || c == '_' || c == ':'))
			return false;
		out[i] = c;
	}
	out[len] = '\0';
	return true;
}

bool
yi_http_host_allowed(const char *host, const char *local, const char *allow)
{
	char norm[INET6_ADDRSTRLEN + 1];
	bool lb = false;
	size_t hl = strlen(host);

	if (strcmp(host, "localhost") == 0 || strcmp(host, "localhost.") == 0)
		return true;
	if (literal_norm(host, norm, sizeof(norm), &lb)) {
		char ln[INET6_ADDRSTRLEN + 1];
		if (lb)
			return true;
		if (local && local[0] && literal_norm(local, ln, sizeof(ln), NULL) &&
		    strcmp(ln, norm) == 0)
			return true;
	}
	for (const char *a = allow; a && *a; ) {
		const char *e = strchr(a, ',');
		size_t al = e ? (size_t)(e - a) : strlen(a);
		while (al > 0 && (*a == ' ' || *a == '\t')) {
			a++;
			al--;
		}
		while (al > 0 && (a[al - 1] == ' ' || a[al - 1] == '\t'))
			al--;
		if (al == hl && strncasecmp(a, host, hl) == 0)
			return true;
		if (al == hl + 2 && a[0] == '[' && a[al - 1] == ']' &&
		    strncasecmp(a + 1, host, hl) == 0)
			return true;
		a = e ? e + 1 : a + al;
	}
	return false;
}

bool
yi_http_fd_local(int fd, char *addr, size_t n, bool *loopback)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char raw[INET6_ADDRSTRLEN + 1];
	const void *src;

	if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0)
		return false;
	if (ss.ss_family == AF_INET)
		src = &((struct sockaddr_in *)&ss)->sin_addr;
	else if (ss.ss_family == AF_INET6)
		src = &((struct sockaddr_in6 *)&ss)->sin6_addr;
	else
		return false;
	if (inet_ntop(ss.ss_family, src, raw, sizeof(raw)) == NULL)
		return false;
	return literal_norm(raw, addr, n, loopback);
}

int
yi_http_bind_policy(int fd, const ying_http_opts *opts, const char *bind_addr)
{
	char a[INET6_ADDRSTRLEN + 1];
	bool lb = false;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	/* a Unix-domain socket is reachable from this host only */
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 && ss.ss_family == AF_UNIX)
		return 0;
	if (!yi_http_fd_local(fd, a, sizeof(a), &lb))
		return yi_error(YING_ESYS, "cannot read the address bound for '%s': %s",
		    bind_addr, strerror(errno));
	if (lb || opts->token || opts->insecure)
		return 0;
	return yi_error(YING_EINVAL, "refusing to serve on %s without a token: %s is not "
	    "a loopback address, and anyone who can reach it could read the heap and "
	    "change the profiler; set a token, or allow it explicitly (insecure: "
	    "YING_HTTP_INSECURE=1, ying run --http-insecure)", bind_addr, a);
}
