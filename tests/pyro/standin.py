#!/usr/bin/env python3
"""standin.py: a Grafana Pyroscope stand-in for ying's tests (python3 stdlib only).

No Pyroscope server can be installed on the test machines, so this program
checks what Pyroscope's ingestion path checks (restated in the shared
reference pprof-pyroscope.md §3-4) and records what it accepts:

  POST /push.v1.PusherService/Push   Connect unary, Content-Type
        application/proto (binary PushRequest, decoded by Debian's
        `protoc --decode=push.v1.PushRequest` with tests/pyro/push.proto,
        written from the reference, never the uploader's own .proto) or
        application/json (proto3 JSON); Content-Encoding: gzip honoured;
        Connect-Protocol-Version, when present, must be 1.
  POST /ingest (and /pyroscope/ingest)   the legacy API: name=svc{k=v,...},
        from/until (digits read by length), spyName, format=pprof with a raw
        body, else multipart/form-data with the pprof in the `profile` part.

Every pprof inside is checked by tests/pyro/validate.py (Pyroscope's rules
and default limits, from the reference: its own protobuf wire decoder;
string 0 empty, indices in range, UTF-8, sample types without '-', value
counts, ids nonzero, unique and resolving, at most 100 labels a sample, at
most 16,000 samples, 4 MiB uncompressed, time_nanos when set inside the
ingestion window: 1 h back, 10 min ahead; labels: service_name present,
__name__ a valid metric name, names [A-Za-z0-9_.], no duplicates, at most
30, name/value lengths), plus two rules of the stand-in's own: a field
number profile.proto does not have, and `__` label names but the allowed
ones, are refused.  A refusal is 400 whose message (and requests.log line)
starts with Pyroscope's reason code (e.g. "samples_limit: ..."), or 429
for the rate limiter's burst (labels + uncompressed profile over 2 MiB:
"rate_limited: ...", which a real server answers for ever).  --limit
NAME=N (repeatable) changes one of validate.py's limits (e.g.
max_samples=100).  Then the pprof must be read by `go tool pprof -raw`.
Profile types are derived as NAME:TYPE:UNIT:PERIOD_TYPE:PERIOD_UNIT.

With --basic-user/--basic-password-file, --bearer-file or --tenant, requests
without the matching Authorization / X-Scope-OrgID header get 401.

Accepted uploads are recorded in --dir as upload-NNNN.json (labels, API,
headers seen, ID, profile types, sample types, times) next to
upload-NNNN.pprof (the pprof, uncompressed); written pprof first, then the
JSON by rename, so a reader that sees the JSON sees both.  Every request is a
line of --dir/requests.log: "TIME METHOD PATH STATUS WHAT".

Faults, on command: POST /_standin/fault?code=429|500|503&count=N,
?slow=SECONDS&count=N (answer late), ?reset=1&count=N (read the request, then
reset the connection); POST /_standin/clear; GET /_standin/stats (JSON).
"Down then back" is the test killing this process and starting it again with
--port PORT --dir DIR (numbering continues).

Prints "port N" on stdout once listening on 127.0.0.1 (port 0 by default).
Options: --light skips the validator and go (the cost benchmark: record
only; the push body is still decoded with protoc).
"""
import argparse
import base64
import email.parser
import email.policy
import gzip
import json
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.dont_write_bytecode = True  # never write into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate  # noqa: E402  (tests/pyro/validate.py)

HERE = os.path.dirname(os.path.abspath(__file__))
PUSH_PATH = "/push.v1.PusherService/Push"
INGEST_PATHS = ("/ingest", "/pyroscope/ingest")
MAX_BODY = 64 << 20
# The /ingest name{tags} rules (labelset); the series and profile rules and
# limits are validate.py's.
LABEL_NAME = re.compile(r"^[A-Za-z0-9_.]+$")
SERVICE_NAME = re.compile(r"^[A-Za-z0-9_./-]+$")


class Reject(Exception):
    """An answer other than 200: HTTP status, Connect code, message."""

    def __init__(self, status, code, msg):
        super().__init__(msg)
        self.status, self.code, self.msg = status, code, msg


# --- protoc's text format ------------------------------------------------

def unescape(s):
    """Bytes of a C-escaped protobuf text-format string body."""
    out = bytearray()
    b = s.encode("latin-1") if isinstance(s, str) else s
    i, n = 0, len(b)
    simple = {ord("n"): 10, ord("r"): 13, ord("t"): 9, ord('"'): 34, ord("'"): 39,
              ord("\\"): 92, ord("a"): 7, ord("b"): 8, ord("f"): 12, ord("v"): 11,
              ord("?"): 63}
    while i < n:
        c = b[i]
        if c != 92:
            out.append(c)
            i += 1
            continue
        i += 1
        if i >= n:
            raise ValueError("dangling backslash")
        c = b[i]
        if c in simple:
            out.append(simple[c])
            i += 1
        elif 48 <= c <= 55:
            j = i
            while j < n and j < i + 3 and 48 <= b[j] <= 55:
                j += 1
            out.append(int(b[i:j], 8) & 0xFF)
            i = j
        elif c in (ord("x"), ord("X")):
            j = i + 1
            while j < n and j < i + 3 and chr(b[j]) in "0123456789abcdefABCDEF":
                j += 1
            out.append(int(b[i + 1:j], 16))
            i = j
        else:
            raise ValueError("unknown escape \\%c" % c)
    return bytes(out)


def parse_text(text):
    """protoc --decode output -> nested dicts {field: [values]}.

    Strings and bytes come back as bytes, numbers as int, booleans as bool.
    A field protoc did not know (a number instead of a name) raises Reject:
    it means the sender used a field number the reference does not have.
    """
    root = {}
    stack = [root]
    for ln, line in enumerate(text.split("\n"), 1):
        line = line.strip()
        if not line:
            continue
        if line == "}":
            if len(stack) == 1:
                raise Reject(400, "invalid_argument", "protoc output: unbalanced } at line %d" % ln)
            stack.pop()
            continue
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*|[0-9]+)\s*(\{|:\s*(.*))$", line)
        if not m:
            raise Reject(400, "invalid_argument", "protoc output: cannot read line %d: %.80s" % (ln, line))
        name = m.group(1)
        if name[0].isdigit():
            raise Reject(400, "invalid_argument",
                         "unknown field number %s in the message (not in the reference .proto)" % name)
        if m.group(2) == "{":
            child = {}
            stack[-1].setdefault(name, []).append(child)
            stack.append(child)
            continue
        v = m.group(3)
        if v.startswith('"'):
            if not v.endswith('"') or len(v) < 2:
                raise Reject(400, "invalid_argument", "protoc output: bad string at line %d" % ln)
            val = unescape(v[1:-1])
        elif v in ("true", "false"):
            val = v == "true"
        else:
            try:
                val = int(v)
            except ValueError:
                val = v
        stack[-1].setdefault(name, []).append(val)
    if len(stack) != 1:
        raise Reject(400, "invalid_argument", "protoc output: unbalanced {")
    return root


def protoc_decode(msg_type, proto, data):
    try:
        r = subprocess.run(["protoc", "-I", HERE, "--decode=" + msg_type, proto],
                           input=data, capture_output=True, timeout=60)
    except FileNotFoundError:
        raise Reject(500, "internal", "stand-in: protoc is not installed (scripts/deps.sh)")
    if r.returncode != 0:
        raise Reject(400, "invalid_argument", "protoc --decode=%s: %s" % (
            msg_type, r.stderr.decode("utf-8", "replace").strip()[:300]))
    return parse_text(r.stdout.decode("latin-1"))


def one(d, k, default=None):
    v = d.get(k)
    return v[-1] if v else default


# --- checks (tests/pyro/validate.py: Pyroscope's rules) ------------------

def refuse(violations):
    """Reject for the first violation, as the real server answers: 429
    (resource_exhausted) for the rate limiter's burst, which can never
    pass, else 400; the message starts with Pyroscope's reason code."""
    burst = [v for v in violations if validate.http_status(v[0]) == 429]
    code, msg = (burst or violations)[0]
    more = "" if len(violations) == 1 else " (+%d more: %s)" % (
        len(violations) - 1, ", ".join(sorted(set(c for c, _ in violations if (c, msg) != (code, msg)))))
    if burst:
        raise Reject(429, "resource_exhausted", "%s: %s%s" % (code, msg, more))
    raise Reject(400, "invalid_argument", "%s: %s%s" % (code, msg, more))


# --limit NAME=N: validate.LIMITS overridden for this stand-in.
LIMITS = {}


def check_labels(pairs, api="push"):
    """Pyroscope's label validation of one series, plus the stand-in's
    older, stricter rule: no `__` names but validate.ALLOWED_DUNDER."""
    v = validate.check_labels(pairs, api=api, **dict({"reject_dunder": True}, **LIMITS))
    if v:
        refuse(v)


def check_profile(raw, light, labels=None):
    """Validate one pprof (validate.py, with its field numbers checked
    against profile.proto), then `go tool pprof -raw` must read it;
    returns (uncompressed bytes, facts)."""
    if light:
        try:
            raw = validate.gunzip(raw)
        except validate.WireError as e:
            raise Reject(400, "invalid_argument", "malformed_profile: raw profile: %s" % e)
        if not raw:
            raise Reject(400, "invalid_argument", "malformed_profile: raw profile is empty")
        return raw, {}
    v, facts, raw = validate.check_profile(raw, labels, **dict({"strict_fields": True}, **LIMITS))
    if v:
        refuse(v)
    facts.pop("bytes", None)
    # go tool pprof must read it (its own CheckValid and parser).
    with tempfile.NamedTemporaryFile(suffix=".pb") as tf:
        tf.write(raw)
        tf.flush()
        try:
            r = subprocess.run(["go", "tool", "pprof", "-raw", tf.name], capture_output=True, timeout=120)
        except FileNotFoundError:
            raise Reject(500, "internal", "stand-in: go is not installed (scripts/deps.sh)")
        if r.returncode != 0 or b"Samples:" not in r.stdout:
            raise Reject(400, "invalid_argument", "go tool pprof -raw: %s" %
                         r.stderr.decode("utf-8", "replace").strip()[:300])
    return raw, facts


def profile_types(name, facts):
    pt = facts.get("period_type", ":").split(":")
    return ["%s:%s:%s:%s:%s" % ((name,) + tuple(t.split(":")) + tuple(pt))
            for t in facts.get("sample_types", [])]


def parse_time(v, now):
    """/ingest from/until: absent = now; digits read by their length."""
    if not v:
        return now
    if not v.isdigit():
        if v.startswith("now"):
            return now
        raise Reject(400, "invalid_argument", "bad time %r" % v)
    n = len(v)
    if n == 8:
        return time.mktime(time.strptime(v, "%Y%m%d"))
    if n == 13:
        return int(v) / 1e3
    if n == 16:
        return int(v) / 1e6
    if n == 19:
        return int(v) / 1e9
    return float(v)


def parse_name(name):
    """app.name{k=v,k2=v2} -> (service, [(k, v)]), the labelset rules."""
    m = re.match(r"^([^{}]*)(?:\{(.*)\})?$", name or "")
    if not m or not m.group(1):
        raise Reject(400, "invalid_argument", "name %r: expected app.name{k=v,...}" % name)
    svc = m.group(1)
    if not SERVICE_NAME.match(svc):
        raise Reject(400, "invalid_argument", "name %r: invalid application name" % svc)
    tags = []
    if m.group(2):
        for kv in m.group(2).split(","):
            if "=" not in kv:
                raise Reject(400, "invalid_argument", "name %r: tag %r has no '='" % (name, kv))
            k, v = kv.split("=", 1)
            k, v = k.strip(), v.strip()
            if not LABEL_NAME.match(k):
                raise Reject(400, "invalid_argument", "name %r: invalid tag key %r" % (name, k))
            if k == "__name__":
                raise Reject(400, "invalid_argument", "name %r: reserved tag key __name__" % name)
            tags.append((k, v))
    return svc, tags


def ingest_name(sample_types):
    for t in sample_types:
        t = t.split(":")[0]
        if "alloc_" in t or "inuse_" in t or t in ("space", "objects"):
            return "memory"
        if "cpu" in t:
            return "process_cpu"
    return "wall"


# --- the server ----------------------------------------------------------

class State:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.faults = []          # [kind, value, remaining]
        self.stats = {"accepted": 0, "rejected": 0, "faults": 0, "requests": 0}
        os.makedirs(args.dir, exist_ok=True)
        existing = [f for f in os.listdir(args.dir) if re.match(r"^upload-\d+\.json$", f)]
        self.seq = max([int(f[7:-5]) for f in existing] or [0])
        self.password = self.token = None
        if args.basic_password_file:
            with open(args.basic_password_file) as f:
                self.password = f.readline().rstrip("\r\n")
        if args.bearer_file:
            with open(args.bearer_file) as f:
                self.token = f.readline().rstrip("\r\n")

    def log(self, method, path, status, what):
        with self.lock:
            with open(os.path.join(self.args.dir, "requests.log"), "a") as f:
                f.write("%.3f %s %s %d %s\n" % (time.time(), method, path, status,
                                                 " ".join(str(what).split())))

    def take_fault(self):
        with self.lock:
            if not self.faults:
                return None
            f = self.faults[0]
            f[2] -= 1
            if f[2] <= 0:
                self.faults.pop(0)
            self.stats["faults"] += 1
            return f[0], f[1]

    def record(self, api, labels, sid, raw, facts, headers, extra):
        with self.lock:
            self.seq += 1
            n = self.seq
            self.stats["accepted"] += 1
        base = os.path.join(self.args.dir, "upload-%04d" % n)
        with open(base + ".pprof", "wb") as f:
            f.write(raw)
        d = dict(extra)
        d.update(n=n, api=api, time=time.time(), labels=labels, id=sid,
                 pprof=os.path.basename(base + ".pprof"), bytes=len(raw),
                 profile_types=profile_types(dict(labels).get("__name__", ""), facts),
                 headers=headers, **facts)
        with open(base + ".json.tmp", "w") as f:
            json.dump(d, f, indent=1, sort_keys=True)
        os.rename(base + ".json.tmp", base + ".json")
        return n


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "pyroscope-standin/1"

    def log_message(self, fmt, *a):
        pass

    def finish(self):
        try:
            super().finish()
        except OSError:
            pass

    def answer(self, status, body=b"", ctype="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def error(self, r):
        self.answer(r.status, json.dumps({"code": r.code, "message": r.msg}).encode())

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                data += self.rfile.read(size)
                self.rfile.readline()
                if len(data) > MAX_BODY:
                    raise Reject(413, "resource_exhausted", "body too large")
            return bytes(data)
        n = int(self.headers.get("Content-Length") or 0)
        if n > MAX_BODY:
            raise Reject(413, "resource_exhausted", "body too large")
        return self.rfile.read(n) if n else b""

    def do_GET(self):
        self.dispatch("GET")

    def do_HEAD(self):
        self.dispatch("HEAD")

    def do_PUT(self):
        self.dispatch("PUT")

    def do_POST(self):
        self.dispatch("POST")

    def dispatch(self, method):
        st = self.server.state
        u = urllib.parse.urlsplit(self.path)
        q = urllib.parse.parse_qs(u.query, keep_blank_values=True)
        with st.lock:
            st.stats["requests"] += 1
        try:
            body = self.read_body()
        except Reject as r:
            st.log(method, u.path, r.status, r.msg)
            self.close_connection = True
            return self.error(r)
        if u.path.startswith("/_standin/"):
            return self.control(method, u.path, q)
        if u.path != PUSH_PATH and u.path not in INGEST_PATHS:
            st.log(method, u.path, 404, "no such route")
            return self.error(Reject(404, "not_found", "404 page not found"))
        if method != "POST":
            st.log(method, u.path, 405, "method not allowed")
            return self.error(Reject(405, "unimplemented", "method %s not allowed" % method))
        f = st.take_fault()
        if f:
            kind, val = f
            if kind == "code":
                st.log(method, u.path, val, "fault")
                return self.error(Reject(val, "resource_exhausted" if val == 429 else "unavailable"
                                         if val == 503 else "internal", "stand-in fault %d" % val))
            if kind == "reset":
                st.log(method, u.path, 0, "fault reset")
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.connection.close()
                self.close_connection = True
                return None
            if kind == "slow":
                st.log(method, u.path, 0, "fault slow %gs" % val)
                time.sleep(val)
        try:
            self.check_auth()
            if u.path == PUSH_PATH:
                n, ctype, resp = self.push(body)
            else:
                n, ctype, resp = self.ingest(q, body)
        except Reject as e:
            r = e
        except UnicodeDecodeError as e:
            r = Reject(400, "invalid_argument", "invalid UTF-8: %s" % e)
        except Exception as e:  # a stand-in bug: say so, never hang the client
            r = Reject(500, "internal", "stand-in error: %r" % e)
        else:
            r = None
        if r is not None:
            with st.lock:
                st.stats["rejected"] += 1
            st.log(method, u.path, r.status, r.code + ": " + r.msg)
            return self.error(r)
        st.log(method, u.path, 200, "upload-%04d" % n)
        self.answer(200, resp, ctype)

    def control(self, method, path, q):
        st = self.server.state
        if path == "/_standin/stats":
            with st.lock:
                body = json.dumps(dict(st.stats, pending_faults=len(st.faults))).encode()
            return self.answer(200, body)
        if method != "POST":
            return self.error(Reject(405, "unimplemented", "control: POST"))
        if path == "/_standin/clear":
            with st.lock:
                st.faults = []
            return self.answer(200, b"{}")
        if path == "/_standin/fault":
            count = int(q.get("count", ["1"])[0])
            if "code" in q:
                f = ["code", int(q["code"][0]), count]
            elif "slow" in q:
                f = ["slow", float(q["slow"][0]), count]
            elif "reset" in q:
                f = ["reset", 1, count]
            else:
                return self.error(Reject(400, "invalid_argument", "fault: code=, slow= or reset="))
            with st.lock:
                st.faults.append(f)
            return self.answer(200, b"{}")
        return self.error(Reject(404, "not_found", "control: no such command"))

    def check_auth(self):
        st = self.server.state
        a = st.args
        auth = self.headers.get("Authorization", "")
        if a.tenant is not None and self.headers.get("X-Scope-OrgID") != a.tenant:
            raise Reject(401, "unauthenticated", "no org id" if not self.headers.get("X-Scope-OrgID")
                         else "wrong X-Scope-OrgID")
        if a.basic_user is not None:
            want = "Basic " + base64.b64encode(("%s:%s" % (a.basic_user, st.password)).encode()).decode()
            if auth != want:
                raise Reject(401, "unauthenticated", "basic auth required" if not auth else "wrong credentials")
        if st.token is not None and auth != "Bearer " + st.token:
            raise Reject(401, "unauthenticated", "bearer token required" if not auth else "wrong token")

    def seen_headers(self):
        h = {}
        for k in ("Content-Type", "Content-Encoding", "Connect-Protocol-Version", "User-Agent",
                  "X-Scope-OrgID"):
            if self.headers.get(k) is not None:
                h[k] = self.headers.get(k)
        auth = self.headers.get("Authorization")
        if auth:
            h["Authorization-Scheme"] = auth.split(" ", 1)[0]
        return h

    def push(self, body):
        st = self.server.state
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype not in ("application/proto", "application/json"):
            raise Reject(415, "invalid_argument", "unsupported Content-Type %r (Connect unary: "
                         "application/proto or application/json)" % ctype)
        cpv = self.headers.get("Connect-Protocol-Version")
        if cpv is not None and cpv != "1":
            raise Reject(400, "invalid_argument", "Connect-Protocol-Version must be 1, got %r" % cpv)
        enc = (self.headers.get("Content-Encoding") or "identity").lower()
        if enc == "gzip":
            try:
                body = gzip.decompress(body)
            except (OSError, EOFError) as e:
                raise Reject(400, "invalid_argument", "Content-Encoding gzip: %s" % e)
        elif enc != "identity":
            raise Reject(400, "unimplemented", "unsupported Content-Encoding %r" % enc)
        series = []
        if ctype == "application/proto":
            req = protoc_decode("push.v1.PushRequest", "push.proto", body) if body else {}
            for s in req.get("series", []):
                labels = [(one(lp, "name", b"").decode("utf-8"), one(lp, "value", b"").decode("utf-8"))
                          for lp in s.get("labels", [])]
                samples = [(one(x, "raw_profile", b""), one(x, "ID", b"").decode("utf-8"))
                           for x in s.get("samples", [])]
                series.append((labels, samples))
        else:
            try:
                req = json.loads(body or b"{}")
                for s in req.get("series", []):
                    labels = [(lp.get("name", ""), lp.get("value", "")) for lp in s.get("labels", [])]
                    samples = [(base64.b64decode(x.get("rawProfile", x.get("raw_profile", ""))),
                                x.get("ID", "")) for x in s.get("samples", [])]
                    series.append((labels, samples))
            except (ValueError, AttributeError, TypeError) as e:
                raise Reject(400, "invalid_argument", "bad JSON PushRequest: %s" % e)
        if not series or not any(smp for _, smp in series):
            raise Reject(400, "invalid_argument", "no profiles received")
        checked = []
        for labels, samples in series:
            check_labels(labels)
            for raw, sid in samples:
                if not sid:
                    raise Reject(400, "invalid_argument", "sample without ID")
                checked.append((labels, sid) + check_profile(raw, st.args.light, labels))
        n = 0
        for labels, sid, raw, facts in checked:
            n = st.record("push", labels, sid, raw, facts, self.seen_headers(),
                          {"series": len(series)})
        if ctype == "application/json":
            return n, "application/json", b"{}"
        return n, "application/proto", b""

    def ingest(self, q, body):
        st = self.server.state

        def arg(k, d=""):
            return q.get(k, [d])[0]

        now = time.time()
        svc, tags = parse_name(arg("name"))
        t_from, t_until = parse_time(arg("from"), now), parse_time(arg("until"), now)
        fmt = arg("format")
        ctype = self.headers.get("Content-Type") or ""
        if fmt == "pprof":
            raw = body       # Pyroscope's switch order: before the multipart check
        elif fmt:
            raise Reject(400, "invalid_argument", "stand-in takes pprof only, got format=%s" % fmt)
        elif ctype.lower().startswith("multipart/form-data"):
            msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
                b"Content-Type: " + ctype.encode("latin-1") + b"\r\n\r\n" + body)
            if not msg.is_multipart():
                raise Reject(400, "invalid_argument", "multipart body without parts")
            parts = {}
            for part in msg.iter_parts():
                parts[part.get_param("name", header="content-disposition")] = part.get_payload(decode=True)
            if "prev_profile" in parts:
                raise Reject(400, "invalid_argument", "unsupported client version: prev_profile")
            if "profile" not in parts:
                raise Reject(400, "invalid_argument", "multipart: no 'profile' part (got %s)" % sorted(parts))
            raw = parts["profile"]
            if "sample_type_config" in parts:
                try:
                    json.loads(parts["sample_type_config"])
                except ValueError as e:
                    raise Reject(400, "invalid_argument", "sample_type_config: %s" % e)
        else:
            raise Reject(400, "invalid_argument", "stand-in takes pprof only (format=pprof or multipart)")
        raw, facts = check_profile(raw, st.args.light, [("service_name", svc)] + tags)
        name = ingest_name(facts.get("sample_types", ["inuse_space:bytes"]))
        labels = [("__name__", name), ("__delta__", "false"),
                  ("pyroscope_spy", arg("spyName", "unknown"))]
        if "service_name" not in dict(tags):
            labels.append(("service_name", svc))
        labels += [(k, v) for k, v in tags if not k.startswith("__")]
        check_labels(labels)
        n = st.record("ingest", labels, "", raw, facts, self.seen_headers(),
                      {"from": t_from, "until": t_until, "spyName": arg("spyName", "unknown"),
                       "query": {k: v[0] for k, v in q.items()},
                       "multipart": fmt != "pprof"})
        return n, "application/json", b""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", required=True, help="where accepted uploads are recorded")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--basic-user")
    ap.add_argument("--basic-password-file")
    ap.add_argument("--bearer-file")
    ap.add_argument("--tenant")
    ap.add_argument("--light", action="store_true", help="no protoc/go checks (benchmarks)")
    ap.add_argument("--limit", action="append", default=[], metavar="NAME=N",
                    help="one of validate.py's limits, e.g. max_samples=100 (repeatable)")
    args = ap.parse_args()
    for kv in args.limit:
        k, _, v = kv.partition("=")
        if k not in validate.LIMITS or not v.lstrip("-").isdigit():
            ap.error("--limit %r: expected NAME=N, NAME one of %s" % (kv, ", ".join(validate.LIMITS)))
        LIMITS[k] = int(v) if not isinstance(validate.LIMITS[k], bool) else v != "0"
    if (args.basic_user is None) != (args.basic_password_file is None):
        ap.error("--basic-user and --basic-password-file go together")
    ThreadingHTTPServer.allow_reuse_address = True
    ThreadingHTTPServer.daemon_threads = True
    srv = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    srv.state = State(args)
    print("port %d" % srv.server_address[1], flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
