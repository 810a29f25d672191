/*
 * live_curl.c: libcurl for the live runtime, in one place: loaded with
 * dlopen on first use (so libying-live, the agent and `ying` never link it,
 * and a process that fetches and uploads nothing never loads libcurl and
 * its TLS stack), and every request set up by one function (yi_curl_set):
 * the URL fetcher and jeprof's symbol POSTs (live_fetch.c) and the
 * Pyroscope uploader (live_pyro_http.c) share the rules.  Every request has
 * a timeout (connecting included), follows no redirect, speaks only http
 * and https, sends ying's User-Agent, and reads a bounded answer; its
 * sockets are opened close-on-exec at a high number and registered with
 * yi_fd_own (a forked child closes them; a host that closes every
 * descriptor does not reach them), and closed only while still ours.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "live.h"

#ifdef YING_HAVE_CURL

static yi_curl_api lc;
static pthread_once_t lc_once = PTHREAD_ONCE_INIT;

static void
lc_load(void)
{
	void *h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
	const char *e;

	if (h == NULL) {
		e = dlerror();
		snprintf(lc.load_error, sizeof(lc.load_error), "%s", e ? e : "dlopen failed");
		return;
	}
#define LC_SYM(field, name) \
	if ((*(void **)&lc.field = dlsym(h, name)) == NULL) { \
		snprintf(lc.load_error, sizeof(lc.load_error), "libcurl.so.4 lacks %s", name); \
		return; \
	}
	LC_SYM(global_init, "curl_global_init")
	LC_SYM(easy_init, "curl_easy_init")
	LC_SYM(easy_setopt, "curl_easy_setopt")
	LC_SYM(easy_perform, "curl_easy_perform")
	LC_SYM(easy_getinfo, "curl_easy_getinfo")
	LC_SYM(easy_cleanup, "curl_easy_cleanup")
	LC_SYM(slist_append, "curl_slist_append")
	LC_SYM(slist_free_all, "curl_slist_free_all")
#undef LC_SYM
	if (lc.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(lc.load_error, sizeof(lc.load_error), "curl_global_init failed");
		return;
	}
	lc.ok = 1;
}

const yi_curl_api *
yi_curl_loaded(void)
{
	pthread_once(&lc_once, lc_load);
	return &lc;
}

const yi_curl_api *
yi_curl(void)
{
	pthread_once(&lc_once, lc_load);
	if (!lc.ok) {
		yi_error(YING_ENOTSUP, "libcurl unavailable (%s; apt-get install libcurl4)",
		    lc.load_error);
		return NULL;
	}
	return &lc;
}

curl_socket_t
yi_curl_open_socket(void *cls, curlsocktype purpose, struct curl_sockaddr *a)
{
	int fd;

	YI_UNUSED(cls);
	YI_UNUSED(purpose);
	fd = socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
	if (fd < 0)
		return CURL_SOCKET_BAD;
	fd = yi_fd_high(fd);
	yi_fd_own(fd);
	return fd;
}

int
yi_curl_close_socket(void *cls, curl_socket_t fd)
{
	YI_UNUSED(cls);
	return yi_fd_disown_same(fd) ? close(fd) : 0;
}

void
yi_curl_set(CURL *h, const yi_curl_setup *s)
{
	const yi_curl_api *c = &lc;
	long ms = (long)(s->timeout * 1000);

	c->easy_setopt(h, CURLOPT_URL, s->url);
	c->easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	c->easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION,
	    s->open_socket ? s->open_socket : yi_curl_open_socket);
	c->easy_setopt(h, CURLOPT_OPENSOCKETDATA, s->socket_data);
	c->easy_setopt(h, CURLOPT_CLOSESOCKETFUNCTION, yi_curl_close_socket);
	c->easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
#ifdef CURLOPT_PROTOCOLS_STR
	c->easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
	c->easy_setopt(h, CURLOPT_TIMEOUT_MS, ms);
	c->easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ms);
	c->easy_setopt(h, CURLOPT_ERRORBUFFER, s->errbuf);
	c->easy_setopt(h, CURLOPT_USERAGENT, "ying/" PACKAGE_VERSION);
	c->easy_setopt(h, CURLOPT_WRITEFUNCTION, s->write);
	c->easy_setopt(h, CURLOPT_WRITEDATA, s->write_data);
	c->easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)s->max_bytes);
	if (s->headers)
		c->easy_setopt(h, CURLOPT_HTTPHEADER, s->headers);
	if (s->post) {
		c->easy_setopt(h, CURLOPT_POST, 1L);
		c->easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)s->post_len);
		c->easy_setopt(h, CURLOPT_POSTFIELDS, s->post);
	}
}

#endif /* YING_HAVE_CURL */
