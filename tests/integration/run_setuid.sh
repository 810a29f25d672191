#!/bin/bash
# run_setuid.sh: reports of a process that switches user (issue 25, part 3).
#
# After setuid a process cannot create files in the starting user's 0700
# report directory, even through a descriptor it held open.  `ying run`
# keeps the directory: the runner hands each finished file to it
# (YING_RUN_SINK, memfds over a SOCK_SEQPACKET socket) and it writes them,
# 0600, as the starting user.  Checked with tests/programs/run_setuid as
# root: a program that calls setuid(65534) after start still gets its
# reports (and its endpoint answers); `ying run --user nobody` with nobody's
# own directory (written by the program itself) and with root's (through
# ying run); nobody's directory without --user refused, saying how; without
# ying run the runner says once what to do.  The keeper refuses what is not
# a report file of the root or one per-process subdirectory.  The agents'
# lines on YING_RUN_FD (member, skip, garbage, over-long) with a stand-in
# writer, the summary, and --children / --user errors.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need setpriv curl
if [ "$(id -u)" != 0 ]; then
	missing "root (the test switches users)"
fi
NB=65534
P="$PROGS/run_setuid"
chmod 755 "$T"       # nobody must reach its own directory below $T

# only report files, each 0600 and owned by uid $2, in $1
files_ok() {
	local d=$1 u=$2 f bad=
	for f in "$d"/* "$d"/.[!.]*; do
		[ -e "$f" ] || continue
		case "${f##*/}" in
		ying.*.report|ying.*.svg|ying.*.heap|ying.*.pb.gz) ;;
		*) bad="$bad ${f##*/}" ;;
		esac
		[ "$(stat -c '%a %u' "$f")" = "600 $u" ] || bad="$bad ${f##*/}($(stat -c '%a %u' "$f"))"
	done
	[ -z "$bad" ] || { echo "unexpected:$bad"; return 1; }
}

# 1. setuid after start, under plain `ying run`: reports through the keeper
D="$T/d1"
"$YING" run --report-dir "$D" --interval 1 --floor 0 --http 127.0.0.1:0 -- \
    "$P" drop $NB 4 8 >"$T/out1" 2>"$T/err1" &
p=$!
bg_pids="$bg_pids $p"
wait_for 30 grep -q 'HTTP on http://127.0.0.1:[0-9]*/' "$T/err1"
ok $? "the agent announces its endpoint" || diag "$T/err1"
hp=$(sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/err1" | head -n 1)
wait_for 20 grep -q "^uid $NB" "$T/out1"
ok $? "the program switched to uid $NB" || diag "$T/out1"
wait_for 20 count_reports "$D" 2
ok $? "reports appear after the switch" || diag "$T/err1"
curl -s -o "$T/heap1" -w '%{http_code}' "http://127.0.0.1:$hp/debug/heap" >"$T/code1"
is "$(cat "$T/code1")" 200 "the endpoint still answers after the switch"
grep -q '^heap_v2/' "$T/heap1"
ok $? "with a heap profile"
wait "$p"
is "$?" 0 "ying run exits with the program's status"
is "$(stat -c '%a %u' "$D")" "700 0" "the report directory stays 0700 and root's"
files_ok "$D" 0 >"$T/bad1"
ok $? "only report files, 0600 and root's (no temporaries left)" || diag "$T/bad1"
n=$(report_sets "$D" | wc -l)
[ "$n" -ge 2 ]
ok $? "a report set per growth step (got $n)"
for b in $(report_sets "$D"); do
	for e in heap svg pb.gz; do
		[ -s "$D/$b.$e" ] || echo "$b.$e missing"
	done
done >"$T/miss1"
test ! -s "$T/miss1"
ok $? "every set is whole" || diag "$T/miss1"
grep -q 'run_setuid_grow' "$D/$(report_sets "$D" | tail -n 1).report"
ok $? "the last .report names the growing function"
grep -Eq "^ying run: 1 process profiled \\([0-9]+\\); reports in $D\$" "$T/err1" &&
    grep -Eq "^ying run:   $D: $n report sets? written by ying run\$" "$T/err1"
ok $? "the summary counts the sets ying run wrote" || diag "$T/err1"

# 2. --user nobody, nobody's own directory: the program writes it itself
N="$T/nobody"
mkdir -m 700 "$N" && chown $NB "$N"
ying run --user nobody --report-dir "$N" --interval 1 --floor 0 -- "$P" grow 2 8 \
    >"$T/out2" 2>"$T/err2"
is "$?" 0 "ying run --user nobody with nobody's directory"
grep -q "^uid $NB" "$T/out2"
ok $? "the program ran as nobody" || diag "$T/out2"
count_reports "$N" 1
ok $? "its reports are there" || diag "$T/err2"
files_ok "$N" $NB >"$T/bad2"
ok $? "0600 and nobody's" || diag "$T/bad2"

# 3. the same directory without --user: refused, saying how
ying run --report-dir "$N" -- "$P" grow 1 1 >"$T/out3" 2>"$T/err3"
is "$?" 1 "nobody's directory without --user is refused (exit 1)"
grep -q -- "belongs to nobody.*--user nobody" "$T/err3"
ok $? "the message says --user nobody" || diag "$T/err3"
test ! -s "$T/out3"
ok $? "the program did not start"

# 4. --user nobody with root's directory: through ying run
# (bounded to one set: ying run prunes for the runner, which cannot list it)
E="$T/root-dir"
YING_REPORT_MAX_SETS=1 ying run --user nobody --report-dir "$E" --interval 1 --floor 0 \
    -- "$P" grow 3 8 >"$T/out4" 2>"$T/err4"
is "$?" 0 "ying run --user nobody with a directory of root's"
count_reports "$E" 1
ok $? "reports there, written by ying run" || diag "$T/err4"
files_ok "$E" 0 >"$T/bad4"
ok $? "0600 and root's" || diag "$T/bad4"
w=$(sed -n "s|^ying run:   $E: \([0-9]*\) report sets\{0,1\} written by ying run\$|\1|p" "$T/err4")
is "$(report_sets "$E" | wc -l):$([ "${w:-0}" -ge 2 ] && echo many)" "1:many" \
    "of the $w sets written only the newest is kept (YING_REPORT_MAX_SETS=1)" || diag "$T/err4"

# 4b. a per-process subdirectory the process cannot make: ying run makes it
# (0700, root's) and writes there
S="$T/sub-root"
ying run --user nobody --report-dir "$S" --interval 1 --floor 0 -- "$P" sub 2 8 \
    >"$T/out4b" 2>"$T/err4b"
is "$?" 0 "ying run --user nobody, reports in a per-process subdirectory"
sd=$(ls "$S" 2>/dev/null)
case "$sd" in run_setuid.[0-9]*.worker) r=0 ;; *) r=1 ;; esac
ok $r "one subdirectory PROGRAM.PID.ROLE ($sd)" || diag "$T/err4b"
is "$(stat -c '%a %u' "$S/$sd" 2>&1)" "700 0" "made 0700 by ying run"
count_reports "$S/$sd" 1 && files_ok "$S/$sd" 0 >"$T/bad4b"
ok $? "its reports there, 0600 and root's" || diag "$T/err4b"

# 5. without ying run: the runner says once what to do
R="$T/plain"
mkdir -m 700 "$R"
timeout 60 env LD_PRELOAD="$JEMALLOC:$AGENT" MALLOC_CONF=prof:true YING_REPORT_DIR="$R" \
    YING_REPORT_INTERVAL=1 YING_REPORT_FLOOR=0 "$P" drop $NB 2 8 \
    >"$T/out5" 2>"$T/err5"
is "$?" 0 "without ying run the program runs on"
is "$(grep -c 'runs as user nobody (uid 65534) and cannot write report directory' "$T/err5")" 1 \
    "the runner says once that it cannot write" || diag "$T/err5"
grep -q "ying run --user nobody" "$T/err5"
ok $? "and how to fix it" || diag "$T/err5"

# 6. the keeper refuses what is not a report file of the root or one
# per-process subdirectory
K="$T/keep"
cat >"$T/hostile.py" <<'PY'
import os, socket, sys
root = sys.argv[1]
s = socket.socket(fileno=int(os.environ["YING_RUN_SINK"]))
def put(d, name, data=b"x"):
    fd = os.memfd_create("t")
    os.write(fd, data)
    socket.send_fds(s, [("ying-keeper/1 put\n%s\n%s\n" % (d, name)).encode()], [fd])
    os.close(fd)
good = "ying.2026-01-01T00:00:00+00:00.1MiB.report"
put(os.path.dirname(root), good)           # outside the root
put(root + "/..", good)                    # climbing
put(root + "/a.1/b.2", good)               # two levels
put(root + "/noname", good)                # not PROGRAM.PID
put(root, "passwd")                        # not a report name
put(root, ".ying-tmp.1." + good)           # hidden
put(root, "../" + good)                    # a slash in the name
s.send(b"ying-keeper/1 put\n" + root.encode() + b"\n" + good.encode() + b"\n")  # no file
s.send(b"garbage")
s.send(b"")                                # empty: not the end
s.send(b"x" * 70000)
put(root + "/prog.123.worker-process", good, b"good")
put(root, good, b"root")
PY
ying run --report-dir "$K" -- python3 "$T/hostile.py" "$(realpath "$K")" >"$T/out6" 2>"$T/err6"
is "$?" 0 "a hostile sender does not stop ying run"
is "$(grep -c '^ying run: report keeper: ' "$T/err6")" 11 "each bad message refused, said" ||
    diag "$T/err6"
is "$(cat "$K/prog.123.worker-process/ying.2026-01-01T00:00:00+00:00.1MiB.report" 2>&1)" good \
    "a file for a per-process subdirectory lands there"
is "$(stat -c '%a %u' "$K/prog.123.worker-process")" "700 0" "which ying run made 0700"
is "$(cat "$K/ying.2026-01-01T00:00:00+00:00.1MiB.report" 2>&1)" root "one for the root lands there"
find "$K" "$T" -maxdepth 3 -name passwd -o -maxdepth 3 -path "$T/*" -name 'ying.2026-01-01*' \
    ! -path "$K/*" >"$T/stray"
test ! -s "$T/stray" && test ! -e "$T/ying.2026-01-01T00:00:00+00:00.1MiB.report"
ok $? "nothing written elsewhere" || diag "$T/stray"
is "$(ls -A "$K" | tr '\n' ' ')" "prog.123.worker-process ying.2026-01-01T00:00:00+00:00.1MiB.report " \
    "nothing else in the root"

# 7. the agents' lines, from a stand-in writer
L="$T/lines"
{
	echo "member 1 1 $NB prog.1.worker-process worker process"
	echo "member $$ 1 0 - "
	echo "skip 1 1 it exec'd at once"
	echo "member x y z"
	echo "skip 1"
	printf 'member 1 1 0 %s role\n' "$(head -c 3000 /dev/zero | tr '\0' a)"
	echo "member 1 1 0 ../up role"
	printf 'member 1 1 0 sub.1 r\001ole\n'
	printf 'no newline at the end'
} >"$L"
ying run --report-dir "$T/d7" -- "$P" lines "$L" >"$T/out7" 2>"$T/err7"
is "$?" 0 "the stand-in writer ran"
grep -Eq "^ying run: profiling pid 1 \\([^)]* worker process, user nobody\\), reports in $T/d7/prog.1.worker-process\$" "$T/err7"
ok $? "a member line is said with its program, role, user and directory" || diag "$T/err7"
grep -Eq "^ying run: profiling pid $$ \\([^)]*, user root\\), no reports\$" "$T/err7"
ok $? "a member without reports (SUBDIR -)" || diag "$T/err7"
grep -Eq "^ying run: pid 1 \\([^)]*\\) not profiled: it exec'd at once\$" "$T/err7"
ok $? "a skip line is said with its reason" || diag "$T/err7"
grep -Eq "^ying run: profiling pid 1 \\(.*r\\?ole" "$T/err7"
ok $? "a control character in the free text is printed as ?" || diag "$T/err7"
is "$(grep -c '^ying run: profiling\|^ying run: pid ' "$T/err7")" 4 \
    "garbage, over-long lines and a .. directory are ignored" || diag "$T/err7"
grep -Eq "^ying run: 4 processes profiled \\([0-9]+ 1 $$ 1\\), 1 not profiled; reports in $T/d7\$" "$T/err7"
ok $? "the summary at exit" || diag "$T/err7"
ying run -q --report-dir "$T/d7" -- "$P" lines "$L" >"$T/out7q" 2>"$T/err7q"
is "$(grep -c '^ying run: ' "$T/err7q")" 0 "-q says none of it" || diag "$T/err7q"

# 8. option errors
for v in sometimes long: long:x long:0 long:99999999 ALL; do
	ying run --children "$v" -- true >/dev/null 2>"$T/err8"
	is "$?" 2 "--children $v is a usage error"
done
grep -q -- "--children ALL: expected all, long, long:SECONDS or none" "$T/err8"
ok $? "saying what is expected" || diag "$T/err8"
YING_CHILDREN=bad ying run -- true >/dev/null 2>"$T/err8b"
is "$?" 2 "YING_CHILDREN=bad in ying run's environment too" || diag "$T/err8b"
for v in all long none long:5 long:1.5; do
	ying run --children "$v" --report-dir "$T/d8" -q -- true
	is "$?" 0 "--children $v accepted"
done
ying run --user no-such-user-here -- true 2>"$T/err9"
is "$?" 2 "--user of no such user: usage error"
setpriv --reuid=$NB --regid=$NB --clear-groups "$YING" run --user root -- true 2>"$T/err10"
is "$?" 1 "--user when not root: exit 1"
grep -q "must be started as root" "$T/err10"
ok $? "saying it needs root" || diag "$T/err10"
plan_done
