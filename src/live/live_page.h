/*
 * live_page.h: the live page's static files (src/live/page/: index.html,
 * app.js, flame.js, app.css), compiled into the live library by
 * src/live/page/embed.sh (the generated live_page_data.c in the build tree)
 * so that the agent's endpoint (live_http_page.c) and `ying serve` answer
 * GET /, /ui/app.js, /ui/flame.js and /ui/app.css with the same bytes.
 * Everything here is static, read-only data: nothing to free.
 */
#ifndef YING_LIVE_PAGE_H
#define YING_LIVE_PAGE_H

#include <stddef.h>

typedef struct yi_page_asset {
	const char *path;           /* URL path: "/", "/ui/app.js", ... */
	const char *ctype;          /* Content-Type */
	const unsigned char *data;  /* the bytes (a NUL follows, not counted) */
	size_t len;
	const char *etag;           /* quoted: "\"CRC-LEN\"" */
} yi_page_asset;

/* The generated table (live_page_data.c). */
extern const yi_page_asset yi_page_assets[];
extern const unsigned yi_page_nassets;

/* The asset served at URL path `path` (no query), or NULL.  Static data. */
const yi_page_asset *yi_page_find(const char *path);

/* The Content-Security-Policy and other headers every page answer carries
 * (docs/ying-http.7, THE PAGE). */
#define YI_PAGE_CSP "default-src 'none'; script-src 'self'; style-src 'self'; " \
	"img-src 'self' data:; connect-src 'self'; base-uri 'none'; " \
	"form-action 'none'; frame-ancestors 'none'"

/* The first heap request of app.js (loadHeap at boot), preloaded by a Link
 * header on GET / when the endpoint has no token (live_http_page.c): the
 * agent's dump runs while the browser is still loading and compiling the
 * scripts.  app.js asks for exactly this URL with credentials
 * "same-origin", the mode the preload's "crossorigin" gives, so that the
 * browser answers it from the preload. */
#define YI_PAGE_PRELOAD "/debug/heap?format=tree&sample_index=inuse_space"
#define YI_PAGE_PRELOAD_LINK "<" YI_PAGE_PRELOAD ">; rel=preload; as=fetch; crossorigin"

#endif
