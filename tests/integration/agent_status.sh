#!/bin/sh
# agent_status.sh: ying_agent_status() is race-free.
#
# src/agent/agent.c is built with ThreadSanitizer together with a harness
# (tests/programs/agent_status_race.c) in which one thread changes the
# agent's state while another reads the status text.  TSan must report no
# data race.  Before the fix set_state wrote the text with vsnprintf into
# the very buffer ying_agent_status returned (TSan: 2 data races).
. "$YING_SRCDIR/tests/integration/agent_lib.sh"

need cc

cc -fsanitize=thread -g -O1 -std=gnu11 -D_GNU_SOURCE -no-pie -fno-pie \
    -I"$YING_SRCDIR/include" -I"$YING_BUILDDIR" -I"$YING_SRCDIR/src/agent" \
    -I"$YING_SRCDIR/src/common" \
    -o "$T/race" "$YING_SRCDIR/tests/programs/agent_status_race.c" \
    "$YING_SRCDIR/src/agent/agent.c" -Wl,--unresolved-symbols=ignore-all \
    -lpthread 2>"$T/cc.err"
ok $? "agent.c and the harness build with -fsanitize=thread" || diag "$T/cc.err"
TSAN_OPTIONS="halt_on_error=0 exitcode=66" "$T/race" >"$T/out" 2>"$T/err"
is "$?" 0 "the harness exits 0" || diag "$T/err"
# (only meaningful when the harness ran: it prints its reads on stdout)
test -s "$T/out" && test "$(grep -c 'WARNING: ThreadSanitizer: data race' "$T/err")" = 0
ok $? "no data race between set_state and ying_agent_status" || diag "$T/err"
grep -q '^read [0-9]* bytes; last: active: step 11: ' "$T/out"
ok $? "the last state is read whole" || diag "$T/out"

plan_done
