#!/bin/sh
# jeprof_compat.sh: ying-jeprof against the real jeprof on the same dumps,
# each generated once: a C program with prof_accum (flame_prog: the four
# sample indexes), a C++ program (top_cxx: new, new[]) and one with a named
# thread (top_threads), and a program linked with a static jemalloc (two
# sizes: --base).  Checked: the Total lines are equal, flat values are
# equal for every function both tools name, --base and --collapsed totals
# are equal, --raw is read by jeprof alone with the same Total, several
# profiles are summed, --list annotates the source, jeprof's options that
# are not implemented exit 2 naming what to use, unknown options exit 2,
# and a truncated or garbage dump is a clear error; --dot parses with
# Graphviz and its nodes sum to the Total, --svg/--pdf/--png render.
# jeprof symbolizing a program costs seconds (nm, objdump, addr2line): it
# does so twice (the C and the C++ program); its other eight calls read
# ying's --raw form of the same dumps (the dumps' own counts, ying's names),
# half a second each.
. "$YING_SRCDIR/tests/integration/top_lib.sh"
need cc pkg-config script

. "$YING_SRCDIR/tests/integration/jeprof_lib.sh"
# same_flats YING JEPROF MIN [COLUMN [PROGRAM]]: for every function both
# tables name once (argument lists stripped: jeprof shortens C++ names), the
# flat values (COLUMN 3: the cumulative ones) are equal; at least MIN such
# functions.  With PROGRAM, only the functions PROGRAM defines count (the
# runtime's own allocations, such as the UBSan runtime's dlerror buffer in a
# sanitizer build, are trimmed by each tool its own way).  Prints the
# differences.
same_flats() {
	nm --defined-only "${5:-/dev/null}" 2>/dev/null | awk '{ print $3 }' >"$T/own.names"
	python3 - "$1" "$2" "$3" "${4:-0}" "${5:+$T/own.names}" "${6:-}" <<'PY'
import re, sys
col = int(sys.argv[4])
own = set(open(sys.argv[5]).read().split()) if len(sys.argv) > 5 and sys.argv[5] else None
skip = re.compile(sys.argv[6]) if len(sys.argv) > 6 and sys.argv[6] else None
def table(path):
    rows = {}
    dup = set()
    for line in open(path, errors="replace"):
        f = line.split(None, 5)
        if len(f) < 6 or line.startswith("Total:"):
            continue
        name = f[5].rstrip("\n")
        inl = name.endswith(" (inline)")
        if inl:
            name = name[:-len(" (inline)")]
        name = re.sub(r"\(.*", "", name).strip() + (" (inline)" if inl else "")
        if name in rows:
            dup.add(name)
        rows[name] = f[col]
    for d in dup:
        del rows[d]
    return rows
y, j = table(sys.argv[1]), table(sys.argv[2])
common = sorted(n for n in set(y) & set(j)
                if (own is None or n.replace(" (inline)", "") in own) and
                (skip is None or not skip.search(n)))
bad = [(n, y[n], j[n]) for n in common if y[n] != j[n]]
for b in bad:
    print("# differs: %s ying %s jeprof %s" % b)
if len(common) < int(sys.argv[3]):
    print("# only %d common functions: %s" % (len(common), common))
sys.exit(1 if bad or len(common) < int(sys.argv[3]) else 0)
PY
}

# --- the C program, with prof_accum: the four sample indexes --------------
# jeprof symbolizes with nm/addr2line/objdump (several seconds a call on a
# busy machine): it does so once per program (inuse_space); the other
# indexes are read by jeprof from ying's --raw form of the same dump, whose
# counts are the dump's own.
P="$PROGS/flame_prog"
D="$T/c.heap"
run_prog prof:true,prof_accum:true,lg_prof_sample:0 "$P" "$D"
ok $? "flame_prog writes a dump with prof_accum" || diag "$T/prog.out"
yj --raw "$P" "$D" >"$T/y.raw" 2>"$T/err"
ok $? "--raw" || diag "$T/err"
for idx in inuse_space inuse_objects alloc_space alloc_objects; do
	yj --text --show_bytes --$idx "$P" "$D" >"$T/y.$idx" 2>"$T/err"
	ok $? "ying-jeprof --text --$idx" || diag "$T/err"
	if [ $idx = inuse_space ]; then
		jp --text --show_bytes --$idx "$P" "$D" >"$T/j.$idx"
	else
		jp --text --show_bytes --$idx "$T/y.raw" >"$T/j.$idx"
	fi
	yt=$(total_of "$T/y.$idx")
	jt=$(total_of "$T/j.$idx")
	test -n "$yt" && test "$yt" = "$jt"
	ok $? "C, $idx: Total equals jeprof's ($yt, $jt)" || diag "$T/jeprof.err"
	same_flats "$T/y.$idx" "$T/j.$idx" 5 0 "$P"
	ok $? "C, $idx: flat values equal jeprof's for the functions both name"
done
grep -q '^ *8388608 .* grow_cache$' "$T/y.inuse_space"
ok $? "grow_cache holds its 8 MiB" || diag "$T/y.inuse_space"
grep -q 'inline_alloc (inline)$' "$T/y.inuse_space"
ok $? "the inlined frame is named 'inline_alloc (inline)' as jeprof does"

# jeprof's own layout: the MB form of the same dump, byte for byte on the
# rows of the program's functions
yj "$P" "$D" >"$T/y.mb" 2>"$T/err" </dev/null
ok $? "no output option and stdout not a terminal: --text" || diag "$T/err"
jp --text "$T/y.raw" >"$T/j.mb"
head -n 1 "$T/y.mb" | grep -q '^Total: 11\.[0-9] MB$' && test "$(head -n 1 "$T/y.mb")" = "$(head -n 1 "$T/j.mb")"
ok $? "the MB Total line is jeprof's: $(head -n 1 "$T/y.mb")"
for f in grow_cache recurse load_config main parse_input; do
	test "$(grep " $f\$" "$T/y.mb")" = "$(grep " $f\$" "$T/j.mb")" && grep -q " $f\$" "$T/y.mb"
	ok $? "the $f row is jeprof's to the byte" || { diag "$T/y.mb"; diag "$T/j.mb"; }
done

yj --text --cum "$P" "$D" >"$T/y.cum" 2>&1
sed -n 2p "$T/y.cum" | grep -q '% _start$\|% __libc_start_call_main$\|% __libc_start_main_impl$\|% main$'
ok $? "--cum sorts by the cumulative column" || diag "$T/y.cum"
yj --text --focus=recurse "$P" "$D" >"$T/y.focus" 2>&1
test "$(sed -n 2p "$T/y.focus" | awk '{ print $2, $NF }')" = "100.0% recurse"
ok $? "--focus: percentages of the kept stacks" || diag "$T/y.focus"
head -n 1 "$T/y.focus" | grep -q '^Total: 11\.'
ok $? "--focus: Total is still the whole profile's (as jeprof)"
yj --text --ignore=grow_cache "$P" "$D" | grep -q grow_cache
ok $((! $?)) "--ignore drops the stacks"
yj --text --lines "$P" "$D" >"$T/y.lines" 2>&1
L=$(grep -n 'keep\[nkeep++\] = malloc(1 << 20);' "$YING_SRCDIR/tests/programs/flame_prog.c" | head -n 1 | cut -d: -f1)
grep -q "% grow_cache .*flame_prog.c:$L\$" "$T/y.lines"
ok $? "--lines: 'grow_cache FILE:$L'" || diag "$T/y.lines"
yj --text --addresses "$P" "$D" | grep -q '% [0-9a-f]\{16\} grow_cache .*flame_prog.c:'
ok $? "--addresses: 16 hex digits, function, file:line"
yj --text --files "$P" "$D" | grep -q '^ *11\.[0-9] .*flame_prog\.c$'
ok $? "--files: the program's file holds the program's memory"
(cd "$YING_BUILDDIR" && timeout 60 "$YJ" --list='^grow_cache$' "$P" "$D") >"$T/y.list" 2>&1
grep -q '^ROUTINE =* grow_cache in .*flame_prog.c$' "$T/y.list" &&
    grep -q "^   8\.0    8\.0 *$L: .*keep\[nkeep++\] = malloc(1 << 20);" "$T/y.list"
ok $? "--list: the routine header and its annotated allocating line" || diag "$T/y.list"
# A copy of the program whose source is gone after the build (the path its
# debug info names is absolute, so no working directory finds it).
mkdir -p "$T/lost"
cp "$YING_SRCDIR/tests/programs/flame_prog.c" "$T/lost/flame_prog.c"
cc -O0 -g -fno-omit-frame-pointer -fno-inline -o "$T/lost/flame_prog" "$T/lost/flame_prog.c" \
    $(pkg-config --cflags --libs jemalloc) &&
    run_prog prof:true,lg_prof_sample:0 "$T/lost/flame_prog" "$T/lost.heap"
ok $? "a copy of flame_prog built and run" || diag "$T/prog.out"
rm -f "$T/lost/flame_prog.c"
timeout 60 "$YJ" --list='^grow_cache$' "$T/lost/flame_prog" "$T/lost.heap" >"$T/y.list2" 2>&1
grep -q 'source not readable' "$T/y.list2" && grep -q "^   8\.0    8\.0 *$L: ?" "$T/y.list2"
ok $? "--list: an unreadable source file is said, the values stay" || diag "$T/y.list2"

# --collapsed: the total of the lines equals jeprof's
yj --collapsed "$P" "$D" >"$T/y.coll" 2>&1
jp --collapsed "$T/y.raw" >"$T/j.coll"
sum() { awk '{ s += $NF } END { print s + 0 }' "$1"; }
test "$(sum "$T/y.coll")" = "$(sum "$T/j.coll")" && test "$(sum "$T/y.coll")" -gt 0
ok $? "--collapsed totals equal ($(sum "$T/y.coll"), $(sum "$T/j.coll"))"

# --raw: jeprof reads ying's symbolized profile without the program
head -n 2 "$T/y.raw" | tr '\n' ' ' | grep -q "^--- symbol binary=$P "
ok $? "--raw starts with '--- symbol' and binary=" || diag "$T/y.raw"
jp --text --show_bytes "$T/y.raw" >"$T/j.raw"
test "$(total_of "$T/j.raw")" = "$(total_of "$T/y.inuse_space")"
ok $? "jeprof --text on ying's --raw output: the same Total" || diag "$T/j.raw"
grep -q '^ *8388608 .* grow_cache$' "$T/j.raw" && ! grep -q 'malloc\|je_' "$T/j.raw"
ok $? "... with ying's names, allocator frames already trimmed" || diag "$T/j.raw"

# --dot: ying's call graph (ying_profile_write_dot); --svg/--pdf/--png:
# Graphviz renders it
need dot file
yj --dot --show_bytes --nodefraction=0 --edgefraction=0 --nodecount=1000 "$P" "$D" >"$T/y.dot" 2>"$T/err"
ok $? "--dot" || diag "$T/err"
dot -Tsvg "$T/y.dot" >/dev/null 2>"$T/err"
ok $? "Graphviz parses the DOT" || diag "$T/err"
python3 - "$T/y.dot" "$(total_of "$T/y.inuse_space")" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
flats = [int(m.group(1)) for m in re.finditer(r'^N\d+ \[label="(?:[^"\\]|\\.)*?\\n(-?\d+) \(', text, re.M)]
print("# %d nodes, flat sum %d, Total %s" % (len(flats), sum(flats), sys.argv[2]))
sys.exit(0 if flats and sum(flats) == int(sys.argv[2]) else 1)
PY
ok $? "--dot with every node kept: the nodes' flat values sum to the Total"
grep -q 'grow_cache' "$T/y.dot"
ok $? "--dot names grow_cache"
yj --dot --nodecount=3 "$P" "$D" >"$T/y3.dot" 2>&1
test "$(grep -c '^N[0-9]* \[label=' "$T/y3.dot")" -le 3
ok $? "--nodecount=3 keeps at most 3 nodes" || diag "$T/y3.dot"
yj --text --nodecount=3 "$P" "$D" >"$T/y.nc" 2>&1
cmp -s "$T/y.nc" "$T/y.mb"
ok $? "--nodecount does not limit --text (as in jeprof)" || diag "$T/y.nc"
yj --svg "$P" "$D" >"$T/y.svg" 2>"$T/err" && grep -q '<svg' "$T/y.svg"
ok $? "--svg: an SVG from Graphviz" || diag "$T/err"
yj --pdf "$P" "$D" >"$T/y.pdf" 2>"$T/err" && test "$(head -c 4 "$T/y.pdf")" = "%PDF"
ok $? "--pdf: a PDF" || diag "$T/err"
yj --png "$P" "$D" >"$T/y.png" 2>"$T/err" && file "$T/y.png" | grep -q 'PNG image'
ok $? "--png: a PNG" || diag "$T/err"
mkdir -p "$T/nodot"
PATH="$T/nodot" "$YJ" --svg "$P" "$D" >/dev/null 2>"$T/err"
rc=$?
test $rc = 1 && grep -q "Graphviz 'dot' not found" "$T/err"
ok $? "--svg without Graphviz on PATH: exit 1, 'Graphviz 'dot' not found'" || diag "$T/err"
yj --dot --addresses "$P" "$D" >/dev/null 2>"$T/err"
is $? 2 "--dot --addresses: not supported, exit 2"

# several profiles are summed
yj --text --inuse_objects "$P" "$D" "$D" >"$T/y.sum" 2>&1
test "$(total_of "$T/y.sum")" = "$(($(total_of "$T/y.inuse_objects") * 2))"
ok $? "two profiles: the sum" || diag "$T/y.sum"

# --- C++ with threads: new, std::vector, four std::threads ---------------
need c++
c++ -g -O0 -fno-omit-frame-pointer -pthread -o "$T/jeprof_cxx" \
    "$YING_SRCDIR/tests/programs/jeprof_cxx.cc" $(pkg-config --cflags --libs jemalloc)
ok $? "build jeprof_cxx with the system c++"
P="$T/jeprof_cxx"
D="$T/cxx.heap"
run_prog prof:true,lg_prof_sample:0 "$P" "$D"
ok $? "jeprof_cxx writes a dump" || diag "$T/prog.out"
yj --text --show_bytes "$P" "$D" >"$T/y.cxx" 2>"$T/err"
jp --text --show_bytes "$P" "$D" >"$T/j.cxx"
test -n "$(total_of "$T/y.cxx")" && test "$(total_of "$T/y.cxx")" = "$(total_of "$T/j.cxx")"
ok $? "C++: Total equals jeprof's" || { diag "$T/y.cxx"; diag "$T/j.cxx"; }
# jeprof charges the memory of new to a misnamed jemalloc frame
# (malloc_usable_size, not in its skip list), so its callers' flat values
# are 0 there: the cumulative values are compared
# (std:: is left out: ying trims the standard library's allocation layers
# while they lead a stack, jeprof does not, so their cum differs by design)
same_flats "$T/y.cxx" "$T/j.cxx" 5 3 "" '^std::'
ok $? "C++: cum values equal jeprof's for the functions both name (but std::)"
grep -q '^ *[1-9][0-9]* .* malloc_usable_size$' "$T/j.cxx"
ok $? "(jeprof charges them to malloc_usable_size: why cum is compared)" || diag "$T/j.cxx"
grep -q '^ *409600 .* make_buffers$' "$T/y.cxx" && grep -q '^ *65536 .* Worker::fill$' "$T/y.cxx" &&
    ! grep -q '^ *[1-9][0-9]* .*\(operator new\|malloc\)' "$T/y.cxx"
ok $? "C++: make_buffers and the threads' Worker::fill hold their memory, operator new none" ||
    diag "$T/y.cxx"

# --- a static jemalloc: two sizes, --base ---------------------------------
JEMA=$(pkg-config --variable=libdir jemalloc)/libjemalloc.a
cc -g -O0 -fno-omit-frame-pointer -fno-inline -fPIE -pie -o "$T/sj" \
    "$YING_SRCDIR/tests/programs/static_jem.c" "$JEMA" -lpthread -lm -ldl
ok $? "build a PIE with a static jemalloc"
sj_dump() {
	mkdir -p "$T/sj$1"
	MALLOC_CONF="prof:true,lg_prof_sample:0,prof_final:true,prof_prefix:$T/sj$1/p" \
	    timeout 60 "$T/sj" "$1" 0 >/dev/null 2>&1
	ls "$T/sj$1"/p.*.f.heap 2>/dev/null | head -n 1
}
NOW=$(sj_dump 6)
BASE=$(sj_dump 2)
test -s "$NOW" && test -s "$BASE"
ok $? "static_jem writes its final dumps (6 and 2 MiB)"
yj --text --show_bytes "$T/sj" "$NOW" >"$T/y.sj" 2>"$T/err"
yj --raw "$T/sj" "$NOW" >"$T/now.raw" 2>/dev/null
yj --raw "$T/sj" "$BASE" >"$T/base.raw" 2>/dev/null
# jeprof reads the raw forms (the dump's own counts; its nm/addr2line runs
# are what costs, and only the totals are compared here)
jp --text --show_bytes "$T/now.raw" >"$T/j.sj"
test -n "$(total_of "$T/y.sj")" && test "$(total_of "$T/y.sj")" = "$(total_of "$T/j.sj")"
ok $? "static jemalloc: Total equals jeprof's" || { diag "$T/y.sj"; diag "$T/j.sj"; }
grep -q '^ *6291456 .* static_jem_leak$' "$T/y.sj"
ok $? "static jemalloc: static_jem_leak holds 6 MiB, jemalloc's own frames trimmed" || diag "$T/y.sj"
yj --text --show_bytes --base="$BASE" "$T/sj" "$NOW" >"$T/y.base" 2>"$T/err"
ok $? "--base" || diag "$T/err"
jp --text --show_bytes --base="$T/base.raw" "$T/now.raw" >"$T/j.base"
test -n "$(total_of "$T/y.base")" && test "$(total_of "$T/y.base")" = "$(total_of "$T/j.base")"
ok $? "--base: Total equals jeprof's ($(total_of "$T/y.base"))" || { diag "$T/y.base"; diag "$T/j.base"; }
grep -q '^ *4194304 .* static_jem_leak$' "$T/y.base"
ok $? "--base: static_jem_leak grew by 4 MiB, matched across two processes (ASLR)" || diag "$T/y.base"
yj --text --show_bytes --base="$NOW" "$T/sj" "$BASE" >"$T/y.neg" 2>&1
grep -q '^ *-4194304 .* static_jem_leak$' "$T/y.neg"
ok $? "--base the other way: a negative row" || diag "$T/y.neg"
yj --text --show_bytes --drop_negative --base="$NOW" "$T/sj" "$BASE" >"$T/y.dn" 2>&1
! grep -q -- '-4194304' "$T/y.dn"
ok $? "--drop_negative drops it" || diag "$T/y.dn"

# --- what is not supported, and bad input --------------------------------
for o in --callgrind --gv --web --scale=2 --disasm=x --symbols --interactive --retain=x \
    --exclude=x --thread=1 --heapcheck --seconds=5 --add_lib=x --lib_prefix=x \
    --tools=x --ps --gif --evince; do
	yj "$o" "$P" "$D" >"$T/out" 2>"$T/err"
	rc=$?
	name=${o%%=*}
	test $rc = 2 && grep -q "^ying-jeprof: $name is not supported: use " "$T/err" && ! test -s "$T/out"
	ok $? "$o: exit 2, '$name is not supported: use ...'" || diag "$T/err"
done
yj --no-such-option "$D" >/dev/null 2>"$T/err"
is $? 2 "an unknown option exits 2"
yj --text --collapsed "$D" >/dev/null 2>"$T/err"
is $? 2 "two output options exit 2"
script -qec "$YJ $D" /dev/null >"$T/tty" 2>&1
grep -q 'interactive mode is not supported' "$T/tty"
ok $? "on a terminal without an output option: interactive mode is not supported" || diag "$T/tty"
head -c 300 "$YING_DATA/heap1.heap" >"$T/trunc.heap"
yj --text "$T/trunc.heap" >/dev/null 2>"$T/err"
rc=$?
test $rc = 1 && grep -q "trunc.heap" "$T/err"
ok $? "a truncated dump: exit 1, the file named" || diag "$T/err"
printf 'not a heap profile\n\001\002' >"$T/garbage"
yj --text "$T/garbage" >/dev/null 2>"$T/err"
rc=$?
test $rc = 1 && grep -q "garbage" "$T/err"
ok $? "garbage: exit 1, the file named" || diag "$T/err"
yj --text "$T/missing.heap" >/dev/null 2>"$T/err"
is $? 1 "a missing file exits 1"

plan_done
