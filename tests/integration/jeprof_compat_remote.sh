#!/bin/sh
# jeprof_compat_remote.sh: ying-jeprof on redis (a real service) and in
# remote mode against ying's own server.  redis-server runs under `ying
# run --http 127.0.0.1:0` (loopback, no token: jeprof's curl sends none),
# filled with DEBUG POPULATE; its dump is fetched once with curl from
# /pprof/heap.  On that file ying-jeprof's Total equals jeprof's and the
# flat values agree for the functions both name; then the URL forms:
# `ying-jeprof --text http://HOST:PORT/pprof/heap` (jeprof's path: the dump,
# symbolized here) and the base URL (ying's symbolized /debug/pprof/heap)
# give the same Total as jeprof's own remote mode on the same server, and
# `--raw URL` is read by jeprof alone.  Through jeprof_symproxy.py, which
# hides the binaries, the names come from the server's /pprof/symbol.  redis is idle while the profiles
# are fetched, so every fetch sees the same heap.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need redis-server redis-cli curl jeprof

. "$YING_SRCDIR/tests/integration/jeprof_lib.sh"

SERVER=$(command -v redis-server)
REAL=$(readlink -f "$SERVER")
redis_under_ying_http --sample 0 -- --enable-debug-command local
timeout 30 redis-cli -p "$port" debug populate 5000 key 300 >"$T/cli.out" 2>&1
is "$(cat "$T/cli.out")" OK "DEBUG POPULATE 5000 keys of 300 bytes"
U="http://127.0.0.1:$hp"

# --- the dump as a file ---------------------------------------------------
curl -sf -o "$T/redis.heap" "$U/pprof/heap"
ok $? "curl fetches /pprof/heap once" && head -n 1 "$T/redis.heap" | grep -q '^heap_v2/'
ok $? "it is a heap_v2 dump"
yj --text --show_bytes "$REAL" "$T/redis.heap" >"$T/y.file" 2>"$T/yerr"
ok $? "ying-jeprof on the redis dump" || diag "$T/yerr"
jp --text --show_bytes "$REAL" "$T/redis.heap" >"$T/j.file"
test -n "$(total_of "$T/y.file")" && test "$(total_of "$T/y.file")" = "$(total_of "$T/j.file")"
ok $? "redis: Total equals jeprof's ($(total_of "$T/y.file"))" || { diag "$T/y.file"; diag "$T/jeprof.err"; }
python3 - "$T/y.file" "$T/j.file" >"$T/flats" <<'PY'
import re, sys
def table(path):
    rows, dup = {}, set()
    for line in open(path, errors="replace"):
        f = line.split(None, 5)
        if len(f) < 6 or line.startswith("Total:"):
            continue
        name = re.sub(r"\(.*", "", f[5].rstrip("\n")).strip()
        if name in rows:
            dup.add(name)
        rows[name] = int(f[0])
    for d in dup:
        del rows[d]
    return rows
y, j = table(sys.argv[1]), table(sys.argv[2])
# redis' own functions (jeprof charges the leaves below them to borrowed
# jemalloc names, so only functions both give a nonzero flat are compared)
common = [n for n in sorted(set(y) & set(j)) if y[n] and j[n]]
bad = [n for n in common if y[n] != j[n]]
for n in bad:
    print("differs: %s ying %d jeprof %d" % (n, y[n], j[n]))
print("common %d" % len(common))
sys.exit(1 if bad or len(common) < 3 else 0)
PY
ok $? "redis: flat values equal jeprof's for the functions both name with memory" || diag "$T/flats"
grep -q '% zmalloc\|% ztrymalloc\|% dictAdd\|% createStringObject\|% sdsnewlen\|% _dictExpand\|% dictExpand' "$T/y.file"
ok $? "redis: ying names redis' functions" || diag "$T/y.file"

# --- remote mode ------------------------------------------------------------
yj --text --show_bytes "$U/pprof/heap" >"$T/y.url" 2>"$T/yerr"
ok $? "ying-jeprof --text $U/pprof/heap" || diag "$T/yerr"
jp --text --show_bytes "$U/pprof/heap" >"$T/j.url"
test -n "$(total_of "$T/y.url")" && test "$(total_of "$T/y.url")" = "$(total_of "$T/j.url")"
ok $? "remote: Total equals jeprof's remote mode on the same server" ||
    { diag "$T/y.url"; diag "$T/j.url"; diag "$T/jeprof.err"; }
test "$(total_of "$T/y.url")" = "$(total_of "$T/y.file")"
ok $? "remote: the same Total as the dump fetched by curl (an idle heap)"
yj --text --show_bytes "$U" >"$T/y.base" 2>"$T/yerr"
test "$(total_of "$T/y.base")" = "$(total_of "$T/y.url")"
ok $? "the base URL (ying's symbolized /debug/pprof/heap): the same Total" || diag "$T/yerr"
yj --raw "$U/pprof/heap" >"$T/y.raw" 2>"$T/yerr"
ok $? "--raw on the URL" || diag "$T/yerr"
jp --text --show_bytes "$T/y.raw" >"$T/j.raw"
test "$(total_of "$T/j.raw")" = "$(total_of "$T/y.url")"
ok $? "jeprof reads the --raw form alone: the same Total" || diag "$T/j.raw"
# --- names from /pprof/symbol: the binaries "on another machine" --------
# jeprof_symproxy.py forwards jeprof's protocol to ying's endpoint but moves
# the dump's file paths under /nonexistent-remote-host: ying-jeprof must
# name the addresses through /pprof/symbol (ying_profile_symbolize_remote),
# as jeprof does; `ying top` on the same URL, which uses the local files
# only, cannot.
python3 "$YING_SRCDIR/tests/integration/jeprof_symproxy.py" "$U" >"$T/proxy.out" 2>"$T/proxy.err" &
bg_pids="$bg_pids $!"
wait_for 10 grep -q '^port ' "$T/proxy.out"
ok $? "the symbol proxy listens" || diag "$T/proxy.err"
PU="http://127.0.0.1:$(sed -n 's/^port //p' "$T/proxy.out")"
curl -sf "$PU/pprof/heap" | grep -q '/nonexistent-remote-host/'
ok $? "through the proxy the dump names files that are not here"
yj --text --show_bytes "$PU/pprof/heap" >"$T/y.proxy" 2>"$T/yerr"
ok $? "ying-jeprof --text through the proxy" || diag "$T/yerr"
test "$(total_of "$T/y.proxy")" = "$(total_of "$T/y.url")"
ok $? "the same Total" || diag "$T/y.proxy"
python3 - "$T/y.url" "$T/y.proxy" >"$T/names" <<'PY'
import sys
def flats(path):
    d = {}
    for line in open(path):
        f = line.split(None, 5)
        if len(f) == 6 and not line.startswith("Total:") and int(f[0]) != 0:
            d[f[5].strip()] = int(f[0])
    return d
local, remote = flats(sys.argv[1]), flats(sys.argv[2])
named = [n for n in local if "+0x" not in n]
missing = [n for n in named if remote.get(n) != local[n]]
print("named %d, missing %s" % (len(named), missing))
sys.exit(0 if named and not missing else 1)
PY
ok $? "every function named with the local files is named through /pprof/symbol, same flat" ||
    { diag "$T/names"; diag "$T/y.proxy"; }
ying top -n 0 "$PU/pprof/heap" >"$T/top.proxy" 2>&1
grep -q "$(basename "$REAL")+0x" "$T/top.proxy"
ok $? "(ying top on the proxy, local files only: redis' frames stay $(basename "$REAL")+0xOFFSET)" ||
    diag "$T/top.proxy"
jp --text --show_bytes "$PU/pprof/heap" >"$T/j.proxy"
test "$(total_of "$T/j.proxy")" = "$(total_of "$T/y.proxy")"
ok $? "jeprof through the same proxy: the same Total" || diag "$T/jeprof.err"

yj --text "http://127.0.0.1:$(free_port)/pprof/heap" >/dev/null 2>"$T/yerr"
is $? 1 "a URL nobody serves: exit 1"
grep -q '127.0.0.1' "$T/yerr"
ok $? "and the message names the address" || diag "$T/yerr"

plan_done
