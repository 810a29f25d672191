#!/bin/sh
# run_preload_path.sh: `ying run` refuses a library path that ld.so would
# split.  LD_PRELOAD is split at spaces and colons, so an agent or jemalloc
# under such a path would silently not load (the program running without
# profiling).  --agent, YING_AGENT_LIB and YING_JEMALLOC_LIB naming such a
# path exit 1 (like a missing library: the environment is wrong, not the
# command line's syntax) with a message naming the path and the character,
# and the program is not started.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"

P="$PROGS/agent_exit"
D="$T/r"
JEM=$(ldconfig -p | sed -n 's|.*libjemalloc\.so\.2 .*=> \(/.*\)|\1|p' | head -n 1)
[ -n "$JEM" ]
ok $? "libjemalloc.so.2 found ($JEM)"

mkdir -p "$T/with space" "$T/with:colon" "$T/plain"
cp "$AGENT" "$T/with space/libying-agent.so"
cp "$AGENT" "$T/with:colon/libying-agent.so"
cp "$AGENT" "$T/plain/libying-agent.so"
cp "$JEM" "$T/with space/libjemalloc.so.2"
cp "$JEM" "$T/with:colon/libjemalloc.so.2"

# refused CMD_DESCRIPTION ENV... -- ying run args: exit 1, a message, no program
refused() {
	what=$1
	shift
	env "$@" "$P" 0 >"$T/out" 2>"$T/err"
	is "$?" 1 "$what: exit 1"
	grep -q "LD_PRELOAD is split at spaces and colons" "$T/err"
	ok $? "... says why" || diag "$T/err"
	grep -q 'agent_exit: hello' "$T/out"
	is "$?" 1 "... and the program does not run"
}

refused "--agent in a directory with a space" \
    "$YING" run -q --report-dir "$D" --agent "$T/with space/libying-agent.so" --
grep -q "with space/libying-agent.so contains a space" "$T/err"
ok $? "... names the path and the space" || diag "$T/err"
refused "--agent in a directory with a colon" \
    "$YING" run -q --report-dir "$D" --agent "$T/with:colon/libying-agent.so" --
grep -q "^ying run: --agent .*with:colon/libying-agent.so contains a colon" "$T/err"
ok $? "... names the option, the path and the colon" || diag "$T/err"
refused "YING_AGENT_LIB with a space" \
    YING_AGENT_LIB="$T/with space/libying-agent.so" "$YING" run -q --report-dir "$D" --
grep -q "^ying run: YING_AGENT_LIB .*contains a space" "$T/err"
ok $? "... names the variable" || diag "$T/err"
refused "YING_JEMALLOC_LIB with a colon" \
    YING_JEMALLOC_LIB="$T/with:colon/libjemalloc.so.2" "$YING" run -q --report-dir "$D" --
grep -q "^ying run: YING_JEMALLOC_LIB .*with:colon/libjemalloc.so.2 contains a colon" "$T/err"
ok $? "... names the variable and the path" || diag "$T/err"
refused "YING_JEMALLOC_LIB with a space" \
    YING_JEMALLOC_LIB="$T/with space/libjemalloc.so.2" "$YING" run -q --report-dir "$D" --

# Control: the same copy under a plain path is loaded.
"$YING" run -q --report-dir "$D" --agent "$T/plain/libying-agent.so" -- \
    cat /proc/self/maps >"$T/out" 2>"$T/err"
is "$?" 0 "--agent under a plain path: the program runs"
grep -q "$T/plain/libying-agent.so" "$T/out"
ok $? "... with that agent mapped" || diag "$T/err"

plan_done
