#!/bin/sh
# hostile_http.sh: ying's HTTP clients against a hostile server, two builds
# side by side (issue 22, item 7).
#
#   bench/hostile_http.sh OLD_BUILD NEW_BUILD [BUDGET]
#
# Starts tests/integration/hostile_http.py on 127.0.0.1 and runs, under
# each build, `ying top URL` with YING_MAX_MEMORY=BUDGET (default 64M) on
# an endless answer (/endless), a chunked one (/chunked) and a 100 GiB
# Content-Length (/biglen), then `ying upload` of tests/data/heap1.heap.gz
# to an endless 200 answer.  Prints exit status, wall time, peak RSS (GNU
# time), the body bytes the server managed to send, and the first words of
# the error.  The old build reads up to 1 GiB per fetch and, for the upload,
# 5 attempts of 10 s: about a minute and GBs of loopback traffic.
set -eu
[ $# -ge 2 ] || { echo "usage: bench/hostile_http.sh OLD_BUILD NEW_BUILD [BUDGET]" >&2; exit 2; }
old=$1 new=$2 budget=${3:-64M}
for t in python3 /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "hostile_http.sh: needs $t" >&2; exit 2; }
done
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ying-hostile.XXXXXX")
python3 "$here/tests/integration/hostile_http.py" "$tmp" 2>"$tmp/srv.err" &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 1 100); do
	[ -s "$tmp/port" ] && break
	sleep 0.1
done
u="http://127.0.0.1:$(cat "$tmp/port")"
printf '%-8s %-6s %-5s %4s %8s %10s %14s  %s\n' cmd path build exit time "peak RSS" "bytes sent" error
for c in "top /endless" "top /chunked" "top /biglen" "upload /endless"; do
	set -- $c
	for which in old new; do
		eval bin=\$$which
		st=0
		: >"$tmp/sent.log"
		if [ "$1" = top ]; then
			YING_MAX_MEMORY=$budget /usr/bin/time -f '%e %M' -o "$tmp/t" "$bin/ying" top "$u$2" \
			    >/dev/null 2>"$tmp/err" || st=$?
		else
			/usr/bin/time -f '%e %M' -o "$tmp/t" "$bin/ying" upload --url "$u$2" --service bench \
			    "$here/tests/data/heap1.heap.gz" >/dev/null 2>"$tmp/err" || st=$?
		fi
		sleep 1     # the server logs an answer once the client has gone
		printf '%-8s %-6s %-5s %4s %7ss %6.0f MiB %14s  %.60s\n' "$1" "$2" "$which" "$st" \
		    "$(tail -n 1 "$tmp/t" | cut -d' ' -f1)" "$(tail -n 1 "$tmp/t" | awk '{ print $2 / 1024 }')" \
		    "$(awk '{ n += $2 } END { printf "%.0f", n }' "$tmp/sent.log")" \
		    "$(grep -v warning "$tmp/err" | head -n 1 | sed "s|$u||g; s|^ying [a-z]*: ||")"
	done
done
