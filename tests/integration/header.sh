#!/bin/sh
# header.sh: include/ying.h stands alone: it compiles by itself as C99 and
# C11 with -pedantic -Werror, and as C++ (extern "C", no C-only syntax);
# and the installed library exports nothing but ying_* symbols.
set -u
: "${YING_SRCDIR:?}" "${YING_BUILDDIR:?}"
. "$YING_SRCDIR/tests/integration/tap.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
printf '#include "ying.h"\nint main(void) { return ying_version() == 0; }\n' > "$T/h.c"
for std in c99 c11; do
	cc -std=$std -pedantic -Wall -Wextra -Werror -I"$YING_SRCDIR/include" -c "$T/h.c" -o "$T/h.o" 2>"$T/err"
	ok $? "ying.h compiles alone as $std -pedantic -Werror"
done
c++ -x c++ -std=c++11 -pedantic -Wall -Wextra -Werror -I"$YING_SRCDIR/include" -c "$T/h.c" -o "$T/h.o" 2>"$T/err"
ok $? "ying.h compiles as C++11"
so=$(ls "$YING_BUILDDIR"/.libs/libying.so.* 2>/dev/null | head -n 1)
test -n "$so"
ok $? "libying.so was built"
bad=$(nm -D --defined-only "$so" 2>/dev/null | awk '{print $3}' | grep -v '^ying_' | head -n 5)
test -z "$bad"
ok $? "libying.so exports only ying_* symbols${bad:+ (also: $bad)}"
cnt=$(nm -D --defined-only "$so" 2>/dev/null | awk '{print $3}' | grep -c '^ying_')
test "$cnt" -gt 40
ok $? "and the public API is there ($cnt ying_* symbols)"
done_testing
