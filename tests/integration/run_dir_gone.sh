#!/bin/sh
# run_dir_gone.sh: the runner holds its report directory open and never
# writes into a directory that replaced it (src/live/live_runner_files.c:
# yi_rdir_open / yi_rdir_check; every file made with openat/renameat).
#
# The report directory's parent is writable by uid 65534 (0777, no sticky
# bit: the kernel's protected_symlinks does not apply).  `ying run
# --dump-signal USR2 --interval 0` writes one set on request; then (1) the
# directory is removed and she puts a symlink to a directory of hers in
# its place, (2) in a second run she moves the directory away and makes
# one of her own under its name.  Each time, further requests write
# nothing into her directory (nor into the one moved away), the runner
# says once, on stderr, that the directory was removed or replaced and
# that no more reports are written, and the program runs on and ends
# normally.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"

need python3 setpriv
AS_HER="setpriv --reuid=65534 --regid=65534 --clear-groups"
chmod 755 "$T"
P="$T/pub"
mkdir -m 0777 "$P"
chmod 0777 "$P"
mkdir -m 0777 "$T/hers"
chown 65534:65534 "$T/hers"
# a program that keeps 20 MiB and waits (the agent's handler takes USR2)
PROG='
import time
keep = [bytearray(1 << 20) for _ in range(20)]
print("ready", flush=True)
time.sleep(90)
'
nreports() { find "$1" -name '*.report' 2>/dev/null | wc -l | tr -d ' '; }
said() { grep -c 'no more reports are written' "$1" 2>/dev/null; }

# start DIR OUT ERR: ying run on $PROG, its pid in $p
start() {
	"$YING" run -q --dump-signal USR2 --interval 0 --report-dir "$1" -- \
	    python3 -c "$PROG" >"$2" 2>"$3" &
	p=$!
	bg_pids="$bg_pids $p"
	wait_for 20 grep -q '^ready' "$2"
}

# ---- (1) removed, a symlink to her directory in its place
D="$P/reports"
start "$D" "$T/out1" "$T/err1"
ok $? "the program runs under ying run" || diag "$T/err1"
kill -USR2 "$p"
wait_for 20 sh -c "test \"\$(find '$D' -name '*.report' | wc -l)\" -ge 1"
ok $? "a first request writes a set" || diag "$T/err1"
rm -rf "$D"
$AS_HER ln -s "$T/hers" "$D"
kill -USR2 "$p"
wait_for 20 grep -q 'no more reports' "$T/err1"
ok $? "the runner says the directory was removed" || diag "$T/err1"
kill -USR2 "$p"
sleep 2
is "$(ls -A "$T/hers" | wc -l | tr -d ' ')" 0 "nothing was written into her directory" ||
    ls -lA "$T/hers" | sed 's/^/#   /'
is "$(said "$T/err1")" 1 "said once, for two requests"
grep 'no more reports' "$T/err1" | grep -q "$D"
ok $? "... naming the directory" || diag "$T/err1"
grep 'no more reports' "$T/err1" | sed 's/^/# /'
kill -0 "$p" 2>/dev/null
ok $? "the program runs on"
kill -TERM "$p"
wait "$p"
is "$?" 143 "and ends as it would (SIGTERM: 143)"
rm -f "$D"

# ---- (2) moved away, a directory of hers under its name
start "$D" "$T/out2" "$T/err2"
ok $? "a second run" || diag "$T/err2"
kill -USR2 "$p"
wait_for 20 sh -c "test \"\$(find '$D' -name '*.report' | wc -l)\" -ge 1"
ok $? "its first request writes a set" || diag "$T/err2"
$AS_HER sh -c 'mv "$1" "$1.old" && mkdir -m 0777 "$1"' sh "$D"
ok $? "she moves the directory away and makes her own"
kill -USR2 "$p"
wait_for 20 grep -q 'no more reports' "$T/err2"
ok $? "the runner says the directory was replaced" || diag "$T/err2"
kill -USR2 "$p"
sleep 2
is "$(ls -A "$D" | wc -l | tr -d ' ')" 0 "nothing was written into her directory" ||
    ls -lA "$D" | sed 's/^/#   /'
is "$(nreports "$D.old")" 1 "nor more into the one moved away"
is "$(said "$T/err2")" 1 "said once"
grep 'no more reports' "$T/err2" | sed 's/^/# /'
kill -TERM "$p"
wait "$p"
is "$?" 143 "the program ends as it would"

plan_done
