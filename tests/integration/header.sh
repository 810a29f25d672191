#!/bin/sh
# header.sh: the two public headers and the two installed libraries.
#  - include/ying.h and include/ying-live.h each compile alone as C99 and
#    C11 with -pedantic -Werror, and as C++ (extern "C", no C-only syntax);
#  - libying.so exports exactly the functions ying.h declares, plus the
#    private interface libying-live is built on (YI_SHARED in src/lib/*.h);
#    libying-live.so exports exactly the functions ying-live.h declares;
#  - libying (the offline library) links no HTTP server, no libcurl, no
#    fork handler and no allocation hook; libying-live depends on it one way.
set -u
: "${YING_SRCDIR:?}" "${YING_BUILDDIR:?}"
. "$YING_SRCDIR/tests/integration/tap.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
inc="$YING_SRCDIR/include"
for h in ying ying-live; do
	printf '#include "%s.h"\nint main(void) { return ying_version() == 0; }\n' "$h" > "$T/h.c"
	for std in c99 c11; do
		cc -std=$std -pedantic -Wall -Wextra -Werror -I"$inc" -c "$T/h.c" -o "$T/h.o" 2>"$T/err"
		ok $? "$h.h compiles alone as $std -pedantic -Werror" || diag "$T/err"
	done
	c++ -x c++ -std=c++11 -pedantic -Wall -Wextra -Werror -I"$inc" -c "$T/h.c" -o "$T/h.o" 2>"$T/err"
	ok $? "$h.h compiles as C++11" || diag "$T/err"
done

# decls MARK FILE...: the functions declared MARK ... name(...); in FILEs
# (comments stripped by the preprocessor, which expands nothing here)
decls() {
	mark=$1; shift
	for f in "$@"; do cc -fpreprocessed -dD -E -P "$f" 2>/dev/null; done |
	    sed 's/YI_NUM_NAME(\([a-z0-9_]*\))/yi_num_\1/g; s/YI_DIR_NAME(\([a-z0-9_]*\))/yi_dir_\1/g' |
	    grep -v '^#' | tr '\n' ' ' | tr ';{}' '\n\n\n' | grep "^ *$mark " |
	    sed 's/(.*//' | awk '{print $NF}' | tr -d '*' | sort -u
}
declared() { decls YING_EXTERN "$1"; }
# exported: the functions and data a shared library defines dynamically
exported() {
	nm -D --defined-only "$1" 2>/dev/null | awk '$2 ~ /^[TDBRVW]$/ {print $3}' |
	    sed 's/@.*//' | sort -u
}
declared "$inc/ying.h" >"$T/pub"
declared "$inc/ying-live.h" >"$T/live"
decls YI_SHARED "$YING_SRCDIR"/src/lib/*.h >"$T/priv"
test "$(wc -l <"$T/pub")" -gt 60 && test "$(wc -l <"$T/live")" -gt 30 &&
    test "$(wc -l <"$T/priv")" -gt 10
ok $? "the headers declare the API ($(wc -l <"$T/pub") in ying.h, $(wc -l <"$T/live") in ying-live.h, $(wc -l <"$T/priv") YI_SHARED)"
comm -12 "$T/pub" "$T/live" >"$T/both"
test ! -s "$T/both"
ok $? "no function is declared in both headers" || diag "$T/both"

so=$(ls "$YING_BUILDDIR"/.libs/libying.so.* 2>/dev/null | head -n 1)
lso=$(ls "$YING_BUILDDIR"/.libs/libying-live.so.* 2>/dev/null | head -n 1)
test -n "$so" && test -n "$lso"
ok $? "libying.so and libying-live.so were built"
exported "$so" >"$T/so"
sort -u "$T/pub" "$T/priv" >"$T/want"
diff "$T/want" "$T/so" >"$T/d1"
ok $? "libying.so exports exactly ying.h's functions and the YI_SHARED ones" || diag "$T/d1"
exported "$lso" >"$T/lso"
diff "$T/live" "$T/lso" >"$T/d2"
ok $? "libying-live.so exports exactly ying-live.h's functions" || diag "$T/d2"

# the offline library: no server, no libcurl, no fork handlers, no hooks
objdump -p "$so" | awk '/NEEDED/ {print $2}' >"$T/needed"
! grep -E 'microhttpd|curl|ying-live' "$T/needed" >"$T/bad"
ok $? "libying.so needs neither libmicrohttpd nor libcurl nor libying-live" || diag "$T/bad"
nm -D --undefined-only "$so" | awk '{print $2}' | sed 's/@.*//' >"$T/und"
! grep -E '^(pthread_atfork|dlopen|curl_|MHD_)' "$T/und" >"$T/bad"
ok $? "libying.so calls no pthread_atfork, dlopen, curl_ or MHD_ function" || diag "$T/bad"
! grep -rl 'experimental.hooks' "$YING_SRCDIR"/src/lib/*.c >"$T/bad"
ok $? "no src/lib file installs jemalloc hooks" || diag "$T/bad"
objdump -p "$lso" | grep -q 'NEEDED.*libying\.so'
ok $? "libying-live.so is linked against libying.so"
done_testing
