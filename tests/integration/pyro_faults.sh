#!/bin/sh
# pyro_faults.sh: a server that is down, refusing, failing, slow or
# resetting never hurts the host, and uploads resume.
#
# tests/programs/agent_grow adds 1 MiB every 0.5 s under `ying run --http
# --pyroscope URL --pyroscope-interval 1`.  With the stand-in killed (the
# port closed) for 8 s the program keeps its pace (steps go on), its RSS
# grows by no more than its own heap plus 16 MiB, the queue stays within
# its bound (4) and /debug/prof counts retries and drops or failures with
# the connection error in last_error; once the stand-in is back on the same
# port uploads resume and `sent` grows.  Injected 429s and a 500 are retried
# (counted in `retried`) until the profile is accepted; a reset connection
# is retried too; a slow answer (3 s) holds up nothing in the program.
. "$YING_SRCDIR/tests/integration/pyro_lib.sh"

standin_start s
hp=$(free_port)
B="http://127.0.0.1:$hp"
ying run --http "127.0.0.1:$hp" --sample 14 --pyroscope "$s_URL" --service faults \
    --pyroscope-interval 1 -- "$PROGS/agent_grow" 240 1 500 60000 >"$T/out" 2>"$T/err" &
run_pid=$!
bg_pids="$bg_pids $run_pid"
wait_uploads s 2 30
ok $? "uploads arrive" || diag "$T/err" "$s_DIR/requests.log"
child=$(cmd_pid "$run_pid" agent_grow)

steps() { grep -c '^step ' "$T/out"; }
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$child/status"; }
stat_of() { prof_json "$B" && pj "d[\"pyroscope\"][\"$1\"]"; }

# --- down, then back -------------------------------------------------------
s0=$(steps) r0=$(rss_kib) sent0=$(stat_of sent)
standin_stop s
sleep 2
sent1=$(stat_of sent)   # a request in flight at the stop may have made it
sleep 6
s1=$(steps) r1=$(rss_kib)
prof_json "$B"
ok $? "server down: the program still serves /debug/prof" || diag "$T/err"
python3 -c 'import sys; sys.exit(0 if int(sys.argv[2]) - int(sys.argv[1]) >= 12 else 1)' "$s0" "$s1"
ok $? "... and keeps its pace: $((s1 - s0)) steps of 0.5 s in 8 s (16 expected, 12 needed)"
grow=$(( (r1 - r0) / 1024 )) heap=$((s1 - s0))
[ "$grow" -le $((heap + 16)) ]
ok $? "... RSS grew ${grow} MiB for ${heap} MiB of heap (bound: heap + 16 MiB)"
is "$(pj 'int(d["pyroscope"]["queued"] <= 4)')" 1 "... the queue stays within 4 profiles" || diag "$T/prof.json"
is "$(pj 'int(d["pyroscope"]["retried"] >= 1)')" 1 "... connection errors are retried (retried=$(pj 'd["pyroscope"]["retried"]'))"
is "$(pj 'int(d["pyroscope"]["dropped"] + d["pyroscope"]["failed"] >= 1)')" 1 \
    "... profiles that cannot go are dropped or failed, and counted" || diag "$T/prof.json"
is "$(pj 'int(d["pyroscope"]["last_error"] != "")')" 1 "... last_error says why: $(pj 'd["pyroscope"]["last_error"]')"
is "$(python3 -c 'import sys; print(int(sys.argv[1] == sys.argv[2]))' "$(pj 'd["pyroscope"]["sent"]')" "$sent1")" 1 \
    "... nothing counted as sent while down ($sent1 after 2 s, the same after 8 s)"
n=$(uploads s)
standin_restart s
wait_uploads s $((n + 2)) 40
ok $? "server back on the same port: uploads resume" || diag "$T/err" "$s_DIR/requests.log"
is "$(python3 -c 'import sys; print(int(int(sys.argv[1]) > int(sys.argv[2])))' "$(stat_of sent)" "$sent0")" 1 \
    "... and sent grows again"

# --- 429, 500, reset: retried until accepted ---------------------------------
# faults_then_ok FROM K: after line FROM of requests.log the server
# answered K faults, then accepted an upload.
faults_then_ok() {
	awk -v from="$1" -v k="$2" 'NR > from && $5 == "fault" { f++ }
		NR > from && $4 == 200 && f >= k { ok = 1 } END { exit !ok }' "$s_DIR/requests.log"
}
# retried_after FAULT WHAT K: inject K faults; the server must answer
# them and then accept the profile, and retried must grow by at least K.
retried_after() {
	ra_r0=$(stat_of retried)
	ra_from=$(wc -l <"$s_DIR/requests.log")
	fault s "$1"
	wait_for 60 faults_then_ok "$ra_from" "$3"
	ok $? "$2: answered, then a profile is accepted" || diag "$s_DIR/requests.log"
	ra_r1=$(stat_of retried)
	[ $((ra_r1 - ra_r0)) -ge "$3" ]
	ok $? "... retried grew by $((ra_r1 - ra_r0)) (at least $3)"
}
retried_after 'code=429&count=2' "two 429s" 2
is "$(grep -c ' 429 fault' "$s_DIR/requests.log")" 2 "... the server saw both 429s"
retried_after 'code=500&count=1' "a 500" 1
retried_after 'code=503&count=1' "a 503" 1
retried_after 'reset=1&count=1' "a reset connection" 1

# --- slow ----------------------------------------------------------------------
s0=$(steps)
fault s 'slow=3&count=1'
sleep 4
s1=$(steps)
[ $((s1 - s0)) -ge 6 ]
ok $? "a 3 s answer: the program kept its pace ($((s1 - s0)) steps in 4 s)"
kill -0 "$run_pid" 2>/dev/null
ok $? "the program is still running after every fault"
prof_json "$B"
is "$(pj 'int(d["pyroscope"]["queued"] <= 4)')" 1 "the queue stayed within its bound"
kill -TERM "$run_pid" 2>/dev/null
wait "$run_pid" 2>/dev/null

plan_done
