#!/bin/bash
# SPDX-License-Identifier: MIT
# fpulab's other commands (help, xstate, calibrate) and tests/run-tests.sh's
# counting. TAP output; run by tests/run-tests.sh.
set -u
. "$(dirname "$0")/lib.sh"
corpus=$root/tests/fuzz/corpus/import

# ---- help ----
check "fpulab help run prints run's help" 0 "usage: fpulab run" - -- "$fpulab" help run
check "fpulab help xstate prints xstate's help" 0 "usage: fpulab xstate" - -- "$fpulab" help xstate
check "fpulab help calibrate prints calibrate's help" 0 "usage: fpulab calibrate" - -- "$fpulab" help calibrate
"$fpulab" --help > "$work/usage"
cols=$(sed -n 's/^  \([-a-z]*  *\)[^ ].*/\1/p' "$work/usage" | awk '{ print length }' | sort -u)
if [ "$(grep -c '^  ' "$work/usage")" -gt 10 ] && [ "$(echo "$cols" | wc -l)" = 1 ]; then
	ok "fpulab --help: every command's summary starts in one column"
else not_ok "fpulab --help: every command's summary starts in one column" "summary columns: $(echo "$cols" | tr "\n" " ")" "$(cat "$work/usage")"; fi
long=$(awk 'length > 80' "$work/usage")
if [ -z "$long" ]; then ok "fpulab --help: every line fits 80 columns"
else not_ok "fpulab --help: every line fits 80 columns" "longer: $long"; fi
# every command's and host subcommand's help too (the commands as --help lists them)
long=
cmds=$(awk 'NR > 1 && /^  [a-z]/ { print $1 }' "$work/usage")
for c in $cmds "host context-switch" "host unlink" "host check" "host costs"; do
	# shellcheck disable=SC2086 # "host costs" is two words
	"$fpulab" help $c > "$work/help" 2>&1
	long+=$(awk -v c="$c" 'length > 80 { print c ": " $0 }' "$work/help")
done
if [ -z "$long" ] && [ "$(echo "$cmds" | wc -w)" -gt 10 ]; then
	ok "fpulab help COMMAND: every line of every command's help fits 80 columns"
else not_ok "fpulab help COMMAND: every line of every command's help fits 80 columns" "commands: $cmds" "longer: $long"; fi
check "an unknown command: one line and a hint" 2 - "try 'fpulab help'" -- "$fpulab" frobnicate

# ---- xstate: 0 accept, 1 reject, 2 usage or unreadable ----
check "xstate check: an accepted image exits 0" 0 "accept" - -- "$fpulab" xstate check "$corpus/ok-init.bin"
check "xstate check: a rejected image exits 1" 1 "reject: " - -- "$fpulab" xstate check "$corpus/bad-short-1.bin"
check "xstate check: a missing file exits 2" 2 - "$work/none: No such file or directory" -- "$fpulab" xstate check "$work/none"
check "xstate check: a directory exits 2" 2 - "$work: is a directory, not an xstate image" -- "$fpulab" xstate check "$work"
check "xstate dump: a directory exits 2" 2 - "is a directory" -- "$fpulab" xstate dump "$work"
check "xstate check --help prints help" 0 "usage: fpulab xstate" - -- "$fpulab" xstate check --help
check "xstate check a b says why" 2 - "check takes one FILE, got 2 arguments" -- "$fpulab" xstate check a b
check "xstate check without a file says why" 2 - "check needs a FILE" -- "$fpulab" xstate check
check "xstate with an unknown subcommand says why" 2 - "unknown subcommand 'frob'" -- "$fpulab" xstate frob x

# ---- calibrate ----
check "calibrate --repeat 0: out of range, worded as every command's" 2 - "fpulab calibrate: --repeat: 0 is out of range (1..10000000)" -- "$fpulab" calibrate --repeat 0
check "calibrate --repeat -3: not a non-negative integer, with the range" 2 - "fpulab calibrate: --repeat: '-3' is not a non-negative integer (1..10000000)" -- "$fpulab" calibrate --repeat -3
echo x > "$work/file-not-dir"
check "calibrate --output in a missing folder: exit 2 before measuring" 2 - "cannot create a file in $work/nowhere" -- "$fpulab" calibrate --output "$work/nowhere/cal.csv"
check "host costs --output in a missing folder: exit 2 before measuring" 2 - "fpulab host costs: --output $work/nowhere/hc.json: cannot create a file in $work/nowhere" -- "$fpulab" host costs --output "$work/nowhere/hc.json"
check "report --from without a value: one line, exit 2" 2 - "fpulab report: option '--from' needs a value" -- "$fpulab" report --from
check "compare --bogus: named, exit 2" 2 - "fpulab compare: unknown option '--bogus'" -- "$fpulab" compare --bogus
check "summary --plot without a value: exit 2" 2 - "fpulab summary: option '--plot' needs a value" -- "$fpulab" summary --plot
check "summary --plot into a file: exit 2 before anything is printed" 2 - "fpulab summary: --plot $work/file-not-dir: not a directory" -- "$fpulab" summary --plot "$work/file-not-dir" "$work/file-not-dir"
check "report --plot in a missing folder: exit 2 before any experiment" 2 - "fpulab report: --plot $work/none/a: No such file or directory" -- "$fpulab" report --plot "$work/none/a"
check "import-serial -o without a value: exit 2" 2 - "fpulab import-serial: option '-o' needs a value" -- "$fpulab" import-serial -o
check "calibrate: an unknown option, one line and a hint" 2 - "try 'fpulab calibrate --help'" -- "$fpulab" calibrate --bogus
if grep -qw xsave /proc/cpuinfo; then
	"$fpulab" calibrate --repeat 20 --format json > "$work/cal.json" 2> "$work/cal.err"
	rc=$?
	lines=$(wc -l < "$work/cal.json")
	objects=$(grep -c '^{"experiment": "calibrate", "name": ".*}$' "$work/cal.json")
	if [ "$rc" = 0 ] && [ "$lines" -gt 5 ] && [ "$objects" = "$lines" ]; then
		ok "calibrate --format json: one object per line ($lines figures)"
	else not_ok "calibrate --format json: one object per line" "exit $rc, $objects objects in $lines lines"; fi
	insn=$(grep -o '"save_insn": "[a-z]*"' "$work/cal.json" | sort -u)
	insn=${insn#*: \"}; insn=${insn%\"}
	ratio=$(grep -c '"vs_raw_pair": [0-9]' "$work/cal.json")
	if [ -n "$insn" ] && [ "$ratio" = 1 ] &&
	   grep -qF "\"name\": \"switch: libfpu eager ($insn)\", \"state\": \"dirty\"" "$work/cal.json" &&
	   grep -F "\"name\": \"switch: libfpu eager ($insn)\"" "$work/cal.json" | grep -q '"vs_raw_pair": [0-9]' &&
	   grep -qE "\"name\": \"switch: raw $insn\\+f?xrstor\"" "$work/cal.json"; then
		ok "calibrate: libfpu's switch and the raw pair both save with $insn"
	else not_ok "calibrate: libfpu's switch and the raw pair both save with the same instruction" \
		"save_insn '$insn', ratios $ratio" "$(grep switch "$work/cal.json")"; fi
	# the held path saves and restores nothing: cheaper than eager's save + restore
	med() { grep -F "\"name\": \"$1\"" "$work/cal.json" | grep -o '"ticks_per_op_median": [0-9.]*' | cut -d' ' -f2; }
	held=$(med "switch: libfpu held (smp-lazy)") eager=$(med "switch: libfpu eager ($insn)")
	if [ -n "$held" ] && [ -n "$eager" ] && awk -v h="$held" -v e="$eager" 'BEGIN { exit !(h > 0 && h < e / 2) }' &&
	   grep -F '"name": "switch: libfpu held (smp-lazy)"' "$work/cal.json" | grep -q '"state_verified": true'; then
		ok "calibrate: the held switch (no save, no restore) is timed: $held ticks against eager's $eager"
	else not_ok "calibrate: the held switch is timed and cheaper than half of eager's" \
		"held '$held', eager '$eager'" "$(grep held "$work/cal.json")"; fi
	"$fpulab" calibrate --repeat 5 --format csv --output "$work/cal.csv" > "$work/cal.out" 2>&1
	json_keys=$(head -n 1 "$work/cal.json" | grep -o '"[a-z0-9_]*": ' | sed 's/^"//; s/": $//' | paste -sd,)
	if [ "$(head -n 1 "$work/cal.csv")" = "$json_keys" ] && [ ! -s "$work/cal.out" ] &&
	   [ "$(($(wc -l < "$work/cal.csv") - 1))" = "$lines" ]; then
		ok "calibrate --output FILE --format csv: the JSON's keys as its header, a row per figure"
	else not_ok "calibrate --output FILE --format csv: the JSON's keys as its header, a row per figure" \
		"csv: $(head -n 1 "$work/cal.csv")" "json: $json_keys"; fi
	"$fpulab" calibrate --repeat 20 --insn xsave > "$work/cal.txt" 2>&1
	if grep -qF "libfpu eager switch (xsave) / raw xsave+xrstor pair" "$work/cal.txt"; then
		ok "calibrate --insn xsave: the headline ratio names xsave on both sides"
	else not_ok "calibrate --insn xsave: the headline ratio names xsave on both sides" "$(tail -n 3 "$work/cal.txt")"; fi
else
	skip "this host has no XSAVE"
	skip "this host has no XSAVE"
	skip "this host has no XSAVE"
	skip "this host has no XSAVE"
fi

# ---- tests/run-tests.sh: skips are neither passes nor failures ----
mk() { printf '#!/bin/sh\n%s\n' "$2" > "$work/$1"; chmod +x "$work/$1"; }
mk t-mixed 'echo "ok 1 - counts #NM traps"; echo "ok 2 - # SKIP no AVX"; echo "ok 3 - avx # skip not here"; echo "not ok 4 - broken"; exit 1'
mk t-pass 'echo "ok 1 - fine"; echo "ok 2 fine too"'
mk t-onlyskip 'echo "ok 1 # SKIP nothing to do"'
"$root/tests/run-tests.sh" "$work/t-mixed" "$work/t-pass" "$work/t-onlyskip" > "$work/rt.out" 2>&1
rc=$?
last=$(tail -n 1 "$work/rt.out")
if [ "$rc" = 1 ] && [ "$last" = "3 passed, 1 failed, 3 skipped" ]; then
	ok "run-tests.sh: lines with a SKIP directive count as skipped; last line 'N passed, N failed, N skipped'"
else not_ok "run-tests.sh counts skips apart" "exit $rc, last line '$last'"; fi
# a line per suite, before the last line
if grep -qx 'FAIL t-mixed                      (1 failed, 1 passed, 2 skipped)' "$work/rt.out" &&
   grep -qx 'PASS t-pass                       (2 passed, 0 skipped)' "$work/rt.out" &&
   grep -qx 'PASS t-onlyskip                   (0 passed, 1 skipped)' "$work/rt.out"; then
	ok "run-tests.sh: a PASS/FAIL line per suite with its counts"
else not_ok "run-tests.sh: a PASS/FAIL line per suite with its counts" "$(grep -E '^(PASS|FAIL)' "$work/rt.out")"; fi
"$root/tests/run-tests.sh" "$work/t-pass" > "$work/rt.out" 2>&1
rc=$?
[ "$rc" = 0 ] && [ "$(tail -n 1 "$work/rt.out")" = "2 passed, 0 failed, 0 skipped" ] &&
	ok "run-tests.sh: all passing exits 0" ||
	not_ok "run-tests.sh: all passing exits 0" "exit $rc, $(tail -n 1 "$work/rt.out")"

finish
