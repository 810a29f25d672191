#!/bin/sh
# pyro_push.sh: `ying run --pyroscope` end to end, against the stand-in.
#
# tests/programs/agent_grow leaks 4 MiB a second in agent_grow_block() for
# 8 s, then holds 32 MiB.  Under `ying run --pyroscope URL --service svc
# --tag env=test --pyroscope-interval 1` the stand-in must receive several
# push uploads that pass its checks (protoc --decode with its own
# push.proto, labels, pprof validity, go tool pprof), labelled
# __name__=memory, service_name=svc, env=test, hostname, __session_id__
# (16 hex digits, the same in every upload of the process), __delta__=false,
# each with its own ID, profile type
# memory:inuse_space:bytes:space:bytes; agent_grow_block on top of the
# received profile, growing from upload to upload, and once the heap holds
# still its value equals a dump taken from /debug/heap at the same moment
# (within 5 %); /debug/prof counts the uploads.  Three processes at once,
# leaking 4, 8 and 12 MiB, keep apart (distinct __session_id__ labels, each
# with its own size).  --pyroscope-api ingest sends the legacy /ingest:
# name=svc{...}, from/until, spyName=ying, the pprof as a multipart part.
. "$YING_SRCDIR/tests/integration/pyro_lib.sh"

standin_start s
hp=$(free_port)
ying run --http "127.0.0.1:$hp" --sample 14 --pyroscope "$s_URL" --service svc --tag env=test \
    --pyroscope-interval 1 -- "$PROGS/agent_grow" 8 4 1000 60000 >"$T/out" 2>"$T/err" &
run_pid=$!
bg_pids="$bg_pids $run_pid"
B="http://127.0.0.1:$hp"
wait_uploads s 4 40
ok $? "4 uploads arrive within 40 s (1 s interval)" || diag "$T/err" "$s_DIR/requests.log"
n=$(uploads s)
grep -v ' 200 ' "$s_DIR/requests.log" >"$T/refused"
[ ! -s "$T/refused" ]
ok $? "the stand-in refused nothing" || diag "$T/refused"

sid=$(up s 1 'lab["__session_id__"]')
echo "$sid" | grep -Eq '^[0-9a-f]{16}$'
ok $? "label __session_id__: 16 hex digits ($sid)"
is "$(up s "$n" 'lab["__session_id__"]')" "$sid" "... the same in a later upload of the process"
is "$(up s 1 'int("pid" in lab)')" 0 "no pid label (a restart would make a new series)"
is "$(up s 1 'lab["__name__"] + " " + lab["service_name"] + " " + lab["env"] + " " + lab["__delta__"]')" \
    "memory svc test false" "labels __name__=memory service_name=svc env=test __delta__=false"
is "$(up s 1 'lab["hostname"]')" "$(hostname)" "label hostname"
is "$(up s 1 'd["api"] + " " + d["headers"]["Content-Type"]')" "push application/proto" \
    "the Connect push API, Content-Type application/proto"
is "$(up s 1 'int("memory:inuse_space:bytes:space:bytes" in d["profile_types"])')" 1 \
    "profile type memory:inuse_space:bytes:space:bytes" || diag "$s_DIR/upload-0001.json"
ids=$(for i in $(seq 1 "$n"); do up s "$i" 'd["id"]'; done | sort -u | wc -l)
is "$ids" "$n" "every upload has its own ID"
up s 1 'd["id"]' | grep -Eq '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
ok $? "... a UUIDv4 ($(up s 1 'd["id"]'))"
is "$(go_top1 "$(up_pprof s "$n")" -sample_index=inuse_space)" agent_grow_block \
    "the leaking function is the top of the received profile" || diag "$T/gopprof.err"

# Growth: the first upload holds less than a later one.
wait_for 30 grep -q '^step 8:' "$T/out"
ok $? "the program reached 32 MiB" || diag "$T/out"
v1=$(go_flat "$(up_pprof s 1)" agent_grow_block)
# The heap holds still now: an upload that started after this point
# against a dump taken now.
t_dump=$(date +%s)
curl -sf --retry 3 --max-time 30 -o "$T/now.heap" "$B/debug/heap"
ok $? "a dump from /debug/heap" || diag "$T/err"
m=$(uploads s)
wait_uploads s $((m + 2)) 20
ok $? "uploads continue"
last=$(uploads s)
is "$(up s "$last" 'int(d["time_nanos"] / 1e9 >= '"$t_dump"' - 1)')" 1 "the last upload's profile was taken after the dump"
v2=$(go_flat "$(up_pprof s "$last")" agent_grow_block)
ying top --json "$T/now.heap" >"$T/top.json" 2>"$T/top.err"
ok $? "ying top --json of the dump" || diag "$T/top.err"
vd=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(int(sum(r["flat"] for r in d["rows"] if r["function"] == "agent_grow_block")))' "$T/top.json")
python3 -c 'import sys; a, b = float(sys.argv[1] or 0), float(sys.argv[2] or 0); sys.exit(0 if b > 0 and abs(a - b) <= 0.05 * b else 1)' "$v2" "$vd"
ok $? "the uploaded value ($v2 B) equals the dump's ($vd B) within 5 %"
python3 -c 'import sys; sys.exit(0 if float(sys.argv[1] or 0) < 0.8 * float(sys.argv[2] or 1) else 1)' "$v1" "$v2"
ok $? "the first upload ($v1 B) held less than the last ($v2 B): uploads follow the growth"
prof_json "$B"
ok $? "GET /debug/prof" || diag "$T/err"
is "$(pj 'd["pyroscope"]["api"] + " " + d["pyroscope"]["service"]')" "push svc" "/debug/prof names the uploader"
is "$(pj 'int(d["pyroscope"]["sent"] >= '"$last"' - 1 and d["pyroscope"]["bytes"] > 0 and d["pyroscope"]["failed"] == 0)')" 1 \
    "/debug/prof counts the uploads (sent, bytes; none failed)" || diag "$T/prof.json"
kill -TERM "$run_pid" 2>/dev/null
wait "$run_pid" 2>/dev/null

# --- several processes at once -----------------------------------------------
standin_start m
pids=""
for k in 1 2 3; do
	ying run --sample 14 --report-dir "$T/r$k" --pyroscope "$m_URL" --service fleet \
	    --pyroscope-interval 1 -- "$PROGS/agent_grow" 1 $((4 * k)) 100 60000 >"$T/out$k" 2>"$T/err$k" &
	pids="$pids $!"
	bg_pids="$bg_pids $!"
done
wait_uploads m 12 40
ok $? "three processes upload together (12 uploads)" || diag "$T/err1" "$m_DIR/requests.log"
sleep 3
c=$(uploads m)
python3 - "$m_DIR" "$c" >"$T/series" <<'PY'
import json, subprocess, sys
d, n = sys.argv[1], int(sys.argv[2])
last = {}
for i in range(1, n + 1):
    u = json.load(open("%s/upload-%04d.json" % (d, i)))
    lab = dict(u["labels"])
    last[(lab["service_name"], lab["hostname"], lab["__session_id__"])] = u["pprof"]
for k in sorted(last):
    print(k[2], d + "/" + last[k])
PY
is "$(wc -l <"$T/series")" 3 "three processes: distinct __session_id__ labels under one service" || diag "$T/series"
vals=$(while read -r p f; do go_flat "$f" agent_grow_block; done <"$T/series" | sort -n | tr '\n' ' ')
python3 -c 'import sys
v = [float(x) for x in sys.argv[1].split()]
sys.exit(0 if len(v) == 3 and all(abs(a - (i + 1) * 4 * 2**20) <= 0.15 * (i + 1) * 4 * 2**20 for i, a in enumerate(v)) else 1)' "$vals"
ok $? "each series holds its own process's heap: 4, 8, 12 MiB (got $vals)"
for p in $pids; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done

# --- the legacy /ingest API --------------------------------------------------
standin_start g
ying run --sample 14 --report-dir "$T/rg" --pyroscope "$g_URL" --service legacy --tag env=test \
    --pyroscope-api ingest --pyroscope-interval 1 -- "$PROGS/agent_grow" 1 8 100 60000 \
    >"$T/outg" 2>"$T/errg" &
gp=$!
bg_pids="$bg_pids $gp"
wait_uploads g 3 30
ok $? "--pyroscope-api ingest: uploads arrive" || diag "$T/errg" "$g_DIR/requests.log"
is "$(up g 1 'd["api"] + " " + str(d["multipart"]) + " " + d["spyName"]')" "ingest True ying" \
    "POST /ingest, multipart, spyName=ying"
is "$(up g 1 'd["query"]["name"].split("{")[0] + " " + lab["service_name"] + " " + lab["env"] + " " + lab["__name__"]')" \
    "legacy legacy test memory" "name=legacy{env=test,...}: service_name and tags"
up g 1 'd["query"]["name"]' | grep -Eq '^legacy\{.*__session_id__=[0-9a-f]{16}.*\}$'
ok $? "... the session id is in the name's tags: $(up g 1 'd["query"]["name"]')"
is "$(up g 2 'int(d["until"] >= d["from"] and abs(d["until"] - d["time"]) < 60)')" 1 "from/until: a recent interval"
is "$(go_top1 "$(up_pprof g 3)" -sample_index=inuse_space)" agent_grow_block "the received pprof: agent_grow_block on top"
kill -TERM "$gp" 2>/dev/null
wait "$gp" 2>/dev/null

plan_done
