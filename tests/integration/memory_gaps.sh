#!/bin/bash
# memory_gaps.sh: /debug/memory against the truth the program computed
# itself (issue 26, item 4).  tests/programs/mem_gaps makes one gap per
# mode under `ying run --http 127.0.0.1:0`, prints what it measured
# (jemalloc's own counters through its mallctl, mincore on its own
# mappings, its own RSS and byte counts) and waits; the five run at once:
#   frag     1M objects of 64 bytes, 90 % freed at random
#   dirty    300 MiB freed, MALLOC_CONF=dirty_decay_ms:-1 (never decays)
#   threads  200 threads, 256 KiB of stack touched each
#   file     a 256 MiB file of the test's directory mapped and read
#   glibc    64 MiB kept in 3000-byte blocks of glibc's own malloc
# For each: the parts (every key of the contract, once) sum to "rss"
# exactly, "rss" is within 5 % of the program's own, the gap's part within
# 10 % of the truth (frag: also the 64-byte entry of "classes"; file: the
# file in "files"), and "advice" names the gap (frag, dirty, glibc).
# Each program is asked twice (the first answer, then a warm one), each
# answer checked in full.  Then ?format=text answers 200 and names the rss.  The checks themselves
# are tests/integration/memory_gaps.py.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need curl

P="$PROGS/mem_gaps"
CHECK="$YING_SRCDIR/tests/integration/memory_gaps.py"
MODES="frag dirty threads file glibc"

# start MODE MALLOC_CONF: mem_gaps MODE under ying run in the background.
start() {
	d="$T/$1"
	mkdir -p "$d"
	env MALLOC_CONF="$2" "$YING" run --http 127.0.0.1:0 --report-dir "$d/r" -- \
	    "$P" "$1" "$d" >"$d/out" 2>"$d/err" &
	eval "pid_$1=\$!"
	bg_pids="$bg_pids $!"
}

for m in $MODES; do
	case $m in
	dirty) start "$m" dirty_decay_ms:-1 ;;
	*) start "$m" "" ;;
	esac
done

for m in $MODES; do
	d="$T/$m"
	wait_for 60 grep -qx ready "$d/out"
	if ! ok $? "$m: the program makes its gap and prints its truth"; then
		diag "$d/out" "$d/err"
		continue
	fi
	grep '^{' "$d/out" | sed 's/^/# truth: /'
	port=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$d/err" | head -n 1)
	if [ -z "$port" ]; then
		ok 1 "$m: the agent announces its endpoint"
		diag "$d/err"
		continue
	fi
	pid=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$d/out" | head -n 1)
	# Twice: the first request (what a user asking once sees; the agent
	# may read symbols for it) and the second one (warm).
	for k in first second; do
		code=$(curl -s --max-time 30 -o "$d/mem.$k.json" -w '%{http_code}' \
		    "http://127.0.0.1:$port/debug/memory")
		cp "/proc/$pid/statm" "$d/statm.$k" 2>/dev/null
		if ! is "$code" 200 "$m ($k GET): /debug/memory answers 200"; then
			diag "$d/mem.$k.json"
			continue
		fi
		python3 "$CHECK" "$d/out" "$d/mem.$k.json" "$d/statm.$k" "$k GET" \
		    >"$d/checks.$k" 2>&1
		ok $? "$m ($k GET): memory_gaps.py reads the truth and the answer" ||
		    diag "$d/checks.$k"
		while read -r rc desc; do
			case $rc in
			'#'*) echo "$rc $desc" ;;
			*) ok "$rc" "$desc" ;;
			esac
		done <"$d/checks.$k"
	done
	if [ "$m" = frag ]; then
		code=$(curl -s --max-time 30 -o "$d/mem.txt" -w '%{http_code}' \
		    "http://127.0.0.1:$port/debug/memory?format=text")
		is "$code" 200 "?format=text answers 200"
		grep -qi 'rss' "$d/mem.txt"
		ok $? "... and names the rss" || diag "$d/mem.txt"
	fi
done

# The program itself: a bad mode or N is refused, and a mode that needs
# jemalloc's counters says so without one (no truth made up).
mkdir -p "$T/bad"
"$P" nosuch "$T/bad" >/dev/null 2>"$T/bad/err"
is $? 1 "mem_gaps refuses an unknown mode (status 1)"
"$P" frag "$T/bad" 0 >/dev/null 2>"$T/bad/err"
is $? 1 "... and N = 0"
env -u LD_PRELOAD "$P" dirty "$T/bad" 1 >"$T/bad/out" 2>"$T/bad/err"
is "$?:$(grep -c '^{' "$T/bad/out")" 2:0 "without jemalloc the dirty mode fails (status 2) and prints no truth"
grep -q 'no mallctl' "$T/bad/err"
ok $? "... saying mallctl is missing" || diag "$T/bad/err"

for m in $MODES; do
	touch "$T/$m/stop"
done
for m in $MODES; do
	eval "wait \$pid_$m" 2>/dev/null
done
plan_done
