#!/bin/sh
# read_budget.sh: memory bombs against the decoders (issue 13, finding 5).
# Inputs built by tests/integration/membomb.py: a 194 KB .pb.gz of empty
# samples (~100 M of them), a 10 MB plain pprof of empty samples, a 46 KB
# .pb.gz of 12 M valid one-value samples, a .pb.gz whose one string inflates
# past the budget, a gzipped heap_v2 stream of identical 256-frame stacks.
# A 29 KB .pb.gz of one sample with 30 M frames (issue 22: it cost 591 MB
# under YING_MAX_MEMORY=512M; now its frames are counted before they are
# expanded); a 2 KB .pb.gz whose one sample names a 1000-line inline chain
# 100 000 times (100 M frames once expanded: 1.57 GB and 55 s for `ying top`
# before).
# Each is refused with an error naming the file and the budget (or the
# invalid sample), under a 1 GiB address-space limit (prlimit --as), exit 1,
# with a bounded peak RSS (GNU time); YING_MAX_MEMORY lowers and raises the
# budget, a bad value is an error; real profiles (a real program's dump,
# its pprof conversion, the gzipped fixture) still load under the limit.
. "$YING_SRCDIR/tests/integration/top_lib.sh"
need prlimit /usr/bin/time

GEN="$YING_SRCDIR/tests/integration/membomb.py"
AS=$((1 << 30))
# An ASan build (--enable-sanitize) reserves terabytes of shadow address
# space, so it cannot run under an address-space limit, and its redzones,
# shadow and 256 MiB quarantine add to the peak RSS: there the limit is off
# and the RSS bounds get that much slack (the plain build holds the tight
# ones; the exit status and messages are the same in both).
SLACK=0
LIMIT="prlimit --as=$AS"
if [ "${YING_SANITIZE:-no}" = address ]; then
	SLACK=$((320 * 1024))
	LIMIT=
fi

# lim [ENV=V...] -- ARGS: ying ARGS under the 1 GiB address-space limit;
# status in RC, peak RSS (KiB) in RSS, stderr in $T/err.
lim() {
	envs=""
	while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
	shift
	env $envs timeout 120 /usr/bin/time -f '%M' -o "$T/time" \
	    $LIMIT "$YING" "$@" >"$T/out" 2>"$T/err"
	RC=$?
	RSS=$(tail -n 1 "$T/time")
}

for k in empty-gz empty-plain values-gz; do
	python3 "$GEN" "$k" "$T/$k.pb.gz" || echo "membomb.py $k failed"
done
python3 "$GEN" values-gz "$T/values-small.pb.gz" 0.05
python3 "$GEN" string-gz "$T/string.pb.gz" 0.1
python3 "$GEN" heap-gz "$T/stream.heap.gz" 0.5
python3 "$GEN" frames-gz "$T/frames.pb.gz"
python3 "$GEN" frames-gz "$T/frames-small.pb.gz" 0.01
python3 "$GEN" inline-gz "$T/inline.pb.gz"
python3 "$GEN" inline-gz "$T/inline-small.pb.gz" 0.01

# ---- bombs under the default budget (1 GiB) --------------------------------
lim -- top "$T/empty-gz.pb.gz"
is "$RC" 1 "194 KB .pb.gz of empty samples: exit 1 under a 1 GiB address space"
grep -q "^ying top: cannot read profile: $T/empty-gz.pb.gz: sample 0 has 0 values, but there are 1 sample types$" "$T/err"
ok $? "... refused before unpacking: the file and its first empty sample are named" || diag "$T/err"
[ "$RSS" -lt $((65536 + SLACK)) ]
ok $? "... refused while inflating, at the first empty sample: peak RSS under 64 MiB (was over 700 MiB) ($RSS KiB)"
ls -la "$T"/empty-gz.pb.gz | awk '{ exit !($5 < 250000) }'
ok $? "... and the bomb is under 250 KB"

lim -- top "$T/empty-plain.pb.gz"
is "$RC" 1 "10 MB plain pprof of empty samples: exit 1"
grep -q "$T/empty-plain.pb.gz: sample 0 has 0 values" "$T/err"
ok $? "... the empty sample is named" || diag "$T/err"
[ "$RSS" -lt $((102400 + SLACK)) ]
ok $? "... peak RSS under 100 MiB (was 598 MB) ($RSS KiB)"

lim -- top "$T/values-gz.pb.gz"
is "$RC" 1 "46 KB .pb.gz of 12 M valid samples: exit 1"
grep -q "^ying top: cannot read profile: $T/values-gz.pb.gz: the decoded profile would need more than 1.00 GiB (the decode budget; raise it with YING_MAX_MEMORY=SIZE)$" "$T/err"
ok $? "... the file and the 1 GiB budget are named" || diag "$T/err"
[ "$RSS" -lt $((204800 + SLACK)) ]
ok $? "... counted, not allocated: peak RSS under 200 MiB ($RSS KiB)"

# ---- YING_MAX_MEMORY -------------------------------------------------------
lim -- top "$T/values-small.pb.gz"
is "$RC" 0 "600 k valid samples load under the default budget"
lim YING_MAX_MEMORY=16M -- top "$T/values-small.pb.gz"
is "$RC" 1 "... but not with YING_MAX_MEMORY=16M"
grep -q "$T/values-small.pb.gz: the decoded profile would need more than 16.0 MiB (the decode budget" "$T/err"
ok $? "... which the error names" || diag "$T/err"

lim YING_MAX_MEMORY=64M -- top "$T/string.pb.gz"
is "$RC" 1 "a pprof string inflating to 60 MiB, YING_MAX_MEMORY=64M: exit 1"
grep -q "$T/string.pb.gz: the decompressed pprof input would need more than 64.0 MiB (the decode budget" "$T/err"
ok $? "... the input may take half the budget: refused once 1 MiB of the string has come" || diag "$T/err"
[ "$RSS" -lt $((32768 + SLACK)) ]
ok $? "... peak RSS under 32 MiB ($RSS KiB)"

lim YING_MAX_MEMORY=16M -- top "$T/stream.heap.gz"
is "$RC" 1 "a streamed heap_v2 of 40 000 256-frame stacks, YING_MAX_MEMORY=16M: exit 1"
grep -q "$T/stream.heap.gz:[0-9]*: the decoded profile would need more than 16.0 MiB (the decode budget; raise it with YING_MAX_MEMORY=SIZE)$" "$T/err"
ok $? "... the file, the line reached and the budget are named" || diag "$T/err"
[ "$RSS" -lt $((65536 + SLACK)) ]
ok $? "... stopped near the budget: peak RSS under 64 MiB ($RSS KiB)"
lim -- top "$T/stream.heap.gz"
is "$RC" 0 "... and it loads under the default budget"
grep -q '^Total: .* in 40000 stacks' "$T/out"
ok $? "... all 40 000 stacks" || diag "$T/out"

lim YING_MAX_MEMORY=512M -- top "$T/frames.pb.gz"
is "$RC" 1 "one sample of 30 M frames (a 29 KB .pb.gz), YING_MAX_MEMORY=512M: exit 1"
grep -qx "ying top: cannot read profile: $T/frames.pb.gz: sample 0's 30000000 frames would need more than 512.0 MiB (the decode budget; raise it with YING_MAX_MEMORY=SIZE)" "$T/err"
ok $? "... the file, the sample, its frames and the budget are named" || diag "$T/err"
[ "$RSS" -lt $((320 * 1024 + SLACK)) ]
ok $? "... counted before they are expanded: peak RSS under 320 MiB ($RSS KiB; was 591 MB)"
ls -la "$T"/frames.pb.gz | awk '{ exit !($5 < 30000) }'
ok $? "... and the bomb is under 30 KB"
lim -- top "$T/frames-small.pb.gz"
is "$RC" 0 "... one sample of 300 k frames loads under the default budget"
grep -q '^Total: 4.00 KiB (4096 bytes) inuse_space in 1 stacks' "$T/out"
ok $? "... with its 4 KiB" || diag "$T/out"

lim -- top "$T/inline.pb.gz"
is "$RC" 1 "one sample naming a 1000-line inline chain 100 000 times (2 KB .pb.gz): exit 1"
grep -qx "ying top: cannot read profile: $T/inline.pb.gz: sample 0's 100000000 frames would need more than 1.00 GiB (the decode budget; raise it with YING_MAX_MEMORY=SIZE)" "$T/err"
ok $? "... its 100 M expanded frames and the budget are named" || diag "$T/err"
[ "$RSS" -lt $((64 * 1024 + SLACK)) ]
ok $? "... refused before expanding: peak RSS under 64 MiB ($RSS KiB; was 1.57 GB)"
lim -- top "$T/inline-small.pb.gz"
is "$RC" 0 "... 1 000 times (1 M frames) loads"
grep -q '^ *4.00 KiB 100.0% 100.0%     4.00 KiB 100.0%  f$' "$T/out"
ok $? "... with its function" || diag "$T/out"

lim YING_MAX_MEMORY=lots -- top "$YING_SRCDIR/tests/data/heap1.heap"
is "$RC" 1 "YING_MAX_MEMORY=lots: exit 1"
grep -q "YING_MAX_MEMORY=lots: not a memory budget (a size such as 512M or 4G)" "$T/err"
ok $? "... it says why" || diag "$T/err"

# ---- real profiles still load ----------------------------------------------
run_prog prof:true,lg_prof_sample:0,prof_accum:true "$PROGS/top_basic" "$T/real.heap"
ok $? "top_basic writes a real dump"
ying pprof "$T/real.heap" -o "$T/real.pb.gz"
ok $? "... converted to pprof"
for f in "$T/real.heap" "$T/real.pb.gz" "$YING_SRCDIR/tests/data/heap1.heap.gz"; do
	ying top "$f" >"$T/want" 2>/dev/null
	lim -- top "$f"
	is "$RC" 0 "$(basename "$f") loads under the 1 GiB limit"
	cmp -s "$T/out" "$T/want"
	ok $? "... with the same output"
done
plan_done
