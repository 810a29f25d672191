/*
 * fuzz_url.c: URL parsing for profile input (read_url.c's url_parse:
 * scheme, user:password hidden from messages, [IPv6] hosts, ports, the
 * default path).  url_parse is static, so read_url.c is compiled into this
 * target (its other functions are the library's: they stay unused here,
 * and nothing is fetched).  Input: the URL's bytes (cut at a NUL).
 */
#include "fuzz.h"

#include "../../src/live/live_fetch.c"

FUZZ_TARGET(url)
{
	char *s = fuzz_str(data, size);
	url_parts u;

	if (url_parse(s, &u) == 0) {
		/* "host:port" always has its port (80/443 by default) */
		if (strchr(u.hostport, ':') == NULL || u.full[0] == '\0')
			abort();
		url_parts_free(&u);
	}
	yi_error_clear();
	free(s);
	return 0;
}
