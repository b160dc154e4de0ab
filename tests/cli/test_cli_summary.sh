#!/bin/bash
# SPDX-License-Identifier: MIT
# fpulab summary on fixed result files: the winning policy, its ratios to
# eager and to the runner-up, whether the win is beyond the ranges; a
# correctness experiment's totals. TAP output.
set -u
. "$(dirname "$0")/lib.sh"
fx=$here/fixtures
expect() {
	if grep -qE -- "$3" "$2"; then ok "$1"; else not_ok "$1" "no line matches: $3" "$(cat "$2")"; fi
}

"$fpulab" summary --plot "$work/plots" "$fx/compare-a.json" > "$work/s" 2> "$work/e"
rc=$?
[ "$rc" = 0 ] && ok "summary: exit 0" || not_ok "summary: exit 0" "exit $rc" "$(cat "$work/e")"
# smp-lazy 15000 / eager 20000 = 0.75; eager is the runner-up (lazy ties it at 1.00,
# the first in the file wins the tie); 16000 (smp-lazy's max) < 19000 (eager's min)
expect "smp-lazy wins, 0.75x eager, beyond the ranges" "$work/s" \
	'^  all +smp-lazy +0\.75x +0\.75x eager +yes$'
expect "the unit and the source are named" "$work/s" 'TSC ticks per round trip, EMULATED TSC ticks under QEMU TCG'
expect "the number of runs is named" "$work/s" 'medians of 5 runs'
expect "then where the full results are" "$work/s" "^full results: $fx/compare-a.json$"
expect "and the plots" "$work/s" "^plots: $work/plots/ \\(1 SVG\\)$"

"$fpulab" summary "$fx/report-context-switch.json" > "$work/s2" 2> /dev/null
# fp_users varies, regset varies: the class is fp_users; eager only in 'one'
expect "classes: one per FP-user count; smp-lazy wins with FP in one task" "$work/s2" \
	'^  fp_users=one +smp-lazy +0\.76x +0\.80x lazy +yes$'

printf '%s\n' '{"experiment": "stress", "policy": "eager", "repeats": 1, "integrity_errors": 0, "integrity_errors_all_runs": 0, "ticks_per_switch": 900.0}' \
	'{"experiment": "stress", "policy": "owner", "repeats": 1, "integrity_errors": 1, "integrity_errors_all_runs": 1, "ticks_per_switch": 800.0}' > "$work/stress.json"
"$fpulab" summary "$work/stress.json" > "$work/s3" 2> /dev/null
expect "a correctness experiment: its abi.h figure per policy, not a timing" "$work/s3" '^  eager 0 owner 1$'
expect "named with its unit" "$work/s3" '^stress: integrity errors per policy, exact counts over 2 runs \(lower is better\):$'

"$fpulab" summary "$work/nosuch.json" > /dev/null 2>&1
rc=$?
[ "$rc" = 2 ] && ok "a missing file: exit 2" || not_ok "a missing file: exit 2" "exit $rc"

finish
