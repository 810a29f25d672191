#!/bin/sh
# bench.sh: reproducible benchmarks of ying against jeprof.
#
#   scripts/bench.sh [stacks|clang|formats|dwarf|all]      (default: all)
#
# Installs the benchmark packages (scripts/deps.sh --bench), builds ying in
# build/ if it is not built yet (YING=/path/to/ying uses another binary),
# regenerates every dump under bench/out/ (git-ignored) and runs:
#   stacks  a 200,000-stack dump from bench/gen_stacks.c: `ying top` vs
#           `jeprof --text` (wall time, peak RSS), RUNS=5 alternating runs
#   clang   a real clang++ compile profiled with jemalloc: `ying top` vs
#           `jeprof --text /usr/lib/llvm-14/bin/clang`, RUNS=3
#   formats ying pprof / flamegraph / folded and yingdiff on the same dump,
#           vs jeprof --collapsed and jeprof --base
#   dwarf   a -g C++ program with one large DWARF unit: ying top vs jeprof
# Results: bench/out/{stacks,clang,formats}.md (docs/benchmarks.md quotes them).
# Never part of `make check`.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-all}
case "$what" in stacks|clang|formats|dwarf|all) ;; *) echo "usage: scripts/bench.sh [stacks|clang|formats|dwarf|all]" >&2; exit 2 ;; esac

sh "$ROOT/scripts/deps.sh" --bench
if [ -z "${YING:-}" ]; then
	B="$ROOT/build"
	if [ ! -x "$B/ying" ]; then
		[ -x "$ROOT/configure" ] || (cd "$ROOT" && autoreconf -fi)
		mkdir -p "$B"
		(cd "$B" && { [ -f Makefile ] || "$ROOT/configure" -q; } && make -j"$(nproc)" ying)
	fi
	YING="$B/ying"
fi
OUT="$ROOT/bench/out"
mkdir -p "$OUT"
export YING OUT SRCDIR="$ROOT"
case "$what" in stacks|all) sh "$ROOT/bench/stacks.sh" ;; esac
case "$what" in clang|all) sh "$ROOT/bench/clang.sh" ;; esac
case "$what" in formats|all) sh "$ROOT/bench/formats.sh" ;; esac
case "$what" in dwarf|all) sh "$ROOT/bench/dwarf.sh" ;; esac
echo "bench: results in $OUT/*.md"
