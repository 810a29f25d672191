#!/bin/bash
# layers.sh: libying is a one-way chain of families, libying-live (src/live)
# sits on it, and the front ends sit on their public APIs.
# docs/architecture.md draws the picture this enforces:
#
#   libying:      base < model < read < sym < write < diff < sql
#   libying-live: src/live (any libying header; never the reverse)
#   front ends:   src/cli, src/agent, src/common, jeprof-compat (include/ only)
#
# A file's family is the prefix of its name (read_heap.c, read.h: read).
# Checked on the sources:
#   - a src/lib file includes only headers of its own family or lower ones,
#     never internal.h (the umbrella, for unit tests only);
#   - a private header (any src/lib header other than FAMILY.h, e.g.
#     sym_int.h) is included only by files of its own family;
#   - no src/lib file includes a src/live header, nor is named live_*;
#   - the front ends include neither internal.h nor any src/lib or src/live
#     header (agent_paths.h, generated install paths, is not one).
# Checked on the built objects (nm): every yi_ or ying_ function an object
# of libying uses is defined in an object of its own family or a lower one,
# never in libying-live; and the front ends' objects use no yi_ symbol
# (the agent: only those src/common/fe_agent.h declares).
set -u
: "${YING_SRCDIR:?}" "${YING_BUILDDIR:?}"
. "$YING_SRCDIR/tests/integration/tap.sh"
need nm awk
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT

FAMILIES="base model read sym write diff leaks sql"
# Ranks and families without a subshell per name: forks are what made this
# test slow on a loaded 2-core machine.
declare -A RANK
i=0
for f in $FAMILIES; do RANK[$f]=$i; i=$((i + 1)); done
# set_family NAME: FAM becomes the family of a src/lib file name, or "".
set_family() {
	local b=${1##*/}
	b=${b%.*}
	b=${b%%_*}
	if [ -n "${RANK[$b]+x}" ]; then FAM=$b; else FAM=; fi
}
lib="$YING_SRCDIR/src/lib"
n_lib=0
: >"$T/up"; : >"$T/priv"; : >"$T/umbrella"
for f in "$lib"/*.c "$lib"/*.h; do
	base=${f##*/}
	[ "$base" = internal.h ] && continue
	set_family "$base"; ff=$FAM
	if [ -z "$ff" ]; then
		echo "$base: not in a family ($FAMILIES)" >>"$T/up"
		continue
	fi
	n_lib=$((n_lib + 1))
	fr=${RANK[$ff]}
	for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		hb=${h##*/}
		if [ "$hb" = internal.h ]; then
			echo "$base includes internal.h" >>"$T/umbrella"
			continue
		fi
		set_family "$hb"; hf=$FAM
		[ -n "$hf" ] || continue        # ying.h, generated protobuf, ...
		[ -f "$lib/$hb" ] || continue
		if [ "${RANK[$hf]}" -gt "$fr" ]; then
			echo "$base ($ff) includes $hb ($hf, higher)" >>"$T/up"
		elif [ "$hb" != "$hf.h" ] && [ "$hf" != "$ff" ]; then
			echo "$base ($ff) includes $hb, private to $hf" >>"$T/priv"
		fi
	done
done
test "$n_lib" -gt 40
ok $? "src/lib has its files in families ($n_lib files)"
test ! -s "$T/up"
ok $? "no src/lib file includes a higher family's header" || diag "$T/up"
test ! -s "$T/priv"
ok $? "private headers are included only inside their family" || diag "$T/priv"
test ! -s "$T/umbrella"
ok $? "no src/lib file includes internal.h" || diag "$T/umbrella"

live="$YING_SRCDIR/src/live"
: >"$T/down"
ls "$lib"/live* >>"$T/down" 2>/dev/null
for f in "$lib"/*.c "$lib"/*.h; do
	[ "${f##*/}" = internal.h ] && continue
	for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^">]*\)[">].*/\1/p' "$f"); do
		hb=${h##*/}
		if [ -f "$live/$hb" ] || [ "$hb" = ying-live.h ] || [ "$hb" = microhttpd.h ] ||
		    [ "${hb%%/*}" = curl ] || [ "$h" = curl/curl.h ]; then
			echo "${f##*/} includes $h" >>"$T/down"
		fi
	done
done
test ! -s "$T/down"
ok $? "libying (src/lib) includes no live-runtime, libmicrohttpd or libcurl header" || diag "$T/down"
n_live=$(ls "$live"/*.c | wc -l)
test "$n_live" -gt 20
ok $? "the live runtime has its own folder ($n_live files in src/live)"

: >"$T/fe"
for f in "$YING_SRCDIR"/src/cli/*.[ch] "$YING_SRCDIR"/src/agent/*.[ch] \
    "$YING_SRCDIR"/src/common/*.[ch] "$YING_SRCDIR"/jeprof-compat/*.c; do
	for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		hb=${h##*/}
		# the two standalone base modules (libc only) that src/common
		# compiles again under its own names: one rule, two objects
		case "$f:$hb" in
		*/src/common/*:base_num.[ch] | */src/common/*:base_dir.[ch]) continue ;;
		esac
		if [ "$hb" = internal.h ] || [ -f "$lib/$hb" ] || [ -f "$live/$hb" ]; then
			echo "${f#"$YING_SRCDIR"/} includes $hb" >>"$T/fe"
		fi
	done
done
test ! -s "$T/fe"
ok $? "the front ends include no libying or libying-live internal header" || diag "$T/fe"

# ---- the objects -----------------------------------------------------------
objdir="$YING_BUILDDIR/src/lib/.libs"
ls "$objdir"/libying_core_la-*.o >/dev/null 2>&1 || objdir="$YING_BUILDDIR/src/lib"
: >"$T/defs"
n_obj=0
for o in "$objdir"/libying_core_la-*.o "$objdir"/libying_sql_la-*.o; do
	[ -f "$o" ] || continue
	name=${o##*_la-}
	set_family "$name"; ff=$FAM
	[ -n "$ff" ] || continue
	n_obj=$((n_obj + 1))
	nm --defined-only "$o" | awk -v f="$ff" -v o="${name%.o}" \
	    '$2 ~ /^[A-Z]$/ && $3 ~ /^(yi|ying)_/ { print $3, f, o }' >>"$T/defs"
done
test "$n_obj" -gt 40
ok $? "libying's objects are built ($n_obj in ${objdir#"$YING_BUILDDIR"/})"
: >"$T/undef"
for o in "$objdir"/libying_core_la-*.o "$objdir"/libying_sql_la-*.o; do
	[ -f "$o" ] || continue
	name=${o##*_la-}
	set_family "$name"; ff=$FAM
	[ -n "$ff" ] || continue
	nm --undefined-only "$o" | awk -v f="$ff" -v o="${name%.o}" \
	    '$2 ~ /^(yi|ying)_/ { print $2, f, o }' >>"$T/undef"
done
# One join of the uses against the definitions (an awk per symbol took
# two minutes on the CI machine).
awk -v fams="$FAMILIES" '
	BEGIN { n = split(fams, a, " "); for (i = 1; i <= n; i++) rank[a[i]] = i }
	NR == FNR { if (!($1 in def)) { def[$1] = $2; obj[$1] = $3 } next }
	($1 in def) && rank[def[$1]] > rank[$2] {
		print $3 " (" $2 ") calls " $1 ", defined in " obj[$1] " (" def[$1] ")"
	}' "$T/defs" "$T/undef" >"$T/calls"
test ! -s "$T/calls"
ok $? "no libying object calls a function of a higher family" || diag "$T/calls"

# libying never calls into libying-live
lobj="$YING_BUILDDIR/src/live/.libs"
ls "$lobj"/libying_live_core_la-*.o >/dev/null 2>&1 || lobj="$YING_BUILDDIR/src/live"
: >"$T/ldefs"
for o in "$lobj"/libying_live_core_la-*.o; do
	[ -f "$o" ] || continue
	nm --defined-only "$o" | awk -v o="${o##*_la-}" '$2 ~ /^[A-Z]$/ && $3 ~ /^(yi|ying)_/ { print $3, o }' >>"$T/ldefs"
done
test -s "$T/ldefs"
ok $? "libying-live's objects are built"
awk 'NR == FNR { def[$1] = $2; next } ($1 in def) { print $3 " calls " $1 ", defined in " def[$1] " (src/live)" }' \
    "$T/ldefs" "$T/undef" >"$T/upcalls"
test ! -s "$T/upcalls"
ok $? "no libying object calls into libying-live" || diag "$T/upcalls"

: >"$T/feyi"
n_fe=0
# what the agent may use of the runtime's internals
allow=$(sed -n 's/^[a-z].*[ *]\(yi_[a-z_0-9]*\)(.*/\1/p' "$YING_SRCDIR/src/common/fe_agent.h" | tr '\n' ' ')
for o in "$YING_BUILDDIR"/src/cli/*.o "$YING_BUILDDIR"/src/agent/.libs/*.o \
    "$YING_BUILDDIR"/src/common/.libs/*.o; do
	[ -f "$o" ] || continue
	n_fe=$((n_fe + 1))
	case $o in */src/agent/*) ok_yi=" $allow" ;; *) ok_yi= ;; esac
	nm --undefined-only "$o" | awk -v o="${o##*/}" -v allow="$ok_yi " \
	    '$2 ~ /^yi_/ && index(allow, " " $2 " ") == 0 { print o, "uses", $2 }' >>"$T/feyi"
done
test "$n_fe" -ge 10
ok $? "the front ends' objects are built ($n_fe)"
test ! -s "$T/feyi"
ok $? "the front ends use the public API only (no yi_ symbol)" || diag "$T/feyi"

plan_done
