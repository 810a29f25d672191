#!/bin/sh
# run_memcached.sh: Debian's memcached, stripped to the bone (no symbol at
# all, not even exported ones), under `ying run` on a 127.0.0.1 port, 3,000
# items of 10 KB and 3,000 of 1 KB (two slab classes).  Its slab allocator
# gets each 1 MB slab page from malloc in one small static function
# (memory_allocate, inlined or not).  With no names, the trim can only drop
# jemalloc's frames; what this asserts:
#   - the top row is a frame of memcached itself (memcached+0x...), not of
#     jemalloc or libc, and it holds the slab pages of both classes (>= 85 %
#     of the heap), so one function is one row;
#   - that frame lies inside one function of memcached's unwind table
#     (.eh_frame FDE, readelf) whose code calls malloc (objdump): the
#     function that allocates the slabs.
# The slab allocator's name (memcached+0xSTART of that function) comes from
# the symbolizer's unwind-table naming, not from the trim.
. "$YING_SRCDIR/tests/integration/servers_lib.sh"
need memcached readelf objdump

MC=$(command -v memcached)
port=$(free_port)
serve_under_ying "$T/out" "$MC" -l 127.0.0.1 -p "$port" -U 0 -m 128 -t 1
wait_for 30 python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))"
ok $? "memcached listens on 127.0.0.1:$port" || diag "$T/err"
python3 - "$port" >"$T/fill" 2>&1 <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
for size, n in ((10000, 3000), (1000, 3000)):
    v = b"x" * size
    for i in range(n):
        s.sendall(b"set k%d_%d 0 0 %d noreply\r\n%s\r\n" % (size, i, size, v))
s.sendall(b"get k10000_1 k1000_2999\r\n")
buf = b""
while not buf.endswith(b"END\r\n"):
    buf += s.recv(65536)
print("got", buf.count(b"VALUE"))
PY
grep -q '^got 2$' "$T/fill"
ok $? "6,000 items stored and read back" || diag "$T/fill"
heap_now "$T/heap"
stop_under_ying memcached
top_first "$T/heap"
off=$(printf '%s\n' "$first" | sed -n 's/^memcached+0x\([0-9a-f]*\)$/\1/p')
[ -n "$off" ]
ok $? "the top row is a frame of memcached itself (got '$first')"
[ "${pct:-0}" -ge 85 ]
ok $? "... holding the slab pages of both classes (${pct}% of the heap)"
readelf --debug-dump=frames "$MC" 2>/dev/null | python3 -c '
import re, sys
off = int(sys.argv[1], 16)
for l in sys.stdin:
    m = re.search(r"FDE .*pc=([0-9a-f]+)\.\.([0-9a-f]+)", l)
    if m and int(m.group(1), 16) <= off < int(m.group(2), 16):
        print("0x%s 0x%s" % (m.group(1).lstrip("0") or "0", m.group(2).lstrip("0") or "0"))
        break' "${off:-0}" >"$T/fde"
read -r fs fe <"$T/fde"
[ -n "${fs:-}" ] && objdump -d --no-show-raw-insn --start-address="$fs" --stop-address="$fe" "$MC" |
    grep -q 'call.*<malloc@plt>'
ok $? "it lies in one function of the unwind table [${fs:-?}, ${fe:-?}) that calls malloc"

plan_done
