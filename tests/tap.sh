# SPDX-License-Identifier: MIT
# TAP helpers for the shell tests; source it: . "$root/tests/tap.sh"
#   ok NAME                  a passing test
#   not_ok NAME [DETAIL...]  a failing test, each DETAIL on a "# " line after it
#   skip [NAME] REASON       a skipped test ("ok N - NAME # SKIP REASON")
#   finish                   the plan line "1..N"; its status is the script's
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

finish() {
	echo "1..$n"
	[ "$failed" = 0 ]
}
