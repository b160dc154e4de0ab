# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# TAP helpers for the shell tests; tests/cli/lib.sh and tests/lab/lib.sh source it
#   ok NAME                  a passing test
#   not_ok NAME [DETAIL...]  a failing test, each DETAIL on a "# " line after it
#   skip [NAME] REASON       a skipped test ("ok N - NAME # SKIP REASON")
#   skips COUNT NAME REASON  COUNT skipped tests of that name
#   finish                   the plan line "1..N"; its status is the script's
#   check NAME RC OUT ERR -- COMMAND...
#                            runs COMMAND (its output in $work/out and $work/err):
#                            ok if it exits RC and its stdout and stderr hold
#                            OUT and ERR (- for either: anything)
# run-tests.sh counts the lines (a SKIP directive counts as skipped).
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }

not_ok() {
	n=$((n + 1)) failed=$((failed + 1))
	echo "not ok $n - $1"
	shift
	for l in "$@"; do echo "# $l"; done
}

skip() {
	n=$((n + 1))
	if [ $# -ge 2 ]; then echo "ok $n - $1 # SKIP $2"; else echo "ok $n - # SKIP $1"; fi
}

skips() {
	local k
	for ((k = 0; k < $1; k++)); do skip "$2" "$3"; done
}

finish() {
	echo "1..$n"
	[ "$failed" = 0 ]
}

check() {
	local name=$1 want=$2 o=$3 e=$4
	shift 5
	# shellcheck disable=SC2154 # $work: the lib.sh that sources this file makes it
	"$@" > "$work/out" 2> "$work/err"
	local rc=$?
	if [ "$rc" != "$want" ]; then
		not_ok "$name" "exit $rc, expected $want" "stderr: $(head -n 3 "$work/err")"
	elif [ "$o" != - ] && ! grep -qF -- "$o" "$work/out"; then
		not_ok "$name" "stdout lacks: $o" "stdout: $(head -n 3 "$work/out")"
	elif [ "$e" != - ] && ! grep -qF -- "$e" "$work/err"; then
		not_ok "$name" "stderr lacks: $e" "stderr: $(head -n 3 "$work/err")"
	else
		ok "$name"
	fi
}
