#!/bin/sh
# wrap_docs.sh: every allocator family name of src/lib/sym_wrap.c (the
# exact names and the C++ prefixes) is in ying(1)'s ALLOCATOR FRAMES, as a
# whole word, so the documented list is the one ying applies.  C++ prefixes
# are documented without their trailing "(" or "<" ("NAME*", "NAME<...>").
# (The Rust prefixes are described in prose there.)
. "$YING_SRCDIR/tests/integration/tap.sh"
SRC="$YING_SRCDIR/src/lib/sym_wrap.c"
MAN="$YING_SRCDIR/docs/ying.1"
T=$(mktemp -d "${TMPDIR:-/tmp}/ying-wrapdocs.XXXXXX")
trap 'rm -rf "$T"' EXIT
sed -n '/^\.Sh ALLOCATOR FRAMES/,/^\.Sh /p' "$MAN" >"$T/section"
for list in wrap_exact wrap_cxx; do
	sed -n "/^static const char \*const $list\[\] = {/,/^};/p" "$SRC" |
	    grep -v '^[[:space:]]*/\*\|^[[:space:]]*\*' | grep -o '"[^"]*"' | tr -d '"' |
	    sed 's/[(<]$//' >"$T/$list"
	[ -s "$T/$list" ]
	ok $? "sym_wrap.c's $list has names"
	: >"$T/missing"
	while read -r n; do
		grep -Fqw -- "$n" "$T/section" || echo "$n" >>"$T/missing"
	done <"$T/$list"
	[ ! -s "$T/missing" ]
	ok $? "ying(1) ALLOCATOR FRAMES lists every $list entry ($(wc -l <"$T/$list"))" || diag "$T/missing"
done
done_testing
