#!/bin/sh
# symcache_warm.sh: the warm path of the persistent symbol cache, before and
# after a change: `ying top DUMP` of OLD and NEW, each with a cache
# directory of its own primed once, RUNS times each, interleaved (both see
# the same machine load).  Wall time around fork/exec/wait and CPU (user +
# system, os.wait4's rusage); medians and min/max.  Outputs are compared
# byte for byte first.
# Environment: YING (new CLI), OLD (before CLI), DUMP (a heap dump; default:
# TOP_BASIC run under prof:true,lg_prof_sample:0), RUNS (default 20).
set -eu
: "${YING:?path of the new ying}" "${OLD:?path of the before ying}"
RUNS=${RUNS:-20}
OUT=$(mktemp -d "${TMPDIR:-/tmp}/symcache_warm.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
if [ -z "${DUMP:-}" ]; then
	: "${TOP_BASIC:?tests/programs/top_basic (or give DUMP)}"
	(cd "$OUT" && MALLOC_CONF=prof:true,lg_prof_sample:0 "$TOP_BASIC" "$OUT/small.heap" >/dev/null)
	DUMP=$OUT/small.heap
fi
python3 - "$OLD" "$YING" "$DUMP" "$OUT" "$RUNS" <<'PY'
import os, statistics, subprocess, sys, time
old, new, dump, out, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
def run(ying, cache):
    env = dict(os.environ, YING_CACHE_DIR=cache)
    t = time.monotonic()
    p = subprocess.Popen([ying, "top", dump], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    o = p.stdout.read()
    _, st, ru = os.wait4(p.pid, 0)
    return time.monotonic() - t, ru.ru_utime + ru.ru_stime, o
res = {}
for name, y in (("old", old), ("new", new)):
    res[name] = ([], [], run(y, out + "/c-" + name)[2])   # prime
if res["old"][2] != res["new"][2]:
    sys.exit("symcache_warm: outputs differ")
for _ in range(runs):
    for name, y in (("old", old), ("new", new)):
        w, c, _ = run(y, out + "/c-" + name)
        res[name][0].append(w * 1000)
        res[name][1].append(c * 1000)
load = open("/proc/loadavg").read().split()[:3]
print("warm ying top, %d runs each, load %s" % (runs, " ".join(load)))
for name in ("old", "new"):
    w, c = res[name][0], res[name][1]
    print("  %s  wall median %.1f ms (min %.1f, max %.1f)  cpu median %.1f ms (min %.1f)" %
          (name, statistics.median(w), min(w), max(w), statistics.median(c), min(c)))
PY
