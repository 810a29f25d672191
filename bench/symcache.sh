#!/bin/sh
# symcache.sh: `ying top` with the persistent symbol cache (sym_cache.c),
# side by side with an older ying, on two dumps:
#   small  tests/programs/top_basic under prof:true,lg_prof_sample:0
#   clang  clang++ -O2 compiling bench/gen_big_cpp.sh's file with the system
#          jemalloc preloaded, MALLOC_CONF=prof:true,prof_final:true
#          (libLLVM, libclang-cpp: no debug info, huge .dynsym/.eh_frame)
# In one loop, alternating: OLD top (the before build), NEW top cold (an
# empty YING_CACHE_DIR every run) and NEW top warm (a directory primed
# once).  Wall time is taken around fork/exec/wait (os.wait4, so peak RSS
# is the child's own; CPU = user + system); medians, min/max, ratios.  Outputs of the three are
# compared byte for byte first.
# Environment: YING (new CLI), OLD (before CLI), TOP_BASIC (the program),
# OUT (work directory, default a mktemp dir), RUNS (default 15),
# NSTRUCTS (default 8), SRCDIR (checkout), JEPROF_RUNS (default 3: jeprof
# --text on each dump, after the loop, for the ratio to jeprof).
set -eu
: "${YING:?path of the new ying}" "${OLD:?path of the before ying}" "${TOP_BASIC:?tests/programs/top_basic}"
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
RUNS=${RUNS:-15}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/symcache.XXXXXX")}
JE=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
mkdir -p "$OUT"

(cd "$OUT" && MALLOC_CONF=prof:true,lg_prof_sample:0 "$TOP_BASIC" "$OUT/small.heap" >/dev/null)
if [ ! -s "$OUT/clang.heap" ]; then
	sh "$SRCDIR/bench/gen_big_cpp.sh" "${NSTRUCTS:-8}" >"$OUT/big.cpp"
	rm -rf "$OUT/clang-prof" && mkdir -p "$OUT/clang-prof"
	LD_PRELOAD=$JE MALLOC_CONF="prof:true,prof_final:true,prof_prefix:$OUT/clang-prof/clang" \
	    clang++ -std=c++17 -O2 -c "$OUT/big.cpp" -o "$OUT/big.o"
	mv "$(ls -S "$OUT"/clang-prof/*.f.heap | head -n 1)" "$OUT/clang.heap"
fi
echo "symcache: small.heap $(grep -c '^@' "$OUT/small.heap") stacks, clang.heap $(grep -c '^@' "$OUT/clang.heap") stacks"

CLANG=$(readlink -f "$(command -v clang++)")
python3 - "$YING" "$OLD" "$OUT" "$RUNS" "$TOP_BASIC" "$CLANG" "${JEPROF_RUNS:-3}" <<'PY'
import os, shutil, statistics, subprocess, sys, tempfile, time
new, old, out, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
progs = {"small": sys.argv[5], "clang": sys.argv[6]}
jruns = int(sys.argv[7])
jeprof = shutil.which("jeprof")
env0 = dict(os.environ)
warmdir = os.path.join(out, "warm-cache")

def run(cmd, cache):
    env = dict(env0, YING_CACHE_DIR=cache)
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1); os.dup2(fd, 2)
        os.execve(cmd[0], cmd, env)
    _, st, ru = os.wait4(pid, 0)
    t = time.perf_counter() - t0
    if st != 0:
        sys.exit("symcache: %s failed" % cmd)
    return t, ru.ru_maxrss, ru.ru_utime + ru.ru_stime

def output(cmd, cache):
    return subprocess.run(cmd, env=dict(env0, YING_CACHE_DIR=cache), capture_output=True).stdout

print("load before: " + open("/proc/loadavg").read().strip())
for name in ("small", "clang"):
    d = os.path.join(out, name + ".heap")
    shutil.rmtree(warmdir, ignore_errors=True)
    o_old = output([old, "top", d], "off")
    o_cold = output([new, "top", d], tempfile.mkdtemp(dir=out))
    o_warm = output([new, "top", d], warmdir)     # primes warmdir
    o_warm2 = output([new, "top", d], warmdir)
    same = o_old == o_cold == o_warm == o_warm2
    print("%s: outputs byte-identical (before, cold, warm): %s" % (name, same))
    res = {"before": [], "cold": [], "warm": []}
    for i in range(runs):
        res["before"].append(run([old, "top", d], "off"))
        cold = tempfile.mkdtemp(dir=out)
        res["cold"].append(run([new, "top", d], cold))
        shutil.rmtree(cold)
        res["warm"].append(run([new, "top", d], warmdir))
    med = {k: statistics.median(x[0] for x in v) for k, v in res.items()}
    cpu = {k: statistics.median(x[2] for x in v) for k, v in res.items()}
    for k, v in res.items():
        ts = [x[0] for x in v]
        print("%s %-6s median %7.1f ms  min %7.1f  max %7.1f  CPU %6.1f ms  RSS %6.1f MiB  "
              "before/this %5.1fx (CPU %5.1fx)"
              % (name, k, med[k] * 1e3, min(ts) * 1e3, max(ts) * 1e3, cpu[k] * 1e3,
                 statistics.median(x[1] for x in v) / 1024, med["before"] / med[k],
                 cpu["before"] / cpu[k]))
    if jruns > 0:
        js = [run([jeprof, "--text", "--show_bytes", progs[name], d], "off") for _ in range(jruns)]
        jm = statistics.median(x[0] for x in js)
        print("%s jeprof median %7.1f ms  (%d runs)  jeprof/before %.0fx  jeprof/cold %.0fx  jeprof/warm %.0fx"
              % (name, jm * 1e3, jruns, jm / med["before"], jm / med["cold"], jm / med["warm"]))
print("load after: " + open("/proc/loadavg").read().strip())
PY
