#!/bin/sh
# leaks_virtual.sh: tests/programs/leaks_prog on its virtual clock, the
# mode bench/leaks.sh measures, once per case at a small size.
#
# Each case runs under `ying run --sample 14` (one sample per 16 KiB, so a
# short run carries enough samples for its verdict), with a steady churn
# (--churn 16 --live 4-8 --walk 0: the wandering churn is the bench's
# matter) and a fixed --epoch: leak (1 MiB a virtual minute, a dump a
# minute for 30 minutes), cache (32 MiB over the first 10 minutes), churn,
# and slow (16 MiB held by base_alloc, slow_leak keeping 10 % of it an
# hour, a dump every 10 minutes for 4 hours).  Checked: the dumps are
# there, each at EPOCH + k * STEP to the nanosecond (ying leaks sees the
# virtual span); the verdicts (leak_alloc and slow_leak leak, cache_fill
# filled, churn_alloc and base_alloc churn, no other leak anywhere); the
# leaks' estimated rates near the program's true ones; two runs of one
# seed do the same allocations (the program's line) but are sampled
# differently (jemalloc's own draws); without jemalloc or with a bad case
# the program says so (exit 1, 2).
. "$YING_SRCDIR/tests/integration/agent_lib.sh"

P="$PROGS/leaks_prog"
EPOCH=$(date +%s)
STEADY="--churn 16 --live 4-8 --walk 0 --epoch $EPOCH"

# run NAME CASE NDUMPS STEP [OPTIONS...]: leaks_prog --virtual under ying run
run() {
	_name=$1 _case=$2 _n=$3 _step=$4
	shift 4
	mkdir -p "$T/$_name"
	# shellcheck disable=SC2086
	MALLOC_CONF=prof_active:true ying run -q --sample 14 --report-dir "$T/$_name.rep" \
	    --interval 24h --floor 1T -- "$P" --virtual "$_case" "$T/$_name" "$_n" "$_step" \
	    $STEADY "$@" >"$T/$_name.out" 2>"$T/$_name.err"
}

"$P" --virtual leak "$T" 4 60 >/dev/null 2>"$T/nojem.err"
is "$?" 1 "no jemalloc in the process: exit 1"
grep -q 'no jemalloc' "$T/nojem.err"
ok $? "no jemalloc: said" || diag "$T/nojem.err"
"$P" --virtual bogus "$T" 4 60 >/dev/null 2>"$T/bad.err"
is "$?" 2 "an unknown case: exit 2"
"$P" --virtual leak "$T" 4 1.5 >/dev/null 2>"$T/bad.err"
is "$?" 2 "a step that is not whole seconds: exit 2"

run leak leak 31 60 & p1=$!
run cache cache 31 60 & p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
run churn churn 31 60 & p3=$!
run slow slow 25 600 --base 16 --slow 10 & p4=$!
wait $p3; r3=$?
wait $p4; r4=$?
run again leak 31 60 & p5=$!
wait $p5; r5=$?
is "$r1" 0 "leak: exit 0" || diag "$T/leak.err"
is "$r2" 0 "cache: exit 0" || diag "$T/cache.err"
is "$r3" 0 "churn: exit 0" || diag "$T/churn.err"
is "$r4" 0 "slow: exit 0" || diag "$T/slow.err"
is "$r5" 0 "leak again: exit 0" || diag "$T/again.err"
for m in leak cache churn slow again; do
	ying leaks --json "$T/$m" >"$T/$m.json" 2>"$T/$m.lerr"
	is "$?" 0 "ying leaks --json $m: exit 0" || diag "$T/$m.lerr"
done

python3 - "$T" "$EPOCH" <<'PY'
import json, os, sys
T, epoch = sys.argv[1], int(sys.argv[2])
for name, n, step in (("leak", 31, 60), ("cache", 31, 60), ("churn", 31, 60), ("slow", 25, 600)):
    files = sorted(x for x in os.listdir(os.path.join(T, name)) if x.endswith(".heap"))
    assert files == ["%04d.heap" % k for k in range(n)], (name, files)
    for k, f in enumerate(files):
        ns = os.stat(os.path.join(T, name, f)).st_mtime_ns
        assert ns == (epoch + k * step) * 10**9, (name, f, ns)
    d = json.load(open(os.path.join(T, name + ".json")))
    assert d["dumps"] == n and d["span_seconds"] == (n - 1) * step, (name, d["dumps"], d["span_seconds"])
PY
ok $? "every dump there, dump k at EPOCH + k * STEP to the nanosecond; ying leaks spans the virtual time"

# verdict_of NAME FUNCTION
verdict_of() {
	python3 - "$T/$1.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = [s["verdict"] for s in d["sites"] if s["function"] == sys.argv[2]]
print(v[0] if v else "none")
PY
}
is "$(verdict_of leak leak_alloc)" leak "leak: leak_alloc is a leak"
is "$(verdict_of cache cache_fill)" filled "cache: cache_fill filled"
is "$(verdict_of churn churn_alloc)" churn "churn: churn_alloc is churn"
is "$(verdict_of slow slow_leak)" leak "slow: slow_leak is a leak"
is "$(verdict_of slow base_alloc)" churn "slow: base_alloc (held from the start) is churn"
python3 - "$T" <<'PY'
import json, os, sys
T = sys.argv[1]
for name, leaker in (("leak", "leak_alloc"), ("cache", None), ("churn", None), ("slow", "slow_leak")):
    d = json.load(open(os.path.join(T, name + ".json")))
    bad = [s["function"] for s in d["sites"] if s["verdict"] == "leak" and s["function"] != leaker]
    assert not bad, (name, bad)
PY
ok $? "no false leak in any run (churn_alloc, base_alloc, cache_fill, ...)"

# the estimated rates against the program's truth (rate=, bytes an hour)
python3 - "$T" <<'PY'
import json, os, sys
T = sys.argv[1]
for name, fn, tol in (("leak", "leak_alloc", 0.1), ("slow", "slow_leak", 0.3)):
    line = open(os.path.join(T, name + ".out")).read().split("\n")[0]
    kv = dict(x.split("=", 1) for x in line.split()[3:])
    truth = float(kv["rate"])
    s = [s for s in json.load(open(os.path.join(T, name + ".json")))["sites"] if s["function"] == fn][0]
    print("# %s: %.4g bytes/hour [%.4g, %.4g], truth %.4g" % (fn, s["rate"], s["rate_lo"], s["rate_hi"], truth))
    assert abs(s["rate"] / truth - 1) < tol, (fn, s["rate"], truth)
PY
ok $? "the leaks' estimated rates within 10 % (leak) and 30 % (slow) of the truth"

# one seed, two runs: the same allocations, other samples
cmp -s "$T/leak.out" "$T/again.out"
ok $? "two runs of one seed: the same allocations (the program's line)" || diag "$T/leak.out" "$T/again.out"
python3 - "$T/leak.json" "$T/again.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
ra = [(s["function"], s["rate"], s["last"]) for s in a["sites"] if s["function"] in ("leak_alloc", "churn_alloc")]
rb = [(s["function"], s["rate"], s["last"]) for s in b["sites"] if s["function"] in ("leak_alloc", "churn_alloc")]
assert len(ra) == 2 and sorted(ra) != sorted(rb), (ra, rb)
PY
ok $? "two runs of one seed: sampled differently (other estimates)"

plan_done
