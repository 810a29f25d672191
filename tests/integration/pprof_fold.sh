#!/bin/sh
# pprof_fold.sh: `ying pprof --max-samples N --max-bytes SIZE` (a profile
# folded by ying_profile_fold to a receiver's limits) read by the real
# `go tool pprof`.
#
# A 20,000-stack dump of tests/programs/pprof_manystacks is folded to 1,000
# samples and 256 KiB: go tool pprof reads it without a warning, counts at
# most 1,000 samples, finds the `[ying: folded]` frame and the same totals
# as the unfolded profile; the uncompressed output is within the bytes.
# The accum fixture folded to 3 samples keeps all four totals.  A profile
# that fits is written exactly as without the options; --no-size-label
# drops the "bytes" label; bad limits are usage errors and a limit nothing
# meets is an error with no output file.
. "$YING_SRCDIR/tests/integration/top_lib.sh"
need go

tool_homes "$T"

gopprof() {
	timeout 120 go tool pprof "$@" 2>"$T/gopprof.err"
}
# go_total FILE ARGS...: the total of `go tool pprof -top -unit=B`.
go_total() {
	_f=$1
	shift
	gopprof -top -unit=B "$@" "$_f" | sed -n 's/.* of \([0-9.]*\)B* total.*/\1/p' | head -n 1
}
# raw_samples FILE: the samples go tool pprof -raw lists.
raw_samples() {
	awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 }
	    s && /^ *-?[0-9]+( +-?[0-9]+)*: / { n++ } END { print n + 0 }' "$1"
}

DM="$T/many.heap"
MALLOC_CONF=prof:true,lg_prof_sample:0 timeout 120 "$PROGS/pprof_manystacks" 20000 "$DM" >"$T/prog.out" 2>&1
ok $? "pprof_manystacks dumps 20,000 stacks" || diag "$T/prog.out"

ying pprof "$DM" -o "$T/all.pb.gz" 2>"$T/err"
ok $? "ying pprof, unfolded" || diag "$T/err"
gopprof -raw "$T/all.pb.gz" >"$T/all.raw"
n_all=$(raw_samples "$T/all.raw")
ok $([ "$n_all" -ge 20000 ]; echo $?) "unfolded: $n_all samples"

ying pprof --max-samples 1000 --max-bytes 256k "$DM" -o "$T/f.pb.gz" 2>"$T/err"
ok $? "ying pprof --max-samples 1000 --max-bytes 256k" || diag "$T/err"
grep -q '^ying pprof: folded [0-9]* of [0-9]* stacks at depth [0-9]* .*: [0-9]* samples, [0-9]* bytes' "$T/err"
ok $? "it says what it folded" || diag "$T/err"
gopprof -raw "$T/f.pb.gz" >"$T/f.raw"
ok $? "go tool pprof -raw reads the folded profile" || diag "$T/gopprof.err"
[ ! -s "$T/gopprof.err" ]
ok $? "... without a warning" || diag "$T/gopprof.err"
n=$(raw_samples "$T/f.raw")
ok $([ "$n" -gt 0 ] && [ "$n" -le 1000 ]; echo $?) "go tool pprof counts $n samples (<= 1000)"
grep -q '\[ying: folded\]' "$T/f.raw"
ok $? "the folded stacks' frame [ying: folded] is there" || diag "$T/f.raw"
for idx in inuse_space inuse_objects; do
	a=$(go_total "$T/all.pb.gz" -sample_index=$idx)
	b=$(go_total "$T/f.pb.gz" -sample_index=$idx)
	ok $([ -n "$a" ] && [ "$a" = "$b" ]; echo $?) "$idx: folded total $b = unfolded $a"
done
ying pprof --no-gzip --max-samples 1000 --max-bytes 256k "$DM" -o "$T/f.pb" 2>"$T/err"
ok $? "--no-gzip, folded" || diag "$T/err"
sz=$(wc -c <"$T/f.pb")
ok $([ "$sz" -le 262144 ]; echo $?) "the uncompressed folded profile is $sz bytes (<= 256 KiB)"
grep -q "samples, $sz bytes uncompressed" "$T/err"
ok $? "... the size the message gives" || diag "$T/err"

# --- all four sample indices --------------------------------------------------
A="$YING_SRCDIR/tests/data/heap_accum.heap"
ying pprof "$A" -o "$T/a.pb.gz" 2>/dev/null
ying pprof --max-samples 3 "$A" -o "$T/a3.pb.gz" 2>"$T/err"
ok $? "the accum fixture, --max-samples 3" || diag "$T/err"
gopprof -raw "$T/a3.pb.gz" >"$T/a3.raw"
is "$(raw_samples "$T/a3.raw")" 3 "3 samples"
for idx in alloc_space alloc_objects inuse_space inuse_objects; do
	a=$(go_total "$T/a.pb.gz" -sample_index=$idx)
	b=$(go_total "$T/a3.pb.gz" -sample_index=$idx)
	ok $([ -n "$a" ] && [ "$a" = "$b" ]; echo $?) "$idx: folded total $b = unfolded $a"
done

# --- a profile that fits; --no-size-label ----------------------------------------
ying pprof --no-gzip "$A" -o "$T/plain.pb" 2>/dev/null
ying pprof --no-gzip --max-samples 100 --max-bytes 1M "$A" -o "$T/fits.pb" 2>"$T/err"
ok $? "limits it fits: exit 0" || diag "$T/err"
cmp -s "$T/plain.pb" "$T/fits.pb"
ok $? "... the very bytes of the unfolded profile"
grep -q 'folded' "$T/err"
ok $((! $?)) "... and no word of folding" || diag "$T/err"
grep -q 'bytes:\[' "$T/a3.raw"
ok $? "samples carry the 'bytes' label by default" || diag "$T/a3.raw"
ying pprof --no-size-label --max-samples 3 "$A" -o "$T/nl.pb.gz" 2>/dev/null
gopprof -raw "$T/nl.pb.gz" >"$T/nl.raw"
grep -q 'bytes:\[' "$T/nl.raw"
ok $((! $?)) "--no-size-label: no 'bytes' label" || diag "$T/nl.raw"
is "$(raw_samples "$T/nl.raw")" 3 "--no-size-label: still 3 samples"

# --- errors -------------------------------------------------------------------------
ying pprof --max-samples 0 "$A" -o "$T/x.pb.gz" 2>"$T/err"
is $? 2 "--max-samples 0: usage error"
grep -q -- '--max-samples 0' "$T/err"
ok $? "... naming the option" || diag "$T/err"
ying pprof --max-bytes 2x "$A" -o "$T/x.pb.gz" 2>"$T/err"
is $? 2 "--max-bytes 2x: usage error"
ying pprof --max-bytes 10 "$A" -o "$T/x.pb.gz" 2>"$T/err"
is $? 1 "--max-bytes 10: nothing that small, exit 1"
grep -q 'still has .* bytes' "$T/err"
ok $? "... saying how small it gets" || diag "$T/err"
[ ! -e "$T/x.pb.gz" ]
ok $? "... and no output file"
ying pprof --help | grep -q -- '--max-samples'
ok $? "--help lists --max-samples"

plan_done
