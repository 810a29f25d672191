#!/bin/sh
# pyro_hostile.sh: the agent's Pyroscope uploader against a server whose
# answer never ends (issue 22, item 7).
#
# tests/programs/agent_grow runs under `ying run --http --pyroscope
# URL/endless --pyroscope-interval 1`; tests/integration/hostile_http.py
# answers every push with 200 and then zeros without end.  The sender reads
# 64 KiB of each answer and hangs up: the uploads are counted as sent
# within seconds (not after the 10 s request timeout, retried), nothing is
# retried or failed, the server manages to send little per answer, and the
# program keeps its pace and its memory.
. "$YING_SRCDIR/tests/integration/pyro_lib.sh"

mkdir "$T/srv"
python3 "$YING_SRCDIR/tests/integration/hostile_http.py" "$T/srv" 2>"$T/srv.err" &
bg_pids="$bg_pids $!"
wait_for 10 test -s "$T/srv/port"
ok $? "the hostile server listens on 127.0.0.1" || { diag "$T/srv.err"; plan_done; }
U="http://127.0.0.1:$(cat "$T/srv/port")"

hp=$(free_port)
B="http://127.0.0.1:$hp"
ying run --http "127.0.0.1:$hp" --sample 14 --pyroscope "$U/endless" --service hostile \
    --pyroscope-interval 1 -- "$PROGS/agent_grow" 60 1 500 60000 >"$T/out" 2>"$T/err" &
run_pid=$!
bg_pids="$bg_pids $run_pid"

sent_at_least() {
	prof_json "$B" && [ "$(pj 'd["pyroscope"]["sent"]')" -ge "$1" ]
}
wait_for 20 sent_at_least 3
ok $? "uploads to a server whose answer never ends are counted as sent (3 within 20 s)" ||
    diag "$T/prof.json" "$T/err"
prof_json "$B"
is "$(pj 'd["pyroscope"]["retried"] + d["pyroscope"]["failed"]')" 0 \
    "... none retried or failed (each answer cut at 64 KiB, its 200 counted)" || diag "$T/prof.json"
pushes=$(grep -c 'Push' "$T/srv/requests.log")
[ "$pushes" -ge 3 ]
ok $? "... the server saw $pushes pushes"
wait_for 5 test -s "$T/srv/sent.log"
big=$(awk '$2 >= 64 * 1048576 { n++ } END { print n + 0 }' "$T/srv/sent.log")
is "$big" 0 "... no answer went past 64 MiB before the uploader hung up ($(cut -d' ' -f2 "$T/srv/sent.log" | tr '\n' ' '))"
grep -q 'step 4:' "$T/out"
ok $? "... the program kept its pace" || diag "$T/out"
kill -0 "$run_pid" 2>/dev/null
ok $? "... and is still running"
kill -TERM "$run_pid" 2>/dev/null
wait "$run_pid" 2>/dev/null
plan_done
