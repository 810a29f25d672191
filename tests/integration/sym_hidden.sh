#!/bin/sh
# sym_hidden.sh: functions a stripped shared library does not export (most
# of libLLVM's) have no name anywhere; ying must name each after its first
# byte from .eh_frame, module+0xSTART, so that all of its call sites add up
# in one row, where jeprof gives them the preceding export's name.
. "$YING_SRCDIR/tests/integration/top_lib.sh"
need cc strip

cat > "$T/hid.c" <<'SRC'
#include <stdlib.h>
void *volatile keep[4096];
/* static, not exported: no symbol survives strip */
__attribute__((noinline)) static void hidden_alloc(int n)
{
	int i;
	for (i = 0; i < n; i++) {
		if (i & 1)
			keep[i] = malloc(4096);      /* call site 1 */
		else
			keep[i] = malloc(8192);      /* call site 2 */
	}
}
void exported_entry(int n) { hidden_alloc(n); }
SRC
cat > "$T/main.c" <<'SRC'
#include <jemalloc/jemalloc.h>
void exported_entry(int n);
int main(int argc, char **argv)
{
	const char *f = argv[1];
	exported_entry(1000);
	return mallctl("prof.dump", NULL, NULL, &f, sizeof(f)) != 0;
}
SRC
cc -O1 -fPIC -shared -fvisibility=default -o "$T/libhid.so" "$T/hid.c" &&
    strip --strip-all "$T/libhid.so" &&
    cc -O0 -g -o "$T/main" "$T/main.c" -L"$T" -lhid -ljemalloc -Wl,-rpath,"$T"
ok $? "build a stripped library with a hidden allocating function"
nm "$T/libhid.so" >/dev/null 2>&1 && nm "$T/libhid.so" 2>/dev/null | grep -q hidden_alloc
ok $(( ! $? )) "the library has no symbol for hidden_alloc"

MALLOC_CONF=prof:true,lg_prof_sample:0 "$T/main" "$T/h.heap"
ok $? "dump the program"
ying top --json "$T/h.heap" > "$T/top.json" 2> "$T/top.err"
ok $? "ying top reads it" || diag "$T/top.err"

# One row holds both call sites' 1000 allocations: 500*4096 + 500*8192.
row=$(python3 - "$T/top.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for r in d["rows"] if r["function"].startswith("libhid.so+0x")]
leaf = [r for r in rows if r["flat"] > 0]
print(len(leaf), int(leaf[0]["flat"]) if leaf else 0)
PY
)
is "$row" "1 6144000" "both call sites of the hidden function add up in one libhid.so+0xSTART row"
exported=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(int(sum(r["cum"] for r in d["rows"] if r["function"]=="exported_entry")))' "$T/top.json")
is "$exported" "6144000" "the exported caller keeps its own name"
plan_done
