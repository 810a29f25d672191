#!/bin/sh
# membomb.sh: memory bombs against two ying builds (issue 13, finding 5).
#
#   bench/membomb.sh OLD_BUILD NEW_BUILD [AS_LIMIT [REAL_DUMP...]]
#
# Builds the bombs with tests/integration/membomb.py (see there), then runs
# `ying top` of each under both builds with `prlimit --as=AS_LIMIT` (default
# 1G; the review used 4G, where the old build takes gigabytes of RSS before
# it fails: mind a shared machine) and prints exit status, wall time,
# peak RSS (GNU time) and the first words of the error.  REAL_DUMPs (e.g.
# bench/out/stacks200k.heap) are run too, to show real profiles still load.
set -eu
[ $# -ge 2 ] || { echo "usage: bench/membomb.sh OLD_BUILD NEW_BUILD [AS_LIMIT [REAL_DUMP...]]" >&2; exit 2; }
old=$1 new=$2
as=${3:-1G}
[ $# -ge 3 ] && shift 3 || shift $#
for t in python3 prlimit /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "membomb.sh: needs $t" >&2; exit 2; }
done
as=$(numfmt --from=iec "$as")    # prlimit takes bytes ("1G" is not 1 GiB)
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ying-membomb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for k in empty-gz empty-plain values-gz string-gz heap-gz frames-gz inline-gz; do
	python3 "$here/tests/integration/membomb.py" "$k" "$tmp/$k.pb.gz"
done
printf '%-22s %9s  %-5s %4s %8s %10s  %s\n' input size build exit time "peak RSS" error
for f in "$tmp"/*.pb.gz "$@"; do
	for which in old new; do
		eval bin=\$$which
		st=0
		/usr/bin/time -f '%e %M' -o "$tmp/t" prlimit --as="$as" "$bin/ying" top "$f" \
		    >/dev/null 2>"$tmp/err" || st=$?
		printf '%-22s %8sK  %-5s %4s %7ss %8.0f MiB  %.70s\n' "$(basename "$f")" \
		    "$(($(wc -c <"$f") / 1024))" "$which" "$st" "$(tail -n 1 "$tmp/t" | cut -d' ' -f1)" \
		    "$(tail -n 1 "$tmp/t" | awk '{ print $2 / 1024 }')" \
		    "$(grep -v warning "$tmp/err" | head -n 1 | sed "s|$tmp/||; s|^ying top: cannot read profile: ||")"
	done
done
