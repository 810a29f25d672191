#!/bin/sh
# pyro_limits.sh: what `ying run --pyroscope` uploads stays inside a real
# Pyroscope's default limits however many stacks the heap has.
#
# tests/programs/many_stacks holds 2 objects of 64 B on each of N distinct
# allocation stacks (and 64 KiB in grow_more).  Under `ying run --sample 0
# --pyroscope URL --pyroscope-interval 1` (every allocation sampled) two
# cases: 20,000 shallow stacks (more than the 16,000 samples a profile may
# have), 15,000 stacks of 106 frames (1.9 MB uncompressed: fits), and
# 15,000 of 128 frames (jemalloc's deepest: 2.0 MB, which fits too now that
# the "bytes" label is gone) under --pyroscope-max-bytes 1MiB (a server
# whose burst is smaller: the byte limit alone makes the uploader fold).  In
# each, the stand-in (which checks every profile with tests/pyro/validate.py)
# must have refused nothing: every push answered 200, requests.log without
# a refusal; at least 3 uploads, each with at most 16,000 samples and
# passing `validate.py` again (its CLI, with the upload's labels); and the
# last upload's total inuse_space equals what the program holds within 1 %
# (folding stacks to fit must keep the bytes).
#
# The uploader folds (issue 27): /debug/prof counts the folded profiles of
# the 20,000-stack and the 1 MiB cases, none oversized, and the last
# profile within the limits.  (Before folding, the 20,000-stack
# case was refused with 400 samples_limit and a 124-frame one with 429
# rate_limited at every interval.)
. "$YING_SRCDIR/tests/integration/pyro_lib.sh"
VALIDATE="$YING_SRCDIR/tests/pyro/validate.py"

# limits_case NAME N DEPTH FOLDS MAX_BYTES
limits_case() {
	lc=$1 lc_max=$5
	standin_start "$lc"
	eval "lc_url=\$${lc}_URL lc_dir=\$${lc}_DIR"
	mkdir -p "$T/$lc.ctl"
	lc_hp=$(free_port)
	ying run --http "127.0.0.1:$lc_hp" --sample 0 --pyroscope "$lc_url" --service many_stacks --tag case="$lc" \
	    --pyroscope-max-bytes "$lc_max" \
	    --pyroscope-interval 1 -- "$PROGS/many_stacks" "$2" "$3" "$T/$lc.ctl" \
	    >"$T/$lc.out" 2>"$T/$lc.err" &
	lc_pid=$!
	bg_pids="$bg_pids $lc_pid"
	wait_for 60 grep -q '^ready ' "$T/$lc.out"
	ok $? "$lc: many_stacks $2 $3 made its stacks" || diag "$T/$lc.out" "$T/$lc.err"
	held=$(sed -n 's/^ready .* held=\([0-9]*\) .*/\1/p' "$T/$lc.out")
	# Three answered pushes that began after the stacks were made.
	lc_from=$(grep -c 'Push' "$lc_dir/requests.log" 2>/dev/null)
	wait_for 90 sh -c 'test "$(grep -c Push "$1" 2>/dev/null)" -ge "$2"' _ "$lc_dir/requests.log" $((lc_from + 3))
	ok $? "$lc: 3 pushes answered after the stacks were made" || diag "$T/$lc.err" "$lc_dir/requests.log"
	prof_json "http://127.0.0.1:$lc_hp"
	ok $? "$lc: GET /debug/prof" || diag "$T/$lc.err"
	is "$(pj 'int(d["pyroscope"]["folded"] > 0)')" "$4" "$lc: /debug/prof's pyroscope.folded > 0: $4" ||
	    diag "$T/prof.json"
	is "$(pj 'int(d["pyroscope"]["oversized"] == 0 and 0 < d["pyroscope"]["last_samples"] <= 16000 and d["pyroscope"]["last_bytes"] <= '"$lc_max"')')" 1 \
	    "$lc: none oversized; the last profile within 16,000 samples and $lc_max bytes with its labels" || diag "$T/prof.json"
	touch "$T/$lc.ctl/stop"
	wait "$lc_pid"
	is "$?" 0 "$lc: ying run exits 0 once the program stops" || diag "$T/$lc.err"
	grep -v ' 200 ' "$lc_dir/requests.log" >"$T/$lc.refused"
	[ ! -s "$T/$lc.refused" ]
	ok $? "$lc: the stand-in refused nothing (requests.log)" || diag "$T/$lc.refused"
	n=$(uploads "$lc")
	[ "$n" -ge 3 ]
	ok $? "$lc: at least 3 uploads accepted (got $n)"
	python3 - "$lc_dir" "$VALIDATE" <<'PY' >"$T/$lc.check" 2>&1
import glob, json, os, subprocess, sys
d, validate = sys.argv[1], sys.argv[2]
bad = 0
for f in sorted(glob.glob(os.path.join(d, "upload-*.json"))):
    u = json.load(open(f))
    if u["samples"] > 16000:
        print("%s: %d samples > 16000" % (f, u["samples"]))
        bad += 1
    args = [sys.executable, validate, os.path.join(d, u["pprof"])]
    for k, v in u["labels"]:
        args += ["--label", "%s=%s" % (k, v)]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        print("%s: validate.py: %s" % (f, r.stdout.strip() or r.stderr.strip()))
        bad += 1
sys.exit(1 if bad else 0)
PY
	ok $? "$lc: every upload has at most 16,000 samples and passes validate.py" || diag "$T/$lc.check"
	if [ "$n" -ge 1 ]; then
		last=$(up "$lc" "$n" 'd["totals"][d["sample_types"].index("inuse_space:bytes")]')
	else
		last=0
	fi
	python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2] or 0); sys.exit(0 if b > 0 and abs(a - b) <= 0.01 * b else 1)' \
	    "$last" "$held"
	ok $? "$lc: the last upload's inuse_space ($last B) is what the program holds ($held B) within 1 %"
}

limits_case wide 20000 0 1 2097152
limits_case deep 15000 96 0 2097152
limits_case deeper 15000 118 1 1048576
plan_done
