#!/bin/sh
# run_python.sh: a glibc program (the Python interpreter) profiled through
# `ying run`.  python3 does not link jemalloc, so ying run preloads it;
# large bytes objects go through malloc, so the growth report must show
# them in Python's own functions (libpython or the interpreter binary).
# Then the exec case: `sh -c 'exec python3 ...'` keeps the pid, so the
# program image python3 becomes gets the agent again; `sh -c 'python3 ...;
# true'` runs python3 as a child with another pid, which stays inert and
# silent (YING_AGENT_PID).
. "$YING_SRCDIR/tests/integration/agent_lib.sh"

PY=$(python3 -c 'import sys; print(sys.executable)')
# The script holds its heap until a report is there (at most 20 s).
SCRIPT='
import os, time
def grow_python_heap():
    return [bytes(100000) for _ in range(400)]
x = grow_python_heap()
d = os.environ.get("YING_REPORT_DIR", "")
for _ in range(200):
    time.sleep(0.1)
    if os.path.isdir(d) and any(f.endswith(".report") for f in os.listdir(d)):
        break
print("python done", len(x))
'
D="$T/py"
ying run --interval 1 --report-dir "$D" --sample 14 -- "$PY" -c "$SCRIPT" >"$T/out" 2>"$T/err"
is "$?" 0 "python3 under ying run exits 0"
is "$(cat "$T/out")" "python done 400" "python's output passes through"
grep -q "^ying-agent: pid [0-9]* (python[0-9.]*): heap profiling on" "$T/err"
ok $? "the agent runs inside python" || diag "$T/err"
sets=$(report_sets "$D")
[ -n "$sets" ]
ok $? "a growth report was written" || ls -l "$D" | sed 's/^/# /'
last=$(report_sets "$D" | tail -n 1)
m=$(mb_of "$last")
[ -n "$m" ] && [ "$m" -ge 38 ] && [ "$m" -le 60 ]
ok $? "its size covers the 40 MB of bytes objects (got ${m:-none} MB)"
R="$D/$last.report"
sed -n '/^Top 10 stacks/,/^#2 /p' "$R" | sed 's/^/# /'
sed -n '/^#1 /,/^#2 /p' "$R" | grep -Eq '(Py[A-Za-z_]*|bytes_new|_PyEval_EvalFrameDefault|libpython)'
ok $? "the biggest stack is in Python's functions (PyBytes/PyObject/libpython)" || diag "$R"
ying top -n 20 "$D/$last.heap" >"$T/top" 2>&1
grep -Eq 'Py[A-Za-z_]*' "$T/top"
ok $? "ying top on the .heap names Python functions" || diag "$T/top"
# CPython allocates through PyObject_Calloc/_PyObject_Calloc (obmalloc.c):
# wrappers trimmed by default, so the top row is the bytes constructor that
# called them; --keep-allocator-frames brings the wrappers back.
PYWRAP='("PyObject_Malloc", "PyObject_Calloc", "PyObject_Realloc", "_PyObject_Malloc", "_PyObject_Calloc", "_PyObject_Realloc", "PyMem_Malloc", "PyMem_Calloc", "PyMem_RawMalloc", "PyMem_RawCalloc", "_PyMem_RawMalloc", "_PyMem_RawCalloc")'
ying top --json "$D/$last.heap" >"$T/top.json" 2>"$T/err"
python3 - "$T/top.json" "$PYWRAP" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
wrap = eval(sys.argv[2])
print("# top rows: %s" % [r["function"] for r in rows[:3]])
assert "ytes" in rows[0]["function"], rows[0]   # _PyBytes_FromSize, bytes_new...
# (a wrapper may still sit in the middle of a stack, e.g. _PyObject_Malloc
# under pymalloc's new_arena: only leading frames are trimmed)
leaf = [r["function"] for r in rows if r["function"] in wrap and r["flat"] > 0]
assert not leaf, leaf
PY
ok $? "top row is the bytes constructor, no PyObject_Malloc-family function allocates directly (flat)" || diag "$T/top.json"
ying top --json --keep-allocator-frames "$D/$last.heap" >"$T/keep.json" 2>"$T/err"
python3 - "$T/keep.json" "$PYWRAP" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
wrap = eval(sys.argv[2])
assert sum(r["cum"] for r in d["rows"] if r["function"] in wrap) > 0.5 * d["total"], d["rows"][:5]
PY
ok $? "--keep-allocator-frames: the PyObject_Calloc wrappers are back" || diag "$T/keep.json"

# exec keeps the pid: the new image gets the agent
D2="$T/exec"
ying run --interval 1 --report-dir "$D2" --sample 14 -- sh -c "exec '$PY' -c '$SCRIPT'" \
    >"$T/out2" 2>"$T/err2"
is "$?" 0 "sh -c 'exec python3 ...' exits 0"
grep -q "(python[0-9.]*): heap profiling on" "$T/err2"
ok $? "after exec, python carries the agent" || diag "$T/err2"
[ -n "$(report_sets "$D2")" ]
ok $? "... and reports are written" || diag "$T/err2"

# a child process (another pid) is no second head
D3="$T/child"
ying run --interval 1 --report-dir "$D3" --sample 14 -- sh -c "'$PY' -c '$SCRIPT'; true" \
    >"$T/out3" 2>"$T/err3"
is "$?" 0 "sh -c 'python3 ...; true' exits 0"
# (the exec'd python is a member of sh's family: it says it is profiled,
# nothing else, issue 25)
is "$(grep '^ying-agent:' "$T/err3" | grep -vc ', started by pid [0-9]*, profiled: ')" 1 \
    "one agent line (sh's), and from the child only that it is profiled" || diag "$T/err3"
grep -q '(sh): heap profiling on' "$T/err3"
ok $? "... it is sh's" || diag "$T/err3"
is "$(report_sets "$D3")" "" "no report: python (a child) is not watched, sh stays small"

plan_done
