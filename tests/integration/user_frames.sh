#!/bin/sh
# user_frames.sh: the user's own allocator wrappers, named once, on a real
# program.  tests/programs/user_frames allocates everything through its
# private wrapper arena_grab(), called from ten functions.  Without a frames
# list arena_grab leads `ying top` (and the wrapper hint names it); with
# arena_grab in $XDG_CONFIG_HOME/ying/frames (or ~/.config/ying/frames, or
# YING_DROP_FRAMES) its ten callers lead in top, diff, folded, pprof,
# ying-jeprof and yingdiff, and in what the agent writes: the report
# runner's .report under `ying run --report-dir` and the endpoint's
# symbolized /debug/heap.  A bad entry is a command's error naming
# FILE:LINE, and only a warning for the agent.
#
# Each "with the list" check has its "without" twin, so the test fails
# where the list is not read (and on the old code, which trimmed every
# function named arena_* as if it were jemalloc's).
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need curl

P="$PROGS/user_frames"
JEPROF="$YING_BUILDDIR/ying-jeprof"
YINGDIFF="$YING_BUILDDIR/yingdiff"
# never the real user's list: every run names its own
HOME="$T/home"
XDG_CONFIG_HOME="$T/none"
export HOME XDG_CONFIG_HOME
unset YING_DROP_FRAMES
mkdir -p "$HOME" "$T/cfg/ying" "$T/home2/.config/ying" "$T/bad/ying"
printf '# our arena\n\n  arena_grab   # every allocation goes through it\n' >"$T/cfg/ying/frames"
printf 'arena_grab\n' >"$T/home2/.config/ying/frames"
printf 'ok_one\n# fine\nbad*entry\n' >"$T/bad/ying/frames"

MALLOC_CONF=prof:true,lg_prof_sample:0 timeout 60 "$P" "$T/base.heap" 10 &&
    MALLOC_CONF=prof:true,lg_prof_sample:0 timeout 60 "$P" "$T/now.heap" 40
ok $? "user_frames writes two dumps (10 and 40 blocks per caller)"

# first_row FILE: the function of the first row of `ying top` text
# ("12.5 MiB  99.4%  99.4%  12.5 MiB  99.4%  arena_grab (file:line)")
first_row() {
	awk 'NR == 3 { print $8; exit }' "$1"
}
with() {        # with CONFIG_DIR COMMAND...: the command under that list
	_c=$1
	shift
	env XDG_CONFIG_HOME="$_c" "$@"
}

# ---- ying top, and the hint ----
ying top -n 3 "$T/now.heap" >"$T/top0" 2>"$T/top0.err"
is "$(first_row "$T/top0")" arena_grab "without a list arena_grab leads ying top" ||
    diag "$T/top0"
grep -q '^ying top: hint: `arena_grab` leads 99 % of the heap from 10 callers: if it is an allocator wrapper, add it to '"$T"'/none/ying/frames' "$T/top0.err"
ok $? "the hint names arena_grab, its share and callers, and the file to add it to" ||
    diag "$T/top0.err"
ying top -q -n 3 "$T/now.heap" >/dev/null 2>"$T/topq.err"
test ! -s "$T/topq.err"
ok $? "ying top -q: no hint" || diag "$T/topq.err"
with "$T/cfg" "$YING" top -n 3 "$T/now.heap" >"$T/top1" 2>"$T/top1.err"
case $(first_row "$T/top1") in from_*) r=0 ;; *) r=1 ;; esac
ok $r "arena_grab in \$XDG_CONFIG_HOME/ying/frames: one of its callers leads" || diag "$T/top1"
grep -q arena_grab "$T/top1"
ok $((!$?)) "... arena_grab is not in the table"
test ! -s "$T/top1.err"
ok $? "... and no hint" || diag "$T/top1.err"
env -u XDG_CONFIG_HOME HOME="$T/home2" "$YING" top -n 3 "$T/now.heap" >"$T/top2" 2>&1
case $(first_row "$T/top2") in from_*) r=0 ;; *) r=1 ;; esac
ok $r "without XDG_CONFIG_HOME: ~/.config/ying/frames" || diag "$T/top2"
YING_DROP_FRAMES='not_ours_x;arena_grab' ying top -n 3 "$T/now.heap" >"$T/top3" 2>&1
case $(first_row "$T/top3") in from_*) r=0 ;; *) r=1 ;; esac
ok $r "YING_DROP_FRAMES='not_ours_x;arena_grab': a caller leads" || diag "$T/top3"
YING_DROP_FRAMES='arena_*' ying top -n 3 "$T/now.heap" >"$T/top4" 2>&1
case $(first_row "$T/top4") in from_*) r=0 ;; *) r=1 ;; esac
ok $r "YING_DROP_FRAMES='arena_*' (a prefix): a caller leads" || diag "$T/top4"

# ---- a bad entry: the command's clear error ----
with "$T/bad" "$YING" top "$T/now.heap" >/dev/null 2>"$T/bad.err"
is "$?" 1 "a bad entry in the list: ying top fails"
grep -q "^ying top: $T/bad/ying/frames:3: 'bad\*entry': '\*' may only end an entry (PREFIX\*)$" "$T/bad.err"
ok $? "... naming FILE:LINE, the entry and why" || diag "$T/bad.err"
YING_DROP_FRAMES='ok;*' ying folded "$T/now.heap" >/dev/null 2>"$T/bad2.err"
is "$?" 1 "a bad entry in YING_DROP_FRAMES: ying folded fails"
grep -q "YING_DROP_FRAMES:2: '\*': '\*' alone would trim every frame" "$T/bad2.err"
ok $? "... naming the variable and the entry's number" || diag "$T/bad2.err"

# ---- diff, folded, pprof, ying-jeprof, yingdiff ----
ying diff --json "$T/base.heap" "$T/now.heap" >"$T/d0.json" 2>/dev/null
with "$T/cfg" "$YING" diff --json "$T/base.heap" "$T/now.heap" >"$T/d1.json" 2>"$T/d1.err"
row0() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rows"][0]["function"])' "$1"; }
is "$(row0 "$T/d0.json")" arena_grab "ying diff without a list: arena_grab grew most"
case $(row0 "$T/d1.json") in from_*) r=0 ;; *) r=1 ;; esac
ok $r "ying diff with the list: a caller grew most" || diag "$T/d1.err"
ying diff "$T/base.heap" "$T/now.heap" 2>&1 >/dev/null | grep -q '^ying diff: hint: `arena_grab` leads'
ok $? "ying diff prints the hint too"
YING_DROP_FRAMES=arena_grab "$YINGDIFF" --json "$T/base.heap" "$T/now.heap" >"$T/d2.json" 2>/dev/null
case $(row0 "$T/d2.json") in from_*) r=0 ;; *) r=1 ;; esac
ok $r "yingdiff honours YING_DROP_FRAMES"

ying folded "$T/now.heap" >"$T/f0" 2>/dev/null
with "$T/cfg" "$YING" folded "$T/now.heap" >"$T/f1" 2>/dev/null
is "$(grep -c ';from_[a-z]*;arena_grab [0-9]*$' "$T/f0")" 10 "folded without a list: ten stacks end in arena_grab"
is "$(grep -c ';from_[a-z]* [0-9]*$' "$T/f1")" 10 "folded with the list: ten stacks end in a caller"
grep -q arena_grab "$T/f1"
ok $((!$?)) "... none names arena_grab"

with "$T/cfg" "$YING" pprof -o "$T/p1.pb.gz" "$T/now.heap" 2>/dev/null
ying pprof -o "$T/p0.pb.gz" "$T/now.heap" 2>/dev/null
ying top -q -n 3 "$T/p0.pb.gz" >"$T/pt0" 2>&1
ying top -q -n 3 "$T/p1.pb.gz" >"$T/pt1" 2>&1
is "$(first_row "$T/pt0")" arena_grab "pprof without a list: arena_grab leads (read back)" || diag "$T/pt0"
case $(first_row "$T/pt1") in from_*) r=0 ;; *) r=1 ;; esac
ok $r "pprof with the list: its samples start at a caller (read back without it)" || diag "$T/pt1"

"$JEPROF" --text "$P" "$T/now.heap" >"$T/j0" 2>/dev/null
with "$T/cfg" "$JEPROF" --text "$P" "$T/now.heap" >"$T/j1" 2>/dev/null
is "$(awk 'NR == 2 { print $6 }' "$T/j0")" arena_grab "ying-jeprof --text without a list: arena_grab"
case $(awk 'NR == 2 { print $6 }' "$T/j1") in from_*) r=0 ;; *) r=1 ;; esac
ok $r "ying-jeprof --text with the list: a caller" || diag "$T/j1"

# ---- the agent: report runner and endpoint ----
# agent_run CONFIG_DIR NAME: the program under ying run with both, holding
# its heap until the first report set is written and /debug/heap read.
agent_run() {
	_d="$T/$2.reports"
	_port=$(free_port)
	rm -f "$T/$2.stop"
	with "$1" "$YING" run -q --sample 0 --interval 1 --floor 1MiB --report-dir "$_d" \
	    --http "127.0.0.1:$_port" -- "$P" --hold "$T/$2.stop" 40 >"$T/$2.out" 2>"$T/$2.err" &
	_pid=$!
	bg_pids="$bg_pids $_pid"
	wait_for 20 has_report "$_d"
	_r1=$?
	wait_for 10 curl -sf -o /dev/null "http://127.0.0.1:$_port/debug/prof"
	curl -sf -o "$T/$2.folded" "http://127.0.0.1:$_port/debug/heap?format=folded"
	_r2=$?
	touch "$T/$2.stop"
	wait "$_pid"
	return $((_r1 + _r2))
}
agent_run "$T/none" a0
ok $? "ying run without a list: a report set and /debug/heap" || diag "$T/a0.err"
agent_run "$T/cfg" a1
ok $? "ying run with the list: a report set and /debug/heap" || diag "$T/a1.err"
rep0=$(cat "$T/a0.reports"/*.report)
rep1=$(cat "$T/a1.reports"/*.report)
echo "$rep0" | grep -q arena_grab
ok $? "the runner's .report without a list names arena_grab"
echo "$rep1" | grep -q arena_grab
ok $((!$?)) "the runner's .report with the list does not" ||
    diag "$T/a1.reports"/*.report
echo "$rep1" | grep -q 'from_'
ok $? "... it names the callers"
is "$(grep -c ';arena_grab [0-9]*$' "$T/a0.folded")" 10 \
    "the endpoint's folded stacks without a list end in arena_grab"
is "$(grep -c ';from_[a-z]* [0-9]*$' "$T/a1.folded")" 10 \
    "the endpoint's folded stacks with the list end in the callers"

# ying run checks the list before starting CMD; --frames adds entries
with "$T/bad" "$YING" run -q --report-dir "$T/r.bad" -- "$P" --hold "$T/x" 1 >"$T/rb.out" 2>"$T/rb.err"
is "$?" 1 "ying run with a bad entry: refused"
grep -q "^ying run: $T/bad/ying/frames:3: 'bad\*entry'" "$T/rb.err"
ok $? "... naming FILE:LINE" || diag "$T/rb.err"
test ! -s "$T/rb.out"
ok $? "... before CMD runs"

# the agent alone (no ying run): a bad entry is a warning, the rest is used
rm -f "$T/a2.stop"
env YING_DROP_FRAMES='x*y;arena_grab' YING_REPORT_DIR="$T/a2.reports" YING_REPORT_INTERVAL=1 \
    YING_REPORT_FLOOR=1MiB MALLOC_CONF=prof:true,lg_prof_sample:0 LD_PRELOAD="$AGENT" \
    timeout 60 "$P" --hold "$T/a2.stop" 40 >"$T/a2.out" 2>"$T/a2.err" &
pid=$!
bg_pids="$bg_pids $pid"
wait_for 20 has_report "$T/a2.reports"
ok $? "the agent with a bad entry still runs and reports" || diag "$T/a2.err"
touch "$T/a2.stop"
wait "$pid"
grep -q "^ying-agent: warning: YING_DROP_FRAMES:1: 'x\*y': '\*' may only end an entry (PREFIX\*) (left out)$" "$T/a2.err"
ok $? "... it warns, naming the entry" || diag "$T/a2.err"
grep -q arena_grab "$T/a2.reports"/*.report
ok $((!$?)) "... and trims the good one"

plan_done
