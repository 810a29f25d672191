#!/usr/bin/env python3
"""test_alloy_delta.py: unit tests of tests/pyro/alloy_delta.py, printing TAP.

Two hand-built scrapes (validate.encode_profile) of a heap profile with the
four jemalloc types: stacks present in both get alloc_* deltas and keep
inuse_*; a new stack, a changed numeric or string label, or a changed
address is unmatched and keeps its whole value; the string table's order
does not matter; the first scrape is dropped; the CLI prints JSON lines
and a summary.  Run by tests/integration/pyro_validate.sh.
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # never write into the source tree
sys.path.insert(0, HERE)
import alloy_delta as A  # noqa: E402
import validate as V  # noqa: E402

N = 0
FAILED = 0


def ok(cond, name, *diag):
    global N, FAILED
    N += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", N, name))
    if not cond:
        FAILED += 1
        for d in diag:
            for line in str(d).split("\n")[:20]:
                print("#   " + line)
    return cond


def prof(samples, reverse_strings=False):
    """samples: [(function names leaf first, [alloc_objects, alloc_space,
    inuse_objects, inuse_space], labels {k: str or int})]; one location
    per function, its address fixed by the name (hash of it) unless
    given as "name@0xADDR"."""
    st = [""]

    def s(x):
        if x not in st:
            st.append(x)
        return st.index(x)

    for t in ("alloc_objects", "count", "alloc_space", "bytes", "inuse_objects", "inuse_space", "space"):
        s(t)
    if reverse_strings:
        st[1:] = reversed(st[1:])
    funcs, locs, out = {}, {}, []
    for stack, vals, labels in samples:
        lids = []
        for fr in stack:
            name, _, addr = fr.partition("@")
            addr = int(addr, 16) if addr else 0x400000 + 16 * (sum(map(ord, name)) * 31 % 100000)
            if name not in funcs:
                funcs[name] = {"id": len(funcs) + 1, "name": s(name)}
            if (name, addr) not in locs:
                locs[(name, addr)] = {"id": len(locs) + 1, "mapping_id": 1, "address": addr,
                                      "line": [{"function_id": funcs[name]["id"]}]}
            lids.append(locs[(name, addr)]["id"])
        labs = [({"key": s(k), "num": v, "num_unit": s("bytes")} if isinstance(v, int)
                 else {"key": s(k), "str": s(v)}) for k, v in sorted(labels.items())]
        out.append({"location_id": lids, "value": vals, "label": labs})
    return V.encode_profile({
        "sample_type": [{"type": s("alloc_objects"), "unit": s("count")},
                        {"type": s("alloc_space"), "unit": s("bytes")},
                        {"type": s("inuse_objects"), "unit": s("count")},
                        {"type": s("inuse_space"), "unit": s("bytes")}],
        "sample": out, "location": list(locs.values()), "function": list(funcs.values()),
        "mapping": [{"id": 1, "memory_start": 0x400000, "memory_limit": 0x800000, "filename": s("/bin/p")}],
        "string_table": st, "period_type": {"type": s("space"), "unit": s("bytes")}, "period": 1})


def by_leaf(rows):
    return {r["stack"][0]: r for r in rows}


def main():
    base = [(["keep", "main"], [10, 640, 5, 320], {"bytes": 64}),
            (["grow", "main"], [4, 4096, 4, 4096], {"bytes": 1024}),
            (["freed", "main"], [8, 800, 0, 0], {}),
            (["tagged", "main"], [1, 100, 1, 100], {"kind": "a"})]
    cur = [(["keep", "main"], [10, 640, 5, 320], {"bytes": 64}),
           (["grow", "main"], [12, 12288, 12, 12288], {"bytes": 1024}),
           (["freed", "main"], [9, 900, 0, 0], {}),
           (["tagged", "main"], [3, 300, 1, 100], {"kind": "a"}),
           (["fresh", "main"], [2, 200, 2, 200], {})]
    rows, summ = A.delta(prof(base), prof(cur, reverse_strings=True))
    r = by_leaf(rows)
    ok(r["keep"]["alloc_space"] == 0 and r["keep"]["alloc_objects"] == 0 and r["keep"]["inuse_space"] == 320
       and r["keep"]["matched"], "an unchanged stack: alloc deltas 0, inuse_space kept (320)", r.get("keep"))
    ok(r["grow"]["alloc_space"] == 8192 and r["grow"]["alloc_objects"] == 8 and r["grow"]["inuse_space"] == 12288,
       "a growing stack: alloc_space delta 8192, alloc_objects 8, inuse_space as is", r.get("grow"))
    ok(r["freed"]["alloc_space"] == 100 and r["freed"]["inuse_space"] == 0, "a freed stack: alloc delta 100",
       r.get("freed"))
    ok(r["tagged"]["alloc_space"] == 200 and r["tagged"]["matched"], "a string label kept: matched, delta 200")
    ok(not r["fresh"]["matched"] and r["fresh"]["alloc_space"] == 200,
       "a new stack: unmatched, its whole value (200)", r.get("fresh"))
    ok(summ["samples"] == 5 and summ["prev_samples"] == 4 and summ["unmatched"] == 1
       and summ["alloc_space"] == 0 + 8192 + 100 + 200 + 200 and summ["inuse_space"] == 320 + 12288 + 100 + 200,
       "summary: 5 samples, 1 unmatched, the sums", summ)
    ok(r["grow"]["stack"] == ["grow", "main"], "stacks are leaf first")

    # The "bytes" label changes: the stack is new, the delta its whole value.
    cur2 = [(["grow", "main"], [12, 12288 + 4096, 12, 16384], {"bytes": 1365})]
    rows, summ = A.delta(prof(base), prof(cur2))
    ok(not rows[0]["matched"] and rows[0]["alloc_space"] == 16384 and summ["unmatched"] == 1,
       "a changed numeric label (bytes 1024 -> 1365): unmatched, delta = total 16384", rows)
    rows, _ = A.delta(prof(base), prof([(["tagged", "main"], [3, 300, 1, 100], {"kind": "b"})]))
    ok(not rows[0]["matched"] and rows[0]["alloc_space"] == 300, "a changed string label: unmatched", rows)
    rows, _ = A.delta(prof(base), prof([(["tagged", "main"], [3, 300, 1, 100], {"kind": "a", "x": "y"})]))
    ok(not rows[0]["matched"], "an added label: unmatched", rows)
    rows, _ = A.delta(prof(base), prof([(["keep@0x999", "main"], [10, 640, 5, 320], {"bytes": 64})]))
    ok(not rows[0]["matched"] and rows[0]["alloc_space"] == 640, "another address, same names: unmatched", rows)
    rows, _ = A.delta(prof([(["a@0x10", "main@0x20"], [1, 10, 1, 10], {})]),
                      prof([(["b@0x10", "main@0x20"], [3, 30, 1, 10], {})]))
    ok(rows[0]["matched"] and rows[0]["alloc_space"] == 20, "same addresses, other names: matched (addresses)", rows)
    rows, _ = A.delta(prof([(["main@0x20", "a@0x10"], [1, 10, 1, 10], {})]),
                      prof([(["a@0x10", "main@0x20"], [3, 30, 1, 10], {})]))
    ok(not rows[0]["matched"], "the same addresses in another order: unmatched", rows)
    # Duplicates are summed.
    rows, summ = A.delta(prof([(["d", "main"], [1, 10, 1, 10], {}), (["d", "main"], [2, 20, 2, 20], {})]),
                         prof([(["d", "main"], [5, 50, 5, 50], {})]))
    ok(rows[0]["alloc_space"] == 20 and summ["prev_samples"] == 1, "samples sharing a key are summed", rows)
    rows, summ = A.delta(prof([(["r", "main"], [9, 90, 1, 10], {})]), prof([(["r", "main"], [1, 10, 1, 10], {})]))
    ok(rows[0]["alloc_space"] == -80 and summ["negative"] == 2, "a decrease is reported negative (a reset)", summ)

    d = A.AlloyDelta()
    first = d.step(prof(base))
    second = d.step(gzip.compress(prof(cur)))
    ok(first is None and second is not None and by_leaf(second)["grow"]["alloc_space"] == 8192,
       "AlloyDelta.step: the first scrape dropped, the second deltas (gzipped input)")
    try:
        bad = V.encode_profile({"sample_type": [{"type": 1, "unit": 2}], "string_table": ["", "inuse_space", "bytes"]})
        A.delta(bad, bad)
        ok(False, "a profile without alloc_* raises DeltaError")
    except A.DeltaError:
        ok(True, "a profile without alloc_* raises DeltaError")

    t = tempfile.mkdtemp(prefix="test_alloy.")
    try:
        p1, p2 = os.path.join(t, "1.pprof"), os.path.join(t, "2.pprof")
        with open(p1, "wb") as f:
            f.write(gzip.compress(prof(base)))
        with open(p2, "wb") as f:
            f.write(prof(cur))
        cli = [sys.executable, os.path.join(HERE, "alloy_delta.py")]
        r = subprocess.run(cli + [p1, p2], capture_output=True, text=True)
        lines = [json.loads(x) for x in r.stdout.splitlines()]
        ok(r.returncode == 0 and len(lines) == 6 and lines[-1]["summary"]["unmatched"] == 1
           and by_leaf(lines[:-1])["grow"]["alloc_space"] == 8192,
           "CLI: 5 JSON lines and the summary", r.stdout, r.stderr)
        r = subprocess.run(cli + ["--root-first", "--summary-only", p1, p2], capture_output=True, text=True)
        ok(r.returncode == 0 and len(r.stdout.splitlines()) == 1, "CLI: --summary-only", r.stdout)
        r = subprocess.run(cli + ["--root-first", p1, p2], capture_output=True, text=True)
        ok(r.returncode == 0 and json.loads(r.stdout.splitlines()[0])["stack"][0] == "main", "CLI: --root-first")
        with open(p2, "wb") as f:
            f.write(b"junk")
        r = subprocess.run(cli + [p1, p2], capture_output=True, text=True)
        ok(r.returncode == 2 and "alloy_delta.py:" in r.stderr, "CLI: a bad profile is exit 2", r.stderr)
    finally:
        shutil.rmtree(t)
    print("1..%d" % N)
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
