#!/bin/sh
# pyro_fold.sh: what folding to Pyroscope's limits costs the uploader of a
# real program (issue 27), side by side with an upload that is not folded.
#
#   bench/pyro_fold.sh [BUILD_DIR]      (default: build)
#   env: ROUNDS (default 3), SECONDS_PER_RUN (default 12), STACKS (20000)
#
# tests/programs/many_stacks holds objects on STACKS distinct stacks under
# `ying run --sample 0 --http ADDR --pyroscope URL --pyroscope-interval 1`,
# uploading to the test stand-in in --light mode (it records, without its
# checks).  Two configurations, alternated within each round:
#   fold     the defaults: 16,000 samples, 2 MiB (the profile is folded)
#   nofold   --pyroscope-max-samples 10000000 --pyroscope-max-bytes 1GiB
#            (the whole profile is sent, as before issue 27)
# Per run, /debug/prof's last_collect (seconds of dump + symbolize + fold +
# pprof of the last upload) is read once a second; the run's value is the
# median of those.  The table gives the medians over the rounds, the ratio
# fold / nofold, and the last profile's samples and bytes.
set -eu
B=${1:-build}
B=$(cd "$B" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${ROUNDS:-3}
SECS=${SECONDS_PER_RUN:-12}
STACKS=${STACKS:-20000}
W=$(mktemp -d "${TMPDIR:-/tmp}/pyro_fold.XXXXXX")
trap 'rm -rf "$W"' EXIT

python3 "$SRC/tests/pyro/standin.py" --light --dir "$W/sd" >"$W/port" 2>"$W/sd.err" &
sp=$!
for i in $(seq 1 50); do grep -q '^port ' "$W/port" && break; sleep 0.1; done
URL=http://127.0.0.1:$(awk '/^port /{print $2}' "$W/port")

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

one() {
	cfg=$1 r=$2
	d=$W/$cfg.$r
	mkdir -p "$d"
	hp=$(free_port)
	if [ "$cfg" = nofold ]; then
		extra="--pyroscope-max-samples 10000000 --pyroscope-max-bytes 1GiB"
	else
		extra=""
	fi
	# shellcheck disable=SC2086
	"$B/ying" run --quiet --http "127.0.0.1:$hp" --sample 0 --pyroscope "$URL" \
	    --service bench --pyroscope-interval 1 $extra -- \
	    "$B/tests/programs/many_stacks" "$STACKS" 0 "$d" >"$d/out" 2>"$d/err" &
	pid=$!
	for i in $(seq 1 600); do grep -q '^ready ' "$d/out" && break; sleep 0.1; done
	sleep 2
	for i in $(seq 1 "$SECS"); do
		curl -sf "http://127.0.0.1:$hp/debug/prof" >>"$d/prof" && echo >>"$d/prof"
		sleep 1
	done
	touch "$d/stop"
	wait "$pid" || true
	python3 - "$d/prof" "$cfg" <<'PY' >>"$W/t"
import json, statistics, sys
v, last = [], None
for line in open(sys.argv[1]):
    line = line.strip()
    if line:
        p = json.loads(line)["pyroscope"]
        if p["collected"] > 0:
            v.append(p["last_collect"])
            last = p
print(sys.argv[2], statistics.median(v), last["last_samples"], last["last_bytes"])
PY
}
for r in $(seq 1 "$ROUNDS"); do
	if [ $((r % 2)) -eq 1 ]; then one fold "$r"; one nofold "$r"; else one nofold "$r"; one fold "$r"; fi
done
kill "$sp" 2>/dev/null || true
python3 - "$W/t" "$STACKS" <<'PY'
import statistics, sys
t, s = {}, {}
for line in open(sys.argv[1]):
    k, v, n, b = line.split()
    t.setdefault(k, []).append(float(v))
    s[k] = (int(n), int(b))
f, n = statistics.median(t["fold"]), statistics.median(t["nofold"])
print("many_stacks %s stacks: last_collect fold median %.3f s (%s; last profile %d samples, %d B),"
      " nofold median %.3f s (%s; %d samples, %d B), ratio %.2f"
      % (sys.argv[2], f, " ".join("%.3f" % x for x in t["fold"]), s["fold"][0], s["fold"][1],
         n, " ".join("%.3f" % x for x in t["nofold"]), s["nofold"][0], s["nofold"][1], f / n))
PY
