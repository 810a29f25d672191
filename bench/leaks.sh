#!/bin/sh
# leaks.sh: how often `ying leaks` gets the verdict right on real programs
# with a known behaviour (tests/programs/leaks_prog: a leak under churn, a
# cache that fills over the first third then holds, pure churn), each run
# under `ying run --interval INTERVAL --pct 0 --floor 0 --sample SAMPLE`
# for SECS seconds, RUNS times (PAR runs at once).
#
#   bench/leaks.sh [BUILD_DIR]      (default: build)
#   env: RUNS (50), SECS (60), INTERVAL (2), SAMPLE (19: production),
#        LEAK_KIB (leaked KiB a second, 17: about 1 MiB a minute),
#        CACHE_MIB (8), PAR (3), OUT (bench/out)
#
# Per behaviour: the verdicts of the named function (leak_alloc,
# cache_fill, churn_alloc) over the runs; the leak found (verdict leak) in
# how many, a false leak (cache_fill or churn_alloc said leak) in how many;
# and for the leak, how many dumps it needed: the first k such that `ying
# leaks` on the first k dumps and on every longer prefix says leak.
# Writes $OUT/leaks.md.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
YING="$BUILD/ying"
PROG="$BUILD/tests/programs/leaks_prog"
RUNS=${RUNS:-50}
SECS=${SECS:-60}
INTERVAL=${INTERVAL:-2}
SAMPLE=${SAMPLE:-19}
LEAK_KIB=${LEAK_KIB:-17}
CACHE_MIB=${CACHE_MIB:-8}
PAR=${PAR:-3}
OUT=${OUT:-$ROOT/bench/out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d "$OUT/leaks.XXXXXX")
trap 'rm -rf "$W"' EXIT
[ -x "$PROG" ] || { echo "leaks: build $PROG first (make check builds it)" >&2; exit 1; }

# one run: mode index
one() {
	LEAKS_PROG_SEED=$2 "$YING" run --report-dir "$W/$1.$2" --interval "$INTERVAL" \
	    --pct 0 --floor 0 --sample "$SAMPLE" -- "$PROG" "$1" "$SECS" "$LEAK_KIB" \
	    "$CACHE_MIB" >/dev/null 2>"$W/$1.$2.err"
}

i=1
while [ "$i" -le "$RUNS" ]; do
	n=0
	for m in leak cache churn; do
		one $m $i &
		n=$((n + 1))
		if [ "$n" -ge "$PAR" ]; then wait; n=0; fi
	done
	wait
	i=$((i + 1))
done

python3 - "$W" "$YING" "$RUNS" "$OUT/leaks.md" "$SECS" "$INTERVAL" "$SAMPLE" \
    "$LEAK_KIB" "$CACHE_MIB" <<'PY'
import json, os, subprocess, sys
W, ying, runs, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
secs, interval, sample, leak_kib, cache_mib = sys.argv[5:10]
fn = {"leak": "leak_alloc", "cache": "cache_fill", "churn": "churn_alloc"}

def verdicts(files):
    r = subprocess.run([ying, "leaks", "--json"] + files, capture_output=True, text=True)
    if r.returncode != 0:
        return {}
    return {s["function"]: s["verdict"] for s in json.loads(r.stdout)["sites"]}

def dumps(d):
    f = [os.path.join(d, x) for x in os.listdir(d) if x.endswith(".heap")]
    return sorted(f, key=lambda p: (os.stat(p).st_mtime_ns, p))

tally, needed, ndumps = {}, [], []
for m in fn:
    tally[m] = {}
    for i in range(1, runs + 1):
        d = os.path.join(W, "%s.%d" % (m, i))
        f = dumps(d) if os.path.isdir(d) else []
        ndumps.append(len(f))
        v = verdicts(f).get(fn[m], "none") if f else "none"
        tally[m][v] = tally[m].get(v, 0) + 1
        if m == "leak" and v == "leak":
            k = len(f)
            while k > 6 and verdicts(f[:k - 1]).get(fn[m]) == "leak":
                k -= 1
            needed.append(k)

with open(out, "w") as o:
    o.write("## ying leaks: verdicts on real programs (bench/leaks.sh)\n\n")
    o.write("%d runs per behaviour of %s s, `ying run --interval %s --pct 0 --floor 0 "
            "--sample %s`; leak %s KiB/s under 2 MiB of churn, cache %s MiB filled over "
            "the first third; %d to %d dumps a run.\n\n" % (runs, secs, interval, sample,
            leak_kib, cache_mib, min(ndumps), max(ndumps)))
    o.write("| behaviour | function | leak | filled | churn | released | unknown |\n")
    o.write("|---|---|---|---|---|---|---|\n")
    for m in fn:
        t = tally[m]
        o.write("| %s | %s | %s |\n" % (m, fn[m], " | ".join(str(t.get(v, 0)) for v in
                ("leak", "filled", "churn", "released", "unknown"))))
    if needed:
        needed.sort()
        o.write("\nThe leak was found in %d of %d runs (%.0f %%); a false leak: %d of %d "
                "cache runs, %d of %d churn runs.  Dumps needed for a lasting leak verdict: "
                "median %d, max %d (%.0f s and %.0f s).\n" % (
                    tally["leak"].get("leak", 0), runs, 100.0 * tally["leak"].get("leak", 0) / runs,
                    tally["cache"].get("leak", 0), runs, tally["churn"].get("leak", 0), runs,
                    needed[len(needed) // 2], needed[-1],
                    (needed[len(needed) // 2] - 1) * float(interval),
                    (needed[-1] - 1) * float(interval)))
print(open(out).read())
PY
