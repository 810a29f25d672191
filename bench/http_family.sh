#!/bin/sh
# http_family.sh: what the service-wide endpoint costs (issue 25): a head
# and two forked members (tests/programs/http_family), each request asked
# N times in a row from python3 (fresh connection each); prints the median
# and 90th percentile.  Compares an endpoint answered by the head with the
# same one forwarded to a member (?pid=N), and the head's heap with the
# sum over the three processes (?pid=all).
#
#   bench/http_family.sh BUILD
: "${1:?usage: bench/http_family.sh BUILD}"
T=$(mktemp -d "${TMPDIR:-/tmp}/ying-famb.XXXXXX")
trap 'rm -rf "$T"' EXIT
MALLOC_CONF=prof:true,lg_prof_sample:14 "$1/tests/programs/http_family" > $T/fam.out 2>$T/fam.err &
HP=$!
sleep 1.5
PORT=$(awk '/^port/{print $2}' $T/fam.out); A=$(awk '$3=="alpha"{print $2}' $T/fam.out); B=http://127.0.0.1:$PORT
m() { python3 - "$@" <<'EOF'
import sys, time, urllib.request
url=sys.argv[1]; n=int(sys.argv[2]); ts=[]
for i in range(n):
    t=time.perf_counter(); urllib.request.urlopen(url).read(); ts.append((time.perf_counter()-t)*1e3)
ts.sort(); print("%-45s median %6.2f ms  p90 %6.2f ms (n=%d)" % (url.split('/',3)[3], ts[n//2], ts[int(n*0.9)], n))
EOF
}
m "$B/debug/prof" 100; m "$B/debug/prof?pid=$A" 100; m "$B/debug/processes" 100
m "$B/debug/heap?format=text" 30; m "$B/debug/heap?format=text&pid=$A" 30
m "$B/debug/pprof/heap" 30; m "$B/debug/pprof/heap?pid=$A" 30; m "$B/debug/pprof/heap?pid=all" 30
kill $HP; wait $HP
