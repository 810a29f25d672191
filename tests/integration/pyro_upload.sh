#!/bin/sh
# pyro_upload.sh: `ying upload` sends dumps and pprof files once.
#
# A dump written by tests/programs/pprof_alloc (exact numbers at
# lg_prof_sample:0: 8 MiB in big_alloc) and its `ying pprof` file are
# uploaded to the stand-in: exit 0, one accepted push each with
# service_name and tags from the command line, big_alloc on top with 8 MiB
# in the received pprof; several files in one call are several uploads;
# --api ingest uses /ingest.  Time (issue 27): a dump 3 hours old is
# refused before anything is sent, naming the window and the way out;
# --time now sends it stamped now with its dump time as a comment; with
# --max-age 0 it goes out as it is and the stand-in (Pyroscope's rules)
# answers 400 not_in_ingestion_window.  --hostname sets the hostname label.
# A report directory of a --accum run uploaded in one call: each dump's
# alloc_* are what was allocated since the dump before, so the uploads'
# alloc_space add up to the last dump's total.  A server answering 500 to every attempt, an
# unreachable server and a file that is no profile make it exit non-zero
# with a message naming the URL (and status) or the file.
. "$YING_SRCDIR/tests/integration/pyro_lib.sh"

MALLOC_CONF=prof:true,lg_prof_sample:0 timeout 60 "$PROGS/pprof_alloc" "$T/a.heap" >"$T/prog.out" 2>&1
ok $? "pprof_alloc writes a dump" || diag "$T/prog.out"
ying pprof "$T/a.heap" -o "$T/a.pb.gz" 2>"$T/err"
ok $? "ying pprof makes a pprof file" || diag "$T/err"

standin_start s
ying upload --url "$s_URL" --service ci --tag env=test --tag build=42 "$T/a.heap" >"$T/out" 2>"$T/err"
is "$?" 0 "ying upload DUMP exits 0" || diag "$T/err"
is "$(uploads s)" 1 "... one upload accepted" || diag "$s_DIR/requests.log"
is "$(up s 1 'd["api"] + " " + lab["__name__"] + " " + lab["service_name"] + " " + lab["env"] + " " + lab["build"]')" \
    "push memory ci test 42" "... labels from --service and --tag"
is "$(up s 1 'int("memory:inuse_space:bytes:space:bytes" in d["profile_types"])')" 1 "... profile type memory:inuse_space"
is "$(go_top1 "$(up_pprof s 1)" -sample_index=inuse_space)" big_alloc "... big_alloc on top of the received pprof" ||
    diag "$T/gopprof.err"
is "$(go_flat "$(up_pprof s 1)" big_alloc)" 8388608 "... holding exactly 8 MiB"

ying upload --url "$s_URL" --service ci "$T/a.pb.gz" >"$T/out" 2>"$T/err"
is "$?" 0 "ying upload PPROF exits 0" || diag "$T/err"
is "$(go_top1 "$(up_pprof s 2)" -sample_index=inuse_space)" big_alloc "... big_alloc on top"
is "$(go_flat "$(up_pprof s 2)" big_alloc)" 8388608 "... 8 MiB"

ying upload --url "$s_URL" --service ci "$T/a.heap" "$T/a.pb.gz" "$T/a.heap" >"$T/out" 2>"$T/err"
is "$?" 0 "three files in one call" || diag "$T/err"
is "$(uploads s)" 5 "... three uploads"

ying upload --url "$s_URL" --service ci --api ingest --tag env=test "$T/a.heap" >"$T/out" 2>"$T/err"
is "$?" 0 "--api ingest exits 0" || diag "$T/err"
is "$(up s 6 'd["api"] + " " + lab["service_name"] + " " + lab["env"]')" "ingest ci test" "... sent to /ingest"
grep -v ' 200 ' "$s_DIR/requests.log" >"$T/refused"
[ ! -s "$T/refused" ]
ok $? "the stand-in refused nothing" || diag "$T/refused"

# --- time: the server's ingestion window (1 h back by default) -------------------
cp "$T/a.heap" "$T/old.heap"
touch -d '3 hours ago' "$T/old.heap"
n0=$(uploads s)
ying upload --url "$s_URL" --service ci "$T/old.heap" >"$T/out" 2>"$T/err"
is "$?" 1 "a dump 3 hours old: exit 1"
grep -q "old.heap: .*dumped 3 h 0 min ago.*ingestion window of 1 h 0 min.*--time now" "$T/err"
ok $? "... the message names the age, the window and --time now" || diag "$T/err"
is "$(uploads s)" "$n0" "... nothing sent"
ying upload --url "$s_URL" --service ci --time now "$T/old.heap" >"$T/out" 2>"$T/err"
is "$?" 0 "--time now: sent" || diag "$T/err"
n1=$(uploads s)
is "$n1" $((n0 + 1)) "... accepted"
is "$(up s "$n1" 'int(abs(d["time_nanos"] / 1e9 - __import__("time").time()) < 120)')" 1 \
    "... stamped with the upload's time"
timeout 60 go tool pprof -comments "$(up_pprof s "$n1")" >"$T/comments" 2>"$T/gopprof.err"
grep -q "^ying: dumped at $(date -u -d '3 hours ago' +%Y-%m-%d) " "$T/comments"
ok $? "... the dump's own time kept as a comment of the profile" || diag "$T/comments" "$T/gopprof.err"
is "$(go_flat "$(up_pprof s "$n1")" big_alloc)" 8388608 "... the same profile (big_alloc 8 MiB)"
ying upload --url "$s_URL" --service ci --max-age 0 --retries 0 "$T/old.heap" >"$T/out" 2>"$T/err"
is "$?" 1 "--max-age 0 sends it as it is: the server refuses it (exit 1)"
grep -q "400" "$T/err" && grep -Eq "not_in_ingestion_window|outside the ingestion window" "$s_DIR/requests.log"
ok $? "... 400 not_in_ingestion_window, as a real Pyroscope answers" || diag "$T/err" "$s_DIR/requests.log"
is "$(uploads s)" "$n1" "... nothing accepted"
ying upload --url "$s_URL" --service ci --hostname db-7 "$T/a.heap" >"$T/out" 2>"$T/err"
is "$?" 0 "--hostname" || diag "$T/err"
is "$(up s "$(uploads s)" 'lab["hostname"]')" db-7 "... is the hostname label"
ying upload --url "$s_URL" --service ci --hostname 'a b' "$T/a.heap" >"$T/out" 2>"$T/err"
is "$?" 2 "--hostname with a space: usage error"

# --- a report directory of a --accum run: alloc_* since the dump before ------------
hold=$T/rep.stop
AGENT_GROW_STOP="$hold" ying run --accum --sample 14 --report-dir "$T/rep" --interval 1 \
    --floor 0 -- "$PROGS/agent_grow" 6 4 700 30000 >"$T/rep.out" 2>"$T/rep.err" &
rp=$!
bg_pids="$bg_pids $rp"
wait_for 40 grep -q '^step 6:' "$T/rep.out"
sleep 2
touch "$hold"
wait "$rp" 2>/dev/null
ls "$T"/rep/*.heap 2>/dev/null | sort >"$T/dumps"
nd=$(wc -l <"$T/dumps" | tr -d ' ')
[ "$nd" -ge 3 ]
ok $? "the --accum run wrote $nd dumps" || diag "$T/rep.err"
n2=$(uploads s)
# shellcheck disable=SC2046
ying upload --url "$s_URL" --service acc --time now -v $(cat "$T/dumps") >"$T/out" 2>"$T/err"
is "$?" 0 "ying upload --time now DIR/*.heap" || diag "$T/err"
is "$(uploads s)" $((n2 + nd)) "... one upload per dump"
[ "$(grep -c 'alloc_\* since the dump before' "$T/err")" -eq $((nd - 1)) ]
ok $? "... every dump but the first sent as the interval's allocations" || diag "$T/err"
sum=0
for i in $(seq $((n2 + 1)) $((n2 + nd))); do
	v=$(timeout 60 go tool pprof -top -unit=B -sample_index=alloc_space "$(up_pprof s "$i")" 2>/dev/null |
	    awk '$6 == "agent_grow_block" { v = $4; sub(/B$/, "", v); print v; exit }')
	sum=$(python3 -c 'import sys; print(float(sys.argv[1]) + float(sys.argv[2] or 0))' "$sum" "$v")
done
last=$(tail -n 1 "$T/dumps")
ying top --json --sample-index alloc_space "$last" >"$T/last.json" 2>"$T/top.err"
tot=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(int(sum(r["flat"] for r in d["rows"] if r["function"] == "agent_grow_block")))' "$T/last.json")
python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2] or 0); sys.exit(0 if b > 0 and abs(a - b) <= 0.01 * b else 1)' "$sum" "$tot"
ok $? "... the uploads' alloc_space of agent_grow_block add up to the last dump's total ($sum vs $tot B)"
ts=$(for i in $(seq $((n2 + 1)) $((n2 + nd))); do up s "$i" 'int(d["time_nanos"] // 10**9)'; done | tr '\n' ' ')
python3 -c 'import sys, time
t = [int(x) for x in sys.argv[1].split()]
sys.exit(0 if t == sorted(t) and abs(t[-1] - time.time()) < 120 and t[-1] > t[0] else 1)' "$ts"
ok $? "... shifted together: the newest stamped now, the spacing kept ($ts)"
grep -v ' 200 ' "$s_DIR/requests.log" | grep -Ev "not_in_ingestion_window|outside the ingestion window" >"$T/refused"
[ ! -s "$T/refused" ]
ok $? "the stand-in refused nothing else" || diag "$T/refused"

# --- failures ------------------------------------------------------------------
uploads s >"$T/nbefore"
fault s 'code=500&count=50'
ying upload --url "$s_URL" --service ci "$T/a.heap" >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]
ok $? "a server answering 500: non-zero exit ($rc), not a usage error"
grep -q "$s_URL" "$T/err" && grep -q 500 "$T/err"
ok $? "... the message names the URL and the status" || diag "$T/err"
is "$(uploads s)" "$(($(cat "$T/nbefore")))" "... nothing accepted"
curl -sf -X POST "$s_URL/_standin/clear" >/dev/null

dead=$(free_port)
ying upload --url "http://127.0.0.1:$dead" --service ci "$T/a.heap" >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]
ok $? "an unreachable server: non-zero exit ($rc)"
grep -q "127.0.0.1:$dead" "$T/err"
ok $? "... the message names the URL" || diag "$T/err"

printf 'hello\n' >"$T/junk.txt"
ying upload --url "$s_URL" --service ci "$T/junk.txt" >"$T/out" 2>"$T/err"
rc=$?
is "$rc" 1 "a file that is no profile: exit 1"
grep -q "junk.txt" "$T/err"
ok $? "... naming the file" || diag "$T/err"
is "$(uploads s)" "$(($(cat "$T/nbefore")))" "... nothing sent"

ying upload --service ci "$T/a.heap" >"$T/out" 2>"$T/err"
is "$?" 2 "no --url: usage error (exit 2)"

plan_done
