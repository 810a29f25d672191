#!/bin/sh
# rust_v0.sh: Rust names and lines in the other builds of rustsvc.
#
# rustsvc-v0 is rustsvc compiled with -C symbol-mangling-version=v0 (its
# own functions are _R... symbols; the precompiled std stays legacy _ZN);
# rustsvc-d2 has full debug info (-C debuginfo=2) instead of line tables.
# Each runs under `ying run --report-dir D --interval 1 --floor 4MiB`
# (reports only), keeping 8 MiB more per step in Cache::leak_entry.  In the
# newest report set: `ying top` names the leaking method (the v0 demangler
# writes an inherent impl as <rustsvc::Cache>::leak_entry) with
# main.rs:LINE on top, with jeprof's total; top, folded, the flame graph,
# the .report, yingdiff against the first set and pprof names hold no raw
# _R/_ZN name nor ::h<hash>; pprof keeps the mangled symbol as
# system_name (_R... for v0).  With full debug info, the frames inlined
# into rustsvc::main's caller are there too (file:line, inline).
. "$YING_SRCDIR/tests/integration/rust_lib.sh"

L=$(svc_line RUSTSVC_LEAK_LINE)

for v in v0 d2; do
	B="$RS/rustsvc-$v"
	D="$T/$v"
	ying run -q --report-dir "$D" --interval 1 --floor 4MiB -- "$B" 4 8 800 2000 \
	    >"$T/$v.out" 2>"$T/$v.err"
	is "$?" 0 "$v: ying run rustsvc-$v exits 0" || diag "$T/$v.err"
	report_sets "$D" >"$T/$v.sets"
	n=$(wc -l <"$T/$v.sets")
	[ "$n" -ge 2 ]
	ok $? "$v: growth reports ($n sets)" || diag "$T/$v.err"
	first="$D/$(head -n 1 "$T/$v.sets")"
	last="$D/$(tail -n 1 "$T/$v.sets")"

	ying top "$last.heap" >"$T/$v.top" 2>"$T/$v.top.err"
	ok $? "$v: ying top reads the newest .heap" || diag "$T/$v.top.err"
	sed 's/^/# /' "$T/$v.top" | head -n 6
	ying top --json "$last.heap" >"$T/$v.json"
	python3 - "$T/$v.json" "$L" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = ("rustsvc::Cache::leak_entry", "<rustsvc::Cache>::leak_entry")
r = [r for r in d["rows"] if r["function"] in names][0]
assert (r.get("file") or "").endswith("main.rs") and r.get("line") == int(sys.argv[2]), r
assert r["cum"] >= 0.9 * d["total"], (r, d["total"])
PY
	ok $? "$v: ying top names Cache::leak_entry (main.rs:$L), holding the heap" || diag "$T/$v.top"
	python3 - "$T/$v.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["rows"][0]
assert r["function"] in ("rustsvc::Cache::leak_entry", "<rustsvc::Cache>::leak_entry"), r
assert r["flat"] >= 0.9 * d["total"], r
PY
	ok $? "$v: ... as the top row, flat (allocator frames trimmed)" || diag "$T/$v.top"
	yt=$(python3 -c 'import json, sys, math; print(math.trunc(json.load(open(sys.argv[1]))["total"]))' "$T/$v.json")
	jt=$(jeprof_total "$B" "$last.heap")
	near_jeprof "$yt" "$jt" "$last.heap"
	ok $? "$v: total ($yt) = jeprof's ($jt) for the same dump and binary, within half a byte per stack" ||
	    diag "$T/jeprof.err"

	ying folded "$last.heap" >"$T/$v.folded"
	ying flamegraph "$last.heap" -o "$T/$v.svg"
	ying diff --cum "$first.heap" "$last.heap" >"$T/$v.diff" 2>"$T/$v.diff.err"
	ok $? "$v: ying diff --cum first last" || diag "$T/$v.diff.err"
	grep -q '+.*Cache>*::leak_entry' "$T/$v.diff"
	ok $? "$v: the diff shows leak_entry growing" || diag "$T/$v.diff"
	ying pprof "$last.heap" -o "$T/$v.pb.gz"
	pprof_funcs "$T/$v.pb.gz" >"$T/$v.funcs"
	cut -f1 "$T/$v.funcs" >"$T/$v.names"
	is "$(raw_names "$T/$v.top" "$T/$v.folded" "$T/$v.svg" "$T/$v.diff" "$T/$v.names" \
	    "$last.report" "$last.svg" | tr '\n' ' ')" "" \
	    "$v: no raw _R/_ZN name nor ::h<hash> in top, folded, SVG, diff, pprof names, .report, report .svg"
done

awk -F'\t' '$1 ~ /Cache>?::leak_entry$/ && $2 ~ /^_R.*5Cache10leak_entry$/' "$T/v0.funcs" | grep -q .
ok $? "v0: pprof system_name is the v0 symbol _R...5Cache10leak_entry" || diag "$T/v0.funcs"
awk -F'\t' '$1 == "rustsvc::main" && $2 ~ /^_R/' "$T/v0.funcs" | grep -q .
ok $? "v0: rustsvc::main demangled from _R..." || diag "$T/v0.funcs"
awk -F'\t' '$1 == "std::rt::lang_start_internal" && $2 ~ /^_ZN/' "$T/v0.funcs" | grep -q .
ok $? "v0: std's legacy symbols demangled in the same profile" || diag "$T/v0.funcs"

# Full debug info: inline frames of std on the way to main.
grep -Eq 'std::sys_common::backtrace::__rust_begin_short_backtrace;core::ops::function::FnOnce::call_once(\[inline\])?;rustsvc::main;' "$T/d2.folded"
ok $? "d2: the inlined core::ops::function::FnOnce::call_once is in the stacks" ||
    diag "$T/d2.folded"
awk -F'\t' '$1 == "rustsvc::main" && $3 ~ /main\.rs$/' "$T/d2.funcs" | grep -q .
ok $? "d2: pprof gives rustsvc::main its file main.rs" || diag "$T/d2.funcs"

plan_done
