#!/bin/bash
# SPDX-License-Identifier: MIT
# fpulab report --from a fixed result file (tests/cli/fixtures/report-*.json):
# the seed 003 gains computed exactly, every claim without results "not
# measured", markdown and JSON. TAP output.
set -u
. "$(dirname "$0")/lib.sh"
fx=$here/fixtures
expect() {
	if grep -qE -- "$3" "$2"; then ok "$1"; else not_ok "$1" "no line matches: $3" "$(head -n 14 "$2")"; fi
}
expect_count() { # NAME FILE REGEX N
	local c
	c=$(grep -cE -- "$3" "$2")
	if [ "$c" = "$4" ]; then ok "$1"; else not_ok "$1" "$c lines match $3, expected $4"; fi
}

"$fpulab" report --from "$fx/report-context-switch.json" > "$work/t" 2> "$work/e"
rc=$?
[ "$rc" = 0 ] && ok "report --from FILE: exit 0" || not_ok "report --from FILE: exit 0" "exit $rc" "$(cat "$work/e")"
expect_count "one row per claim: 9 claims of 4 seeds" "$work/t" '^00[0-3] ' 9
# lazy 20000 / smp-lazy 16000 ticks per round trip: a 25.0% higher switch rate
expect "seed 003, FP in one thread: +25.0%, direction agrees, emulated" "$work/t" \
	'^003 +\+4% switch rate .* yes +emulated ticks +\+25\.0% \(lazy 20000\.0 vs smp-lazy 16000\.0 TSC ticks per round trip, medians of 5/5 runs\)$'
expect "seed 003, big state: +25.0%" "$work/t" '^003 +\+8% with big state .* yes +emulated ticks +\+25\.0% \(lazy 30000\.0 vs smp-lazy 24000\.0'
# 40000 / 40400 - 1 = -0.99%: no degradation beyond the ranges
expect "seed 003, FP in both: -1.0%, no real difference" "$work/t" '^003 +0% \(no degradation\) .* yes +emulated ticks +-1\.0% '
expect "a gain far from the claim's size says why" "$work/t" "the lab's switch path is far shorter"
expect_count "the claims without results say not measured" "$work/t" ' not measured$' 6
expect "and which experiment they need" "$work/t" 'needs `fpulab run --experiment short-tasks`'
expect "the header names the build and the command" "$work/t" '^# fpulab_git: '
expect "the header names the host" "$work/t" '^# host_cpu: '

"$fpulab" report --from "$fx/report-context-switch.json" --format md > "$work/md" 2> /dev/null
expect "markdown: a pipe table" "$work/md" '^\| seed \| claim \| fpulab \| source \| direction agrees \|$'
expect "markdown: seed 003's row" "$work/md" '^\| 003 \| \+4% switch rate .* \| \+25\.0% .* \| emulated ticks \| yes'
expect "markdown: notes as a list" "$work/md" '^- seed 002, .*needs `fpulab run --experiment'

"$fpulab" report --from "$fx/report-context-switch.json" --format json > "$work/j" 2> /dev/null
expect_count "JSON: one line per claim" "$work/j" '^\{"seed": ' 9
expect "JSON: the value and its unit" "$work/j" '"seed": "003", "claim": "\+8% with big state.*"value": 25\.0, "unit": "%", "source": "emulated ticks", "direction_agrees": "yes"'
expect "JSON: not measured is null, never a number" "$work/j" '"seed": "002", "claim": "20K.*"measured": false, "fpulab": "not measured", "value": null'

"$fpulab" report --from "$fx/report-seed000-002.json" "$fx/report-context-switch.json" > "$work/t2" 2> /dev/null
expect "seed 002 boot: #NM saved = lazy's minus eager's, an exact count" "$work/t2" \
	'^002 +20K #NM traps saved during boot +yes +exact lab count +4000 #NM saved \(lazy 4000, eager 0, mix=boot, one run\)$'
expect "seed 002 build: the build mix" "$work/t2" '^002 +50K .* yes +exact lab count +9000 #NM saved'
expect "seed 002 checksum: 1150/1000 = +15.0%" "$work/t2" '^002 +~15% .* yes +emulated ticks +\+15\.0% \(lazy 1150\.0 vs eager 1000\.0'
expect "seed 000: prefetch mode taken from the command line; equal: within noise" "$work/t2" \
	'^000 +.* within noise +emulated ticks +\+0\.0% \(off 2000\.0 vs conditional 2000\.0'
expect "seed 000: says why emulation cannot show it" "$work/t2" 'TCG models no cache'
expect_count "only seed 001 is left not measured" "$work/t2" ' not measured$' 2

"$fpulab" report --from "$work/nosuch.json" > /dev/null 2>&1
rc=$?
[ "$rc" = 2 ] && ok "a missing file: exit 2" || not_ok "a missing file: exit 2" "exit $rc"
"$fpulab" report --format pdf > /dev/null 2>&1
rc=$?
[ "$rc" = 2 ] && ok "an unknown format: exit 2" || not_ok "an unknown format: exit 2" "exit $rc"

finish
