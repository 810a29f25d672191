#!/bin/sh
# settings_table.sh: the one settings table (src/common/fe_settings.c)
# against its documentation and its users.
#
# `ying run --print-settings` prints the table.  docs/ying-agent.7 SETTINGS
# must list the same rows (variable, option, type, default, range), every
# YING_* variable its ENVIRONMENT section documents must be a row and every
# row's variable documented there, and every row's option must be in
# docs/ying.1 and in `ying run --help` (and every option of the help in
# the table).  Then the table's point: an option and its variable take the
# same values (`--interval 5m` and YING_REPORT_INTERVAL=5m both work; on the
# old code the option refused 5m) and refuse the same ones with the same
# words, whether ying run or the agent itself reads the variable.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"

P="$PROGS/agent_exit"
MAN7="$YING_SRCDIR/docs/ying-agent.7"
MAN1="$YING_SRCDIR/docs/ying.1"

ying run --print-settings >"$T/table" 2>"$T/err"
is "$?" 0 "ying run --print-settings"
rows=$(($(wc -l <"$T/table") - 1))
test "$rows" -ge 30
ok $? "the table has its rows ($rows)"

# the man page's rows: .It Ev VAR Ta Fl \-flag Ta type Ta default Ta range
tail -n +2 "$T/table" | awk -F'\t' '{ print $1, $2, $3, $4, $5 }' >"$T/want"
sed -n '/^\.Sh SETTINGS/,/^\.Sh /p' "$MAN7" | sed -n 's/^\.It //p' | sed 1d |
    sed -e 's/ Ta /\t/g' -e 's/^Ev //' -e 's/\tFl \\-/\t--/' |
    awk -F'\t' '{ print $1, $2, $3, $4, $5 }' >"$T/man"
diff "$T/want" "$T/man" >"$T/diff"
ok $? "ying-agent(7) SETTINGS lists the table's rows, defaults and ranges" || diag "$T/diff"

# ENVIRONMENT documents exactly the table's variables
sed -n '/^\.Sh ENVIRONMENT/,/^\.Sh /p' "$MAN7" | sed -n 's/^\.It Ev //p' |
    tr ' ,' '\n\n' | grep -E '^(YING|XDG)_' | sort -u >"$T/env_doc"
awk -F'\t' 'NR > 1 && $1 != "-" { print $1 }' "$T/table" | sort -u >"$T/env_tab"
comm -3 "$T/env_doc" "$T/env_tab" >"$T/env_diff"
test ! -s "$T/env_diff"
ok $? "ying-agent(7) ENVIRONMENT documents every variable of the table, and only those" ||
    diag "$T/env_diff"

# options: in ying.1, in the help, and the help's in the table
ying run --help >"$T/help" 2>&1
: >"$T/opt_miss"
for f in $(awk -F'\t' 'NR > 1 && $2 != "-" { print $2 }' "$T/table"); do
	grep -q "Fl \\\\${f#-}\\b" "$MAN1" || echo "$f not in ying.1" >>"$T/opt_miss"
	grep -q -- "$f\\b" "$T/help" || echo "$f not in ying run --help" >>"$T/opt_miss"
done
test ! -s "$T/opt_miss"
ok $? "every option of the table is in ying(1) and ying run --help" || diag "$T/opt_miss"
grep -o -- '--[a-z][a-z-]*' "$T/help" | sort -u | grep -v -x -e --help >"$T/help_opts"
awk -F'\t' 'NR > 1 && $2 != "-" { print $2 }' "$T/table" | sort -u >"$T/tab_opts"
comm -23 "$T/help_opts" "$T/tab_opts" >"$T/opt_extra"
test ! -s "$T/opt_extra"
ok $? "every option of ying run --help is in the table" || diag "$T/opt_extra"

# accepted alike: ying run exits with the program's 0 and the agent is
# not inert (-q leaves only an inert agent's line on stderr)
accepted() {    # WHAT COMMAND...
	_what=$1
	shift
	"$@" >"$T/out" 2>"$T/err"
	_rc=$?
	test "$_rc" = 0 && ! grep -q inert "$T/err"
	ok $? "$_what accepted (exit $_rc)" || diag "$T/err"
}
for v in 5m 1h 500ms 300; do
	accepted "--interval $v" ying run -q --report-dir "$T/d" --interval "$v" -- "$P" 0
	accepted "YING_REPORT_INTERVAL=$v" env YING_REPORT_INTERVAL=$v \
	    "$YING" run -q --report-dir "$T/d" -- "$P" 0
done
accepted "--pct 2.5% --floor 1MiB --giant 64M --recent-max 10" \
    ying run -q --report-dir "$T/d" --pct 2.5% --floor 1MiB --giant 64M --recent-max 10 \
    -- "$P" 0
accepted "the same as variables" env YING_REPORT_PCT=2.5% YING_REPORT_FLOOR=1MiB \
    YING_GIANT=64M YING_RECENT_MAX=10 "$YING" run -q --report-dir "$T/d" -- "$P" 0

# refused alike, in the same words: ying run's option, ying run's
# environment, and the agent reading the variable without ying run
refused() {    # OPTION VARIABLE VALUE
	ying run -q --report-dir "$T/d" "$1" "$3" -- "$P" 0 >"$T/out" 2>"$T/err_f"
	rf=$?
	env "$2=$3" "$YING" run -q --report-dir "$T/d" -- "$P" 0 >"$T/out" 2>"$T/err_v"
	rv=$?
	env LD_PRELOAD="$JEMALLOC:$AGENT" MALLOC_CONF=prof:true YING_REPORT_DIR="$T/d" \
	    "$2=$3" "$P" 0 >"$T/out" 2>"$T/err_a"
	wf=$(sed -n "1s/^ying run: $1 $3: //p" "$T/err_f")
	wv=$(sed -n "1s/^ying run: $2=$3: //p" "$T/err_v")
	wa=$(sed -n "s/^ying-agent: .*: $2=$3: //p" "$T/err_a")
	if [ "$rf" = 2 ] && [ "$rv" = 2 ] && [ -n "$wf" ] && [ "$wf" = "$wv" ] &&
	    [ "$wf" = "$wa" ]; then
		ok 0 "$1 $3 and $2=$3: refused alike ($wf)"
	else
		ok 1 "$1 $3 and $2=$3: refused alike"
		echo "# option: exit $rf: $(cat "$T/err_f")"
		echo "# ying run's environment: exit $rv: $(cat "$T/err_v")"
		echo "# the agent: $(cat "$T/err_a")"
	fi
}
refused --interval YING_REPORT_INTERVAL 5x
refused --interval YING_REPORT_INTERVAL 3000h
refused --pct YING_REPORT_PCT ten
refused --floor YING_REPORT_FLOOR 1e300T
refused --recent-max YING_RECENT_MAX 1e3
refused --recent-max YING_RECENT_MAX 10001
refused --giant YING_GIANT 0
refused --dump-signal YING_DUMP_SIGNAL KILL
plan_done
