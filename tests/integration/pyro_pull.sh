#!/bin/sh
# pyro_pull.sh: pull mode, as Grafana Alloy's pyroscope.scrape collects
# memory: a plain GET of /debug/pprof/allocs (its default profile.memory
# path; memory is not a delta profile, so no ?seconds=) and of
# /debug/pprof/heap from a `ying run --http` process, the body passed on to
# the Pyroscope stand-in as Alloy forwards it (push API, labels __name__,
# service_name, job, instance) and through /ingest (format=pprof).
#
# tests/programs/agent_grow keeps 40 MiB allocated in agent_grow_block()
# (4 steps of 10 MiB).  Each body must pass every stand-in check (protoc,
# pprof validity, go tool pprof), give the profile type
# memory:inuse_space:bytes:space:bytes, have agent_grow_block on top and
# hold 40 MiB for it (within 20 %: sampled at 2^14 bytes).
. "$YING_SRCDIR/tests/integration/pyro_lib.sh"

standin_start s
port=$(free_port)
ying run --http "127.0.0.1:$port" --sample 14 -- "$PROGS/agent_grow" 4 10 100 60000 \
    >"$T/out" 2>"$T/err" &
bg_pids="$bg_pids $!"
wait_for 30 grep -q '^step 4:' "$T/out"
ok $? "agent_grow under ying run --http reached 40 MiB" || diag "$T/out" "$T/err"
B="http://127.0.0.1:$port"

n=0
for path in /debug/pprof/allocs /debug/pprof/heap; do
	code=$(curl -s --max-time 30 -o "$T/body" -w '%{http_code}' "$B$path")
	is "$code" 200 "GET $path (what pyroscope.scrape sends) is 200"
	is "$(od -An -tx1 -N2 "$T/body" | tr -d ' ')" "1f8b" "... a gzipped pprof"
	push_body "$T/body" "__name__=memory,service_name=agent_grow,job=pyroscope.scrape,instance=127.0.0.1:$port" \
	    "pull-$path" >"$T/req.bin"
	is "$(post_push "$s_URL" "$T/req.bin")" 200 "... accepted by the stand-in through the push API" ||
	    diag "$T/resp"
	code=$(curl -s -o "$T/resp" -w '%{http_code}' --data-binary @"$T/body" \
	    "$s_URL/ingest?name=agent_grow%7Bjob%3Dscrape%7D&spyName=ying&format=pprof")
	is "$code" 200 "... and through /ingest (format=pprof)" || diag "$T/resp"
	for i in $((n + 1)) $((n + 2)); do
		is "$(up s "$i" '"memory:inuse_space:bytes:space:bytes" in d["profile_types"] and "memory:inuse_objects:count:space:bytes" in d["profile_types"]')" 1 \
		    "... upload $i: profile types memory:inuse_space:bytes:space:bytes and memory:inuse_objects:count:space:bytes" ||
		    diag "$(printf '%s/upload-%04d.json' "$s_DIR" "$i")"
		is "$(go_top1 "$(up_pprof s "$i")" -sample_index=inuse_space)" agent_grow_block \
		    "... upload $i: agent_grow_block is the top function" || diag "$T/gopprof.err"
		v=$(go_flat "$(up_pprof s "$i")" agent_grow_block)
		python3 -c 'import sys; v = float(sys.argv[1] or 0); sys.exit(0 if abs(v - 40 * 2**20) <= 0.2 * 40 * 2**20 else 1)' "$v"
		ok $? "... upload $i: agent_grow_block holds 40 MiB (got $v B)"
	done
	n=$((n + 2))
done
is "$(up s 1 'lab["service_name"] + " " + lab["job"]')" "agent_grow pyroscope.scrape" "the scrape labels are kept"

plan_done
