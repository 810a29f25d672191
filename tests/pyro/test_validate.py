#!/usr/bin/env python3
"""test_validate.py: unit tests of tests/pyro/validate.py (and, when go and
protoc are there, of the stand-in answering with its codes), printing TAP.

Every rule gets a hand-built profile (validate.encode_profile, the tiny
encoder) or label set that breaks only it and must be refused with
Pyroscope's reason code; the good profile, plain and gzipped, must pass.
Run by tests/integration/pyro_validate.sh; by hand:
    python3 tests/pyro/test_validate.py
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # never write into the source tree
sys.path.insert(0, HERE)
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


LABELS = [("__name__", "memory"), ("service_name", "svc"), ("env", "test")]
NOW = time.time()


def good(nsamples=3):
    """A valid heap profile: inuse_space/inuse_objects, one mapping, two
    functions, a "bytes" numeric label on each sample."""
    st = ["", "inuse_space", "bytes", "inuse_objects", "count", "space", "main", "leaf",
          "/bin/prog", "prog.c", "bytes", "kind", "heap"]
    return {
        "sample_type": [{"type": 1, "unit": 2}, {"type": 3, "unit": 4}],
        "sample": [{"location_id": [2, 1], "value": [64 * (i + 1), i + 1],
                    "label": [{"key": 10, "num": 64}, {"key": 11, "str": 12}]}
                   for i in range(nsamples)],
        "mapping": [{"id": 1, "memory_start": 0x1000, "memory_limit": 0x9000, "filename": 8,
                     "has_functions": True}],
        "location": [{"id": 1, "mapping_id": 1, "address": 0x1100, "line": [{"function_id": 1, "line": 3}]},
                     {"id": 2, "mapping_id": 1, "address": 0x1200, "line": [{"function_id": 2, "line": 7}]}],
        "function": [{"id": 1, "name": 6, "system_name": 6, "filename": 9},
                     {"id": 2, "name": 7, "system_name": 7, "filename": 9}],
        "string_table": st,
        "time_nanos": int(NOW * 1e9),
        "period_type": {"type": 5, "unit": 2},
        "period": 524288,
    }


def codes(p, labels=LABELS, raw=None, **kw):
    b = raw if raw is not None else V.encode_profile(p)
    v, _ = V.validate(b, labels, now=NOW, **kw)
    return sorted(set(c for c, _ in v)), v


def refused(name, code, p=None, labels=LABELS, raw=None, **kw):
    got, v = codes(p if p is not None else good(), labels, raw, **kw)
    ok(got == [code], "refused %s: %s" % (name, code), "got: %r" % v)


def mut(f):
    p = good()
    f(p)
    return p


def test_decoder():
    p = good()
    p["sample"][0]["value"] = [-5, -1]
    b = V.encode_profile(p)
    d = V.decode_profile(b)
    ok(d["sample"][0]["value"] == [-5, -1] and d["sample"][1]["location_id"] == [2, 1],
       "decoder: negative int64 and packed uint64 read back", d["sample"][:2])
    ok([s.decode() for s in d["string_table"]] == p["string_table"] and d["period"] == 524288
       and d["period_type"] == {"type": 5, "unit": 2}, "decoder: strings, period, period_type")
    ok(V.decode_profile(gzip.compress(b)) == d, "decoder: gzipped input")
    # Unpacked repeated scalars (proto2 style) read like packed ones.
    smp = V._enc_varint(1 << 3) + V._enc_varint(7) + V._enc_varint(1 << 3) + V._enc_varint(8) + \
        V._enc_varint(2 << 3) + V._enc_varint(3)
    raw = V._enc_varint(2 << 3 | 2) + V._enc_varint(len(smp)) + smp
    d = V.decode_profile(raw)
    ok(d["sample"][0]["location_id"] == [7, 8] and d["sample"][0]["value"] == [3],
       "decoder: unpacked repeated fields", d)
    for name, bad in (("truncated", b[:len(b) // 2]), ("wire type 7", b"\x0f"),
                      ("length past the end", b"\x0a\x7f\x00")):
        try:
            V.decode_profile(bad)
            ok(False, "decoder: %s raises WireError" % name)
        except V.WireError:
            ok(True, "decoder: %s raises WireError" % name)
    big = good(20000)
    b = V.encode_profile(big)
    t = time.time()
    v, facts = V.validate(b, LABELS, now=NOW, max_samples=20000)
    dt = time.time() - t
    ok(not v and facts["samples"] == 20000 and dt < 5,
       "a 20,000-sample profile validates in %.2f s (< 5 s)" % dt, v)


def test_good():
    got, v = codes(good())
    ok(got == [], "the good profile is accepted", v)
    got, v = codes(None, raw=gzip.compress(V.encode_profile(good())))
    ok(got == [], "... gzipped too", v)
    v, facts = V.validate(V.encode_profile(good()), LABELS, now=NOW)
    ok(facts["sample_types"] == ["inuse_space:bytes", "inuse_objects:count"]
       and facts["period_type"] == "space:bytes" and facts["samples"] == 3
       and facts["totals"] == [64 * 6, 6], "facts: types, period type, samples, totals", facts)
    got, v = codes(mut(lambda p: p.update(time_nanos=0)))
    ok(got == [], "time_nanos 0 (now) is accepted", v)
    got, v = codes(good(), labels=None)
    ok(got == [], "labels None: not checked", v)
    got, v = codes(good(), labels=LABELS + [("__session_id__", "abc"), ("__delta__", "false")])
    ok(got == [], "__session_id__ and __delta__ are accepted", v)
    got, v = codes(good(), labels=LABELS + [("__secret__", "x")])
    ok(got == [], "push keeps other __ labels (the real server does not reject them)", v)
    got, v = codes(mut(lambda p: p.update(_raw=V._enc_varint(99 << 3) + V._enc_varint(1))))
    ok(got == [], "an unknown field number is skipped (as Go's decoder does)", v)
    got, v = codes(good(16000))
    ok(got == [], "16,000 samples are accepted", v)


def test_time():
    refused("2 h old", "not_in_ingestion_window", mut(lambda p: p.update(time_nanos=int((NOW - 7200) * 1e9))))
    refused("1 h 1 min old", "not_in_ingestion_window",
            mut(lambda p: p.update(time_nanos=int((NOW - 3660) * 1e9))))
    refused("11 min ahead", "not_in_ingestion_window",
            mut(lambda p: p.update(time_nanos=int((NOW + 660) * 1e9))))
    got, v = codes(mut(lambda p: p.update(time_nanos=int((NOW - 3500) * 1e9))))
    ok(got == [], "58 min old is accepted", v)
    got, v = codes(mut(lambda p: p.update(time_nanos=int((NOW + 500) * 1e9))))
    ok(got == [], "8 min ahead is accepted", v)
    refused("older than a small window", "not_in_ingestion_window",
            mut(lambda p: p.update(time_nanos=int((NOW - 100) * 1e9))), reject_older_than=60)


def test_sizes():
    refused("16,001 samples", "samples_limit", good(16001))
    refused("4 samples, max 3", "samples_limit", good(4), max_samples=3)
    p = mut(lambda p: p["string_table"].append("x" * (5 << 20)))
    got, v = codes(p)
    ok("profile_size_limit" in got and "rate_limited" in got,
       "a 5 MiB profile: profile_size_limit (and the burst)", v)
    raw = gzip.compress(V.encode_profile(mut(lambda p: p["string_table"].append("y" * 4000))))
    refused("gzipped 300 B, 4 KiB uncompressed, limit 3000", "profile_size_limit", raw=raw,
            max_profile_bytes=3000, burst_bytes=1 << 20)
    b = V.encode_profile(good())
    refused("labels + profile over the burst", "rate_limited", raw=b,
            burst_bytes=len(b) + V.labels_size(LABELS) - 1)
    got, v = codes(None, raw=b, burst_bytes=len(b) + V.labels_size(LABELS))
    ok(got == [], "... exactly the burst passes", v)
    refused("a long label value pushes it over the burst", "rate_limited", raw=b,
            labels=LABELS + [("big", "v" * 1000)], burst_bytes=len(b) + 500)
    ok(V.http_status("rate_limited") == 429 and V.http_status("samples_limit") == 400,
       "http_status: 429 for the burst, 400 otherwise")


def test_labels():
    refused("31 labels", "max_label_names_per_series",
            labels=LABELS + [("l%d" % i, "v") for i in range(28)])
    got, v = codes(good(), labels=LABELS + [("l%d" % i, "v") for i in range(27)])
    ok(got == [], "30 labels are accepted", v)
    refused("3 labels, max 2", "max_label_names_per_series", max_label_names=2)
    refused("a 1025-byte name", "label_name_too_long", labels=LABELS + [("n" * 1025, "v")])
    refused("a 2049-byte value", "label_value_too_long", labels=LABELS + [("k", "v" * 2049)])
    refused("a value of 1025 UTF-8 2-byte chars", "label_value_too_long",
            labels=LABELS + [("k", "\u00e9" * 1025)])
    got, v = codes(good(), labels=LABELS + [("n" * 1024, "v" * 2048)])
    ok(got == [], "name 1024 and value 2048 bytes are accepted", v)
    refused("a duplicate name", "duplicate_label_names", labels=LABELS + [("env", "b")])
    refused("no service_name", "missing_labels", labels=[("__name__", "memory")])
    refused("an empty service_name", "missing_labels", labels=[("__name__", "memory"), ("service_name", "")])
    refused("no labels", "missing_labels", labels=[])
    refused("no __name__", "invalid_labels", labels=[("service_name", "s")])
    refused("__name__ mem-ory", "invalid_labels", labels=[("__name__", "mem-ory"), ("service_name", "s")])
    refused("a name with '-'", "invalid_labels", labels=LABELS + [("bad-name", "x")])
    refused("a name with a space", "invalid_labels", labels=LABELS + [("bad name", "x")])
    refused("a value not UTF-8", "invalid_labels", labels=LABELS + [("k", b"\xff\xfe")])
    refused("a name not UTF-8", "invalid_labels", labels=LABELS + [(b"k\xc3", "v")])
    refused("an empty value", "invalid_labels", labels=LABELS + [("k", "")])
    refused("__secret__ with reject_dunder", "invalid_labels", labels=LABELS + [("__secret__", "x")],
            reject_dunder=True)
    got, v = codes(good(), labels=LABELS + [("__secret__", "x")], api="ingest")
    ok(got == ["invalid_labels"], "__secret__ on /ingest (dropped there, never passed on)", v)
    got, v = codes(good(), labels=LABELS + [("a.b_c9", "x")])
    ok(got == [], "a name with '.', '_' and digits is accepted", v)


def test_profile():
    M = "malformed_profile"
    refused("string 0 not empty", M, mut(lambda p: p["string_table"].__setitem__(0, "x")))
    refused("no string table", M, mut(lambda p: p.update(string_table=[])))
    refused("a function name index out of range", M, mut(lambda p: p["function"][0].update(name=99)))
    refused("a negative string index", M, mut(lambda p: p["function"][0].update(filename=-1)))
    refused("a mapping filename index out of range", M, mut(lambda p: p["mapping"][0].update(filename=13)))
    refused("a sample type unit index out of range", M, mut(lambda p: p["sample_type"][0].update(unit=50)))
    refused("period_type index out of range", M, mut(lambda p: p["period_type"].update(type=50)))
    refused("a comment index out of range", M, mut(lambda p: p.update(comment=[50])))
    refused("default_sample_type out of range", M, mut(lambda p: p.update(default_sample_type=50)))
    refused("a label key index out of range", M, mut(lambda p: p["sample"][0]["label"][0].update(key=50)))
    refused("a label str index out of range", M, mut(lambda p: p["sample"][0]["label"][1].update(str=50)))
    refused("a label num_unit index out of range", M,
            mut(lambda p: p["sample"][0]["label"][0].update(num_unit=50)))
    refused("a string not UTF-8", M, mut(lambda p: p["string_table"].append(b"\xc3\x28")))
    refused("no sample types", M, mut(lambda p: [p.update(sample_type=[])] + [s.update(value=[]) for s in p["sample"]]))
    refused("a sample type with '-'", M, mut(lambda p: p["string_table"].__setitem__(1, "inuse-space")))
    refused("a sample unit with '-'", M, mut(lambda p: p["string_table"].__setitem__(4, "co-unt")))
    refused("a sample with 1 value for 2 types", M, mut(lambda p: p["sample"][1].update(value=[5])))
    refused("a sample with 3 values for 2 types", M, mut(lambda p: p["sample"][1].update(value=[5, 1, 1])))
    refused("mapping id 0", M, mut(lambda p: [p["mapping"][0].update(id=0), p["location"][0].update(mapping_id=0),
                                              p["location"][1].update(mapping_id=0)]))
    refused("location id 0", M, mut(lambda p: p["location"][0].update(id=0)))
    refused("function id 0", M, mut(lambda p: p["function"][0].update(id=0)))
    refused("a duplicate location id", M, mut(lambda p: p["location"][1].update(id=1)))
    refused("a duplicate function id", M, mut(lambda p: p["function"][1].update(id=1)))
    refused("a duplicate mapping id", M, mut(lambda p: p["mapping"].append(dict(p["mapping"][0]))))
    refused("a location on a missing mapping", M, mut(lambda p: p["location"][0].update(mapping_id=7)))
    refused("a line on a missing function", M, mut(lambda p: p["location"][0]["line"][0].update(function_id=7)))
    refused("a line with function 0", M, mut(lambda p: p["location"][0]["line"][0].update(function_id=0)))
    refused("a sample on a missing location", M, mut(lambda p: p["sample"][2].update(location_id=[1, 9])))
    refused("101 labels on a sample", "sample_labels_limit",
            mut(lambda p: p["sample"][0].update(label=[{"key": 11, "str": 12}] * 101)))
    got, v = codes(mut(lambda p: p["sample"][0].update(label=[{"key": 11, "str": 12}] * 100)))
    ok(got == [], "100 labels on a sample are accepted", v)
    refused("3 labels on a sample, max 2", "sample_labels_limit",
            mut(lambda p: p["sample"][0].update(label=[{"key": 11, "str": 12}] * 3)), max_sample_labels=2)
    b = V.encode_profile(good())
    refused("a truncated profile", M, raw=b[:-3])
    refused("bytes that are no pprof", M, raw=b"not a profile at all")
    refused("an empty profile", M, raw=b"")
    refused("bad gzip", M, raw=b"\x1f\x8b\x08\x00garbage")
    refused("an unknown field with strict_fields", M,
            mut(lambda p: p.update(_raw=V._enc_varint(99 << 3) + V._enc_varint(1))), strict_fields=True)
    # Wire type mismatch: string_table sent as a varint.
    refused("a string sent as a varint", M, raw=b + V._enc_varint(6 << 3) + V._enc_varint(1))


def test_cli():
    d = tempfile.mkdtemp(prefix="test_validate.")
    try:
        g = os.path.join(d, "good.pprof")
        with open(g, "wb") as f:
            f.write(gzip.compress(V.encode_profile(good(5))))
        cli = [sys.executable, os.path.join(HERE, "validate.py")]
        r = subprocess.run(cli + [g, "--label", "__name__=memory", "--label", "service_name=s"],
                           capture_output=True, text=True)
        ok(r.returncode == 0 and r.stdout == "ok\n", "CLI: a good profile prints ok, exit 0", r.stdout, r.stderr)
        r = subprocess.run(cli + ["--max-samples", "4", g, "--label", "__name__=memory"],
                           capture_output=True, text=True)
        ok(r.returncode == 1 and "samples_limit: " in r.stdout and "missing_labels: " in r.stdout,
           "CLI: --max-samples 4 and no service_name: both printed, exit 1", r.stdout, r.stderr)
        r = subprocess.run(cli + ["--reject-dunder", g, "--label", "__name__=memory", "--label",
                                  "service_name=s", "--label", "__x=1"], capture_output=True, text=True)
        ok(r.returncode == 1 and r.stdout.startswith("invalid_labels: "), "CLI: --reject-dunder", r.stdout)
        r = subprocess.run(cli + ["--now", str(NOW + 7200), g], capture_output=True, text=True)
        ok(r.returncode == 1 and r.stdout.startswith("not_in_ingestion_window: "), "CLI: --now", r.stdout)
        r = subprocess.run(cli + [os.path.join(d, "none")], capture_output=True, text=True)
        ok(r.returncode == 2, "CLI: a missing file is exit 2", r.stdout, r.stderr)
    finally:
        shutil.rmtree(d)


def push_request(labels, raw, sid="id-1"):
    def enc(f, b):
        return V._enc_varint(f << 3 | 2) + V._enc_varint(len(b)) + b

    series = b"".join(enc(1, enc(1, n.encode()) + enc(2, v.encode())) for n, v in labels)
    series += enc(2, enc(1, raw) + enc(2, sid.encode()))
    return enc(1, series)


def test_standin():
    """The stand-in answers with validate.py's codes (needs protoc and go)."""
    if not shutil.which("protoc") or not shutil.which("go"):
        print("ok %d # SKIP protoc or go missing: the stand-in is not tried" % (N + 1))
        globals()["N"] = N + 1
        return
    d = tempfile.mkdtemp(prefix="test_validate.")
    p = subprocess.Popen([sys.executable, os.path.join(HERE, "standin.py"), "--dir", d,
                          "--limit", "max_samples=4", "--limit", "burst_bytes=20000"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        port = int(p.stdout.readline().split()[1])

        def post(body):
            req = urllib.request.Request("http://127.0.0.1:%d/push.v1.PusherService/Push" % port, data=body,
                                         headers={"Content-Type": "application/proto"})
            try:
                with urllib.request.urlopen(req, timeout=60) as r:
                    return r.status, r.read().decode()
            except urllib.error.HTTPError as e:
                return e.code, e.read().decode()

        st, body = post(push_request(LABELS, gzip.compress(V.encode_profile(good(4)))))
        ok(st == 200, "stand-in: 4 samples (its max) accepted", st, body)
        st, body = post(push_request(LABELS, gzip.compress(V.encode_profile(good(5)))))
        ok(st == 400 and json.loads(body)["message"].startswith("samples_limit: "),
           "stand-in --limit max_samples=4: 5 samples are 400 samples_limit", st, body)
        big = mut(lambda p: p["string_table"].append("z" * 30000))
        st, body = post(push_request(LABELS, gzip.compress(V.encode_profile(big))))
        ok(st == 429 and json.loads(body)["message"].startswith("rate_limited: ")
           and json.loads(body)["code"] == "resource_exhausted",
           "stand-in --limit burst_bytes=20000: a 30 kB profile is 429 rate_limited", st, body)
        old = mut(lambda p: p.update(time_nanos=int((time.time() - 7200) * 1e9)))
        st, body = post(push_request(LABELS, V.encode_profile(old)))
        ok(st == 400 and "not_in_ingestion_window: " in body, "stand-in: 2 h old is 400 not_in_ingestion_window",
           st, body)
        with open(os.path.join(d, "requests.log")) as f:
            log = f.read()
        ok(" 400 invalid_argument: samples_limit: " in log and " 429 resource_exhausted: rate_limited: " in log
           and "not_in_ingestion_window" in log and log.count(" 200 ") == 1,
           "stand-in: requests.log records each refusal with its code", log)
    finally:
        p.kill()
        p.wait()
        shutil.rmtree(d)


def main():
    for t in (test_decoder, test_good, test_time, test_sizes, test_labels, test_profile, test_cli,
              test_standin):
        t()
    print("1..%d" % N)
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
