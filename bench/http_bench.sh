#!/bin/sh
# http_bench.sh: latency and memory of the embedded endpoint on a big heap
# (a benchmark, not part of `make check`; run by hand, numbers go to
# docs/benchmarks.md; it reuses the test helpers of tests/integration/http_lib.sh).
#
#   YING_BUILDDIR=/path/to/build YING_SRCDIR=/path/to/src \
#       sh bench/http_bench.sh [HEAP_MB [REQUESTS]]
#
# Starts tests/programs/http_server with a HEAP_MB (default 250) heap spread
# over ~190 distinct stacks at jemalloc's default sampling rate, makes one
# request to warm the symbol cache, then times REQUESTS (default 20)
# sequential GET /debug/pprof/heap and prints the cold time, the median and
# p90, and the RSS the server and its caches added (VmRSS, anon, file).
. "$YING_SRCDIR/tests/integration/http_lib.sh"
need curl
MB=${1:-250}
N=${2:-20}

start_server S prof:true --heap-mb "$MB"
cold=$(curl -s -o /dev/null -w '%{time_total}' "$S_URL/debug/pprof/heap")
: > "$T_TMP/lat"
for i in $(seq 1 "$N"); do
	curl -s -o /dev/null -w '%{time_total}\n' "$S_URL/debug/pprof/heap" >> "$T_TMP/lat"
done
stacks=$(curl -s "$S_URL/debug/heap" | grep -c '^@')
sort -n "$T_TMP/lat" | awk -v cold="$cold" -v n="$N" -v st="$stacks" -v mb="$MB" '
	{ a[NR] = $1 * 1000 }
	END {
		med = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		printf "heap %d MB, %d stacks: /debug/pprof/heap cold %.1f ms, warm median %.1f ms, p90 %.1f ms, max %.1f ms (%d requests)\n",
		    mb, st, cold * 1000, med, a[int(n * 0.9 + 0.5)], a[n], n
	}'
before=$(awk '/^rss_before_kb/{print $2, $4, $6}' "$T_TMP/S.out")
after=$(awk '/^VmRSS:/{r=$2} /^RssAnon:/{a=$2} /^RssFile:/{f=$2} END{print r, a, f}' "/proc/$S_PID/status")
echo "$before $after" | awk '{printf "RSS before start %d kB (anon %d, file %d); after %d requests %d kB (anon %d, file %d): +%.1f MB (anon +%.1f, file +%.1f)\n",
    $1, $2, $3, '"$N"' + 1, $4, $5, $6, ($4 - $1) / 1024, ($5 - $2) / 1024, ($6 - $3) / 1024}'
