#!/bin/sh
# closefds_idle.sh: the CPU an idle program uses under `ying run --http
# --report-dir --dump-signal` after it closed every descriptor >= 3
# (issue 22, item 1).
#
#     bench/closefds_idle.sh BUILDDIR [SECONDS] [MODE]
#
# Runs BUILDDIR/ying run with tests/programs/agent_closefds (built in
# BUILDDIR, or in $PROGS when BUILDDIR has none: the before tree has no
# test programs) in MODE (range: close_range, the default; loop: fds
# 3..1023 under ulimit -n 1024), waits for the closure, then reads
# utime+stime of the whole process from /proc/PID/stat SECONDS apart
# (default 10) and prints the CPU it used, in ms and percent of a core.
set -eu
B=${1:?usage: closefds_idle.sh BUILDDIR [SECONDS] [MODE]}
S=${2:-10}
M=${3:-range}
PROGS=${PROGS:-$B/tests/programs}
T=$(mktemp -d "${TMPDIR:-/tmp}/closefds-idle.XXXXXX")
trap 'touch "$T/done"; sleep 1; rm -rf "$T"' EXIT
(
	[ "$M" = loop ] && ulimit -n 1024
	exec "$B/ying" run --http 127.0.0.1:0 --report-dir "$T/rep" --dump-signal USR2 \
	    --interval 0 -- "$PROGS/agent_closefds" "$M" "$T" >"$T/out" 2>"$T/err"
) &
n=0
until grep -q 'HTTP on' "$T/err" 2>/dev/null; do
	sleep 0.1; n=$((n + 1)); [ $n -lt 300 ] || { echo "no endpoint" >&2; exit 1; }
done
: >"$T/go"
until [ -s "$T/closed" ]; do sleep 0.1; done
pid=$(cat "$T/pid")
hz=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
sleep 0.5
a=$(ticks "$pid")
sleep "$S"
b=$(ticks "$pid")
ms=$(( (b - a) * 1000 / hz ))
echo "$M: ${ms} ms of CPU in ${S} s idle ($(( ms / S / 10 ))% of a core); load: $(cut -d' ' -f1-3 /proc/loadavg)"
