#!/bin/sh
# http_endpoint_list.sh: the HTTP endpoint's paths are listed completely
# and only once per source of truth: the router (routes[] in
# src/live/live_http.c), the list in include/ying-live.h's HTTP section
# and the ENDPOINTS section of docs/ying-http.7 name the same set of
# paths (the router with the page, /, which live_http_page.c serves before
# the routes).  Reads the sources only: no server, no network.
set -eu
SRC=${YING_SRCDIR:-.}
T=$(mktemp -d "${TMPDIR:-/tmp}/ying_eplist.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
fail=0
n=0

# the router: each table row starts with { "/PATH",
sed -n '/^static const route routes\[\] = {/,/^};/p' "$SRC/src/live/live_http.c" |
    sed -n 's/^[[:space:]]*{ "\(\/[^"]*\)",.*/\1/p' > "$T/router.0"
# ... and the page, served before the routes (src/live/live_http_page.c)
echo / >> "$T/router.0"
sort -u "$T/router.0" > "$T/router"
# the header: " *   /PATH   ..." lines of the HTTP section's list
sed -n '/^\/\* HTTP endpoint/,/^typedef struct ying_http ying_http;/p' \
    "$SRC/include/ying-live.h" |
    sed -n 's/^ \*   \(\/[a-z/]*\)\( .*\)\{0,1\}$/\1/p' | sort -u > "$T/header"
# the man page: paths on the .It and .Li lines of ENDPOINTS
sed -n '/^\.Sh ENDPOINTS/,/^\.Sh /p' "$SRC/docs/ying-http.7" |
    grep -E '^\.(It|Li)' | tr ' ,' '\n\n' | sed 's/?.*//' |
    grep -E '^/([a-z]+(/[a-z]+)*/?)?$' | sort -u > "$T/man"

report() {
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fail=1
	fi
}
[ "$(wc -l < "$T/router")" -ge 18 ] && report ok "router table read ($(wc -l < "$T/router") paths)" ||
    report no "router table read ($(wc -l < "$T/router") paths)"
for f in header man; do
	if diff -u "$T/router" "$T/$f" > "$T/$f.diff"; then
		report ok "$f lists exactly the router's paths"
	else
		report no "$f lists exactly the router's paths (- router only, + $f only):"
		sed 's/^/# /' "$T/$f.diff"
	fi
done
echo "1..$n"
exit $fail
