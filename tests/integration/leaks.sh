#!/bin/sh
# leaks.sh: `ying leaks` on real programs with a known behaviour.
#
# tests/programs/leaks_prog runs three ways at once under `ying run
# --interval 1 --pct 0 --floor 0 --sample 14` (a report set every second,
# sampling 16 KiB), 12 s each: a true leak under churn (leak_alloc keeps
# 512 KiB a second beside churn_alloc's 2 MiB that turns over), a cache
# that fills over the first third then holds (cache_fill), and pure churn.
# `ying leaks DIR` must give leak_alloc "leak", cache_fill "filled",
# churn_alloc "churn" in all three, never a leak in the churn run; the
# leak's interval must hold its true rate (the program says what it
# leaked, within 15 %); the JSON must parse and agree with the text; --fail-on leak
# exits 3 on the leak and 0 on churn; a `ying sql` database of each
# directory gives the same verdicts; dumps given one by one give the same
# as their directory; --stacks names whole stacks.  With the HTTP endpoint
# built, a fourth leak runs under `ying run --http` and `ying leaks --count
# 8 --every 1 URL` must find it.
. "$YING_SRCDIR/tests/integration/agent_lib.sh"
need curl

SECS=12
# with the endpoint (when built): a fourth leak, sampled over HTTP by
# `ying leaks --count 8 --every 1 URL` while it runs
HTTP=0
if grep -q '^#define YING_HAVE_HTTP 1' "$YING_BUILDDIR/config.h"; then
	HTTP=1
	PORT=$(free_port)
	ying run --http "127.0.0.1:$PORT" --sample 14 -- "$PROGS/leaks_prog" leak 16 \
	    >"$T/url.out" 2>"$T/url.err" &
	pid_url=$!
fi
for m in leak cache churn; do
	ying run --report-dir "$T/$m" --interval 1 --pct 0 --floor 0 --sample 14 -- \
	    "$PROGS/leaks_prog" $m $SECS >"$T/$m.out" 2>"$T/$m.err" &
	eval "pid_$m=\$!"
done
if [ "$HTTP" = 1 ]; then
	URL="http://127.0.0.1:$PORT/debug/pprof/heap"
	wait_for 10 curl -sf -o /dev/null "$URL"
	ok $? "the endpoint answers" || diag "$T/url.err"
	ying leaks --json --count 8 --every 1 "$URL" >"$T/url.json" 2>"$T/url.lerr"
	is "$?" 0 "ying leaks --count 8 --every 1 URL: exit 0" || diag "$T/url.lerr"
	wait "$pid_url"
	python3 - "$T/url.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = [s for s in d["sites"] if s["function"] == "leak_alloc"][0]
assert d["dumps"] == 8, d["dumps"]
assert 6 <= d["span_seconds"] <= 12, d["span_seconds"]
assert s["verdict"] == "leak", s
assert not [x for x in d["sites"] if x["function"] == "churn_alloc" and x["verdict"] == "leak"]
PY
	ok $? "URL: 8 dumps about a second apart, leak_alloc a leak, churn_alloc not"
fi
for m in leak cache churn; do
	eval "wait \$pid_$m"
	is "$?" 0 "ying run leaks_prog $m: exit 0" || diag "$T/$m.err"
	n=$(ls "$T/$m"/*.heap 2>/dev/null | wc -l)
	[ "$n" -ge 8 ]
	ok $? "$m: at least 8 dumps in $SECS s (got $n)"
done

# verdict_of FILE FUNCTION: the verdict of FUNCTION in `ying leaks --json`
# output FILE ("none" when absent).
verdict_of() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = [s["verdict"] for s in d["sites"] if s["function"] == sys.argv[2]]
print(v[0] if v else "none")
PY
}

for m in leak cache churn; do
	ying leaks --json "$T/$m" >"$T/$m.json" 2>"$T/$m.lerr"
	is "$?" 0 "ying leaks --json $m: exit 0" || diag "$T/$m.lerr"
	ying leaks "$T/$m" >"$T/$m.txt" 2>>"$T/$m.lerr"
	is "$?" 0 "ying leaks $m (text): exit 0" || diag "$T/$m.lerr"
	sed 's/^/# /' "$T/$m.txt" | head -n 6
done

is "$(verdict_of "$T/leak.json" leak_alloc)" leak "the leak: leak_alloc is a leak"
is "$(verdict_of "$T/leak.json" churn_alloc)" churn "the leak run: churn_alloc is churn"
is "$(verdict_of "$T/cache.json" cache_fill)" filled "the cache: cache_fill filled"
is "$(verdict_of "$T/cache.json" churn_alloc)" churn "the cache run: churn_alloc is churn"
is "$(verdict_of "$T/churn.json" churn_alloc)" churn "pure churn: churn_alloc is churn"
python3 - "$T/churn.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert not [s for s in d["sites"] if s["verdict"] == "leak"], d["sites"]
PY
ok $? "pure churn: no site is a leak"

# the JSON's shape, and the leak's interval against the program's truth
leaked=$(sed -n 's/^leaks_prog leak: leaked \([0-9]*\) bytes.*/\1/p' "$T/leak.out")
python3 - "$T/leak.json" "$T/leak.txt" "$leaked" $SECS <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
txt = open(sys.argv[2]).read().splitlines()
keys = {"function", "verdict", "reason", "rate", "rate_lo", "rate_hi", "r2",
        "rate_first", "rate_last", "first", "last", "points", "present"}
for s in d["sites"]:
    assert keys <= set(s), s
assert d["dumps"] == d["sites"][0]["points"], d
assert d["granularity"] == "function" and d["unit"] == "bytes/hour"
rates = [s["rate"] for s in d["sites"] if s["rate"] is not None]
assert rates == sorted(rates, reverse=True), "ranked by rate"
s = [s for s in d["sites"] if s["function"] == "leak_alloc"][0]
truth = float(sys.argv[3]) / float(sys.argv[4]) * 3600
print("# leak_alloc: %.4g bytes/hour [%.4g, %.4g], truth %.4g, r2 %.3f" %
      (s["rate"], s["rate_lo"], s["rate_hi"], truth, s["r2"]))
# 15 %: a dump's time is its file's mtime, which lags the dump itself by
# the time the runner takes to write the set (not part of the model)
assert s["rate_lo"] <= truth * 1.15 and truth * 0.85 <= s["rate_hi"], "interval holds the truth"
assert s["r2"] > 0.9
rows = [l.split() for l in txt[2:]]
assert [r[0] for r in rows] == [x["verdict"] for x in d["sites"]], "text and JSON agree"
assert txt[0].startswith("ying leaks: %d dumps over " % d["dumps"]), txt[0]
PY
ok $? "JSON: every site's fields, ranked by rate, the leak's interval holds its true rate, text agrees"

# --fail-on
ying leaks --fail-on leak "$T/leak" >/dev/null 2>"$T/err"
is "$?" 3 "--fail-on leak on the leak: exit 3"
grep -q 'a site has the verdict leak (--fail-on)' "$T/err"
ok $? "--fail-on says why on stderr" || diag "$T/err"
ying leaks --fail-on leak "$T/churn" >/dev/null 2>"$T/err"
is "$?" 0 "--fail-on leak on churn: exit 0" || diag "$T/err"
ying leaks --fail-on filled --fail-on released "$T/cache" >/dev/null 2>&1
is "$?" 3 "--fail-on filled (repeated) on the cache: exit 3"
ying leaks --fail-on leak "$T/cache" >/dev/null 2>&1
is "$?" 0 "--fail-on leak on the cache: exit 0"

# a database of the same dumps gives the same verdicts
for m in leak cache churn; do
	ying sql -q -o "$T/$m.db" "$T/$m" 2>"$T/sqlerr"
	is "$?" 0 "ying sql of the $m directory" || diag "$T/sqlerr"
	ying leaks --json "$T/$m.db" >"$T/$m.db.json" 2>"$T/err"
	is "$?" 0 "ying leaks on the $m database" || diag "$T/err"
done
is "$(verdict_of "$T/leak.db.json" leak_alloc)" leak "database: leak_alloc is a leak"
is "$(verdict_of "$T/cache.db.json" cache_fill)" filled "database: cache_fill filled"
is "$(verdict_of "$T/churn.db.json" churn_alloc)" churn "database: churn_alloc is churn"
ying leaks --fail-on leak "$T/leak.db" >/dev/null 2>&1
is "$?" 3 "--fail-on leak on the leak's database: exit 3"

# the dumps one by one: the same as the directory
ying leaks --json "$T/leak"/*.heap >"$T/files.json" 2>"$T/err"
is "$?" 0 "ying leaks DUMP..." || diag "$T/err"
cmp -s "$T/files.json" "$T/leak.json"
ok $? "the dumps given one by one: the same JSON as their directory"

# --stacks, --limit, -o
ying leaks --stacks --json -n 1 -o "$T/stacks.json" "$T/leak" 2>"$T/err"
is "$?" 0 "ying leaks --stacks -n 1 -o FILE" || diag "$T/err"
python3 - "$T/stacks.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["granularity"] == "stack" and len(d["sites"]) == 1, d
s = d["sites"][0]
assert s["function"].startswith("leak_alloc;main"), s["function"]
assert s["verdict"] == "leak", s
PY
ok $? "--stacks: the top site is the leaking stack leak_alloc;main;..., a leak"

# too few dumps: unknown, said
ying leaks --json "$(ls "$T/leak"/*.heap | head -n 1)" "$(ls "$T/leak"/*.heap | sed -n 2p)" \
    >"$T/two.json" 2>"$T/err"
is "$?" 0 "two dumps: exit 0" || diag "$T/err"
is "$(verdict_of "$T/two.json" leak_alloc)" unknown "two dumps: unknown"
grep -q '"reason":"too few dumps for a trend (need 4)"' "$T/two.json"
ok $? "two dumps: the reason says so"

# bad input: exit 1, named
ying leaks "$T/nothing-here" >/dev/null 2>"$T/err"
is "$?" 1 "a missing input: exit 1"
mkdir "$T/empty"
ying leaks "$T/empty" >/dev/null 2>"$T/err"
is "$?" 1 "a directory without dumps: exit 1"
grep -q 'no dumps' "$T/err"
ok $? "a directory without dumps: said" || diag "$T/err"
printf 'not a heap\n' >"$T/bad.heap"
ying leaks "$T/bad.heap" "$(ls "$T/leak"/*.heap | head -n 1)" >/dev/null 2>"$T/err"
is "$?" 1 "a garbage dump among good ones: exit 1"
grep -q 'bad.heap' "$T/err"
ok $? "the garbage dump is named" || diag "$T/err"

plan_done
