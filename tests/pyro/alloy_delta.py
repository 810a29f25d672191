#!/usr/bin/env python3
"""alloy_delta.py: Grafana Alloy's delta step for scraped memory profiles.

Written for ying's tests from the documented behaviour (shared reference
pprof-pyroscope.md, "A real Pyroscope's default limits", last paragraph),
not from Alloy's code.  pyroscope.scrape sends every memory profile
through it: the first scrape of a target is dropped (it only seeds the
baseline); in each later one the alloc_* values (alloc_objects,
alloc_space) become the increase since the previous scrape, while inuse_*
are kept as they are.  A sample of the current scrape is matched with the
previous scrape's by its key: the addresses of its locations, in order,
plus every label, string and numeric (key, str, num, num_unit, compared as
strings, not indices).  A sample whose key the previous scrape did not
have keeps its whole cumulative value, so a label that changes between
scrapes (e.g. a numeric "bytes" label holding an average size) makes the
stack look new and its delta equals its total.  Samples sharing a key are
summed first, in both scrapes.

As a module:
    d = AlloyDelta(); d.step(p1) -> None (dropped); d.step(p2) -> [rows]
    delta(prev, cur) -> (rows, summary)
prev/cur: profiles from validate.decode_profile (or raw bytes).  A row:
{"stack": [function names, LEAF FIRST (pprof's order; --root-first
reverses)], "addresses": [...], "labels": {...}, "matched": bool,
"alloc_space": delta, "alloc_objects": delta, "inuse_space": value,
"inuse_objects": value} (a type the profile lacks is left out).
A frame's names are its location's lines, innermost first; a location
without lines is "0xADDR".

CLI:
    alloy_delta.py [--root-first] [--summary-only] PREV.pprof CUR.pprof
prints one JSON object a line per current sample, then one line
{"summary": {"samples": N, "unmatched": U, "prev_samples": M,
"negative": K, "alloc_space": total delta, "alloc_objects": ...,
"inuse_space": total, ...}}.  Exit 0; 2 on an unreadable file or a
profile without alloc_space/alloc_objects.
"""
import argparse
import json
import os
import sys

sys.dont_write_bytecode = True  # never write into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate  # noqa: E402  (tests/pyro/validate.py: the pprof decoder)

DELTA_TYPES = ("alloc_objects", "alloc_space")
KEPT_TYPES = ("inuse_objects", "inuse_space")


class DeltaError(ValueError):
    pass


def _strings(p):
    return [s.decode("utf-8", "replace") for s in p["string_table"]]


def _str(st, i):
    return st[i] if 0 <= i < len(st) else "<string %d>" % i


def read(p):
    """One profile -> (type index {name: i}, [(key, values, sample facts)])."""
    if isinstance(p, (bytes, bytearray)):
        try:
            p = validate.decode_profile(bytes(p))
        except validate.WireError as e:
            raise DeltaError("not a pprof: %s" % e)
    st = _strings(p)
    types = {}
    for i, t in enumerate(p["sample_type"]):
        types.setdefault(_str(st, t["type"]), i)
    locs = {loc["id"]: loc for loc in p["location"]}
    funcs = {f["id"]: _str(st, f["name"]) for f in p["function"]}
    out = []
    for smp in p["sample"]:
        addrs, stack = [], []
        for lid in smp["location_id"]:
            loc = locs.get(lid)
            if loc is None:
                raise DeltaError("sample on a missing location %d" % lid)
            addrs.append(loc["address"])
            names = [funcs.get(ln["function_id"], "?") for ln in loc["line"]]
            stack.extend(names or ["0x%x" % loc["address"]])
        labels = tuple(sorted((_str(st, lb["key"]), _str(st, lb["str"]) if lb["str"] else None,
                               lb["num"] if lb["num"] or not lb["str"] else None,
                               _str(st, lb["num_unit"]) if lb["num_unit"] else None)
                              for lb in smp["label"]))
        out.append(((tuple(addrs), labels), smp["value"], stack))
    return types, out


def _merge(types, samples):
    """key -> [summed values, stack] (first stack seen), in first-seen order."""
    m = {}
    for key, vals, stack in samples:
        if key in m:
            m[key][0] = [a + b for a, b in zip(m[key][0], vals)]
        else:
            m[key] = [list(vals), stack]
    return m


def delta(prev, cur):
    """(rows, summary): cur with alloc_* turned into deltas against prev."""
    ptypes, psamples = read(prev)
    ctypes, csamples = read(cur)
    for t in DELTA_TYPES:
        if t not in ctypes or t not in ptypes:
            raise DeltaError("no %s sample type in the %s profile" % (t, "current" if t not in ctypes
                                                                       else "previous"))
    pm = _merge(ptypes, psamples)
    cm = _merge(ctypes, csamples)
    rows = []
    summ = {"samples": len(cm), "prev_samples": len(pm), "unmatched": 0, "negative": 0}
    for t in DELTA_TYPES + KEPT_TYPES:
        if t in ctypes:
            summ[t] = 0
    for key, (vals, stack) in cm.items():
        addrs, labels = key
        prev_vals = pm[key][0] if key in pm else None
        row = {"stack": stack, "addresses": ["0x%x" % a for a in addrs], "matched": prev_vals is not None,
               "labels": {k: (s if s is not None else n) for k, s, n, _ in labels}}
        if prev_vals is None:
            summ["unmatched"] += 1
        for t in DELTA_TYPES:
            v = vals[ctypes[t]] if ctypes[t] < len(vals) else 0
            if prev_vals is not None:
                v -= prev_vals[ptypes[t]] if ptypes[t] < len(prev_vals) else 0
            if v < 0:
                summ["negative"] += 1
            row[t] = v
            summ[t] += v
        for t in KEPT_TYPES:
            if t in ctypes:
                row[t] = vals[ctypes[t]] if ctypes[t] < len(vals) else 0
                summ[t] += row[t]
        rows.append(row)
    return rows, summ


class AlloyDelta:
    """One scrape target's state: step() drops the first profile."""

    def __init__(self):
        self.prev = None

    def step(self, profile):
        if isinstance(profile, (bytes, bytearray)):
            profile = validate.decode_profile(bytes(profile))
        prev, self.prev = self.prev, profile
        if prev is None:
            return None
        return delta(prev, profile)[0]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root-first", action="store_true", help="stacks root first (default: leaf first)")
    ap.add_argument("--summary-only", action="store_true")
    ap.add_argument("prev")
    ap.add_argument("cur")
    a = ap.parse_args(argv)
    try:
        with open(a.prev, "rb") as f:
            prev = f.read()
        with open(a.cur, "rb") as f:
            cur = f.read()
        rows, summ = delta(prev, cur)
    except (OSError, DeltaError, validate.WireError) as e:
        print("alloy_delta.py: %s" % e, file=sys.stderr)
        return 2
    if not a.summary_only:
        for r in rows:
            if a.root_first:
                r["stack"].reverse()
                r["addresses"].reverse()
            print(json.dumps(r, sort_keys=True))
    print(json.dumps({"summary": summ}, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
