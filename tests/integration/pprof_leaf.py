#!/usr/bin/env python3
"""pprof_leaf.py FILE: the leaf function of every sample of a pprof profile.

Decodes the protobuf (gzipped or not) with no library: for each sample,
one line holding the name of the innermost line of its first location (the
frame pprof shows on top), or "-" for a sample without locations.  For
tests/integration/layers_cxx.sh and rust_layers.sh."""
import gzip
import sys


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def fields(b):
    i = 0
    while i < len(b):
        k, i = varint(b, i)
        n, t = k >> 3, k & 7
        if t == 0:
            v, i = varint(b, i)
        elif t == 2:
            ln, i = varint(b, i)
            v = b[i:i + ln]
            i += ln
        elif t == 1:
            v = b[i:i + 8]
            i += 8
        elif t == 5:
            v = b[i:i + 4]
            i += 4
        else:
            raise SystemExit("pprof_leaf.py: wire type %d" % t)
        yield n, t, v


def ints(t, v):
    if t == 0:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def main():
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    strings, samples, locs, funcs = [], [], {}, {}
    for n, t, v in fields(data):
        if n == 6:
            strings.append(v.decode("utf-8", "replace"))
        elif n == 2:
            ids = []
            for sn, st, sv in fields(v):
                if sn == 1:
                    ids += ints(st, sv)
            samples.append(ids)
        elif n == 4:
            lid, first = 0, None
            for ln, lt, lv in fields(v):
                if ln == 1:
                    lid = lv
                elif ln == 4 and first is None:
                    for fn_, ft, fv in fields(lv):
                        if fn_ == 1:
                            first = fv
            locs[lid] = first
        elif n == 5:
            fid = name = 0
            for fn_, ft, fv in fields(v):
                if fn_ == 1:
                    fid = fv
                elif fn_ == 2:
                    name = fv
            funcs[fid] = name
    for ids in samples:
        if not ids or locs.get(ids[0]) is None:
            print("-")
        else:
            print(strings[funcs.get(locs[ids[0]], 0)])


main()
