# fork_lib.sh: helpers for the tests of a service's processes under the
# agent (issue 25: fork_storm.sh, prefork_nginx.sh, prefork_postgres.sh,
# run_daemon.sh's BGSAVE check).  Not a test itself; sourced after
# agent_lib.sh or servers_lib.sh ($T, $hp: the head's endpoint port).
#
#   procs_pids [QUERY]    the pids /debug/processes lists, sorted, one a
#                         line (the JSON is a list of objects with "pid", or
#                         an object whose "processes" is that list)
#   procs_field PID KEY   that process's KEY ("role", "program", "ppid",
#                         "user", "live_heap", "rss", ...) or nothing
#   ying_sockets          the pids of every member name "@ying.FAMILY.PID"
#                         in /proc/net/unix (any family; not the heads'
#                         claims "@ying.FAMILY.0"), sorted, unique
#   family_sockets PID    the pids of the names of PID's family (the family
#                         of the name "@ying.*.PID"), sorted, the head's
#                         claim as 0
#   subdir_of D PID       the name of D's per-process subdirectory of PID
#                         ("PROGRAM.PID" or "PROGRAM.PID.ROLE"), or nothing
procs_json() {
	curl -s -m 10 -o "$T/procs.json" "http://127.0.0.1:$hp/debug/processes${1:-}"
}

procs_pids() {
	procs_json "${1:-}" || return 1
	python3 - "$T/procs.json" 2>/dev/null <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
if isinstance(d, dict):
    d = d.get("processes", [])
for p in sorted(int(x["pid"]) for x in d):
    print(p)
PY
}

procs_field() {
	procs_json || return 1
	python3 - "$T/procs.json" "$1" "$2" 2>/dev/null <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
if isinstance(d, dict):
    d = d.get("processes", [])
for p in d:
    if int(p["pid"]) == int(sys.argv[2]):
        v = p.get(sys.argv[3])
        print("" if v is None else v)
PY
}

ying_sockets() {
	awk '$NF ~ /^@ying\.[0-9a-f]+\.[1-9][0-9]*$/ { n = split($NF, a, "."); print a[n] }' /proc/net/unix |
	    sort -n | uniq
}

family_sockets() {
	_fam=$(awk -v p="$1" '$NF ~ ("^@ying\\.[0-9a-f]+\\." p "$") { split($NF, a, "."); print a[2]; exit }' /proc/net/unix)
	[ -n "$_fam" ] || return 0
	awk -v f="$_fam" '$NF ~ ("^@ying\\." f "\\.[0-9]+$") { n = split($NF, a, "."); print a[n] }' /proc/net/unix |
	    sort -n | uniq
}

subdir_of() {
	ls "$1" 2>/dev/null | while read -r _e; do
		[ -d "$1/$_e" ] || continue
		case "$_e" in
		*."$2"|*."$2".*) echo "$_e" ;;
		esac
	done | head -n 1
}

# wait_secs SECONDS COMMAND...: run COMMAND every 0.1 s until it succeeds,
# by the clock (agent_lib.sh's wait_for counts tries, and a try here may
# take long); fails once SECONDS (a decimal) have passed.
wait_secs() {
	_end=$(awk -v s="$1" -v n="$(date +%s.%N)" 'BEGIN { printf "%.3f", n + s }')
	shift
	while :; do
		if "$@" >/dev/null 2>&1; then
			return 0
		fi
		awk -v e="$_end" -v n="$(date +%s.%N)" 'BEGIN { exit !(n < e) }' || return 1
		sleep 0.1
	done
}

# procs_are "PID PID ": true when /debug/processes lists exactly those
# pids (sorted, each followed by a space).
procs_are() {
	[ "$(procs_pids | tr '\n' ' ')" = "$1" ]
}
