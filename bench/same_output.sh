#!/bin/sh
# same_output.sh: do two ying builds print the same thing?  For refactors
# that must not change behaviour (issue 10): every output format of `ying`
# and `yingdiff` on a corpus of dumps, old build vs new build, byte for byte.
#
#   bench/same_output.sh OLD_BUILD_DIR NEW_BUILD_DIR DUMP...
#
# Each DUMP goes through: top (functions, --lines, --stacks, --cum, --json,
# every sample index it has), folded (plain, --lines), flamegraph, pprof
# (compared through `ying top --json` of the result, since the bytes carry
# a time stamp), and yingdiff of each dump against the first one (text,
# --json, --folded, --svg).  Exit 0 when every output is identical; else
# the differing commands are listed with the first lines of the diff.
set -u
[ $# -ge 3 ] || { echo "usage: bench/same_output.sh OLD_BUILD NEW_BUILD DUMP..." >&2; exit 2; }
old=$1 new=$2
shift 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ying-same.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 bad=0
# run NAME ARGS...: the command under both builds; compare stdout+status
run() {
	name=$1
	shift
	n=$((n + 1))
	"$old/ying" "$@" >"$tmp/o" 2>"$tmp/oe"; echo "exit $?" >>"$tmp/o"
	"$new/ying" "$@" >"$tmp/n" 2>"$tmp/ne"; echo "exit $?" >>"$tmp/n"
	if ! cmp -s "$tmp/o" "$tmp/n"; then
		bad=$((bad + 1))
		echo "DIFFERS: ying $*"
		diff "$tmp/o" "$tmp/n" | head -n 8 | sed 's/^/    /'
	fi
}
first=$1
for d in "$@"; do
	run top top "$d"
	run lines top --lines "$d"
	run stacks top --stacks -n 50 "$d"
	run cum top --cum "$d"
	run json top --json "$d"
	for i in inuse_objects alloc_space alloc_objects; do
		run "$i" top -i "$i" "$d"
	done
	run folded folded "$d"
	run folded-lines folded --lines "$d"
	run svg flamegraph "$d" -o /dev/stdout
	"$old/ying" pprof "$d" -o "$tmp/o.pb.gz" 2>/dev/null
	"$new/ying" pprof "$d" -o "$tmp/n.pb.gz" 2>/dev/null
	n=$((n + 1))
	if ! "$old/ying" top --json "$tmp/o.pb.gz" >"$tmp/po" 2>&1 ||
	    ! "$new/ying" top --json "$tmp/n.pb.gz" >"$tmp/pn" 2>&1 || ! cmp -s "$tmp/po" "$tmp/pn"; then
		bad=$((bad + 1))
		echo "DIFFERS: ying pprof $d (read back)"
	fi
	run diff diff "$first" "$d"
	run diff-json diff --json "$first" "$d"
	run diff-folded diff --folded "$first" "$d"
	run diff-svg diff --svg "$first" "$d" -o /dev/stdout
done
echo "$n outputs compared, $bad differ"
[ "$bad" -eq 0 ]
