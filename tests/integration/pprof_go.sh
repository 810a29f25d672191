#!/bin/sh
# pprof_go.sh: `ying pprof` output read by the real `go tool pprof`.
#
# tests/programs/pprof_alloc allocates known amounts in named functions
# (8 MiB in big_alloc, 1024000 B in small_alloc, 307200 B in inlined_alloc,
# 4096000 B allocated and freed in churn_alloc) under
# MALLOC_CONF=prof:true,lg_prof_sample:0, where every allocation is sampled
# and all numbers are exact.  go tool pprof must show the same totals as
# `ying top --json` for every sample index and the same top functions; an
# --unsymbolized profile must be symbolized by go tool pprof itself from the
# (moved) binary; ying must read its own pprof back.  Last, a 200,000-stack
# dump (tests/programs/pprof_manystacks) is converted within a time bound and
# still adds up in go tool pprof.
. "$YING_SRCDIR/tests/integration/top_lib.sh"
need go od script

# go tool pprof needs no network for local files, but wants a home and caches.
tool_homes "$T"

gopprof() {
	timeout 120 go tool pprof "$@" 2>"$T/gopprof.err"
}
# go_total FILE ARGS...: the byte/count total of `go tool pprof -top -unit=B`.
go_total() {
	_f=$1
	shift
	gopprof -top -unit=B "$@" "$_f" | sed -n 's/.* of \([0-9.]*\)B* total.*/\1/p' | head -n 1
}
# go_top K FILE ARGS...: the first K functions by flat value, sorted, one line.
go_top() {
	_k=$1 _f=$2
	shift 2
	gopprof -top -unit=B "$@" "$_f" |
	    awk -v k="$_k" 'f && n < k { $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); sub(/ \(inline\)$/, ""); print; n++ }
		/flat%/ { f = 1 }' | sort | tr '\n' ' ' | sed 's/ $//'
}
# go_cum FILE FUNC ARGS...: the cum value (bytes) of FUNC.
go_cum() {
	_f=$1 _fn=$2
	shift 2
	gopprof -top -unit=B "$@" "$_f" |
	    awk -v fn="$_fn" '{ name = $6; for (i = 7; i <= NF; i++) name = name " " $i;
		sub(/ \(inline\)$/, "", name) }
		name == fn { v = $4; sub(/B$/, "", v); print v; exit }'
}

P="$PROGS/pprof_alloc"
D="$T/plain.heap"
run_prog prof:true,lg_prof_sample:0 "$P" "$D"
ok $? "pprof_alloc dumps at lg_prof_sample:0" || diag "$T/prog.out"

# --- symbolized inuse profile -------------------------------------------------
ying pprof "$D" -o "$T/a.pb.gz" 2>"$T/err"
ok $? "ying pprof DUMP -o FILE exits 0" || diag "$T/err"
is "$(od -An -tx1 -N2 "$T/a.pb.gz" | tr -d ' ')" "1f8b" "output is gzipped"
ls "$T"/a.pb.gz.tmp* >/dev/null 2>&1
ok $((! $?)) "no temporary file left behind"

ying top --json "$D" >"$T/top.json" 2>"$T/err"
ok $? "ying top --json" || diag "$T/err"
yt=$(jq_py "$T/top.json" 'd["total"]')
gt=$(go_total "$T/a.pb.gz" -sample_index=inuse_space)
is "$gt" "$yt" "go tool pprof inuse_space total = ying top total ($yt)" || diag "$T/gopprof.err"
is "$yt" "$(jq_py "$T/top.json" '9801728 if d["total"] >= 8388608 + 1024000 + 307200 else -1')" \
    "ying top total covers the known allocations"
is "$(go_top 3 "$T/a.pb.gz" -sample_index=inuse_space)" "$(jq_py "$T/top.json" 'names(3)')" \
    "same top 3 functions as ying top"
is "$(go_top 3 "$T/a.pb.gz")" "big_alloc inlined_alloc small_alloc" \
    "default sample index is inuse_space; allocator frames trimmed"
is "$(go_cum "$T/a.pb.gz" big_alloc)" 8388608 "big_alloc: 8 MiB"
is "$(go_cum "$T/a.pb.gz" mid_alloc)" 307200 "mid_alloc (caller of inlined_alloc): 307200 B"
ying top --json -i inuse_objects "$D" >"$T/topo.json"
is "$(go_total "$T/a.pb.gz" -sample_index=inuse_objects)" "$(jq_py "$T/topo.json" 'd["total"]')" \
    "inuse_objects totals agree"
gopprof -raw "$T/a.pb.gz" >"$T/raw.txt"
grep -q '^inuse_objects/count inuse_space/bytes\[dflt\]$' "$T/raw.txt"
ok $? "without prof_accum: inuse_objects/count, inuse_space/bytes (default)" || diag "$T/raw.txt"
grep -q 'bytes:\[1048576 bytes\]' "$T/raw.txt"
ok $? "samples carry the average object size label" || diag "$T/raw.txt"
grep -q '^PeriodType: space bytes$' "$T/raw.txt" && grep -q '^Period: 1$' "$T/raw.txt"
ok $? "period type space/bytes, period 1"
bid=$(gopprof -top "$T/a.pb.gz" | sed -n 's/^Build ID: //p')
ok $([ -n "$bid" ] && readelf -n "$P" | grep -q "$bid"; echo $?) "mapping[0] carries the program's build ID ($bid)"
sed -n '/^Mappings/,$p' "$T/raw.txt" | sed -n 2p | grep -q "pprof_alloc .*\[FN\]\[FL\]\[LN\]\[IN\]"
ok $? "mapping[0] is the program, fully symbolized" || diag "$T/raw.txt"
[ ! -s "$T/gopprof.err" ]
ok $? "go tool pprof printed no warnings" || diag "$T/gopprof.err"

# ying reads its own pprof back
ying top --json "$T/a.pb.gz" >"$T/back.json" 2>"$T/err"
ok $? "ying top reads the pprof file" || diag "$T/err"
is "$(jq_py "$T/back.json" 'd["total"]')" "$yt" "round trip keeps the total"
is "$(jq_py "$T/back.json" 'names(3)')" "$(jq_py "$T/top.json" 'names(3)')" "round trip keeps the top functions"

# --- prof_accum: alloc_* --------------------------------------------------------
DA="$T/accum.heap"
run_prog prof:true,lg_prof_sample:0,prof_accum:true "$P" "$DA"
ok $? "pprof_alloc dumps with prof_accum" || diag "$T/prog.out"
ying pprof "$DA" -o "$T/acc.pb.gz" 2>"$T/err"
ok $? "ying pprof on the accum dump" || diag "$T/err"
gopprof -raw "$T/acc.pb.gz" >"$T/rawa.txt"
grep -q '^alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes\[dflt\]$' "$T/rawa.txt"
ok $? "with prof_accum: Go's four sample types, inuse_space default" || diag "$T/rawa.txt"
for idx in alloc_space alloc_objects inuse_space inuse_objects; do
	ying top --json -i "$idx" "$DA" >"$T/$idx.json"
	is "$(go_total "$T/acc.pb.gz" -sample_index=$idx)" "$(jq_py "$T/$idx.json" 'd["total"]')" \
	    "$idx: go tool pprof total = ying top total"
done
is "$(go_cum "$T/acc.pb.gz" churn_alloc -sample_index=alloc_space)" 4096000 \
    "churn_alloc allocated 4096000 B (alloc_space)"
is "$(go_top 2 "$T/acc.pb.gz" -sample_index=alloc_space)" "$(jq_py "$T/alloc_space.json" 'names(2)')" \
    "alloc_space: same top 2 functions as ying top"

# --- --unsymbolized: go tool pprof symbolizes from the binary -------------------
mkdir -p "$T/bin" "$T/moved"
cp "$P" "$T/bin/pprof_alloc"
DU="$T/unsym.heap"
run_prog prof:true,lg_prof_sample:0 "$T/bin/pprof_alloc" "$DU"
ok $? "a copy of pprof_alloc dumps" || diag "$T/prog.out"
ying pprof --unsymbolized "$DU" -o "$T/u.pb.gz" 2>"$T/err"
ok $? "ying pprof --unsymbolized" || diag "$T/err"
mv "$T/bin/pprof_alloc" "$T/moved/pprof_alloc"
gopprof -raw -symbolize=none "$T/u.pb.gz" >"$T/rawu.txt"
awk '/^Locations/ { f = 1; next } /^Mappings/ { f = 0 } f && NF > 3' "$T/rawu.txt" | grep -q .
ok $((! $?)) "unsymbolized profile has no function names" || diag "$T/rawu.txt"
is "$(go_total "$T/u.pb.gz" -sample_index=inuse_space)" "$yt" "unsymbolized: same total"
is "$(go_cum "$T/u.pb.gz" big_alloc "$T/moved/pprof_alloc")" 8388608 \
    "go tool pprof symbolizes big_alloc from the moved binary"
is "$(go_cum "$T/u.pb.gz" small_alloc "$T/moved/pprof_alloc")" 1024000 \
    "... and small_alloc"
ying pprof --unsymbolized --no-gzip "$DU" -o "$T/u.pb" 2>"$T/err"
ok $([ "$(od -An -tx1 -N1 "$T/u.pb" | tr -d ' ')" != 1f ]; echo $?) "--no-gzip writes plain protobuf"
is "$(go_total "$T/u.pb" -sample_index=inuse_space)" "$yt" "go tool pprof reads the plain protobuf"

# --- --keep-allocator-frames and --drop-frames -----------------------------------
ying pprof --keep-allocator-frames "$D" -o "$T/k.pb.gz" 2>"$T/err"
ok $? "ying pprof --keep-allocator-frames" || diag "$T/err"
is "$(go_cum "$T/k.pb.gz" big_alloc)" 8388608 "keep: big_alloc cum unchanged"
gopprof -top -unit=B "$T/k.pb.gz" | grep -q ' big_alloc$' &&
    [ "$(go_top 1 "$T/k.pb.gz")" != big_alloc ]
ok $? "keep: the leaf with the flat bytes is an allocator frame, not big_alloc"
ying pprof --drop-frames '^big_alloc$' "$D" -o "$T/d.pb.gz" 2>"$T/err"
ok $? "ying pprof --drop-frames" || diag "$T/err"
is "$(go_top 1 "$T/d.pb.gz")" main "--drop-frames big_alloc: its bytes land on main"

# --- command line errors ---------------------------------------------------------
ying pprof >/dev/null 2>"$T/err"
is $? 2 "no dump: usage error (exit 2)"
ying pprof "$T/nonexistent.heap" -o "$T/x.pb.gz" 2>"$T/err"
is $? 1 "missing dump: exit 1"
[ ! -e "$T/x.pb.gz" ]
ok $? "no output file for a failed run"
ying pprof "$D" -o "$T/nodir/x.pb.gz" 2>"$T/err"
is $? 1 "unwritable output: exit 1"
TERM=dumb timeout 60 script -qec "'$YING' pprof '$D'" /dev/null >"$T/tty.out" 2>&1
rc=$?
ok $([ $rc -eq 2 ] && grep -q 'terminal' "$T/tty.out"; echo $?) \
    "refuses to write binary to a terminal (exit 2)" || diag "$T/tty.out"
ying pprof "$D" >"$T/stdout.pb.gz" 2>"$T/err"
is "$(go_total "$T/stdout.pb.gz")" "$yt" "writes to a non-tty standard output by default"
ying pprof --help | grep -q -- '--unsymbolized'
ok $? "--help lists the options"

# --- a Go program's own heap profile as input ------------------------------------
# What `curl http://.../debug/pprof/heap` returns: runtime/pprof's gzipped
# profile.proto with Go's four sample types.
mkdir -p "$T/goheap"
cat >"$T/goheap/main.go" <<'GO'
package main

import (
	"os"
	"runtime"
	"runtime/pprof"
)

var keep [][]byte

//go:noinline
func bigAlloc() {
	for i := 0; i < 64; i++ {
		keep = append(keep, make([]byte, 1<<20))
	}
}

func main() {
	runtime.MemProfileRate = 1
	bigAlloc()
	runtime.GC()
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		panic(err)
	}
	f.Close()
}
GO
(cd "$T/goheap" && GO111MODULE=off timeout 120 go build -o goheap main.go) >"$T/gobuild.out" 2>&1 &&
	timeout 60 "$T/goheap/goheap" "$T/go.pb.gz" >>"$T/gobuild.out" 2>&1
ok $? "a Go program writes its heap profile" || diag "$T/gobuild.out"
ying top --json "$T/go.pb.gz" >"$T/go.json" 2>"$T/err"
ok $? "ying top reads Go's heap profile" || diag "$T/err"
is "$(jq_py "$T/go.json" 'd["total"]')" "$(go_total "$T/go.pb.gz" -sample_index=inuse_space)" \
    "Go profile: ying total = go tool pprof total"
# 64 MiB plus the growing slice of slices
is "$(jq_py "$T/go.json" '67108864 <= flat("main.bigAlloc") < 67108864 + 65536')" 1 \
    "Go profile: main.bigAlloc holds 64 MiB"
ying top --json -i alloc_space "$T/go.pb.gz" >"$T/goa.json" 2>"$T/err"
is "$(jq_py "$T/goa.json" 'd["total"]')" "$(go_total "$T/go.pb.gz" -sample_index=alloc_space)" \
    "Go profile: alloc_space totals agree"
ying pprof "$T/go.pb.gz" -o "$T/go2.pb.gz" 2>"$T/err"
ok $? "ying pprof re-encodes a Go profile" || diag "$T/err"
is "$(go_total "$T/go2.pb.gz")" "$(go_total "$T/go.pb.gz")" "re-encoded Go profile: same total"
is "$(go_cum "$T/go2.pb.gz" main.bigAlloc)" "$(go_cum "$T/go.pb.gz" main.bigAlloc)" \
    "re-encoded Go profile: main.bigAlloc keeps its bytes"

# --- a 200,000-stack dump --------------------------------------------------------
DM="$T/many.heap"
MALLOC_CONF=prof:true,lg_prof_sample:0 timeout 120 "$PROGS/pprof_manystacks" 200000 "$DM" >"$T/prog.out" 2>&1
ok $? "pprof_manystacks dumps 200,000 stacks" || diag "$T/prog.out"
is "$(grep -c '^@' "$DM")" 200002 "the dump has 200,000 stacks of the program (and 2 of libc's)"
t0=$(date +%s.%N)
ying pprof "$DM" -o "$T/many.pb.gz" 2>"$T/err"
rc=$?
t1=$(date +%s.%N)
secs=$(python3 -c "print('%.2f' % ($t1 - $t0))")
ok $rc "ying pprof on 200,000 stacks" || diag "$T/err"
echo "# ying pprof (parse + symbolize + write) of 200,000 stacks: ${secs}s"
# Speed is measured by bench/formats.sh; this bound only catches a hang or a
# pathological slowdown (sanitizer builds are several times slower).
ok $(python3 -c "import sys; sys.exit(0 if $secs < 60 else 1)"; echo $?) \
    "200,000 stacks converted in under 60 s (took ${secs}s)"
ying top --json "$DM" >"$T/many.json"
# 16-byte objects at period 1 still get AdjustSamples' factor 1/(1-e^-16);
# each stack's estimate is rounded once, so pprof's samples add up to
# ying top's total exactly.
gt=$(go_total "$T/many.pb.gz")
yt=$(jq_py "$T/many.json" 'd["total"]')
[ -n "$gt" ] && [ "$gt" = "$yt" ]
ok $? "200,000 stacks: go tool pprof total ($gt) = ying top total ($yt)" || diag "$T/gopprof.err"
is "$(go_cum "$T/many.pb.gz" leaf)" 3200000 "200,000 x 16 B under leaf()"

plan_done
