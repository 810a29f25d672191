#!/bin/sh
# http_tools.sh: the real peers against the embedded server.  `go tool
# pprof -top http://HOST/debug/pprof/heap` and `jeprof --text
# http://HOST/pprof/heap` must show the program's functions and none of
# jemalloc's; `jeprof --raw` must give a file jeprof reads without the
# binary; `go tool pprof -seconds 2` must show only what grew meanwhile.
. "$YING_SRCDIR/tests/integration/http_lib.sh"
need curl go jeprof

# Tools write caches and downloads under HOME; keep them in the test dir.
tool_homes "$T_TMP"
GOFLAGS=-mod=mod
export GOFLAGS

# One sample per 16 KiB: the checks below compare functions' sizes (alpha's
# 16 MiB must outrank beta's 8 MiB), which at the default 512 KiB rate rest
# on ~25 and ~16 samples and swap about once in fifty runs.
start_server S prof:true,lg_prof_sample:14
B=$S_URL

# ---- go tool pprof -----------------------------------------------------------
timeout 60 go tool pprof -top "$B/debug/pprof/heap" > "$T_TMP/go.txt" 2> "$T_TMP/go.err"
ok $? "go tool pprof -top $B/debug/pprof/heap runs"
check "go pprof: sample type inuse_space" grep -q '^Type: inuse_space' "$T_TMP/go.txt"
check "go pprof: http_alloc_alpha is a flat row" grep -Eq '^ *[0-9.]+[kMG]B .* http_alloc_alpha$' "$T_TMP/go.txt"
check "go pprof: http_alloc_beta_leaf" grep -q 'http_alloc_beta_leaf$' "$T_TMP/go.txt"
check "go pprof: http_worker_alloc" grep -q 'http_worker_alloc$' "$T_TMP/go.txt"
check "go pprof: main" grep -q ' main$' "$T_TMP/go.txt"
check "go pprof: no jemalloc frames" sh -c "! grep -Eq 'prof_backtrace|je_|malloc_default|libjemalloc' '$T_TMP/go.txt'"
check "go pprof: no symbolization warnings" sh -c "! grep -qi 'symboliz' '$T_TMP/go.err'"
[ -s "$T_TMP/go.txt" ] || diag "$T_TMP/go.err"
# Biggest flat row is the 16 MiB of http_alloc_alpha.
top=$(awk '/flat%/{getline; print $NF; exit}' "$T_TMP/go.txt")
check "go pprof: top row is http_alloc_alpha (got '$top')" test "$top" = http_alloc_alpha

timeout 60 go tool pprof -sample_index=inuse_objects -top "$B/debug/pprof/heap" > "$T_TMP/go2.txt" 2>&1
ok $? "go tool pprof -sample_index=inuse_objects"
check "go pprof objects: http_alloc_beta_leaf" grep -q 'http_alloc_beta_leaf$' "$T_TMP/go2.txt"

# ---- jeprof's remote mode ------------------------------------------------------
timeout 120 jeprof --text "$B/pprof/heap" > "$T_TMP/je.txt" 2> "$T_TMP/je.err"
ok $? "jeprof --text $B/pprof/heap runs"
[ -s "$T_TMP/je.txt" ] || diag "$T_TMP/je.err"
check "jeprof: Total line" grep -q '^Total: [0-9.]* MB' "$T_TMP/je.txt"
jtop=$(awk 'NR==2{print $6}' "$T_TMP/je.txt")
check "jeprof: top row is http_alloc_alpha (got '$jtop')" test "$jtop" = http_alloc_alpha
check "jeprof: http_alloc_beta_leaf" grep -q ' http_alloc_beta_leaf$' "$T_TMP/je.txt"
check "jeprof: http_worker_alloc" grep -q ' http_worker_alloc$' "$T_TMP/je.txt"
check "jeprof: no jemalloc frames, no bare addresses at the top" \
    sh -c "! grep -Eq 'prof_backtrace|je_|malloc_default| malloc\$' '$T_TMP/je.txt' && ! awk 'NR==2' '$T_TMP/je.txt' | grep -q ' 0x'"
# jeprof and ying agree on the total (same dump math, two dumps a moment apart)
jtotal=$(awk '/^Total:/{print $2; exit}' "$T_TMP/je.txt")
req "$B/debug/heap?format=json"
ytotal=$(perl -MJSON::PP -e 'local $/; printf "%.1f", decode_json(<STDIN>)->{total}/1048576' < "$T_TMP/b")
check "jeprof total $jtotal MB = ying total $ytotal MB" test "$jtotal" = "$ytotal"

timeout 120 jeprof --raw "$B/pprof/heap" > "$T_TMP/raw.txt" 2> "$T_TMP/raw.err"
ok $? "jeprof --raw $B/pprof/heap"
check "raw file carries our symbols" grep -q 'http_alloc_alpha' "$T_TMP/raw.txt"
timeout 120 jeprof --text "$T_TMP/raw.txt" > "$T_TMP/raw2.txt" 2>/dev/null
check "jeprof reads the raw file without the binary" grep -q ' http_alloc_alpha$' "$T_TMP/raw2.txt"

# ---- growth over N seconds (two dumps, NOW minus BASE) ----------------------------
timeout 60 go tool pprof -seconds 3 -top "$B/debug/pprof/heap" > "$T_TMP/grow.txt" 2> "$T_TMP/grow.err" &
gp=$!
sleep 1
kill -USR1 "$S_PID"
wait "$gp"
ok $? "go tool pprof -seconds 3 (growth) runs"
[ -s "$T_TMP/grow.txt" ] || diag "$T_TMP/grow.err"
check "growth shows http_grow_on_signal" grep -Eq '^ *[0-9.]+MB .* http_grow_on_signal$' "$T_TMP/grow.txt"
check "growth leaves out what did not change" sh -c "! grep -q 'http_alloc_alpha' '$T_TMP/grow.txt'"

# A 5th concurrent growth request is refused at once (4 in flight).
gpids=""
for i in 1 2 3 4; do
	curl -s --max-time 30 -o "$T_TMP/g$i" -w '%{http_code}\n' "$B/debug/pprof/heap?seconds=3" > "$T_TMP/gc$i" &
	gpids="$gpids $!"
done
sleep 1
req "$B/debug/pprof/heap?seconds=3"
expect_code 503 "5th concurrent ?seconds= request is 503"
check "it carries Retry-After" test -n "$(header Retry-After)"
req "$B/debug/prof"
expect_code 200 "other requests are served while growth requests wait"
for p in $gpids; do wait "$p"; done
check "the 4 growth requests completed with 200" test "$(cat "$T_TMP"/gc* | sort -u)" = 200

# Stopping the server wakes a waiting growth request.
curl -s --max-time 30 -o /dev/null -w '%{http_code}\n' "$B/debug/pprof/heap?seconds=300" > "$T_TMP/long" &
lp=$!
sleep 0.5
t0=$(date +%s)
kill -TERM "$S_PID"
wait "$S_PID"
ok $? "server stops cleanly with a 300-second request waiting"
wait "$lp"
t1=$(date +%s)
check "stop took under 5 s ($((t1 - t0)) s)" test $((t1 - t0)) -lt 5
check "the waiting request got 503 (server stopping)" grep -qx 503 "$T_TMP/long"

done_testing
