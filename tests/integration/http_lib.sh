# http_lib.sh: helpers shared by tests/integration/http_*.sh (sourced).
#
# TAP output (ok/not ok with a running number, plan at the end), starting
# tests/programs/http_server under a chosen MALLOC_CONF and reading its
# port, and a curl wrapper that records status, headers and body of one
# request.  Every server started here is killed by its pid on exit.

: "${YING_BUILDDIR:?YING_BUILDDIR not set}"
: "${YING_SRCDIR:?YING_SRCDIR not set}"
HTTP_SERVER=${HTTP_SERVER:-"$YING_BUILDDIR/tests/programs/http_server"}
. "$YING_SRCDIR/tests/integration/tap.sh"
T_PIDS=""
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/ying-http-test.XXXXXX")

t_cleanup() {
	for p in $T_PIDS; do kill -TERM "$p" 2>/dev/null; done
	for p in $T_PIDS; do wait "$p" 2>/dev/null; done
	rm -rf "$T_TMP"
}
trap t_cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 141' PIPE
trap 'exit 143' TERM


check() {  # check DESCRIPTION COMMAND...: ok if the command succeeds
	t_desc=$1
	shift
	"$@" >/dev/null 2>&1
	t_rc=$?
	ok $t_rc "$t_desc"
	if [ $t_rc -ne 0 ]; then
		echo "#   failed: $*"
	fi
}




# start_server NAME MALLOC_CONF [ARGS...]: sets NAME_PID, NAME_PORT, NAME_URL
start_server() {
	s_name=$1
	s_conf=$2
	shift 2
	s_out="$T_TMP/$s_name.out"
	: > "$s_out"
	if [ "$s_conf" = "-" ]; then
		env -u MALLOC_CONF "$HTTP_SERVER" "$@" > "$s_out" 2> "$T_TMP/$s_name.err" &
	else
		MALLOC_CONF=$s_conf "$HTTP_SERVER" "$@" > "$s_out" 2> "$T_TMP/$s_name.err" &
	fi
	s_pid=$!
	T_PIDS="$T_PIDS $s_pid"
	s_port=""
	for _ in $(seq 1 100); do
		s_port=$(awk '/^port /{print $2}' "$s_out")
		[ -n "$s_port" ] && break
		sleep 0.05
	done
	if [ -z "$s_port" ]; then
		echo "Bail out! $s_name did not start:"
		diag "$T_TMP/$s_name.err"
		exit 1
	fi
	eval "${s_name}_PID=$s_pid ${s_name}_PORT=$s_port"
	eval "${s_name}_URL=http://127.0.0.1:$s_port"
}

# req [CURL ARGS...] URL: status in $R_CODE, headers in $T_TMP/h, body in $T_TMP/b.
# A 503 "heap dumps are paced" (the endpoint slows dumps down after a costly
# one: on a loaded machine every dump is costly) is asked again after its
# Retry-After, up to 3 times, as a client should; other answers are final.
req() {
	_r=0
	while :; do
		R_CODE=$(curl -s --max-time 30 -D "$T_TMP/h" -o "$T_TMP/b" -w '%{http_code}' "$@")
		[ "$R_CODE" = 503 ] && [ $_r -lt 3 ] && grep -q 'heap dumps are paced' "$T_TMP/b" 2>/dev/null ||
		    break
		_r=$((_r + 1))
		sleep "$(header Retry-After | tr -cd 0-9 | head -c 2)" 2>/dev/null || sleep 1
	done
}

header() {  # header NAME: value of a response header of the last req
	tr -d '\r' < "$T_TMP/h" | awk -v n="$(echo "$1" | tr 'A-Z' 'a-z')" \
	    'BEGIN{FS=": "} tolower($1)==n {sub(/^[^:]*: /,""); print; exit}'
}

body_has() { grep -a -q -e "$1" "$T_TMP/b"; }

is_json() { perl -MJSON::PP -e 'local $/; decode_json(<STDIN>)' < "${1:-$T_TMP/b}"; }

fd_count() { ls "/proc/$1/fd" | wc -l; }

expect_code() {  # expect_code WANT DESCRIPTION (for the last req)
	if [ "$R_CODE" = "$1" ]; then
		ok 0 "$2"
	else
		ok 1 "$2"
		echo "#   HTTP status $R_CODE, expected $1; body:"
		head -c 600 "$T_TMP/b" | tr -d '\0' | sed 's/^/#   /'
		echo
	fi
}

# exe_addr PID SYMBOL: run-time address of SYMBOL in the server binary + 4
exe_addr() {
	a_sym=$(nm "$HTTP_SERVER" | awk -v s="$2" '$3==s {print $1; exit}')
	a_exe=$(readlink -f "$HTTP_SERVER")
	a_base=$(awk -v p="$a_exe" '$6==p && $3=="00000000" {split($1,r,"-"); print r[1]; exit}' "/proc/$1/maps")
	printf '0x%x' $((0x$a_base + 0x$a_sym + 4))
}

# lib_addr PID PATTERN: an address inside the first executable mapping of a library
lib_addr() {
	l_start=$(awk -v p="$2" '$2 ~ /x/ && $6 ~ p {split($1,r,"-"); print r[1]; exit}' "/proc/$1/maps")
	printf '0x%x' $((0x$l_start + 0x100))
}
