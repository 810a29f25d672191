#!/usr/bin/env python3
"""membomb.py: memory bombs for ying's decoders (issue 13, finding 5).

    python3 membomb.py KIND OUT [SCALE]

Kinds (SCALE multiplies the default size):
  empty-gz     a .pb.gz pprof of empty samples (2 bytes each, ~100 decoded
               by protobuf-c); the default ~100 M samples gzip to ~200 KB
  empty-plain  the same, plain, 10 MB (5 M samples)
  values-gz    a .pb.gz pprof of valid one-value samples (4 bytes each,
               ~120 decoded): 12 M samples, past a 1 GiB budget
  string-gz    a .pb.gz pprof whose one string is 600 MiB of zeros
  heap-gz      a gzipped heap_v2 dump of 80 000 identical 256-frame stacks
               (~80 MB of text, a model about as big)
  frames-gz    a .pb.gz pprof of one sample whose packed location_id list
               repeats one location 30 M times (30 MB of 0x01 bytes, ~29 KB
               gzipped): ~240 MB decoded by protobuf-c, as much again in
               the model's frames (issue 22)
  inline-gz    a .pb.gz pprof of one location with an inline chain of 1000
               lines and one sample naming it 100 000 times: a few MB decoded,
               but 100 M frames (1.6 GB) once a writer expands the stack
               (issue 22)
  real-pprof   a small valid pprof (one sample type, 1000 samples): the control
"""
import gzip
import sys
import zlib


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, wt, payload):
    key = varint(num << 3 | wt)
    if wt == 2:
        return key + varint(len(payload)) + payload
    return key + payload


def head():
    # string_table: "", "inuse_space", "bytes"; sample_type {type 1, unit 2}
    st = b"".join(field(6, 2, s) for s in (b"", b"inuse_space", b"bytes"))
    return st + field(1, 2, field(1, 0, varint(1)) + field(2, 0, varint(2)))


def gz_stream(out, chunks):
    """gzip the chunks (an iterator of bytes) to out, level 9, streaming."""
    with open(out, "wb") as f:
        z = zlib.compressobj(9, zlib.DEFLATED, 31)
        for c in chunks:
            f.write(z.compress(c))
        f.write(z.flush())


def repeat(unit, count, block=1 << 20):
    per = max(1, block // len(unit))
    blk = unit * per
    while count >= per:
        yield blk
        count -= per
    if count:
        yield unit * count


def main():
    kind, out = sys.argv[1], sys.argv[2]
    scale = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
    empty = field(2, 2, b"")
    one = field(2, 2, field(2, 0, varint(0)))
    if kind == "empty-gz":
        gz_stream(out, [head()] + list(repeat(empty, int(100_000_000 * scale))))
    elif kind == "empty-plain":
        with open(out, "wb") as f:
            f.write(head())
            for c in repeat(empty, int(5_000_000 * scale)):
                f.write(c)
    elif kind == "values-gz":
        gz_stream(out, [head()] + list(repeat(one, int(12_000_000 * scale))))
    elif kind == "string-gz":
        n = int(0.6 * (1 << 30) * scale)
        gz_stream(out, [head(), varint(6 << 3 | 2), varint(n)] +
                  list(repeat(b"\0", n, 8 << 20)))
    elif kind == "heap-gz":
        rec = ("@ " + " ".join("0x%x" % (0x400000 + 16 * i) for i in range(256)) +
               "\n  t*: 1: 4096 [0: 0]\n").encode()
        n = int(80_000 * scale)
        hdr = ("heap_v2/524288\n  t*: %d: %d [0: 0]\n" % (n, 4096 * n)).encode()
        gz_stream(out, [hdr] + list(repeat(rec, n)))
    elif kind == "frames-gz":
        n = int(30_000_000 * scale)
        # location 1 at 0x400010; sample {location_id: packed [1] * n, value 4096}
        loc = field(4, 2, field(1, 0, varint(1)) + field(3, 0, varint(0x400010)))
        ids = varint(1 << 3 | 2) + varint(n)
        tail = field(2, 0, varint(4096))
        sample_len = len(ids) + n + len(tail)
        gz_stream(out, [head(), loc, varint(2 << 3 | 2), varint(sample_len), ids] +
                  list(repeat(b"\x01", n, 8 << 20)) + [tail])
    elif kind == "inline-gz":
        nl, n = 1000, int(100_000 * scale)
        st = field(6, 2, b"f")      # string 3
        fn = field(5, 2, field(1, 0, varint(1)) + field(2, 0, varint(3)))
        lines = b"".join(field(4, 2, field(1, 0, varint(1)) + field(2, 0, varint(k + 1)))
                         for k in range(nl))
        loc = field(4, 2, field(1, 0, varint(1)) + field(3, 0, varint(0x400010)) + lines)
        smp = field(2, 2, field(1, 2, b"\x01" * n) + field(2, 0, varint(4096)))
        gz_stream(out, [head(), st, fn, loc, smp])
    elif kind == "real-pprof":
        body = head()
        for i in range(1, 11):
            body += field(4, 2, field(1, 0, varint(i)) + field(3, 0, varint(0x400000 + 16 * i)))
        for i in range(1000):
            body += field(2, 2, field(1, 2, varint(1 + i % 10)) + field(2, 0, varint(4096)))
        with open(out, "wb") as f:
            f.write(gzip.compress(body) if out.endswith(".gz") else body)
    else:
        sys.exit("membomb.py: unknown kind " + kind)


if __name__ == "__main__":
    main()
