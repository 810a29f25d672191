#!/bin/sh
# pyro_upload.sh: `ying upload` sends dumps and pprof files once.
#
# A dump written by tests/programs/pprof_alloc (exact numbers at
# lg_prof_sample:0: 8 MiB in big_alloc) and its `ying pprof` file are
# uploaded to the stand-in: exit 0, one accepted push each with
# service_name and tags from the command line, big_alloc on top with 8 MiB
# in the received pprof; several files in one call are several uploads;
# --api ingest uses /ingest.  A server answering 500 to every attempt, an
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

# --- failures ------------------------------------------------------------------
fault s 'code=500&count=50'
ying upload --url "$s_URL" --service ci "$T/a.heap" >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]
ok $? "a server answering 500: non-zero exit ($rc), not a usage error"
grep -q "$s_URL" "$T/err" && grep -q 500 "$T/err"
ok $? "... the message names the URL and the status" || diag "$T/err"
is "$(uploads s)" 6 "... nothing accepted"
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
is "$(uploads s)" 6 "... nothing sent"

ying upload --service ci "$T/a.heap" >"$T/out" 2>"$T/err"
is "$?" 2 "no --url: usage error (exit 2)"

plan_done
