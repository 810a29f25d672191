#!/bin/sh
# run_closefds.sh: a program that closes every descriptor >= 3 is never
# harmed by the agent (issue 22, item 1).
#
# tests/programs/agent_closefds under `ying run --http --report-dir
# --dump-signal USR2 --pyroscope URL` (the Pyroscope stand-in) waits for
# the endpoint, then closes fds 3..1023 in a loop (under `ulimit -n 1024`,
# so the agent's high-numbered descriptors are in the loop's range too)
# or with close_range(3, ~0U, 0), and opens its own files, an eventfd
# and a pipe on the numbers the agent had.  Then, for each way:
#   - its idle CPU over 2 s (getrusage, every thread) stays under 300 ms
#     (a thread polling a closed descriptor spins a core: ~2000 ms);
#   - the dump signal still writes a report set, and a Pyroscope upload
#     still arrives after the closure;
#   - the endpoint answers again on the same port (it listens again once
#     it sees its socket closed, and says so in one line);
#   - the program's files are byte-identical to what it wrote, their
#     offsets never moved, its eventfd was never counted, its pipe holds
#     only its own byte (the program checks those and exits 3 otherwise);
#   - `ying run` exits with the program's own status, 42 (no SIGABRT).
# The closure comes right after an upload (uploads every 3 s), when no
# request of the agent's holds a short-lived descriptor: a closure in the
# middle of a dump or a transfer is the narrower case ying-agent(7) and
# docs/reliability.md (issue 22) describe.
. "$YING_SRCDIR/tests/integration/pyro_lib.sh"
need curl

standin_start s --light

# one_way MODE: the program in MODE (loop|range), under a fresh directory.
one_way() {
	m=$1
	d="$T/$m"
	mkdir -p "$d"
	(
		[ "$m" = loop ] && ulimit -n 1024
		exec timeout 150 "$YING" run --http 127.0.0.1:0 --report-dir "$d/rep" \
		    --dump-signal USR2 --interval 0 --pyroscope "$s_URL" --service closefds \
		    --pyroscope-interval 3 -- "$PROGS/agent_closefds" "$m" "$d" \
		    >"$d/out" 2>"$d/err"
	) &
	rp=$!
	bg_pids="$bg_pids $rp"
	wait_for 30 grep -q 'HTTP on http://127.0.0.1:[0-9]*/' "$d/err"
	port=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$d/err" | head -n 1)
	code=$(curl -s -m 10 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/")
	is "$code" 200 "$m: the endpoint answers on port $port before the closure" ||
	    diag "$d/err"
	wait_for 30 has_uploads s 1
	before=$(uploads s)
	: >"$d/go"
	wait_for 20 test -s "$d/closed"
	ok $? "$m: the program closed its descriptors and opened its own files" ||
	    diag "$d/err"
	wait_for 20 test -s "$d/idle-cpu"
	cpu=$(cat "$d/idle-cpu" 2>/dev/null)
	[ -n "$cpu" ] && [ "$cpu" -lt 300 ]
	ok $? "$m: idle CPU after the closure: $cpu ms in 2 s (< 300)"
	pid=$(cat "$d/pid")
	kill -USR2 "$pid"
	wait_for 30 has_report "$d/rep"
	ok $? "$m: the dump signal still writes a report set" || diag "$d/err"
	wait_for 20 has_uploads s $((before + 1))
	ok $? "$m: Pyroscope uploads go on after the closure ($before before)" ||
	    diag "$d/err"
	wait_for 15 sh -c "[ \"\$(curl -s -m 5 -o /dev/null -w '%{http_code}' \
	    http://127.0.0.1:$port/)\" = 200 ]"
	ok $? "$m: the endpoint answers again on port $port" || diag "$d/err"
	is "$(grep -c "closed the endpoint's listening socket; listening again on port $port\$" \
	    "$d/err")" 1 "$m: ... and said so in one line" || diag "$d/err"
	: >"$d/done"
	wait "$rp"
	is "$?" 42 "$m: ying run exits with the program's own status" || diag "$d/err"
	bad=0
	for i in 0 1 2 3 4 5 6 7; do
		fd=$(sed -n "$((i + 1))p" "$d/fds")
		printf 'host file %d, fd %d: the program'"'"'s own bytes\nhost file %d: last line\n' \
		    "$i" "$fd" "$i" >"$d/want.$i"
		cmp -s "$d/want.$i" "$d/host.$i" || { bad=1; echo "# host.$i differs:"; od -c "$d/host.$i" | head -n 5 | sed 's/^/#   /'; }
	done
	is "$bad" 0 "$m: the program's 8 files are byte-identical to what it wrote"
	grep -q 'agent_closefds:\|failed to signal\|Aborted' "$d/err"
	is "$?" 1 "$m: nothing of the program's was touched, nothing aborted" ||
	    diag "$d/err"
}

one_way range
one_way loop
plan_done
