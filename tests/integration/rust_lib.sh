# rust_lib.sh: helpers sourced by the Rust integration tests
# (tests/integration/rust_*.sh).  Not a test itself.
#
# Gives everything agent_lib.sh gives (TAP, $T, `ying`, wait_for,
# report_sets, ...), plus: the Rust programs, built once per build tree by
# tests/rust/build.sh under a lock (the first test to get here builds, the
# others wait; a missing cargo, rustc or librust-jemalloc-sys-dev skips the
# test, or fails it with YING_REQUIRE_TOOLS=1) in $RS (rustsvc, rustsvc-d2, rustsvc-v0,
# rustsvc-stripped, ying-rust-example); `svc_line MARKER` (the line of a
# marker comment in rustsvc's main.rs); `jeprof_total BIN DUMP`;
# `raw_names FILE...` (mangled Rust names or ::h<hash> suffixes left in
# output files); `pprof_funcs FILE` (a pprof's functions: name, system_name,
# filename, tab-separated); `start_svc`/`http_port`/`fetch`.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need flock strip curl go jeprof "${YING_CARGO:-/usr/bin/cargo}" "${YING_RUSTC:-/usr/bin/rustc}"
[ -d /usr/share/cargo/registry/jemalloc-sys-0.3.2 ] ||
    missing "librust-jemalloc-sys-dev (/usr/share/cargo/registry/jemalloc-sys-0.3.2)"

RS="$YING_BUILDDIR/tests/rust-build/bin"
SVC_SRC="$YING_SRCDIR/tests/rust/svc/src/main.rs"
mkdir -p "$YING_BUILDDIR/tests/rust-build"
echo "# building the Rust programs (once per build tree; tests/rust-build/build.log)"
rl_start=$(date +%s)
if ! flock -w 1800 "$YING_BUILDDIR/tests/rust-build/lock" \
    sh "$YING_SRCDIR/tests/rust/build.sh" "$YING_SRCDIR" "$YING_BUILDDIR" \
    >"$T/rust-build.log" 2>&1; then
	echo "not ok 1 - building the Rust test programs (tests/rust/build.sh) failed"
	tail -n 30 "$T/rust-build.log" | sed 's/^/#   /'
	echo "1..1"
	exit 1
fi
cat "$T/rust-build.log" >>"$YING_BUILDDIR/tests/rust-build/build.log"
echo "# Rust programs ready after $(($(date +%s) - rl_start)) s"
tool_homes "$T"

# svc_line MARKER: the line number of MARKER in rustsvc's main.rs.
svc_line() {
	grep -n "$1" "$SVC_SRC" | head -n 1 | cut -d: -f1
}

# jeprof_total BIN DUMP: jeprof's "Total:" in bytes for DUMP given BIN.
jeprof_total() {
	timeout 300 jeprof --text --show_bytes "$1" "$2" 2>"$T/jeprof.err" |
	    sed -n 's/^Total: \([0-9-]*\) .*/\1/p' | head -n 1
}

# raw_names FILE...: the raw Rust names left in FILEs (legacy _ZN...E, v0
# _R..., a ::h<16 hex> hash suffix), one per line; empty when all are
# demangled.  (.svg and .report files are text; pprof files go through
# pprof_funcs first.)
raw_names() {
	grep -ohE '_ZN[0-9][0-9A-Za-z_$.]*|(^|[^A-Za-z0-9_])_R[A-Z][A-Za-z0-9_]+|::h[0-9a-f]{16}([^0-9a-f]|$)' "$@" |
	    sort -u | head -n 20
}

# pprof_funcs FILE: the functions of a (gzipped) pprof profile, one per
# line: name TAB system_name TAB filename (profile.proto read by hand).
pprof_funcs() {
	python3 - "$1" <<'PY'
import gzip, sys
data = open(sys.argv[1], "rb").read()
if data[:2] == b"\x1f\x8b":
    data = gzip.decompress(data)
def fields(b):
    i = 0
    while i < len(b):
        key = 0; s = 0
        while True:
            c = b[i]; i += 1; key |= (c & 0x7f) << s; s += 7
            if c < 0x80: break
        f, w = key >> 3, key & 7
        if w == 0:
            v = 0; s = 0
            while True:
                c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
                if c < 0x80: break
            yield f, v
        elif w == 2:
            n = 0; s = 0
            while True:
                c = b[i]; i += 1; n |= (c & 0x7f) << s; s += 7
                if c < 0x80: break
            yield f, b[i:i + n]; i += n
        elif w == 1:
            yield f, b[i:i + 8]; i += 8
        elif w == 5:
            yield f, b[i:i + 4]; i += 4
        else:
            raise SystemExit("bad wire type %d" % w)
strings, funcs = [], []
for f, v in fields(data):
    if f == 6:
        strings.append(v.decode("utf-8", "replace"))
    elif f == 5:
        funcs.append(dict(fields(v)))
for fn in funcs:
    print("\t".join(strings[fn.get(k, 0)] for k in (2, 3, 4)))
PY
}

# start_svc LOG ERR ARGS...: `ying ARGS...` in the background (its pid in
# $svc_pid and $bg_pids), stdout to LOG, stderr to ERR.
start_svc() {
	_o=$1 _e=$2
	shift 2
	"$YING" "$@" >"$_o" 2>"$_e" &
	svc_pid=$!
	bg_pids="$bg_pids $svc_pid"
}

# http_port ERR: the port of the "HTTP on http://127.0.0.1:PORT/" line in
# ERR, once it is there (30 s at most).
http_port() {
	wait_for 30 grep -q 'HTTP on http://127.0.0.1:[0-9]*/' "$1" &&
	    sed -n 's|.*HTTP on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$1" | head -n 1
}

# fetch PORT PATH FILE: GET http://127.0.0.1:PORT/PATH into FILE; 0 on 200.
fetch() {
	[ "$(curl -s -m 60 -o "$3" -w '%{http_code}' "http://127.0.0.1:$1/$2")" = 200 ]
}
