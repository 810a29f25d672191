#!/bin/sh
# run_agent_libs.sh: the agent's own libraries are not in the host's profile.
#
# The agent links libmicrohttpd, which brings gnutls, p11-kit, libtasn1, ...;
# their initializers allocate (p11-kit's __newlocale alone is ~512 KiB) and
# used to be sampled into every profile.  `ying run` starts the program with
# prof_active:false and the agent turns sampling on once those initializers
# and its own set-up have run.  With every allocation sampled
# (lg_prof_sample:0) and a dump at exit (prof_final), the dump of agent_grow
# under `ying run --http` has no stack through any library only the agent
# brings (from `ldd` of the agent), nor through the agent itself, while the
# program's own 8 MiB (128 blocks of 64 KiB from agent_grow_block) are all
# there, exactly.  Control: when the user asks for prof_active:true (which
# ying run respects), the same check finds those libraries, so the check can
# fail.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need ldd

# The agent's private libraries: what it links that agent_grow does not.
ldd "$AGENT" | sed -n 's|.*=> \(/[^ ]*\) .*|\1|p' | xargs -n1 basename | sort -u >"$T/agent.libs"
ldd "$PROGS/agent_grow" | sed -n 's|.*=> \(/[^ ]*\) .*|\1|p' | xargs -n1 basename | sort -u >"$T/prog.libs"
comm -23 "$T/agent.libs" "$T/prog.libs" >"$T/private.libs"
echo "libying-agent.so" >>"$T/private.libs"
grep -q 'libmicrohttpd' "$T/private.libs" && grep -q 'libp11-kit' "$T/private.libs"
ok $? "the agent brings libmicrohttpd and p11-kit ($(wc -l <"$T/private.libs") private libraries)" ||
    diag "$T/private.libs"

# check DUMP: "agent-stacks N bytes B" and "grow-bytes G" for DUMP.
check() {
	python3 - "$1" "$T/private.libs" <<'PY'
import re, sys
dump, libs = sys.argv[1], [l.strip() for l in open(sys.argv[2]) if l.strip()]
text = open(dump).read()
head, maps = text.split("MAPPED_LIBRARIES:", 1)
ranges = []
grow = None
for line in maps.splitlines():
    f = line.split()
    if len(f) < 6:
        continue
    name = f[5].rsplit("/", 1)[-1]
    lo, hi = (int(x, 16) for x in f[0].split("-"))
    if any(name.startswith(l.split(".so")[0] + ".so") for l in libs):
        ranges.append((lo, hi))
n = b = 0
stack = None
for line in head.splitlines():
    if line.startswith("@"):
        stack = [int(x, 16) for x in line[1:].split()]
    elif stack is not None and line.strip().startswith("t*:"):
        m = re.match(r"\s*t\*:\s*(\d+):\s*(\d+)", line)
        if any(lo <= a < hi for a in stack for lo, hi in ranges):
            n += 1
            b += int(m.group(2))
        stack = None
print("agent-stacks %d bytes %d" % (n, b))
PY
}

# lg_prof_sample:0: exact numbers; prof_final: a dump at exit.
MALLOC_CONF="lg_prof_sample:0,prof_final:true,prof_prefix:$T/y" \
    ying run -q --http 127.0.0.1:0 -- "$PROGS/agent_grow" 2 4 100 300 >"$T/out" 2>"$T/err"
is "$?" 0 "agent_grow under ying run --http exits 0"
set -- "$T"/y.*.heap
[ -f "$1" ]
ok $? "a dump at exit" || diag "$T/err"
is "$(check "$1")" "agent-stacks 0 bytes 0" "no sampled stack goes through the agent or its libraries"
ying top --json "$1" >"$T/top.json" 2>&1
python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
print(sum(r["flat"] for r in rows if r["function"] == "agent_grow_block"))
' "$T/top.json" >"$T/grow"
is "$(cat "$T/grow")" 8388608 "the program's own allocations are all there: 8 MiB from agent_grow_block"

# Control: prof_active:true from the user is kept, and then the agent's
# libraries' start-up allocations are sampled (the check sees them).
MALLOC_CONF="lg_prof_sample:0,prof_final:true,prof_active:true,prof_prefix:$T/c" \
    ying run -q --http 127.0.0.1:0 -- "$PROGS/agent_grow" 2 4 100 300 >"$T/out" 2>"$T/err"
set -- "$T"/c.*.heap
check "$1" >"$T/control"
grep -Eq '^agent-stacks [1-9][0-9]* bytes [1-9]' "$T/control"
ok $? "control: with the user's prof_active:true the check finds them ($(cat "$T/control"))" ||
    diag "$T/control"

plan_done
