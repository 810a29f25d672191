#!/bin/sh
# clang.sh: `ying top` vs `jeprof --text` on a real clang/LLVM heap profile,
# symbolization included.  clang++ compiles a generated template-heavy C++
# file (bench/gen_big_cpp.sh) with the system jemalloc preloaded and
# MALLOC_CONF=prof:true,prof_accum:true,prof_final:true, so the final dump has
# every sampled stack of the compile (live and freed).  The program passed to
# jeprof is the real binary named in the dump's mappings (symlinks resolved).
# Also reports the share jeprof charges to `malloc_usable_size` (jemalloc's
# stripped internals, e.g. operator new) and what ying names instead.
# Environment: YING, OUT, RUNS (default 3), SRCDIR, NSTRUCTS (default 8).
# Writes $OUT/clang.md.
set -eu
BENCH=clang
. "$SRCDIR/bench/lib.sh"
RUNS=${RUNS:-3}
JE=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2

CXX=$(command -v clang++)
PROG=$(readlink -f "$CXX")
sh "$SRCDIR/bench/gen_big_cpp.sh" "${NSTRUCTS:-8}" >"$OUT/big.cpp"
rm -rf "$OUT/clang-prof"
mkdir -p "$OUT/clang-prof"
t0=$(date +%s.%N)
LD_PRELOAD=$JE MALLOC_CONF="prof:true,prof_accum:true,prof_final:true,prof_prefix:$OUT/clang-prof/clang" \
    "$CXX" -std=c++17 -O1 -c "$OUT/big.cpp" -o "$OUT/big.o"
t1=$(date +%s.%N)
D="$OUT/clang.heap"
# The largest final dump is the compiler's (the driver may leave its own).
mv "$(ls -S "$OUT"/clang-prof/*.f.heap | head -n 1)" "$D"
grep -q " $PROG\$" "$D" || { echo "clang: $PROG is not in the dump's mappings" >&2; exit 1; }
nstacks=$(grep -c '^@' "$D")
size=$(stat -c %s "$D")
compile=$(python3 -c "print('%.1f' % ($t1 - $t0))")
echo "clang: $D: $nstacks stacks, $size bytes; compile took $compile s; program $PROG"

"$YING" top --json "$D" >"$OUT/clang.ying.json"
"$YING" top -n 12 "$D" >"$OUT/clang.ying.txt"
"$YING" top --json --sample-index alloc_space "$D" >"$OUT/clang.ying.alloc.json"
jeprof --text --show_bytes "$PROG" "$D" >"$OUT/clang.jeprof.txt" 2>/dev/null
jeprof --text --show_bytes --alloc_space "$PROG" "$D" >"$OUT/clang.jeprof.alloc.txt" 2>/dev/null

: >"$OUT/$BENCH.times"
i=0
while [ "$i" -lt "$RUNS" ]; do
	measure ying "$YING" top "$D"
	measure jeprof jeprof --text --show_bytes "$PROG" "$D"
	i=$((i + 1))
	echo "clang: run $i/$RUNS: $(tail -n 2 "$OUT/$BENCH.times" | tr '\n' ' ')"
done
set -- $(stats ying)
y_med=$1 y_min=$2 y_max=$3 y_rss=$4
set -- $(stats jeprof)
j_med=$1 j_min=$2 j_max=$3 j_rss=$4

python3 - "$OUT" <<PY
import json, os, re, sys
out = sys.argv[1]
def jeprof_rows(path):
    total, rows = None, []
    for line in open(path):
        m = re.match(r"Total: (\d+)", line)
        if m:
            total = int(m.group(1)); continue
        f = line.split(None, 5)
        if len(f) == 6:
            rows.append((f[5].strip(), int(f[0])))
    return total, rows
def share(rows, total, name):
    return 100.0 * sum(v for n, v in rows if n == name) / total
lines = []
for label, jp, yp in (("inuse_space", "clang.jeprof.txt", "clang.ying.json"),
                      ("alloc_space", "clang.jeprof.alloc.txt", "clang.ying.alloc.json")):
    jt, jr = jeprof_rows(os.path.join(out, jp))
    y = json.load(open(os.path.join(out, yp)))
    yt = y["total"]
    short = lambda n: re.sub(r"\(.*", "", n)[:50]
    ytop = ", ".join("\`%s\` %.1f%%" % (short(r["function"]), 100.0 * r["flat"] / yt) for r in y["rows"][:4])
    jtop = ", ".join("\`%s\` %.1f%%" % (short(n), 100.0 * v / jt) for n, v in jr[:3])
    ymus = sum(r["flat"] for r in y["rows"] if r["function"] == "malloc_usable_size")
    # module+0xoffset: no symbol covers the address (static code in a stripped library)
    yanon = sum(r["flat"] for r in y["rows"] if re.search(r"\+0x[0-9a-f]+$", r["function"]))
    lines.append("| %s | %d | %d | %.1f%% | %.1f%% | %.1f%% | %s | %s |" % (
        label, jt, int(yt), share(jr, jt, "malloc_usable_size"), 100.0 * ymus / yt,
        100.0 * yanon / yt, jtop, ytop))
size = $size
with open(os.path.join(out, "clang.md"), "w") as f:
    f.write("""### clang++ compiling a template-heavy file ($nstacks stacks, %.2f MB dump)

Machine: $(machine).
Command: \`scripts/bench.sh clang\` (RUNS=$RUNS, alternating): \`clang++ -std=c++17 -O1 -c big.cpp\`
(bench/gen_big_cpp.sh ${NSTRUCTS:-8}; $compile s with the profiler) under
\`LD_PRELOAD=$JE MALLOC_CONF=prof:true,prof_accum:true,prof_final:true,...\`, then
\`$YING top DUMP\` vs \`jeprof --text --show_bytes $PROG DUMP\` (both symbolize libLLVM-14,
libclang-cpp, libstdc++, libc; output to /dev/null).

| tool | median wall | min | max | peak RSS |
|---|---|---|---|---|
| ying top | $y_med s | $y_min s | $y_max s | %.1f MB |
| jeprof --text | $j_med s | $j_min s | $j_max s | %.1f MB |

ying is **%.1f×** faster (median); goal ≥ 20×.

What the two name (share of the total):

| index | jeprof Total | ying total | jeprof \`malloc_usable_size\` | ying \`malloc_usable_size\` | ying \`module+0xoffset\` | jeprof top rows | ying top rows |
|---|---|---|---|---|---|---|---|
%s
""" % (size / 1e6, $y_rss * 1024 / 1e6, $j_rss * 1024 / 1e6, $j_med / max($y_med, 0.005), "\n".join(lines)))
PY
cat "$OUT/clang.md"
