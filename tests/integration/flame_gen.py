#!/usr/bin/env python3
"""flame_gen.py: write a big synthetic but valid jemalloc heap_v2 dump.

usage: flame_gen.py OUT.heap [--stacks N] [--seed S] [--lib PATH]

The dump has N distinct stacks whose return addresses lie inside real
functions of a real shared library (libc by default, its LOAD segments
mapped at a made-up base the way the loader maps them), so that ying
symbolizes them to real names.  Every address is a real return address: it
follows a direct call instruction (E8 rel32 into the library's code) of the
function, so the dump passes ying's check that the file on disk is the one
that was mapped (sampled return addresses must follow calls).  The
stacks come from a random walk over a fixed call graph where each function
calls a few others with skewed (Zipf-like) odds, the way a real program's
stacks share callers and differ near the leaves.  Counts and sizes are
random but fixed by the seed, so the same command gives the same file.
"""
import argparse
import random
import subprocess
import sys

BASE = 0x7f3a00000000


def functions(lib):
    out = subprocess.run(['nm', '-D', '--defined-only', '-S', lib], check=True,
                         capture_output=True, text=True).stdout
    seen, funcs = set(), []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) != 4 or parts[2] not in ('T', 't', 'W', 'i'):
            continue
        addr, size = int(parts[0], 16), int(parts[1], 16)
        if size < 16 or addr in seen:
            continue
        seen.add(addr)
        funcs.append((addr, size))
    funcs.sort()
    return funcs


def loads(lib):
    """The PT_LOAD segments: (offset, vaddr, filesz, memsz, flags)."""
    out = subprocess.run(['readelf', '-lW', lib], check=True, capture_output=True,
                         text=True).stdout
    segs = []
    for line in out.splitlines():
        p = line.split()
        if p and p[0] == 'LOAD':
            flags = ''.join(p[6:-1])
            segs.append((int(p[1], 16), int(p[2], 16), int(p[4], 16), int(p[5], 16), flags))
    return segs


def call_sites(lib, funcs, segs):
    """Per function, the addresses right after its direct calls into code."""
    data = open(lib, 'rb').read()
    code = [(s[1], s[1] + s[2], s[0]) for s in segs if 'E' in s[4]]

    def to_off(v):
        for lo, hi, off in code:
            if lo <= v < hi:
                return v - lo + off
        return None
    out = []
    for addr, size in funcs:
        sites = []
        for v in range(addr + 5, addr + size):
            o = to_off(v)
            if o is None or data[o - 5] != 0xe8:
                continue
            rel = int.from_bytes(data[o - 4:o], 'little', signed=True)
            if to_off(v + rel) is not None:
                sites.append(v)
        out.append(sites)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('--stacks', type=int, default=200000)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--lib', default='/lib/x86_64-linux-gnu/libc.so.6')
    a = ap.parse_args()
    rnd = random.Random(a.seed)

    segs = loads(a.lib)
    funcs = functions(a.lib)
    sites_all = call_sites(a.lib, funcs, segs)
    funcs = [f for f, s in zip(funcs, sites_all) if s]
    sites_all = [s for s in sites_all if s]
    if len(funcs) < 200:
        sys.exit('flame_gen.py: too few functions in %s' % a.lib)
    nf = len(funcs)
    # a few call sites per function; callee lists with skewed odds
    callees = []
    for i in range(nf):
        k = rnd.randint(2, 7)
        callees.append([rnd.randrange(nf) for _ in range(k)])
    # cumulative odds of picking the j-th callee out of k
    weights = [1.0 / (j + 1) ** 1.3 for j in range(8)]
    cum = [[sum(weights[:j + 1]) / sum(weights[:k]) for j in range(k)] for k in range(9)]
    sites = [[rnd.choice(sites_all[i]) for _ in range(3)] for i in range(nf)]

    stacks = {}
    roots = [rnd.randrange(nf) for _ in range(3)]
    r = rnd.random
    while len(stacks) < a.stacks:
        at = roots[0] if r() < 0.9 else roots[int(r() * 3)]
        depth = 8 + int(r() * 33)
        frames = []
        for _ in range(depth):
            s = sites[at]
            x = r()
            frames.append(s[0] if x < 0.8 else s[1] if x < 0.9 else s[2])
            cs = callees[at]
            c, x, j = cum[len(cs)], r(), 0
            while c[j] < x:
                j += 1
            at = cs[j]
        frames.reverse()   # leaf first
        key = tuple(frames)
        if key in stacks:
            continue
        objs = 1 + int(r() * 40)
        size = 16 << int(r() * 16)
        stacks[key] = (objs, objs * size)

    tot_o = sum(v[0] for v in stacks.values())
    tot_b = sum(v[1] for v in stacks.values())
    with open(a.out, 'w') as f:
        w = f.write
        w('heap_v2/524288\n')
        w('  t*: %d: %d [0: 0]\n' % (tot_o, tot_b))
        w('  t0: %d: %d [0: 0] main\n' % (tot_o, tot_b))
        for key, (o, b) in stacks.items():
            # every pc is a return address, as jemalloc's backtrace gives them
            w('@ ' + ' '.join('0x%x' % (BASE + pc) for pc in key) + '\n')
            w('  t*: %d: %d [0: 0]\n' % (o, b))
            w('  t0: %d: %d [0: 0]\n' % (o, b))
        w('\nMAPPED_LIBRARIES:\n')
        for off, vaddr, filesz, memsz, flags in segs:
            perms = ('r' if 'R' in flags else '-') + ('w' if 'W' in flags else '-') + \
                ('x' if 'E' in flags else '-') + 'p'
            lo, hi = vaddr & ~0xfff, (vaddr + memsz + 0xfff) & ~0xfff
            w('%x-%x %s %08x 08:01 4242 %s\n' % (BASE + lo, BASE + hi, perms, off & ~0xfff, a.lib))
        w('7ffd5e6a1000-7ffd5e6c2000 rw-p 00000000 00:00 0                          [stack]\n')


if __name__ == '__main__':
    main()
