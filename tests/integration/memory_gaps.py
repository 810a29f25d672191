#!/usr/bin/env python3
"""memory_gaps.py: the checks of tests/integration/memory_gaps.sh (sourced
by no one; run as `python3 memory_gaps.py TRUTH MEMORY [STATM [LABEL]]`).

TRUTH is the JSON line tests/programs/mem_gaps printed (what the program
measured itself), MEMORY the agent's /debug/memory answer for that program,
STATM (optional) /proc/PID/statm read right after the request, LABEL
(optional) a word put after the mode in each description.  Prints one
line per check, "0 DESCRIPTION" (passed) or "1 DESCRIPTION: DETAILS"
(failed), for the shell to turn into TAP results; always exits 0 unless its
own arguments are unreadable (status 2).
"""
import json
import re
import sys

# Contract (notes of issue 26): every part key, listed even at 0 bytes.
PART_KEYS = [
    "jemalloc.live", "jemalloc.tcache", "jemalloc.fragmentation", "jemalloc.dirty",
    "jemalloc.muzzy", "jemalloc.metadata", "glibc.heap", "stacks.main",
    "stacks.threads", "files.code", "files.data", "shmem", "kernel", "anon.other",
]
MIB = 1 << 20

results = []
label = {"mode": None, "label": None}


def check(cond, desc, details=""):
    results.append((0 if cond else 1, desc, details))
    return cond


def mib(n):
    return "%.1f MiB" % (n / MIB) if isinstance(n, (int, float)) else repr(n)


def within(got, want, frac):
    return isinstance(got, (int, float)) and abs(got - want) <= frac * want


def near(desc, got, want, frac):
    check(within(got, want, frac), "%s within %d %% of the truth (%s)" % (desc, frac * 100, mib(want)),
          "got %s (%r bytes), truth %s (%r bytes), %s" % (
              mib(got), got, mib(want), want,
              "%+.1f %%" % (100.0 * (got - want) / want) if isinstance(got, (int, float)) and want
              else "no number"))


def advice_for(mode, mem, part, pattern, what):
    adv = [a for a in mem.get("advice") or [] if isinstance(a, dict)]
    hit = [a for a in adv if a.get("part") == part and re.search(pattern, str(a.get("text", "")))]
    check(bool(hit), "%s: advice on %s mentions %s" % (mode, part, what),
          "advice: %s" % json.dumps(adv)[:600])


def main():
    mode_line = None
    try:
        with open(sys.argv[1]) as f:
            for line in f:
                if line.startswith("{"):
                    mode_line = line
                    break
        truth = json.loads(mode_line)
    except (OSError, ValueError, TypeError, IndexError) as e:
        print("memory_gaps.py: no truth line in %s: %s" % (sys.argv[1:2], e), file=sys.stderr)
        return 2
    mode = truth["mode"]
    label["mode"] = mode
    if len(sys.argv) > 4:
        label["label"] = sys.argv[4]
    # The gap must be large against the process's baseline, or 10 % of it
    # says nothing: at least half the program's RSS (a third for rustffi,
    # whose Rust heap is as large as its C leak).
    gap = {"frag": truth["truth"].get("jemalloc.fragmentation", 0),
           "rustffi": truth.get("c_leaked", 0)}.get(mode, sum(truth["truth"].values()))
    share = 0.3 if mode == "rustffi" else 0.5
    check(gap >= share * truth["rss"], "%s: the gap (%s) is at least %d %% of the program's RSS (%s)" % (
        mode, mib(gap), share * 100, mib(truth["rss"])))
    try:
        with open(sys.argv[2]) as f:
            mem = json.load(f)
    except (OSError, ValueError) as e:
        check(False, "%s: /debug/memory is JSON" % mode, str(e))
        return report()
    check(isinstance(mem, dict), "%s: /debug/memory is a JSON object" % mode)
    if not isinstance(mem, dict):
        return report()
    statm_rss = None
    if len(sys.argv) > 3:
        try:
            with open(sys.argv[3]) as f:
                statm_rss = int(f.read().split()[1]) * 4096
        except (OSError, ValueError, IndexError):
            pass

    check(mem.get("pid") == truth["pid"], "%s: pid is the program's" % mode,
          "got %r, program %r" % (mem.get("pid"), truth["pid"]))
    parts = mem.get("parts")
    if not check(isinstance(parts, list) and all(isinstance(p, dict) for p in parts),
                 "%s: parts is a list of objects" % mode, repr(parts)[:300]):
        return report()
    by = {}
    for p in parts:
        by.setdefault(p.get("key"), []).append(p)
    missing = [k for k in PART_KEYS if k not in by]
    dup = [k for k, v in by.items() if len(v) > 1]
    check(not missing and not dup, "%s: every part key of the contract, once each" % mode,
          "missing %s, twice %s, keys %s" % (missing, dup, list(by)))
    nums = all(isinstance(p.get("bytes"), int) and p["bytes"] >= 0 for p in parts)
    total = sum(p.get("bytes", 0) for p in parts) if nums else None
    rss = mem.get("rss")
    check(nums and total == rss, "%s: the parts sum to rss exactly" % mode,
          "sum %r, rss %r, parts %s" % (total, rss,
                                         ", ".join("%s=%s" % (p.get("key"), p.get("bytes")) for p in parts)))
    near("%s: rss" % mode, rss, truth["rss"], 0.05)
    if statm_rss is not None and not within(rss, statm_rss, 0.05):
        results.append((0, "# %s: rss %s, /proc/PID/statm after the request %s" %
                        (mode, mib(rss), mib(statm_rss)), ""))

    def part(key):
        v = by.get(key)
        return v[0].get("bytes") if v else None

    t = truth["truth"]
    jem = mem.get("jemalloc") if isinstance(mem.get("jemalloc"), dict) else {}
    if mode == "frag":
        cls = truth["class"]
        frag = part("jemalloc.fragmentation")
        check(isinstance(frag, int) and frag >= 0.99 * cls["free_bytes"],
              "frag: jemalloc.fragmentation >= the 64-byte class's free bytes (%s)" % mib(cls["free_bytes"]),
              "got %s (%r)" % (mib(frag), frag))
        near("frag: jemalloc.fragmentation", frag, t["jemalloc.fragmentation"], 0.10)
        live = part("jemalloc.live")
        check(isinstance(live, int) and live >= 0.95 * t["jemalloc.live"],
              "frag: jemalloc.live holds the objects kept (%s)" % mib(t["jemalloc.live"]),
              "got %s (%r)" % (mib(live), live))
        classes = mem.get("classes") if isinstance(mem.get("classes"), list) else []
        c64 = [c for c in classes if isinstance(c, dict) and c.get("size") == 64]
        if check(len(c64) == 1, "frag: classes[] has the 64-byte class",
                 "classes: %s" % json.dumps(classes)[:400]):
            c = c64[0]
            near("frag: classes[64].free_bytes", c.get("free_bytes"), cls["free_bytes"], 0.10)
            near("frag: classes[64].slab_bytes", c.get("slab_bytes"), cls["slab_bytes"], 0.10)
            near("frag: classes[64].used_bytes", c.get("used_bytes"), cls["used_bytes"], 0.10)
            check(classes[0] is c, "frag: the 64-byte class comes first (largest free first)",
                  "first: %s" % json.dumps(classes[0])[:200])
        advice_for(mode, mem, "jemalloc.fragmentation", r"(?<![0-9])64(?![0-9])", "the 64-byte class")
    elif mode == "dirty":
        near("dirty: jemalloc.dirty", part("jemalloc.dirty"), t["jemalloc.dirty"], 0.10)
        near("dirty: jemalloc.dirty in \"jemalloc\"", jem.get("dirty"), t["jemalloc.dirty"], 0.10)
        check(jem.get("dirty_decay_ms") == truth["dirty_decay_ms"],
              "dirty: jemalloc.dirty_decay_ms is the program's (%r)" % truth["dirty_decay_ms"],
              "got %r" % jem.get("dirty_decay_ms"))
        check(jem.get("background_thread") is truth["background_thread"],
              "dirty: jemalloc.background_thread is the program's (%r)" % truth["background_thread"],
              "got %r" % jem.get("background_thread"))
        advice_for(mode, mem, "jemalloc.dirty", r"dirty_decay_ms|background_thread",
                   "dirty_decay_ms or background_thread")
    elif mode == "threads":
        near("threads: stacks.threads", part("stacks.threads"), t["stacks.threads"], 0.10)
        check(isinstance(mem.get("threads"), int) and mem["threads"] > truth["threads"],
              "threads: \"threads\" counts the program's %d and the main thread" % truth["threads"],
              "got %r" % mem.get("threads"))
    elif mode == "file":
        near("file: files.data", part("files.data"), t["files.data"], 0.10)
        files = mem.get("files") if isinstance(mem.get("files"), list) else []
        f = [x for x in files if isinstance(x, dict) and x.get("path") == truth["path"]]
        if check(len(f) == 1, "file: \"files\" lists the data file",
                 "files: %s" % json.dumps(files)[:500]):
            near("file: its bytes in \"files\"", f[0].get("bytes"), t["files.data"], 0.10)
            check(f[0].get("code") is False, "file: ... as data, not code", json.dumps(f[0]))
    elif mode == "glibc":
        near("glibc: glibc.heap", part("glibc.heap"), t["glibc.heap"], 0.10)
        g = mem.get("glibc") if isinstance(mem.get("glibc"), dict) else {}
        mi = truth["mallinfo2"]
        near("glibc: \"glibc\".arena", g.get("arena"), mi["arena"], 0.10)
        check(g.get("hblkhd") == mi["hblkhd"], "glibc: \"glibc\".hblkhd is mallinfo2's (%r)" % mi["hblkhd"],
              "got %r" % g.get("hblkhd"))
        advice_for(mode, mem, "glibc.heap", r"glibc", "glibc")
    elif mode == "rustffi":
        live = part("jemalloc.live")
        if truth["c_malloc"] == "glibc":
            near("rustffi: glibc.heap (the C library's leak)", part("glibc.heap"), t["glibc.heap"], 0.10)
            check(isinstance(part("glibc.heap"), int) and part("glibc.heap") >= 0.95 * truth["c_leaked"],
                  "rustffi: glibc.heap holds the C leak (%s)" % mib(truth["c_leaked"]),
                  "got %s" % mib(part("glibc.heap")))
            # The agent's own allocations go to glibc's malloc too in a Rust
            # process (no unprefixed jemalloc): its arena only grows.
            g = mem.get("glibc") if isinstance(mem.get("glibc"), dict) else {}
            a = g.get("arena")
            check(isinstance(a, int) and a >= truth["mallinfo2"]["arena"],
                  "rustffi: \"glibc\".arena at least the program's mallinfo2 arena (%s)" %
                  mib(truth["mallinfo2"]["arena"]), "got %s (%r)" % (mib(a), a))
            if isinstance(a, int) and a > truth["mallinfo2"]["arena"]:
                results.append((0, "# rustffi: glibc's arena grew by %s after the program's truth "
                                "(the agent's own allocations)" % mib(a - truth["mallinfo2"]["arena"]), ""))
            advice_for(mode, mem, "glibc.heap", r"glibc", "glibc")
            want = truth["rust_kept"]
        else:
            # An unprefixed jemalloc preloaded for the C side: both heaps live.
            want = truth["rust_kept"] + truth["c_leaked"]
        # The Rust jemalloc (jemalloc-sys 0.3: jemalloc 5.1) has its size
        # classes too: its small bins hold the std's and the requests' strings.
        classes = mem.get("classes") if isinstance(mem.get("classes"), list) else []
        check(len(classes) > 0 and isinstance(jem.get("narenas"), int) and jem["narenas"] > 0,
              "rustffi: classes[] and narenas read from the Rust jemalloc (%s)" % jem.get("version"),
              "%d classes, narenas %r" % (len(classes), jem.get("narenas")))
        check(isinstance(live, int) and live >= 0.95 * want,
              "rustffi: jemalloc.live holds the %s heap (%s)" % (
                  "Rust" if truth["c_malloc"] == "glibc" else "Rust and the C", mib(want)),
              "got %s (%r)" % (mib(live), live))
    return report()


def report():
    for rc, desc, details in results:
        if label["label"] and label["mode"]:
            desc = desc.replace(label["mode"] + ":", "%s (%s):" % (label["mode"], label["label"]), 1)
        if desc.startswith("#"):
            print(desc)
            continue
        print("%d %s%s" % (rc, desc, (": " + details) if rc and details else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
