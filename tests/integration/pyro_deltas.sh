#!/bin/sh
# pyro_deltas.sh: with prof_accum, the uploader's alloc_* are per-interval
# deltas (issue 27), as pyroscope-go sends the same profile types.
#
# tests/programs/many_stacks 200 0 holds its objects and then waits; under
# `ying run --accum --sample 0 --pyroscope URL --pyroscope-interval 1`
# (every allocation sampled, so the numbers are exact) the uploads while it
# waits carry alloc_space 0 for every stack: nothing was allocated in their
# interval (the program's own setup is in the first upload, or before the
# uploader's baseline), while inuse_space stays the whole heap.  Once the
# program allocates 4 MiB more in grow_more (CTL_DIR/grow), exactly that
# shows up: the uploads' alloc_space of grow_more add up to 4 MiB plus
# what it allocated before the baseline at most, and no upload after the
# growth holds it again.  Each profile says the interval it covers
# (duration_nanos, about the 1 s interval) with a millisecond time.
. "$YING_SRCDIR/tests/integration/pyro_lib.sh"

standin_start s
mkdir -p "$T/ctl"
ying run --accum --sample 0 --pyroscope "$s_URL" --service deltas --pyroscope-interval 1 \
    -- "$PROGS/many_stacks" 200 0 "$T/ctl" >"$T/out" 2>"$T/err" &
run_pid=$!
bg_pids="$bg_pids $run_pid"
wait_for 60 grep -q '^ready ' "$T/out"
ok $? "many_stacks made its 200 stacks" || diag "$T/out" "$T/err"
held=$(sed -n 's/^ready .* held=\([0-9]*\) .*/\1/p' "$T/out")
n0=$(uploads s)
wait_uploads s $((n0 + 3)) 30
ok $? "3 uploads while it waits" || diag "$T/err" "$s_DIR/requests.log"
n1=$(uploads s)
# alloc_space of an upload, in total and for one function (go tool pprof)
alloc_of() {
	timeout 60 go tool pprof -top -unit=B -sample_index=alloc_space "$(up_pprof s "$1")" 2>/dev/null |
	    awk -v fn="$2" '$6 == fn { v = $4; sub(/B$/, "", v); print v; f = 1; exit } END { if (!f) print 0 }'
}
total_of() {
	up s "$1" 'int(d["totals"][d["sample_types"].index("'"$2"'")])'
}
is "$(total_of "$n1" alloc_space:bytes)" 0 "an upload while the program waits: alloc_space 0 (nothing allocated in its interval)"
is "$(total_of "$n1" inuse_space:bytes)" "$held" "... while inuse_space is the whole heap ($held B)"
is "$(up s "$n1" 'int(0.5e9 <= d["duration_nanos"] <= 5e9)')" 1 \
    "... and duration_nanos the interval it covers ($(up s "$n1" 'd["duration_nanos"]') ns)"
ms=$(for i in $(seq $((n0 + 1)) "$n1"); do up s "$i" 'd["time_nanos"] % 10**9 // 10**6'; done | sort -u | wc -l)
[ "$ms" -ge 2 ]
ok $? "... time_nanos with millisecond precision (not whole seconds)"
touch "$T/ctl/grow"
wait_for 20 grep -q '^grown ' "$T/out"
ok $? "grow_more allocated 4 MiB more" || diag "$T/out"
n2=$(uploads s)
wait_uploads s $((n2 + 3)) 30
ok $? "3 more uploads" || diag "$T/err"
n3=$(uploads s)
sum=0
for i in $(seq $((n1 + 1)) "$n3"); do
	v=$(alloc_of "$i" grow_more)
	sum=$(python3 -c 'import sys; print(int(float(sys.argv[1]) + float(sys.argv[2])))' "$sum" "$v")
done
is "$sum" 4194304 "the uploads after the wait hold grow_more's 4 MiB once, in alloc_space: $sum B"
is "$(alloc_of "$n3" grow_more)" 0 "... the last upload none of it (its interval allocated nothing)"
touch "$T/ctl/stop"
wait "$run_pid"
is "$?" 0 "ying run exits 0" || diag "$T/err"
grep -v ' 200 ' "$s_DIR/requests.log" >"$T/refused"
[ ! -s "$T/refused" ]
ok $? "the stand-in refused nothing" || diag "$T/refused"
plan_done
