#!/bin/sh
# run_default.sh: `ying run -- CMD` with nothing else asked for.
#
# Without --http, --report-dir or --dump-signal, ying run writes growth
# reports into ./ying-reports (created 0700), says so in one stderr line
# with how to choose otherwise, and the reports appear there (from a
# program that grows; the runner's other defaults are overridden only to
# keep the test short).  A ./ying-reports that is a symlink or a file is
# refused (exit 1, naming it) and the program does not run; with
# --dump-signal no default directory is created.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"

mkdir -p "$T/w"
cd "$T/w" || exit 1
AGENT_GROW_WAIT=1 ying run --interval 0.3 --floor 4MiB -- \
    "$PROGS/agent_grow" 3 6 400 3000 >"$T/out" 2>"$T/err"
is "$?" 0 "ying run -- CMD (no --http, --report-dir, --dump-signal): not a usage error, exit 0"
grep -q '^ying run: no --http, --report-dir or --dump-signal: growth reports (at 10 % change, from 4MiB) go to ./ying-reports; choose with --report-dir DIR, --http ADDR or --dump-signal SIG$' "$T/err"
ok $? "one stderr line says where the reports go and how to choose" || diag "$T/err"
is "$(stat -c %a "$T/w/ying-reports" 2>/dev/null)" 700 "./ying-reports was created with mode 0700"
n=$(report_sets "$T/w/ying-reports" | wc -l)
[ "$n" -ge 1 ]
ok $? "growth reports were written into it ($n sets)" || diag "$T/err"
grep -q "growth reports in $T/w/ying-reports" "$T/err"
ok $? "the agent names the directory as an absolute path" || diag "$T/err"
grep -q 'agent_grow_block' "$T/w/ying-reports"/*.report 2>/dev/null
ok $? "... and the reports name the program's allocation"
# Again: an existing directory of ours is reused.
ying run -q --interval 0 -- "$PROGS/agent_exit" 6 >"$T/out" 2>"$T/err"
is "$?" 6 "an existing ./ying-reports is reused; the status comes through"

# Refused: a symlink (wherever it points) or a plain file.
mkdir -p "$T/s" "$T/elsewhere"
ln -s "$T/elsewhere" "$T/s/ying-reports"
(cd "$T/s" && ying run -- "$PROGS/agent_exit" 0) >"$T/out" 2>"$T/err"
is "$?" 1 "./ying-reports a symlink: exit 1"
grep -q 'ying run: ./ying-reports exists but is not a directory of yours' "$T/err"
ok $? "... saying so" || diag "$T/err"
[ ! -s "$T/out" ]
ok $? "... the program did not run" || diag "$T/out"
mkdir -p "$T/f"
: >"$T/f/ying-reports"
(cd "$T/f" && ying run -- "$PROGS/agent_exit" 0) >"$T/out" 2>"$T/err"
is "$?" 1 "./ying-reports a file: exit 1"
# Ours but writable by others: refused by the library's rule (base_dir.c),
# which the agent would apply anyway (it was accepted here and the agent
# went inert).
mkdir -p "$T/m/ying-reports"
chmod 777 "$T/m/ying-reports"
(cd "$T/m" && ying run -- "$PROGS/agent_exit" 0) >"$T/out" 2>"$T/err"
is "$?" 1 "./ying-reports of mode 777: exit 1"
grep -q 'ying run: ./ying-reports exists but is not a directory of yours (refusing report directory ying-reports: mode 777 lets other users write into it' "$T/err"
ok $? "... saying why, in the library's words" || diag "$T/err"

# Asked for something: no default directory.
mkdir -p "$T/h"
(cd "$T/h" && TMPDIR="$T" ying run -q --dump-signal USR2 -- "$PROGS/agent_exit" 0) >"$T/out" 2>"$T/err"
is "$?" 0 "--dump-signal only: exit 0"
[ ! -e "$T/h/ying-reports" ]
ok $? "... and no ./ying-reports"

plan_done
