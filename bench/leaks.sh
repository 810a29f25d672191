#!/bin/sh
# leaks.sh: how often `ying leaks` gets the verdict right on programs with
# a known heap behaviour (tests/programs/leaks_prog), at production
# sampling, over many runs.
#
#   bench/leaks.sh [BUILD_DIR]      (default: build)
#
# MODE=virtual (the default): leaks_prog --virtual does the allocation
# work of hours of virtual time in seconds and dumps its heap at virtual
# times (jemalloc samples by bytes allocated, not by time, so a virtual run
# is statistically a real one; see the program's header).  Four cases,
# each under heavy churn (256 MiB freed and allocated again a virtual
# minute, 16-48 MiB live, wandering):
#   leak   leak_alloc keeps 1 MiB a minute; a dump a minute for an hour
#          (LEAK_DUMPS 61, LEAK_STEP 60 s);
#   cache  cache_fill fills 32 MiB over the first third, then holds; the
#          same dumps as the leak;
#   churn  nothing else; the same dumps;
#   slow   base_alloc holds 64 MiB from the start, slow_leak keeps 1 % of
#          it an hour; a dump every 5 minutes for 24 hours (SLOW_DUMPS 289,
#          SLOW_STEP 300 s).
# Each run is `MALLOC_CONF=prof_active:true ying run -q --sample SAMPLE
# --report-dir DIR --interval 24h --floor 1T -- leaks_prog --virtual CASE
# OUTDIR NDUMPS STEP $PROG_OPTS` (ying run adds prof:true and
# lg_prof_sample; the agent writes no report of its own), seed
# LEAKS_PROG_SEED = 1000 * case + run.
#
# MODE=realtime: the three real-time cases (leak, cache, churn) under `ying
# run --interval INTERVAL --pct 0 --floor 0 --sample SAMPLE` for SECS
# seconds (LEAK_KIB KiB a second, CACHE_MIB MiB), as before the virtual
# clock; slow, and at lg 19 realistic rates, need hours a run.
#
# env: RUNS (50), SAMPLE (19), PAR (2: runs at once), CASES (all of the
#      mode's), OUT (bench/out), LEAK_DUMPS, LEAK_STEP, SLOW_DUMPS,
#      SLOW_STEP, PROG_OPTS (more leaks_prog --virtual options, e.g.
#      "--walk 4"); realtime: SECS (60), INTERVAL (2), LEAK_KIB (17),
#      CACHE_MIB (8); KEEP=DIR keeps each run's dumps in DIR/CASE.RUN
#      (and its output in DIR/CASE.RUN.out), FROM=DIR scores such kept
#      dumps again without running anything (to try a change of `ying
#      leaks` on the same dumps).
#
# Scoring, each run right after it ends (its dumps are then deleted): the
# verdict of the case's named function (leak_alloc, cache_fill,
# churn_alloc, slow_leak) from `ying leaks --json DIR`; a false leak when
# any other function is said to leak (churn_alloc, base_alloc, cache_fill,
# ...); for the two leaks the estimated rate against the program's true
# one and whether the 95 % interval held it, and the dumps needed: the
# fewest k such that `ying leaks` on the first k dumps and on every longer
# prefix says leak (an exact scan down from all the dumps).  Writes
# $OUT/leaks.md and $OUT/leaks.jsonl (one line a run).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
YING="$BUILD/ying"
PROG="$BUILD/tests/programs/leaks_prog"
MODE=${MODE:-virtual}
RUNS=${RUNS:-50}
SAMPLE=${SAMPLE:-19}
PAR=${PAR:-2}
LEAK_DUMPS=${LEAK_DUMPS:-61}
LEAK_STEP=${LEAK_STEP:-60}
SLOW_DUMPS=${SLOW_DUMPS:-289}
SLOW_STEP=${SLOW_STEP:-300}
PROG_OPTS=${PROG_OPTS:-}
SECS=${SECS:-60}
INTERVAL=${INTERVAL:-2}
LEAK_KIB=${LEAK_KIB:-17}
CACHE_MIB=${CACHE_MIB:-8}
case $MODE in
virtual) CASES=${CASES:-leak cache churn slow} ;;
realtime) CASES=${CASES:-leak cache churn} ;;
*) echo "leaks: MODE is virtual or realtime" >&2; exit 2 ;;
esac
KEEP=${KEEP:-}
FROM=${FROM:-}
OUT=${OUT:-$ROOT/bench/out}
mkdir -p "$OUT"
[ -z "$KEEP" ] || { mkdir -p "$KEEP"; KEEP=$(cd "$KEEP" && pwd); }
[ -z "$FROM" ] || FROM=$(cd "$FROM" && pwd)
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d "$OUT/leaks.XXXXXX")
trap 'rm -rf "$W"' EXIT
[ -x "$PROG" ] || { echo "leaks: build $PROG first (make check builds it)" >&2; exit 1; }
mkdir "$W/res"

cat >"$W/score.py" <<'PY'
# score.py run YING MODE CASE RUN DIR OUTFILE: one run's result, a JSON line
# score.py report OUT.md RESULTS.jsonl SETTINGS...: the table
import json, os, subprocess, sys

FN = {"leak": "leak_alloc", "cache": "cache_fill", "churn": "churn_alloc",
      "slow": "slow_leak"}
MIB = 1024.0 * 1024
VERDICTS = ("leak", "filled", "churn", "released", "unknown", "none")


def leaks(ying, files):
    r = subprocess.run([ying, "leaks", "--json"] + files, capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return json.loads(r.stdout)


def verdict(d, fn):
    if d is None:
        return "none"
    v = [s["verdict"] for s in d["sites"] if s["function"] == fn]
    return v[0] if v else "none"


def run(ying, mode, case, runno, d, outfile):
    res = {"case": case, "run": int(runno), "verdict": "none"}
    out = open(outfile).read() if os.path.exists(outfile) else ""
    truth = None
    for line in out.splitlines():
        if line.startswith("leaks_prog --virtual "):
            kv = dict(x.split("=", 1) for x in line.split()[3:])
            span = float(kv["span"])
            if case in ("leak", "slow"):
                truth = float(kv["rate"])
            res["churn_range"] = [float(kv["churn_min"]), float(kv["churn_max"])]
        elif line.startswith("leaks_prog leak: leaked "):
            truth = float(line.split()[3]) / float(os.environ.get("SECS", "60")) * 3600
    files = [os.path.join(d, x) for x in os.listdir(d) if x.endswith(".heap")] \
        if os.path.isdir(d) else []
    files.sort(key=lambda p: (os.stat(p).st_mtime_ns, p))
    res["dumps"] = len(files)
    if not files:
        res["error"] = "no dumps"
        return res
    dd = leaks(ying, files)
    if dd is None:
        res["error"] = "ying leaks failed"
        return res
    fn = FN[case]
    res["span"] = dd["span_seconds"]
    res["sites"] = {s["function"]: s["verdict"] for s in dd["sites"]}
    res["false_leaks"] = sorted(f for f, v in res["sites"].items()
                                if v == "leak" and (case not in ("leak", "slow") or f != fn))
    site = [s for s in dd["sites"] if s["function"] == fn]
    if site:
        s = site[0]
        res["verdict"] = s["verdict"]
        res["reason"] = s["reason"]
        res["rate"], res["lo"], res["hi"] = s["rate"], s["rate_lo"], s["rate_hi"]
    if truth is not None:
        res["truth"] = truth
    # the true live bytes (virtual mode): each function's own least-squares
    # trend, and whether ying's interval held it
    tp = os.path.join(d, "truth.tsv")
    if os.path.exists(tp):
        rows = [l.split("\t") for l in open(tp).read().splitlines()]
        head, rows = rows[0], [[float(x) for x in r] for r in rows[1:]]
        ts = [r[1] for r in rows]
        mt = sum(ts) / len(ts)
        sxx = sum((x - mt) ** 2 for x in ts)
        byfn = {s["function"]: s for s in dd["sites"]}
        res["true_trend"], res["true_held"] = {}, {}
        for j, f in enumerate(head[2:], 2):
            ys = [r[j] for r in rows]
            if not any(ys):
                continue
            my = sum(ys) / len(ys)
            b = sum((x - mt) * (y - my) for x, y in zip(ts, ys)) / sxx * 3600
            res["true_trend"][f] = b
            s = byfn.get(f)
            if s and s["rate_lo"] is not None:
                res["true_held"][f] = s["rate_lo"] <= b <= s["rate_hi"]
    if case in ("leak", "slow") and res["verdict"] == "leak":
        k = len(files)
        while k - 1 >= 2 and verdict(leaks(ying, files[:k - 1]), fn) == "leak":
            k -= 1
        res["needed"] = k
        res["needed_s"] = (os.stat(files[k - 1]).st_mtime_ns -
                           os.stat(files[0]).st_mtime_ns) / 1e9
    return res


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * (len(xs) - 1) + 0.5))]


def fmt_time(s):
    if s >= 7200:
        return "%.1f h" % (s / 3600)
    return "%.0f min" % (s / 60) if s >= 120 else "%.0f s" % s


def report(outmd, results, settings):
    rs = [json.loads(l) for l in open(results) if l.strip()]
    cases = [c for c in ("leak", "cache", "churn", "slow") if any(r["case"] == c for r in rs)]
    o = []
    o.append("| case | function | runs | dumps | span | leak | filled | churn | released "
             "| unknown | none | a false leak |")
    o.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for c in cases:
        r = [x for x in rs if x["case"] == c]
        t = {v: sum(1 for x in r if x["verdict"] == v) for v in VERDICTS}
        fl = sum(1 for x in r if x.get("false_leaks"))
        dumps = sorted(set(x["dumps"] for x in r))
        span = max(x.get("span", 0) for x in r)
        o.append("| %s | %s | %d | %s | %s | %s | %d |" % (
            c, FN[c], len(r), "/".join(map(str, dumps)), fmt_time(span),
            " | ".join(str(t[v]) for v in VERDICTS), fl))
    o.append("")
    for c in cases:
        r = [x for x in rs if x["case"] == c]
        n = len(r)
        fl = [x for x in r if x.get("false_leaks")]
        names = {}
        for x in fl:
            for f in x["false_leaks"]:
                names[f] = names.get(f, 0) + 1
        line = "- **%s**: " % c
        if c in ("leak", "slow"):
            found = sum(1 for x in r if x["verdict"] == "leak")
            line += "the leak found in %d of %d runs (%.0f %%, wanted >= 95 %%)" % (
                found, n, 100.0 * found / n)
            nd = [x["needed"] for x in r if "needed" in x]
            ns = [x["needed_s"] for x in r if "needed_s" in x]
            if nd:
                line += "; a lasting leak verdict after %d dumps (%s) median, %d (%s) at " \
                    "the 95th percentile, %d (%s) at most" % (
                        pct(nd, .5), fmt_time(pct(ns, .5)), pct(nd, .95),
                        fmt_time(pct(ns, .95)), max(nd), fmt_time(max(ns)))
            ratio = [x["rate"] / x["truth"] for x in r if x.get("rate") is not None
                     and x.get("truth")]
            cover = [x for x in r if x.get("lo") is not None and x.get("truth")
                     and x["lo"] <= x["truth"] <= x["hi"]]
            if ratio:
                line += "; estimated rate / true rate: median %.3f (5th-95th percentile " \
                    "%.3f-%.3f); the 95 %% interval held the true rate in %d of %d" % (
                        pct(ratio, .5), pct(ratio, .05), pct(ratio, .95), len(cover),
                        len(ratio))
            rates = set(round(x["rate"], 3) for x in r if x.get("rate") is not None)
            line += "; %d distinct rate estimates in %d runs" % (len(rates), n)
        else:
            line += "%s %s in %d of %d runs" % (
                FN[c], "filled" if c == "cache" else "churn",
                sum(1 for x in r if x["verdict"] == ("filled" if c == "cache" else "churn")), n)
        held = [x["true_held"]["churn_alloc"] for x in r if "churn_alloc" in x.get("true_held", {})]
        tt = [x["true_trend"]["churn_alloc"] / MIB for x in r
              if "churn_alloc" in x.get("true_trend", {})]
        ttl = [x["true_trend"]["churn_alloc"] / MIB for x in r if "churn_alloc" in
               x.get("true_trend", {}) and x["sites"].get("churn_alloc") == "leak"]
        if tt:
            line += "; churn_alloc's true live bytes had a least-squares trend of %+.1f " \
                "to %+.1f MiB/h (5th-95th percentile)%s, and its interval held that trend " \
                "in %d of %d" % (pct(tt, .05), pct(tt, .95),
                                 " (%+.1f to %+.1f in the runs said leak)" % (min(ttl), max(ttl))
                                 if ttl else "", sum(held), len(held))
        line += "; a false leak in %d of %d runs (%.0f %%, wanted <= 5 %%)%s." % (
            len(fl), n, 100.0 * len(fl) / n,
            (" (" + ", ".join("%s %d" % kv for kv in sorted(names.items())) + ")") if names else "")
        o.append(line)
    miss = [x for x in rs if x["verdict"] != {"leak": "leak", "slow": "leak", "cache": "filled",
                                               "churn": "churn"}[x["case"]]]
    if miss:
        o.append("")
        o.append("Runs with another verdict:")
        o.append("")
        for x in miss:
            iv = ""
            if x.get("rate") is not None:
                iv = ", %.4g B/h [%.4g, %.4g]" % (x["rate"], x["lo"], x["hi"])
            o.append("- %s run %d: %s (%s%s)%s" % (x["case"], x["run"], x["verdict"],
                     x.get("reason", x.get("error", "")), iv,
                     ", truth %.4g B/h" % x["truth"] if x.get("truth") else ""))
    o.append("")
    o.append(settings)
    open(outmd, "w").write("\n".join(o) + "\n")
    print("\n".join(o))


if sys.argv[1] == "run":
    print(json.dumps(run(*sys.argv[2:8])))
else:
    report(sys.argv[2], sys.argv[3], " ".join(sys.argv[4:]))
PY

caseno() {
	case $1 in leak) echo 1 ;; cache) echo 2 ;; churn) echo 3 ;; slow) echo 4 ;; esac
}

# one CASE RUN: run it, score it, delete its dumps (KEEP: move them there;
# FROM: score the dumps kept there instead of running)
one() {
	d="$W/$1.$2"
	if [ -n "$FROM" ]; then
		SECS=$SECS python3 "$W/score.py" run "$YING" "$MODE" "$1" "$2" "$FROM/$1.$2" \
		    "$FROM/$1.$2.out" >"$W/res/$1.$2.json" 2>"$d.serr" || cp "$d.serr" "$W/res/$1.$2.err"
		return 0
	fi
	seed=$(($(caseno "$1") * 1000 + $2))
	mkdir -p "$d"
	if [ "$MODE" = virtual ]; then
		if [ "$1" = slow ]; then n=$SLOW_DUMPS step=$SLOW_STEP; else n=$LEAK_DUMPS step=$LEAK_STEP; fi
		# shellcheck disable=SC2086
		LEAKS_PROG_SEED=$seed MALLOC_CONF=prof_active:true "$YING" run -q \
		    --sample "$SAMPLE" --report-dir "$d.rep" --interval 24h --floor 1T -- \
		    "$PROG" --virtual "$1" "$d" "$n" "$step" $PROG_OPTS >"$d.out" 2>"$d.err" || :
	else
		LEAKS_PROG_SEED=$seed "$YING" run -q --report-dir "$d" --interval "$INTERVAL" \
		    --pct 0 --floor 0 --sample "$SAMPLE" -- "$PROG" "$1" "$SECS" "$LEAK_KIB" \
		    "$CACHE_MIB" >"$d.out" 2>"$d.err" || :
	fi
	SECS=$SECS python3 "$W/score.py" run "$YING" "$MODE" "$1" "$2" "$d" "$d.out" \
	    >"$W/res/$1.$2.json" 2>"$d.serr" || cp "$d.serr" "$W/res/$1.$2.err"
	if [ -n "$KEEP" ]; then
		rm -rf "$KEEP/$1.$2"
		mv "$d" "$KEEP/$1.$2" && mv "$d.out" "$KEEP/$1.$2.out"
	fi
	rm -rf "$d" "$d.rep"
}

start=$(date +%s)
for c in $CASES; do
	i=1
	n=0
	while [ "$i" -le "$RUNS" ]; do
		one "$c" "$i" &
		n=$((n + 1))
		if [ "$n" -ge "$PAR" ]; then wait; n=0; fi
		i=$((i + 1))
	done
	wait
done
end=$(date +%s)

cat "$W"/res/*.json >"$OUT/leaks.jsonl"
if ls "$W"/res/*.err >/dev/null 2>&1; then
	echo "leaks: scoring failed for some runs:" >&2
	head -n 5 "$W"/res/*.err >&2
fi
if [ "$MODE" = virtual ]; then
	settings="MODE=virtual RUNS=$RUNS SAMPLE=$SAMPLE PAR=$PAR LEAK_DUMPS=$LEAK_DUMPS \
LEAK_STEP=$LEAK_STEP SLOW_DUMPS=$SLOW_DUMPS SLOW_STEP=$SLOW_STEP PROG_OPTS='$PROG_OPTS'"
else
	settings="MODE=realtime RUNS=$RUNS SAMPLE=$SAMPLE PAR=$PAR SECS=$SECS INTERVAL=$INTERVAL \
LEAK_KIB=$LEAK_KIB CACHE_MIB=$CACHE_MIB"
fi
python3 "$W/score.py" report "$OUT/leaks.md" "$OUT/leaks.jsonl" \
    "$settings; $((end - start)) s wall-clock."
