#!/bin/sh
# cli_output.sh: `ying ... -o FILE` writes through an exclusive temporary
# (src/cli/cli_util.c: cli_open_output), never through a name another
# user prepared.
#
# The output goes into a directory others may write into (0777, no sticky
# bit, so the kernel's protected_symlinks/protected_regular do not apply).
# Before the run, uid 65534 plants what today's predictable temporary name
# (FILE.tmp.<pid>; the pid is known: sh -c '...; exec ying') would be:
# (1) a symlink to a root-only file: the file must be untouched and FILE a
# whole pprof profile of root's; (2) a file of her own, which she later
# appends script to: the SVG must be root's, a new file, and free of her
# script.  Also: the result has the mode the umask gives (0644 under 022,
# 0600 under 077), -o into the current directory works, no temporary is
# left behind, and an existing symlink at FILE itself is replaced, its
# target untouched.  A named pipe, directly or through root's own symlink,
# is written through (its reader gets the profile) and stays a pipe.
. "$YING_SRCDIR/tests/integration/top_lib.sh"

need setpriv stat od cc pkg-config mkfifo
AS_HER="setpriv --reuid=65534 --regid=65534 --clear-groups"
# shellcheck disable=SC2046
cc -g -O0 -o "$T/prog" "$YING_SRCDIR/tests/programs/bin_changed.c" \
    $(pkg-config --cflags --libs jemalloc) &&
    run_prog prof:true,lg_prof_sample:0 "$T/prog" "$T/basic.heap"
ok $? "bin_changed writes a dump" || exit 1
chmod 755 "$T"
S="$T/shared"
mkdir -m 0777 "$S"
chmod 0777 "$S"
printf 'root only\n' >"$T/secret"
chmod 600 "$T/secret"
cp "$T/secret" "$T/secret.orig"
cp "$T/secret" "$T/secret2"

# plant KIND OUT CMD...: as uid 65534, put a symlink to $T/secret ("link")
# or a 0666 file of her own ("file") at OUT.tmp.<pid of CMD>, then run CMD
# (as root) with that pid.
plant() {
	_kind=$1 _out=$2
	shift 2
	timeout 60 sh -c '
	    k=$1 o=$2 s=$3 as=$4
	    shift 4
	    if [ "$k" = link ]; then $as ln -s "$s" "$o.tmp.$$"
	    else $as sh -c "umask 0; : >\"\$1\"" sh "$o.tmp.$$"; fi || exit 99
	    exec "$@"' sh "$_kind" "$_out" "$T/secret" "$AS_HER" "$@"
}

# (1) a planted symlink
plant link "$S/heap.pb.gz" "$YING" pprof -o "$S/heap.pb.gz" "$T/basic.heap" \
    >"$T/p1.out" 2>"$T/p1.err"
is "$?" 0 "ying pprof -o with a symlink planted at the old temporary name"
cmp -s "$T/secret" "$T/secret.orig"
ok $? "the root-only file the link points to is untouched"
test -f "$S/heap.pb.gz" && ! test -L "$S/heap.pb.gz" &&
    test "$(od -An -tx1 -N2 "$S/heap.pb.gz" | tr -d ' ')" = 1f8b &&
    test "$(stat -c %u "$S/heap.pb.gz")" = 0
ok $? "the output is a regular gzip file of root's" || ls -l "$S" | sed 's/^/#   /'

# (2) a pre-created file of hers
umask 022
plant file "$S/flame.svg" "$YING" flamegraph -o "$S/flame.svg" "$T/basic.heap" \
    >"$T/p2.out" 2>"$T/p2.err"
is "$?" 0 "ying flamegraph -o with her file at the old temporary name"
$AS_HER sh -c 'for f in "$1"/*.tmp.*; do echo "<script>alert(1)</script>" >>"$f"; done' \
    sh "$S" 2>/dev/null
$AS_HER sh -c 'echo "<script>alert(2)</script>" >>"$1"' sh "$S/flame.svg" 2>/dev/null
! grep -q 'alert(' "$S/flame.svg"
ok $? "her script is not in the SVG (neither through her file nor by writing to it)"
test "$(stat -c %u:%a "$S/flame.svg")" = 0:644 && grep -q '</svg>' "$S/flame.svg"
ok $? "the SVG is a whole file of root's, mode 0644 under umask 022" ||
    stat -c '#   %n %u %a' "$S/flame.svg"

# the mode follows the umask; -o into the current directory; nothing left
mkdir "$T/mine"
(cd "$T/mine" && umask 077 && timeout 60 "$YING" pprof -o p.pb.gz "$T/basic.heap")
is "$?" 0 "ying pprof -o NAME in the current directory"
is "$(stat -c %a "$T/mine/p.pb.gz" 2>&1)" 600 "mode 0600 under umask 077"
is "$(ls -A "$T/mine")" "p.pb.gz" "no temporary left behind"
ln -s "$T/secret2" "$T/mine/link.pb.gz"
ying pprof -o "$T/mine/link.pb.gz" "$T/basic.heap"
is "$?" 0 "-o naming an existing symlink"
test ! -L "$T/mine/link.pb.gz" && cmp -s "$T/secret2" "$T/secret.orig"
ok $? "the symlink is replaced by the file, its target untouched"
# a failed run leaves nothing: an unreadable dump
ying pprof -o "$T/mine/bad.pb.gz" "$T/no-such.heap" 2>"$T/bad.err"
test $? -ne 0 && test ! -e "$T/mine/bad.pb.gz" &&
    test "$(ls -A "$T/mine" | wc -l | tr -d ' ')" = 2
ok $? "a failed run leaves neither output nor temporary" || ls -A "$T/mine" | sed 's/^/#   /'

# a named pipe (and root's own symlink to one) is written through, not
# replaced by a renamed file (a reader would wait forever)
mkfifo "$T/mine/fifo"
ln -s "$T/mine/fifo" "$T/mine/fifo-link"
for o in "$T/mine/fifo" "$T/mine/fifo-link"; do
	timeout 20 cat "$T/mine/fifo" >"$T/got" &
	c=$!
	timeout 20 "$YING" pprof -o "$o" "$T/basic.heap"
	r=$?
	wait "$c"
	test "$r" = 0 && test "$(od -An -tx1 -N2 "$T/got" | tr -d ' ')" = 1f8b &&
	    test -p "$T/mine/fifo"
	ok $? "-o $(basename "$o"): the reader gets the profile, the FIFO stays" ||
	    ls -l "$T/mine" | sed 's/^/#   /'
done
test -L "$T/mine/fifo-link"
ok $? "... and the symlink stays"

plan_done
