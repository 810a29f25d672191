#!/usr/bin/env python3
"""validate.py: the checks a real Grafana Pyroscope applies to one uploaded profile.

Written for ying's tests from the rules restated in the shared reference
(pprof-pyroscope.md, "A real Pyroscope's default limits" and sections
3.3-3.7), never from Pyroscope's code.  Python 3 stdlib only: the pprof is
read by the small protobuf wire decoder below (varints, length-delimited
fields, packed and unpacked repeated scalars), so no protoc is needed and a
20,000-sample profile takes about a second.

As a module:
    violations, facts = validate(raw, labels, now=None, api="push", **limits)
raw: the pprof as uploaded (gzipped or not); labels: the series' label pairs
[(name, value)] (None: labels not checked); now: the request's time (s since
the epoch, default time.time()).  Each violation is (code, message), code
the reason Pyroscope reports (not_in_ingestion_window, samples_limit,
profile_size_limit, rate_limited, max_label_names_per_series,
label_name_too_long, label_value_too_long, duplicate_label_names,
invalid_labels, missing_labels, sample_labels_limit, malformed_profile).
rate_limited is the ingestion rate limiter's burst: labels + uncompressed
profile over 2 MiB can never pass, the real server answers 429 every time
(http_status() gives the answer a server would send).  facts: what was read
(sample types, period type, samples, totals, time_nanos, ...).
The limits are keyword arguments (see LIMITS) so tests can use small ones.

decode_profile(bytes) gives the profile as plain dicts (the field names of
profile.proto), encode_profile(dict) the reverse (for tests building
profiles by hand).

CLI:
    validate.py [--max-samples N] [--max-profile-bytes N] [--burst-bytes N]
                [--max-label-names N] [--max-label-name-len N]
                [--max-label-value-len N] [--max-sample-labels N]
                [--reject-older-than S] [--reject-newer-than S]
                [--reject-dunder] [--strict-fields] [--now T] [--api push|ingest]
                FILE.pprof [--label k=v ...]
prints "ok" (exit 0) or one line per violation "CODE: message" (exit 1);
exit 2 on a usage error or an unreadable file.  Without --label the labels
are not checked.
"""
import argparse
import gzip
import re
import sys
import time
import zlib

# Pyroscope's per-tenant defaults (the reference's "default limits").
LIMITS = {
    "max_samples": 16000,
    "max_profile_bytes": 4 << 20,       # raw profile, after decompression
    "burst_bytes": 2 << 20,             # rate limiter burst: labels + uncompressed
    "max_label_names": 30,
    "max_label_name_len": 1024,
    "max_label_value_len": 2048,
    "max_sample_labels": 100,
    "reject_older_than": 3600,          # seconds before now
    "reject_newer_than": 600,           # seconds after now
    # Not the real server's: push keeps `__*` labels.  The stand-in sets it
    # (its older, stricter rule): no `__` names but ALLOWED_DUNDER.
    "reject_dunder": False,
    # Not the real server's either (Go's decoder skips unknown fields): a
    # field number profile.proto does not have is malformed_profile.
    "strict_fields": False,
}
METRIC_NAME = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
LABEL_NAME = re.compile(r"^[A-Za-z0-9_.]+$")
ALLOWED_DUNDER = ("__name__", "__session_id__", "__delta__")
STATUS = {"rate_limited": 429}


def http_status(code):
    """The HTTP status a real server answers for a reason code."""
    return STATUS.get(code, 400)


class WireError(ValueError):
    pass


# --- the protobuf wire format ---------------------------------------------

def _varint(b, i, n):
    v = shift = 0
    while True:
        if i >= n:
            raise WireError("truncated varint")
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        if c < 0x80:
            return v, i
        shift += 7
        if shift > 63:
            raise WireError("varint longer than 10 bytes")


def fields(b):
    """[(field number, wire type, value)] of one message: value an int for
    varints and fixed fields, bytes for length-delimited ones."""
    out = []
    i, n = 0, len(b)
    while i < n:
        key, i = _varint(b, i, n)
        f, wt = key >> 3, key & 7
        if f == 0:
            raise WireError("field number 0")
        if wt == 0:
            v, i = _varint(b, i, n)
        elif wt == 2:
            ln, i = _varint(b, i, n)
            if ln > n - i:
                raise WireError("field %d: length %d past the end" % (f, ln))
            v = b[i:i + ln]
            i += ln
        elif wt == 1:
            if i + 8 > n:
                raise WireError("truncated fixed64")
            v = int.from_bytes(b[i:i + 8], "little")
            i += 8
        elif wt == 5:
            if i + 4 > n:
                raise WireError("truncated fixed32")
            v = int.from_bytes(b[i:i + 4], "little")
            i += 4
        else:
            raise WireError("field %d: wire type %d" % (f, wt))
        out.append((f, wt, v))
    return out


def _s64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def _packed(b):
    out = []
    i, n = 0, len(b)
    while i < n:
        v, i = _varint(b, i, n)
        out.append(v)
    return out


# Schemas: field number -> (name, kind); kinds: u (uint64), i (int64),
# b (bool), s (bytes), ri/ru (repeated int64/uint64), rs (repeated bytes),
# a message name (one) or [message name] (repeated).
SCHEMA = {
    "Profile": {1: ("sample_type", ["ValueType"]), 2: ("sample", ["Sample"]),
                3: ("mapping", ["Mapping"]), 4: ("location", ["Location"]),
                5: ("function", ["Function"]), 6: ("string_table", "rs"),
                7: ("drop_frames", "i"), 8: ("keep_frames", "i"), 9: ("time_nanos", "i"),
                10: ("duration_nanos", "i"), 11: ("period_type", "ValueType"),
                12: ("period", "i"), 13: ("comment", "ri"), 14: ("default_sample_type", "i"),
                15: ("doc_url", "i")},
    "ValueType": {1: ("type", "i"), 2: ("unit", "i")},
    "Sample": {1: ("location_id", "ru"), 2: ("value", "ri"), 3: ("label", ["Label"])},
    "Label": {1: ("key", "i"), 2: ("str", "i"), 3: ("num", "i"), 4: ("num_unit", "i")},
    "Mapping": {1: ("id", "u"), 2: ("memory_start", "u"), 3: ("memory_limit", "u"),
                4: ("file_offset", "u"), 5: ("filename", "i"), 6: ("build_id", "i"),
                7: ("has_functions", "b"), 8: ("has_filenames", "b"),
                9: ("has_line_numbers", "b"), 10: ("has_inline_frames", "b")},
    "Location": {1: ("id", "u"), 2: ("mapping_id", "u"), 3: ("address", "u"),
                 4: ("line", ["Line"]), 5: ("is_folded", "b")},
    "Line": {1: ("function_id", "u"), 2: ("line", "i"), 3: ("column", "i")},
    "Function": {1: ("id", "u"), 2: ("name", "i"), 3: ("system_name", "i"),
                 4: ("filename", "i"), 5: ("start_line", "i")},
}


def decode(msg, b, unknown=None):
    """One message of SCHEMA[msg] as a dict (absent fields: 0, [], None).
    Field numbers not in the schema are appended to `unknown` as
    "Msg.N"."""
    sch = SCHEMA[msg]
    d = {}
    for name, kind in sch.values():
        d[name] = [] if isinstance(kind, list) or kind[0] == "r" else (None if kind[0].isupper() else 0)
    for f, wt, v in fields(b):
        ent = sch.get(f)
        if ent is None:
            if unknown is not None:
                unknown.append("%s.%d" % (msg, f))
            continue
        name, kind = ent
        if isinstance(kind, list):
            if wt != 2:
                raise WireError("%s.%s: wire type %d for a message" % (msg, name, wt))
            d[name].append(decode(kind[0], v, unknown))
        elif kind[0].isupper():
            if wt != 2:
                raise WireError("%s.%s: wire type %d for a message" % (msg, name, wt))
            d[name] = decode(kind, v, unknown)
        elif kind == "rs" or kind == "s":
            if wt != 2:
                raise WireError("%s.%s: wire type %d for a string" % (msg, name, wt))
            if kind == "rs":
                d[name].append(v)
            else:
                d[name] = v
        elif kind in ("ri", "ru"):
            if wt == 2:
                vals = _packed(v)
            elif wt == 0:
                vals = [v]
            else:
                raise WireError("%s.%s: wire type %d for a varint" % (msg, name, wt))
            d[name].extend([_s64(x) for x in vals] if kind == "ri" else vals)
        else:
            if wt != 0:
                raise WireError("%s.%s: wire type %d for a varint" % (msg, name, wt))
            d[name] = _s64(v) if kind == "i" else (v != 0 if kind == "b" else v)
    return d


def decode_profile(raw, unknown=None):
    """pprof bytes (gzipped or not) -> dict; WireError when unreadable."""
    return decode("Profile", gunzip(raw), unknown)


def gunzip(raw):
    if raw[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:
            raise WireError("bad gzip: %s" % e)
    return raw


def _enc_varint(v):
    if v < 0:
        v += 1 << 64
    out = bytearray()
    while True:
        c = v & 0x7F
        v >>= 7
        if v:
            out.append(c | 0x80)
        else:
            out.append(c)
            return bytes(out)


def encode(msg, d):
    """The reverse of decode: a dict (missing keys skipped) -> bytes.
    Repeated scalars are packed; a key "_raw" (bytes) is appended as is."""
    out = bytearray()
    for f, (name, kind) in sorted(SCHEMA[msg].items()):
        if name not in d or d[name] is None:
            continue
        v = d[name]
        if isinstance(kind, list):
            for m in v:
                body = encode(kind[0], m)
                out += _enc_varint(f << 3 | 2) + _enc_varint(len(body)) + body
        elif kind[0].isupper():
            body = encode(kind, v)
            out += _enc_varint(f << 3 | 2) + _enc_varint(len(body)) + body
        elif kind == "rs":
            for s in v:
                s = s.encode("utf-8") if isinstance(s, str) else s
                out += _enc_varint(f << 3 | 2) + _enc_varint(len(s)) + s
        elif kind in ("ri", "ru"):
            if v:
                body = b"".join(_enc_varint(x) for x in v)
                out += _enc_varint(f << 3 | 2) + _enc_varint(len(body)) + body
        elif v:
            out += _enc_varint(f << 3) + _enc_varint(int(v))
    out += d.get("_raw", b"")
    return bytes(out)


def encode_profile(d):
    return encode("Profile", d)


# --- the checks ------------------------------------------------------------

def check_labels(labels, api="push", **kw):
    """Violations [(code, msg)] of one series' labels."""
    lim = dict(LIMITS, **kw)
    out = []
    if not labels:
        return [("missing_labels", "series has no labels")]
    if len(labels) > lim["max_label_names"]:
        out.append(("max_label_names_per_series", "too many labels: %d > %d"
                    % (len(labels), lim["max_label_names"])))
    seen = set()
    for n, v in labels:
        bn, bv = _b(n), _b(v)
        try:
            n, v = bn.decode("utf-8"), bv.decode("utf-8")
        except UnicodeDecodeError:
            out.append(("invalid_labels", "label %r: invalid UTF-8" % bn))
            continue
        if n in seen:
            out.append(("duplicate_label_names", "duplicate label name %r" % n))
        seen.add(n)
        if len(bn) > lim["max_label_name_len"]:
            out.append(("label_name_too_long", "label name %.40r...: %d bytes > %d"
                        % (n, len(bn), lim["max_label_name_len"])))
        if len(bv) > lim["max_label_value_len"]:
            out.append(("label_value_too_long", "label %r: value of %d bytes > %d"
                        % (n, len(bv), lim["max_label_value_len"])))
        if not LABEL_NAME.match(n):
            out.append(("invalid_labels", "invalid label name %r" % n))
        elif n.startswith("__") and n not in ALLOWED_DUNDER and (lim["reject_dunder"] or api == "ingest"):
            # /ingest drops such tags (the stand-in never passes them);
            # push keeps them unless reject_dunder.
            out.append(("invalid_labels", "reserved label name %r" % n))
        if v == "" and n != "service_name":
            out.append(("invalid_labels", "label %r has an empty value" % n))
    d = dict((n, v) for n, v in labels)
    if not d.get("service_name"):
        out.append(("missing_labels", "service name is not provided"))
    if "__name__" not in d or not METRIC_NAME.match(d["__name__"] if isinstance(d["__name__"], str) else ""):
        out.append(("invalid_labels", "invalid __name__ %r" % d.get("__name__")))
    return out


def _b(s):
    return s if isinstance(s, bytes) else s.encode("utf-8", "surrogateescape")


def labels_size(labels):
    """Bytes of the label names and values (labels: str or bytes pairs)."""
    return sum(len(_b(n)) + len(_b(v)) for n, v in labels or [])


def check_profile(raw, labels=None, now=None, **kw):
    """(violations, facts, uncompressed bytes) of one raw profile."""
    lim = dict(LIMITS, **kw)
    now = time.time() if now is None else now
    out = []
    facts = {}
    try:
        data = gunzip(raw)
    except WireError as e:
        return [("malformed_profile", "raw profile: %s" % e)], facts, raw
    facts["bytes"] = len(data)
    if not data:
        return [("malformed_profile", "raw profile is empty")], facts, data
    if len(data) > lim["max_profile_bytes"]:
        out.append(("profile_size_limit", "uncompressed profile payload size exceeds limit: %d > %d bytes"
                    % (len(data), lim["max_profile_bytes"])))
    total = len(data) + labels_size(labels)
    if total > lim["burst_bytes"]:
        out.append(("rate_limited", "labels + uncompressed profile %d bytes > the rate limiter's burst %d "
                    "(never passes: 429 for ever)" % (total, lim["burst_bytes"])))
    unknown = []
    try:
        p = decode("Profile", data, unknown)
    except WireError as e:
        return out + [("malformed_profile", "protobuf: %s" % e)], facts, data
    if unknown and lim["strict_fields"]:
        out.append(("malformed_profile", "unknown field numbers (not in profile.proto): %s"
                    % ", ".join(sorted(set(unknown)))))
    mal = []

    st = []
    for k, s in enumerate(p["string_table"]):
        try:
            st.append(s.decode("utf-8"))
        except UnicodeDecodeError:
            mal.append("string %d: invalid UTF-8" % k)
            st.append(s.decode("utf-8", "replace"))
    if not st or st[0] != "":
        mal.append("string 0 must be empty")

    bad_idx = []

    def s(i, where):
        if i < 0 or i >= len(st):
            bad_idx.append("%s: string index %d out of range (%d strings)" % (where, i, len(st)))
            return ""
        return st[i]

    types = [(s(v["type"], "sample_type"), s(v["unit"], "sample_type")) for v in p["sample_type"]]
    if not types:
        mal.append("no sample types")
    for t, u in types:
        if "-" in t or "-" in u:
            mal.append("sample type %s/%s contains '-'" % (t, u))
    pt = p["period_type"]
    ptype = (s(pt["type"], "period_type"), s(pt["unit"], "period_type")) if pt else ("", "")
    for k in ("drop_frames", "keep_frames", "default_sample_type", "doc_url"):
        s(p[k], k)
    for c in p["comment"]:
        s(c, "comment")

    def ids(kind):
        got = set()
        for e in p[kind]:
            i = e["id"]
            if not i:
                mal.append("%s id 0" % kind)
            elif i in got:
                mal.append("duplicate %s id %d" % (kind, i))
            got.add(i)
        return got

    maps, locs, funcs = ids("mapping"), ids("location"), ids("function")
    for m in p["mapping"]:
        s(m["filename"], "mapping %d filename" % m["id"])
        s(m["build_id"], "mapping %d build_id" % m["id"])
    for f in p["function"]:
        for k in ("name", "system_name", "filename"):
            s(f[k], "function %d %s" % (f["id"], k))
    for loc in p["location"]:
        mid = loc["mapping_id"]
        if mid and mid not in maps:
            mal.append("location %d points to missing mapping %d" % (loc["id"], mid))
        for ln in loc["line"]:
            if ln["function_id"] not in funcs:
                mal.append("location %d: line points to missing function %d" % (loc["id"], ln["function_id"]))
    totals = [0] * len(types)
    many_labels = 0
    for k, smp in enumerate(p["sample"]):
        vals = smp["value"]
        if len(vals) != len(types):
            mal.append("sample %d: mismatch: %d values vs. %d sample types" % (k, len(vals), len(types)))
        for lid in smp["location_id"]:
            if lid not in locs:
                mal.append("sample %d has nil location %d" % (k, lid))
                break
        if len(smp["label"]) > lim["max_sample_labels"]:
            many_labels += 1
        for lab in smp["label"]:
            s(lab["key"], "sample %d label key" % k)
            s(lab["str"], "sample %d label str" % k)
            s(lab["num_unit"], "sample %d label num_unit" % k)
        for i, v in enumerate(vals[:len(types)]):
            totals[i] += v
    if bad_idx:
        mal.append(bad_idx[0] + ("" if len(bad_idx) == 1 else " (and %d more)" % (len(bad_idx) - 1)))
    for m in mal[:20]:
        out.append(("malformed_profile", "malformed profile: " + m))
    if len(mal) > 20:
        out.append(("malformed_profile", "malformed profile: ... %d more" % (len(mal) - 20)))
    if many_labels:
        out.append(("sample_labels_limit", "%d samples have more than %d labels"
                    % (many_labels, lim["max_sample_labels"])))
    n = len(p["sample"])
    if n > lim["max_samples"]:
        out.append(("samples_limit", "profile has %d samples > the limit %d" % (n, lim["max_samples"])))
    tn = p["time_nanos"]
    if tn and not (now - lim["reject_older_than"] <= tn / 1e9 <= now + lim["reject_newer_than"]):
        out.append(("not_in_ingestion_window", "profile time %s is outside the ingestion window "
                    "(%d s back, %d s ahead of %s)" % (
                        time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(tn / 1e9)),
                        lim["reject_older_than"], lim["reject_newer_than"],
                        time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)))))
    facts.update(sample_types=["%s:%s" % t for t in types], period_type="%s:%s" % ptype,
                 period=p["period"], time_nanos=tn, duration_nanos=p.get("duration_nanos", 0),
                 samples=n, totals=totals)
    return out, facts, data


def validate(raw, labels=None, now=None, api="push", **kw):
    """(violations, facts): check_labels (when labels is not None) then
    check_profile."""
    out = check_labels(labels, api=api, **kw) if labels is not None else []
    v, facts, _ = check_profile(raw, labels, now, **kw)
    return out + v, facts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for k, v in LIMITS.items():
        flag = "--" + k.replace("_", "-")
        if isinstance(v, bool):
            ap.add_argument(flag, action="store_true")
        else:
            ap.add_argument(flag, type=int, default=v, metavar="N")
    ap.add_argument("--now", type=float, help="the request's time, s since the epoch (default: now)")
    ap.add_argument("--api", choices=("push", "ingest"), default="push")
    ap.add_argument("file")
    ap.add_argument("--label", action="append", metavar="K=V",
                    help="a series label (repeatable); none given: labels not checked")
    a = ap.parse_args(argv)
    labels = None
    if a.label:
        labels = []
        for kv in a.label:
            if "=" not in kv:
                ap.error("--label %r: expected K=V" % kv)
            labels.append(tuple(kv.split("=", 1)))
    try:
        with open(a.file, "rb") as f:
            raw = f.read()
    except OSError as e:
        print("validate.py: %s" % e, file=sys.stderr)
        return 2
    kw = {k: getattr(a, k) for k in LIMITS}
    v, _ = validate(raw, labels, a.now, a.api, **kw)
    if not v:
        print("ok")
        return 0
    for code, msg in v:
        print("%s: %s" % (code, msg))
    return 1


if __name__ == "__main__":
    sys.exit(main())
