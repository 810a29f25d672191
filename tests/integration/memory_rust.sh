#!/bin/bash
# memory_rust.sh: /debug/memory of a Rust service whose C library leaks
# over FFI (issue 26, item 4: "my Rust service leaks, but the profile is
# flat").  tests/rust/ffi (rustffi, built by tests/rust/build.sh) keeps
# 64 MiB in its Rust heap (the static _rjem_ jemalloc of jemalloc-sys) and
# serves 22000 requests whose C parser keeps 3000 bytes each (64 MiB)
# through plain malloc, then prints what it measured itself (the bytes its
# C library leaked, glibc's mallinfo2, its RSS) and waits.  Under `ying
# run --http 127.0.0.1:0 --heaps=one` (the C side on glibc's malloc; plain
# `ying run` while it has no --heaps): the parts sum to "rss" exactly,
# "rss" within 5 % of the program's own, glibc.heap within 10 % of
# mallinfo2's arena + hblkhd and holding the leak, jemalloc.live holding
# the Rust heap, advice naming glibc.  Once ying run has --heaps, also the
# default (an unprefixed jemalloc for the C side): jemalloc.live holds both
# heaps.  The checks are tests/integration/memory_gaps.py's.
. "$YING_SRCDIR/tests/integration/rust_lib.sh"

B="$RS/rustffi"
CHECK="$YING_SRCDIR/tests/integration/memory_gaps.py"
# one NAME C_MALLOC RUN_OPTS...: rustffi under `ying run --http 127.0.0.1:0
# RUN_OPTS`, its C side's malloc expected to be C_MALLOC (glibc, jemalloc),
# /debug/memory asked twice (the first answer and a warm one, as in
# memory_gaps.sh) and each answer checked by memory_gaps.py.
one() {
	local name=$1 want=$2 d="$T/$1" pid hp k
	shift 2
	mkdir -p "$d"
	start_svc "$d/out" "$d/err" run --http 127.0.0.1:0 --report-dir "$d/r" "$@" -- \
	    "$B" "$d" 22000 64
	wait_for 60 grep -qx ready "$d/out"
	ok $? "$name: rustffi makes its Rust heap and its C leak, and prints its truth" ||
	    { diag "$d/out" "$d/err"; return; }
	grep '^{' "$d/out" | sed 's/^/# truth: /'
	grep -q "\"c_malloc\":\"$want\"" "$d/out"
	ok $? "$name: its C library's malloc is $want's (ying run${*:+ $*})" || diag "$d/out"
	hp=$(http_port "$d/err")
	ok $? "$name: the agent serves HTTP inside rustffi (port $hp)" || { diag "$d/err"; return; }
	pid=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$d/out" | head -n 1)
	for k in first second; do
		fetch "$hp" debug/memory "$d/mem.$k.json"
		ok $? "$name: GET /debug/memory answers 200 ($k)" ||
		    { diag "$d/mem.$k.json"; continue; }
		cp "/proc/$pid/statm" "$d/statm.$k" 2>/dev/null
		# the answer in short, for a failure's reader
		python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); print("# parts (MiB):", {p["key"]: round(p["bytes"] / 2**20, 1) for p in m["parts"] if p["bytes"]}, "not resident", m["apart"][1]["bytes"] >> 20, m.get("resident_split"))' "$d/mem.$k.json" 2>/dev/null
		python3 "$CHECK" "$d/out" "$d/mem.$k.json" "$d/statm.$k" "$name, $k GET" \
		    >"$d/checks.$k" 2>&1
		ok $? "$name: memory_gaps.py reads the truth and the answer ($k)" ||
		    diag "$d/checks.$k"
		while read -r rc desc; do
			case $rc in
			'#'*) echo "$rc $desc" ;;
			*) ok "$rc" "$desc" ;;
			esac
		done <"$d/checks.$k"
	done
	touch "$d/stop"
	wait "$svc_pid" 2>/dev/null
}

if "$YING" run --help 2>&1 | grep -q -- '--heaps'; then
	# --heaps=one: today's behaviour, the C side on glibc's malloc; the
	# default (issue 26, item 1): an unprefixed jemalloc preloaded for it,
	# both heaps live in jemalloc.live.
	one one glibc --heaps=one
	one all jemalloc
else
	one one glibc
fi
plan_done
