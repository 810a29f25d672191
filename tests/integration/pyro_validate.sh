#!/bin/sh
# pyro_validate.sh: the unit tests of the test-side Pyroscope tools, as one
# TAP stream: tests/pyro/test_validate.py (validate.py, Pyroscope's rules
# and limits: each rule broken by a hand-built profile or label set and
# refused with its reason code, a good profile accepted, the CLI, the
# stand-in answering 400/429 with the code) and tests/pyro/test_alloy_delta.py
# (alloy_delta.py, Alloy's delta step on hand-built scrapes).  Needs
# python3 only (the stand-in part is skipped without protoc and go).  Each
# script's TAP lines are renumbered here; a script that dies or prints no
# result fails the test.
. "$YING_SRCDIR/tests/integration/tap.sh"
need python3
T=$(mktemp -d "${TMPDIR:-/tmp}/ying-pyro-validate.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

for t in test_validate.py test_alloy_delta.py; do
	python3 "$YING_SRCDIR/tests/pyro/$t" >"$T/out" 2>"$T/err"
	rc=$?
	n=0
	while IFS= read -r line; do
		case $line in
		"ok "*"# SKIP"*)
			TAP_N=$((TAP_N + 1)) n=$((n + 1))
			echo "ok $TAP_N ${line#*# }"
			;;
		"ok "*)
			n=$((n + 1))
			ok 0 "$t: ${line#*- }"
			;;
		"not ok "*)
			n=$((n + 1))
			ok 1 "$t: ${line#*- }"
			;;
		"#"*)
			echo "$line"
			;;
		esac
	done <"$T/out"
	[ "$rc" -eq 0 ] && [ "$n" -gt 0 ]
	ok $? "$t ran to its end ($n results, status $rc)" || diag "$T/err"
done
plan_done
