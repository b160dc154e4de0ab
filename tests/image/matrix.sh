#!/bin/bash
# SPDX-License-Identifier: MIT
# The bootable image's default entry (every experiment, and costs) on q35
# with SeaBIOS and 2 CPUs: the whole matrix over COM1 with no integrity
# error, then `fpulab import-serial` reads the rows back into a result file
# that summary, report, compare and replay --costs take like any other.
. "$(dirname "$0")/lib.sh"

why=$(image_tools_missing)
if [ -n "$why" ]; then
	skip "the default matrix through GRUB" "$why"
	finish
	exit
fi
make_image matrix --default 0 --timeout 0 ||
	{ not_ok "mkimage" "$(cat "$work/matrix.mkimage")"; finish; exit; }
boot matrix "$work/matrix.iso" seabios 2 2400
if [ "$(rc_of matrix)" = 33 ] && serial_has matrix '@fpulab done runs='; then
	ok "the default matrix ends OK ($(cat "$work/matrix.time") s)"
else
	not_ok "the default matrix ends OK" "status $(rc_of matrix)" "$(tail_of matrix)"
fi
for e in context-switch stress fp-vs-spinner short-tasks kernel-checksum sleeping-lock costs; do
	serial_has matrix "@fpulab result experiment=$e " && ok "$e ran" || not_ok "$e ran"
done
errs=$(tr -d '\r' < "$work/matrix.serial" | grep '^@fpulab result' | grep -vc ' integrity_errors=0 ')
[ "$errs" = 0 ] && ok "no run with an integrity error" || not_ok "no run with an integrity error" "$errs runs"

"$fpulab" import-serial "$work/matrix.serial" -o "$work/matrix.json" 2> "$work/import.err"
rc=$?
runs=$(tr -d '\r' < "$work/matrix.serial" | sed -n 's/^@fpulab done runs=\([0-9]*\).*/\1/p')
[ "$rc" = 0 ] && grep -qF "rows ($runs runs) written" "$work/import.err" &&
	ok "import-serial: every one of the $runs runs is in a row" ||
	not_ok "import-serial: every run is in a row" "exit $rc" "$(cat "$work/import.err")"
[ "$(jq -r 'select(.experiment == "costs") | .clock' "$work/matrix.json" | sort -u)" = emulated-tsc ] &&
	[ "$(jq -r '.hypervisor' "$work/matrix.json" | sort -u)" = tcg ] &&
	ok "import-serial: the rows say their ticks are emulated (TCG), as the hello said" ||
	not_ok "import-serial: the rows say their ticks are emulated"
"$fpulab" summary "$work/matrix.json" > "$work/summary.out" 2>&1 &&
	grep -q 'stress: integrity errors per policy' "$work/summary.out" &&
	ok "summary reads the imported file" || not_ok "summary reads the imported file" "$(head -n 5 "$work/summary.out")"
"$fpulab" report --from "$work/matrix.json" > "$work/report.out" 2>&1 && grep -q "emulated ticks" "$work/report.out" &&
	ok "report reads the imported file" || not_ok "report reads the imported file" "$(head -n 5 "$work/report.out")"
"$fpulab" compare "$work/matrix.json" "$work/matrix.json" > "$work/compare.out" 2>&1 &&
	ok "compare reads the imported file" || not_ok "compare reads the imported file" "$(head -n 5 "$work/compare.out")"
jq -c 'select(.experiment == "costs")' "$work/matrix.json" > "$work/costs.json"
"$fpulab" trace synth boot --switches 200 -o "$work/t.trace" > /dev/null 2>&1
"$fpulab" replay --costs "$work/costs.json" "$work/t.trace" > "$work/replay.out" 2>&1 &&
	grep -q 'lab costs, emulated (TCG)' "$work/replay.out" &&
	ok "replay --costs takes the imported costs" || not_ok "replay --costs takes the imported costs" "$(head -n 5 "$work/replay.out")"
finish
