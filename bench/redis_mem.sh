#!/bin/bash
# redis_mem.sh [BUILD]: RSS of redis-server (Debian's, links jemalloc) with plain
# MALLOC_CONF=prof:true vs under `ying run --http`, same data (DEBUG POPULATE
# 200000), then after 20 GET /debug/pprof/heap.  Two alternating rounds.
# Ports 36379-36381 on 127.0.0.1 must be free.
set -u
B=${1:-build}
rss() { awk '/^VmRSS:/{print $2}' /proc/$1/status; }
pidof_port() { pgrep -f "redis-server 127.0.0.1:$1" | head -1; }
run_case() {
	local mode=$1 port=$2 hport=$3
	if [ "$mode" = plain ]; then
		MALLOC_CONF=prof:true redis-server --port $port --bind 127.0.0.1 --save '' --appendonly no >/dev/null 2>&1 &
	else
		$B/ying run --http 127.0.0.1:$hport -- redis-server --port $port --bind 127.0.0.1 --save '' --appendonly no >/dev/null 2>&1 &
	fi
	sleep 1
	redis-cli -p $port debug populate 200000 key 100 >/dev/null
	local pid=$(pidof_port $port)
	local before=$(rss $pid)
	if [ "$mode" = ying ]; then
		for i in $(seq 20); do curl -s -o /dev/null http://127.0.0.1:$hport/debug/pprof/heap; done
	fi
	local after=$(rss $pid)
	echo "$mode: rss after populate ${before} kB, after 20 pprof requests ${after} kB"
	redis-cli -p $port shutdown nosave >/dev/null 2>&1
	wait
}
run_case plain 36379 0
run_case ying 36380 36381
run_case plain 36379 0
run_case ying 36380 36381
