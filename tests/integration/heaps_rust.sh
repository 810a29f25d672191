#!/bin/bash
# heaps_rust.sh: every heap of a Rust service in one profile (issue 26,
# item 1).  rustffi (tests/rust/ffi) keeps 64 MiB in its Rust heap (the
# static _rjem_ jemalloc) and leaks 3000 B per request through its C
# library's plain malloc.  Under `ying run --http 127.0.0.1:0` (default
# --heaps=all) ying run says both heaps are profiled, libjemalloc is the C
# side's malloc, and GET /debug/heap ends with "ying-heap: rust N" and
# "ying-heap: c M" lines whose counts sum to the dump's records; jeprof
# reads the dump, its total within 10 % of the Rust heap plus the C leak,
# the C leak's function among its lines.  Under --heaps=one: no trailer,
# the C function absent (glibc's malloc is not profiled).
. "$YING_SRCDIR/tests/integration/rust_lib.sh"

B="$RS/rustffi"

# run NAME RUN_OPTS...: rustffi under ying run; its dump into $T/NAME/heap.
run() {
	local name=$1 d="$T/$1" hp
	shift
	mkdir -p "$d"
	start_svc "$d/out" "$d/err" run --http 127.0.0.1:0 --report-dir "$d/r" "$@" -- \
	    "$B" "$d" 22000 64
	wait_for 60 grep -qx ready "$d/out"
	ok $? "$name: rustffi makes its Rust heap and its C leak" ||
	    { diag "$d/out" "$d/err"; return 1; }
	hp=$(http_port "$d/err")
	ok $? "$name: the agent serves HTTP inside rustffi (port $hp)" || { diag "$d/err"; return 1; }
	fetch "$hp" debug/heap "$d/heap"
	ok $? "$name: GET /debug/heap answers 200" || diag "$d/heap"
	touch "$d/stop"
	wait "$svc_pid" 2>/dev/null
	return 0
}

# num FILE KEY: a number of rustffi's JSON line
num() {
	sed -n "s/.*\"$2\":\\([0-9]*\\).*/\\1/p" "$1" | head -n 1
}

if run all; then
	d="$T/all"
	grep -q 'heaps: rust (_rjem_, in rustffi) and c (libjemalloc' "$d/err"
	ok $? "all: ying run says both heaps are profiled" || diag "$d/err"
	grep -q '"c_malloc":"jemalloc"' "$d/out"
	ok $? "all: rustffi's C side mallocs with jemalloc" || diag "$d/out"
	recs=$(grep -c '^@' "$d/heap")
	tail -n 2 "$d/heap" >"$d/tail"
	rust=$(sed -n 's/^ying-heap: rust \([0-9]*\)$/\1/p' "$d/tail")
	cee=$(sed -n 's/^ying-heap: c \([0-9]*\)$/\1/p' "$d/tail")
	test -n "$rust" && test -n "$cee" && test "$(sed -n 1p "$d/tail" | cut -d' ' -f2)" = rust
	ok $? "all: the dump ends with ying-heap: rust N, ying-heap: c M" || diag "$d/tail"
	test -n "$rust" && test -n "$cee" && test $((rust + cee)) -eq "$recs" && test "$cee" -gt 0
	ok $? "all: their counts ($rust + $cee) sum to the $recs records, the C heap has some"
	total=$(jeprof_total "$B" "$d/heap")
	want=$(( $(num "$d/out" rust_kept) + $(num "$d/out" c_leaked) ))
	echo "# jeprof total $total, Rust heap + C leak $want"
	test -n "$total" && python3 -c "import sys; t,w=int(sys.argv[1]),int(sys.argv[2]); sys.exit(0 if abs(t-w) <= w*0.10 else 1)" "$total" "$want"
	ok $? "all: jeprof's total ($total) is within 10 % of Rust heap + C leak ($want)" ||
	    diag "$T/jeprof.err"
	timeout 300 jeprof --text "$B" "$d/heap" >"$d/jeprof.txt" 2>"$d/jeprof.err"
	grep -q ffi_parse_request "$d/jeprof.txt"
	ok $? "all: the C leak's function (ffi_parse_request) is in jeprof's output" ||
	    diag "$d/jeprof.txt"
fi

if run one --heaps=one; then
	d="$T/one"
	grep -q '"c_malloc":"glibc"' "$d/out"
	ok $? "one: rustffi's C side mallocs with glibc" || diag "$d/out"
	! grep -q '^ying-heap:' "$d/heap"
	ok $? "one: no ying-heap trailer" || diag "$d/heap"
	timeout 300 jeprof --text "$B" "$d/heap" >"$d/jeprof.txt" 2>"$d/jeprof.err"
	test -s "$d/jeprof.txt" && ! grep -q ffi_parse_request "$d/jeprof.txt"
	ok $? "one: jeprof reads it, and ffi_parse_request is absent" || diag "$d/jeprof.txt"
fi
plan_done
