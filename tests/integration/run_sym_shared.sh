#!/bin/bash
# run_sym_shared.sh: the agent's one symbolizer, shared across cycles and
# trimmed after each one (live_sym.c, ying_symbolizer_trim).
#
# A copy of tests/programs/agent_grow whose DWARF lives in a separate file
# (objcopy --only-keep-debug, --add-gnu-debuglink: agent_grow.debug next to
# it, read only when an address needs DWARF) runs under strace (openat
# only) and `ying run --http --interval 1`: one 30 MiB step makes the
# runner write a report (the 20 MiB floor), then two GET /debug/pprof/heap
# on the unchanged heap.  The report and both profiles name
# agent_grow_block with its file and line (the DWARF was read), yet the
# debug file is opened once for the whole process: the HTTP requests reuse
# the report's results (one symbolizer for the runner and the endpoint),
# and the trimmed symbolizer does not read it again.  After the cycles the
# debug file is no longer mapped into the program (the trim closed it).
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need strace objcopy readelf curl gzip

P="$T/prog"
mkdir -p "$P"
objcopy --only-keep-debug "$PROGS/agent_grow" "$P/agent_grow.debug" &&
	objcopy --strip-debug --add-gnu-debuglink="$P/agent_grow.debug" \
	    "$PROGS/agent_grow" "$P/agent_grow"
ok $? "a copy of agent_grow with separate debug info"
readelf -S "$P/agent_grow" | grep -q '\.debug_info' 
is "$?" 1 "... the copy itself has no DWARF"

D="$T/reports"
# the program holds its heap for up to 60 s; it is killed once checked
strace -f --seccomp-bpf -qq -e trace=openat -o "$T/strace" \
    "$YING" run --http 127.0.0.1:0 --interval 1 --report-dir "$D" --sample 14 \
    -- "$P/agent_grow" 1 30 10 60000 >"$T/out" 2>"$T/err" &
sp=$!
bg_pids="$bg_pids $sp"
wait_for 30 grep -q 'HTTP on http://127.0.0.1:[0-9]*/' "$T/err"
ok $? "the agent announces its HTTP endpoint" || diag "$T/err"
hp=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/err" | head -n 1)
pid=$(sed -n 's|^ying-agent: pid \([0-9]*\) (agent_grow).*|\1|p' "$T/err" | head -n 1)
wait_for 30 count_reports "$D" 1
ok $? "the runner writes a report (30 MiB, past the floor)" || diag "$T/err"
R=$(ls "$D"/*.report | head -n 1)
grep -A4 '^#1 ' "$R" | grep -q 'agent_grow_block (agent_grow.c:[0-9]*)'
ok $? "the report names agent_grow_block with file:line (DWARF from the debug file)" ||
	diag "$R"

for i in 1 2; do
	t=$(curl -sS -o "$T/heap$i.pb.gz" -w '%{http_code} %{time_total}' \
	    "http://127.0.0.1:$hp/debug/pprof/heap")
	is "${t%% *}" 200 "GET /debug/pprof/heap #$i (${t#* } s)"
	gzip -dc "$T/heap$i.pb.gz" | grep -a -q 'agent_grow_block' &&
		gzip -dc "$T/heap$i.pb.gz" | grep -a -q 'agent_grow\.c'
	ok $? "... names agent_grow_block and its source file"
done

grep -q 'agent_grow\.debug' "/proc/$pid/maps"
is "$?" 1 "after the cycles the debug file is not mapped in the program (trimmed)"

kill "$pid" 2>/dev/null
wait "$sp"
opens=$(grep -c 'openat(.*/agent_grow\.debug", [^)]*) = [0-9]' "$T/strace")
is "$opens" 1 "the debug file is opened once for a report and two pprof requests" ||
	grep 'agent_grow\.debug' "$T/strace" | sed 's/^/# /'
plan_done
