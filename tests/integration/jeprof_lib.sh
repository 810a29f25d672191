# jeprof_lib.sh: what the ying-jeprof tests (jeprof_compat.sh,
# jeprof_compat_remote.sh) share.  Sourced after top_lib.sh or agent_lib.sh
# (they set T, YING_BUILDDIR).
#
#   yj ARGS...       ying-jeprof from the build tree (60 s at most)
#   jp ARGS...       the real jeprof, its temporary files in $T/jeprof-tmp,
#                    its stderr appended to $T/jeprof.err (120 s at most)
#   total_of FILE    the number after "Total:" in a --text report
YJ="$YING_BUILDDIR/ying-jeprof"
yj() {
	timeout 60 "$YJ" "$@"
}
jp() {
	JEPROF_TMPDIR="$T/jeprof-tmp" timeout 120 jeprof "$@" 2>>"$T/jeprof.err"
}
total_of() {
	sed -n 's/^Total: \([-0-9.]*\) .*/\1/p' "$1" | head -n 1
}
