#!/bin/sh
# header.sh: include/ying.h stands alone: it compiles by itself as C99 and
# C11 with -pedantic -Werror, and as C++ (extern "C", no C-only syntax);
# and the installed library exports nothing but ying_* symbols.
set -u
: "${YING_SRCDIR:?}" "${YING_BUILDDIR:?}"
n=0 failed=0
t() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
printf '#include "ying.h"\nint main(void) { return ying_version() == 0; }\n' > "$T/h.c"
for std in c99 c11; do
	cc -std=$std -pedantic -Wall -Wextra -Werror -I"$YING_SRCDIR/include" -c "$T/h.c" -o "$T/h.o" 2>"$T/err"
	t $? "ying.h compiles alone as $std -pedantic -Werror"
done
c++ -x c++ -std=c++11 -pedantic -Wall -Wextra -Werror -I"$YING_SRCDIR/include" -c "$T/h.c" -o "$T/h.o" 2>"$T/err"
t $? "ying.h compiles as C++11"
so=$(ls "$YING_BUILDDIR"/.libs/libying.so.* 2>/dev/null | head -n 1)
test -n "$so"
t $? "libying.so was built"
bad=$(nm -D --defined-only "$so" 2>/dev/null | awk '{print $3}' | grep -v '^ying_' | head -n 5)
test -z "$bad"
t $? "libying.so exports only ying_* symbols${bad:+ (also: $bad)}"
cnt=$(nm -D --defined-only "$so" 2>/dev/null | awk '{print $3}' | grep -c '^ying_')
test "$cnt" -gt 40
t $? "and the public API is there ($cnt ying_* symbols)"
echo "1..$n"
[ "$failed" -eq 0 ]
