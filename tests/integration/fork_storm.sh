#!/bin/sh
# fork_storm.sh: a fork storm under `ying run` leaves nothing behind, and
# the one long-lived child is a member of the family (issue 25, item 5).
#
# tests/programs/family_storm.c forks one long-lived child L, then about
# 300 short children a second for 3 s (or as many as the machine allows) (every second one execs /bin/true,
# the others allocate a little and _exit), under `ying run --sample 14 --http
# 127.0.0.1:0 --report-dir D --interval 1 --floor 0`.  Afterwards:
#   - /proc/net/unix holds no "@ying." name of the family but L's and the
#     head's claim ("@ying.FAMILY.0");
#   - D holds the head's report sets and one subdirectory, L's;
#   - the head's thread count is what it was before the storm;
#   - GET /debug/processes lists the head and L only;
#   - ying run wrote a line about L, and no line per storm child;
#   - L, SIGKILLed, is gone from /debug/processes within a second, and its
#     socket with it.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
. "$YING_SRCDIR/tests/integration/fork_lib.sh"
need curl

ppid_of() {
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f2
}

val() {
	cat "$T/d/$1" 2>/dev/null
}

mkdir -p "$T/d"
"$YING" run --sample 14 --http 127.0.0.1:0 --report-dir "$T/D" --interval 1 --floor 0 -- \
    "$PROGS/family_storm" "$T/d" 3 >"$T/out" 2>"$T/err" &
p=$!
bg_pids="$bg_pids $p"
wait_for 30 grep -q 'HTTP on http://127.0.0.1:[0-9]*/' "$T/err"
ok $? "the agent announces its HTTP endpoint" || diag "$T/err"
hp=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/err" | head -n 1)
wait_for 30 test -s "$T/d/threads0"
head=$(val head)
lp=$(val long)
bg_pids="$bg_pids $lp"
# during the storm: at most the head's family's long child and a few short
# children at once hold a name (none should, they live for milliseconds)
most=0
while [ ! -s "$T/d/storm" ] && kill -0 "$p" 2>/dev/null; do
	c=0
	for q in $(ying_sockets); do
		[ "$q" != "$lp" ] && [ "$(ppid_of "$q")" = "$head" ] && c=$((c + 1))
	done
	[ "$c" -gt "$most" ] && most=$c
	sleep 0.2
done
wait_for 30 test -s "$T/d/threads1"
ok $? "the storm ran: $(val storm) short children in 3 s" || diag "$T/err"
[ "$(val storm)" -ge 30 ]
ok $? "... at least 30 of them (300 a second where the machine allows; a loaded 2-core machine gives 50 to 150)"
is "$most" 0 "during the storm no short child held a @ying. name"

# L has lived more than 3 s (the default threshold) by now
wait_for 10 sh -c "awk '\$NF ~ /^@ying\\.[0-9a-f]*\\.$lp\$/' /proc/net/unix | grep -q ."
ok $? "the long-lived child $lp listens on its @ying.FAMILY.$lp socket" || diag "$T/err"
is "$(family_sockets "$lp" | tr '\n' ' ')" "0 $lp " "/proc/net/unix: the family's names are the head's claim (.0) and L's only"
ying_sockets | while read -r q; do
	[ -d "/proc/$q" ] || echo "$q"
done >"$T/dead"
[ ! -s "$T/dead" ]
ok $? "no @ying. name of a process that is gone" || diag "$T/dead"
is "$(val threads1)" "$(val threads0)" "the head's thread count after the storm is what it was ($(val threads0))"

want=$(printf '%s\n%s\n' "$head" "$lp" | sort -n | tr '\n' ' ')
wait_secs 10 procs_are "$want"
is "$(procs_pids | tr '\n' ' ')" "$want" "/debug/processes lists the head ($head) and L ($lp) only" ||
    diag "$T/procs.json"

# reports: the head's in D, L's in its own subdirectory
wait_for 10 sh -c "ls '$T/D' | grep -q '\\.report\$'"
ok $? "the head wrote a report set into D" || diag "$T/err"
sub=$(subdir_of "$T/D" "$lp")
[ -n "$sub" ]
ok $? "L has its report subdirectory in D ('$sub')" || ls -la "$T/D" | sed 's/^/# /'
wait_for 10 sh -c "ls '$T/D/$sub' 2>/dev/null | grep -q '\\.report\$'"
ok $? "... with a report set in it" || ls -la "$T/D/$sub" | sed 's/^/# /'
ls "$T/D" | while read -r e; do
	if [ -d "$T/D/$e" ]; then
		[ "$e" = "$sub" ] || echo "$e"
	else
		case "$e" in
		ying.*) ;;
		*) echo "$e" ;;
		esac
	fi
done >"$T/extra"
[ ! -s "$T/extra" ]
ok $? "D holds nothing else (no storm child's file or directory)" || diag "$T/extra"

# what ying run said
grep -q "$lp" "$T/err"
ok $? "ying run wrote a line about L ($lp)" || diag "$T/err"
n=$(wc -l <"$T/err")
[ "$n" -lt 30 ]
ok $? "ying run wrote no line per storm child ($n lines)" || diag "$T/err"

# L killed: gone from the registry at once
kill -9 "$lp"
wait_secs 1 procs_are "$head "
ok $? "L SIGKILLed: /debug/processes lists the head only within a second" || diag "$T/procs.json"
is "$(family_sockets "$head" | tr '\n' ' ')$(awk -v p="$lp" '$NF ~ ("\\." p "$")' /proc/net/unix)" "" \
    "... and L's name is gone from /proc/net/unix"

touch "$T/d/stop"
wait "$p"
is "$?" 0 "family_storm exits 0, and ying run with it"
plan_done
