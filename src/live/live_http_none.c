/*
 * live_http_none.c: the HTTP endpoint's entry points when libying-live is
 * built without libmicrohttpd (configure without --enable-http): each says
 * so (YING_ENOTSUP) and does nothing.  Compiled instead of the live_http*.c
 * files, so that the control layer (live_ctl*.c) and the endpoint do not
 * depend on each other.
 */
#include "live.h"
#include "live_family.h"

int
ying_http_start(ying_http **out, const ying_http_opts *opts)
{
	yi_error_clear();
	YI_UNUSED(opts);
	if (out)
		*out = NULL;
	return yi_error(YING_ENOTSUP, "libying-live was built without the HTTP endpoint "
	    "(configure --enable-http; needs libmicrohttpd)");
}

int
ying_http_port(const ying_http *h)
{
	YI_UNUSED(h);
	return yi_error(YING_ENOTSUP, "libying-live was built without the HTTP endpoint");
}

void
ying_http_stop(ying_http *h)
{
	YI_UNUSED(h);
}

int
yi_http_listen_fd(const ying_http *h)
{
	YI_UNUSED(h);
	return -1;
}

int
ying_http_check(const ying_http_opts *opts)
{
	YI_UNUSED(opts);
	return yi_error(YING_ENOTSUP, "libying-live was built without the HTTP endpoint "
	    "(configure --enable-http; needs libmicrohttpd)");
}

int
yi_http_member_start(ying_http **out, const ying_http_opts *opts)
{
	yi_error_clear();
	YI_UNUSED(opts);
	if (out)
		*out = NULL;
	return yi_error(YING_ENOTSUP, "libying-live was built without the HTTP endpoint: "
	    "no member endpoint (configure --enable-http; needs libmicrohttpd)");
}

int
ying_http_serve_files(ying_http **out, const ying_http_opts *http,
    const char *const *inputs, size_t n, const ying_serve_opts *opts)
{
	yi_error_clear();
	YI_UNUSED(http);
	YI_UNUSED(inputs);
	YI_UNUSED(n);
	YI_UNUSED(opts);
	if (out)
		*out = NULL;
	return yi_error(YING_ENOTSUP, "libying-live was built without the HTTP endpoint: "
	    "no ying serve (configure --enable-http; needs libmicrohttpd)");
}
