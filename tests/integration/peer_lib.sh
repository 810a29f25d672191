# peer_lib.sh: helpers of the tests where other users use the endpoint
# (http_peer.sh, http_unix.sh), sourced after agent_lib.sh.  Other users
# come from setpriv (no account is added): $NOBODY (65534), $DAEMON (1).
#
#   hit WHO METHOD URL [CURL OPTIONS...]  one request by WHO (root, nobody,
#                     daemon): its status on stdout, its body in $T/body
#                     (written by this shell: the others cannot write in $T)
#   unserve           stop the server started in the background as $rp
need curl setpriv stat
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
DAEMON="setpriv --reuid=1 --regid=1 --clear-groups"

hit() {
	_who=$1 _m=$2 _u=$3
	shift 3
	case $_who in
	nobody) _pre=$NOBODY ;;
	daemon) _pre=$DAEMON ;;
	*) _pre="" ;;
	esac
	case $_m in
	HEAD) set -- -I "$@" ;;
	POST) set -- -X POST -d '' "$@" ;;
	*) set -- -X "$_m" "$@" ;;
	esac
	$_pre curl -s --max-time 30 -o - -w '\n%{http_code}' "$@" "$_u" >"$T/resp"
	sed '$d' "$T/resp" >"$T/body"
	tail -n 1 "$T/resp"
}

unserve() {
	kill "$rp" 2>/dev/null
	wait "$rp" 2>/dev/null
}
