#!/bin/sh
# pyro_standin.sh: the Pyroscope stand-in (tests/pyro/standin.py) checks what
# Pyroscope checks, so the uploader tests (pyro_*.sh) can trust it.
#
# Requests are made here with curl, the bodies with Debian's `protoc
# --encode` and a real pprof from `ying pprof` of a dump that
# tests/programs/pprof_alloc writes: a valid Connect push (binary, gzip
# Content-Encoding, JSON) is accepted and recorded with its labels, ID and
# profile types (memory:inuse_space:bytes:space:bytes); a wrong route,
# method, Content-Type, Connect-Protocol-Version, a field number that
# push.proto does not have, a missing service_name, an invalid __name__,
# a duplicate or badly named label, a malformed pprof, a profile older
# than Pyroscope's ingestion window are refused with
# Pyroscope's status; /ingest parses name{tags}, from/until, spyName, both
# the raw (format=pprof) and the multipart form, and refuses a multipart
# body sent with format=pprof (Pyroscope's switch order); auth (basic,
# bearer, X-Scope-OrgID) gives 401 without the right header; faults (429,
# 500, slow, reset) happen as commanded, and a restart on the same port
# continues the numbering.
. "$YING_SRCDIR/tests/integration/pyro_lib.sh"

P="$PROGS/pprof_alloc"
MALLOC_CONF=prof:true,lg_prof_sample:0 timeout 60 "$P" "$T/a.heap" >"$T/prog.out" 2>&1
ok $? "pprof_alloc writes a dump" || diag "$T/prog.out"
ying pprof "$T/a.heap" -o "$T/a.pb.gz" 2>"$T/err"
ok $? "ying pprof makes a pprof" || diag "$T/err"

standin_start s
U=$s_URL

push_body "$T/a.pb.gz" "__name__=memory,service_name=svc,env=test" id-1 >"$T/req.bin"
ok $? "protoc --encode makes a PushRequest"
is "$(post_push "$U" "$T/req.bin")" 200 "a binary push is accepted (200)" || diag "$T/resp" "$s_DIR/requests.log"
[ ! -s "$T/resp" ]
ok $? "... with an empty proto body"
is "$(uploads s)" 1 "... and recorded"
is "$(up s 1 'lab["service_name"] + " " + lab["env"] + " " + d["id"] + " " + d["api"]')" "svc test id-1 push" \
    "... with its labels, ID and API"
is "$(up s 1 '"memory:inuse_space:bytes:space:bytes" in d["profile_types"]')" 1 \
    "... profile type memory:inuse_space:bytes:space:bytes" || diag "$s_DIR/upload-0001.json"
is "$(go_top1 "$(up_pprof s 1)")" "big_alloc" "... go tool pprof reads the saved pprof: big_alloc on top"

gzip -c "$T/req.bin" >"$T/req.gz"
is "$(post_push "$U" "$T/req.gz" -H 'Content-Encoding: gzip' -H 'Connect-Protocol-Version: 1')" 200 \
    "Content-Encoding: gzip and Connect-Protocol-Version: 1 are accepted" || diag "$T/resp"
is "$(post_push "$U" "$T/req.bin" -H 'Connect-Protocol-Version: 2')" 400 "Connect-Protocol-Version: 2 is 400"

b64=$(base64 -w0 "$T/a.pb.gz")
printf '{"series":[{"labels":[{"name":"__name__","value":"memory"},{"name":"service_name","value":"js"}],"samples":[{"ID":"j1","rawProfile":"%s"}]}]}' \
    "$b64" >"$T/req.json"
code=$(curl -s -o "$T/resp" -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary @"$T/req.json" "$U/push.v1.PusherService/Push")
is "$code $(cat "$T/resp")" "200 {}" "a JSON push is accepted, answered {}"

code=$(curl -s -o "$T/resp" -w '%{http_code}' -H 'Content-Type: application/octet-stream' \
    --data-binary @"$T/req.bin" "$U/push.v1.PusherService/Push")
is "$code" 415 "another Content-Type is 415"
is "$(curl -s -o /dev/null -w '%{http_code}' "$U/push.v1.PusherService/Push")" 405 "GET on the push route is 405"
is "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$U/push.v1.PusherService/Pushh")" 404 "an unknown route is 404"

n0=$(uploads s)
refused() {  # refused WHY LABELS [ID]: a push that must be 400
	push_body "$T/a.pb.gz" "$2" "${3-x}" >"$T/bad.bin"
	is "$(post_push "$U" "$T/bad.bin")" 400 "refused (400): $1" || diag "$T/resp"
}
refused "no service_name" "__name__=memory,env=test"
refused "empty service_name" "__name__=memory,service_name="
refused "no __name__" "service_name=svc"
refused "invalid __name__" "__name__=mem-ory,service_name=svc"
refused "duplicate label" "__name__=memory,service_name=svc,env=a,env=b"
refused "invalid label name" "__name__=memory,service_name=svc,bad-name=x"
refused "reserved __ label" "__name__=memory,service_name=svc,__secret__=x"
refused "empty ID" "__name__=memory,service_name=svc" ""
grep -q 'service name is not provided' "$s_DIR/requests.log"
ok $? "... the reason is logged (service name is not provided)"

# A field number push.proto does not have (the sender's .proto is wrong):
# RawSample.ID sent as field 3.
sed 's/string ID = 2;/string ID = 3;/' "$PYRO_PROTO/push.proto" >"$T/push.proto"
cp "$PYRO_PROTO/types.proto" "$T/"
python3 -c 'import sys; b = open(sys.argv[1], "rb").read()
print("series { labels { name: \"__name__\" value: \"memory\" } labels { name: \"service_name\" value: \"s\" } samples { raw_profile: \"%s\" ID: \"x\" } }" % "".join("\\%03o" % c for c in b))' \
    "$T/a.pb.gz" | protoc -I "$T" --encode=push.v1.PushRequest push.proto >"$T/wrong.bin"
is "$(post_push "$U" "$T/wrong.bin")" 400 "a wrong field number is 400" || diag "$T/resp"
grep -q 'unknown field number 3' "$T/resp"
ok $? "... naming the unknown field" || diag "$T/resp"

# A malformed pprof: string_table[0] not empty.
printf 'string_table: "x"\nsample_type { type: 0 unit: 0 }\n' |
    protoc -I "$PYRO_PROTO" --encode=perftools.profiles.Profile profile.proto >"$T/bad.pb"
push_body "$T/bad.pb" "__name__=memory,service_name=svc" y >"$T/bad.bin"
is "$(post_push "$U" "$T/bad.bin")" 400 "a pprof whose string 0 is not empty is 400"
grep -q 'string 0 must be empty' "$T/resp"
ok $? "... saying so" || diag "$T/resp"
# A profile two hours old: outside Pyroscope's ingestion window.
gzip -dc "$T/a.pb.gz" | protoc -I "$PYRO_PROTO" --decode=perftools.profiles.Profile profile.proto |
    sed "s/^time_nanos: .*/time_nanos: $(( ($(date +%s) - 7200) * 1000000000 ))/" |
    protoc -I "$PYRO_PROTO" --encode=perftools.profiles.Profile profile.proto >"$T/old.pb"
push_body "$T/old.pb" "__name__=memory,service_name=svc" y >"$T/bad.bin"
is "$(post_push "$U" "$T/bad.bin")" 400 "a profile taken 2 h ago is 400 (ingestion window)"
grep -q 'outside the ingestion window' "$T/resp"
ok $? "... saying so" || diag "$T/resp"
printf 'not a profile at all' >"$T/junk"
push_body "$T/junk" "__name__=memory,service_name=svc" y >"$T/bad.bin"
is "$(post_push "$U" "$T/bad.bin")" 400 "bytes that are no pprof are 400"
is "$(uploads s)" "$n0" "nothing refused was recorded"

# --- /ingest -----------------------------------------------------------------
q='name=app.svc%7Benv%3Dtest%2Cregion%3Deu%7D&from=1700000000&until=1700000015000000000&spyName=ying'
code=$(curl -s -o "$T/resp" -w '%{http_code}' -F "profile=@$T/a.pb.gz" "$U/ingest?$q")
is "$code" 200 "/ingest multipart with the pprof in 'profile' is accepted" || diag "$T/resp"
n=$(uploads s)
is "$(up s "$n" 'lab["__name__"] + " " + lab["service_name"] + " " + lab["env"] + " " + lab["region"] + " " + lab["pyroscope_spy"] + " " + lab["__delta__"]')" \
    "memory app.svc test eu ying false" "... labels from name{tags}, spyName, __delta__=false"
is "$(up s "$n" '"%d %d" % (d["from"], d["until"])')" "1700000000 1700000015" \
    "... from in seconds, until in nanoseconds (read by digit count)"
code=$(curl -s -o "$T/resp" -w '%{http_code}' --data-binary @"$T/a.pb.gz" "$U/ingest?$q&format=pprof")
is "$code" 200 "/ingest?format=pprof with a raw body is accepted" || diag "$T/resp"
code=$(curl -s -o "$T/resp" -w '%{http_code}' -F "profile=@$T/a.pb.gz" "$U/ingest?$q&format=pprof")
is "$code" 400 "multipart sent with format=pprof is 400 (Pyroscope reads it as a raw pprof)"
code=$(curl -s -o "$T/resp" -w '%{http_code}' -F "profile=@$T/a.pb.gz" "$U/ingest?name=bad%20name&from=1")
is "$code" 400 "an invalid application name is 400"
code=$(curl -s -o "$T/resp" -w '%{http_code}' -F "profile=@$T/a.pb.gz" -F "prev_profile=@$T/a.pb.gz" "$U/ingest?$q")
is "$code" 400 "a prev_profile part is 400 (unsupported client)"

# --- faults ------------------------------------------------------------------
fault s 'code=429&count=2'
c1=$(post_push "$U" "$T/req.bin")
c2=$(post_push "$U" "$T/req.bin")
c3=$(post_push "$U" "$T/req.bin")
is "$c1 $c2 $c3" "429 429 200" "fault code=429 count=2: two 429s, then accepted"
fault s 'code=500'
is "$(post_push "$U" "$T/req.bin")" 500 "fault code=500"
fault s 'slow=2'
t0=$(date +%s.%N)
c=$(post_push "$U" "$T/req.bin")
dt=$(python3 -c "import sys; print(int(float(sys.argv[1]) - float(sys.argv[2]) >= 1.9))" "$(date +%s.%N)" "$t0")
is "$c $dt" "200 1" "fault slow=2: accepted after 2 s"
fault s 'reset=1'
curl -s -o /dev/null -H 'Content-Type: application/proto' --data-binary @"$T/req.bin" \
    "$U/push.v1.PusherService/Push"
rc=$?
[ "$rc" = 56 ] || [ "$rc" = 52 ]
ok $? "fault reset=1: the connection is reset (curl exit $rc)"

# --- down, then back on the same port ---------------------------------------
n=$(uploads s)
standin_stop s
is "$(post_push "$U" "$T/req.bin")" 000 "stopped: the port is closed"
standin_restart s
is "$s_URL" "$U" "restarted on the same port"
is "$(post_push "$U" "$T/req.bin")" 200 "back: accepted"
is "$(uploads s)" $((n + 1)) "... numbering continues in the same directory"

# --- auth --------------------------------------------------------------------
(umask 077; printf 'pw-secret\n' >"$T/pw"; printf 'tok-secret\n' >"$T/tok")
standin_start b --basic-user alice --basic-password-file "$T/pw"
is "$(post_push "$b_URL" "$T/req.bin")" 401 "basic required: none is 401"
is "$(post_push "$b_URL" "$T/req.bin" -u alice:wrong)" 401 "basic required: a wrong password is 401"
is "$(post_push "$b_URL" "$T/req.bin" -u alice:pw-secret)" 200 "basic required: the right one is 200"
is "$(up b 1 'd["headers"]["Authorization-Scheme"]')" Basic "... the scheme is recorded, not the secret"
grep -rq 'pw-secret' "$b_DIR"
ok $((! $?)) "... and the password is nowhere in the records"
standin_start k --bearer-file "$T/tok"
is "$(post_push "$k_URL" "$T/req.bin")" 401 "bearer required: none is 401"
is "$(post_push "$k_URL" "$T/req.bin" -H 'Authorization: Bearer tok-secret')" 200 "bearer required: the token is 200"
standin_start o --tenant team-a
is "$(post_push "$o_URL" "$T/req.bin")" 401 "X-Scope-OrgID required: none is 401"
is "$(post_push "$o_URL" "$T/req.bin" -H 'X-Scope-OrgID: team-b')" 401 "... another tenant is 401"
is "$(post_push "$o_URL" "$T/req.bin" -H 'X-Scope-OrgID: team-a')" 200 "... the right tenant is 200"
code=$(curl -s -o "$T/resp" -w '%{http_code}' -F "profile=@$T/a.pb.gz" "$o_URL/ingest?$q")
is "$code" 401 "/ingest also wants the tenant"

plan_done
