#!/bin/bash
# SPDX-License-Identifier: MIT
# Run test executables (cmocka binaries, TAP scripts) and count their TAP lines.
#   tests/run-tests.sh build/tests/test_a tests/cli/test_run.sh ...
# Each runs with CMOCKA_MESSAGE_OUTPUT=TAP; its output is echoed. "ok " lines
# pass, "not ok " lines fail, and lines with a "# SKIP" directive are skipped,
# neither passed nor failed (cmocka's skip() prints "not ok N # SKIP name"). A test executable that exits non-zero without a
# "not ok" line, or that reports no result at all, counts as one failure.
# Before the last line, a line per suite (test executable): "PASS name (N
# passed, N skipped)" or "FAIL name (N failed, N passed, N skipped)". The last
# line is "N passed, N failed, N skipped"; the exit status is non-zero on
# failure.
set -u
export CMOCKA_MESSAGE_OUTPUT=TAP
passed=0 failed=0 skipped=0
suites=
# TAP: "ok 7 - name # SKIP reason", "ok 7 # skip", "ok 7 - # SKIP reason"
skip_re='^ok .*#[[:space:]]*[Ss][Kk][Ii][Pp]'
notok_skip_re='^not ok .*#[[:space:]]*[Ss][Kk][Ii][Pp]'

if [ $# -eq 0 ]; then
	echo "run-tests.sh: no test executables given" >&2
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
for t in "$@"; do
	echo "# ---- $t"
	log=$(mktemp)
	if [ -x "$t" ]; then
		"$t" > "$log" 2>&1
		rc=$?
	else
		echo "run-tests.sh: $t is not an executable" > "$log"
		rc=127
	fi
	cat "$log"
	s=$(grep -c "$skip_re" "$log")
	ns=$(grep -c "$notok_skip_re" "$log")
	p=$(($(grep -c '^ok ' "$log") - s))
	f=$(($(grep -c '^not ok ' "$log") - ns))
	s=$((s + ns))
	rm -f "$log"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $t exited with status $rc without reporting a failure"
		f=1
	elif [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && [ "$s" -eq 0 ]; then
		echo "not ok - $t reported no test results"
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	name=$(basename "$t")
	if [ "$f" -eq 0 ]; then
		suites="$suites$(printf 'PASS %-28s (%d passed, %d skipped)' "$name" "$p" "$s")
"
	else
		suites="$suites$(printf 'FAIL %-28s (%d failed, %d passed, %d skipped)' "$name" "$f" "$p" "$s")
"
	fi
done
echo "# ---- suites"
printf '%s' "$suites"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
